"""What the local model's judge reads while validating, and what each reading costs.

    python bench/judge_reads.py DATASET --index DIR [--limit N]

At the judge level every answer sentence is judged for support against the sources it cites,
and every answer is judged for relevance; both prompts hold the cited evidence whole (the
source's chunk, not the trimmed view the model answered from), and a relevance prompt after a
support prompt about the same evidence reuses its KV cache. This runs the first ``--limit``
questions of DATASET through the whole graph with the default settings (every model call
fresh) and records each judge call: support or relevance, the evidence's words, the prompt's
new and reused tokens, and its seconds; and each question's seconds, outcome and how long
its generation and validation took. Writes bench/results/judge_reads.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_output import write_result

import citeguard
from citeguard.evaluation.dataset import load_questions
from citeguard.index.search import load_index
from citeguard.llm import judge as judge_module

OUT = Path("bench/results/judge_reads.json")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True, help="index of the dataset's docs")
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    calls: list[dict[str, Any]] = []
    support = judge_module.LocalJudge.support_probability
    relevance = judge_module.LocalJudge.answers_question_probability

    def timed_support(self: judge_module.LocalJudge, claim: str, evidence: str) -> float:
        return _recorded(calls, "support", evidence, self, lambda: support(self, claim, evidence))

    def timed_relevance(
        self: judge_module.LocalJudge,
        question: str,
        evidence: str,
        wording: str = judge_module.RELEVANCE_QUESTION,
    ) -> float:
        return _recorded(
            calls, "relevance", evidence, self, lambda: relevance(self, question, evidence, wording)
        )

    judge_module.LocalJudge.support_probability = timed_support  # type: ignore[method-assign]
    judge_module.LocalJudge.answers_question_probability = timed_relevance  # type: ignore[method-assign]

    indexed = set(load_index(args.index).documents)
    asked = load_questions(args.dataset / "questions.jsonl", unique_ids=False)[: args.limit]
    questions: list[dict[str, Any]] = []
    for question in asked:
        first_call = len(calls)
        started = time.perf_counter()
        result = citeguard.answer(
            question.question, index=str(args.index), docs=question.scope(indexed)
        )
        questions.append(
            {
                "id": question.id,
                "status": result.get("status"),
                "answer": result.get("answer"),
                "seconds": time.perf_counter() - started,
                "timings": result.get("timings"),
                "judge_calls": calls[first_call:],
            }
        )
    support_seconds = [c["seconds"] for c in calls if c["kind"] == "support"]
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/judge_reads.py " + " ".join(argv),
            "questions": len(questions),
            "judge_calls": len(calls),
            "support_calls": len(support_seconds),
            "support_seconds_median": statistics.median(support_seconds)
            if support_seconds
            else None,
            "support_evidence_words_median": statistics.median(
                c["evidence_words"] for c in calls if c["kind"] == "support"
            )
            if support_seconds
            else None,
            "judge_seconds": sum(c["seconds"] for c in calls),
            "question_seconds": sum(q["seconds"] for q in questions),
            "rows": questions,
        },
    )
    return 0


def _recorded(
    calls: list[dict[str, Any]],
    kind: str,
    evidence: str,
    judge: judge_module.LocalJudge,
    ask: Callable[[], float],
) -> float:
    """Run ``ask`` (one judge call) and append what it read and cost to ``calls``."""
    before = judge.work.snapshot()
    started = time.perf_counter()
    probability = float(ask())
    after = judge.work.snapshot()
    calls.append(
        {
            "kind": kind,
            "evidence_words": len(evidence.split()),
            "new_prompt_tokens": after.prompt_tokens - before.prompt_tokens,
            "reused_tokens": after.reused_tokens - before.reused_tokens,
            "seconds": time.perf_counter() - started,
            "probability": probability,
        }
    )
    return probability


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

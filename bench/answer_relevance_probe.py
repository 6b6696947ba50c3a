"""Can the local model tell an answer that responds to the question from one that does not?

    python bench/answer_relevance_probe.py evals/*/results.jsonl [--mode answer|evidence]

A probe, not a test (docs/results.md, "Validation levels"). Sentence validation checks that each
answer sentence is supported by its cited source, not that the answer is what the question
asked for: "What fee does the tenant pay to break the lease early?" answered with the
lease's late fee passes it. This asks the local model, for labelled answers
from earlier evaluation runs, "Does the ANSWER respond to the QUESTION?" and reports how
well P(Yes) separates right answers to answerable questions from answers given to
unanswerable ones (AUROC, and what a threshold keeps and rejects).

``--mode evidence`` asks instead whether the answer's cited sources answer the question,
with the prompt of the validator's relevance check
(``LocalJudge.answers_question_probability``, ``--relevance-check``).

Writes the scored pairs to bench/results/answer_relevance_probe[_evidence].json.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from citeguard.llm.judge import local_judge

OUT = Path("bench/results/answer_relevance_probe.json")
SYSTEM = (
    "You check whether an answer responds to a question. Judge only whether the answer "
    "gives the kind of information the question asks for, not whether it is true."
)
THRESHOLDS = (0.3, 0.5, 0.7)
_judge = functools.cache(local_judge)  # the local model loads on first use


def _field(row: dict[str, Any], name: str) -> Any:
    # Older results lines store nested records as their Python repr.
    value = row.get(name)
    return ast.literal_eval(value) if isinstance(value, str) else value


def labelled_pairs(paths: list[Path]) -> list[dict[str, Any]]:
    """Distinct (question, answer) pairs: label 1 for a right answer to an answerable
    question, 0 for any answer to an unanswerable one (wrong answers to answerable questions
    mix both kinds of error and are left out)."""
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("status") != "answered" or not row.get("answer"):
                continue
            correct = (_field(row, "scores") or {}).get("correct")
            if row["answerable"] and not correct:
                continue
            answer = re.sub(r"\s*\[\d+\]", "", row["answer"]).strip()
            cited = {citation["marker"] for citation in _field(row, "citations") or []}
            sources = _field(row, "evidence") or []
            evidence = "\n\n".join(
                source["text"].strip()
                for number, source in enumerate(sources, start=1)
                if number in cited
            )
            label = 1 if row["answerable"] else 0
            pairs.setdefault(
                (row["question"], answer),
                {
                    "question": row["question"],
                    "answer": answer,
                    "evidence": evidence,
                    "label": label,
                    "run": str(path),
                },
            )
    return list(pairs.values())


def answer_messages(pair: dict[str, Any]) -> list[dict[str, str]]:
    """The answer-mode prompt: does the answer respond to the question?"""
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": f"QUESTION:\n{pair['question']}\n\nANSWER:\n{pair['answer']}\n\n"
            "Does the ANSWER respond to the QUESTION (rather than state something else)? "
            "Answer Yes or No.",
        },
    ]


def relevance_probability(pair: dict[str, Any], mode: str) -> float:
    """P(Yes) from the local model: evidence mode is the validator's relevance check."""
    if mode == "evidence":
        return _judge().answers_question_probability(pair["question"], pair["evidence"])
    return _judge().yes_probability(answer_messages(pair))


def auroc(positives: list[float], negatives: list[float]) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="results.jsonl files of eval runs")
    parser.add_argument(
        "--mode",
        choices=("answer", "evidence"),
        default="answer",
        help="ask whether the answer responds to the question (answer) or whether its cited "
        "sources answer it (evidence)",
    )
    parser.add_argument("--out", type=Path, help=f"default {OUT} (with _evidence in evidence mode)")
    args = parser.parse_args(argv)
    pairs = labelled_pairs(args.results)
    positives_count = sum(pair["label"] for pair in pairs)
    if not positives_count or positives_count == len(pairs):
        parser.error("need both right answers and answers to unanswerable questions")
    started = time.perf_counter()
    for pair in pairs:
        pair["p_responds"] = relevance_probability(pair, args.mode)
    seconds = time.perf_counter() - started
    positives = [p["p_responds"] for p in pairs if p["label"] == 1]
    negatives = [p["p_responds"] for p in pairs if p["label"] == 0]
    summary: dict[str, Any] = {
        "mode": args.mode,
        "pairs": len(pairs),
        "right_answers": len(positives),
        "answers_to_unanswerable": len(negatives),
        "auroc": round(auroc(positives, negatives), 3),
        "seconds_per_pair": round(seconds / len(pairs), 2),
        "thresholds": {
            str(t): {
                "right_kept": sum(p >= t for p in positives),
                "unanswerable_rejected": sum(n < t for n in negatives),
            }
            for t in THRESHOLDS
        },
    }
    out = args.out or (
        OUT.with_name(f"{OUT.stem}_evidence.json") if args.mode == "evidence" else OUT
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "pairs": pairs}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

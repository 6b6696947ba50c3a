"""Can the local model tell an answer that responds to the question from one that does not?

    python bench/answer_relevance_probe.py evals/*/results.jsonl [--out FILE]

A probe for a rejected idea (docs/results.md, session 9), not a test. The validator checks
that each answer sentence is supported by its cited source, not that the answer is what the
question asked for: "What fee does the tenant pay to break the lease early?" answered with
the lease's late fee passes every level. This asks the local model, for labelled answers
from earlier evaluation runs, "Does the ANSWER respond to the QUESTION?" and reports how
well P(Yes) separates right answers to answerable questions from answers given to
unanswerable ones (AUROC, and what a threshold keeps and rejects).

Writes the scored pairs to bench/results/answer_relevance_probe.json.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

from citeguard import llm

OUT = Path("bench/results/answer_relevance_probe.json")
SYSTEM = (
    "You check whether an answer responds to a question. Judge only whether the answer "
    "gives the kind of information the question asks for, not whether it is true."
)
THRESHOLDS = (0.3, 0.5, 0.7)


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
            label = 1 if row["answerable"] else 0
            pairs.setdefault(
                (row["question"], answer),
                {"question": row["question"], "answer": answer, "label": label, "run": str(path)},
            )
    return list(pairs.values())


def relevance_probability(question: str, answer: str) -> float:
    """P(Yes) that ``answer`` responds to ``question``, from the local model's next token."""
    llama = llm.get_local_llama()
    messages = [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": f"QUESTION:\n{question}\n\nANSWER:\n{answer}\n\nDoes the ANSWER respond "
            "to the QUESTION (rather than state something else)? Answer Yes or No.",
        },
    ]
    prompt = llm._chat_formatter(llama)(messages=messages).prompt
    tokens = llama.tokenize(prompt.encode(), add_bos=True, special=True)
    yes_id, no_id = llm._answer_token_ids(llama)
    with llm._lock_for(llama):
        logits, _ = llm._next_token_logits(llama, tokens)
    return 1.0 / (1.0 + math.exp(float(logits[no_id]) - float(logits[yes_id])))


def auroc(positives: list[float], negatives: list[float]) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="results.jsonl files of eval runs")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    pairs = labelled_pairs(args.results)
    positives_count = sum(pair["label"] for pair in pairs)
    if not positives_count or positives_count == len(pairs):
        parser.error("need both right answers and answers to unanswerable questions")
    started = time.perf_counter()
    for pair in pairs:
        pair["p_responds"] = relevance_probability(pair["question"], pair["answer"])
    seconds = time.perf_counter() - started
    positives = [p["p_responds"] for p in pairs if p["label"] == 1]
    negatives = [p["p_responds"] for p in pairs if p["label"] == 0]
    summary: dict[str, Any] = {
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
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "pairs": pairs}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

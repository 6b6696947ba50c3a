"""Compare evaluation runs on the questions they all finished (not a test).

    python bench/compare_runs.py evals/cuad-dev-free evals/cuad-dev-evidence-first ...

Prints a Markdown table of the headline metrics, each run summarised over the same
question ids (the first N of the dataset that every run has finished), so partial runs
can be compared fairly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.metrics import rescore, summarize

METRICS = [
    "answer_accuracy",
    "false_refusal_rate",
    "false_answer_rate",
    "true_refusal_rate",
    "hallucination_rate",
    "unsupported_hallucination_rate",
    "citation_recall",
    "citation_precision",
    "citation_validity",
    "evidence_support_rate",
    "token_f1",
    "token_f1_gold_spans",
    "hit@k",
    "regeneration_attempt_rate",
]


def load(run: Path) -> dict[str, dict]:
    """A run's finished results by id, re-scored against its dataset's labels."""
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line]
    rows = [row for row in rows if not row.get("error")]
    dataset = json.loads((run / "summary.json").read_text())["dataset"]
    questions = {q.id: q for q in load_questions(Path(dataset))}
    return {row["id"]: rescore(row, questions[row["id"]]) for row in rows}


def main(argv: list[str]) -> int:
    runs = {a.rstrip("/"): load(Path(a)) for a in argv}
    common = set.intersection(*(set(r) for r in runs.values()))
    print(f"{len(common)} questions common to all runs\n")
    print("| run | " + " | ".join(METRICS) + " | p50 s |")
    print("|---" * (len(METRICS) + 2) + "|")
    for name, rows in runs.items():
        summary = summarize([rows[i] for i in sorted(common)])
        cells = []
        for m in METRICS:
            v = summary.get(m)
            cells.append("n/a" if v is None else f"{v:.2f}")
        p50 = (summary.get("seconds_per_question") or {}).get("p50")
        print(f"| {name} | " + " | ".join(cells) + f" | {p50:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Compare evaluation runs on the questions they all finished (not a test).

    python bench/compare_runs.py evals/cuad-dev-free evals/cuad-dev-evidence-first ...

Prints a Markdown table of the headline metrics, each run summarised over the same
question ids (the first N of the dataset that every run has finished), so partial runs
can be compared fairly.

    python bench/compare_runs.py --answers BEFORE AFTER

instead says whether two runs delivered the same answers: per question the status, the
answer text and the cited pages and quotes; it lists every question that differs and exits
1 when any does.
"""

from __future__ import annotations

import argparse
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


def load(run: Path, dataset: Path | None = None) -> dict[str, dict]:
    """A run's finished results by id, re-scored against its dataset's labels (the dataset
    named in the run's summary.json unless given)."""
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line]
    rows = [row for row in rows if not row.get("error")]
    if dataset is None:
        dataset = Path(json.loads((run / "summary.json").read_text())["dataset"])
    questions = {q.id: q for q in load_questions(dataset)}
    return {row["id"]: rescore(row, questions[row["id"]]) for row in rows}


def delivered(row: dict) -> tuple:
    """What a user saw for one question: status, answer and (document, page, quote) cited."""
    citations = tuple(
        (c.get("doc"), c.get("pdf_page"), c.get("quote")) for c in row.get("citations") or []
    )
    return (row.get("status"), row.get("answer"), citations)


def compare_answers(before: Path, after: Path) -> int:
    """Print the questions whose delivered answer differs between two runs; 1 if any does."""
    rows = {}
    for run in (before, after):
        lines = (run / "results.jsonl").read_text().splitlines()
        rows[run] = {r["id"]: r for r in map(json.loads, filter(None, lines))}
    common = sorted(set(rows[before]) & set(rows[after]))
    only = sorted(set(rows[before]) ^ set(rows[after]))
    differ = [i for i in common if delivered(rows[before][i]) != delivered(rows[after][i])]
    print(f"{len(common) - len(differ)} of {len(common)} answers identical")
    for question in differ:
        print(f"- {question}")
        for run in (before, after):
            status, answer, citations = delivered(rows[run][question])
            pages = [(doc, page) for doc, page, _ in citations]
            print(f"    {run}: {status}: {answer!r} {pages}")
    if only:
        print(f"{len(only)} questions in one run only: {', '.join(only)}")
    return 1 if differ or only else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="evaluation output folders")
    parser.add_argument("--dataset", type=Path, help="labels (default: each run's summary)")
    parser.add_argument(
        "--answers", action="store_true", help="compare two runs' delivered answers instead"
    )
    args = parser.parse_args(argv)
    if args.answers:
        if len(args.runs) != 2:
            parser.error("--answers compares exactly two runs")
        return compare_answers(*args.runs)
    runs = {str(run).rstrip("/"): load(run, args.dataset) for run in args.runs}
    common = set.intersection(*(set(r) for r in runs.values()))
    print(f"{len(common)} questions common to all runs\n")
    # Prompt tokens per question do not depend on the machine's speed; seconds do.
    print("| run | n answered | " + " | ".join(METRICS) + " | p50 s | prompt tokens p50 |")
    print("|---" * (len(METRICS) + 4) + "|")
    for name, rows in runs.items():
        chosen = [rows[i] for i in sorted(common)]
        summary = summarize(chosen)
        cells = []
        for m in METRICS:
            v = summary.get(m)
            cells.append("n/a" if v is None else f"{v:.2f}")
        p50 = (summary.get("seconds_per_question") or {}).get("p50")
        answered = sum(row.get("status") == "answered" for row in chosen)
        work = summary.get("model_work") or {}
        tokens = (work.get("prompt_tokens_per_question") or {}).get("p50")
        tokens_cell = "n/a" if tokens is None else f"{tokens:.0f}"
        print(f"| {name} | {answered} | " + " | ".join(cells) + f" | {p50:.1f} | {tokens_cell} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

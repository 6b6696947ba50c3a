"""Answer accuracy by the cited chunk and by the quote, with quotes drawn by the current code.

    python bench/quote_accuracy.py RUN DATASET [RUN DATASET ...] [--out FILE]

``citeguard eval`` re-scores a finished run with the quotes it stored. This draws every
delivered answer's quotes again from its stored validation verdict and sources with today's
``graph.citations.build_citations`` (no model call), then scores each RUN against its
DATASET: ``answer_accuracy`` (a cited chunk holds gold) and ``answer_accuracy_quoted`` (a
quote holds gold, ``evaluation.metrics.quotes_gold``), and lists the answers right only by
the chunk and the quotes that changed. Writes bench/results/quote_accuracy.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench_questions import write_runs

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.metrics import rescore
from citeguard.graph.citations import build_citations

OUT = Path("bench/results/quote_accuracy.json")


def requoted(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its citations drawn again (a refusal unchanged)."""
    if record.get("status") != "answered":
        return record
    sentences = (record.get("validation") or {}).get("sentences") or []
    citations = build_citations(sentences, record.get("evidence") or [])
    return {**record, "citations": [dict(c) for c in citations]}


def run_accuracy(run: Path, dataset: Path) -> dict[str, Any]:
    """Both accuracies of one run, its answers right only by the chunk, its changed quotes."""
    questions = {q.id: q for q in load_questions(dataset / "questions.jsonl", unique_ids=False)}
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    right = right_quoted = 0
    chunk_only: list[dict[str, str]] = []
    changed: list[dict[str, Any]] = []
    for stored in records:
        record = requoted(stored)
        before = [c["quote"] for c in stored.get("citations") or []]
        after = [c["quote"] for c in record.get("citations") or []]
        if before != after:
            changed.append({"question": stored["question"], "before": before, "after": after})
        scores = rescore(record, questions[str(record["id"])])["scores"]
        right += bool(scores["correct"])
        right_quoted += bool(scores["correct_quoted"])
        if scores["correct"] and not scores["correct_quoted"]:
            chunk_only.append({"question": record["question"], "answer": record["answer"]})
    return {
        "run": str(run),
        "dataset": str(dataset),
        "questions": len(records),
        "answer_accuracy": right / len(records) if records else None,
        "answer_accuracy_quoted": right_quoted / len(records) if records else None,
        "right_by_chunk_only": chunk_only,
        "quotes_changed": changed,
    }


def main(argv: list[str]) -> int:
    return write_runs(argv, __doc__.split("\n\n")[0], OUT, "quote_accuracy.py", run_accuracy)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

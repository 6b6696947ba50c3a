"""The relevance check's two readers on the quotes of the model's delivered answers.

    python bench/model_answer_quotes.py RUN [RUN ...] [--out FILE]

A model answer's relevance check reads the sources it cites, whole (``validate/validator.py``):
a true sentence taken from the part of a chunk that answers something else passes when
another part of the same chunk answers the question ("My fridge arrived with a dent. What do I
do?" answered with the warranty's exclusion of dents, from the chunk that also holds the
48-hour rule for damage on delivery). A passage answer's check reads its quote instead. This
asks, for every answer the model wrote in each evaluation RUN folder (a passage answer, drafted
after the model's turns, is left out: with ``passage_first`` off, the default, it is the answer
whose ``attempts`` exceed ``regenerations + 1``), what the passage answer's check (the mean of
the local model's and the evidence scorer's P, ``learned.evidence.averaged_relevance``) gives
the quotes its citations show, joined, and counts the answers counted right and wrong that
reach each threshold. Loads the local model (one judge call an answer). Writes
bench/results/model_answer_quotes.json with every answer's scores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import load_scorer

from citeguard.learned.evidence import best_passage_score
from citeguard.llm.judge import local_judge

OUT = Path("bench/results/model_answer_quotes.json")
THRESHOLDS = (0.3, 0.4, 0.5)


def model_answers(run: Path) -> list[dict[str, Any]]:
    """The delivered answers of ``run`` that the model wrote (not the passage answer)."""
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return [
        r
        for r in records
        if r["status"] == "answered" and int(r["attempts"]) <= int(r["regenerations"]) + 1
    ]


def cited_quotes(record: dict[str, Any]) -> str:
    """The distinct quotes of an answer's citations, in order, joined."""
    quotes: list[str] = []
    for citation in record.get("citations") or []:
        if citation["quote"] not in quotes:
            quotes.append(citation["quote"])
    return " ".join(quotes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="`citeguard eval --out` folders")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    scorer = load_scorer(None)
    judge = local_judge()
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for run in args.runs:
        for record in model_answers(run):
            quotes = cited_quotes(record)
            judged = float(judge.answers_question_probability(record["question"], quotes))
            scored = best_passage_score(scorer, record["question"], quotes)
            rows.append(
                {
                    "run": str(run),
                    "id": record["id"],
                    "question": record["question"],
                    "answer": record["answer"],
                    "quotes": quotes,
                    "counted_right": bool((record.get("scores") or {}).get("correct")),
                    "source_relevance": (record.get("validation") or {}).get("relevance_score"),
                    "judge": judged,
                    "scorer": scored,
                    "mean": (judged + scored) / 2,
                }
            )
    right = [r for r in rows if r["counted_right"]]
    wrong = [r for r in rows if not r["counted_right"]]
    write_result(
        args.out,
        {
            "command": "python bench/model_answer_quotes.py " + " ".join(argv),
            "model_answers": len(rows),
            "counted_right": len(right),
            "under_threshold": {
                str(t): {
                    "counted_right": sum(r["mean"] < t for r in right),
                    "wrong": sum(r["mean"] < t for r in wrong),
                }
                for t in THRESHOLDS
            },
            "seconds": time.perf_counter() - started,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

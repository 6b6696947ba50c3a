"""What a lower relevance threshold after an unsure model refusal would gain (measured, not built).

    python bench/refusal_margin.py ../shared/data/cuad-train --out evals/refusal-margin \
        --questions 600 --seed 37
    python bench/unsure_refusal_fit.py evals/refusal-margin

Reads what ``bench/refusal_margin.py`` wrote (its sample of cuad-train's held-out
contracts run through the default graph, every call fresh, and the probability greedy
decoding gave each first draft's opening tokens). The rule measured: when the model's first
draft is the refusal with a probability under ``max_refusal_probability``, the scorer's
quote that follows would need only ``relevance_threshold`` from the relevance check instead
of the run's 0.5. Every pair of values is tried; a pair is allowed when the unanswerable
questions it would answer keep the sample's false answers within the calibration's budget
(``max_false_answer_share`` of its unanswerable questions, the share ``citeguard
calibrate`` fits the scorer's thresholds to; none when the sample is already over it); the
allowed pair answering the most answerable questions with gold is kept, ties to the fewest
wrong answers, then to the highest threshold and lowest maximum. The same fit on half of
the contracts is scored on the other half, both ways, to show what it does on contracts it
was not fitted on. Writes ``OUT/unsure_refusal_fit.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import failed_only_relevance, quote_label, trail_run
from refusal_margin import refusal_probability

OPENING_TOKENS = 4
"""The refusal's first tokens whose probability the rule reads (``refusal_margin.py``'s
``--opening-tokens`` default)."""
RELEVANCE_GRID = [round(0.30 + 0.01 * i, 2) for i in range(20)]
"""Thresholds tried, under the run's 0.5."""


def refused_then_quoted(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The questions whose first draft was the model's refusal and whose passage answer
    then passed or failed the relevance check alone (with the refusal's probability, the
    quote's relevance and whether it cites gold), and the sample's counts."""
    questions, records = trail_run(folder / "run", folder / "dataset")
    margins = {
        str(row["id"]): row
        for row in json.loads((folder / "margins.json").read_text(encoding="utf-8"))["rows"]
    }
    rows = []
    for record in records:
        question = questions[str(record["id"])]
        drafts = record.get("drafts") or []
        decode = (margins.get(str(record["id"])) or {}).get("first_decode") or []
        if not drafts or not drafts[0]["is_refusal"] or not decode:
            continue
        quotes = [d for d in drafts if d["drafted_by"] == "answer_from_passage"]
        if not quotes or quotes[-1]["relevance"] is None:
            continue
        quote = quotes[-1]
        if not (quote["passed"] or failed_only_relevance(quote)):
            continue
        rows.append(
            {
                "id": record["id"],
                "document": (record.get("docs") or [""])[0],
                "question": record["question"],
                "refusal_probability": round(refusal_probability(decode, OPENING_TOKENS), 4),
                "relevance": round(float(quote["relevance"]), 4),
                "passed": bool(quote["passed"]),
                "label": quote_label(record, question, quote),
            }
        )
    counts = {
        "questions": len(records),
        "unanswerable": sum(1 for r in records if not questions[str(r["id"])].answerable),
        "false_answers": sum(
            1
            for r in records
            if r.get("status") == "answered" and not questions[str(r["id"])].answerable
        ),
        "documents": sorted({str((r.get("docs") or [""])[0]) for r in records}),
    }
    return rows, counts


def gains(rows: list[dict[str, Any]], maximum: float, threshold: float) -> dict[str, int]:
    """What the rule would newly answer: refused quotes over ``threshold`` whose refusal
    was under ``maximum``, by label."""
    newly = [
        r
        for r in rows
        if not r["passed"] and r["refusal_probability"] < maximum and r["relevance"] >= threshold
    ]
    return {
        label: sum(1 for r in newly if r["label"] == label)
        for label in ("right", "wrong_passage", "unanswerable")
    }


def fit(rows: list[dict[str, Any]], false_answer_room: int) -> dict[str, Any] | None:
    """The allowed (maximum, threshold) pair that answers the most right quotes."""
    maxima = sorted({r["refusal_probability"] for r in rows if not r["passed"]})
    best: tuple[Any, ...] | None = None
    for index, value in enumerate(maxima):
        # Halfway to the next refusal probability: the rule's edge lies between samples.
        upper = maxima[index + 1] if index + 1 < len(maxima) else 1.0
        maximum = round((value + upper) / 2, 4)
        for threshold in RELEVANCE_GRID:
            got = gains(rows, maximum, threshold)
            if got["unanswerable"] > false_answer_room or got["right"] == 0:
                continue
            key = (got["right"], -got["unanswerable"] - got["wrong_passage"], threshold, -maximum)
            if best is None or key > best[0]:
                best = (key, maximum, threshold, got)
    if best is None:
        return None
    return {"max_refusal_probability": best[1], "relevance_threshold": best[2], "gains": best[3]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="what bench/refusal_margin.py wrote")
    parser.add_argument("--max-false-answer-share", type=float, default=0.025)
    args = parser.parse_args(argv)
    rows, counts = refused_then_quoted(args.folder)
    room = (
        math.floor(args.max_false_answer_share * counts["unanswerable"]) - counts["false_answers"]
    )
    fitted = fit(rows, max(room, 0))
    halves = [counts["documents"][0::2], counts["documents"][1::2]]
    folds = []
    for fitted_on, scored_on in (halves, halves[::-1]):
        on_rows = [r for r in rows if r["document"] in fitted_on]
        share = len(fitted_on) / max(len(counts["documents"]), 1)
        half_fit = fit(on_rows, max(math.floor(room * share), 0))
        other = [r for r in rows if r["document"] in scored_on]
        folds.append(
            {
                "fit": half_fit,
                "on_the_other_half": gains(
                    other, half_fit["max_refusal_probability"], half_fit["relevance_threshold"]
                )
                if half_fit
                else None,
            }
        )
    result = {
        "command": "python bench/unsure_refusal_fit.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "sample": {k: v for k, v in counts.items() if k != "documents"},
        "documents": len(counts["documents"]),
        "false_answer_room": room,
        "fit": fitted,
        "two_folds_by_contract": folds,
        "refused_then_quoted": {
            label: sum(1 for r in rows if r["label"] == label)
            for label in ("right", "wrong_passage", "unanswerable")
        },
        "rows": sorted(rows, key=lambda r: -r["relevance"]),
    }
    write_result(args.folder / "unsure_refusal_fit.json", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

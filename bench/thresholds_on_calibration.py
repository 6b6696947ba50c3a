"""What a scorer's thresholds deliver on a calibration run's questions (not a test).

    citeguard calibrate ../shared/data/cuad-train --model MODEL --out CAL [--scorer-rerank]
    python bench/thresholds_on_calibration.py CAL --model MODEL [--model OTHER ...]

``calibrate`` writes every question's best passage score (``rows``) and the relevance
check's verdict on each passage answer it drafted (``judged_quotes``) into
``CAL/calibration.json``. This reads them and, for the thresholds of each ``--model``
folder's ``model.json`` (answer threshold, refusal floor, passage answer threshold, weaker
passages' relevance minimum), counts what the graph would do with those questions: the
shares of answerable and unanswerable questions over the answer threshold and under the
floor, and the passage answers the relevance check lets through (all, right, unanswerable
ones), as ``calibrate`` reports for the thresholds it fits. It answers "what do these
thresholds give on sources ordered another way?", e.g. thresholds fitted in retrieval
order applied to a run calibrated with the scorer's rerank. Quotes are judged only from
the run's own floor up, so a lower floor's weak passages are not counted (the count is a
lower bound there). Writes bench/results/thresholds_on_calibration.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from citeguard.evaluation.quote_thresholds import JudgedQuote, delivered_quotes


def _shares(rows: list[dict[str, Any]], keep: Any) -> float:
    return sum(1 for row in rows if keep(row)) / len(rows) if rows else 0.0


def delivered(
    judged: list[JudgedQuote],
    passage_threshold: float,
    floor: float,
    weak_relevance: float | None,
    judge_threshold: float,
    unanswerable: int,
) -> dict[str, Any]:
    """The passage answers drafted at ``passage_threshold`` that the relevance check keeps,
    plus those of weaker passages from ``floor`` whose quote reaches ``weak_relevance``."""
    kept = delivered_quotes(judged, passage_threshold, judge_threshold, weak_relevance, floor)
    false = sum(not quote.answerable for quote in kept)
    return {
        "answers": len(kept),
        "right": sum(quote.best_passage_answers for quote in kept),
        "unanswerable_answered": false,
        "unanswerable_answered_share": false / unanswerable if unanswerable else None,
    }


def thresholds_outcome(calibration: dict[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    """What ``model``'s thresholds deliver on ``calibration``'s questions."""
    rows = [row for row in calibration["rows"] if row.get("wording", "dataset") == "dataset"]
    answerable = [row for row in rows if row["answerable"]]
    unanswerable = [row for row in rows if not row["answerable"]]
    threshold = float(model["threshold"])
    floor = float(model["recall_threshold"])
    passage = float(model.get("passage_answer_threshold", threshold))
    weak = model.get("weak_passage_relevance_threshold")
    judge_threshold = float(calibration["passage_answers"]["judge_threshold"])
    judged = [JudgedQuote(**quote) for quote in calibration["judged_quotes"]]
    return {
        "thresholds": {
            "answer": threshold,
            "floor": floor,
            "passage_answer": passage,
            "weak_passage_relevance": weak,
        },
        "over_threshold": {
            "answerable": _shares(answerable, lambda row: row["best_score"] >= threshold),
            "unanswerable": _shares(unanswerable, lambda row: row["best_score"] >= threshold),
        },
        "under_floor": {
            "answerable": _shares(answerable, lambda row: row["best_score"] < floor),
            "unanswerable": _shares(unanswerable, lambda row: row["best_score"] < floor),
        },
        "passage_answers": delivered(
            judged,
            passage,
            floor,
            float(weak) if weak is not None else None,
            judge_threshold,
            len(unanswerable),
        ),
        "judged_from": min((quote.best_score for quote in judged), default=None),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("calibration", type=Path, help="a calibrate --out folder")
    parser.add_argument(
        "--model",
        type=Path,
        action="append",
        required=True,
        help="a scorer folder whose model.json holds the thresholds (repeatable)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("bench/results/thresholds_on_calibration.json")
    )
    args = parser.parse_args(argv)
    calibration = json.loads((args.calibration / "calibration.json").read_text())
    report: dict[str, Any] = {
        "calibration": str(args.calibration),
        "calibration_settings": calibration["settings"],
        "models": {},
    }
    for folder in args.model:
        model = json.loads((folder / "model.json").read_text())
        outcome = thresholds_outcome(calibration, model)
        report["models"][str(folder)] = outcome
        answers = outcome["passage_answers"]
        sys.stdout.write(
            f"{folder}: answer {outcome['thresholds']['answer']:.3f}, floor "
            f"{outcome['thresholds']['floor']:.3f}, passage "
            f"{outcome['thresholds']['passage_answer']:.3f}: over the answer threshold "
            f"{outcome['over_threshold']['answerable']:.3f} of answerable, "
            f"{outcome['over_threshold']['unanswerable']:.3f} of unanswerable; under the "
            f"floor {outcome['under_floor']['answerable']:.3f} of answerable; passage "
            f"answers {answers['answers']} ({answers['right']} right, "
            f"{answers['unanswerable_answered']} unanswerable)\n"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

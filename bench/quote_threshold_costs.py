"""What a lower relevance threshold on passage answers would gain and cost, set by set.

    python bench/quote_threshold_costs.py RUN DATASET [RUN DATASET ...] [--out FILE]

Reads the draft trails of runs made by ``citeguard eval`` (``graph/draft_trail.py``); no
model is called. A refused question whose passage answer passed every sentence check and
failed only the relevance check would be answered with that quote at any threshold at or
under its relevance. For each threshold, per set: the answerable questions that would be
answered citing gold (``right``) or citing no gold (``wrong_passage``, still wrong), and the
unanswerable questions that would be answered (``false_answers``), each also as a share of
the set's answerable or unanswerable questions.

The shares are what a threshold decides: the recall gained per answerable question against
the false answers added per unanswerable one. A count of quotes in a band of relevance
mixes those with the set's share of unanswerable questions (cuad-train asks every category
of every contract, so most of its questions have no answer; a set written by hand asks
mostly what the document answers); the shares do not. Writes
bench/results/quote_threshold_costs.json.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bench_questions import failed_only_relevance, quote_label, trail_run, write_runs

from citeguard.evaluation.dataset import Question

OUT = Path("bench/results/quote_threshold_costs.json")
THRESHOLDS = (0.5, 0.45, 0.4, 0.35, 0.3)


def quote_refused_on_relevance(record: dict[str, Any], question: Question) -> dict[str, Any] | None:
    """The refused question's last passage answer when only the relevance check failed it:
    its relevance and what it cites (``right``, ``wrong_passage`` or ``unanswerable``)."""
    if record.get("status") != "refused":
        return None
    quotes = [d for d in record.get("drafts") or [] if d["drafted_by"] == "answer_from_passage"]
    if not quotes or not failed_only_relevance(quotes[-1]):
        return None
    return {
        "question": record["question"],
        "relevance": round(float(quotes[-1]["relevance"]), 3),
        "label": quote_label(record, question, quotes[-1]),
    }


def run_costs(run: Path, dataset: Path) -> dict[str, Any]:
    """The quotes refused on relevance alone in one run, and each threshold's gains and costs."""
    questions, records = trail_run(run, dataset)
    answerable = sum(1 for r in records if questions[str(r["id"])].answerable)
    unanswerable = len(records) - answerable
    quotes = [
        row
        for record in records
        if (row := quote_refused_on_relevance(record, questions[str(record["id"])])) is not None
    ]
    by_threshold = []
    for threshold in THRESHOLDS:
        over = [q for q in quotes if q["relevance"] >= threshold]
        counts = {
            label: sum(1 for q in over if q["label"] == label)
            for label in ("right", "wrong_passage", "unanswerable")
        }
        by_threshold.append(
            {
                "threshold": threshold,
                "right": counts["right"],
                "wrong_passage": counts["wrong_passage"],
                "false_answers": counts["unanswerable"],
                "right_per_answerable": round(counts["right"] / answerable, 3)
                if answerable
                else None,
                "false_answers_per_unanswerable": (
                    round(counts["unanswerable"] / unanswerable, 3) if unanswerable else None
                ),
            }
        )
    return {
        "run": str(run),
        "dataset": str(dataset),
        "answerable": answerable,
        "unanswerable": unanswerable,
        "thresholds": by_threshold,
        "quotes": sorted(quotes, key=lambda q: -q["relevance"]),
    }


def main(argv: list[str]) -> int:
    return write_runs(argv, __doc__.split("\n\n")[0], OUT, "quote_threshold_costs.py", run_costs)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

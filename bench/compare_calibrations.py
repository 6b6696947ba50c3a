"""Compare two calibrations of the same scorer: what a change to the graph's quotes did.

    python bench/compare_calibrations.py BEFORE_CAL AFTER_CAL [--list] [--out FILE]

``citeguard calibrate`` (run once before and once after a change, each on its own copy of
the scorer folder) fits the thresholds and judges the passage answer of every held-out
question over the refusal floor, keeping each quote and its relevance. This prints, side by
side, the fitted thresholds, what the passage answers deliver, the relevance check's AUROC
on the judged quotes (good: an answerable question whose best passage holds gold), and
which quotes changed and how their relevance moved; ``--list`` prints every changed quote.
Both calibrations must have judged the same questions (the same dataset, seed and limit).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from judged_quotes import is_good, load_calibration

from citeguard.evaluation.pair_metrics import auroc

THRESHOLDS = ["threshold", "recall_threshold", "passage_answer_threshold"]
RELEVANCE_MINIMUM = "weak_passage_relevance_threshold"


def _quote_auroc(quotes: list[dict[str, Any]]) -> float | None:
    return auroc([q["relevance"] for q in quotes], [int(is_good(q)) for q in quotes])


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The comparison of two calibrations as a JSON-ready record."""
    old_quotes = before["judged_quotes"]
    new_quotes = after["judged_quotes"]
    if [q["id"] for q in old_quotes] != [q["id"] for q in new_quotes]:
        raise ValueError("the two calibrations judged different questions")
    changed = [
        {
            "id": new["id"],
            "good": is_good(new),
            "before": old["quote"],
            "after": new["quote"],
            "relevance_before": old["relevance"],
            "relevance_after": new["relevance"],
        }
        for old, new in zip(old_quotes, new_quotes, strict=True)
        if old["quote"] != new["quote"]
    ]

    def mean_shift(good: bool) -> float | None:
        shifts = [
            c["relevance_after"] - c["relevance_before"] for c in changed if c["good"] == good
        ]
        return statistics.fmean(shifts) if shifts else None

    return {
        "thresholds": {
            name: [before.get(name), after.get(name)] for name in [*THRESHOLDS, RELEVANCE_MINIMUM]
        },
        "passage_answers": [before["passage_answers"], after["passage_answers"]],
        "judged_quotes": len(new_quotes),
        "relevance_auroc": [_quote_auroc(old_quotes), _quote_auroc(new_quotes)],
        "changed_quotes": len(changed),
        "mean_relevance_shift": {"good": mean_shift(True), "other": mean_shift(False)},
        "changed": changed,
    }


def _markdown(result: dict[str, Any], list_changed: bool) -> str:
    lines = ["| measure | before | after |", "|---|---|---|"]
    for name, (old, new) in result["thresholds"].items():
        lines.append(f"| {name} | {old} | {new} |")
    cells = [
        f"{s['answers']} ({s['right']}), {s['unanswerable_answered']:.1%}"
        for s in (summary["with_weak_passages"] for summary in result["passage_answers"])
    ]
    lines.append(f"| passage answers (right), unanswerable answered | {cells[0]} | {cells[1]} |")
    old_auroc, new_auroc = (
        "n/a" if value is None else f"{value:.3f}" for value in result["relevance_auroc"]
    )
    lines.append(f"| relevance AUROC, judged quotes | {old_auroc} | {new_auroc} |")
    shift = result["mean_relevance_shift"]
    lines.append("")
    lines.append(
        f"{result['changed_quotes']} of {result['judged_quotes']} judged quotes changed; "
        f"mean relevance shift: good quotes {_signed(shift['good'])}, "
        f"the others {_signed(shift['other'])}."
    )
    if list_changed:
        for change in result["changed"]:
            lines += [
                "",
                f"- {change['id']} (good: {change['good']}; relevance "
                f"{change['relevance_before']:.2f} -> {change['relevance_after']:.2f})",
                f"  - before: {change['before']}",
                f"  - after: {change['after']}",
            ]
    return "\n".join(lines)


def _signed(value: float | None) -> str:
    return "none changed" if value is None else f"{value:+.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="a calibrate --out folder, before the change")
    parser.add_argument("after", type=Path, help="a calibrate --out folder, after it")
    parser.add_argument("--list", action="store_true", help="print every changed quote")
    parser.add_argument("--out", type=Path, help="also write the comparison here, as JSON")
    args = parser.parse_args(argv)
    before = load_calibration(parser, args.before)
    after = load_calibration(parser, args.after)
    try:
        result = compare(before, after)
    except ValueError as error:
        parser.error(str(error))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    sys.stdout.write(_markdown(result, args.list) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

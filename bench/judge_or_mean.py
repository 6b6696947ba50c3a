"""Would the relevance check pass more right quotes if a sure judge could pass a quote alone?

    python bench/judge_or_mean.py ../shared/data/cuad-train --calibration CAL \
        --readers READERS.json [READERS.json ...] [--out FILE]

A probe, not a test (docs/results.md, "Tried and rejected"). The passage answer's relevance
check passes a quote when the mean of the 1.5B judge's and the evidence scorer's P reaches
0.5. Where the scorer, trained on contracts, doubts a quote the judge is sure of, the mean
refuses it; this counts what "the mean at 0.5, or the judge alone at T" would pass instead,
for several T:

- on the quotes a ``citeguard calibrate`` run judged with the local model alone (CAL, its
  ``judged_quotes``: cuad-train's held-out contracts, where thresholds are fitted), each
  scored by the shipped scorer as the graph scores it: good quotes (an answerable question,
  its best passage holding gold), other quotes of answerable questions, and quotes of
  questions the contract does not answer;
- on the passage-answer quotes of evaluation sets, as ``bench/quote_readers.py`` wrote them
  (its ``rows``: each quote's judge and scorer readings and whether its source holds gold).

No model call but the scorer's on CAL's quotes. Writes ``--out`` (default
bench/results/judge_or_mean.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import is_good

from citeguard.evaluation.dataset import load_questions
from citeguard.learned.evidence import best_passage_score
from citeguard.learned.shipped import shipped_model

OUT = Path("bench/results/judge_or_mean.json")
JUDGE_ALONE = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
MEAN_THRESHOLD = 0.5

Reading = tuple[str, bool, float, float]
"""(kind of quote, whether its question is answerable, judge's P, scorer's P)."""

Rule = Callable[[float, float], bool]


def passes_mean(judge: float, scorer: float) -> bool:
    return (judge + scorer) / 2 >= MEAN_THRESHOLD


def tally(readings: Sequence[Reading], rule: Rule) -> dict[str, int]:
    """How many quotes of each kind ``rule`` passes."""
    counts: dict[str, int] = {}
    for kind, _, judge, scorer in readings:
        counts[kind] = counts.get(kind, 0) + int(rule(judge, scorer))
    return counts


def mean_or_judge_alone(alone: float) -> Rule:
    """The mean at 0.5, or the judge's P alone at ``alone``."""

    def rule(judge: float, scorer: float) -> bool:
        return passes_mean(judge, scorer) or judge >= alone

    return rule


def rules() -> dict[str, Rule]:
    table: dict[str, Rule] = {"mean": passes_mean}
    for alone in JUDGE_ALONE:
        table[f"mean or judge >= {alone}"] = mean_or_judge_alone(alone)
    return table


def calibration_readings(dataset: Path, calibration: Path) -> list[Reading]:
    cal = json.loads((calibration / "calibration.json").read_text())
    if cal["settings"].get("passage_relevance_with_scorer"):
        raise SystemExit("that calibration judged its quotes with a mean already")
    asked = {q.id: q.question for q in load_questions(dataset, unique_ids=False)}
    scorer = shipped_model("scorer")
    if scorer is None:
        raise SystemExit("the shipped scorer does not load")
    readings: list[Reading] = []
    for quote in cal["judged_quotes"]:
        kind = "good" if is_good(quote) else "other" if quote["answerable"] else "unanswerable"
        score = best_passage_score(scorer, asked[quote["id"]], quote["quote"])
        readings.append((kind, bool(quote["answerable"]), float(quote["relevance"]), score))
    return readings


def reader_readings(path: Path) -> list[Reading]:
    rows: list[dict[str, Any]] = json.loads(path.read_text())["rows"]
    return [
        (
            "right" if row["right"] else "other" if row["answerable"] else "unanswerable",
            bool(row["answerable"]),
            float(row["judge"]),
            float(row["scorer"]),
        )
        for row in rows
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset the calibration ran on")
    parser.add_argument("--calibration", type=Path, required=True, help="a calibrate --out folder")
    parser.add_argument(
        "--readers", type=Path, nargs="*", default=[], help="bench/quote_readers.py outputs"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    sets = {"calibration": calibration_readings(args.dataset, args.calibration)}
    for path in args.readers:
        sets[str(json.loads(path.read_text()).get("dataset", path.stem))] = reader_readings(path)
    result = {
        "command": " ".join(["python bench/judge_or_mean.py", *argv]),
        "sets": {
            name: {label: tally(readings, rule) for label, rule in rules().items()}
            for name, readings in sets.items()
        },
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

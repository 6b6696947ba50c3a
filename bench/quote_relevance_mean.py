"""The passage answer's relevance check: the local model alone, or its mean with a scorer's?

    python bench/quote_relevance_mean.py ../shared/data/cuad-train \
        --calibration evals/calibration --model <a scorer folder> [--model <another> ...]

A probe, not a test (docs/results.md, "The scorer beside the judge on a quote"). It reads the
quotes a ``citeguard calibrate`` run judged with the local model alone (``judged_quotes`` in
its ``calibration.json``: cuad-train's held-out validation contracts, never trained on), scores
each quote with every ``--model`` as the graph's ``passage_relevance_with_scorer`` does (the
quote's best passage), and for the local model's P, each scorer's and each mean:

- AUROC, good quotes (an answerable question whose best passage holds gold) against wrong ones;
- the passage answer thresholds fitted again from those relevance scores by ``citeguard
  calibrate``'s own rules and budget, and the passage answers they deliver (right ones), as
  ``citeguard calibrate --passage-relevance-with-scorer`` would fit them with the same judge.

No model call: the local model's scores are the calibration's. Writes ``--out`` (default
bench/results/quote_relevance_mean.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import refit, stored

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.quote_thresholds import JudgedQuote
from citeguard.learned.evidence import best_passage_score
from citeguard.learned.shipped import load_pair_model

OUT = Path("bench/results/quote_relevance_mean.json")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset the scorer was calibrated on")
    parser.add_argument(
        "--calibration",
        type=Path,
        required=True,
        help="a `citeguard calibrate` --out folder, its quotes judged by the local model alone",
    )
    parser.add_argument(
        "--model", type=Path, action="append", required=True, help="a scorer's folder"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    calibration = json.loads((args.calibration / "calibration.json").read_text())
    if calibration["settings"].get("passage_relevance_with_scorer"):
        parser.error("that calibration judged its quotes with a mean already")
    asked = {q.id: q.question for q in load_questions(args.dataset, unique_ids=False)}
    judged = [stored(JudgedQuote, q) for q in calibration["judged_quotes"]]
    if not judged:
        parser.error("that calibration judged no quotes (--no-judge-quotes)")
    local = [q.relevance for q in judged]
    result: dict[str, Any] = {
        "command": "python bench/quote_relevance_mean.py " + " ".join(argv),
        "quotes": len(judged),
        "good": sum(q.answerable and q.best_passage_answers for q in judged),
        "local model": refit(calibration, local),
    }
    for folder in args.model:
        scorer = load_pair_model(folder)
        scored = [best_passage_score(scorer, asked[q.id], q.quote) for q in judged]
        mean = [(a + b) / 2 for a, b in zip(local, scored, strict=True)]
        result[str(folder)] = refit(calibration, scored)
        result[f"mean with {folder}"] = refit(calibration, mean)
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

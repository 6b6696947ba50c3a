"""Validator discrimination per level, with the real embedding model and local judge.

    python bench/validation_discrimination.py ../shared/data/cuad-dev [--levels paper,strict]

Writes bench/results/validation_discrimination.json: for each level run (paper, strict and
judge by default), the share of correct (answer, own evidence) pairs accepted and of wrong
(answer, other contract's evidence) pairs rejected; levels not run keep their earlier
entries. See citeguard.evaluation.discrimination.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from citeguard.evaluation.discrimination import discrimination_pairs, discrimination_rates
from citeguard.index.embedder import get_embedder
from citeguard.llm.judge import local_judge

LEVELS = ("paper", "strict", "judge")
OUT = Path("bench/results/validation_discrimination.json")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="?", default="../shared/data/cuad-dev", type=Path)
    parser.add_argument(
        "--levels",
        default=",".join(LEVELS),
        help="comma-separated validation levels to measure (default: all; judge is slow)",
    )
    args = parser.parse_args(argv)
    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    unknown = sorted(set(levels) - set(LEVELS))
    if unknown:
        parser.error(f"unknown level(s) {', '.join(unknown)}; choose from {', '.join(LEVELS)}")

    pairs = discrimination_pairs(args.dataset)
    embed = get_embedder().embed_documents
    report: dict[str, object] = json.loads(OUT.read_text()) if OUT.exists() else {}
    report["pairs"] = len(pairs)
    for level in levels:
        started = time.perf_counter()
        judge = local_judge().support_probability if level == "judge" else None
        accepted, rejected = discrimination_rates(pairs, level, embed=embed, judge=judge)
        report[level] = {
            "correct_accepted": accepted,
            "wrong_rejected": rejected,
            "seconds": time.perf_counter() - started,
        }
        print(level, report[level], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Validator discrimination per level, with the real embedding model and local judge.

    python bench/validation_discrimination.py ../shared/data/cuad-dev

Writes bench/results/validation_discrimination.json: for paper, strict and judge, the share
of correct (answer, own evidence) pairs accepted and of wrong (answer, other contract's
evidence) pairs rejected. See citeguard.evaluation.discrimination.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from citeguard.evaluation.discrimination import discrimination_pairs, discrimination_rates
from citeguard.llm import support_probability
from citeguard.models import get_embedder


def main(argv: list[str]) -> int:
    dataset = Path(argv[0]) if argv else Path("../shared/data/cuad-dev")
    pairs = discrimination_pairs(dataset)
    embed = get_embedder().embed_documents
    report: dict[str, object] = {"pairs": len(pairs)}
    for level in ("paper", "strict", "judge"):
        started = time.perf_counter()
        judge = support_probability if level == "judge" else None
        accepted, rejected = discrimination_rates(pairs, level, embed=embed, judge=judge)
        report[level] = {
            "correct_accepted": accepted,
            "wrong_rejected": rejected,
            "seconds": time.perf_counter() - started,
        }
        print(level, report[level], flush=True)
    out = Path("bench/results/validation_discrimination.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Does the validator tell evidence that holds an answer from evidence that does not?

From the CUAD dev questions: for each answerable question, the answer sentence is the
first sentence of the gold span, cited [1]. It is paired with (a) a chunk-sized window of
its own contract around the gold span (correct pair) and (b) a window of the same size
from a different contract (wrong pair). No model is used (lexical checks only), and the
thresholds are the defaults: this measures them, it does not tune them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from citeguard.evaluation.discrimination import discrimination_pairs, discrimination_rates

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cuad-dev"

logger = logging.getLogger(__name__)


@pytest.mark.skipif(
    not (DATA / "questions.jsonl").exists(),
    reason=f"shared CUAD dev data not found at {DATA}",
)
def test_strict_accepts_gold_evidence_and_rejects_other_contracts() -> None:
    pairs = discrimination_pairs(DATA)
    assert len(pairs) >= 50
    report = {level: discrimination_rates(pairs, level) for level in ("paper", "strict")}
    for level, (accepted, rejected) in report.items():
        logger.warning(
            "%s: correct pairs accepted %.1f%%, wrong pairs rejected %.1f%% (n=%d)",
            level, 100 * accepted, 100 * rejected, len(pairs),
        )  # fmt: skip
    strict_accepted, strict_rejected = report["strict"]
    assert strict_accepted > 0.5, report
    assert strict_rejected >= 0.95, report

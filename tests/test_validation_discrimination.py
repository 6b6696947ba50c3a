"""Does the validator tell evidence that holds an answer from evidence that does not?

From the CUAD dev questions: for each answerable question, the answer sentence is the
first sentence of the gold span, cited [1]. It is paired with (a) a chunk-sized window of
its own contract around the gold span (correct pair) and (b) a window of the same size
from a different contract (wrong pair). No model is used (lexical checks only), and the
thresholds are the defaults: this measures them, it does not tune them.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from citeguard.validation import ValidationSettings, split_sentences, validate_answer

DATA = Path("/work/shared/data/cuad-dev")
# ~600 tokens of contract text (the paper's chunk size) at ~4 characters per token.
WINDOW_CHARS = 2400

logger = logging.getLogger(__name__)


def _window(text: str, start: int, size: int) -> str:
    start = max(0, min(start, len(text) - size))
    return text[start : start + size]


def _pairs() -> list[tuple[str, str, str, str]]:
    """(question, answer, correct source, wrong source) per answerable question."""
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").open()]
    docs = sorted({q["doc"] for q in questions})
    texts = {doc: (DATA / "docs" / doc).read_text(encoding="utf-8") for doc in docs}
    pairs = []
    for q in questions:
        if not q["answerable"]:
            continue
        span = q["gold_spans"][0]
        first = split_sentences(span["text"])
        if not first:
            continue
        sentence = first[0].text
        size = max(WINDOW_CHARS, len(sentence) + 200)
        own = texts[q["doc"]]
        # The gold sentence sits in the middle of its window.
        correct = _window(own, span["start"] - (size - len(sentence)) // 2, size)
        other_doc = docs[(docs.index(q["doc"]) + 1) % len(docs)]
        other = texts[other_doc]
        relative = span["start"] / max(1, len(own))
        wrong = _window(other, int(relative * len(other)) - size // 2, size)
        pairs.append((q["question"], f"{sentence} [1]", correct, wrong))
    return pairs


def _rates(level: str, pairs: list[tuple[str, str, str, str]]) -> tuple[float, float]:
    settings = ValidationSettings(level=level)  # type: ignore[arg-type]
    accepted = rejected = 0
    for question, answer, correct, wrong in pairs:
        accepted += validate_answer(answer, [correct], question, settings).passed
        rejected += not validate_answer(answer, [wrong], question, settings).passed
    return accepted / len(pairs), rejected / len(pairs)


@pytest.mark.skipif(
    not (DATA / "questions.jsonl").exists(),
    reason=f"shared CUAD dev data not found at {DATA}",
)
def test_strict_accepts_gold_evidence_and_rejects_other_contracts() -> None:
    pairs = _pairs()
    assert len(pairs) >= 50
    report = {level: _rates(level, pairs) for level in ("paper", "strict")}
    for level, (accepted, rejected) in report.items():
        logger.warning(
            "%s: correct pairs accepted %.1f%%, wrong pairs rejected %.1f%% (n=%d)",
            level, 100 * accepted, 100 * rejected, len(pairs),
        )  # fmt: skip
    strict_accepted, strict_rejected = report["strict"]
    assert strict_accepted > 0.5, report
    assert strict_rejected >= 0.95, report

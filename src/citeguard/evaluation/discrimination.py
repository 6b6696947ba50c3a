"""Does the validator tell evidence that holds an answer from evidence that does not?

From a labelled dataset: for each answerable question, the answer sentence is the first
sentence of the gold span, cited [1]. It is paired with (a) a chunk-sized window of its own
document around the gold span (a correct pair) and (b) a window of the same size from a
different document (a wrong pair). A good validator accepts (a) and rejects (b).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from citeguard.evaluation.dataset import load_questions
from citeguard.graph.context import Context
from citeguard.validate import split_sentences, validate_answer

# ~600 tokens of contract text (the paper's chunk size) at ~4 characters per token.
WINDOW_CHARS = 2400

Pair = tuple[str, str, str, str]
"""(question, answer sentence with [1], correct source, wrong source)"""


def _window(text: str, start: int, size: int) -> str:
    start = max(0, min(start, len(text) - size))
    return text[start : start + size]


def discrimination_pairs(dataset: Path) -> list[Pair]:
    """Correct and wrong evidence for each answerable question with offset gold spans."""
    questions = [q for q in load_questions(dataset) if q.answerable and q.doc and q.gold_spans]
    docs = sorted({q.doc for q in questions if q.doc})
    texts = {doc: (dataset / "docs" / doc).read_text(encoding="utf-8") for doc in docs}
    pairs: list[Pair] = []
    for q in questions:
        assert q.doc is not None
        span = q.gold_spans[0]
        first = split_sentences(span.text)
        if not first or span.start is None:
            continue
        sentence = first[0].text
        size = max(WINDOW_CHARS, len(sentence) + 200)
        own = texts[q.doc]
        # The gold sentence sits in the middle of its window.
        correct = _window(own, span.start - (size - len(sentence)) // 2, size)
        other = texts[docs[(docs.index(q.doc) + 1) % len(docs)]]
        relative = span.start / max(1, len(own))
        wrong = _window(other, int(relative * len(other)) - size // 2, size)
        pairs.append((q.question, f"{sentence} [1]", correct, wrong))
    return pairs


def discrimination_rates(
    pairs: Sequence[Pair],
    level: str,
    embed: Callable[..., object] | None = None,
    judge: Callable[[str, str], float] | None = None,
) -> tuple[float, float]:
    """(share of correct pairs accepted, share of wrong pairs rejected) at ``level``."""
    # Support against the right vs another contract's evidence; the relevance check asks a
    # different question (does the source answer the question?) and is measured elsewhere
    # (bench/answer_relevance_probe.py).
    run = Context(relevance_check=False)
    settings = run.validation_settings(level=level)  # type: ignore[arg-type]
    accepted = rejected = 0
    for question, answer, correct, wrong in pairs:
        accepted += validate_answer(answer, [correct], question, settings, embed, judge).passed  # type: ignore[arg-type]
        rejected += not validate_answer(answer, [wrong], question, settings, embed, judge).passed  # type: ignore[arg-type]
    return accepted / len(pairs), rejected / len(pairs)

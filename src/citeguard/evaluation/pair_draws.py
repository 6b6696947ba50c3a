"""The pairs a cross-encoder trains on, and how a training step draws them.

:class:`TextPair` is what either model reads (the scorer's question and passage, the
verifier's claim and evidence). A step draws a seeded sample of them
(:func:`draw_training_pairs`), or, continuing a trained model, first every pair that model
misjudges (:func:`misjudged`, :func:`draw_around_mistakes`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeguard.learned.evidence import PairScorer


@dataclass(frozen=True)
class TextPair:
    """What a cross-encoder reads, whichever model: two texts, a label and a group (the
    scorer's question wording, the verifier's kind of edit)."""

    first: str
    second: str
    label: int
    group: str
    doc: str


def draw_training_pairs(
    pairs: list[TextPair], limit: int, rng: random.Random, skip: int = 0
) -> list[TextPair]:
    """``limit`` pairs of a seeded draw, after its first ``skip``: drawing more with the
    same seed extends the same draw, so ``skip`` leaves out exactly the pairs an earlier
    run with ``max_train_pairs == skip`` used."""
    if len(pairs) <= skip + limit:
        drawn = rng.sample(pairs, len(pairs)) if skip else pairs
    else:
        drawn = rng.sample(pairs, skip + limit)
    return drawn[skip : skip + limit]


def misjudged(
    pairs: Sequence[TextPair],
    judge: PairScorer,
    batch_size: int = 256,
    on_batch: Callable[[int, int], None] | None = None,
) -> list[bool]:
    """Whether ``judge`` gets each pair wrong at its threshold: a positive scored under
    it, a negative at or over it (for the verifier: a supported claim it would reject, an
    edited one it would pass)."""
    out: list[bool] = []
    for start in range(0, len(pairs), batch_size):
        batch = pairs[start : start + batch_size]
        scores = judge.scores([(p.first, p.second) for p in batch])
        out += [
            bool((score >= judge.threshold) != (p.label == 1))
            for score, p in zip(scores.tolist(), batch, strict=True)
        ]
        if on_batch is not None:
            on_batch(len(out), len(pairs))
    return out


def draw_around_mistakes(
    pairs: list[TextPair], mistakes: Sequence[bool], limit: int, rng: random.Random
) -> list[TextPair]:
    """Every pair a trained model misjudged (at most ``limit``), then a seeded draw of the
    others up to ``limit`` pairs in all: a continued step that dwells on its own errors
    while still seeing the easy pairs it must not forget."""
    wrong = [p for p, bad in zip(pairs, mistakes, strict=True) if bad]
    right = [p for p, bad in zip(pairs, mistakes, strict=True) if not bad]
    wrong = wrong[:limit]
    return wrong + draw_training_pairs(right, limit - len(wrong), rng)

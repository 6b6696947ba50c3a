"""Metrics of scored pairs: how well scores separate the labels, and the thresholds fitted
on them (the trained models' pairs, the calibration's questions, the benches' pairs).

Plain numpy, so measuring needs none of training's libraries.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """Area under the ROC curve (the Mann-Whitney statistic, ties counted half)."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    positives, negatives = s[y == 1], s[y == 0]
    if not len(positives) or not len(negatives):
        return None
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positives) * len(negatives)))


def calibration(scores: Sequence[float], labels: Sequence[int], bins: int = 10) -> list[dict]:
    """Per score bin: how many pairs, mean score, share that truly answer."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    out = []
    for low in np.linspace(0, 1, bins, endpoint=False):
        high = low + 1 / bins
        inside = (s >= low) & ((s < high) if high < 1 else (s <= 1))
        if inside.any():
            out.append(
                {
                    "bin": f"{low:.1f}-{high:.1f}",
                    "pairs": int(inside.sum()),
                    "mean_score": float(s[inside].mean()),
                    "share_answering": float(y[inside].mean()),
                }
            )
    return out


def fit_threshold(scores: Sequence[float], labels: Sequence[int], precision: float) -> float:
    """The lowest score threshold whose pairs above it are answering ``precision`` of the
    time (1.0 when no threshold reaches it)."""
    order = np.argsort(-np.asarray(scores, dtype=float))
    s = np.asarray(scores, dtype=float)[order]
    y = np.asarray(labels, dtype=int)[order]
    hits = np.cumsum(y)
    best = 1.0
    for i in range(len(s)):
        if hits[i] / (i + 1) >= precision:
            best = float(s[i])
    return best


def keep_threshold(scores: Sequence[float], labels: Sequence[int], keep: float) -> float:
    """The highest threshold that keeps at least ``keep`` of the positive pairs."""
    positives = np.sort(np.asarray(scores, dtype=float)[np.asarray(labels) == 1])
    if not len(positives):
        return 0.5
    # Rounded first: (1 - 0.9) * 20 is 1.9999999999999996 in floating point, not 2.
    return float(positives[int(np.floor(round((1 - keep) * len(positives), 9)))])

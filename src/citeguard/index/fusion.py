"""Combining dense and lexical scores of one candidate set.

Two methods:

* ``"minmax"`` (default): each score list is min-max normalized over the candidate set,
  then ``fused = alpha * dense + (1 - alpha) * lexical``. When every candidate has the same
  score in a list (including a single candidate, or a query whose words occur nowhere) that
  list carries no ranking information, so all its normalized values are 0 and the other
  list alone decides.
* ``"rrf"``: reciprocal rank fusion, ``sum over lists of 1 / (k + rank)`` with 1-based ranks
  within the candidate set and ``k = 60`` (Cormack et al., 2009). It ignores score scales
  and ``alpha``. Ties share no rank: they are broken by candidate order (stable sort).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

DEFAULT_ALPHA = 0.65
RRF_K = 60
FusionMethod = Literal["minmax", "rrf"]
FUSION_METHODS: tuple[str, ...] = ("minmax", "rrf")


def minmax_normalize(scores: np.ndarray) -> np.ndarray:
    """Map scores linearly onto [0, 1]; all-equal (or empty) input gives all zeros."""
    arr = np.asarray(scores, dtype=np.float64)
    if arr.size == 0:
        return arr.copy()
    low, high = float(arr.min()), float(arr.max())
    if high - low <= 0.0:
        return np.zeros_like(arr)
    return (arr - low) / (high - low)


def fuse_minmax(dense: np.ndarray, lexical: np.ndarray, alpha: float = DEFAULT_ALPHA) -> np.ndarray:
    """``alpha * minmax(dense) + (1 - alpha) * minmax(lexical)`` over the candidates."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    return alpha * minmax_normalize(dense) + (1.0 - alpha) * minmax_normalize(lexical)


def ranks_descending(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each score, highest first; ties broken by position (stable)."""
    arr = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-arr, kind="stable")
    ranks = np.empty(arr.size, dtype=np.int64)
    ranks[order] = np.arange(1, arr.size + 1)
    return ranks


def reciprocal_rank_fusion(*score_lists: np.ndarray, k: int = RRF_K) -> np.ndarray:
    """``sum_i 1 / (k + rank_i)`` for each candidate, ranks from each score list."""
    if not score_lists:
        raise ValueError("reciprocal_rank_fusion needs at least one score list")
    fused = np.zeros(np.asarray(score_lists[0]).size, dtype=np.float64)
    for scores in score_lists:
        fused += 1.0 / (k + ranks_descending(scores))
    return fused


def fuse(
    dense: np.ndarray,
    lexical: np.ndarray,
    alpha: float = DEFAULT_ALPHA,
    method: str = "minmax",
) -> np.ndarray:
    """Fused scores for candidates by ``method`` ("minmax" or "rrf")."""
    if method == "minmax":
        return fuse_minmax(dense, lexical, alpha)
    if method == "rrf":
        return reciprocal_rank_fusion(dense, lexical)
    raise ValueError(f"unknown fusion {method!r}; use one of {', '.join(FUSION_METHODS)}")

"""Score fusion against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from citeguard.index.fusion import (
    fuse,
    fuse_minmax,
    minmax_normalize,
    ranks_descending,
    reciprocal_rank_fusion,
)


def test_minmax_maps_to_unit_interval() -> None:
    assert np.allclose(minmax_normalize(np.array([2.0, 4.0, 3.0])), [0.0, 1.0, 0.5])


def test_minmax_of_equal_scores_is_all_zero() -> None:
    assert np.array_equal(minmax_normalize(np.array([0.7, 0.7, 0.7])), [0.0, 0.0, 0.0])
    assert np.array_equal(minmax_normalize(np.array([5.0])), [0.0])
    assert minmax_normalize(np.array([])).size == 0


def test_fused_score_by_hand() -> None:
    dense = np.array([0.9, 0.5, 0.7])  # normalized: 1.0, 0.0, 0.5
    lexical = np.array([0.0, 10.0, 2.0])  # normalized: 0.0, 1.0, 0.2
    # 0.65 * [1, 0, .5] + 0.35 * [0, 1, .2] = [0.65, 0.35, 0.395]
    assert np.allclose(fuse_minmax(dense, lexical), [0.65, 0.35, 0.395])
    # alpha = 0.2: [0.2, 0.8, 0.1 + 0.16]
    assert np.allclose(fuse_minmax(dense, lexical, alpha=0.2), [0.2, 0.8, 0.26])


def test_constant_lexical_scores_leave_dense_alone_to_decide() -> None:
    fused = fuse_minmax(np.array([0.2, 0.6]), np.array([0.0, 0.0]), alpha=0.65)
    assert np.allclose(fused, [0.0, 0.65])


def test_alpha_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(ValueError):
        fuse_minmax(np.array([1.0]), np.array([1.0]), alpha=1.5)


def test_ranks_break_ties_by_position() -> None:
    assert ranks_descending(np.array([0.3, 0.9, 0.3, 0.1])).tolist() == [2, 1, 3, 4]


def test_rrf_by_hand() -> None:
    dense = np.array([0.9, 0.5, 0.7])  # ranks 1, 3, 2
    lexical = np.array([0.0, 10.0, 2.0])  # ranks 3, 1, 2
    expected = [1 / 61 + 1 / 63, 1 / 63 + 1 / 61, 1 / 62 + 1 / 62]
    assert np.allclose(reciprocal_rank_fusion(dense, lexical), expected)
    assert np.allclose(fuse(dense, lexical, method="rrf"), expected)
    assert np.allclose(reciprocal_rank_fusion(dense, k=1), [1 / 2, 1 / 4, 1 / 3])


def test_unknown_fusion_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown fusion"):
        fuse(np.array([1.0]), np.array([1.0]), method="max")

"""The validation embedder's memory: same vectors, fewer model calls, bounded size."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from citeguard.index.dense import HashingEmbedder
from citeguard.index.embedding_cache import CachedEmbed


class CountingEmbed:
    def __init__(self) -> None:
        self.model = HashingEmbedder()
        self.batches: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return self.model.embed_documents(texts)


def test_vectors_equal_the_wrapped_function_in_the_order_asked() -> None:
    inner = CountingEmbed()
    cached = CachedEmbed(inner)
    texts = ["rent is due on the first", "a late fee of $75", "rent is due on the first"]
    expected = HashingEmbedder().embed_documents(texts)
    np.testing.assert_allclose(cached(texts), expected)
    np.testing.assert_allclose(cached(list(reversed(texts))), expected[::-1])


def test_only_unseen_texts_reach_the_model_in_one_batch() -> None:
    inner = CountingEmbed()
    cached = CachedEmbed(inner)
    cached(["source one", "source two"])
    cached(["the answer sentence", "source one", "source two", "the answer sentence"])
    assert inner.batches == [["source one", "source two"], ["the answer sentence"]]
    cached(["source two", "source one"])
    assert len(inner.batches) == 2


def test_the_least_recently_used_text_is_forgotten_first() -> None:
    inner = CountingEmbed()
    cached = CachedEmbed(inner, max_texts=2)
    cached(["a"])
    cached(["b"])
    cached(["a"])  # a is now more recent than b
    cached(["c"])  # evicts b
    assert len(cached) == 2
    cached(["a", "c"])
    assert inner.batches == [["a"], ["b"], ["c"]]
    cached(["b"])
    assert inner.batches[-1] == ["b"]


def test_empty_input_and_bad_shapes() -> None:
    cached = CachedEmbed(CountingEmbed())
    assert cached([]).shape == (0, HashingEmbedder().dimension)
    broken = CachedEmbed(lambda texts: np.zeros((1, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="one row per text"):
        broken(["x", "y"])
    with pytest.raises(ValueError, match="at least 1"):
        CachedEmbed(CountingEmbed(), max_texts=0)


def test_a_remembered_vector_is_used_without_calling_the_model() -> None:
    inner = CountingEmbed()
    cached = CachedEmbed(inner, max_texts=2)
    stored = HashingEmbedder().embed_documents(["the whole source"])[0]
    cached.remember("the whole source", stored)
    vectors = cached(["an answer sentence", "the whole source"])
    assert inner.batches == [["an answer sentence"]]
    np.testing.assert_allclose(vectors[1], stored)
    # A text already remembered keeps its vector; the memory stays within max_texts.
    cached.remember("the whole source", np.zeros_like(stored))
    np.testing.assert_allclose(cached(["the whole source"])[0], stored)
    cached.remember("another source", stored)
    assert len(cached) == 2

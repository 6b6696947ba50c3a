"""Sentence vectors stored with the index: row bookkeeping and the file format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citeguard.index.dense import HashingEmbedder
from citeguard.index.sentence_vectors import SentenceVectors
from citeguard.text.sentences import sentence_texts

EMBEDDER = HashingEmbedder(dimension=16)
TEXTS = [
    "Rent is due on the first day. A late fee of $50 applies.",
    "Either party may terminate with sixty days notice.",
    "",
    "Notices go to the addresses above. They are sent by mail. Copies go to counsel.",
]


def build(texts: list[str]) -> SentenceVectors:
    return SentenceVectors.build(texts, EMBEDDER.embed_documents, EMBEDDER.dimension)


def test_each_row_holds_its_own_sentences_in_order() -> None:
    vectors = build(TEXTS)
    assert vectors.rows == 4
    assert [len(vectors.for_row(i)) for i in range(4)] == [2, 1, 0, 3]
    for row, text in enumerate(TEXTS):
        expected = EMBEDDER.embed_documents(sentence_texts(text)).reshape(-1, 16)
        np.testing.assert_allclose(vectors.for_row(row), expected, atol=1e-6)


def test_selecting_and_concatenating_rows_keeps_them_aligned() -> None:
    whole = build(TEXTS)
    picked = whole.select_rows(np.array([3, 0], dtype=np.int64))
    np.testing.assert_array_equal(picked.for_row(0), whole.for_row(3))
    np.testing.assert_array_equal(picked.for_row(1), whole.for_row(0))
    joined = SentenceVectors.concatenate([build(TEXTS[:2]), build(TEXTS[2:])])
    np.testing.assert_array_equal(joined.offsets, whole.offsets)
    np.testing.assert_allclose(joined.vectors, whole.vectors, atol=1e-6)
    empty = whole.select_rows(np.zeros(0, dtype=np.int64))
    assert empty.rows == 0 and empty.vectors.shape == (0, 16)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    vectors = build(TEXTS)
    vectors.save(tmp_path / "v.npy", tmp_path / "rows.npz")
    loaded = SentenceVectors.load(tmp_path / "v.npy", tmp_path / "rows.npz")
    assert isinstance(loaded.vectors, np.memmap)  # rows are read when a question needs them
    np.testing.assert_array_equal(loaded.vectors, vectors.vectors)
    np.testing.assert_array_equal(loaded.offsets, vectors.offsets)
    np.testing.assert_array_equal(loaded.lengths, vectors.lengths)


def test_offsets_or_lengths_that_do_not_cover_the_vectors_are_refused() -> None:
    vectors = np.zeros((3, 16), dtype=np.float32)
    lengths = np.array([5, 6, 7])
    with pytest.raises(ValueError, match="offsets"):
        SentenceVectors(vectors, np.array([0, 2]), lengths)
    with pytest.raises(ValueError, match="offsets"):
        SentenceVectors(vectors, np.array([0, 2, 1, 3]), lengths)
    with pytest.raises(ValueError, match="lengths"):
        SentenceVectors(vectors, np.array([0, 3]), lengths[:2])


def test_a_chunk_split_differently_from_ingest_gets_no_stored_vectors() -> None:
    vectors = build(TEXTS)
    assert vectors.matching(0, sentence_texts(TEXTS[0])) is not None
    # A later splitter that keeps the first chunk in one piece, or cuts it elsewhere.
    assert vectors.matching(0, [TEXTS[0]]) is None
    assert (
        vectors.matching(0, ["Rent is due on the first day. A", "late fee of $50 applies."]) is None
    )


def test_a_sentence_shared_by_overlapping_chunks_is_embedded_once() -> None:
    embedded: list[str] = []

    def counting_embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return EMBEDDER.embed_documents(texts)

    overlapping = ["Rent is due on the first. A fee applies.", "A fee applies. Notice is due."]
    vectors = SentenceVectors.build(overlapping, counting_embed, EMBEDDER.dimension)
    assert sorted(embedded) == ["A fee applies.", "Notice is due.", "Rent is due on the first."]
    np.testing.assert_array_equal(vectors.for_row(0)[1], vectors.for_row(1)[0])

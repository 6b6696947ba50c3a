"""Sentence vectors stored with the index: row bookkeeping and the file format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citeguard.index.dense import HashingEmbedder
from citeguard.index.embedder import Span, SpanEmbedder
from citeguard.index.sentence_vectors import SentenceVectors, embed_chunks
from citeguard.text.sentences import sentence_texts, split_sentences

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
    assert loaded.vectors.dtype == np.float16  # half the bytes of float32 on disk
    rows = len(vectors.vectors)
    assert (tmp_path / "v.npy").stat().st_size < rows * 16 * 2 + 200
    for row in range(vectors.rows):
        assert loaded.for_row(row).dtype == np.float32
        np.testing.assert_allclose(loaded.for_row(row), vectors.for_row(row), atol=1e-3)
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


def test_an_index_that_stored_float32_vectors_still_loads(tmp_path: Path) -> None:
    vectors = build(TEXTS)
    np.save(tmp_path / "v.npy", vectors.vectors.astype(np.float32), allow_pickle=False)
    np.savez(tmp_path / "rows.npz", offsets=vectors.offsets, lengths=vectors.lengths)
    loaded = SentenceVectors.load(tmp_path / "v.npy", tmp_path / "rows.npz")
    np.testing.assert_array_equal(loaded.for_row(3), vectors.for_row(3))


class PoolingEmbedder(HashingEmbedder):
    """A span embedder for tests: a span's vector is the hashing vector of its text."""

    def __init__(self) -> None:
        super().__init__(dimension=16)
        self.documents_calls: list[list[str]] = []
        self.span_calls = 0

    def embed_documents(self, texts, show_progress: bool = False):  # type: ignore[no-untyped-def]
        self.documents_calls.append(list(texts))
        return super().embed_documents(texts, show_progress)

    def embed_with_spans(self, texts, spans):  # type: ignore[no-untyped-def]
        self.span_calls += 1
        whole = HashingEmbedder.embed_documents(self, texts)
        parts = [
            HashingEmbedder.embed_documents(self, [text[a:b] for a, b in text_spans])
            for text, text_spans in zip(texts, spans, strict=True)
        ]
        return whole, parts


def test_a_span_embedder_gives_chunks_and_sentences_in_one_pass() -> None:
    embedder = PoolingEmbedder()
    assert isinstance(embedder, SpanEmbedder)
    chunk_vectors, sentences = embed_chunks(embedder, TEXTS)
    assert embedder.span_calls == 1 and embedder.documents_calls == []
    np.testing.assert_allclose(chunk_vectors, EMBEDDER.embed_documents(TEXTS), atol=1e-6)
    # Rows line up with the sentences trimming splits, so the stored vectors are used.
    for row, text in enumerate(TEXTS):
        split = sentence_texts(text)
        stored = sentences.matching(row, split)
        assert stored is not None and len(stored) == len(split)
        np.testing.assert_allclose(stored, EMBEDDER.embed_documents(split).reshape(-1, 16))


def test_an_embedder_without_spans_embeds_the_sentences_on_their_own() -> None:
    chunk_vectors, sentences = embed_chunks(EMBEDDER, TEXTS)
    np.testing.assert_allclose(chunk_vectors, EMBEDDER.embed_documents(TEXTS), atol=1e-6)
    np.testing.assert_allclose(sentences.vectors, build(TEXTS).vectors)


@pytest.fixture(scope="module")
def minilm():  # type: ignore[no-untyped-def]
    from citeguard.index.embedder import get_embedder

    return get_embedder()


LEASE = (
    "The tenant shall pay rent of $1,250 on the first day of each month. "
    "A late fee of $75 is charged when rent is more than five days late. "
    "The landlord keeps the security deposit of $2,500 until the lease ends. "
    "Pets are not allowed in the premises without written consent. "
)


@pytest.mark.integration
def test_minilm_chunk_vectors_are_its_document_vectors_and_sentences_point_to_their_topic(
    minilm,  # type: ignore[no-untyped-def]
) -> None:
    long_text = LEASE * 12  # over the model's 256-word-piece window: several windows
    texts = [LEASE, long_text]
    spans: list[list[Span]] = [
        [(s.start, s.end) for s in split_sentences(t) if s.text.strip()] for t in texts
    ]
    assert minilm.count_tokens([long_text])[0] > minilm.max_tokens
    chunk_vectors, per_text = minilm.embed_with_spans(texts, spans)
    expected = minilm.embed_documents(texts)
    assert np.all(np.sum(chunk_vectors * expected, axis=1) > 0.99)
    assert [len(v) for v in per_text] == [4, 48]
    np.testing.assert_allclose(np.linalg.norm(per_text[1], axis=1), 1.0, atol=1e-5)
    question = minilm.embed_query("How much is the late fee?")
    for vectors in per_text:
        best = int(np.argmax(vectors @ question))
        assert best % 4 == 1  # the late-fee sentence, in every repetition's place


def test_many_chunks_are_embedded_in_bounded_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    import citeguard.index.sentence_vectors as module

    whole_vectors, whole = embed_chunks(PoolingEmbedder(), TEXTS)
    monkeypatch.setattr(module, "CHUNKS_PER_PASS", 3)
    embedder = PoolingEmbedder()
    vectors, grouped = embed_chunks(embedder, TEXTS)
    assert embedder.span_calls == 2  # 4 chunks, 3 a pass
    np.testing.assert_array_equal(vectors, whole_vectors)
    np.testing.assert_array_equal(grouped.offsets, whole.offsets)
    np.testing.assert_array_equal(grouped.vectors, whole.vectors)

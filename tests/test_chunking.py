"""Chunking: contiguous slices, token budget, overlap, page span, noise removal, ids."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeguard.documents import Chunk, ParsedDocument
from citeguard.ingest import (
    ChunkSettings,
    chunk_document,
    count_words,
    document_from_pages,
    parse_document,
)
from pdf_factory import (
    SAMPLE_BREAK_AFTER,
    SAMPLE_BREAK_BEFORE,
    SAMPLE_TERM_HEADING,
    SAMPLE_TERM_TEXT,
    SAMPLE_TOC_LINES,
    make_sample_contract_pdf,
)


@pytest.fixture(scope="module")
def sample_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_sample_contract_pdf(tmp_path_factory.mktemp("chunks") / "lease.pdf")


@pytest.fixture(scope="module")
def sample(sample_path: Path) -> ParsedDocument:
    return parse_document(sample_path)


def sentence(n: int, words: int = 10) -> str:
    body = " ".join(f"w{n}x{i}" for i in range(words - 1))
    return f"Clause{n} {body}."


def check_invariants(doc: ParsedDocument, chunks: Sequence[Chunk], cfg: ChunkSettings) -> None:
    for chunk in chunks:
        assert doc.text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.text == chunk.text.strip() and chunk.text
        assert count_words([chunk.text])[0] <= cfg.max_tokens
        first, last = chunk.pdf_pages
        assert 0 <= last - first <= 1
        assert first == doc.page_at(chunk.char_start).pdf_page
        assert last == doc.page_at(chunk.char_end - 1).pdf_page
        assert chunk.printed_pages == (
            doc.page_at(chunk.char_start).printed_page,
            doc.page_at(chunk.char_end - 1).printed_page,
        )
        assert chunk.doc == doc.name
    starts = [c.char_start for c in chunks]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert len({c.chunk_id for c in chunks}) == len(chunks)


@pytest.mark.parametrize("max_tokens", [20, 35, 60, 600])
def test_sample_chunks_keep_invariants(sample: ParsedDocument, max_tokens: int) -> None:
    cfg = ChunkSettings(max_tokens=max_tokens, overlap_tokens=max_tokens // 5)
    chunks = chunk_document(sample, cfg, count_words)
    assert chunks
    check_invariants(sample, chunks, cfg)


@pytest.mark.parametrize("max_tokens", [20, 35, 60, 600])
def test_table_of_contents_and_navigation_dropped(sample: ParsedDocument, max_tokens: int) -> None:
    chunks = chunk_document(
        sample, ChunkSettings(max_tokens=max_tokens, overlap_tokens=0), count_words
    )
    joined = "\n".join(c.text for c in chunks)
    for line in SAMPLE_TOC_LINES:
        assert line not in joined
    assert "Contents" not in joined
    assert "...." not in joined
    assert "Back to top" not in joined
    # The contents page (PDF page 2) contributes nothing.
    assert all(2 not in c.pdf_pages for c in chunks)


@pytest.mark.parametrize(("max_tokens", "min_tokens"), [(20, 4), (30, 12), (45, 12), (600, 12)])
def test_heading_attaches_to_following_paragraph(
    sample: ParsedDocument, max_tokens: int, min_tokens: int
) -> None:
    # The body after the heading is longer than 20 tokens, so with max_tokens=20 it is
    # split into pieces that leave room for the heading (max_tokens - min_chunk_tokens).
    cfg = ChunkSettings(max_tokens=max_tokens, overlap_tokens=5, min_chunk_tokens=min_tokens)
    chunks = chunk_document(sample, cfg, count_words)
    with_heading = [c for c in chunks if SAMPLE_TERM_HEADING in c.text]
    assert with_heading
    for chunk in with_heading:
        assert f"{SAMPLE_TERM_HEADING}\n\n{SAMPLE_TERM_TEXT.split()[0]}" in chunk.text
    if max_tokens >= 45:
        assert any(f"{SAMPLE_TERM_HEADING}\n\n{SAMPLE_TERM_TEXT}" in c.text for c in chunks)


def test_paragraph_crossing_page_break_is_one_chunk(sample: ParsedDocument) -> None:
    chunks = chunk_document(sample, ChunkSettings(), count_words)
    crossing = [c for c in chunks if SAMPLE_BREAK_BEFORE in c.text and SAMPLE_BREAK_AFTER in c.text]
    assert len(crossing) == 1
    assert crossing[0].pdf_pages == (3, 4)
    assert crossing[0].printed_pages == ("1", "2")


def test_chunk_never_spans_three_pages() -> None:
    pages = [f"{sentence(i)} {sentence(i + 100)}" for i in range(6)]
    doc = document_from_pages("pages.txt", pages)
    cfg = ChunkSettings(max_tokens=600, overlap_tokens=10)
    chunks = chunk_document(doc, cfg, count_words)
    check_invariants(doc, chunks, cfg)
    assert [c.pdf_pages for c in chunks] == [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    # All text is covered.
    assert chunks[0].char_start == 0 and chunks[-1].char_end == len(doc.text)


def test_long_paragraph_falls_back_to_sentences() -> None:
    paragraph = " ".join(sentence(i) for i in range(12))  # 120 words, one paragraph
    doc = document_from_pages("long.txt", [paragraph])
    cfg = ChunkSettings(max_tokens=35, overlap_tokens=10)
    chunks = chunk_document(doc, cfg, count_words)
    check_invariants(doc, chunks, cfg)
    assert len(chunks) >= 4
    assert all(c.text.startswith("Clause") and c.text.endswith(".") for c in chunks)
    # Consecutive chunks overlap by whole sentences within the overlap budget.
    for previous, current in zip(chunks, chunks[1:], strict=False):
        assert current.char_start < previous.char_end
        overlap = doc.text[current.char_start : previous.char_end]
        assert 0 < count_words([overlap])[0] <= cfg.overlap_tokens


def test_overlong_sentence_split_by_words() -> None:
    words = [f"word{i}" for i in range(100)]
    doc = document_from_pages("run-on.txt", [" ".join(words)])
    cfg = ChunkSettings(max_tokens=30, overlap_tokens=0)
    chunks = chunk_document(doc, cfg, count_words)
    check_invariants(doc, chunks, cfg)
    assert " ".join(c.text for c in chunks).split() == words


def test_zero_overlap_gives_disjoint_chunks() -> None:
    doc = document_from_pages("d.txt", ["\n\n".join(sentence(i) for i in range(20))])
    cfg = ChunkSettings(max_tokens=40, overlap_tokens=0)
    chunks = chunk_document(doc, cfg, count_words)
    check_invariants(doc, chunks, cfg)
    for previous, current in zip(chunks, chunks[1:], strict=False):
        assert current.char_start > previous.char_end
    # Paragraph-aligned: every chunk holds whole paragraphs.
    assert all(c.text.count("Clause") * 10 == count_words([c.text])[0] for c in chunks)


def test_chunk_does_not_straddle_dropped_unit() -> None:
    doc = document_from_pages(
        "nav.txt", [f"{sentence(1)}\n\nPage 3 of 12\n\n{sentence(2)}\n\nBack to top\n\n7"]
    )
    chunks = chunk_document(doc, ChunkSettings(), count_words)
    assert [c.text for c in chunks] == [sentence(1), sentence(2)]


def test_short_fragments_glued_or_dropped() -> None:
    doc = document_from_pages(
        "short.txt", [f"By:\n\n12\n\nName:\n\n13\n\nARTICLE 5 TERM\n\n{sentence(5)}\n\nEnd"]
    )
    chunks = chunk_document(doc, ChunkSettings(), count_words)
    # "By:" and "Name:" sit alone between page numbers and are dropped; the heading
    # joins the paragraph after it, and the trailing "End" joins the one before.
    assert [c.text for c in chunks] == [f"ARTICLE 5 TERM\n\n{sentence(5)}\n\nEnd"]


def test_short_document_sentence_is_kept() -> None:
    doc = document_from_pages("tiny.txt", ["The rent is 500 dollars."])
    chunks = chunk_document(doc, ChunkSettings(), count_words)
    assert [c.text for c in chunks] == ["The rent is 500 dollars."]


def test_dotted_leader_lines_dropped_anywhere() -> None:
    doc = document_from_pages(
        "toc.txt", [f"1. Definitions ........ 3\n\n2. Rent . . . . . . 4\n\n{sentence(1)}"]
    )
    assert [c.text for c in chunk_document(doc, ChunkSettings(), count_words)] == [sentence(1)]


def test_ids_stable_and_settings_sensitive(sample_path: Path) -> None:
    cfg = ChunkSettings(max_tokens=40, overlap_tokens=8)
    first = chunk_document(parse_document(sample_path), cfg, count_words)
    second = chunk_document(parse_document(sample_path), cfg, count_words)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert first[0].chunk_id.startswith("lease-pdf:0000:")

    changed = chunk_document(
        parse_document(sample_path), ChunkSettings(max_tokens=40, overlap_tokens=9), count_words
    )
    assert not {c.chunk_id for c in first} & {c.chunk_id for c in changed}


def test_chunk_round_trips_through_json(sample: ParsedDocument) -> None:
    for chunk in chunk_document(
        sample, ChunkSettings(max_tokens=40, overlap_tokens=8), count_words
    ):
        assert Chunk.from_json(chunk.to_json()) == chunk
        assert chunk.metadata["token_count"] == count_words([chunk.text])[0]


def test_token_counter_called_in_batches() -> None:
    calls: list[int] = []

    def counter(texts: Sequence[str]) -> list[int]:
        assert isinstance(texts, list)
        calls.append(len(texts))
        return count_words(texts)

    paragraphs = [" ".join(sentence(i) for i in range(k, k + 5)) for k in range(0, 200, 5)]
    paragraphs.append(" ".join(f"run{i}" for i in range(200)))  # needs the word fallback
    doc = document_from_pages("batch.txt", ["\n\n".join(paragraphs)])
    chunks = chunk_document(doc, ChunkSettings(max_tokens=30, overlap_tokens=5), counter)
    assert len(chunks) > 20
    assert len(calls) <= 3


def test_settings_validation() -> None:
    with pytest.raises(ValueError):
        ChunkSettings(max_tokens=100, overlap_tokens=100)
    with pytest.raises(ValueError):
        ChunkSettings(max_tokens=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ChunkSettings().max_tokens = 5  # type: ignore[misc]
    assert ChunkSettings() == ChunkSettings(max_tokens=600, overlap_tokens=120, min_chunk_tokens=12)


def test_a_large_document_keeps_the_chunk_invariants() -> None:
    # Speed is measured by bench/bench_index.py, not here.
    paragraphs = ["\n\n".join(sentence(p * 10 + s, 12) for s in range(3)) for p in range(3000)]
    pages = ["\n\n".join(paragraphs[i : i + 30]) for i in range(0, len(paragraphs), 30)]
    doc = document_from_pages("big.txt", pages)
    chunks = chunk_document(doc, ChunkSettings(max_tokens=120, overlap_tokens=24), count_words)
    assert len(chunks) > 1000
    assert all(c.text == doc.text[c.char_start : c.char_end] for c in chunks)
    assert max(count_words([c.text for c in chunks])) <= 120
    assert len({c.chunk_id for c in chunks}) == len(chunks)


@settings(max_examples=60, deadline=None)
@given(
    pages=st.lists(
        st.lists(
            st.lists(
                st.sampled_from(["alpha", "Beta", "gamma.", "Delta;", "7", "...", "Page", "x"]),
                min_size=1,
                max_size=40,
            ),
            min_size=1,
            max_size=5,
        ),
        min_size=1,
        max_size=4,
    ),
    max_tokens=st.integers(min_value=3, max_value=50),
    overlap_share=st.floats(min_value=0, max_value=0.9),
)
def test_invariants_hold_on_random_text(
    pages: list[list[list[str]]], max_tokens: int, overlap_share: float
) -> None:
    texts = ["\n\n".join(" ".join(words) for words in page) for page in pages]
    doc = document_from_pages("random.txt", texts)
    cfg = ChunkSettings(
        max_tokens=max_tokens, overlap_tokens=int(max_tokens * overlap_share), min_chunk_tokens=2
    )
    check_invariants(doc, chunk_document(doc, cfg, count_words), cfg)


def test_document_with_only_noise_gives_no_chunks() -> None:
    doc = document_from_pages("noise.txt", ["Page 3 of 12\n\nBack to top", "Contents"])
    assert chunk_document(doc, ChunkSettings(), count_words) == []

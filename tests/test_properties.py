"""Property-based robustness: 10,000 generated inputs each to the citation parser, the
sentence splitter, the chunker and the validator raise no exception, and keep their
invariants (offsets point into the text, chunks are exact spans of the document).

Inputs mix document-like text (words, numbers, brackets, markers, quotes, newlines) with
arbitrary Unicode, since model output and user files are both untrusted.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeguard.graph.context import Context
from citeguard.index.dense import HashingEmbedder
from citeguard.ingest.chunking import ChunkSettings, chunk_document
from citeguard.ingest.parsing import document_from_pages
from citeguard.text.citations import parse_citations, strip_citations
from citeguard.text.sentences import split_sentences
from citeguard.validate.validator import validate_answer

EXAMPLES = 10_000
ROBUST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PIECES = st.sampled_from(
    [
        "rent",
        "due",
        "the",
        "Tenant",
        "$1,250",
        "30",
        "days",
        "Jan. 5, 2021",
        "e.g.",
        "No.",
        "[1]",
        "[2]",
        "[0]",
        "[9]",
        "[1-3]",
        "[1, 2]",
        "[n]",
        "[date]",
        "(a)",
        "1.",
        "§ 4",
        ".",
        "?",
        "!",
        ";",
        ":",
        ",",
        '"',
        "'",
        "\n",
        "\n\n",
        "\f",
        " ",
        "  ",
        "\t",
        "…",
        "The document does not contain sufficient information to answer this question.",
    ]
)
TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(PIECES, max_size=80).map(" ".join),
    st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=60).map("".join),
)
SETTINGS = Context().validation_settings(level="strict")
EMBEDDER = HashingEmbedder()


def embed(texts: list[str]) -> np.ndarray:
    return EMBEDDER.embed_documents(list(texts))


@ROBUST
@given(text=TEXT, k=st.integers(min_value=0, max_value=6))
def test_citation_parser(text: str, k: int) -> None:
    for marker in parse_citations(text, k):
        assert text[marker.start : marker.end] == marker.text
    strip_citations(text)


@ROBUST
@given(text=TEXT)
def test_sentence_splitter(text: str) -> None:
    for sentence in split_sentences(text):
        assert text[sentence.start : sentence.end] == sentence.text


@ROBUST
@given(pages=st.lists(TEXT, min_size=1, max_size=3))
def test_chunker(pages: list[str]) -> None:
    document = document_from_pages("doc.txt", pages)
    chunk_settings = ChunkSettings(max_tokens=40, overlap_tokens=8, min_chunk_tokens=3)
    for chunk in chunk_document(document, chunk_settings, EMBEDDER.count_tokens):
        assert document.text[chunk.char_start : chunk.char_end] == chunk.text


@settings(ROBUST)
@given(answer=TEXT, sources=st.lists(TEXT, min_size=1, max_size=4), question=TEXT)
def test_validator(answer: str, sources: list[str], question: str) -> None:
    result = validate_answer(answer, sources, question, SETTINGS, embed=embed)
    result.to_json()
    if result.passed and not result.is_refusal:
        assert all(sentence.supported for sentence in result.sentences)

"""The records that travel from parsing through chunking, indexing and citation.

Offsets are character offsets into ``ParsedDocument.text``; that text is the document's
normalized page texts joined by ``PAGE_SEPARATOR``, so every chunk and quote can be traced
back to exact characters and to a page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# Pages are joined with a blank line so that a paragraph never silently merges across
# a page break; the chunker still treats the boundary as soft (see ingest.chunking).
PAGE_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Page:
    """One page of a parsed document."""

    pdf_page: int
    """1-based page index in the file (1 for a plain-text document without form feeds)."""
    printed_page: str
    """The page number printed on the page ("iii", "7"), or str(pdf_page) when none is reliable."""
    text: str
    """Normalized page text, running headers/footers removed."""
    char_start: int
    """Offset of this page's text in the document text."""

    @property
    def char_end(self) -> int:
        return self.char_start + len(self.text)


@dataclass(frozen=True)
class ParsedDocument:
    """A whole document after parsing."""

    name: str
    """File name used as the document's identity in the index (e.g. "lease.pdf")."""
    path: str
    """Path the document was read from."""
    content_hash: str
    """sha256 of the file bytes; an unchanged hash means re-ingesting does nothing."""
    pages: tuple[Page, ...]
    text: str
    """Page texts joined by PAGE_SEPARATOR; all offsets point into this string."""
    encoding: str | None = None
    """The text encoding a text file was read with (None for PDFs)."""

    def page_at(self, offset: int) -> Page:
        """The page holding character ``offset``; a page separator belongs to the page before."""
        found = self.pages[0]
        for page in self.pages:
            if page.char_start <= offset:
                found = page
            else:
                break
        return found


@dataclass(frozen=True)
class Chunk:
    """A unit of evidence: a contiguous span of one document's text."""

    chunk_id: str
    """Stable id: the same file and chunk settings always give the same ids."""
    doc: str
    text: str
    """Exactly ``document.text[char_start:char_end]``."""
    pdf_pages: tuple[int, int]
    """First and last PDF page (1-based, inclusive) the chunk covers; at most two pages."""
    printed_pages: tuple[str, str]
    """Printed page labels of the first and last page."""
    char_start: int
    char_end: int
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["pdf_pages"] = list(self.pdf_pages)
        data["printed_pages"] = list(self.printed_pages)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chunk:
        return cls(
            chunk_id=data["chunk_id"],
            doc=data["doc"],
            text=data["text"],
            pdf_pages=(int(data["pdf_pages"][0]), int(data["pdf_pages"][1])),
            printed_pages=(str(data["printed_pages"][0]), str(data["printed_pages"][1])),
            char_start=int(data["char_start"]),
            char_end=int(data["char_end"]),
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass(frozen=True)
class SearchHit:
    """One retrieved chunk with the scores that ranked it."""

    chunk: Chunk
    score: float
    """Fused score (what the ranking used)."""
    dense_score: float
    """Cosine similarity of query and chunk embeddings (raw, before normalization)."""
    lexical_score: float
    """BM25 score (raw, before normalization)."""
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        c = self.chunk
        return {
            "doc": c.doc,
            "chunk_id": c.chunk_id,
            "pdf_pages": list(c.pdf_pages),
            "printed_pages": list(c.printed_pages),
            "char_start": c.char_start,
            "char_end": c.char_end,
            "score": self.score,
            "dense_score": self.dense_score,
            "lexical_score": self.lexical_score,
            "text": c.text,
        }

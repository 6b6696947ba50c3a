"""The search interface (index/searcher.py): the hybrid searcher implements it, and the
graph's source rule needs nothing else from a backend."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeguard.documents import Chunk, SearchHit
from citeguard.graph.context import Context
from citeguard.graph.passage_scores import AnswerScores
from citeguard.graph.sources import retrieve_sources
from citeguard.index.dense import HashingEmbedder
from citeguard.index.embedder import Embedder
from citeguard.index.search import HybridSearcher
from citeguard.index.searcher import Searcher, StoredChunkVectors

EMBEDDER = HashingEmbedder(dimension=32)


def chunk(doc: str, i: int, text: str) -> Chunk:
    return Chunk(
        chunk_id=f"{doc}#{i}",
        doc=doc,
        text=text,
        pdf_pages=(i + 1, i + 1),
        printed_pages=(str(i + 1), str(i + 1)),
        char_start=100 * i,
        char_end=100 * i + len(text),
    )


OPENING = chunk("lease.pdf", 0, "This lease is made between Ann Lee (Landlord) and Bo Park.")
BODY = [
    chunk("lease.pdf", 1, "The tenant shall pay rent on the first day of each month."),
    chunk("lease.pdf", 2, "Either party may end this lease with sixty days notice."),
]


class ListSearcher:
    """A second backend in miniature: hits in a fixed order, no stored vectors."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)

    @property
    def documents(self) -> list[str]:
        return sorted({c.doc for c in self.chunks})

    @property
    def embedder(self) -> Embedder:
        return EMBEDDER

    def search(
        self,
        query: str,
        k: int = 8,
        mode: str = "hybrid",
        alpha: float = 0.5,
        docs: Sequence[str] | None = None,
        fusion: str = "minmax",
        rerank: bool = False,
        query_vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        found = [c for c in self.chunks if c.char_start > 0 and (not docs or c.doc in docs)]
        return [
            SearchHit(chunk=c, score=1.0 - 0.1 * n, dense_score=0.5, lexical_score=1.0, rank=n + 1)
            for n, c in enumerate(found[:k])
        ]

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        first = min((c for c in self.chunks if c.doc == doc), key=lambda c: c.char_start)
        return SearchHit(chunk=first, score=0.0, dense_score=0.1, lexical_score=0.0, rank=0)


def test_the_hybrid_searcher_implements_the_interface_and_its_stored_vectors() -> None:
    chunks = [OPENING, *BODY]
    hybrid = HybridSearcher.from_arrays(
        chunks, EMBEDDER.embed_documents([c.text for c in chunks]), embedder=EMBEDDER
    )
    assert isinstance(hybrid, Searcher)
    assert isinstance(hybrid, StoredChunkVectors)
    assert not isinstance(object(), Searcher)


def test_the_source_rule_runs_on_any_backend_that_implements_the_interface() -> None:
    backend = ListSearcher([OPENING, *BODY])
    assert isinstance(backend, Searcher)
    assert not isinstance(backend, StoredChunkVectors)
    question = "Who are the parties to this lease?"
    hits, sources = retrieve_sources(
        backend, question, Context(), ["lease.pdf"], AnswerScores(None, question)
    )
    assert [h.chunk.chunk_id for h in hits] == ["lease.pdf#1", "lease.pdf#2"]
    # A question about the parties gets the document's opening among its sources, found
    # through the interface's opening_hit.
    assert OPENING.chunk_id in [s.chunk.chunk_id for s in sources]

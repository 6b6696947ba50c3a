"""The index as the rest of CiteGuard sees it: what a search backend must implement.

The graph and the scorer's calibration find sources through :class:`Searcher`
only, never through how an index is stored. :class:`~citeguard.index.search.HybridSearcher`
(BM25 + FAISS in a folder on disk) is the one backend today; another (a database, a
shared server) implements the same methods and is handed to
:class:`~citeguard.graph.resources.Resources`.

Stored vectors are optional capabilities: a backend that keeps ingest's embeddings
(:class:`StoredChunkVectors`) lets validation and trimming reuse them, and one that keeps
the evidence scorer's passage vectors (:class:`StoredScorerPassages`) spares a new process
embedding them again; one that does not is embedded again, with the same results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from citeguard.documents import SearchHit
from citeguard.index.embedder import Embedder
from citeguard.index.fusion import DEFAULT_ALPHA
from citeguard.index.stored_passage_vectors import StoredPassageVectors


@runtime_checkable
class Searcher(Protocol):
    """Hybrid search over indexed chunks, scoped to documents."""

    @property
    def documents(self) -> list[str]:
        """Names of the indexed documents, sorted."""
        ...

    @property
    def embedder(self) -> Embedder:
        """The embedder the index was built with: queries and sources share its space."""
        ...

    def search(
        self,
        query: str,
        k: int = 8,
        mode: str = "hybrid",
        alpha: float = DEFAULT_ALPHA,
        docs: Sequence[str] | None = None,
        fusion: str = "minmax",
        rerank: bool = False,
        query_vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best distinct chunks for ``query`` ("hybrid", "dense" or "lexical";
        min-max or RRF fusion), only in ``docs`` when given; an unknown name raises
        :class:`~citeguard.index.search.UnknownDocumentError`."""
        ...

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        """The first chunk of ``doc`` (where its parties and date are), scored for
        ``query``; None when the document has no chunk."""
        ...


@runtime_checkable
class StoredChunkVectors(Protocol):
    """Optional: the vectors ingest stored, by chunk id, with the text they embed."""

    def stored_chunk_vector(self, chunk_id: str) -> tuple[str, np.ndarray] | None:
        """(text, embedding) of an indexed chunk; None when unknown."""
        ...

    def stored_sentence_vectors(self, chunk_id: str) -> tuple[str, np.ndarray] | None:
        """(text, vectors of its sentences) of an indexed chunk; None when not stored."""
        ...


@runtime_checkable
class StoredScorerPassages(Protocol):
    """Optional: a place to keep the evidence scorer's vectors of this index's passages,
    filled as questions are asked (``index/stored_passage_vectors.py``)."""

    def scorer_passage_vectors(self, scorer: str, dimension: int) -> StoredPassageVectors | None:
        """The store of the scorer named ``scorer`` (its weights' sha256, 12 hex digits),
        whose vectors have ``dimension`` values; None when this index keeps none."""
        ...

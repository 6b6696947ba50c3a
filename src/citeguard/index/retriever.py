"""LangChain retriever over a CiteGuard index."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from citeguard.documents import SearchHit
from citeguard.index.fusion import DEFAULT_ALPHA
from citeguard.index.search import HybridSearcher


def hit_to_document(hit: SearchHit) -> Document:
    """A LangChain Document for a hit: the chunk text plus citation metadata."""
    chunk = hit.chunk
    return Document(
        page_content=chunk.text,
        id=chunk.chunk_id,
        metadata={
            "doc": chunk.doc,
            "chunk_id": chunk.chunk_id,
            "pdf_pages": list(chunk.pdf_pages),
            "printed_pages": list(chunk.printed_pages),
            "char_start": chunk.char_start,
            "char_end": chunk.char_end,
            "score": hit.score,
            "dense_score": hit.dense_score,
            "lexical_score": hit.lexical_score,
            "rank": hit.rank,
        },
    )


class CiteGuardRetriever(BaseRetriever):
    """Hybrid retrieval from a CiteGuard index as a LangChain retriever.

    Give either a loaded ``searcher`` or an ``index_dir`` (None: ``$CITEGUARD_INDEX`` or
    ``./.citeguard``); the index is loaded on first use and kept.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: HybridSearcher | None = None
    """An already-loaded searcher; takes precedence over ``index_dir``."""
    index_dir: str | None = None
    """Index folder to load when no searcher is given."""
    embedding_model: str | None = None
    """When set, the index must have been built with this model."""
    k: int = Field(default=8, ge=1)
    """Number of chunks to return."""
    mode: str = "hybrid"
    """"hybrid", "dense" or "lexical"."""
    alpha: float = Field(default=DEFAULT_ALPHA, ge=0.0, le=1.0)
    """Weight of the dense score in min-max fusion."""
    fusion: str = "minmax"
    """"minmax" or "rrf"."""
    docs: list[str] | None = None
    """Restrict retrieval to these document names."""
    rerank: bool = False
    """Apply the heuristic reranker."""

    _loaded: HybridSearcher | None = PrivateAttr(default=None)

    def get_searcher(self) -> HybridSearcher:
        if self.searcher is not None:
            return self.searcher
        if self._loaded is None:
            from citeguard.index.search import load_index

            self._loaded = load_index(self.index_dir, embedding_model=self.embedding_model)
        return self._loaded

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        hits = self.get_searcher().search(
            query,
            k=int(kwargs.get("k", self.k)),
            mode=kwargs.get("mode", self.mode),
            alpha=float(kwargs.get("alpha", self.alpha)),
            docs=kwargs.get("docs", self.docs),
            fusion=kwargs.get("fusion", self.fusion),
            rerank=bool(kwargs.get("rerank", self.rerank)),
        )
        return [hit_to_document(hit) for hit in hits]

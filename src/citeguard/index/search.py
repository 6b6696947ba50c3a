"""Hybrid (dense + BM25) search over an index held in memory.

One query, step by step:

1. Candidates: the dense top-N (FAISS) and the BM25 top-N (documents with a positive BM25
   score), ``N = max(50, 4 * k)``; their union in "hybrid" mode, one of them otherwise.
   With a document scope, both top-N lists are taken among the scoped rows only (row masks
   before the top-N), so a scoped document is searched fully even when none of its chunks
   would make the global top-N.
2. Both raw scores (cosine, BM25) are computed for every candidate.
3. Ranking score: "hybrid" fuses the two over the candidate set (``fusion.py``: min-max
   with ``alpha`` or RRF); "dense" and "lexical" rank by that raw score alone, and the
   hit's ``score`` is that raw score.
4. Optional heuristic rerank of the top ``max(20, 2 * k)`` (``rerank.py``; off by default).
5. Near-duplicates are dropped walking down the ranking: a candidate is a duplicate of an
   already kept hit when their word-3-gram sets (lowercased letter/digit words) overlap by
   at least ``DUPLICATE_CONTAINMENT`` (0.8) of the smaller set (texts under three words
   compare as a whole). The higher-ranked chunk is kept. Ordinary chunk overlap (120 of
   600 tokens, ~0.2) is far below the threshold; repeated boilerplate is above it.

Everything over all rows is numpy/scipy/FAISS; Python loops only touch candidates.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from citeguard.documents import Chunk, SearchHit
from citeguard.errors import CiteGuardError
from citeguard.index.bm25 import BM25Index, tokenize, word_tokens
from citeguard.index.dense import DenseIndex
from citeguard.index.embedder import Embedder, get_embedder
from citeguard.index.fusion import DEFAULT_ALPHA, FUSION_METHODS, fuse
from citeguard.index.rerank import heuristic_rerank
from citeguard.index.sentence_vectors import SentenceVectors
from citeguard.index.store import IndexData, Manifest, read_index
from citeguard.index.stored_passage_vectors import StoredPassageVectors, store_file
from citeguard.text.sentences import sentence_texts

logger = logging.getLogger(__name__)

SearchMode = Literal["hybrid", "dense", "lexical"]
SEARCH_MODES: tuple[str, ...] = ("hybrid", "dense", "lexical")
MIN_CANDIDATES = 50
CANDIDATES_PER_HIT = 4
DUPLICATE_CONTAINMENT = 0.8
RERANK_MIN_DEPTH = 20


class UnknownDocumentError(CiteGuardError, ValueError):
    """A search was scoped to a document the index does not hold."""


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = word_tokens(text)
    if len(words) < 3:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def is_near_duplicate(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> bool:
    """Word-3-gram containment of the smaller set in the larger >= DUPLICATE_CONTAINMENT."""
    if not a or not b:
        return False
    smaller = min(len(a), len(b))
    return len(a & b) / smaller >= DUPLICATE_CONTAINMENT


class HybridSearcher:
    """Search over chunks, their embeddings and their BM25 index (row ``i`` = ``chunks[i]``).

    Args:
        chunks: the indexed chunks; each document's chunks should be contiguous (not required).
        dense: the dense index over the same rows.
        bm25: the BM25 index over the same rows.
        embedder: embeds queries when ``search`` gets no ``query_vector``; when None, the
            model named ``embedding_model`` is loaded on first use.
        embedding_model: name of the model the embeddings came from.
        manifest: the on-disk manifest, when loaded from disk.
        sentence_vectors: embeddings of each chunk's sentences (rows as ``chunks``), when
            the index stores them.
        folder: the generation folder the index was read from (None: not read from disk);
            the evidence scorer keeps its passage vectors there
            (:meth:`scorer_passage_vectors`).
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        dense: DenseIndex,
        bm25: BM25Index,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
        manifest: Manifest | None = None,
        sentence_vectors: SentenceVectors | None = None,
        folder: Path | None = None,
    ) -> None:
        if len(dense) != len(chunks) or bm25.n_docs != len(chunks):
            raise ValueError(
                f"{len(chunks)} chunks, {len(dense)} embeddings and {bm25.n_docs} BM25 rows differ"
            )
        if sentence_vectors is not None and sentence_vectors.rows != len(chunks):
            raise ValueError(
                f"{len(chunks)} chunks and sentence vectors for {sentence_vectors.rows} differ"
            )
        self.sentence_vectors = sentence_vectors
        self.folder = folder
        self._passage_stores: dict[str, StoredPassageVectors] = {}
        self._passage_stores_lock = threading.Lock()
        self._row_of_chunk = {c.chunk_id: row for row, c in enumerate(chunks)}
        self.chunks = list(chunks)
        self.dense = dense
        self.bm25 = bm25
        self.manifest = manifest
        self.embedding_model = embedding_model or (manifest.embedding_model if manifest else None)
        self._embedder = embedder
        doc_of_row = np.array([c.doc for c in self.chunks], dtype=object)
        self._rows_by_doc: dict[str, np.ndarray] = {}
        if len(doc_of_row):
            names, inverse = np.unique(doc_of_row.astype(str), return_inverse=True)
            order = np.argsort(inverse, kind="stable")
            bounds = np.searchsorted(inverse[order], np.arange(len(names) + 1))
            for i, name in enumerate(names):
                self._rows_by_doc[str(name)] = order[bounds[i] : bounds[i + 1]]
        self._shingles = functools.lru_cache(maxsize=8192)(self._row_shingles)
        # search() and opening_hit() embed the same question within one retrieval.
        self._query_vectors = functools.lru_cache(maxsize=32)(self._embed_query)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        chunks: Sequence[Chunk],
        embeddings: np.ndarray,
        bm25: BM25Index | None = None,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
    ) -> HybridSearcher:
        """Build in memory (benchmarks, tests): BM25 is built from chunk texts when not given."""
        if bm25 is None:
            bm25 = BM25Index.build(c.text for c in chunks)
        return cls(
            chunks,
            DenseIndex(embeddings),
            bm25,
            embedder=embedder,
            embedding_model=embedding_model or (embedder.name if embedder else None),
        )

    @classmethod
    def from_index(cls, data: IndexData, embedder: Embedder | None = None) -> HybridSearcher:
        return cls(
            data.chunks,
            data.dense,
            data.bm25,
            embedder=embedder,
            manifest=data.manifest,
            sentence_vectors=data.sentence_vectors,
            folder=data.folder,
        )

    def scorer_passage_vectors(self, scorer: str, dimension: int) -> StoredPassageVectors | None:
        """The store of the ``scorer``'s passage vectors in this index's generation folder
        (one per scorer, opened on first use); None for an index not read from disk."""
        if self.folder is None:
            return None
        with self._passage_stores_lock:
            store = self._passage_stores.get(scorer)
            if store is None or store.dimension != dimension:
                store = StoredPassageVectors(store_file(self.folder, scorer), dimension)
                self._passage_stores[scorer] = store
            return store

    # ------------------------------------------------------------------ properties
    @property
    def documents(self) -> list[str]:
        """Names of the indexed documents, sorted."""
        return sorted(self._rows_by_doc)

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            if not self.embedding_model:
                raise ValueError("no embedder and no embedding model name to load one")
            self._embedder = get_embedder(self.embedding_model)
        return self._embedder

    def embed_query(self, query: str) -> np.ndarray:
        """The query's embedding (a copy: the cached vector stays as computed)."""
        return self._query_vectors(query).copy()

    def _embed_query(self, query: str) -> np.ndarray:
        return np.asarray(self.embedder.embed_query(query), dtype=np.float32)

    def stored_sentence_vectors(self, chunk_id: str) -> tuple[str, np.ndarray] | None:
        """(text, vectors of its sentences) of an indexed chunk, when the index stores them.

        The text lets a caller check that what it holds is the chunk as indexed before it
        uses the vectors (see ``citeguard.generate.trimming``).
        """
        row = self._row_of_chunk.get(chunk_id)
        if row is None or self.sentence_vectors is None:
            return None
        text = self.chunks[row].text
        vectors = self.sentence_vectors.matching(row, sentence_texts(text))
        return None if vectors is None else (text, vectors)

    def stored_chunk_vector(self, chunk_id: str) -> tuple[str, np.ndarray] | None:
        """(text, embedding) of an indexed chunk: the vector ingest stored for its text."""
        row = self._row_of_chunk.get(chunk_id)
        if row is None:
            return None
        return self.chunks[row].text, self.dense.embeddings[row]

    # ------------------------------------------------------------------ search
    def scope_rows(self, docs: Sequence[str]) -> np.ndarray:
        """Rows of the given documents (sorted); UnknownDocumentError names unknown ones."""
        if isinstance(docs, str):
            docs = [docs]
        unknown = [d for d in docs if d not in self._rows_by_doc]
        if unknown:
            known = ", ".join(self.documents) or "(none)"
            raise UnknownDocumentError(
                f"not in the index: {', '.join(unknown)}; indexed documents: {known}"
            )
        parts = [self._rows_by_doc[d] for d in dict.fromkeys(docs)]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

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
        """The ``k`` best distinct chunks for ``query`` (see the module docstring).

        Args:
            query: the question.
            k: number of hits wanted (fewer when fewer chunks match).
            mode: "hybrid", "dense" or "lexical".
            alpha: weight of the dense score in min-max fusion.
            docs: restrict to these document names (None or empty: all documents);
                UnknownDocumentError when a name is not indexed.
            fusion: "minmax" or "rrf" (hybrid mode only).
            rerank: apply the heuristic reranker to the top of the ranking.
            query_vector: the query's embedding, when already computed (skips the embedder).

        In "lexical" mode no query embedding is computed unless ``query_vector`` is given;
        without one the hits' ``dense_score`` is 0.0.
        """
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(SEARCH_MODES)}")
        if fusion not in FUSION_METHODS:
            raise ValueError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSION_METHODS)}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        if k <= 0 or not self.chunks:
            return []
        # An empty scope means "no restriction" (a UI's empty selection), not "nothing".
        scope = self.scope_rows(docs) if docs else None
        n_candidates = max(MIN_CANDIDATES, CANDIDATES_PER_HIT * k)

        vector: np.ndarray | None = None
        if query_vector is not None:
            vector = np.asarray(query_vector, dtype=np.float32).ravel()
        elif mode != "lexical":
            vector = self.embed_query(query)

        lexical_all = self.bm25.get_scores(tokenize(query))
        parts: list[np.ndarray] = []
        if mode in ("hybrid", "lexical"):
            parts.append(self._lexical_top(lexical_all, scope, n_candidates))
        if mode in ("hybrid", "dense") and vector is not None:
            parts.append(self._dense_top(vector, scope, n_candidates))
        candidates = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        if candidates.size == 0:
            return []

        lexical = lexical_all[candidates]
        if vector is not None:
            dense = self.dense.scores_for(candidates, vector)
        else:
            dense = np.zeros(candidates.size)
        if mode == "hybrid":
            ranking = fuse(dense, lexical, alpha=alpha, method=fusion)
        elif mode == "dense":
            ranking = dense
        else:
            ranking = lexical
        # Highest score first; equal scores keep row order, so results are deterministic.
        order = np.lexsort((candidates, -ranking))
        if rerank:
            depth = min(order.size, max(RERANK_MIN_DEPTH, 2 * k))
            head = order[:depth]
            new = heuristic_rerank(
                query, [self.chunks[r].text for r in candidates[head]], ranking[head]
            )
            ranking = ranking.copy()
            ranking[head] = new
            order = np.concatenate([head[np.argsort(-new, kind="stable")], order[depth:]])

        hits: list[SearchHit] = []
        kept_shingles: list[frozenset[tuple[str, ...]]] = []
        for position in order:
            row = int(candidates[position])
            shingles = self._shingles(row)
            if any(is_near_duplicate(shingles, other) for other in kept_shingles):
                continue
            kept_shingles.append(shingles)
            hits.append(
                SearchHit(
                    chunk=self.chunks[row],
                    score=float(ranking[position]),
                    dense_score=float(dense[position]),
                    lexical_score=float(lexical[position]),
                    rank=len(hits) + 1,
                )
            )
            if len(hits) == k:
                break
        return hits

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        """The first chunk of ``doc`` (its opening), scored against ``query`` like a hit.

        ``score`` is 0.0 and ``rank`` 0: the chunk was added, not ranked. Its dense and
        lexical scores are real, so the sufficiency check sees the opening as it is.
        None when the document has no chunks.
        """
        rows = self.scope_rows([doc])
        if rows.size == 0:
            return None
        row = int(min(rows, key=lambda r: self.chunks[int(r)].char_start))
        lexical = float(self.bm25.get_scores(tokenize(query))[row])
        dense = 0.0
        if mode != "lexical":
            dense = float(self.dense.scores_for(np.array([row]), self.embed_query(query))[0])
        return SearchHit(
            chunk=self.chunks[row], score=0.0, dense_score=dense, lexical_score=lexical, rank=0
        )

    def _row_shingles(self, row: int) -> frozenset[tuple[str, ...]]:
        return _shingles(self.chunks[row].text)

    def _lexical_top(self, scores: np.ndarray, scope: np.ndarray | None, n: int) -> np.ndarray:
        rows = np.flatnonzero(scores > 0) if scope is None else scope[scores[scope] > 0]
        if rows.size > n:
            rows = rows[np.argpartition(-scores[rows], n - 1)[:n]]
        return rows.astype(np.int64)

    def _dense_top(self, vector: np.ndarray, scope: np.ndarray | None, n: int) -> np.ndarray:
        if scope is None:
            rows, _ = self.dense.search(vector, n)
            return rows
        scores = self.dense.scores_for(scope, vector)
        if scope.size > n:
            return scope[np.argpartition(-scores, n - 1)[:n]].astype(np.int64)
        return scope.astype(np.int64)


def load_index(
    index_dir: str | os.PathLike[str] | None = None,
    embedding_model: str | None = None,
    embedder: Embedder | None = None,
) -> HybridSearcher:
    """Load the index for searching.

    Args:
        index_dir: the index folder (``resolve_index_dir`` rules).
        embedding_model: when given, must be the model the index was built with.
        embedder: embeds queries; by default the index's model is loaded on first dense search.

    Raises:
        IndexNotFoundError: no index there.
        IncompatibleIndexError: built with another model, dimension or format version.
    """
    if embedder is not None and embedding_model is None:
        embedding_model = embedder.name
    data = read_index(
        index_dir,
        embedding_model=embedding_model,
        dimension=embedder.dimension if embedder is not None else None,
    )
    return HybridSearcher.from_index(data, embedder=embedder)

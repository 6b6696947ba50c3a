"""Dense retrieval: an exact FAISS inner-product index over L2-normalized embeddings.

With normalized vectors, inner product equals cosine similarity. ``IndexFlatIP`` is exact
(brute force), which at the sizes CiteGuard targets (<= ~100k chunks) is a few
milliseconds per query and needs no training. The embedding matrix is kept next to the
FAISS file (``embeddings.npy``) so an incremental update can rebuild the FAISS index for
the surviving chunks without embedding them again.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence
from pathlib import Path

import faiss
import numpy as np

from citeguard.index.bm25 import word_tokens

# FAISS parallelizes one query over OpenMP threads; for a single query vector the thread
# start-up and, on a busy machine, spinning cost far more than the scan (measured here:
# 10k x 384 took ~22 ms with 2 threads under load, ~0.6 ms with 1). Searches therefore run
# single-threaded; the previous setting is restored afterwards.
_FAISS_THREADS_LOCK = threading.Lock()


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Float32, C-contiguous, each row of unit length (zero rows stay zero)."""
    arr = np.ascontiguousarray(vectors, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D embedding matrix, got shape {arr.shape}")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return np.ascontiguousarray(arr / np.maximum(norms, 1e-12), dtype=np.float32)


class DenseIndex:
    """FAISS ``IndexFlatIP`` plus the embeddings it was built from."""

    def __init__(self, embeddings: np.ndarray, faiss_index: faiss.Index | None = None) -> None:
        self.embeddings = normalize_rows(embeddings)
        if faiss_index is None:
            faiss_index = faiss.IndexFlatIP(self.dimension)
            if len(self.embeddings):
                faiss_index.add(self.embeddings)
        if faiss_index.ntotal != len(self.embeddings) or faiss_index.d != self.dimension:
            raise ValueError(
                f"FAISS index holds {faiss_index.ntotal} vectors of dimension {faiss_index.d}, "
                f"embeddings are {self.embeddings.shape}"
            )
        self.faiss_index = faiss_index

    @property
    def dimension(self) -> int:
        return int(self.embeddings.shape[1])

    def __len__(self) -> int:
        return int(self.embeddings.shape[0])

    def search(self, query_vector: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``n`` rows by cosine similarity: (row ids int64, scores float32), best first."""
        n = min(n, len(self))
        if n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        q = np.ascontiguousarray(query_vector, dtype=np.float32).reshape(1, -1)
        with _FAISS_THREADS_LOCK:
            previous = faiss.omp_get_max_threads()
            faiss.omp_set_num_threads(1)
            try:
                scores, ids = self.faiss_index.search(q, n)
            finally:
                faiss.omp_set_num_threads(previous)
        keep = ids[0] >= 0
        return ids[0][keep].astype(np.int64), scores[0][keep]

    def scores_for(self, rows: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of the query with the given rows (float64)."""
        q = np.asarray(query_vector, dtype=np.float32).ravel()
        return (self.embeddings[rows] @ q).astype(np.float64)

    def save(self, faiss_path: Path, embeddings_path: Path) -> None:
        with open(embeddings_path, "wb") as fh:
            np.save(fh, self.embeddings, allow_pickle=False)
        faiss.write_index(self.faiss_index, str(faiss_path))

    @classmethod
    def load(cls, faiss_path: Path, embeddings_path: Path) -> DenseIndex:
        embeddings = np.load(embeddings_path, allow_pickle=False)
        return cls(embeddings, faiss.read_index(str(faiss_path)))


class HashingEmbedder:
    """A deterministic, model-free embedder for tests and benchmarks (not semantic).

    Each lowercased word adds a +-1 to a hashed coordinate (crc32, stable across runs and
    processes); vectors are L2-normalized. Texts sharing words get similar vectors, which is
    enough to exercise dense search without loading a neural model.
    """

    def __init__(self, dimension: int = 64, name: str = "hashing-test") -> None:
        self.name = name
        self.dimension = dimension
        self.max_tokens = 512

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(text.split()) for text in texts]

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in word_tokens(text):
                code = zlib.crc32(word.encode("utf-8"))
                out[i, code % self.dimension] += 1.0 if (code >> 16) & 1 else -1.0
        return normalize_rows(out)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

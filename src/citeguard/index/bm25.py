"""Sparse-matrix BM25 that scores exactly like ``rank_bm25.BM25Okapi``, without its Python loops.

rank-bm25 loops over every document for every query token. Here the per-(document, term)
weight ``idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))`` is computed once
at build time into a CSC matrix, and a query's scores are the sum of its terms' columns
(a term repeated in the query counts once per occurrence, as in rank-bm25's loop).

The idf is rank-bm25's: ``log(N - df + 0.5) - log(df + 0.5)``, and every negative idf (a term
in more than half of the documents) is replaced by ``epsilon * mean(idf over the vocabulary)``.

Term counts are kept (CSR) so that an index can be cut to some documents and merged with
new ones; idf, average length and weights are always recomputed from the counts, so a
merged index scores exactly like one built from scratch on the same documents.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

# Unicode letters and digits, runs of them; "§ 4.2" -> ["4", "2"], "Lessee's" -> ["lessee", "s"].
_TOKEN_RE = re.compile(r"[^\W_]+")

# Only function words with no bearing on what a clause says. Negations and modal verbs
# ("not", "no", "shall", "may", "must") are deliberately kept: they carry legal meaning.
STOPWORDS: frozenset[str] = frozenset(
    """a an the of and or to in on at by for with as is are was were be been being it its
    this that these those from into than then there their which who whom s""".split()
)

DEFAULT_K1 = 1.5
DEFAULT_B = 0.75
DEFAULT_EPSILON = 0.25


def word_tokens(text: str) -> list[str]:
    """Lowercased runs of letters/digits, stopwords included (used for near-duplicate checks)."""
    return _TOKEN_RE.findall(text.lower())


def tokenize(text: str) -> list[str]:
    """The BM25 tokenizer: lowercase, runs of Unicode letters/digits (numbers kept), and
    the small ``STOPWORDS`` list removed. Queries and documents use the same function."""
    return [t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS]


class BM25Index:
    """BM25 (Okapi, rank-bm25 variant) over a fixed set of documents (chunks).

    Args:
        counts: term frequencies, shape (documents, terms); every column must occur somewhere
            (use ``from_counts`` to drop empty columns).
        vocab: the term of each column.
    """

    def __init__(
        self,
        counts: sp.csr_matrix,
        vocab: Sequence[str],
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        epsilon: float = DEFAULT_EPSILON,
    ) -> None:
        if counts.shape[1] != len(vocab):
            raise ValueError(f"counts has {counts.shape[1]} columns for {len(vocab)} terms")
        self.counts: sp.csr_matrix = sp.csr_matrix(counts, dtype=np.int32)
        self.vocab: list[str] = list(vocab)
        self.term_ids: dict[str, int] = {t: i for i, t in enumerate(self.vocab)}
        self.k1 = float(k1)
        self.b = float(b)
        self.epsilon = float(epsilon)
        self._compute_weights()

    # ----------------------------------------------------------------- building
    @classmethod
    def build(cls, texts: Iterable[str], **params: float) -> BM25Index:
        """Tokenize ``texts`` with ``tokenize`` and index them."""
        return cls.from_tokens((tokenize(t) for t in texts), **params)

    @classmethod
    def from_tokens(cls, documents: Iterable[Sequence[str]], **params: float) -> BM25Index:
        """Index already-tokenized documents (what rank-bm25's constructor takes)."""
        term_ids: dict[str, int] = {}
        indptr = [0]
        indices: list[int] = []
        data: list[int] = []
        for tokens in documents:
            for term, tf in Counter(tokens).items():
                indices.append(term_ids.setdefault(term, len(term_ids)))
                data.append(tf)
            indptr.append(len(indices))
        counts = sp.csr_matrix(
            (
                np.asarray(data, dtype=np.int32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int64),
            ),
            shape=(len(indptr) - 1, len(term_ids)),
        )
        return cls(counts, list(term_ids), **params)

    @classmethod
    def from_counts(cls, counts: sp.spmatrix, vocab: Sequence[str], **params: float) -> BM25Index:
        """Like the constructor, but drops terms that no longer occur in any document.

        Dropping matters for exactness: rank-bm25's epsilon floor uses the mean idf over
        the vocabulary of the documents actually indexed.
        """
        csc = sp.csc_matrix(counts)
        csc.eliminate_zeros()
        present = np.flatnonzero(np.diff(csc.indptr) > 0)
        kept = csc[:, present].tocsr()
        return cls(kept, [vocab[int(i)] for i in present], **params)

    def select_rows(self, rows: Sequence[int] | np.ndarray) -> BM25Index:
        """A new index over the given documents (in that order)."""
        rows_arr = np.asarray(rows, dtype=np.int64)
        return BM25Index.from_counts(self.counts[rows_arr], self.vocab, **self._params())

    @staticmethod
    def concatenate(parts: Sequence[BM25Index]) -> BM25Index:
        """One index over the documents of ``parts`` in order (vocabularies are merged)."""
        if not parts:
            return BM25Index.from_tokens([])
        vocab: dict[str, int] = {}
        blocks = []
        for part in parts:
            remap = np.array([vocab.setdefault(t, len(vocab)) for t in part.vocab], dtype=np.int32)
            c = part.counts
            blocks.append((c.data, remap[c.indices] if len(remap) else c.indices, c.indptr))
        n_terms = len(vocab)
        matrices = [
            sp.csr_matrix((data, idx, ptr), shape=(len(ptr) - 1, n_terms))
            for data, idx, ptr in blocks
        ]
        stacked = sp.vstack(matrices, format="csr") if matrices else sp.csr_matrix((0, n_terms))
        stacked.sort_indices()
        return BM25Index(stacked, list(vocab), **parts[0]._params())

    def _params(self) -> dict[str, float]:
        return {"k1": self.k1, "b": self.b, "epsilon": self.epsilon}

    def _compute_weights(self) -> None:
        counts = self.counts
        n_docs, n_terms = counts.shape
        self.doc_len = np.asarray(counts.sum(axis=1)).ravel().astype(np.float64)
        self.avgdl = float(self.doc_len.mean()) if n_docs else 0.0
        df = np.bincount(counts.indices, minlength=n_terms).astype(np.float64)
        idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
        if n_terms:
            self.average_idf = float(idf.mean())
            idf[idf < 0] = self.epsilon * self.average_idf
        else:
            self.average_idf = 0.0
        self.idf = idf
        tf = counts.data.astype(np.float64)
        row_of = np.repeat(np.arange(n_docs), np.diff(counts.indptr))
        if self.avgdl > 0:
            norm = self.k1 * (1 - self.b + self.b * self.doc_len[row_of] / self.avgdl)
            data = idf[counts.indices] * (tf * (self.k1 + 1) / (tf + norm))
        else:  # every document is empty: there are no entries anyway
            data = np.zeros_like(tf)
        weights = sp.csr_matrix((data, counts.indices, counts.indptr), shape=counts.shape)
        # float64 keeps scores equal to rank-bm25's to ~1e-15; column access for queries.
        self.weights: sp.csc_matrix = weights.tocsc()

    # ----------------------------------------------------------------- querying
    @property
    def n_docs(self) -> int:
        return int(self.counts.shape[0])

    def get_scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for an already-tokenized query (float64, shape (n,))."""
        scores = np.zeros(self.n_docs, dtype=np.float64)
        w = self.weights
        for term, times in Counter(query_tokens).items():
            j = self.term_ids.get(term)
            if j is None:
                continue
            start, end = w.indptr[j], w.indptr[j + 1]
            # Row indices within one column are unique, so fancy-index += is safe.
            scores[w.indices[start:end]] += times * w.data[start:end]
        return scores

    def score_query(self, query: str) -> np.ndarray:
        """``get_scores(tokenize(query))``."""
        return self.get_scores(tokenize(query))

    # ----------------------------------------------------------------- persistence
    def save(self, npz_path: Path, vocab_path: Path) -> None:
        """Write term counts to ``npz_path`` (numpy, no pickle) and the vocabulary as JSON."""
        c = self.counts
        with open(npz_path, "wb") as fh:
            np.savez(
                fh,
                data=c.data,
                indices=c.indices,
                indptr=c.indptr,
                shape=np.asarray(c.shape, dtype=np.int64),
                params=np.asarray([self.k1, self.b, self.epsilon], dtype=np.float64),
            )
        vocab_path.write_text(json.dumps(self.vocab, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, npz_path: Path, vocab_path: Path) -> BM25Index:
        with np.load(npz_path, allow_pickle=False) as z:
            shape = tuple(int(x) for x in z["shape"])
            counts = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
            k1, b, epsilon = (float(x) for x in z["params"])
        vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
        return cls(counts, vocab, k1=k1, b=b, epsilon=epsilon)

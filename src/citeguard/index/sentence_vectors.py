"""Embeddings of every chunk's sentences, computed at ingest and stored with the index.

Answering trims each source to its sentences most related to the question
(``citeguard.generate.trimming``), which needs a vector per sentence. Embedding them while a user
waits cost ~0.7 s per question on two cores; embedding them once at ingest makes that a
lookup. The rows follow the index's chunk rows: chunk ``i``'s sentences (as
:func:`~citeguard.text.sentences.sentence_texts` splits its text) are
``vectors[offsets[i]:offsets[i + 1]]``.

Each sentence's length in characters is stored too: a reader whose sentence splitter cuts
a chunk differently (a later version of it) would otherwise pair vectors with the wrong
sentences; :meth:`SentenceVectors.matching` refuses such a chunk, and it is embedded as if
nothing were stored.

The vectors come from the chunk's own embedding pass (:func:`embed_chunks`): each is the
mean of the contextual states of the sentence's word pieces, so ingest reads every word
once instead of once for the chunk and again for its sentences (an embedder without that
ability embeds the sentences on their own, as :meth:`SentenceVectors.build` does).

Stored as ``sentence_vectors.npy`` (float16: trimming only ranks a chunk's sentences,
which half precision does not change measurably) and ``sentence_rows.npz`` (offsets and
lengths), no pickles. There are ~15 sentences per chunk, so the vectors are ~15 times the
size of the chunk embeddings: they are memory-mapped, and a question reads only the rows of
its sources (as float32). An index that stored them as float32 still loads. The part is
optional: an index written before it existed still loads and its
sentences are embedded at question time, until the next ingest adds it.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.index.embedder import Embedder, SpanEmbedder
from citeguard.text.sentences import sentence_texts, split_sentences

__all__ = ["STORED_DTYPE", "SentenceVectors", "embed_chunks", "embed_sentences"]

CHUNKS_PER_PASS = 256
"""Chunks embedded together by :func:`embed_chunks` (bounds the memory of one pass)."""

STORED_DTYPE = np.float16
"""How the sentence vectors are written to disk (384 dimensions: 768 bytes a sentence)."""


class SentenceVectors:
    """Sentence embeddings of a sequence of chunks (see the module docstring)."""

    def __init__(self, vectors: np.ndarray, offsets: np.ndarray, lengths: np.ndarray) -> None:
        if vectors.dtype not in (np.float32, np.float16):  # a memory map stays mapped
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        offsets = np.asarray(offsets, dtype=np.int64)
        lengths = np.asarray(lengths, dtype=np.int64)
        if vectors.ndim != 2:
            raise ValueError(f"sentence vectors must be 2-D, got shape {vectors.shape}")
        if (
            offsets.ndim != 1
            or len(offsets) == 0
            or offsets[0] != 0
            or offsets[-1] != len(vectors)
            or np.any(np.diff(offsets) < 0)
        ):
            raise ValueError(
                f"sentence vector offsets must rise from 0 to {len(vectors)}, got {offsets!r}"
            )
        if lengths.shape != (len(vectors),):
            raise ValueError(f"{len(vectors)} sentence vectors but {lengths.size} lengths")
        self.vectors = vectors
        self.offsets = offsets
        self.lengths = lengths

    @classmethod
    def build(
        cls,
        texts: Sequence[str],
        embed: Callable[[list[str]], np.ndarray],
        dimension: int,
    ) -> SentenceVectors:
        """Split each text into sentences and embed them all in one call.

        Chunks overlap, so many sentences occur in two of them: each distinct sentence is
        embedded once.
        """
        sentences = [sentence_texts(text) for text in texts]
        flat = [s for chunk in sentences for s in chunk]
        offsets = np.concatenate([[0], np.cumsum([len(chunk) for chunk in sentences])])
        lengths = np.array([len(s) for s in flat], dtype=np.int64)
        distinct = list(dict.fromkeys(flat))
        if not distinct:
            return cls(np.zeros((0, dimension), dtype=np.float32), offsets, lengths)
        vectors = np.asarray(embed(distinct), dtype=np.float32).reshape(-1, dimension)
        row_of = {text: row for row, text in enumerate(distinct)}
        return cls(vectors[[row_of[s] for s in flat]], offsets, lengths)

    @classmethod
    def empty(cls, dimension: int) -> SentenceVectors:
        no_rows = np.zeros(0, dtype=np.int64)
        return cls(np.zeros((0, dimension), dtype=np.float32), np.zeros(1, np.int64), no_rows)

    @property
    def rows(self) -> int:
        """How many chunks this covers."""
        return len(self.offsets) - 1

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def for_row(self, row: int) -> np.ndarray:
        """The vectors of chunk ``row``'s sentences, in order, as float32."""
        return np.asarray(self.vectors[self.offsets[row] : self.offsets[row + 1]], np.float32)

    def matching(self, row: int, sentences: Sequence[str]) -> np.ndarray | None:
        """:meth:`for_row` when ``sentences`` (the chunk split now) are the sentences the
        vectors were computed for, as far as their lengths tell; else None."""
        stored = self.lengths[self.offsets[row] : self.offsets[row + 1]]
        if len(stored) != len(sentences) or any(
            int(n) != len(s) for n, s in zip(stored, sentences, strict=True)
        ):
            return None
        return self.for_row(row)

    def select_rows(self, rows: np.ndarray) -> SentenceVectors:
        """The chunks ``rows`` in that order (what removing documents keeps)."""
        spans = [(int(self.offsets[r]), int(self.offsets[r + 1])) for r in rows]
        counts = [end - start for start, end in spans]
        if spans:
            vectors = np.vstack([self.vectors[start:end] for start, end in spans])
            lengths = np.concatenate([self.lengths[start:end] for start, end in spans])
        else:
            vectors = np.zeros((0, self.dimension), np.float32)
            lengths = np.zeros(0, np.int64)
        return SentenceVectors(vectors, np.concatenate([[0], np.cumsum(counts)]), lengths)

    @classmethod
    def concatenate(cls, parts: Sequence[SentenceVectors]) -> SentenceVectors:
        vectors = np.vstack([part.vectors for part in parts])
        offsets = [np.zeros(1, dtype=np.int64)]
        total = 0  # sentences so far; a part may hold no chunk (every old one replaced)
        for part in parts:
            offsets.append(part.offsets[1:] + total)
            total += int(part.offsets[-1])
        lengths = np.concatenate([part.lengths for part in parts])
        return cls(vectors, np.concatenate(offsets), lengths)

    def save(self, vectors_path: Path, rows_path: Path) -> None:
        with open(vectors_path, "wb") as fh:
            np.save(fh, np.asarray(self.vectors, dtype=STORED_DTYPE), allow_pickle=False)
        with open(rows_path, "wb") as fh:
            np.savez(fh, offsets=self.offsets, lengths=self.lengths)

    @classmethod
    def load(cls, vectors_path: Path, rows_path: Path) -> SentenceVectors:
        """Load with the vectors memory-mapped (read-only).

        Raises:
            ValueError: a file is not what :meth:`save` writes.
        """
        try:
            with np.load(rows_path, allow_pickle=False) as rows:
                offsets, lengths = rows["offsets"], rows["lengths"]
            vectors = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
        except (zipfile.BadZipFile, KeyError, AttributeError, TypeError) as exc:
            # A file of the wrong kind: np.load returned an array or an archive instead.
            raise ValueError(f"{vectors_path.name} or {rows_path.name}: {exc}") from exc
        if not isinstance(vectors, np.ndarray):
            raise ValueError(f"{vectors_path.name} is not one array")
        return cls(vectors, offsets, lengths)


def embed_chunks(
    embedder: Embedder, texts: Sequence[str], show_progress: bool = False
) -> tuple[np.ndarray, SentenceVectors]:
    """The chunk embeddings and their sentences' vectors, in one model pass when the embedder
    can pool spans (:class:`~citeguard.index.embedder.SpanEmbedder`), else in two."""
    if not isinstance(embedder, SpanEmbedder):
        vectors = embedder.embed_documents(list(texts), show_progress=show_progress)
        return vectors, embed_sentences(embedder, texts, show_progress)
    split = [[s for s in split_sentences(text) if s.text.strip()] for text in texts]
    spans = [[(s.start, s.end) for s in sentences] for sentences in split]
    # A pass holds every word piece's state of its texts (~0.4 MB a window): texts go in
    # groups, so memory stays bounded however many chunks one ingest embeds.
    vectors_parts: list[np.ndarray] = []
    per_text: list[np.ndarray] = []
    bar = _progress_bar(len(texts), show_progress)
    for start in range(0, len(texts), CHUNKS_PER_PASS):
        group = slice(start, start + CHUNKS_PER_PASS)
        group_vectors, group_spans = embedder.embed_with_spans(texts[group], spans[group])
        vectors_parts.append(group_vectors)
        per_text.extend(group_spans)
        if bar is not None:
            bar.update(len(group_spans))
    if bar is not None:
        bar.close()
    vectors = (
        np.vstack(vectors_parts)
        if vectors_parts
        else np.zeros((0, embedder.dimension), dtype=np.float32)
    )
    offsets = np.concatenate([[0], np.cumsum([len(sentences) for sentences in split])])
    lengths = np.array([len(s.text) for sentences in split for s in sentences], dtype=np.int64)
    stacked = (
        np.vstack(per_text).astype(np.float32)
        if per_text
        else np.zeros((0, embedder.dimension), dtype=np.float32)
    )
    return vectors, SentenceVectors(stacked, offsets, lengths)


def embed_sentences(
    embedder: Embedder, texts: Sequence[str], show_progress: bool = False
) -> SentenceVectors:
    """The sentence vectors of chunks whose own vectors exist already (an index written
    before it stored sentence vectors): as :func:`embed_chunks` makes them."""
    if isinstance(embedder, SpanEmbedder):
        return embed_chunks(embedder, texts, show_progress)[1]
    return SentenceVectors.build(
        texts,
        lambda batch: embedder.embed_documents(batch, show_progress=show_progress),
        embedder.dimension,
    )


def _progress_bar(total: int, show: bool) -> Any:
    if not show or total == 0:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="embedding", unit="chunk")

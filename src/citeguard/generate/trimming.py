"""Shorter prompts: each source cut down to its sentences most related to the question.

On a CPU nearly all of a question's time is the model reading its prompt, and the four
sources are ~85% of that prompt. ``trim_sources`` keeps, per source, the sentences most
similar to the question (embedding cosine plus the share of the question's words they
contain) up to a word budget, in document order, joined by an ellipsis.

The sentences' vectors come from the index, which stores a vector for every chunk's
sentences at ingest, pooled from the chunk's own embedding pass
(``citeguard.index.sentence_vectors``); sources the index does not cover (an index written
before it stored them, an injected searcher) have their sentences embedded here, once per
process.

Only the model's view is trimmed: the evidence in state, which validation checks claims
against and citations quote from, stays whole. A claim the model takes from the trimmed
view is in the whole source too, so validation is unchanged.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from citeguard.text.sentences import sentence_texts
from citeguard.text.tokens import coverage, token_set
from citeguard.validate.focus import ELLIPSIS, within_budget

__all__ = ["ELLIPSIS", "Embed", "StoredVectors", "trim_sources"]

Embed = Callable[[Sequence[str]], np.ndarray]
StoredVectors = Callable[[str], "tuple[str, np.ndarray] | None"]
"""chunk id -> (the chunk's text as indexed, the vectors of its ``sentence_texts``)."""


def trim_sources(
    evidence: Sequence[dict[str, Any]],
    question: str,
    embed: Embed,
    max_words: int,
    stored: StoredVectors | None = None,
) -> list[dict[str, Any]]:
    """Copies of ``evidence`` whose text holds at most ``max_words`` words per source.

    A source within the budget is kept whole; otherwise its best sentences are kept (at
    least one, even when that one alone is longer than the budget). ``max_words`` <= 0
    returns the evidence unchanged. ``stored`` gives the index's sentence vectors, which
    must be in ``embed``'s vector space; sources it does not know are embedded.
    """
    if max_words <= 0:
        return list(evidence)
    texts = tuple(str(item.get("text", "")) for item in evidence)
    if stored is not None:
        for item, text in zip(evidence, texts, strict=True):
            found = stored(str(item.get("chunk_id", "")))
            # Only a source that is the chunk as indexed splits into the stored sentences.
            if found is not None and found[0] == text:
                _remember(embed, sentence_texts(text), found[1])
    trimmed = _trimmed_texts(embed, question, texts, max_words)
    return [
        item if new == old else {**item, "text": new}
        for item, old, new in zip(evidence, texts, trimmed, strict=True)
    ]


SENTENCE_VECTORS_KEPT = 20_000
"""Sentence vectors kept in memory (~30 MB at 384 dimensions)."""
_SENTENCE_VECTORS: OrderedDict[tuple[Embed, str], np.ndarray] = OrderedDict()
_SENTENCE_VECTORS_LOCK = threading.Lock()


def _remember(embed: Embed, texts: Sequence[str], vectors: np.ndarray) -> None:
    """Put known vectors of ``texts`` (from the index) in the cache ``_vectors`` reads."""
    if len(texts) != len(vectors):
        return  # not the split the vectors were stored for: embed instead
    with _SENTENCE_VECTORS_LOCK:
        for text, vector in zip(texts, vectors, strict=True):
            # A copy: the index's rows are a memory map of a file the next ingest replaces.
            _SENTENCE_VECTORS[(embed, text)] = np.array(vector, dtype=np.float32)
            _SENTENCE_VECTORS.move_to_end((embed, text))
        _forget_least_recent()


def _vectors(embed: Embed, texts: Sequence[str]) -> np.ndarray:
    """``embed(texts)`` as a float32 array, embedding only texts not seen recently.

    Questions about one document keep retrieving its same chunks, so most of a source's
    sentences were embedded for an earlier question: on two cores, embedding them again
    costs most of a second per question. A text's vector can differ in the last bits with
    the batch it was embedded in (padding), which no comparison here is sensitive to.
    """
    # One lock around lookup, embedding and insertion: concurrent requests (the server)
    # take turns here, as they do for the model itself.
    with _SENTENCE_VECTORS_LOCK:
        missing = list(dict.fromkeys(t for t in texts if (embed, t) not in _SENTENCE_VECTORS))
        if missing:
            fresh = np.asarray(embed(missing), dtype=np.float32)
            for text, vector in zip(missing, fresh, strict=True):
                _SENTENCE_VECTORS[(embed, text)] = vector
        rows = []
        for text in texts:
            _SENTENCE_VECTORS.move_to_end((embed, text))  # most recently used last
            rows.append(_SENTENCE_VECTORS[(embed, text)])
        _forget_least_recent()
    return np.stack(rows)


def _forget_least_recent() -> None:
    """Drop the least recently used vectors beyond :data:`SENTENCE_VECTORS_KEPT` (under
    the lock)."""
    while len(_SENTENCE_VECTORS) > SENTENCE_VECTORS_KEPT:
        _SENTENCE_VECTORS.popitem(last=False)


# A regeneration shows the model the same sources for the same question: the cache spares
# it a second round of splitting and scoring (the vectors themselves come from _vectors).
# ``embed`` is part of the key (bound methods of one embedder compare equal), so two
# embedders in one process never share entries.
@functools.lru_cache(maxsize=64)
def _trimmed_texts(
    embed: Embed, question: str, texts: tuple[str, ...], max_words: int
) -> tuple[str, ...]:
    question_words = token_set(question)
    trimmed: list[str] = []
    for text in texts:
        if len(text.split()) <= max_words:
            trimmed.append(text)
            continue
        sentences = sentence_texts(text)
        if len(sentences) <= 1:
            trimmed.append(" ".join(text.split()[:max_words]))
            continue
        vectors = _vectors(embed, [question, *sentences])
        similarity = vectors[1:] @ vectors[0]
        overlap = np.array([coverage(question_words, token_set(s)) for s in sentences])
        keep = within_budget(sentences, similarity + overlap, max_words)
        trimmed.append(ELLIPSIS.join(sentences[i] for i in sorted(keep)))
    return tuple(trimmed)

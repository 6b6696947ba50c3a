"""Remember the embeddings of recently seen texts, so that validation embeds a source once.

Validation compares each answer sentence with its sources by embedding cosine, and embeds
the sources (whole chunks, several windows of the embedding model each) on every call:
again for the regenerated draft of the same question, and again when the next question
about the same document retrieves the same chunks. On 2 cores that was ~0.5 s per
validation, about as long as the model takes to write a refusal. A source that is a chunk as
indexed need not be embedded at all: its vector, from the same model and function, is in the
index (:meth:`CachedEmbed.remember`, ``Resources.embed_for_sources``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

EmbedFn = Callable[[Sequence[str]], np.ndarray]

DEFAULT_MAX_TEXTS = 4096
"""~6 MB of 384-dimensional float32 vectors: every chunk of a few long documents."""


class CachedEmbed:
    """``embed(texts)`` with a least-recently-used memory of up to ``max_texts`` vectors.

    Texts not in memory are embedded together in one call to the wrapped function, in their
    first-seen order; the rows come back in the order asked. Embedding models are
    deterministic, so a remembered vector is the one a new call would give (up to float
    rounding from batching).
    """

    def __init__(self, embed: EmbedFn, max_texts: int = DEFAULT_MAX_TEXTS) -> None:
        if max_texts < 1:
            raise ValueError(f"max_texts must be at least 1, got {max_texts}")
        self._embed = embed
        self._max_texts = max_texts
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.asarray(self._embed([]), dtype=np.float32)
        with self._lock:
            found = {text: self._vectors[text] for text in texts if text in self._vectors}
            for text in found:
                self._vectors.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            fresh = np.asarray(self._embed(missing), dtype=np.float32)
            if fresh.ndim != 2 or fresh.shape[0] != len(missing):
                raise ValueError(
                    f"embed returned shape {fresh.shape} for {len(missing)} texts; "
                    "expected one row per text"
                )
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    found[text] = vector
                    self._vectors[text] = vector
                    self._vectors.move_to_end(text)
                self._forget_beyond_capacity()
        return np.stack([found[text] for text in texts])

    def remember(self, text: str, vector: np.ndarray) -> None:
        """Keep ``vector`` as ``text``'s embedding (one the wrapped function gave before, such
        as a chunk's vector stored in the index), unless a vector is already remembered."""
        with self._lock:
            if text in self._vectors:
                self._vectors.move_to_end(text)
                return
            # A copy: a row of the index's matrix would keep the whole matrix alive.
            self._vectors[text] = np.array(vector, dtype=np.float32)
            self._forget_beyond_capacity()

    def _forget_beyond_capacity(self) -> None:
        """Drop the least recently used vectors over ``max_texts`` (call under the lock)."""
        while len(self._vectors) > self._max_texts:
            self._vectors.popitem(last=False)

    def __len__(self) -> int:
        return len(self._vectors)

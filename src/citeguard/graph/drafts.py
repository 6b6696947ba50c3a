"""Where unvalidated candidates wait for validation: outside the graph state.

Everything in graph state can surface in some stream mode ("updates", "values", "debug",
checkpoints). A candidate answer must leave no trace anywhere until it has passed
validation, so its text (and the validator's sentence-level feedback, which quotes it) is
kept here, in process memory, and state carries only an opaque reference.

Each ``Resources`` owns one store (``Resources.drafts``), so two graphs built with different
resources never see each other's drafts; graphs built with the same resources share it,
which is harmless since references are random.

The store is bounded: the oldest drafts are dropped past ``max_drafts``, so abandoned runs
cannot grow it without limit. A run resumed in another process (or with other resources)
finds its draft missing; the validate node then treats the candidate as empty, which fails
validation and leads to a regeneration or a refusal, never to an unchecked answer.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from typing import Any


class DraftStore:
    """A thread-safe, bounded map from reference to draft data."""

    def __init__(self, max_drafts: int = 1024) -> None:
        self._items: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_drafts

    def put(self, **data: Any) -> str:
        """Keep ``data`` under a new random reference and return the reference."""
        ref = uuid.uuid4().hex
        with self._lock:
            self._items[ref] = dict(data)
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return ref

    def update(self, ref: str, **data: Any) -> None:
        """Add ``data`` to the draft under ``ref`` (nothing when it is gone)."""
        with self._lock:
            if ref in self._items:
                self._items[ref].update(data)

    def get(self, ref: str | None) -> dict[str, Any]:
        """A copy of the draft under ``ref``; empty when there is none (or it was dropped)."""
        if not ref:
            return {}
        with self._lock:
            return dict(self._items.get(ref, {}))

    def discard(self, ref: str | None) -> None:
        """Forget the draft under ``ref``, if any."""
        if ref:
            with self._lock:
                self._items.pop(ref, None)

    def __len__(self) -> int:
        return len(self._items)

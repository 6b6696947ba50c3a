"""KV-cache snapshots of recent prompts, so a prompt prefix read once is not read again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeguard.llm import llama_internals

MAX_SNAPSHOTS = 16
"""Most snapshots kept: a question's generation prompt plus the judge prompts of two drafts
of up to four sentences each, with room to spare."""


def shared_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """How many leading tokens two token sequences share."""
    import numpy as np

    size = min(len(first), len(second))
    if size == 0:
        return 0
    differ = np.flatnonzero(np.asarray(first[:size]) != np.asarray(second[:size]))
    return int(differ[0]) if differ.size else size


class KVSnapshots:
    """KV-cache snapshots of recent contexts, to restore the one sharing most of a prompt.

    A generation prompt starts with the fixed instructions and worked examples; a judge
    prompt starts with its own instructions and the evidence. When calls alternate, the
    live KV cache holds the other kind's prefix, and a snapshot brings the right one back
    in a memory copy instead of a re-evaluation. llama-cpp-python's ``LlamaRAMCache``
    does the same but each of its entries also copies a logits table of n_batch x n_vocab
    floats (311 MB here), which costs about a second per save and two per load; a snapshot
    holds only the sequence's KV state.
    """

    def __init__(self, capacity_bytes: int, max_snapshots: int = MAX_SNAPSHOTS) -> None:
        self.capacity_bytes = capacity_bytes
        self.max_snapshots = max_snapshots
        self._items: list[tuple[list[int], Any, int]] = []  # (tokens, buffer, size), newest last

    def __len__(self) -> int:
        return len(self._items)

    def save(self, llama: Any) -> None:
        """Snapshot the live context (replacing snapshots that are a prefix of it)."""
        tokens = llama_internals.context_tokens(llama)
        if not tokens:
            return
        state = llama_internals.save_sequence_state(llama, self.capacity_bytes)
        if state is None:
            return
        buffer, written = state
        self._items = [
            item for item in self._items if shared_prefix_length(item[0], tokens) < len(item[0])
        ]
        self._items.append((tokens, buffer, written))
        while self._items and (
            len(self._items) > self.max_snapshots
            or sum(item[2] for item in self._items) > self.capacity_bytes
        ):
            self._items.pop(0)

    def restore(self, llama: Any, prompt: Sequence[int]) -> int:
        """Load the snapshot sharing the longest prefix with ``prompt`` when it shares more
        than the live context does; returns the prefix length now in the context."""
        live = shared_prefix_length(llama_internals.context_tokens(llama), prompt)
        best, best_shared = None, live
        for item in self._items:
            shared = shared_prefix_length(item[0], prompt)
            if shared > best_shared:
                best, best_shared = item, shared
        if best is None:
            return live
        tokens, buffer, size = best
        if not llama_internals.load_sequence_state(llama, buffer, size):
            llama.reset()  # a failed load leaves the sequence undefined: start over
            return 0
        llama_internals.set_context_tokens(llama, tokens)
        # The snapshot's place in the order is refreshed: it was useful.
        self._items.remove(best)
        self._items.append(best)
        return best_shared

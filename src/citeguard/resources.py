"""Heavy objects the nodes use (index, embedder, chat model, judge), built once per process.

Nodes never build models themselves: they ask a ``Resources``. The default builds the real
components lazily on first use and keeps them for the life of the process (one model load
per CLI run or server process). Tests pass a ``Resources`` holding scripted fakes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.context import Context

JudgeFn = Callable[[str, str], float]


class Resources:
    """Lazily built, process-wide components, optionally replaced by injected ones.

    Args:
        chat_model: a LangChain chat model to use for every ``model`` setting (tests).
        searcher: an object with ``search(query, **settings) -> list[SearchHit]`` (tests).
        embed: a function mapping texts to normalized vectors (tests).
        judge: P(supported | claim, evidence) function for the "judge" level (tests).
    """

    def __init__(
        self,
        chat_model: Any | None = None,
        searcher: Any | None = None,
        embed: Callable[[Sequence[str]], np.ndarray] | None = None,
        judge: JudgeFn | None = None,
    ) -> None:
        self._chat_model = chat_model
        self._searcher = searcher
        self._embed = embed
        self._judge = judge
        self._lock = threading.Lock()
        self._searchers: dict[tuple[str, str], tuple[int, Any]] = {}
        self._chat_models: dict[str, Any] = {}

    # -- retrieval -------------------------------------------------------------------
    def searcher(self, ctx: Context) -> Any:
        """The hybrid searcher over ``ctx.index_dir``, reloaded when the index changes on disk."""
        if self._searcher is not None:
            return self._searcher
        from citeguard.index.store import resolve_index_dir
        from citeguard.indexing import load_index

        index_dir = resolve_index_dir(ctx.index_dir)
        key = (str(index_dir), ctx.embedding_model or "")
        stamp = _index_stamp(index_dir)
        with self._lock:
            cached = self._searchers.get(key)
            if cached is None or cached[0] != stamp:
                self._searchers[key] = (stamp, load_index(index_dir, ctx.embedding_model))
            return self._searchers[key][1]

    # -- embeddings ------------------------------------------------------------------
    def embed(self, ctx: Context) -> Callable[[Sequence[str]], np.ndarray]:
        if self._embed is not None:
            return self._embed
        # The index's own query embedder: one model in memory, and the same vector space.
        return self.searcher(ctx).embedder.embed_documents  # type: ignore[no-any-return]

    # -- generation ------------------------------------------------------------------
    def generator(self, ctx: Context, n_sources: int) -> Any:
        """The chat model for one generation over ``n_sources`` numbered sources.

        The local model is constrained per question by a grammar that admits only the exact
        refusal or sentences ending in markers [1]..[n_sources]. Tagged ``nostream`` so raw
        tokens never reach a client in any stream mode: only validated text is streamed.
        """
        model: Any
        if self._chat_model is not None:
            model = self._chat_model
        else:
            model = self._real_chat_model(ctx.model)
            if _is_local(ctx.model):
                from citeguard.grammar import citation_answer_grammar

                model = model.bind(grammar=citation_answer_grammar(n_sources))
        return model.with_config(tags=["nostream", "citeguard:generator"])

    def _real_chat_model(self, spec: str) -> Any:
        with self._lock:
            if spec not in self._chat_models:
                from citeguard.llm import build_chat_model

                self._chat_models[spec] = build_chat_model(spec)
            return self._chat_models[spec]

    # -- judge -----------------------------------------------------------------------
    def judge(self, ctx: Context) -> JudgeFn | None:
        if ctx.validation_level != "judge":
            return None
        if self._judge is not None:
            return self._judge
        from citeguard.llm import support_probability

        return support_probability


def _is_local(spec: str) -> bool:
    return spec == "local" or spec.startswith("local:")


def _index_stamp(index_dir: Path) -> int:
    """Changes whenever an ingest switches the index to a new generation."""
    pointer = index_dir / "CURRENT"
    try:
        return pointer.stat().st_mtime_ns
    except OSError:
        return -1


_default: Resources | None = None


def default_resources() -> Resources:
    """The process-wide real resources (one model load per process)."""
    global _default
    if _default is None:
        _default = Resources()
    return _default

"""A SQLite cache of local-model generations, for evaluations that repeat calls.

This is the only module that imports ``langchain_community``, so that replacing it (its
maintainers are winding it down) touches one file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeguard.atomic_files import exclusive_lock

_current: Any = None
"""The cache local chat models are built with (None: no cache); set by
:func:`generation_cache`."""


def current_generation_cache() -> Any:
    """The cache of the innermost :func:`generation_cache` block, or None outside any."""
    return _current


@contextlib.contextmanager
def generation_cache(path: str | Path) -> Iterator[None]:
    """Within the block, reuse identical local-model calls (same prompt, grammar) from SQLite.

    For evaluation: decoding is greedy, so a repeated call returns what the model would say
    again, and ablation variants that share a first generation (validation levels, say)
    compute it once. Applies to local chat models built inside the block; never used on the
    answer path, and never for other (or fake) chat models.
    """
    global _current
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    previous = _current
    _current = sqlite_generation_cache(path)
    try:
        yield
    finally:
        _current = previous


def sqlite_generation_cache(path: str | Path) -> Any:
    """LangChain's ``SQLiteCache`` at ``path``, reading entries back as core LangChain objects.

    The stock lookup deserializes with langchain-core's default set of allowed classes, which
    is about to change, and warns on every cache hit that it will. The entries are chat
    generations written by this package, so the lookup names "core" (the classes they are
    made of) explicitly: no warning, and nothing outside langchain-core is ever built.
    """
    from langchain_community.cache import SQLiteCache
    from langchain_core.load import loads
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    class CoreObjectsSQLiteCache(SQLiteCache):
        def lookup(self, prompt: str, llm_string: str) -> list[Any] | None:
            table = self.cache_schema
            query: Any = (
                select(table.response)
                .where(table.prompt == prompt)
                .where(table.llm == llm_string)
                .order_by(table.idx)
            )
            with Session(self.engine) as session:
                rows = session.execute(query).fetchall()
            return [loads(row[0], allowed_objects="core") for row in rows] or None

    # Creating the cache creates its table when missing; two evaluations starting at once
    # on a new cache folder would both try, and the second would fail with "table
    # full_llm_cache already exists". A lock on a sibling file serializes the creation.
    with exclusive_lock(Path(str(path) + ".lock")):
        return CoreObjectsSQLiteCache(database_path=str(path))

"""The evidence scorer's passage vectors, kept on disk beside the index they were read from.

The bi-encoder scorer (``learned/bi_encoder.py``) embeds every passage of a question's
sources. In one process its in-memory cache keeps them for the next question; a new
process (each ``citeguard ask``) embedded them all again: ~0.7 s of every question on 2
cores, about 29 passages (``docs/results.md``, "Where a question's time goes"). A passage's
vector depends only on its text and the scorer's weights, so it is kept here the first time
it is embedded and read back afterwards, by any process.

The file lives in the index generation whose chunks the passages came from
(``gen-000007/scorer_passages-<weights sha256, 12 digits>.sqlite``): a new ingest starts a
new generation, and the old file is deleted with the old generation, so it never outgrows
the index, and vectors of another scorer are never read (another name). Nothing is
computed at ingest, which costs ingest nothing; the first question about a chunk fills it.

It is a cache: when the file cannot be opened, read or written (a read-only index folder,
a generation deleted by a concurrent ingest, a damaged file), one warning says so and the
scorer embeds the passages itself, as before. Vectors are stored as the scorer computed
them (float32), so a score read from them is the score the scorer gives.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

FILE_PREFIX = "scorer_passages-"
"""Name of the store in a generation folder: this, the scorer's name (its weights' sha256,
12 hex digits), then ``.sqlite``."""
SCORER_NAME = re.compile(r"[0-9A-Za-z_-]{1,64}")
BUSY_TIMEOUT_S = 5.0
"""How long a process waits for another's write before it gives up on the store."""
LOOKUP_BATCH = 500
"""Keys per SELECT (SQLite caps the number of bound parameters)."""


def store_file(generation: Path, scorer: str) -> Path:
    """The store of the scorer named ``scorer`` (its weights' sha256, 12 hex digits, in
    the graph) in an index generation folder.

    Raises:
        ValueError: the name is not letters, digits, "-" and "_" (it names a file).
    """
    if not SCORER_NAME.fullmatch(scorer):
        raise ValueError(f"a scorer's store needs a plain name, not {scorer!r}")
    return generation / f"{FILE_PREFIX}{scorer}.sqlite"


def text_key(text: str) -> bytes:
    """A passage's key: the sha256 of its UTF-8 text (the text itself is the index's)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


class StoredPassageVectors:
    """A SQLite file of passage vectors of one dimension, by :func:`text_key` (thread-safe).

    Opened on first use. Any failure disables the store for the rest of the process, after
    one warning: :meth:`find` then finds nothing and :meth:`keep` keeps nothing.
    """

    def __init__(self, path: Path, dimension: int) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be at least 1, got {dimension}")
        self.path = path
        self.dimension = dimension
        self._connection: sqlite3.Connection | None = None
        self._failed = False
        self._lock = threading.Lock()
        self._seen: set[bytes] = set()
        """Keys this process found in the file or kept there: never written again."""

    @property
    def usable(self) -> bool:
        """False once the store failed (it is then left alone)."""
        return not self._failed

    def find(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``texts`` that have one (float32, one row each)."""
        if not texts:
            return {}
        keys = {text_key(text): text for text in dict.fromkeys(texts)}
        found: dict[str, np.ndarray] = {}
        with self._lock:
            connection = self._open()
            if connection is None:
                return {}
            wanted = list(keys)
            try:
                for start in range(0, len(wanted), LOOKUP_BATCH):
                    batch = wanted[start : start + LOOKUP_BATCH]
                    marks = ",".join("?" * len(batch))
                    rows = connection.execute(
                        f"SELECT key, vector FROM passages WHERE key IN ({marks})", batch
                    ).fetchall()
                    for key, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape != (self.dimension,):
                            raise sqlite3.DatabaseError(
                                f"a stored vector has {vector.size} values, not {self.dimension}"
                            )
                        found[keys[bytes(key)]] = vector.copy()
                        self._seen.add(bytes(key))
            except sqlite3.Error as exc:
                self._fail("could not be read", exc)
                return {}
        return found

    def keep(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Store the vectors of texts not stored yet (a text already stored keeps its own;
        one this process found or kept before is not written again)."""
        rows = []
        for text, vector in vectors.items():
            values = np.asarray(vector, dtype=np.float32)
            if values.shape != (self.dimension,):
                raise ValueError(
                    f"vector of shape {values.shape} for a store of dimension {self.dimension}"
                )
            key = text_key(text)
            if key not in self._seen:
                rows.append((key, values.tobytes()))
        if not rows:
            return
        with self._lock:
            connection = self._open()
            if connection is None:
                return
            try:
                with connection:
                    connection.executemany(
                        "INSERT OR IGNORE INTO passages (key, vector) VALUES (?, ?)", rows
                    )
            except sqlite3.Error as exc:
                self._fail("could not be written", exc)
                return
            self._seen.update(key for key, _ in rows)

    def close(self) -> None:
        """Close the file (the store opens it again on next use, unless it failed)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _open(self) -> sqlite3.Connection | None:
        """The open connection (call under the lock); None when the store failed."""
        if self._failed:
            return None
        if self._connection is not None:
            return self._connection
        if not self.path.parent.is_dir():
            self._fail("has no folder", FileNotFoundError(str(self.path.parent)))
            return None
        try:
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            with connection:
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS passages "
                    "(key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID"
                )
        except sqlite3.Error as exc:
            self._fail("could not be opened", exc)
            return None
        self._connection = connection
        return connection

    def _fail(self, what: str, exc: BaseException) -> None:
        """Give up on the store for this process, with one warning (call under the lock)."""
        self._failed = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        logger.warning(
            "the evidence scorer's stored passage vectors at %s %s (%s); passages are "
            "embedded as each question needs them",
            self.path,
            what,
            exc,
        )

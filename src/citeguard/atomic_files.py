"""Files that appear whole or not at all (written beside their target, then renamed), and
the lock that serializes a read-modify-write of shared files across processes."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def replaced_on_success(target: Path, suffix: str = ".partial") -> Iterator[Path]:
    """A fresh temporary path in ``target``'s folder, renamed to ``target`` when the block
    finishes and deleted when it raises, so a crash never leaves a partial ``target``.

    The temporary name is unique, so two processes writing the same target do not mix
    their bytes (the last rename wins). The file is made readable by all (mkstemp makes
    0600), since caches may be shared between users.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=target.name + ".", suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON to ``path`` through :func:`replaced_on_success`."""
    with replaced_on_success(path, suffix=".tmp") as tmp:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created, with its folder) for the block,
    across processes: the others wait at the same call until the block ends."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

"""Files that appear whole or not at all: written beside their target, then renamed."""

from __future__ import annotations

import contextlib
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

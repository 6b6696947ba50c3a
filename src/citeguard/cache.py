"""Where CiteGuard keeps files it builds once per machine: assembled model weights, probes."""

from __future__ import annotations

from pathlib import Path

from citeguard import environment


def cache_dir() -> Path:
    """Folder for assembled model files (``CITEGUARD_CACHE`` or ~/.cache/citeguard)."""
    path = environment.cache_root()
    path.mkdir(parents=True, exist_ok=True)
    return path

"""Where CiteGuard keeps files it builds once per machine: assembled model weights, probes."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VAR = "CITEGUARD_CACHE"


def cache_dir() -> Path:
    """Folder for assembled model files (``CITEGUARD_CACHE`` or ~/.cache/citeguard)."""
    root = os.environ.get(CACHE_ENV_VAR) or str(Path.home() / ".cache" / "citeguard")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path

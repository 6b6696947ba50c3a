"""How the benches write their results: the whole result as JSON, its summary on stdout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_result(out: Path, result: dict[str, Any]) -> None:
    """Write ``result`` to ``out`` (its folder made) and print it without its ``rows``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=2))

"""CiteGuard: validated, citation-grounded question answering over documents."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "answer"]


def answer(question: str, index: str | None = None, **settings: Any) -> dict[str, Any]:
    """Answer ``question`` from the index at ``index`` and return the graph's output.

    Imported lazily so that ``import citeguard`` stays cheap (no LangGraph, no models).
    """
    from citeguard.api import answer as _answer

    return _answer(question, index=index, **settings)

"""Pure edge functions. Their Literal return types are what the drawn graph shows."""

from __future__ import annotations

from typing import Literal

from citeguard.graph.state import State


def after_sufficiency(state: State) -> Literal["generate", "refuse"]:
    """Insufficient evidence goes straight to the refusal; no model is called."""
    return "generate" if state.get("sufficiency", {}).get("sufficient") else "refuse"


def after_validate(state: State) -> Literal["regenerate", "refuse", "__end__"]:
    """Accept, retry once more, or refuse (Algorithm 1, steps 6-7).

    A passing candidate has already been written to the output keys by the validate node,
    so accepting is simply ending. A clean refusal by the model (no strong evidence it
    ignored) also ends in the refuse node, with reason "model_refused".
    """
    verdict = state.get("last_validation", {})
    if verdict.get("passed") and not verdict.get("is_refusal"):
        return "__end__"  # langgraph.graph.END, spelled out for the Literal type
    if verdict.get("is_refusal") and not verdict.get("triggers"):
        return "refuse"
    if state.get("regenerations", 0) < state.get("max_regenerations", 1):
        return "regenerate"
    return "refuse"

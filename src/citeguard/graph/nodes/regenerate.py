"""regenerate: one more candidate under a stricter prompt that names each failure."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import draft_candidate, emit
from citeguard.graph.resources import Resources
from citeguard.graph.state import State


def make_regenerate(resources: Resources) -> Any:
    """Build the regenerate node: the rejected draft (text and verdict, kept in
    ``resources.drafts``) is revised into a new one; state counts the regeneration."""

    def regenerate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        triggers = list(state.get("last_validation", {}).get("triggers", []))
        emit(runtime, {"event": "regenerating", "triggers": triggers})
        rejected = resources.drafts.get(state.get("candidate_ref"))
        update = draft_candidate(state, context_of(runtime), resources, rejected=rejected)
        update["regenerations"] = state.get("regenerations", 0) + 1
        return update

    return regenerate

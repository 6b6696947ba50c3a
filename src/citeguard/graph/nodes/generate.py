"""generate: the first candidate (internal until validated), by the run's strategy."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import draft_candidate, emit
from citeguard.graph.resources import Resources
from citeguard.graph.state import State


def make_generate(resources: Resources) -> Any:
    """Build the generate node: the candidate goes to ``resources.drafts``, state gets a
    reference to it."""

    def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        emit(runtime, {"event": "generating", "sources": len(state.get("evidence", []))})
        return draft_candidate(state, context_of(runtime), resources)

    return generate

"""refuse: the standardized refusal, with why."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.generate.prompts import REFUSAL
from citeguard.graph.context import Context
from citeguard.graph.nodes.common import MODEL_ERROR, emit, public_validation
from citeguard.graph.resources import Resources
from citeguard.graph.state import RefusalReason, State


def refusal_reason(state: State) -> RefusalReason:
    """Why the run ends in a refusal: no evidence, the model's own refusal, the model's
    failure (it raised instead of writing), or failed checks."""
    if not state.get("sufficiency", {}).get("sufficient", False):
        return "insufficient_evidence"
    if MODEL_ERROR in state.get("last_validation", {}).get("triggers", []):
        return "model_failed"
    if state.get("last_validation", {}).get("is_refusal"):
        return "model_refused"
    return "validation_failed"


def make_refuse(resources: Resources) -> Any:
    """Build the refuse node: the last draft is dropped from ``resources.drafts``, and only
    its verdicts (never its words) reach the client."""

    def refuse(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        reason = refusal_reason(state)
        resources.drafts.discard(state.get("candidate_ref"))
        emit(runtime, {"event": "refused", "reason": reason})
        return {
            "answer": REFUSAL,
            "status": "refused",
            "refusal_reason": reason,
            "citations": [],
            "validation": public_validation(state, delivered=False),
        }

    return refuse

"""refuse: the standardized refusal, with why."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context
from citeguard.graph.drafts import drafts
from citeguard.graph.evidence import public_validation
from citeguard.generate.prompts import REFUSAL
from citeguard.graph.state import RefusalReason, State


def refusal_reason(state: State) -> RefusalReason:
    if not state.get("sufficiency", {}).get("sufficient", False):
        return "insufficient_evidence"
    if state.get("last_validation", {}).get("is_refusal"):
        return "model_refused"
    return "validation_failed"


def refuse(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    reason = refusal_reason(state)
    drafts.discard(state.get("candidate_ref"))
    if runtime.stream_writer is not None:
        runtime.stream_writer({"event": "refused", "reason": reason})
    return {
        "answer": REFUSAL,
        "status": "refused",
        "refusal_reason": reason,
        "citations": [],
        "validation": public_validation(state, delivered=False),
    }

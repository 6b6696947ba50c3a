"""regenerate: one more candidate under a stricter prompt that names each failure."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.context import Context, context_of
from citeguard.drafts import drafts
from citeguard.nodes.generate import add_timing, message_text
from citeguard.prompts import regeneration_messages
from citeguard.resources import Resources
from citeguard.state import State


def make_regenerate(resources: Resources) -> Any:
    def regenerate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        evidence = state.get("evidence", [])
        verdict = state.get("last_validation", {})
        draft = drafts.get(state.get("candidate_ref"))
        feedback = draft.get("feedback") or "- The answer did not pass validation."
        if runtime.stream_writer is not None:
            runtime.stream_writer(
                {"event": "regenerating", "triggers": list(verdict.get("triggers", []))}
            )
        started = time.perf_counter()
        model = resources.generator(ctx, len(evidence))
        messages = regeneration_messages(
            state["question"], evidence, draft.get("candidate", ""), feedback
        )
        reply = model.invoke(messages)
        drafts.discard(state.get("candidate_ref"))
        return {
            "candidate_ref": drafts.put(candidate=message_text(reply).strip()),
            "attempts": state.get("attempts", 0) + 1,
            "regenerations": state.get("regenerations", 0) + 1,
            "timings": add_timing(state, "generation", time.perf_counter() - started),
        }

    return regenerate

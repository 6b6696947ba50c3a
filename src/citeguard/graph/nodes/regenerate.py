"""regenerate: one more candidate under a stricter prompt that names each failure."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.drafts import drafts
from citeguard.generate.strategies import generate_candidate
from citeguard.graph.nodes.generate import add_timing, sources_for_model
from citeguard.graph.resources import Resources
from citeguard.graph.state import State


def make_regenerate(resources: Resources) -> Any:
    def regenerate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        evidence = state.get("evidence", [])
        verdict = state.get("last_validation", {})
        draft = drafts.get(state.get("candidate_ref"))
        feedback = (draft.get("verdict") or {}).get("feedback") or (
            "- The answer did not pass validation."
        )
        if runtime.stream_writer is not None:
            runtime.stream_writer(
                {"event": "regenerating", "triggers": list(verdict.get("triggers", []))}
            )
        started = time.perf_counter()
        generated = generate_candidate(
            ctx.generation_strategy,
            state["question"],
            sources_for_model(state["question"], evidence, ctx, resources),
            resources.invoker(ctx),
            previous=draft.get("candidate", ""),
            feedback=feedback,
        )
        drafts.discard(state.get("candidate_ref"))
        new_draft: dict[str, Any] = {"candidate": generated.candidate}
        if generated.candidate.strip() == str(draft.get("candidate", "")).strip():
            # The model ignored the feedback and wrote the rejected text again (greedy
            # decoding often does: 14 of 21 regenerations in one CUAD run). validate reuses
            # the rejection when deterministic checks made it, instead of checking again.
            new_draft["rejected_verdict"] = draft.get("verdict")
        return {
            "candidate_ref": drafts.put(**new_draft),
            "selected_ids": generated.selected_ids,
            "attempts": state.get("attempts", 0) + 1,
            "regenerations": state.get("regenerations", 0) + 1,
            "timings": add_timing(state, "generation", time.perf_counter() - started),
        }

    return regenerate

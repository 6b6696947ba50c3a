"""generate: the citation-constrained first candidate (internal until validated)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.context import Context, context_of
from citeguard.drafts import drafts
from citeguard.prompts import answer_messages
from citeguard.resources import Resources
from citeguard.state import State


def message_text(message: Any) -> str:
    """The plain text of a chat model's reply (content may be a string or a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)
    return str(content)


def add_timing(state: State, stage: str, seconds: float) -> dict[str, float]:
    timings = dict(state.get("timings", {}))
    timings[stage] = timings.get(stage, 0.0) + seconds
    return timings


def make_generate(resources: Resources) -> Any:
    def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        evidence = state.get("evidence", [])
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "generating", "sources": len(evidence)})
        started = time.perf_counter()
        model = resources.generator(ctx, len(evidence))
        reply = model.invoke(answer_messages(state["question"], evidence))
        drafts.discard(state.get("candidate_ref"))
        return {
            "candidate_ref": drafts.put(candidate=message_text(reply).strip()),
            "attempts": state.get("attempts", 0) + 1,
            "timings": add_timing(state, "generation", time.perf_counter() - started),
        }

    return generate

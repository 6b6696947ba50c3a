"""generate: the first candidate (internal until validated), by the run's strategy."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.drafts import drafts
from citeguard.generate.strategies import generate_candidate
from citeguard.graph.resources import Resources
from citeguard.graph.state import State
from citeguard.generate.trimming import trim_sources


def add_timing(state: State, stage: str, seconds: float) -> dict[str, float]:
    timings = dict(state.get("timings", {}))
    timings[stage] = timings.get(stage, 0.0) + seconds
    return timings


def sources_for_model(
    question: str, evidence: list[dict[str, Any]], ctx: Context, resources: Resources
) -> list[dict[str, Any]]:
    """The evidence as the model sees it: trimmed to ``ctx.source_words`` when set.

    Only the free strategy trims: the selection strategies number the sources' sentences
    by their offsets in the document, which trimmed text would no longer match.
    """
    if ctx.source_words <= 0 or ctx.generation_strategy != "free":
        return evidence
    return trim_sources(
        evidence,
        question,
        resources.embed(ctx),
        ctx.source_words,
        resources.stored_sentence_vectors(ctx),
    )


def make_generate(resources: Resources) -> Any:
    def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        evidence = state.get("evidence", [])
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "generating", "sources": len(evidence)})
        started = time.perf_counter()
        generated = generate_candidate(
            ctx.generation_strategy,
            state["question"],
            sources_for_model(state["question"], evidence, ctx, resources),
            resources.invoker(ctx),
        )
        drafts.discard(state.get("candidate_ref"))
        return {
            "candidate_ref": drafts.put(candidate=generated.candidate),
            "selected_ids": generated.selected_ids,
            "attempts": state.get("attempts", 0) + 1,
            "timings": add_timing(state, "generation", time.perf_counter() - started),
        }

    return generate

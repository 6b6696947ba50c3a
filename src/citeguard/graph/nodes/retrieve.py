"""retrieve: hybrid search; the evidence set goes into state."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.drafts import drafts
from citeguard.graph.evidence import hit_to_evidence
from citeguard.index.opening import asks_about_front_matter, with_opening
from citeguard.graph.resources import Resources
from citeguard.graph.state import State

UNVALIDATED_REJECTED = 'validation_level="off" is only available inside the evaluation harness'


def make_retrieve(resources: Resources, allow_unvalidated: bool = False) -> Any:
    """Build the retrieve node (``allow_unvalidated``: see ``nodes.validate``)."""

    def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        if ctx.validation_level == "off" and not allow_unvalidated:
            # Checked here too, so the run fails before any search or model call.
            raise ValueError(UNVALIDATED_REJECTED)
        started = time.perf_counter()
        searcher = resources.searcher(ctx)
        hits = searcher.search(
            state["question"],
            k=ctx.top_k,
            mode=ctx.retrieval_mode,
            alpha=ctx.alpha,
            docs=state.get("docs") or None,
            fusion=ctx.fusion,
            rerank=ctx.rerank,
        )
        sources = hits[: ctx.context_k]
        if ctx.opening_source and hits and asks_about_front_matter(state["question"]):
            # The opening of the best hit's document: the document the question is about
            # as far as retrieval can tell (the only one when the question is scoped to one).
            opening = searcher.opening_hit(hits[0].chunk.doc, state["question"], ctx.retrieval_mode)
            sources = with_opening(sources, opening, ctx.context_k)
        retrieved = [hit_to_evidence(hit) for hit in hits]
        evidence = [hit_to_evidence(hit) for hit in sources]
        elapsed = time.perf_counter() - started
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "retrieved", "sources": len(evidence)})
        # On a thread (checkpointer), state persists between questions: clear what belongs
        # to the previous question, the document scope included (it is per-question input).
        drafts.discard(state.get("candidate_ref"))
        return {
            "docs": None,
            "sufficiency": {},
            "candidate_ref": "",
            "selected_ids": None,
            "last_validation": {},
            "retrieved": retrieved,
            "evidence": evidence,
            "attempts": 0,
            "regenerations": 0,
            "max_regenerations": ctx.max_regenerations,
            "timings": {"retrieval": elapsed},
        }

    return retrieve

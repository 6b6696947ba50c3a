"""retrieve: hybrid search; the evidence set goes into state."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.context import Context, context_of
from citeguard.drafts import drafts
from citeguard.evidence import hit_to_evidence
from citeguard.resources import Resources
from citeguard.state import State

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
        retrieved = [hit_to_evidence(hit) for hit in hits]
        evidence = retrieved[: ctx.context_k]
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

"""retrieve: hybrid search; the evidence set goes into state."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.acceptance import VALIDATED, Acceptance
from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import emit, hit_to_evidence
from citeguard.graph.passage_scores import AnswerScores, answering_passage, drafting_threshold
from citeguard.graph.resources import Resources
from citeguard.graph.sources import retrieve_sources
from citeguard.graph.state import State
from citeguard.text.questions import checked_question


def make_retrieve(resources: Resources, acceptance: Acceptance = VALIDATED) -> Any:
    """Build the retrieve node, the run's first step.

    Args:
        resources: where the searcher comes from; its draft store loses the previous
            question's draft.
        acceptance: asked for the run's validation settings before anything else, so that
            settings it rejects fail the run before any search or model call.
    """

    def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        acceptance.settings(ctx)  # a level it rejects fails here, before any search or model
        checked_question(state["question"])  # so does a question that cannot be asked
        started = time.perf_counter()
        searcher = resources.searcher(ctx)
        scorer = resources.evidence_scorer(ctx) if ctx.uses_evidence_scorer() else None
        scored = AnswerScores(scorer, state["question"], ctx.scorer_passages_overlap)
        hits, sources = retrieve_sources(
            searcher, state["question"], ctx, state.get("docs") or None, scored
        )
        scored.score(sources)  # (reranked hits were scored already)
        if ctx.scorer_answer:
            scored.choose_quoted_passage(sources)
        retrieved = [scored.annotated(hit_to_evidence(hit)) for hit in hits]
        evidence = [scored.annotated(hit_to_evidence(hit)) for hit in sources]
        answering = (
            answering_passage(evidence, drafting_threshold(scorer, ctx.judges_passage_quote()))
            if scorer is not None and ctx.scorer_answer
            else None
        )
        elapsed = time.perf_counter() - started
        emit(runtime, {"event": "retrieved", "sources": len(evidence)})
        # On a thread (checkpointer), state persists between questions: clear what belongs
        # to the previous question, the document scope included (it is per-question input).
        resources.drafts.discard(state.get("candidate_ref"))
        return {
            "docs": None,
            "sufficiency": {},
            "answering_passage": answering,
            "quote_before_model": False,
            "candidate_is_quote": False,
            "fallback_quote_pending": False,
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

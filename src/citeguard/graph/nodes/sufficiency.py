"""sufficiency_check: can this evidence support an answer? Decided before any model call."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import emit
from citeguard.graph.resources import Resources
from citeguard.graph.state import State
from citeguard.learned.evidence import PairScorer
from citeguard.validate.sufficiency import assess_sufficiency


def make_sufficiency_check(resources: Resources) -> Any:
    """Build the sufficiency node (``resources`` give the evidence scorer's floor)."""

    def sufficiency_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Measure the evidence against the run's floors; insufficient evidence is refused
        without asking the model (routing reads the verdict)."""
        ctx = context_of(runtime)
        scorer = resources.evidence_scorer(ctx) if ctx.scorer_sufficiency else None
        verdict = assess_sufficiency(
            state["question"],
            state.get("evidence", []),
            min_dense_score=ctx.min_dense_score,
            min_question_coverage=ctx.min_question_coverage,
            retrieval_mode=ctx.retrieval_mode,
            min_answer_score=scorer.recall_threshold if scorer is not None else None,
        )
        if not verdict["sufficient"]:
            emit(runtime, {"event": "insufficient_evidence", "reason": verdict["reason"]})
        return {
            "sufficiency": verdict,
            "quote_before_model": bool(verdict["sufficient"])
            and quotes_before_model(ctx, resources, state.get("answering_passage")),
        }

    return sufficiency_check


def quotes_before_model(ctx: Context, resources: Resources, passage: dict[str, Any] | None) -> bool:
    """Whether the scorer's answering passage is quoted before the model is asked
    (``passage_first``): its score reaches the scorer's passage-first threshold, which
    calibration fitted with the local model's relevance check on the quote, so only a
    run that checks quotes that way uses it."""
    if not (passage and ctx.passage_first and ctx.scorer_answer and ctx.judges_passage_quote()):
        return False
    scorer: PairScorer | None = resources.evidence_scorer(ctx)
    first = scorer.passage_first_threshold if scorer is not None else None
    return first is not None and float(passage.get("score", 0.0)) >= first

"""sufficiency_check: can this evidence support an answer? Decided before any model call."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import emit
from citeguard.graph.resources import Resources
from citeguard.graph.state import State
from citeguard.validate.sufficiency import assess_sufficiency


def make_sufficiency_check(resources: Resources) -> Any:
    """Build the sufficiency node (``resources`` give the evidence scorer's floor)."""

    def sufficiency_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Measure the evidence against the run's floors; insufficient evidence is refused
        without asking the model (routing reads the verdict)."""
        ctx = context_of(runtime)
        scorer = resources.evidence_scorer() if ctx.scorer_sufficiency else None
        verdict = assess_sufficiency(
            state["question"],
            state.get("evidence", []),
            min_dense_score=ctx.min_dense_score,
            min_question_coverage=ctx.min_question_coverage,
            retrieval_mode=ctx.retrieval_mode,
            min_answer_score=scorer.recall_threshold if scorer is not None else None,
            confident_answer_score=scorer.threshold if scorer is not None else None,
        )
        if not verdict["sufficient"]:
            emit(runtime, {"event": "insufficient_evidence", "reason": verdict["reason"]})
        return {"sufficiency": verdict}

    return sufficiency_check

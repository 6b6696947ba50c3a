"""validate: sentence-level grounding of the candidate against the sources it cites.

A passing candidate is written to the output keys here and streamed sentence by sentence;
anything else leaves only verdicts in state for routing (regenerate or refuse).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from langgraph.runtime import Runtime

from citeguard.generate.passage_answer import quote_under_heading
from citeguard.graph.acceptance import VALIDATED, Acceptance
from citeguard.graph.citations import build_citations
from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import (
    add_timing,
    emit,
    model_failure_verdict,
    public_validation,
    redact_verdict,
)
from citeguard.graph.passage_scores import quote_relevance_threshold
from citeguard.graph.resources import Resources
from citeguard.graph.state import State
from citeguard.learned.evidence import averaged_relevance
from citeguard.validate.validator import RelevanceFn, validate_answer
from citeguard.validate.verdicts import ValidationResult, rejected_by_reproducible_checks


def make_validate(resources: Resources, acceptance: Acceptance = VALIDATED) -> Any:
    """Build the validate node.

    Args:
        resources: where the draft, the embedder and the judges come from.
        acceptance: the validator's settings for the run, and the verdict that decides
            delivery (see ``citeguard.graph.acceptance``).
    """

    def validate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        settings = resources.judged_settings(ctx, acceptance.settings(ctx))
        relevance = resources.relevance(ctx)
        ref = state.get("candidate_ref")
        draft = resources.drafts.get(ref)
        if state.get("candidate_is_quote"):
            # The passage answer quotes its source: its support is not in doubt, only
            # whether it answers the question (the relevance check, of the quote itself
            # with passage_relevance_reads_quote).
            settings = dataclasses.replace(
                settings,
                quotes_are_supported=True,
                relevance_reads_answer=ctx.passage_relevance_reads_quote,
                relevance_threshold=quote_relevance_threshold(
                    resources.evidence_scorer(ctx),
                    float((state.get("answering_passage") or {}).get("score", 0.0)),
                    settings.relevance_threshold,
                    ctx.judges_passage_quote(),
                ),
            )
            relevance = passage_relevance(resources, ctx, relevance)
            if ctx.passage_relevance_reads_quote:
                relevance = under_heading(relevance, str(draft.get("quote_heading") or ""))
        emit(runtime, {"event": "validating", "attempt": state.get("attempts", 0)})
        started = time.perf_counter()
        evidence = state.get("evidence", [])
        repeated = draft.get("rejected_verdict")
        result: ValidationResult | None = None
        if draft.get("model_error"):
            verdict = model_failure_verdict(draft["model_error"], settings.level)
        elif repeated is not None and rejected_by_reproducible_checks(repeated):
            # A regeneration that repeats the rejected candidate word for word, rejected by
            # deterministic checks: they see the same text, sources and question, so they
            # would reject it again. Only a failing verdict is ever reused, so this leads
            # to a refusal or another regeneration, never to a delivered answer.
            verdict = dict(repeated)
        else:
            result = validate_answer(
                draft.get("candidate", ""),
                [item["text"] for item in evidence],
                state["question"],
                settings,
                embed=resources.embed_for_sources(ctx, evidence),
                judge=resources.judge(ctx),
                relevance=relevance,
            )
            verdict = acceptance.verdict(result, ctx)
        update: dict[str, Any] = {
            "last_validation": redact_verdict(verdict),
            "timings": add_timing(state, "validation", time.perf_counter() - started),
        }
        if result is None or not verdict["passed"] or verdict["is_refusal"]:
            # Kept out of state: the verdict's feedback quotes the candidate.
            resources.drafts.update(ref or "", verdict=verdict)
            return update
        resources.drafts.discard(ref)
        citations = build_citations(verdict["sentences"], evidence, state.get("selected_ids"))
        # Validated: from here on the sentences may be shown, so keep them.
        delivered: State = {**state, **update, "last_validation": verdict}  # type: ignore[typeddict-item]
        update.update(
            answer=result.answer_text(),
            status="answered",
            refusal_reason=None,
            citations=citations,
            validation=public_validation(delivered, delivered=True),
        )
        for sentence in verdict["sentences"]:
            cited = [c for c in citations if c["marker"] in sentence["cited_sources"]]
            emit(runtime, {"event": "sentence", "text": sentence["text"], "citations": cited})
        return update

    return validate


def under_heading(relevance: RelevanceFn | None, heading: str) -> RelevanceFn | None:
    """``relevance`` reading a passage answer under the heading line it quotes from
    (:func:`quote_under_heading`); unchanged without a heading."""
    if relevance is None or not heading:
        return relevance
    check = relevance
    return lambda question, said: check(question, quote_under_heading(said, heading))


def passage_relevance(
    resources: Resources, ctx: Context, relevance: RelevanceFn | None
) -> RelevanceFn | None:
    """The relevance check of a passage answer: ``relevance``, averaged with the evidence
    scorer's with ``passage_relevance_with_scorer`` when the local model judges (the
    trained judges' relevance is the scorer's already) and the scorer loaded."""
    if relevance is None or not ctx.passage_relevance_with_scorer or ctx.support_judge != "llm":
        return relevance
    scorer = resources.evidence_scorer(ctx)
    return relevance if scorer is None else averaged_relevance(relevance, scorer)

"""validate: sentence-level grounding of the candidate against the sources it cites.

A passing candidate is written to the output keys here and streamed sentence by sentence;
anything else leaves only verdicts in state for routing (regenerate or refuse).
"""

from __future__ import annotations

import time
from typing import Any, cast

from langgraph.runtime import Runtime

from citeguard.graph.context import Context, context_of
from citeguard.graph.drafts import drafts
from citeguard.graph.evidence import build_citations, public_validation, redact_verdict
from citeguard.graph.nodes.generate import add_timing
from citeguard.graph.nodes.retrieve import UNVALIDATED_REJECTED
from citeguard.graph.resources import Resources
from citeguard.graph.state import State
from citeguard.validate.validator import (
    ValidationLevel,
    ValidationSettings,
    rejected_by_reproducible_checks,
    validate_answer,
)


def make_validate(resources: Resources, allow_unvalidated: bool = False) -> Any:
    """Build the validate node.

    Args:
        resources: where the embedder and judge come from.
        allow_unvalidated: accept ``validation_level="off"`` (deliver the first candidate
            unchecked). Only the evaluation harness builds a graph with this, for the
            validation-off ablation; every user-facing graph rejects that setting.
    """

    def validate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        if ctx.validation_level == "off" and not allow_unvalidated:
            raise ValueError(UNVALIDATED_REJECTED)
        writer = runtime.stream_writer
        if writer is not None:
            writer({"event": "validating", "attempt": state.get("attempts", 0)})
        started = time.perf_counter()
        evidence = state.get("evidence", [])
        unchecked = ctx.validation_level == "off"
        settings = ValidationSettings(
            # "off" still measures with the paper's checks (for the ablation's numbers) but
            # delivers the candidate whatever they say.
            level="paper" if unchecked else cast(ValidationLevel, ctx.validation_level),
            lexical_threshold=ctx.lexical_threshold,
            semantic_threshold=ctx.semantic_threshold,
            judge_threshold=ctx.judge_threshold,
            judge_evidence_words=ctx.judge_evidence_words,
            relevance_check=ctx.relevance_check,
            challenge_refusals=ctx.challenge_refusals,
        )
        ref = state.get("candidate_ref")
        draft = drafts.get(ref)
        repeated = draft.get("rejected_verdict")
        if repeated is not None and rejected_by_reproducible_checks(repeated) and not unchecked:
            # A regeneration that repeats the rejected candidate word for word, rejected by
            # deterministic checks: they see the same text, sources and question, so they
            # would reject it again. Only a failing verdict is ever reused, so this leads
            # to a refusal or another regeneration, never to a delivered answer.
            result = None
            verdict = dict(repeated)
        else:
            result = validate_answer(
                draft.get("candidate", ""),
                [item["text"] for item in evidence],
                state["question"],
                settings,
                embed=resources.embed_for_sources(ctx, evidence),
                judge=resources.judge(ctx),
                relevance=resources.relevance(ctx),
            )
            verdict = result.to_json()
        if unchecked:
            verdict.update(level="off", passed=True, triggers=[])
        update: dict[str, Any] = {
            "last_validation": redact_verdict(verdict),
            "timings": add_timing(state, "validation", time.perf_counter() - started),
        }
        if result is not None and verdict["passed"] and not verdict["is_refusal"]:
            drafts.discard(ref)
            sentences = verdict["sentences"]
            citations = build_citations(sentences, evidence, state.get("selected_ids"))
            # Validated: from here on the sentences may be shown, so keep them.
            delivered: State = {**state, **update, "last_validation": verdict}  # type: ignore[typeddict-item]
            update.update(
                answer=result.answer_text(),
                status="answered",
                refusal_reason=None,
                citations=citations,
                validation=public_validation(delivered, delivered=True),
            )
            if writer is not None:
                for sentence in sentences:
                    writer(
                        {
                            "event": "sentence",
                            "text": sentence["text"],
                            "citations": [
                                c for c in citations if c["marker"] in sentence["cited_sources"]
                            ],
                        }
                    )
        else:
            drafts.update(ref or "", verdict=verdict)
        return update

    return validate

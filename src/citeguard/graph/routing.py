"""Pure edge functions. Their Literal return types are what the drawn graph shows."""

from __future__ import annotations

from typing import Literal

from citeguard.graph.state import State


def after_sufficiency(state: State) -> Literal["generate", "answer_from_passage", "refuse"]:
    """Insufficient evidence goes straight to the refusal; no model is called. A passage
    the scorer is sure of (``quote_before_model``) is quoted before the model is asked."""
    if not state.get("sufficiency", {}).get("sufficient"):
        return "refuse"
    return "answer_from_passage" if state.get("quote_before_model") else "generate"


def after_validate(
    state: State,
) -> Literal["generate", "regenerate", "answer_from_passage", "refuse", "__end__"]:
    """Accept, retry once more, quote the scorer's passage, or refuse (Algorithm 1, steps
    6-7, with the evidence scorer's passage answer before a refusal).

    A passing candidate has already been written to the output keys by the validate node,
    so accepting is simply ending. A failed passage answer hands the question to the model
    when it was quoted first (``quote_before_model``). After the model's turn it ends the
    question, unless the passage's ``fallback`` (the side-by-side passage its score was
    read from) has a quote of its own not yet drafted (``fallback_quote_pending``): then
    that is quoted and validated, once. A clean refusal by the model (no strong evidence
    it ignored) ends in the refuse node, with reason "model_refused", unless the evidence
    scorer found an answering passage (``answering_passage``, set only with
    ``scorer_answer``) not yet tried: then that passage is quoted and validated, once.
    """
    verdict = state.get("last_validation", {})
    if verdict.get("passed") and not verdict.get("is_refusal"):
        return "__end__"  # langgraph.graph.END, spelled out for the Literal type
    if state.get("candidate_is_quote"):
        if state.get("quote_before_model"):
            return "generate"
        return "answer_from_passage" if state.get("fallback_quote_pending") else "refuse"
    instead_of_refusal: Literal["answer_from_passage", "refuse"] = (
        "answer_from_passage"
        if state.get("answering_passage") and not passage_tried(state)
        else "refuse"
    )
    if verdict.get("is_refusal") and not verdict.get("triggers"):
        return instead_of_refusal
    if state.get("regenerations", 0) < state.get("max_regenerations", 1):
        return "regenerate"
    return instead_of_refusal


def passage_tried(state: State) -> bool:
    """Whether the scorer's passage has been quoted for this question: it was quoted first,
    or it is the latest candidate (quoted last, nothing follows it)."""
    return bool(state.get("quote_before_model") or state.get("candidate_is_quote"))

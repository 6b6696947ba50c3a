"""answer_from_passage: quote the evidence scorer's answering passage instead of refusing.

The scorer also picks which of the passage's sentences to quote (the best and its
answering neighbours), so the quote does not open on the end of the clause before. The
heading line the quote stands under goes with the draft, for the relevance check only.
When the passage was chosen among overlapping passages, the side-by-side passage its
score was read from (the answering passage's ``fallback``) is the second candidate: when
its quote differs from the first, and the first fails validation, the node runs once more
and quotes it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from citeguard.generate.passage_answer import PassageQuote, scored_passage_answer
from citeguard.generate.passage_pieces import through_following_list
from citeguard.graph.context import Context, context_of
from citeguard.graph.nodes.common import emit
from citeguard.graph.resources import Resources
from citeguard.graph.state import State


def make_answer_from_passage(resources: Resources) -> Any:
    """Build the node that drafts the passage answer (validated next, like every draft)."""

    def answer_from_passage(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        passage = state.get("answering_passage") or {}
        fallback: dict[str, Any] = passage.get("fallback") or {}
        second = bool(state.get("fallback_quote_pending") and fallback)
        evidence = state.get("evidence", [])
        source = int(passage.get("source", 0))
        text = str(evidence[source - 1]["text"]) if 0 < source <= len(evidence) else ""

        def quote_of(span: dict[str, Any]) -> PassageQuote:
            start = int(span.get("start", 0))
            end = through_following_list(text, start, int(span.get("end", 0)))
            return scored_passage_answer(
                text[start:end], source, state["question"], resources.evidence_scorer(ctx)
            )

        emit(runtime, {"event": "answering_from_passage", "source": source})
        resources.drafts.discard(state.get("candidate_ref"))
        answer = quote_of(fallback if second else passage)
        # A second quote is only worth a validation when it says something else.
        other = quote_of(fallback).text if fallback and not second else ""
        pending = bool(other) and other != answer.text
        return {
            "candidate_ref": resources.drafts.put(
                candidate=answer.text, quote_heading=answer.heading
            ),
            "selected_ids": None,
            "candidate_is_quote": True,
            "fallback_quote_pending": pending,
            "attempts": state.get("attempts", 0) + 1,
        }

    return answer_from_passage

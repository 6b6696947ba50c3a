"""What more than one node does: stream events, timings, evidence records, drafting a
candidate, and the verdicts that may be kept in state or shown to a client.

Nodes translate state into library calls and back; the translations they share live here
once, so each node module reads as its step of Algorithm 1 and nothing else.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from typing import Any

from langgraph.runtime import Runtime

from citeguard.documents import SearchHit
from citeguard.errors import CiteGuardError, PromptTooLongError
from citeguard.generate.strategies import Generated, generate_candidate
from citeguard.generate.trimming import trim_sources
from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from citeguard.graph.state import State

NO_FEEDBACK = "- The answer did not pass validation."
MAX_ERROR_CHARS = 300
"""How much of a chat model's error message a verdict keeps."""
MODEL_ERROR = "model_error"
"""The trigger of a verdict on a candidate the chat model failed to write."""

logger = logging.getLogger(__name__)


def model_failure_verdict(error: str, level: str) -> dict[str, Any]:
    """The failing verdict for a candidate the chat model did not write (it raised).

    It routes like any failed validation: one regeneration while the run has one left,
    then the refusal, whose reason says the model failed.
    """
    return {
        "passed": False,
        "is_refusal": False,
        "level": level,
        "sentences": [],
        "supported_ratio": 0.0,
        "triggers": [MODEL_ERROR],
        "checks_skipped": [],
        "model_error": error,
        "feedback": "",
    }


"""The regeneration prompt's feedback when the rejected draft's verdict is gone."""


def emit(runtime: Runtime[Context], event: dict[str, Any]) -> None:
    """Send a progress event to the run's custom stream (when it has one)."""
    if runtime.stream_writer is not None:
        runtime.stream_writer(event)


def add_timing(state: State, stage: str, seconds: float) -> dict[str, float]:
    """The run's timings with ``seconds`` added to ``stage`` (generation and validation can
    run more than once per question)."""
    timings = dict(state.get("timings", {}))
    timings[stage] = timings.get(stage, 0.0) + seconds
    return timings


def hit_to_evidence(hit: SearchHit) -> dict[str, Any]:
    """A retrieved chunk as it travels in state (JSON: the search hit plus page starts, which
    the citations need to find the page of a quote inside the chunk)."""
    record = hit.to_json()
    record["page_starts"] = hit.chunk.metadata.get("page_starts", [])
    return record


def sources_for_model(
    question: str,
    evidence: list[dict[str, Any]],
    ctx: Context,
    resources: Resources,
    words: int | None = None,
) -> list[dict[str, Any]]:
    """The evidence as the model sees it: trimmed to ``words`` (default ``ctx.source_words``)
    words per source when that is set.

    Only the free strategy trims: the selection strategies number the sources' sentences
    by their offsets in the document, which trimmed text would no longer match.
    """
    words = ctx.source_words if words is None else words
    if words <= 0 or ctx.generation_strategy != "free":
        return evidence
    return trim_sources(
        evidence, question, resources.embed(ctx), words, resources.stored_sentence_vectors(ctx)
    )


SMALLER_VIEW_WORDS = (60, 30)
"""Words per source of the smaller views tried when a prompt would not fit the model."""


def model_views(
    question: str, evidence: list[dict[str, Any]], ctx: Context, resources: Resources
) -> Iterator[list[dict[str, Any]]]:
    """The sources as the model sees them (:func:`sources_for_model`), then ever smaller
    views for a prompt that would not fit the model's context: fewer words per source
    (free strategy), then the last sources left out, down to the first alone.

    Most prompts fit at once; a long question with long sources, or text that takes many
    tokens per word, takes a smaller view instead of failing. Citations stay valid: the
    sources kept keep their numbers.
    """
    view = sources_for_model(question, evidence, ctx, resources)
    yield view
    if ctx.generation_strategy == "free":
        for words in SMALLER_VIEW_WORDS:
            if ctx.source_words <= 0 or words < ctx.source_words:
                view = sources_for_model(question, evidence, ctx, resources, words)
                yield view
    for kept in range(len(view) - 1, 0, -1):
        yield view[:kept]


def draft_candidate(
    state: State,
    ctx: Context,
    resources: Resources,
    rejected: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write a candidate with the run's strategy and keep it in the draft store.

    Args:
        rejected: for a regeneration, the draft being revised (its ``candidate`` text and
            the validator's ``verdict``): the prompt quotes the text and the verdict's
            feedback. None for the first candidate.

    Returns:
        The state update: a reference to the new draft (never its text), the selected
        sentence ids, the attempt count and the generation time. The previous draft is
        dropped from the store.
    """
    started = time.perf_counter()
    previous: str | None = None
    feedback: str | None = None
    if rejected is not None:
        previous = rejected.get("candidate", "")
        feedback = (rejected.get("verdict") or {}).get("feedback") or NO_FEEDBACK
    try:
        generated = _generate_in_context(state, ctx, resources, previous, feedback)
    except CiteGuardError:
        raise  # a setting or installation problem (no model installed ...): its own message
    except Exception as exc:  # noqa: BLE001 - any failure of the chat model, see below
        # A chat model that fails (a provider's timeout or error, a crashed runtime) ends
        # in a validated retry or a refusal that says so, never in the client's traceback.
        logger.warning("the chat model failed: %s: %s", type(exc).__name__, exc)
        resources.drafts.discard(state.get("candidate_ref"))
        failure = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
        return {
            "candidate_ref": resources.drafts.put(candidate="", model_error=failure),
            "candidate_is_quote": False,
            "selected_ids": None,
            "attempts": state.get("attempts", 0) + 1,
            "timings": add_timing(state, "generation", time.perf_counter() - started),
        }
    draft: dict[str, Any] = {"candidate": generated.candidate}
    if rejected is not None and generated.candidate.strip() == str(previous).strip():
        # The model ignored the feedback and wrote the rejected text again (greedy
        # decoding often does: 14 of 21 regenerations in one CUAD run). validate reuses
        # the rejection when deterministic checks made it, instead of checking again.
        draft["rejected_verdict"] = rejected.get("verdict")
    resources.drafts.discard(state.get("candidate_ref"))
    return {
        "candidate_ref": resources.drafts.put(**draft),
        "candidate_is_quote": False,
        "selected_ids": generated.selected_ids,
        "attempts": state.get("attempts", 0) + 1,
        "timings": add_timing(state, "generation", time.perf_counter() - started),
    }


def _generate_in_context(
    state: State,
    ctx: Context,
    resources: Resources,
    previous: str | None,
    feedback: str | None,
) -> Generated:
    """:func:`generate_candidate` on the largest view of the sources whose prompt fits the
    model's context (:func:`model_views`); the last view's error when none does."""
    too_long: PromptTooLongError | None = None
    invoke = resources.invoker(ctx)
    for view in model_views(state["question"], state.get("evidence", []), ctx, resources):
        try:
            return generate_candidate(
                ctx.generation_strategy,
                state["question"],
                view,
                invoke,
                previous=previous,
                feedback=feedback,
            )
        except PromptTooLongError as exc:
            logger.info("%s; showing the model less of the sources", exc)
            too_long = exc
    assert too_long is not None  # model_views yields at least one view
    raise too_long


def redact_verdict(verdict: dict[str, Any]) -> dict[str, Any]:
    """A validation verdict without any words of the candidate (safe to keep in state)."""
    redacted = {k: v for k, v in verdict.items() if k != "feedback"}
    redacted["sentences"] = [
        {k: v for k, v in sentence.items() if k not in ("text",)}
        for sentence in verdict.get("sentences", [])
    ]
    return redacted


UNDELIVERED_SENTENCE_KEYS = (
    "text",
    "start",
    "end",
    "markers",
    "cited_sources",
    "repaired_citation",
)
"""What a refused candidate's sentence verdicts lose: its words, where they stood, and the
citations it wrote (markers such as "[2]" and the sources they name)."""


def public_validation(state: State, delivered: bool) -> dict[str, Any]:
    """The validation summary a client sees.

    For a refused run the verdicts of the last candidate's sentences are kept (supported,
    reasons, scores), but nothing of what it wrote (``UNDELIVERED_SENTENCE_KEYS``): no part
    of an answer that failed validation leaves the graph.
    """
    verdict = dict(state.get("last_validation") or {})
    sentences = []
    for sentence in verdict.get("sentences", []):
        item = dict(sentence)
        if not delivered:
            for key in UNDELIVERED_SENTENCE_KEYS:
                item.pop(key, None)
        sentences.append(item)
    verdict.pop("feedback", None)
    verdict["sentences"] = sentences
    verdict["attempts"] = state.get("attempts", 0)
    verdict["regenerations"] = state.get("regenerations", 0)
    return verdict

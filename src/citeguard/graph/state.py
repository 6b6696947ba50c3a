"""Graph state: what a client sends, what flows between nodes, and what a client gets back.

Everything in state is JSON-serialisable (plain dicts and lists), so the same graph runs
in-process, behind the LangGraph server and under a checkpointer.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config

# typing_extensions' TypedDict, not typing's: on Python < 3.12 pydantic (which builds the JSON
# schemas the LangGraph server shows) refuses typing.TypedDict. ``use_attribute_docstrings``
# turns each field's docstring into its "description" in /assistants/{id}/schemas.
from typing_extensions import TypedDict

_DESCRIBED = ConfigDict(use_attribute_docstrings=True)

AnswerStatus = Literal["answered", "refused"]
RefusalReason = Literal[
    "insufficient_evidence", "validation_failed", "model_refused", "model_failed"
]


@with_config(_DESCRIBED)
class Citation(TypedDict):
    """A citation a user can check: open ``doc`` at ``pdf_page`` and find ``quote``."""

    marker: int
    """The source number used in the answer text, as in "[2]"."""
    doc: str
    """Document file name."""
    pdf_page: int
    """1-based page of the PDF file on which the quote starts."""
    printed_page: str
    """The page number printed on that page (falls back to the PDF page)."""
    chunk_id: str
    """Id of the cited evidence chunk in the index."""
    quote: str
    """Sentence(s) of the cited chunk that best support the answer sentence, verbatim."""
    char_start: int
    """Offset of the quote in the document's parsed text."""
    char_end: int
    """End offset (exclusive) of the quote in the document's parsed text."""


@with_config(_DESCRIBED)
class InputState(TypedDict):
    """What a caller provides."""

    question: str
    """The question to answer from the indexed documents."""
    docs: NotRequired[list[str] | None]
    """Optional scope: only search these documents (file names as indexed)."""


@with_config(_DESCRIBED)
class OutputState(TypedDict, total=False):
    """What a caller gets back: a validated answer or the standardized refusal, never a draft."""

    question: str
    """The question that was asked."""
    answer: str
    """The validated answer with [n] markers, or the standardized refusal sentence."""
    status: AnswerStatus
    """"answered" when a candidate passed validation, else "refused"."""
    refusal_reason: RefusalReason | None
    """Why the answer is a refusal (null when answered)."""
    citations: list[Citation]
    """One entry per distinct marker used in the answer, with page and verbatim quote."""
    validation: dict[str, Any]
    """Per-sentence verdicts and scores of the delivered answer (or of the last failed
    candidate's verdicts, without its text, when refused), supported_ratio and attempts."""


@with_config(_DESCRIBED)
# The output repeats the question as optional; the input requires it. Both hold at run time.
class State(InputState, OutputState, total=False):  # type: ignore[misc]
    """Full internal state."""

    retrieved: list[dict[str, Any]]
    """All top_k search hits (JSON), best first; kept for evaluation of retrieval."""
    evidence: list[dict[str, Any]]
    """Retrieved chunks passed to the generator, in source-number order ([1] first), each a
    SearchHit as JSON plus a 'page_starts' list for exact page lookup of quotes."""
    sufficiency: dict[str, Any]
    """The sufficiency check's measurements and decision."""
    answering_passage: dict[str, Any] | None
    """With ``scorer_answer``: the sources' passage that the evidence scorer rates highest,
    when it reaches the score the passage answer is drafted from
    (``passage_scores.drafting_threshold``; its source number ``source``, offsets
    ``start``/``end`` in that source's text, ``score``); what the passage answer quotes.
    ``fallback`` (offsets ``start``/``end`` in the same source, or null): the side-by-side
    passage the score was read from, quoted when the first quote fails validation."""
    fallback_quote_pending: bool
    """Whether the answering passage's ``fallback`` is left to quote: the first passage
    answer has been drafted, and the fallback's quote differs from it."""
    quote_before_model: bool
    """Whether the scorer's passage is quoted before the model is asked (``passage_first``:
    its score reaches the scorer's passage-first threshold); decided by the sufficiency
    check."""
    candidate_is_quote: bool
    """Whether the latest candidate is the scorer's passage quoted (validated as a quote:
    its support is not in doubt, only whether it answers), not the model's text."""
    candidate_ref: str
    """Reference to the latest candidate in the graph's draft store (``Resources.drafts``).
    The candidate's text is never put in state: state can surface in stream modes before
    validation."""
    selected_ids: list[str] | None
    """Evidence-first strategies: the source sentence ids ("2.3") the model selected."""
    last_validation: dict[str, Any]
    """Verdicts of the latest candidate without its words (drives routing)."""
    attempts: int
    """How many candidates have been generated for this question."""
    regenerations: int
    """How many validation-guided regenerations have run (bounded by max_regenerations)."""
    max_regenerations: int
    """The run's regeneration budget, copied from the context so routers stay pure."""
    timings: dict[str, float]
    """Seconds spent per stage (retrieval, generation, validation)."""


STATE_KEYS = sorted(State.__required_keys__ | State.__optional_keys__)
"""Every key of the graph's state, for a run that wants more than the output schema (the
evaluation harness: retrieved chunks, evidence, timings)."""

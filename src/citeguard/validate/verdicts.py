"""What the validator decides: per-sentence verdicts, the answer's result, reason codes.

A verdict's JSON (:meth:`ValidationResult.to_json`) is what the graph keeps and routes on;
:func:`rejected_by_reproducible_checks` says whether a rejection would repeat for the same
answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

# Reasons that record something without making the sentence unsupported.
INFORMATIONAL_REASONS = frozenset({"better_source_available"})


@dataclass(frozen=True)
class CitationRepair:
    """A citation moved to a source that supports the sentence clearly better."""

    from_sources: list[int]
    to_sources: list[int]
    from_coverage: float
    to_coverage: float


@dataclass
class SentenceVerdict:
    """The validator's decision about one sentence of the answer."""

    text: str
    """The sentence as it would be delivered: as written, except that a repaired citation
    is rewritten to the repaired marker(s)."""
    start: int
    """Offset of the sentence in the candidate answer (as written)."""
    end: int
    markers: list[str]
    """Citation, malformed and placeholder markers as written."""
    cited_sources: list[int]
    """Valid source numbers the sentence is judged against (after any repair)."""
    citation_valid: bool
    lexical_score: float | None
    """Overlap with the cited evidence; None when nothing valid is cited."""
    semantic_score: float | None
    """Best cosine with a cited source; None when skipped or nothing valid is cited."""
    judge_score: float | None
    content_support: float | None
    """Strict: share of the sentence's non-question content words in the evidence."""
    supported: bool
    reasons: list[str] = field(default_factory=list)
    """Machine-readable codes (see :data:`REASON_TEXT`)."""
    repaired_citation: CitationRepair | None = None
    original_text: str | None = None
    """The sentence as written, when a repair changed ``text``; else None."""
    feedback: str | None = None
    """One line for the regeneration prompt; None for a supported sentence."""


@dataclass
class ValidationResult:
    """The verdict on a whole candidate answer."""

    passed: bool
    is_refusal: bool
    level: str
    sentences: list[SentenceVerdict]
    supported_ratio: float
    """(n - u) / n over the answer's sentences; 0.0 for no sentences."""
    triggers: list[str]
    """Why to regenerate: invalid_citation, malformed_citation, unsupported_sentence,
    sources_do_not_answer_question, refusal_despite_strong_evidence, empty_answer. Empty
    when the candidate passed."""
    feedback: list[str]
    """One human-readable line per problem, for the regeneration prompt."""
    checks_skipped: list[str] = field(default_factory=list)
    """"semantic" when no embedding function was given; "judge" at level judge without one."""
    answer: str = field(default="", repr=False)
    """The candidate as validated. Not part of :meth:`to_json`, so that a summary of a
    failed candidate never carries its text."""
    citations_repaired: bool = False
    """Whether any sentence's citation was repaired (see :meth:`answer_text`)."""
    relevance_score: float | None = None
    """With ``relevance_check``: the highest P(answers the question) over the cited
    sources; None when not asked."""

    def answer_text(self) -> str:
        """The answer to deliver: the candidate with repaired citations rewritten."""
        if not self.citations_repaired:
            return self.answer.strip()
        pieces: list[str] = []
        last = 0
        for verdict in self.sentences:
            if verdict.original_text is None:
                continue
            pieces.append(self.answer[last : verdict.start])
            pieces.append(verdict.text)
            last = verdict.end
        pieces.append(self.answer[last:])
        return "".join(pieces).strip()

    @property
    def feedback_text(self) -> str:
        """The feedback as a bulleted block for the regeneration prompt."""
        return "\n".join(f"- {line}" for line in self.feedback)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types.

        The candidate's words appear in exactly two places, so that a caller can drop
        them for a refused run: each sentence's ``text`` and the top-level ``feedback``
        (the bulleted :attr:`feedback_text`). The candidate itself, the per-sentence
        feedback lines and ``original_text`` are left out.
        """
        data = asdict(self)
        del data["answer"]
        for sentence in data["sentences"]:
            del sentence["feedback"]
            del sentence["original_text"]
        data["feedback"] = self.feedback_text
        return data


REASON_TEXT: dict[str, str] = {
    "no_citation": "has no citation; end it with the marker of the source that states it",
    "invalid_citation": "cites a source that does not exist",
    "malformed_citation": "uses a malformed citation marker",
    "placeholder": "contains an unfilled placeholder instead of a value from the sources",
    "lexical_below_threshold": "shares too few words with the cited source",
    "semantic_below_threshold": "is not semantically close to the cited source",
    "restates_question": "only restates the question; state what the source says",
    "content_not_in_evidence": "says things the cited source does not state",
    "yes_no_unsupported": "answers yes/no, but the cited source is not about the question",
    "yes_no_off_topic": "answers yes/no with a sentence that is not about the question",
    "number_not_in_evidence": "states a number, date or amount that the cited source does not",
    "better_source_available": "cited a source while another source supports it better",
    "incomplete_sentence": (
        "stops in the middle of a phrase; finish it with the fact the source states, or "
        "answer with the refusal"
    ),
    "refers_elsewhere": (
        "points to another part of the document (such as 'the date first above written') "
        "instead of stating it; give the actual date, amount or term from the sources, or "
        "answer with the refusal if the sources do not state it"
    ),
    "names_reversed": (
        "copies the source's words with two names in each other's place; say who does what "
        "as the source says it"
    ),
    "negation_flipped": (
        "copies the source's words but adds or drops a 'not'; say it as the source says it"
    ),
    "term_replaced": (
        "copies the source's words but puts another term or name in place of the source's "
        "own; use the source's term for what it states"
    ),
    "sentences_spliced": (
        "joins the start of one sentence of the source to the end of another; state what "
        "one sentence says"
    ),
    "claims_absence": (
        "says what the document does not mention or state; a citation backs only what its "
        "source states: state what the source says, or answer with the refusal"
    ),
    "yes_no_terms_not_in_evidence": (
        "answers a yes/no question with words of the question that the cited source does "
        "not contain"
    ),
    "judge_unsupported": "is not supported by the cited source according to the judge",
    "mixed_refusal": "mixes the refusal sentence with an answer; give one or the other",
    "no_content": "has no words to check",
}
"""What each reason code means, in the words used for feedback."""


_REPRODUCIBLE_TRIGGERS = frozenset(
    {"invalid_citation", "malformed_citation", "empty_answer", "refusal_despite_strong_evidence"}
)
_MODEL_JUDGED_REASONS = frozenset({"judge_unsupported"}) | INFORMATIONAL_REASONS


def rejected_by_reproducible_checks(verdict: Mapping[str, Any]) -> bool:
    """Whether a failed verdict (``ValidationResult.to_json()``) is sure to fail again for
    the same answer, sources and question.

    The citation, lexical, semantic and rule checks are deterministic. The judge and the
    relevance check are not quite: their P(Yes) comes from the local model's logits, which
    move in the last digits with how much of the prompt its KV cache already held (one
    answer scored 0.48 and then 0.50 against the same source). A rejection that rests only
    on them may not repeat.
    """
    if verdict.get("passed"):
        return False
    if set(verdict.get("triggers", [])) & _REPRODUCIBLE_TRIGGERS:
        return True
    return any(
        set(sentence.get("reasons", [])) - _MODEL_JUDGED_REASONS
        for sentence in verdict.get("sentences", [])
    )

"""The validator's level and thresholds.

The settings a user can change (the level and the thresholds of the paper, strict and judge
checks) have no default here: a run's settings are ``citeguard.graph.context.Context``, which
holds their defaults and descriptions and builds this object from them
(``Context.validation_settings``). The thresholds that are part of how a check works, and
that no run changes, are defined here with their values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

ValidationLevel = Literal["paper", "strict", "judge"]
"""The validator's levels, each including the one before (see :mod:`.validator`)."""

EPSILON = 1e-9
"""Tolerance of every threshold comparison: float scores such as 3/30 are compared to
thresholds such as 0.10 with it, so that "exactly at the threshold" passes whatever the
rounding."""

REFUSAL_QUESTION_COVERAGE = 0.6
"""A refusal is challenged when one source holds at least this share of the question's
content words (see :func:`citeguard.validate.refusal.refusal_despite_strong_evidence`)."""


@dataclass(frozen=True, kw_only=True)
class ValidationSettings:
    """Level and thresholds of the validator (:mod:`.validator` says what each level checks)."""

    level: ValidationLevel
    lexical_threshold: float
    """Paper: minimum |Ts ∩ Te| / |Ts|."""
    semantic_threshold: float
    """Paper: minimum cosine of sentence and cited-source embeddings."""
    judge_threshold: float
    """Judge: minimum P(supported)."""
    relevance_threshold: float
    """Judge, relevance check: minimum P(a cited source answers the question)."""
    judge_evidence_words: int
    """Judge: 0 = the judge reads each cited source whole; N > 0 = only its sentences
    sharing most of the claim's words, at most N words
    (:func:`~citeguard.validate.focus.claim_focused_source`). Shorter evidence is faster,
    but the judge is more lenient with it."""
    relevance_check: bool
    """Judge: also require a cited source that answers the question."""
    challenge_refusals: bool
    """Fail a refusal when a source plainly covers the question (see
    ``refusal_question_coverage``), so that the graph regenerates with feedback naming
    that source."""
    quotes_are_supported: bool = False
    """Judge: a sentence that stands word for word in its cited sources is supported without
    asking the judge (set for the passage answer, which quotes its source; the 1.5B judge
    rated such quotes of a contract as low as P(supported) 0.46). The relevance check still
    decides whether the quote answers the question."""
    relevance_reads_answer: bool = False
    """Judge, relevance check: ask whether the answer's own sentences, citations stripped,
    answer the question, instead of each whole cited source (set for the passage answer,
    whose sentences are its source's words: the question is then asked of the passage that
    was quoted, not of the ~600-token chunk around it, whose other clauses dilute it)."""
    content_support_threshold: float = 0.5
    """Strict (a): minimum share of the sentence's non-question content words in the
    cited evidence (a majority of what the sentence adds must be in the source)."""
    yes_no_question_coverage: float = 0.5
    """Strict (a), yes/no exemption: minimum share of the question's content words in
    the cited evidence."""
    repair_margin: float = 0.25
    """Strict (c): how much better (share of the sentence's words) another source must
    cover the sentence before the citation is repaired to it."""
    refusal_question_coverage: float = REFUSAL_QUESTION_COVERAGE
    """With ``challenge_refusals``: the share of the question's content words one source
    must hold for a refusal to be challenged."""

    def __post_init__(self) -> None:
        if self.level not in get_args(ValidationLevel):
            raise ValueError(f"unknown validation level {self.level!r}: paper, strict or judge")
        for name in (
            "lexical_threshold",
            "semantic_threshold",
            "content_support_threshold",
            "yes_no_question_coverage",
            "repair_margin",
            "judge_threshold",
            "relevance_threshold",
            "refusal_question_coverage",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        if self.judge_evidence_words < 0:
            raise ValueError(f"judge_evidence_words must be >= 0, got {self.judge_evidence_words}")

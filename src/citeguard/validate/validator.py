"""Sentence-level validation of a candidate answer against its numbered sources.

Levels (each includes the one before):

``paper``
    The paper's rule. A sentence is supported when its citation is valid (at least one
    marker, every marker a single ``[n]`` with 1 <= n <= k) AND its lexical overlap with
    the cited evidence is >= ``lexical_threshold`` OR the embedding cosine is >=
    ``semantic_threshold``. A sentence without a citation is unsupported.
``strict``
    Paper, plus three checks that catch what a low word overlap lets through:

    (a) *New content.* The sentence's content words that are not in the question must be
        found in the cited evidence (share >= ``content_support_threshold``, a majority),
        and there must be at least one: a sentence that only restates the
        question says nothing ("restates_question"). Yes/no exemption, for yes/no
        questions only ("Is ...?", "Can ...?", see :mod:`citeguard.text.questions`): a sentence
        starting with "Yes"/"No" whose only other words come from the question passes (a)
        when the cited source contains at least ``yes_no_question_coverage`` of the
        question's content words, i.e. the source is about what was asked. Word checks
        cannot tell "Yes" from "No"; the judge level can.
        A sentence that opens with a "Yes"/"No" lead must also share at least one content
        word with the question ("yes_no_off_topic"): "Yes: Title: CEO [2]." answers nothing.
        The determiner is no lead: a quoted "No animals may be kept ..." is the clause.
        Any sentence answering a yes/no question, with or without the lead, must find its
        words taken from the question in the cited source, asking words ("required",
        "may", "provide", ...) aside ("yes_no_terms_not_in_evidence"): "Yes, a party may
        terminate for convenience [3]." needs a source that speaks of convenience.
        The words of a quantity the evidence states in another format count as found
        ("August 4, 2010" for "8/4/10").
    (b) *Quantities.* Every number, date, amount, percentage and duration in the sentence
        must be stated by the cited evidence (see :mod:`citeguard.text.tokens`).
        A sentence that points elsewhere instead of stating the fact ("effective on the
        date first above written", "the fees set forth below") fails ("refers_elsewhere"),
        and so does one that stops mid-phrase ("..., which is [2].", "incomplete_sentence")
        or one that says what the document leaves out ("The lease does not explicitly
        mention a parking space, but ...", "claims_absence"): silence cannot be cited.
        A sentence that copies its source's words but turns them around fails too
        (:mod:`.copy_edits`): two names in each other's place ("ETON shall pay to Aucta"
        from "Aucta shall pay to ETON", "names_reversed"), a "not" added or dropped
        ("negation_flipped"), another term or name in place of the source's own ("the
        late fee is not refundable" from "the pet fee is not refundable", "term_replaced"),
        or one sentence's start joined to another's end ("sentences_spliced").
    (c) *Best source.* If another given source covers the sentence's words better than the
        cited one(s) by at least ``repair_margin`` (a share of the words that overlapping
        chunks never reach), the citation is repaired to that source, the
        repair is recorded, and the sentence is judged against the repaired source. When
        the cited source lacks one of the sentence's quantities and another source states
        them all, that source wins without the margin if its words cover the sentence at
        least as well. "Yes"/"No" never count as words here.
``judge``
    Strict, plus ``judge(sentence, cited evidence) >= judge_threshold`` (the judge returns
    P(supported)).
    The judge is only asked about sentences that passed every other check, and reads the
    cited sources whole (``judge_evidence_words`` > 0 narrows them to the sentences
    sharing most of the claim's words: faster, but more lenient).
    With ``relevance_check`` on, an answer whose sentences all pass must also cite a source
    that answers the question: ``relevance(question, source) >= relevance_threshold`` for at
    least one cited source (asked by source number, up to the first that answers), else
    "sources_do_not_answer_question". Support alone lets
    through a true statement about something else ("a late fee of $75" for a question
    about a fee to end the lease early). With ``relevance_reads_answer`` (the passage
    answer, which quotes its source), the question is asked of the answer's sentences
    instead of the whole cited sources.

Placeholders ("[date]", "[n]") fail at every level, unless the sentence quotes its cited
sources word for word: then the blank is the document's own ("the [·] day of [·], 2019" in
a contract filed unsigned). Thresholds are compared with ``>=``
(a score exactly at the threshold passes). The thresholds are in
:class:`~citeguard.validate.settings.ValidationSettings`.

A refusal is detected with :func:`citeguard.text.refusal.is_refusal`; with
``challenge_refusals`` on, it fails when
:func:`~citeguard.validate.refusal_challenge.refusal_despite_strong_evidence` finds a source
that plainly covers the question.

The work is split by job: :mod:`.settings` (level and thresholds), :mod:`.checks` (one
sentence), :mod:`.verdicts` (what is decided), :mod:`.refusal_challenge` (refusals), and
here :func:`validate_answer`, which runs them over a whole answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from citeguard.text.citations import strip_citations
from citeguard.text.refusal import is_refusal
from citeguard.text.sentences import split_sentences
from citeguard.validate.checks import CheckInputs, check_sentence
from citeguard.validate.refusal_challenge import (
    question_coverage,
    refusal_despite_strong_evidence,
)
from citeguard.validate.settings import EPSILON, ValidationSettings
from citeguard.validate.verdicts import ValidationResult

SOURCES_DO_NOT_ANSWER = "sources_do_not_answer_question"
"""The trigger of a candidate whose sentences all passed but whose cited sources do not
answer the question (the relevance check)."""

logger = logging.getLogger(__name__)

EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""L2-normalized vectors for texts, one row per text."""
JudgeFn = Callable[[str, str], float]
"""P(supported) for (claim, evidence)."""
RelevanceFn = Callable[[str, str], float]
"""P(the evidence answers the question) for (question, evidence)."""


def validate_answer(
    answer: str,
    sources: Sequence[str],
    question: str,
    settings: ValidationSettings,
    embed: EmbedFn | None = None,
    judge: JudgeFn | None = None,
    relevance: RelevanceFn | None = None,
) -> ValidationResult:
    """Validate a candidate ``answer`` against the ``sources`` it was generated from.

    Args:
        answer: The generator's text, citing sources as [1]..[k].
        sources: The k source texts, in the order they were numbered.
        question: The user's question (for the strict content-word and refusal checks).
        settings: Level and thresholds (a run's come from
            ``citeguard.graph.context.Context.validation_settings``).
        embed: Maps texts to L2-normalized vectors (one row per text). None skips the
            semantic check, recorded in ``checks_skipped``.
        judge: Returns P(supported) for (claim, evidence); used at level "judge" only.
            None at that level skips the judge, recorded in ``checks_skipped``.
        relevance: Returns P(the evidence answers the question) for (question, evidence);
            used at level "judge" with ``settings.relevance_check`` only. None then skips
            the check, recorded in ``checks_skipped``.
    """
    skipped: list[str] = []
    if embed is None:
        skipped.append("semantic")
    if settings.level == "judge" and judge is None:
        skipped.append("judge")
        logger.warning("validation level 'judge' without a judge function: judge check skipped")
    check_relevance = settings.level == "judge" and settings.relevance_check
    if check_relevance and relevance is None:
        skipped.append("relevance")
        logger.warning("relevance check on without a relevance function: check skipped")
        check_relevance = False

    def result(**values: Any) -> ValidationResult:
        values.setdefault("sentences", [])
        values.setdefault("supported_ratio", 0.0)
        values.setdefault("is_refusal", False)
        return ValidationResult(
            level=settings.level, checks_skipped=skipped, answer=answer, **values
        )

    if not answer.strip():
        return result(
            passed=False,
            triggers=["empty_answer"],
            feedback=["The answer was empty: answer from the sources with [n] markers, or "
                      "reply with the refusal sentence alone."],
        )  # fmt: skip
    if is_refusal(answer):
        fired = settings.challenge_refusals and refusal_despite_strong_evidence(
            question, sources, coverage_threshold=settings.refusal_question_coverage
        )
        feedback = []
        if fired:
            shares = question_coverage(question, sources)
            best = max(range(len(shares)), key=shares.__getitem__)
            feedback.append(
                f"The answer refused, but source [{best + 1}] contains "
                f"{shares[best]:.0%} of the question's key terms: answer from the sources "
                "with citations if they state the answer."
            )
        return result(
            passed=not fired,
            is_refusal=True,
            triggers=["refusal_despite_strong_evidence"] if fired else [],
            feedback=feedback,
        )

    sentences = split_sentences(answer)
    if not sentences:
        return result(
            passed=False,
            triggers=["empty_answer"],
            feedback=["The answer had no sentences: answer from the sources with [n] "
                      "markers, or reply with the refusal sentence alone."],
        )  # fmt: skip

    vectors: np.ndarray | None = None
    if embed is not None:
        texts = [strip_citations(s.text) for s in sentences] + list(sources)
        vectors = np.asarray(embed(texts), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(
                f"embed returned shape {vectors.shape} for {len(texts)} texts; "
                "expected one row per text"
            )
    ctx = CheckInputs(sources, question, settings, vectors, judge)
    verdicts = [
        check_sentence(i + 1, sentence, i, len(sentences), ctx)
        for i, sentence in enumerate(sentences)
    ]

    triggers: list[str] = []
    if any("invalid_citation" in v.reasons for v in verdicts):
        triggers.append("invalid_citation")
    if any("malformed_citation" in v.reasons for v in verdicts):
        triggers.append("malformed_citation")
    if any(not v.supported for v in verdicts):
        triggers.append("unsupported_sentence")
    feedback = [v.feedback for v in verdicts if v.feedback]
    relevance_score: float | None = None
    if check_relevance and not triggers and relevance is not None:
        # Asked after every sentence passed: the check is about the answer as a whole, and
        # a failing answer is regenerated anyway.
        cited = sorted({n for v in verdicts for n in v.cited_sources})
        if settings.relevance_reads_answer:
            said = " ".join(strip_citations(s.text) for s in sentences)
            relevance_score = float(relevance(question, said))
        else:
            relevance_score = first_answering_source_score(
                relevance, question, [sources[n - 1] for n in cited], settings.relevance_threshold
            )
        if relevance_score + EPSILON < settings.relevance_threshold:
            triggers.append(SOURCES_DO_NOT_ANSWER)
            markers = ", ".join(f"[{n}]" for n in cited)
            feedback.append(
                f"The cited source(s) {markers} do not answer the question asked "
                f'("{question.strip()}"): answer from the source that states what was '
                "asked, or reply with the refusal sentence alone."
            )
    supported = sum(v.supported for v in verdicts)
    return result(
        passed=not triggers,
        sentences=verdicts,
        supported_ratio=supported / len(verdicts),
        triggers=triggers,
        feedback=feedback,
        citations_repaired=any(v.repaired_citation is not None for v in verdicts),
        relevance_score=relevance_score,
    )


def first_answering_source_score(
    relevance: RelevanceFn, question: str, cited_sources: Sequence[str], threshold: float
) -> float:
    """The relevance check over an answer's cited sources, by source number: the first
    score that reaches ``threshold`` (one source that answers the question is enough), else
    the best of them all.

    Stopping at the first source that answers gives the verdict asking every source would
    give, and each source not asked can save the local judge a whole reading: a source the
    support check read alone, or first of a sentence's joined sources, is restored from the
    KV cache, but one it read only after another source is read from the start (~400
    words, several seconds on 2 cores).
    """
    best = 0.0
    for source in cited_sources:
        score = float(relevance(question, source))
        if score + EPSILON >= threshold:
            return score
        best = max(best, score)
    return best

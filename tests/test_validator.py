"""Validator, grounding and refusal rules (no model: a bag-of-words fake embedding)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeguard.graph.context import Context
from citeguard.text.quantities import extract_quantities, unsupported_quantities
from citeguard.text.refusal import REFUSAL, is_refusal
from citeguard.text.tokens import lexical_overlap, tokens
from citeguard.validate.refusal_challenge import refusal_despite_strong_evidence
from citeguard.validate.settings import ValidationLevel, ValidationSettings
from citeguard.validate.validator import validate_answer
from citeguard.validate.verdicts import rejected_by_reproducible_checks


def checks(level: str, **settings: Any) -> ValidationSettings:
    """The validator's settings at ``level``, the rest a run's defaults (or ``settings``)."""
    return Context(**settings).validation_settings(level=cast(ValidationLevel, level))


PAPER = checks("paper")
STRICT = checks("strict")

RENT = "The Tenant shall pay monthly rent of $1,200 within thirty (30) days of the invoice."
TERM = "The initial term of this Lease is twelve (12) months, starting on January 5, 2021."
ASSIGN = (
    "Neither party may assign this Agreement without the prior written consent of the "
    "other party, which consent shall not be unreasonably withheld."
)
UNRELATED = "The Supplier shall maintain product liability insurance with reputable insurers."


def bag_of_words_embed(texts: Sequence[str]) -> np.ndarray:
    """Deterministic normalized vectors: token counts hashed into 256 buckets."""
    vectors = np.zeros((len(texts), 256), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            vectors[row, sum(map(ord, word)) % 256] += 1.0
        norm = np.linalg.norm(vectors[row])
        if norm:
            vectors[row] /= norm
    return vectors


# --- paper level: thresholds and citations ---------------------------------------------

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet"


def test_lexical_overlap_exactly_at_threshold_passes() -> None:
    assert len(set(tokens(WORDS))) == 10
    result = validate_answer(f"{WORDS} [1].", ["alpha"], "q?", PAPER)
    verdict = result.sentences[0]
    assert verdict.lexical_score == pytest.approx(0.10)
    assert verdict.supported and result.passed


def test_lexical_overlap_just_below_threshold_fails() -> None:
    result = validate_answer(f"{WORDS} kilo [1].", ["alpha"], "q?", PAPER)
    verdict = result.sentences[0]
    assert verdict.lexical_score == pytest.approx(1 / 11)
    assert not verdict.supported
    assert "lexical_below_threshold" in verdict.reasons
    assert result.triggers == ["unsupported_sentence"]


def _fixed_embed(cosine: float):  # type: ignore[no-untyped-def]
    """Sentence vector e1, every source vector at ``cosine`` to it."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), 2), dtype=np.float64)
        vectors[0] = [1.0, 0.0]
        vectors[1:] = [cosine, math.sqrt(1 - cosine**2)]
        return vectors

    return embed


def test_semantic_threshold_rescues_a_paraphrase_and_its_edge() -> None:
    answer, sources = "Payment happens each month [1].", ["Rent is owed monthly."]
    assert lexical_overlap(answer, sources[0]) == 0.0
    at = validate_answer(answer, sources, "q?", PAPER, embed=_fixed_embed(0.40))
    below = validate_answer(answer, sources, "q?", PAPER, embed=_fixed_embed(0.39))
    assert at.passed and at.sentences[0].semantic_score == pytest.approx(0.40)
    assert not below.passed
    assert {"lexical_below_threshold", "semantic_below_threshold"} <= set(
        below.sentences[0].reasons
    )


def test_semantic_check_skipped_without_embed_is_recorded() -> None:
    result = validate_answer("Rent is due [1].", [RENT], "q?", PAPER)
    assert result.checks_skipped == ["semantic"]
    assert result.sentences[0].semantic_score is None
    with_embed = validate_answer("Rent is due [1].", [RENT], "q?", PAPER, bag_of_words_embed)
    assert with_embed.checks_skipped == []
    assert with_embed.sentences[0].semantic_score is not None


def test_multiple_markers_use_the_union_of_cited_sources() -> None:
    answer = "The Tenant pays $1,200 monthly rent for a twelve month term [1][2]."
    result = validate_answer(answer, [RENT, TERM], "What does the lease say?", STRICT)
    verdict = result.sentences[0]
    assert verdict.cited_sources == [1, 2]
    assert verdict.supported, verdict.reasons
    single = validate_answer(answer, [RENT], "What does the lease say?", PAPER)
    assert single.sentences[0].lexical_score < verdict.lexical_score  # type: ignore[operator]


@pytest.mark.parametrize(
    "marker, trigger, reason",
    [
        ("[0]", "invalid_citation", "invalid_citation"),
        ("[3]", "invalid_citation", "invalid_citation"),
        ("[1-2]", "malformed_citation", "malformed_citation"),
        ("[1, 2]", "malformed_citation", "malformed_citation"),
        ("[1,2]", "malformed_citation", "malformed_citation"),
        ("[^1]", "malformed_citation", "malformed_citation"),
    ],
)
def test_bad_markers_fail_and_trigger(marker: str, trigger: str, reason: str) -> None:
    result = validate_answer(f"The Tenant pays $1,200 monthly {marker}.", [RENT, TERM], "q?", PAPER)
    verdict = result.sentences[0]
    assert not verdict.citation_valid and not verdict.supported
    assert reason in verdict.reasons
    assert trigger in result.triggers and "unsupported_sentence" in result.triggers
    assert marker in result.feedback[0]


def test_valid_marker_next_to_an_invalid_one_still_fails() -> None:
    result = validate_answer("The Tenant pays $1,200 [1][7].", [RENT], "q?", PAPER)
    assert result.triggers[0] == "invalid_citation"
    assert not result.sentences[0].citation_valid


def test_sentence_without_citation_is_unsupported() -> None:
    result = validate_answer(
        "The Tenant pays $1,200 monthly [1]. The rent is due in thirty days.", [RENT], "q?", PAPER
    )
    assert [v.supported for v in result.sentences] == [True, False]
    assert result.sentences[1].reasons == ["no_citation"]
    assert result.supported_ratio == 0.5
    assert not result.passed and result.triggers == ["unsupported_sentence"]
    assert len(result.feedback) == 1 and "Sentence 2" in result.feedback[0]


def test_brackets_that_are_document_text_are_not_citations() -> None:
    source = "[Landlord] shall deliver the premises [sic] in good repair."
    result = validate_answer("[Landlord] delivers the premises in good repair [1].", [source],
                             "What must the landlord do?", STRICT)  # fmt: skip
    assert result.passed, result.sentences[0].reasons
    assert result.sentences[0].markers == ["[1]"]


@pytest.mark.parametrize(
    "answer", ["The lease expires on [n] [1].", "The lease was signed on [date]. [1]"]
)
@pytest.mark.parametrize("level", ["paper", "strict"])
def test_placeholders_fail_unless_quoted(answer: str, level: str) -> None:
    source = "The lease expires on [n] and was signed on [date] by the parties."
    result = validate_answer(answer, [source], "When?", checks(level))
    verdict = result.sentences[0]
    assert "placeholder" in verdict.reasons and not verdict.supported
    assert "placeholder" in result.feedback[0]


@pytest.mark.parametrize("level", ["paper", "strict"])
def test_a_blank_of_the_document_quoted_word_for_word_is_its_text(level: str) -> None:
    source = (
        'This AGREEMENT is effective as of the [·] day of [·], 2019 ("Effective Date") '
        "between Acme Inc. and Beta LLC."
    )
    quote = source.removesuffix(".") + " [1]."
    result = validate_answer(quote, [source], "Who are the parties?", checks(level))
    assert "placeholder" not in result.sentences[0].reasons
    assert result.passed, result.sentences[0].reasons
    # The same blank in the answer's own words is still a blank the answer left unfilled.
    said = "The agreement is effective as of the [·] day of 2019 [1]."
    result = validate_answer(said, [source], "When is it effective?", checks(level))
    assert "placeholder" in result.sentences[0].reasons and not result.passed


def test_empty_answer_triggers() -> None:
    for answer in ("", "   \n"):
        result = validate_answer(answer, [RENT], "q?", STRICT)
        assert not result.passed and result.triggers == ["empty_answer"]


# --- strict level -------------------------------------------------------------------

QUESTION = "How long does the Tenant have to pay the rent?"


def test_number_not_in_evidence_fails_strict_but_passes_paper() -> None:
    answer = "The Tenant must pay the rent within 60 days of the invoice [1]."
    assert validate_answer(answer, [RENT], QUESTION, PAPER).passed
    strict = validate_answer(answer, [RENT], QUESTION, STRICT)
    assert "number_not_in_evidence" in strict.sentences[0].reasons
    assert '"60 days"' in strict.feedback[0]
    correct = "The Tenant must pay the rent within 30 days of the invoice [1]."
    assert validate_answer(correct, [RENT], QUESTION, STRICT).passed


def test_restating_the_question_fails_strict_but_passes_paper() -> None:
    answer = "The Tenant has to pay the rent [1]."
    assert validate_answer(answer, [RENT], QUESTION, PAPER).passed
    strict = validate_answer(answer, [RENT], QUESTION, STRICT)
    assert strict.sentences[0].reasons == ["restates_question"]
    assert not strict.passed


def test_content_words_missing_from_evidence_fail_strict() -> None:
    answer = "The Tenant pays the rent by wire transfer to an escrow account [1]."
    result = validate_answer(answer, [RENT], QUESTION, STRICT)
    assert "content_not_in_evidence" in result.sentences[0].reasons
    assert "escrow" in result.feedback[0]
    assert validate_answer(answer, [RENT], QUESTION, PAPER).passed


def test_citation_repair_to_the_source_that_holds_the_content() -> None:
    answer = "The initial term is twelve months from January 5, 2021 [1]."
    question = "What is the term of the lease?"
    result = validate_answer(answer, [RENT, TERM], question, STRICT)
    verdict = result.sentences[0]
    assert verdict.repaired_citation is not None
    assert verdict.repaired_citation.from_sources == [1]
    assert verdict.repaired_citation.to_sources == [2]
    assert verdict.cited_sources == [2]
    assert "better_source_available" in verdict.reasons
    assert verdict.supported and result.passed
    assert verdict.text == "The initial term is twelve months from January 5, 2021 [2]."
    assert verdict.original_text == answer
    assert result.citations_repaired
    assert result.answer_text() == verdict.text
    # The paper level does not repair (and the sentence fails against source 1).
    paper = validate_answer(answer, [RENT, TERM], question, PAPER)
    assert paper.sentences[0].repaired_citation is None


def test_no_repair_between_equally_good_overlapping_sources() -> None:
    answer = "The initial term is twelve months [1]."
    result = validate_answer(answer, [TERM, TERM + " It renews."], "What is the term?", STRICT)
    assert result.sentences[0].repaired_citation is None
    assert not result.citations_repaired
    assert result.sentences[0].original_text is None
    assert result.answer_text() == answer


def test_repair_rewrites_every_marker_of_the_sentence_in_the_delivered_answer() -> None:
    answer = "Rent is $1,200 monthly [1]. The initial term is twelve months [1][3]."
    result = validate_answer(answer, [RENT, TERM, UNRELATED], "What does the lease say?", STRICT)
    assert [v.cited_sources for v in result.sentences] == [[1], [2]]
    assert (
        result.answer_text() == "Rent is $1,200 monthly [1]. The initial term is twelve months [2]."
    )


def test_a_date_in_another_format_counts_as_stated() -> None:
    signed = "IN WITNESS WHEREOF the parties sign. DATE: 8/4/10 By: J. Smith, President"
    answer = "The agreement was signed on August 4, 2010 [1]."
    result = validate_answer(answer, [signed], "When was the agreement signed?", STRICT)
    assert result.passed, result.sentences[0].reasons
    # A different date is still caught, by both checks.
    wrong = validate_answer(
        "The agreement was signed on August 5, 2011 [1].",
        [signed],
        "When was the agreement signed?",
        STRICT,
    )
    assert {"content_not_in_evidence", "number_not_in_evidence"} <= set(wrong.sentences[0].reasons)


def test_repair_follows_the_numbers_when_the_words_do_not_decide() -> None:
    small = (
        "The Distributor shall maintain liability insurance of not less than $1 million "
        "per occurrence and $2 million in the aggregate, naming the Supplier as insured."
    )
    large = (
        "The Supplier shall maintain liability insurance of not less than $2 million per "
        "occurrence and $5 million in the aggregate, naming the Distributor as insured."
    )
    answer = (
        "The Supplier maintains insurance of not less than $2 million per occurrence and "
        "$5 million in the aggregate [1]."
    )
    result = validate_answer(answer, [small, large], "What insurance is required?", STRICT)
    verdict = result.sentences[0]
    assert verdict.repaired_citation is not None
    assert verdict.cited_sources == [2]
    assert result.passed, verdict.reasons


def test_a_yes_answer_restating_the_question_can_be_repaired() -> None:
    ip = (
        "6. Intellectual Property. The Company shall be the sole and exclusive owner of "
        "all work product, and the Consultant hereby assigns to the Company all inventions."
    )
    # Apart from "Yes" the sentence only has the question's words: those decide the source.
    answer = "Yes, the company is the owner of the work product [2]."
    question = "Is the company the owner of the work product?"
    result = validate_answer(answer, [ip, UNRELATED], question, STRICT)
    verdict = result.sentences[0]
    assert verdict.repaired_citation is not None
    assert verdict.cited_sources == [1]
    assert result.passed, verdict.reasons


def test_a_yes_answer_must_find_the_questions_terms_in_its_source() -> None:
    breach = (
        "Either party may terminate this Agreement by written notice to the breaching party "
        "if the other party materially breaches it and fails to cure within thirty days."
    )
    question = "Can a party terminate this agreement for convenience, without cause?"
    answer = (
        "Yes, a party may terminate this agreement for convenience by written notice to "
        "the breaching party [1]."
    )
    result = validate_answer(answer, [breach], question, STRICT)
    assert "yes_no_terms_not_in_evidence" in result.sentences[0].reasons
    assert "convenience" in result.feedback[0] or "convenienc" in result.feedback[0]
    # The same answer against a clause that does speak of convenience passes.
    convenience = breach + " Either party may also terminate for convenience on notice."
    assert validate_answer(answer, [convenience], question, STRICT).passed


def test_any_answer_to_a_yes_no_question_must_find_its_terms_in_its_source() -> None:
    # No "Yes"/"No" lead, same claim: the sentence still asserts the question's terms.
    survival = (
        "Termination of this Agreement for any reason shall not affect any provision which "
        "by its nature should survive, nor the rights of either Party against the other."
    )
    question = "Does the agreement provide for liquidated damages or a termination fee?"
    answer = (
        "The agreement provides for liquidated damages on termination, which shall not "
        "affect the rights of either Party against the other [1]."
    )
    result = validate_answer(answer, [survival], question, STRICT)
    assert "yes_no_terms_not_in_evidence" in result.sentences[0].reasons
    assert any("liquidated" in line for line in result.feedback)
    damages = survival + " The defaulting Party shall pay liquidated damages of $5,000."
    assert validate_answer(answer, [damages], question, STRICT).passed
    # The same sentence answering an open question is not held to the question's terms.
    open_question = "What happens to the rights of the parties when the agreement ends?"
    open_result = validate_answer(answer, [survival], open_question, STRICT)
    assert "yes_no_terms_not_in_evidence" not in open_result.sentences[0].reasons


ASSIGN_QUESTION = "Can a party assign this agreement, and is the other party's consent required?"


def test_yes_no_exemption_passes_when_the_source_is_about_the_question() -> None:
    answer = "Yes, a party can assign this agreement with the other party's consent [1]."
    result = validate_answer(answer, [ASSIGN], ASSIGN_QUESTION, STRICT)
    assert result.passed, result.sentences[0].reasons
    # The same words without "Yes" only restate the question.
    restated = validate_answer(answer[5:].capitalize(), [ASSIGN], ASSIGN_QUESTION, STRICT)
    assert restated.sentences[0].reasons == ["restates_question"]


def test_yes_no_exemption_applies_to_yes_no_questions_only() -> None:
    answer = "Yes, a party can assign this agreement with the other party's consent [1]."
    question = "When can a party assign this agreement with the other party's consent?"
    result = validate_answer(answer, [ASSIGN], question, STRICT)
    assert result.sentences[0].reasons == ["restates_question"]


def test_yes_no_exemption_needs_an_on_topic_source() -> None:
    source = "Each party shall keep this agreement confidential."
    answer = "Yes, a party can assign this agreement [1]."
    result = validate_answer(answer, [source], ASSIGN_QUESTION, STRICT)
    assert "yes_no_unsupported" in result.sentences[0].reasons


def test_yes_no_with_extra_content_must_be_supported() -> None:
    good = "No, consent of the other party is required and shall not be unreasonably withheld [1]."
    bad = "No, assignment is permitted only after a five year lock-up [1]."
    assert validate_answer(good, [ASSIGN], ASSIGN_QUESTION, STRICT).passed
    assert not validate_answer(bad, [ASSIGN], ASSIGN_QUESTION, STRICT).passed


# --- judge level --------------------------------------------------------------------


def test_judge_level_uses_the_judge_threshold() -> None:
    answer = "The Tenant must pay the rent within 30 days of the invoice [1]."
    judge_settings = checks("judge")
    calls: list[tuple[str, str]] = []

    def judge(claim: str, evidence: str) -> float:
        calls.append((claim, evidence))
        return 0.5

    result = validate_answer(answer, [RENT], QUESTION, judge_settings, judge=judge)
    assert result.passed and result.sentences[0].judge_score == 0.5
    assert calls == [("The Tenant must pay the rent within 30 days of the invoice.", RENT)]
    low = validate_answer(answer, [RENT], QUESTION, judge_settings, judge=lambda c, e: 0.49)
    assert "judge_unsupported" in low.sentences[0].reasons and not low.passed
    skipped = validate_answer(answer, [RENT], QUESTION, judge_settings)
    assert "judge" in skipped.checks_skipped and skipped.passed


def test_judge_is_not_asked_about_sentences_that_already_failed() -> None:
    def judge(claim: str, evidence: str) -> float:
        raise AssertionError("judge called")

    result = validate_answer(
        "Rent is due in 90 days [1].",
        [RENT],
        QUESTION,
        checks("judge"),
        judge=judge,
    )
    assert not result.passed


RELEVANCE = checks("judge")  # relevance_check is on by default


def test_relevance_check_asks_each_cited_source_once_in_order_until_one_answers() -> None:
    answer = (
        "The initial term is twelve (12) months [2]. "
        "The Tenant must pay the rent within 30 days of the invoice [1]. The rent is $1,200 [1]."
    )
    asked: list[tuple[str, str]] = []

    def relevance(question: str, evidence: str) -> float:
        asked.append((question, evidence))
        return 0.9 if evidence == RENT else 0.1

    # Source [1] answers: one reading is enough, and [2] is never read.
    result = validate_answer(
        answer, [RENT, TERM], QUESTION, RELEVANCE, judge=lambda c, e: 0.9, relevance=relevance
    )
    assert result.passed and result.relevance_score == 0.9
    assert asked == [(QUESTION, RENT)]
    assert result.to_json()["relevance_score"] == 0.9

    # Source [1] does not answer: [2] is read too, and its answer is enough.
    asked.clear()
    swapped = validate_answer(
        answer, [TERM, RENT], QUESTION, RELEVANCE, judge=lambda c, e: 0.9, relevance=relevance
    )
    assert swapped.passed and swapped.relevance_score == 0.9
    assert asked == [(QUESTION, TERM), (QUESTION, RENT)]


def test_relevance_check_fails_with_the_best_score_when_no_cited_source_answers() -> None:
    answer = "The initial term is twelve (12) months [2]. The rent is $1,200 [1]."
    scores = {RENT: 0.3, TERM: 0.45}
    asked: list[str] = []

    def relevance(question: str, evidence: str) -> float:
        asked.append(evidence)
        return scores[evidence]

    result = validate_answer(
        answer, [RENT, TERM], QUESTION, RELEVANCE, judge=lambda c, e: 0.9, relevance=relevance
    )
    assert not result.passed and result.triggers == ["sources_do_not_answer_question"]
    assert result.relevance_score == 0.45
    assert asked == [RENT, TERM]


def test_relevance_reads_the_answer_instead_of_its_sources_when_asked_to() -> None:
    """The passage answer's relevance is judged on the sentences it quotes, once."""
    answer = (
        "The Tenant must pay the rent within 30 days of the invoice [1]. "
        "The initial term is twelve (12) months [2]."
    )
    asked: list[str] = []

    def relevance(question: str, evidence: str) -> float:
        asked.append(evidence)
        return 0.8

    settings = replace(RELEVANCE, relevance_reads_answer=True)
    result = validate_answer(
        answer, [RENT, TERM], QUESTION, settings, judge=lambda c, e: 0.9, relevance=relevance
    )
    assert result.passed and result.relevance_score == 0.8
    assert asked == [
        "The Tenant must pay the rent within 30 days of the invoice. "
        "The initial term is twelve (12) months."
    ]
    rejected = validate_answer(
        answer, [RENT, TERM], QUESTION, settings, judge=lambda c, e: 0.9, relevance=lambda q, e: 0.2
    )
    assert rejected.triggers == ["sources_do_not_answer_question"]


def test_an_answer_whose_sources_do_not_answer_the_question_fails_with_feedback() -> None:
    answer = "The Tenant must pay the rent within 30 days of the invoice [1]."
    question = "What fee does the Tenant pay to end the lease early?"
    result = validate_answer(
        answer, [RENT], question, RELEVANCE, judge=lambda c, e: 0.9, relevance=lambda q, e: 0.42
    )
    assert not result.passed and not result.is_refusal
    assert result.triggers == ["sources_do_not_answer_question"]
    # Every sentence is still supported: the failure is the answer's, not a sentence's.
    assert all(v.supported for v in result.sentences)
    assert "[1]" in result.feedback_text and question in result.feedback_text
    assert "refusal sentence" in result.feedback_text
    at_threshold = validate_answer(
        answer, [RENT], question, RELEVANCE, judge=lambda c, e: 0.9, relevance=lambda q, e: 0.5
    )
    assert at_threshold.passed


def test_relevance_is_not_asked_when_off_below_judge_or_after_a_failure() -> None:
    def relevance(question: str, evidence: str) -> float:
        raise AssertionError("relevance asked")

    good = "The Tenant must pay the rent within 30 days of the invoice [1]."
    judge_only = checks("judge", relevance_check=False)
    assert validate_answer(
        good, [RENT], QUESTION, judge_only, judge=lambda c, e: 0.9, relevance=relevance
    ).passed
    strict = checks("strict", relevance_check=True)
    assert validate_answer(good, [RENT], QUESTION, strict, relevance=relevance).passed
    unsupported = validate_answer(
        "Rent is due in 90 days [1].", [RENT], QUESTION, RELEVANCE, judge=lambda c, e: 0.9,
        relevance=relevance,
    )  # fmt: skip
    assert not unsupported.passed and unsupported.relevance_score is None
    refusal = validate_answer(REFUSAL, [UNRELATED], QUESTION, RELEVANCE, relevance=relevance)
    assert refusal.passed and refusal.is_refusal
    without = validate_answer(good, [RENT], QUESTION, RELEVANCE, judge=lambda c, e: 0.9)
    assert without.passed and "relevance" in without.checks_skipped


# A long source: the rent clause among unrelated clauses, over the judge's word budget.
_FILLER = [
    f"Clause {n}. The Landlord shall keep the common hallway number {n} lit and swept "
    "every week, and shall post the cleaning schedule near the mailboxes."
    for n in range(1, 9)
]
LONG_SOURCE = " ".join([*_FILLER[:4], RENT, *_FILLER[4:]])


def test_judge_reads_the_cited_sources_sentences_nearest_the_claim() -> None:
    seen: list[str] = []

    def judge(claim: str, evidence: str) -> float:
        seen.append(evidence)
        return 0.9

    answer = "The Tenant shall pay monthly rent of $1,200 [1]."
    settings_ = checks("judge", judge_evidence_words=30)
    result = validate_answer(answer, [LONG_SOURCE], QUESTION, settings_, judge=judge)
    assert result.passed
    assert seen == [RENT]  # the rent sentence alone fits the 30 words; no filler clause

    seen.clear()
    whole = checks("judge")  # the default: whole sources
    validate_answer(answer, [LONG_SOURCE], QUESTION, whole, judge=judge)
    assert seen == [LONG_SOURCE]


def test_judge_evidence_of_two_cited_sources_is_focused_per_source() -> None:
    seen: list[str] = []

    def judge(claim: str, evidence: str) -> float:
        seen.append(evidence)
        return 0.9

    other = " ".join([*_FILLER[4:], "The Tenant shall pay rent by bank transfer.", *_FILLER[:4]])
    answer = "The Tenant shall pay monthly rent of $1,200 by bank transfer [1][2]."
    settings_ = checks("judge", judge_evidence_words=30)
    validate_answer(answer, [LONG_SOURCE, other], QUESTION, settings_, judge=judge)
    assert seen == [RENT + "\nThe Tenant shall pay rent by bank transfer."]


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="level"):
        replace(STRICT, level="lenient")
    with pytest.raises(ValueError, match="judge_evidence_words"):
        replace(STRICT, judge_evidence_words=-1)
    with pytest.raises(ValueError, match="lexical_threshold"):
        replace(STRICT, lexical_threshold=1.5)


# --- refusal ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        REFUSAL,
        REFUSAL.lower(),
        REFUSAL.upper(),
        REFUSAL.rstrip("."),
        f"  {REFUSAL}\n",
        REFUSAL.replace(" ", "   "),
        f"“{REFUSAL}”",
        f'"{REFUSAL}"',
        f"{REFUSAL} [1]",
        f"{REFUSAL[:-1]} [2].",
        "The agreement does not contain sufficient information to answer this question [3].",
        "The provided sources do not contain enough information to answer the question.",
    ],
)
def test_refusal_variants_are_detected(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sorry, the document does not contain sufficient information to answer this question.",
        "The document does not contain the rent amount.",
        "The lease does not contain sufficient information to answer this question about pets.",
        "The agreement does not contain sufficient information on the renewal term [2].",
        "Yes, the document does not contain sufficient information to answer this question.",
        f"{REFUSAL} However, the rent is $1,200 [1].",
        "",
    ],
)
def test_non_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_clean_refusal_passes_without_triggers() -> None:
    result = validate_answer(REFUSAL, [UNRELATED], ASSIGN_QUESTION, STRICT)
    assert result.is_refusal and result.passed and result.triggers == []


def test_refusal_despite_strong_evidence() -> None:
    assert refusal_despite_strong_evidence(ASSIGN_QUESTION, [UNRELATED, ASSIGN])
    assert not refusal_despite_strong_evidence(ASSIGN_QUESTION, [UNRELATED])
    challenging = checks("strict", challenge_refusals=True)
    result = validate_answer(REFUSAL, [UNRELATED, ASSIGN], ASSIGN_QUESTION, challenging)
    assert result.is_refusal and not result.passed
    assert result.triggers == ["refusal_despite_strong_evidence"]
    assert "[2]" in result.feedback[0]
    # Off by default: the refusal stands.
    default = validate_answer(REFUSAL, [UNRELATED, ASSIGN], ASSIGN_QUESTION, STRICT)
    assert default.is_refusal and default.passed and default.triggers == []


def test_refusal_rule_respects_retrieval_scores_and_short_questions() -> None:
    assert not refusal_despite_strong_evidence(
        ASSIGN_QUESTION, [ASSIGN], retrieval_scores=[0.1], min_retrieval_score=0.3
    )
    assert refusal_despite_strong_evidence(
        ASSIGN_QUESTION, [ASSIGN], retrieval_scores=[0.5], min_retrieval_score=0.3
    )
    assert not refusal_despite_strong_evidence("Assign?", [ASSIGN])


def test_refusal_mixed_with_an_answer_fails() -> None:
    answer = f"The Tenant pays $1,200 monthly [1]. {REFUSAL}"
    result = validate_answer(answer, [RENT], QUESTION, PAPER)
    assert not result.is_refusal
    assert "mixed_refusal" in result.sentences[1].reasons and not result.passed


# --- grounding ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second",
    [
        ("thirty (30) days", "30 days"),
        ("$1,000", "1000 dollars"),
        ("5%", "five percent"),
        ("January 5, 2021", "5th day of January, 2021"),
        ("January 5, 2021", "01/05/2021"),
        ("twelve (12) months", "12 months"),
    ],
)
def test_quantity_forms_normalize_alike(first: str, second: str) -> None:
    (a,) = extract_quantities(first)
    (b,) = extract_quantities(second)
    assert (a.kind, a.value) == (b.kind, b.value)


def test_quantities_in_sentence_must_be_in_evidence() -> None:
    assert unsupported_quantities("Due within 30 days [1].", RENT) == []
    assert [q.text for q in unsupported_quantities("Due within 60 days [1].", RENT)] == ["60 days"]
    assert unsupported_quantities("The term started in 2021 [1].", TERM) == []
    # "one" on its own is a pronoun-like word, and markers are not numbers.
    assert extract_quantities("one of the parties") == []
    assert unsupported_quantities("One party may assign [3].", ASSIGN) == []


def test_tokens_drop_stopwords_and_join_inflections() -> None:
    assert tokens("The Tenant terminated the leases") == tokens("tenant terminates lease")
    assert tokens("of the and shall") == []
    assert lexical_overlap("[1]", "anything") == 0.0


# --- serialisation and robustness ---------------------------------------------------


def test_result_is_json_serialisable_with_feedback_text() -> None:
    result = validate_answer(
        "The initial term is twelve months from January 5, 2021 [1]. Rent is due in [n].",
        [RENT, TERM],
        "What is the term?",
        STRICT,
        embed=bag_of_words_embed,
    )
    data = json.loads(json.dumps(result.to_json()))
    assert data["passed"] is False
    assert data["sentences"][0]["repaired_citation"]["to_sources"] == [2]
    assert isinstance(data["sentences"][0]["semantic_score"], float)
    assert data["feedback"].startswith("- Sentence 2")
    assert data["feedback"] == result.feedback_text
    # The candidate's words travel only in sentence texts and the feedback text, which
    # the graph drops before showing a refused run.
    for sentence in data["sentences"]:
        sentence.pop("text")
    data.pop("feedback")
    assert "Rent is due" not in json.dumps(data)
    assert "Rent is due" in result.answer


def test_embed_with_wrong_shape_is_an_error() -> None:
    with pytest.raises(ValueError, match="one row per text"):
        validate_answer("Rent [1].", [RENT], "q?", STRICT, embed=lambda texts: np.zeros((1, 4)))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=200),
    st.lists(st.text(max_size=200), max_size=4),
    st.text(max_size=60),
    st.sampled_from(["paper", "strict", "judge"]),
)
def test_validate_answer_never_raises(
    answer: str, sources: list[str], question: str, level: str
) -> None:
    result = validate_answer(
        answer,
        sources,
        question,
        checks(level),
        embed=bag_of_words_embed,
        judge=lambda claim, evidence: 0.7,
    )
    json.dumps(result.to_json())
    assert result.passed == (not result.triggers)
    assert 0.0 <= result.supported_ratio <= 1.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["[1]", "[2]", "[0]", "[1-2]", "[n]", "Rent", "is", "due", ".", " ", "$1,200", "No"]
        ),
        max_size=20,
    )
)
def test_validate_answer_on_marker_soup(pieces: list[str]) -> None:
    result = validate_answer(" ".join(pieces), [RENT, TERM], QUESTION, STRICT)
    for verdict in result.sentences:
        assert verdict.supported == (
            verdict.citation_valid
            and not [r for r in verdict.reasons if r != "better_source_available"]
        )


# --- which rejections repeat ---------------------------------------------------------


def test_rejections_by_deterministic_checks_are_reproducible() -> None:
    lexical = validate_answer(
        "The Tenant must mow the lawn every Sunday [1].", [RENT], QUESTION, STRICT
    )
    assert not lexical.passed and rejected_by_reproducible_checks(lexical.to_json())
    invalid = validate_answer(
        "The Tenant has thirty (30) days to pay [9].", [RENT], QUESTION, STRICT
    )
    assert not invalid.passed and rejected_by_reproducible_checks(invalid.to_json())


def test_rejections_by_the_model_judges_alone_are_not_reproducible() -> None:
    answer = "The Tenant has thirty (30) days of the invoice to pay the rent [1]."
    judged = validate_answer(answer, [RENT], QUESTION, checks("judge"), judge=lambda c, e: 0.1)
    assert not judged.passed and "judge_unsupported" in judged.sentences[0].reasons
    assert not rejected_by_reproducible_checks(judged.to_json())
    off_topic = validate_answer(
        answer,
        [RENT],
        QUESTION,
        checks("judge"),
        judge=lambda c, e: 0.9,
        relevance=lambda q, e: 0.1,
    )
    assert off_topic.triggers == ["sources_do_not_answer_question"]
    assert not rejected_by_reproducible_checks(off_topic.to_json())
    accepted = validate_answer(answer, [RENT], QUESTION, PAPER)
    assert accepted.passed and not rejected_by_reproducible_checks(accepted.to_json())


def test_a_word_for_word_quote_is_supported_without_the_judge_only_when_asked() -> None:
    from citeguard.validate.checks import is_verbatim

    source = (
        "The Licensee shall pay a royalty of five percent (5%) of Net Sales.\n"
        "Payments are due quarterly."
    )
    quote = "The licensee shall pay a royalty of five percent (5%) of Net   Sales. [1]"
    assert is_verbatim(
        "the licensee shall pay a royalty of five percent (5%) of net sales.", source
    )
    assert not is_verbatim("The Licensee shall pay a royalty of six percent.", source)
    assert not is_verbatim("  ", source)
    # A quote must end where the document's phrase ends, closing punctuation aside.
    assert not is_verbatim("The Licensee shall pay a royalty.", source)
    assert is_verbatim("Payments are due quarterly", source)
    heading = "ACME LTD.\n\nand\n\nBETA HOLDINGS PLC\n\nMADE ON THE 19 DAY OF MAY , 2010\n"
    assert is_verbatim("BETA HOLDINGS PLC.", heading)
    assert is_verbatim("Made on the 19 day of May, 2010.", heading)
    assert not is_verbatim("BETA HOLDINGS.", heading)
    assert not is_verbatim("TA HOLDINGS PLC.", heading)
    asked: list[str] = []

    def judge(claim: str, evidence: str) -> float:
        asked.append(claim)
        return 0.2

    settings = Context().validation_settings("judge")
    rejected = validate_answer(quote, [source], "What royalty?", settings, judge=judge)
    assert not rejected.passed and asked
    asked.clear()
    quoting = replace(settings, quotes_are_supported=True, relevance_check=False)
    accepted = validate_answer(quote, [source], "What royalty?", quoting, judge=judge)
    assert accepted.passed and not asked
    reworded = "The licensee owes a five percent royalty on Net Sales [1]."
    assert not validate_answer(reworded, [source], "What royalty?", quoting, judge=judge).passed
    assert asked  # words of its own: judged as ever

"""Each evaluation metric on hand-built cases with known answers (0, 1 and in between)."""

from __future__ import annotations

from typing import Any

import pytest

from citeguard.evaluation.citation_judge import judge_citations, unsupported_only_quotes
from citeguard.evaluation.dataset import GoldSpan, Question
from citeguard.evaluation.matching import covered_fraction
from citeguard.evaluation.metrics import (
    citation_valid,
    cites_gold,
    context_recall,
    page_hit,
    percentile,
    quotes_gold,
    rescore,
    score_result,
    span_hit,
    summarize,
    token_f1,
)
from citeguard.generate.prompts import REFUSAL

RENT = "Tenant shall pay monthly rent of 1,250 dollars on the first day of each month."
DEPOSIT = "Landlord shall return the security deposit within 30 days after move out."
PETS = "Tenant may keep one cat with written consent of the landlord."


def chunk(text: str, pages: tuple[int, int] = (1, 1), doc: str = "lease.pdf") -> dict[str, Any]:
    return {"text": text, "pdf_pages": list(pages), "doc": doc}


# --------------------------------------------------------------------------- retrieval


def test_span_hit() -> None:
    assert span_hit(["pay monthly rent of 1,250 dollars"], [DEPOSIT, RENT])
    assert not span_hit(["pay monthly rent of 1,250 dollars"], [DEPOSIT, PETS])
    # Half of the span's characters in one run is enough; less is not.
    # 25 of the span's 43 normalized characters are one run of the chunk: 58% >= 50%.
    most = "Tenant shall pay monthly rent. Unrelated words here"
    assert span_hit([most], [RENT])
    assert not span_hit(["rent" + " unrelated filler text here" * 3], [RENT])
    assert not span_hit([], [RENT])


def test_short_spans_only_match_whole() -> None:
    # Half of "NTL" is "nt", which nearly every text contains: a short span must be whole.
    assert not span_hit(["NTL"], ["Tenant shall pay"])
    assert not span_hit(["Vertex"], ["every vertical"])
    assert span_hit(["NTL"], ["NTL Inc. shall pay"])
    assert span_hit(["1,250"], [RENT])


def test_page_hit() -> None:
    assert page_hit([3], [(1, 1), (2, 4)])
    assert not page_hit([5], [(1, 1), (2, 4)])
    assert not page_hit([1], [])


def test_context_recall_zero_one_and_partial() -> None:
    assert context_recall([RENT], [RENT]) == 1.0
    assert context_recall([RENT], [PETS]) == 0.0
    # Two spans, one fully present and one absent: weighted by span length.
    both = context_recall([RENT, DEPOSIT], [RENT])
    rent_len, dep_len = 55, 52  # normalized characters (letters and digits)
    assert both == pytest.approx(rent_len / (rent_len + dep_len), abs=0.02)


def test_covered_fraction_unions_runs_across_chunks() -> None:
    first, second = RENT[:40], RENT[40:]
    assert covered_fraction(RENT, [first, second]) == pytest.approx(1.0)
    assert covered_fraction(RENT, [first]) == pytest.approx(0.5, abs=0.1)


# --------------------------------------------------------------------------- answers


def test_token_f1() -> None:
    assert token_f1("On the first day of each month [1].", "on the first day of each month") == 1.0
    assert token_f1("Thirty days [2].", "on the first of the month") == 0.0
    # prediction {monthly, rent, due}, reference {rent, due, first}: P = R = 2/3.
    assert token_f1("Monthly rent due.", "rent due first") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0
    assert token_f1(REFUSAL, "") == 0.0


def test_citation_validity() -> None:
    assert citation_valid("Rent is due monthly [1]. Deposits return [2].", 2)
    assert not citation_valid("Rent is due monthly [3].", 2)
    assert not citation_valid("Rent is due monthly.", 2)  # no citation at all
    assert not citation_valid("Rent is due monthly [1-2].", 2)  # malformed


def test_cites_gold_by_span_then_by_page() -> None:
    evidence = [chunk(PETS, (4, 4)), chunk(RENT, (2, 2))]
    assert cites_gold("Rent is monthly [2].", evidence, ["monthly rent of 1,250 dollars"])
    assert not cites_gold("Rent is monthly [1].", evidence, ["monthly rent of 1,250 dollars"])
    assert cites_gold("Rent is monthly [2].", evidence, [], [2])
    assert not cites_gold("Rent is monthly [1].", evidence, [], [2])
    assert cites_gold("Rent is monthly [1].", evidence, [], []) is None


# --------------------------------------------------------------------------- judge


def keyword_judge(claim: str, evidence: str) -> float:
    """Supported when every word of the claim longer than 3 letters is in the evidence."""
    words = [w.strip(".,").lower() for w in claim.split() if len(w.strip(".,")) > 3]
    return 0.9 if all(w in evidence.lower() for w in words) else 0.1


def test_judge_all_supported_and_precise() -> None:
    verdict = judge_citations("Tenant shall pay monthly rent [1].", [RENT, PETS], keyword_judge)
    assert (verdict.recall, verdict.precision, verdict.unsupported) == (1.0, 1.0, False)


def test_judge_nothing_supported() -> None:
    verdict = judge_citations("Tenant shall pay monthly rent [2].", [RENT, PETS], keyword_judge)
    assert (verdict.recall, verdict.precision, verdict.unsupported) == (0.0, 0.0, True)
    uncited = judge_citations("Tenant shall pay monthly rent.", [RENT], keyword_judge)
    assert (uncited.recall, uncited.precision, uncited.unsupported) == (0.0, 0.0, True)


def test_judge_partial_recall_and_irrelevant_citation() -> None:
    answer = "Tenant shall pay monthly rent [1][2]. Tenant keeps dogs [2]."
    verdict = judge_citations(answer, [RENT, PETS], keyword_judge)
    # Sentence 1 is supported by [1]+[2]; [2] alone does not support it while [1] alone
    # does, so [2] is irrelevant (ALCE precision). Sentence 2 is unsupported.
    assert verdict.recall == 0.5
    assert verdict.precision == pytest.approx(1 / 3)
    assert verdict.unsupported
    assert verdict.sentences[0].precise == [True, False]


def test_judge_threshold_is_inclusive() -> None:
    verdict = judge_citations("Anything at all [1].", ["x"], lambda c, e: 0.5, threshold=0.5)
    assert verdict.recall == 1.0


# --------------------------------------------------------------------------- per question


def question(answerable: bool = True, **kw: Any) -> Question:
    spans = kw.pop("spans", ("monthly rent of 1,250 dollars",) if answerable else ())
    return Question(
        id=kw.pop("id", "q"),
        question=kw.pop("text", "When is rent due?"),
        answerable=answerable,
        gold_spans=tuple(GoldSpan(s) for s in spans),
        **kw,
    )


def state(answer: str, status: str = "answered", **kw: Any) -> dict[str, Any]:
    evidence = kw.pop("evidence", [chunk(RENT, (2, 2)), chunk(PETS, (4, 4))])
    return {
        "answer": answer,
        "status": status,
        "retrieved": kw.pop("retrieved", evidence),
        "evidence": evidence,
        **kw,
    }


def test_score_correct_grounded_answer() -> None:
    q = question(gold_pages=(2,), reference_answer="1,250 dollars monthly")
    scores = score_result(q, state("Tenant shall pay monthly rent of 1,250 dollars [1]."))
    assert scores["correct"] and scores["grounded"] and scores["hit"] and scores["page_hit"]
    assert scores["citation_valid"] and scores["evidence_supported"]
    assert scores["hallucination"] is False
    assert scores["citation_recall"] is None  # no judgement given


def quote(text: str, page: int = 1) -> dict[str, Any]:
    return {"marker": 1, "quote": text, "pdf_page": page}


def test_quotes_gold_by_span_either_way_then_by_page() -> None:
    clause = "Tenant shall pay monthly rent of 1,250 dollars on the first day of each month"
    # A quote holding a short span whole, and a sentence lying inside a longer span.
    assert quotes_gold([quote("Rent is 1,250 dollars.")], ["1,250 dollars"]) is True
    assert quotes_gold([quote("Tenant shall pay monthly rent of 1,250 dollars")], [clause])
    # The same chunk's other sentence holds no gold.
    assert quotes_gold([quote("Tenant may keep one cat.")], [clause]) is False
    assert quotes_gold([quote("x", page=3)], [], gold_pages=[3]) is True
    assert quotes_gold([quote("x", page=2)], [], gold_pages=[3]) is False
    assert quotes_gold([], [clause]) is None


def test_answer_from_the_gold_chunk_but_another_sentence_is_right_only_by_the_chunk() -> None:
    one_chunk = [chunk(RENT + " " + PETS, (2, 2))]
    answer = "Tenant may keep one cat with written consent of the landlord [1]."
    scores = score_result(
        question(),
        state(answer, evidence=one_chunk, citations=[quote(PETS, page=2)]),
    )
    assert scores["correct"] is True and scores["grounded"] is True
    assert scores["quoted_gold"] is False and scores["correct_quoted"] is False
    right = state(answer, evidence=one_chunk, citations=[quote(RENT, page=2)])
    assert score_result(question(), right)["correct_quoted"] is True
    # Records without quotes keep the chunk rule.
    assert score_result(question(), state(answer, evidence=one_chunk))["correct_quoted"] is True


def test_score_answer_citing_the_wrong_chunk_is_a_hallucination() -> None:
    scores = score_result(question(), state("Tenant may keep one cat [2]."))
    assert scores["grounded"] is False
    assert not scores["correct"]
    assert scores["hallucination"] is True


def test_score_refusals() -> None:
    refused = state(REFUSAL, status="refused")
    answerable = score_result(question(reference_answer="monthly"), refused)
    assert not answerable["correct"] and answerable["token_f1"] == 0.0
    assert answerable["citation_valid"] is None and answerable["hallucination"] is None
    unanswerable = score_result(question(answerable=False), refused)
    assert unanswerable["correct"] and unanswerable["hit"] is None


def test_score_regeneration_flags() -> None:
    accepted = state("x [1].", regenerations=1, last_validation={"passed": True})
    rejected = state(REFUSAL, "refused", regenerations=1, last_validation={"passed": False})
    assert score_result(question(), accepted)["regeneration_accepted"] is True
    assert score_result(question(), rejected)["regeneration_accepted"] is False
    assert score_result(question(), state("x [1]."))["regenerated"] is False


def test_rescore_recomputes_label_scores_and_keeps_model_scores() -> None:
    q = question()
    stale = {
        "id": "q",
        **state("Tenant may keep one cat [2]."),
        "scores": {"correct": True, "grounded": True, "evidence_supported": "kept"},
    }
    scores = rescore(stale, q)["scores"]
    assert scores["correct"] is False and scores["grounded"] is False
    assert scores["hallucination"] is True
    assert scores["evidence_supported"] == "kept"
    error = {"id": "q", "error": "boom"}
    assert rescore(error, q) == error


# --------------------------------------------------------------------------- summary


def record(**scores: Any) -> dict[str, Any]:
    base = {
        "answerable": True,
        "answered": True,
        "correct": True,
        "hallucination": False,
        "regenerated": False,
        "regeneration_accepted": False,
    }
    return {"scores": {**base, **scores}, "seconds": 1.0, "timings": {"retrieval": 0.5}}


def test_summary_rates_and_denominators() -> None:
    records = [
        record(),
        record(correct=False, hallucination=True, regenerated=True),
        record(answered=False, correct=False, hallucination=None),
        record(answerable=False, answered=False, hallucination=None),
        record(answerable=False, correct=False, hallucination=True),
        {"id": "broken", "error": "ValueError: boom"},
    ]
    s = summarize(records)
    assert (s["n_questions"], s["n_scored"], s["n_errors"], s["n_answered"]) == (6, 5, 1, 3)
    assert s["answer_accuracy"] == 0.4  # the first and the refused unanswerable one
    assert s["answer_accuracy_quoted"] is None  # no record has the quote-level score
    assert s["hallucination_rate"] == pytest.approx(2 / 3)  # over answered
    assert s["false_refusal_rate"] == pytest.approx(1 / 3)  # over answerable
    assert s["true_refusal_rate"] == 0.5 and s["false_answer_rate"] == 0.5
    assert s["regeneration_attempt_rate"] == 0.2
    assert s["regeneration_accepted_rate"] == 0.0
    assert s["hit@k"] is None  # no question had a span-hit score
    assert s["seconds_per_question"] == {"p50": 1.0, "p95": 1.0, "mean": 1.0}
    assert s["seconds_per_stage"]["generation"]["p50"] == 0.0


def test_summary_extremes() -> None:
    all_right = summarize([record(), record()])
    assert all_right["answer_accuracy"] == 1.0 and all_right["hallucination_rate"] == 0.0
    all_wrong = summarize([record(correct=False, hallucination=True)])
    assert all_wrong["answer_accuracy"] == 0.0 and all_wrong["hallucination_rate"] == 1.0
    assert summarize([])["answer_accuracy"] is None
    quoted = summarize([record(correct_quoted=True), record(correct_quoted=False)])
    assert quoted["answer_accuracy"] == 1.0 and quoted["answer_accuracy_quoted"] == 0.5


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 95) == pytest.approx(95.05)
    assert percentile([], 50) is None


def test_unsupported_answers_made_only_of_quotes_are_told_apart() -> None:
    def doubting(claim: str, evidence: str) -> float:
        return 0.1

    quoted = judge_citations(
        "Tenant may keep one cat with written consent of the landlord [1].", [PETS], doubting
    )
    assert quoted.unsupported and unsupported_only_quotes(quoted, [PETS])
    reworded = judge_citations(
        "Tenant may keep a cat if the landlord agrees [1].", [PETS], doubting
    )
    assert reworded.unsupported and not unsupported_only_quotes(reworded, [PETS])
    mixed = judge_citations(
        "Tenant may keep one cat with written consent of the landlord [1]. Dogs are fine [1].",
        [PETS],
        doubting,
    )
    assert not unsupported_only_quotes(mixed, [PETS])
    accepted = judge_citations("Tenant shall pay monthly rent [1].", [RENT], keyword_judge)
    assert not accepted.unsupported and not unsupported_only_quotes(accepted, [RENT])

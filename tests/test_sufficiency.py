"""The sufficiency rule, as a plain library: word rules, the scorer's floor, and the
scorer's confident passage overriding the word rules."""

from __future__ import annotations

from citeguard.validate.sufficiency import assess_sufficiency

QUESTION = "When does this agreement become effective?"
DATED = {
    "text": "This Agreement is dated as of March 3, 2019 by and between Alpha Inc. and Beta LLC.",
    "dense_score": 0.5,
}


def test_words_of_the_question_absent_from_the_evidence_refuse() -> None:
    verdict = assess_sufficiency(QUESTION, [DATED], 0.2, 0.25)
    assert verdict["sufficient"] is False
    assert verdict["reason"] == "question_terms_absent"
    assert len(verdict["missing_terms"]) == 2  # "become", "effective"


def test_a_passage_the_scorer_is_sure_of_overrides_the_word_rules() -> None:
    scored = {**DATED, "answer_score": 0.9}
    verdict = assess_sufficiency(
        QUESTION, [scored], 0.2, 0.25, min_answer_score=0.1, confident_answer_score=0.8
    )
    assert verdict["sufficient"] is True
    assert verdict["overridden"] == "question_terms_absent"
    # Below the answer threshold the word rule stands.
    unsure = {**DATED, "answer_score": 0.7}
    verdict = assess_sufficiency(
        QUESTION, [unsure], 0.2, 0.25, min_answer_score=0.1, confident_answer_score=0.8
    )
    assert verdict["reason"] == "question_terms_absent" and "overridden" not in verdict
    # The cosine floor too, in the modes that have one.
    far = {**scored, "dense_score": 0.05}
    verdict = assess_sufficiency(
        QUESTION, [far], 0.2, 0.25, min_answer_score=0.1, confident_answer_score=0.8
    )
    assert verdict["sufficient"] is True and verdict["overridden"] == "low_similarity"


def test_without_a_confident_score_the_floor_decides_words_aside() -> None:
    covered = {"text": "The Agreement becomes effective on signature.", "dense_score": 0.5}
    low = {**covered, "answer_score": 0.05}
    verdict = assess_sufficiency(QUESTION, [low], 0.2, 0.25, min_answer_score=0.1)
    assert verdict["reason"] == "no_answering_passage"
    assert assess_sufficiency(QUESTION, [covered], 0.2, 0.25, min_answer_score=0.1)["sufficient"]
    assert assess_sufficiency(QUESTION, [], 0.2, 0.25)["reason"] == "no_evidence"

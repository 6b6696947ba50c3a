"""The sufficiency rule, as a plain library: word rules without a scorer; with one, its
floor decides and a passage reaching it overrides the word rules."""

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


def test_a_passage_at_the_scorers_floor_overrides_the_word_rules() -> None:
    # Everyday words the passage never needed: the scorer, not the words, decides.
    scored = {**DATED, "answer_score": 0.15}
    verdict = assess_sufficiency(QUESTION, [scored], 0.2, 0.25, min_answer_score=0.1)
    assert verdict["sufficient"] is True
    assert verdict["overridden"] == "question_terms_absent"
    # Under the floor the question is refused (the word rule's reason is kept).
    unsure = {**DATED, "answer_score": 0.05}
    verdict = assess_sufficiency(QUESTION, [unsure], 0.2, 0.25, min_answer_score=0.1)
    assert verdict["sufficient"] is False
    assert verdict["reason"] == "question_terms_absent" and "overridden" not in verdict
    # The cosine floor too, in the modes that have one.
    far = {**scored, "dense_score": 0.05}
    verdict = assess_sufficiency(QUESTION, [far], 0.2, 0.25, min_answer_score=0.1)
    assert verdict["sufficient"] is True and verdict["overridden"] == "low_similarity"
    # Without a scorer the word rules decide.
    assert assess_sufficiency(QUESTION, [scored], 0.2, 0.25)["sufficient"] is False


def test_with_the_words_present_the_floor_decides() -> None:
    covered = {"text": "The Agreement becomes effective on signature.", "dense_score": 0.5}
    low = {**covered, "answer_score": 0.05}
    verdict = assess_sufficiency(QUESTION, [low], 0.2, 0.25, min_answer_score=0.1)
    assert verdict["reason"] == "no_answering_passage"
    assert assess_sufficiency(QUESTION, [covered], 0.2, 0.25, min_answer_score=0.1)["sufficient"]
    assert assess_sufficiency(QUESTION, [], 0.2, 0.25)["reason"] == "no_evidence"

"""The sufficiency rule: is the retrieved evidence worth a model call at all?

Decided before any generation, from retrieval alone. The evidence is insufficient when

1. there is none (empty index, or a document scope with no chunks), or
2. (hybrid and dense modes) no chunk's cosine similarity to the question reaches
   ``min_dense_score``: nothing in the index is about the question, or
3. fewer than ``min_question_coverage`` of the question's content words (stopwords and
   question words removed) occur in the evidence passed to the generator. Words match
   when they share their first five letters, a cheap stemmer that lets "assign" meet
   "assignment" and "terminate" meet "termination".

4. (with the trained evidence scorer) no passage of the evidence reaches the scorer's
   refusal threshold ``min_answer_score``: the scorer finds nothing that answers.

With the scorer, its floor decides instead of rules 2 and 3: a passage that reaches it
overrides them. They stand in for "nothing here is about the question" by words and
cosine, and a question asked in other words than the document's misses words the
answering passage never needed ("How long do I have to send something back?" of a policy
that says "Most items can be returned within 30 days of delivery"; "When does it become
effective?" of a contract "dated as of ..."). What the scorer lets through is still
checked: the model may refuse, and every answer is validated, the passage answer's quote
by the relevance check. The verdict keeps the rule that was overridden (``overridden``).

The floors are deliberately low: this check only spares the model questions that the
evidence plainly cannot answer; validation catches the subtler cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeguard.text.tokens import content_tokens

STEM_PREFIX = 5

# Words that shape a question but carry no topic: their absence in the evidence says nothing.
QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did is are was were can could "
    "should would will shall may might must there any this that these those party parties "
    "agreement contract document".split()
)


def _stem(word: str) -> str:
    return word[:STEM_PREFIX]


def question_terms(question: str) -> list[str]:
    """The question's topic words (normalized, deduplicated, in order)."""
    seen: dict[str, None] = {}
    for token in content_tokens(question):
        if token not in QUESTION_WORDS:
            seen.setdefault(token, None)
    return list(seen)


def assess_sufficiency(
    question: str,
    evidence: Sequence[dict[str, Any]],
    min_dense_score: float,
    min_question_coverage: float,
    retrieval_mode: str = "hybrid",
    min_answer_score: float | None = None,
) -> dict[str, Any]:
    """Apply the rule above; returns the decision with the measurements behind it.

    Args:
        min_answer_score: the scorer's floor (rule 4), applied to the evidence items'
            ``answer_score``; a passage reaching it overrides rules 2 and 3. None, or
            evidence without scores: rule 4 is not applied and the word rules decide.
    """
    if not evidence:
        return {
            "sufficient": False,
            "reason": "no_evidence",
            "max_dense_score": None,
            "question_coverage": 0.0,
        }
    max_dense = max(float(item.get("dense_score", 0.0)) for item in evidence)
    terms = question_terms(question)
    evidence_stems = {
        _stem(token) for item in evidence for token in content_tokens(item.get("text", ""))
    }
    covered = [t for t in terms if _stem(t) in evidence_stems]
    coverage = len(covered) / len(terms) if terms else 1.0
    verdict: dict[str, Any] = {
        "sufficient": True,
        "reason": None,
        "max_dense_score": max_dense,
        "question_coverage": coverage,
        "missing_terms": [t for t in terms if t not in covered],
    }
    answer_scores = [float(item["answer_score"]) for item in evidence if "answer_score" in item]
    best_answer = max(answer_scores) if answer_scores else None
    if best_answer is not None:
        verdict["best_answer_score"] = best_answer
    word_rule = None
    if retrieval_mode != "lexical" and max_dense < min_dense_score:
        word_rule = "low_similarity"
    elif coverage < min_question_coverage:
        word_rule = "question_terms_absent"
    # None: no scorer reading, the word rules decide alone.
    floor_reached = (
        None if min_answer_score is None or best_answer is None else best_answer >= min_answer_score
    )
    if word_rule is not None and floor_reached:
        verdict["overridden"] = word_rule
    elif word_rule is not None:
        verdict.update(sufficient=False, reason=word_rule)
    elif floor_reached is False:
        verdict.update(sufficient=False, reason="no_answering_passage")
    return verdict

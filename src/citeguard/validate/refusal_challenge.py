"""Whether a refusal ignores evidence that is plainly about the question.

With ``challenge_refusals`` on, the validator fails a refusal when one source holds most
of the question's content words, so that the graph regenerates with feedback naming it.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeguard.text.tokens import coverage, token_set
from citeguard.validate.settings import EPSILON, REFUSAL_QUESTION_COVERAGE


def question_coverage(question: str, sources: Sequence[str]) -> list[float]:
    """For each source, the share of the question's content words it contains."""
    question_tokens = token_set(question)
    return [coverage(question_tokens, token_set(source)) for source in sources]


def refusal_despite_strong_evidence(
    question: str,
    sources: Sequence[str],
    retrieval_scores: Sequence[float] | None = None,
    *,
    coverage_threshold: float = REFUSAL_QUESTION_COVERAGE,
    min_retrieval_score: float | None = None,
    min_question_terms: int = 2,
) -> bool:
    """Whether refusing would ignore evidence that is plainly about the question.

    Rule: some source contains at least ``coverage_threshold`` (0.6) of the question's
    content words (normalized tokens, stopwords removed). A question with fewer than
    ``min_question_terms`` content words gives no basis and never fires. When
    ``retrieval_scores`` (one per source, e.g. dense cosine) and ``min_retrieval_score``
    are both given, the covering source must also have scored at least that.
    """
    if len(token_set(question)) < min_question_terms:
        return False
    for index, share in enumerate(question_coverage(question, sources)):
        if share + EPSILON < coverage_threshold:
            continue
        if (
            retrieval_scores is not None
            and min_retrieval_score is not None
            and index < len(retrieval_scores)
            and retrieval_scores[index] < min_retrieval_score
        ):
            continue
        return True
    return False

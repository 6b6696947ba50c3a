"""The passage answer's thresholds, fitted with the relevance check on its quote.

Every question whose best passage reaches the refusal floor has its passage answer
drafted and its quote judged (:func:`judge_passage_answers`); from those verdicts come the
passage answer threshold and the stricter relevance minimum for weaker passages' quotes
(the rules are in :mod:`.calibrate_scorer`'s docs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from citeguard.evaluation.dataset import Question
from citeguard.evaluation.pair_metrics import fit_threshold
from citeguard.evaluation.question_thresholds import CalibrationSettings, QuestionScore
from citeguard.generate.passage_answer import passage_answers_of_sources
from citeguard.graph.context import Context
from citeguard.learned.evidence import PairScorer
from citeguard.text.citations import strip_citations

QuoteJudge = Callable[[str, str], float]
"""P(the text answers the question), asked as (question, the passage answer's quote): the
relevance check the validator asks of a passage answer (``relevance_reads_answer``)."""


@dataclass(frozen=True)
class JudgedQuote:
    """A question's passage answer as the graph would draft it, and the relevance check's
    verdict on its quote (of two quotes, the one the check reads higher)."""

    id: str
    answerable: bool
    best_score: float
    best_passage_answers: bool
    relevance: float
    quote: str


def delivered_quotes(
    judged: Sequence[JudgedQuote],
    at: float,
    judge_threshold: float,
    weak_relevance: float | None = None,
    floor: float = float("-inf"),
) -> list[JudgedQuote]:
    """The passage answers drafted from ``at`` that the relevance check lets through; with
    ``weak_relevance``, also those of weaker passages (from ``floor``, under ``at``) whose
    quote the check gives at least that."""
    kept = [q for q in judged if q.best_score >= at and q.relevance >= judge_threshold]
    if weak_relevance is not None:
        kept += [q for q in judged if floor <= q.best_score < at and q.relevance >= weak_relevance]
    return kept


def within_bounds(
    kept: Sequence[JudgedQuote], budget: float, settings: CalibrationSettings
) -> bool:
    """Whether delivering ``kept`` answers at most ``budget`` unanswerable questions and
    its answers' passages hold gold at least ``settings.min_precision`` of the time."""
    false = sum(not q.answerable for q in kept)
    right = sum(q.best_passage_answers for q in kept)
    return false <= budget and not (kept and right / len(kept) < settings.min_precision)


def fit_passage_answer_threshold(
    judged: Sequence[JudgedQuote],
    unanswerable: int,
    ceiling: float,
    settings: CalibrationSettings,
    judge_threshold: float,
) -> float:
    """The lowest best-passage score at which the passage answers the relevance check keeps
    stay within the false-answer budget and the precision guard (the rules:
    :mod:`.calibrate_scorer`'s docs).

    Scanned from ``ceiling`` (the answer threshold) down through the judged questions'
    scores, stopping at the first score that breaks either bound, so the threshold found
    keeps both for every score above it too.
    """
    chosen = ceiling
    budget = settings.max_false_answer_share * unanswerable
    scores = sorted({q.best_score for q in judged if q.best_score < ceiling}, reverse=True)
    for score in scores:
        if not within_bounds(delivered_quotes(judged, score, judge_threshold), budget, settings):
            break
        chosen = score
    return chosen


def fit_weak_passage_relevance(
    judged: Sequence[JudgedQuote],
    unanswerable: int,
    passage_threshold: float,
    settings: CalibrationSettings,
    judge_threshold: float,
) -> float | None:
    """The relevance minimum at which quotes of passages scored under the passage answer
    threshold (but over the floor, where every judged quote is) may answer too; None when
    none may.

    The passage answers over ``passage_threshold`` at the run's ``judge_threshold`` are
    delivered as before; the quotes of weaker passages are added from the strictest check
    (0.95) down, stopping at the first minimum at which all of them together break the
    false-answer budget or the precision guard. A weak passage's quote that the check is
    sure of answers; one it half believes does not.
    """
    strong = delivered_quotes(judged, passage_threshold, judge_threshold)
    weak = [q for q in judged if q.best_score < passage_threshold]
    budget = settings.max_false_answer_share * unanswerable
    chosen: float | None = None
    steps = int(round((0.95 - judge_threshold) / settings.relevance_step, 9))
    for step in range(max(steps, 0) + 1):
        relevance = round(0.95 - step * settings.relevance_step, 6)
        if not within_bounds(
            strong + [q for q in weak if q.relevance >= relevance], budget, settings
        ):
            break
        chosen = relevance
    return chosen


def fit_passage_first_threshold(
    judged: Sequence[JudgedQuote],
    passage_threshold: float,
    settings: CalibrationSettings,
    judge_threshold: float,
) -> float:
    """The lowest best-passage score from which the passage answers that the relevance
    check lets through hold a gold span at least ``settings.passage_first_precision`` of
    the time (an unanswerable question's never does); never under ``passage_threshold``,
    and 1.0 (no passage reaches it) when no score does.

    From this score the passage answer is tried before the model (``passage_first``): a
    quote this likely to be right costs one relevance check, the model's answer a full
    prompt. A quote the check rejects still goes to the model, so the threshold trades
    speed, not answers, as long as the quotes it lets through are as right as the model's.
    """
    kept = delivered_quotes(judged, passage_threshold, judge_threshold)
    fitted = fit_threshold(
        [q.best_score for q in kept],
        [int(q.best_passage_answers) for q in kept],
        settings.passage_first_precision,
    )
    return max(fitted, passage_threshold)


def judge_passage_answers(
    questions: Sequence[Question],
    rows: Sequence[QuestionScore],
    sources_of: Callable[[Question], Sequence[str]],
    scorer: PairScorer,
    quote_judge: QuoteJudge,
    min_score: float,
    on_quote: Callable[[int, int], None] | None = None,
) -> list[JudgedQuote]:
    """Draft and judge the passage answer of every scored question whose best passage
    reaches ``min_score`` (``rows[i]`` is ``questions[i]``'s score); ``on_quote(done,
    total)`` after each. Where the graph would quote a second passage when the first
    quote fails (``passage_answers_of_sources``), both are judged and the question keeps
    the higher reading. (Before the model, with ``passage_first``, only the first quote
    is tried; the passage-first threshold fitted on these readings is about speed.)"""
    judged: list[JudgedQuote] = []
    over = [(q, r) for q, r in zip(questions, rows, strict=True) if r.best_score >= min_score]
    for n, (question, row) in enumerate(over, start=1):
        drafted = passage_answers_of_sources(
            scorer, question.question, list(sources_of(question)), min_score
        )
        readings = [
            (float(quote_judge(question.question, answer.for_relevance(quote))), quote)
            for quote, answer in ((strip_citations(a.text), a) for _, a in drafted)
        ]
        if readings:
            # The graph delivers the first quote that passes, and every quote meets the
            # same threshold: the question passes at a threshold when its best reading does.
            relevance, quote = max(readings, key=lambda reading: reading[0])
            judged.append(
                JudgedQuote(
                    id=row.id,
                    answerable=row.answerable,
                    best_score=row.best_score,
                    best_passage_answers=row.best_passage_answers,
                    relevance=relevance,
                    quote=quote,
                )
            )
        if on_quote is not None:
            on_quote(n, len(over))
    return judged


def passage_answer_summary(
    rows: Sequence[QuestionScore],
    judged: Sequence[JudgedQuote],
    threshold: float,
    settings: CalibrationSettings,
) -> dict[str, Any]:
    """The passage answer threshold fitted on ``judged``, and what it does on them."""
    judge_threshold = Context().judge_threshold
    unanswerable = sum(not r.answerable for r in rows)
    fitted = fit_passage_answer_threshold(
        judged, unanswerable, threshold, settings, judge_threshold
    )
    weak = fit_weak_passage_relevance(judged, unanswerable, fitted, settings, judge_threshold)
    first = fit_passage_first_threshold(judged, fitted, settings, judge_threshold)

    def delivered(at: float, weak_relevance: float | None = None) -> dict[str, Any]:
        kept = delivered_quotes(judged, at, judge_threshold, weak_relevance)
        return {
            "answers": len(kept),
            "right": sum(q.best_passage_answers for q in kept),
            "unanswerable_answered": (
                sum(not q.answerable for q in kept) / unanswerable if unanswerable else None
            ),
        }

    return {
        "passage_answer_threshold": fitted,
        "weak_passage_relevance_threshold": weak,
        "passage_first_threshold": first,
        "passage_answers": {
            "judged": len(judged),
            "judge_threshold": judge_threshold,
            "at_answer_threshold": delivered(threshold),
            "at_passage_answer_threshold": delivered(fitted),
            "with_weak_passages": delivered(fitted, weak),
            "at_passage_first_threshold": delivered(first),
        },
    }

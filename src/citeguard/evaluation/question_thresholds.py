"""Question-level thresholds of the evidence scorer: how each question's best passage
scores, and the answer threshold and refusal floor fitted on those scores.

The graph decides on a question's *best* passage among its sources, so its thresholds
are fitted on whole questions (``citeguard calibrate``, :mod:`.calibrate_scorer`), not on
the single pairs training scored; the rules are in that module's docs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citeguard.evaluation.dataset import Question
from citeguard.evaluation.matching import span_overlaps
from citeguard.evaluation.pair_metrics import auroc, fit_threshold, keep_threshold
from citeguard.graph.context import Context
from citeguard.learned.evidence import OVERLAPPING_ANSWER_PASSAGES, PairScorer, best_passages


@dataclass(frozen=True)
class CalibrationSettings:
    """How the question-level thresholds are fitted; stored with them."""

    max_questions: int = 600
    """Questions drawn (seeded) from the validation documents: bounds CPU time."""
    max_false_answer_share: float = 0.025
    """Half the false-answer budget (0.05): the other half is left to the model's answers."""
    min_precision: float = 0.6
    """Guards against a split with few or easy unanswerable questions."""
    floor_keep: float = 0.95
    floor_wordings: bool = False
    """Fit the refusal floor on every wording the dataset gives of each answerable question
    (its own, the category description training held out, the generic templates), each
    asked with its own search, not on the dataset's wording alone: a scorer trained on
    that wording scores other wordings of the same question lower, and the floor refuses
    before any model call, so it should keep ``floor_keep`` of the questions however asked.
    Off by default: the shipped scorer's floor was fitted on the dataset's wording, and
    ``citeguard calibrate`` rebuilds it exactly (``docs/results.md``, "The scorer trained
    on every pair, on a GPU")."""
    passage_first_precision: float = 0.95
    """Share of the passage answers over the passage-first threshold (those the relevance
    check lets through) whose quote must hold gold: these are quoted before the model is
    asked (``passage_first``), so they must be right as often as the model's answers."""
    relevance_step: float = 0.05
    """The weaker passages' relevance minimum is scanned down from 0.95 in these steps."""
    seed: int = 13
    scorer_rerank: bool = Context.scorer_rerank
    """Ask with the hits reranked by the scorer before the sources are chosen, as a graph
    with ``scorer_rerank`` on does; the default follows the graph's. Reranked sources'
    best scores are higher than in retrieval order, so thresholds must be fitted the way
    the graph will ask."""
    scorer_rerank_pool: int = Context.scorer_rerank_pool
    """With ``scorer_rerank``, the hits retrieved for the scorer to reorder, as the
    graph's setting of that name; the default follows the graph's."""
    passage_relevance_with_scorer: bool = Context.passage_relevance_with_scorer
    """Judge each passage answer's quote by the mean of the local model's and the scorer's
    relevance, as a graph with ``passage_relevance_with_scorer`` on does; the default
    follows the graph's."""


@dataclass(frozen=True)
class QuestionScore:
    """One question as the graph would see it."""

    id: str
    doc: str
    answerable: bool
    best_score: float
    best_passage_answers: bool
    """The best passage holds (most of) a gold span, or is mostly gold text."""
    sources_hold_gold: bool
    wording: str = "dataset"
    """Which wording of the question was asked (``train_pairs.wordings``): the dataset's
    own, or another one the refusal floor is also fitted on (``floor_wordings``)."""


def passage_holds_gold(passage: str, gold_spans: Sequence[str]) -> bool:
    """Most of a gold span is in the passage, or most of the passage is gold text (a
    clause longer than a passage)."""
    return any(span_overlaps(s, passage) or span_overlaps(passage, s) for s in gold_spans)


def score_question(
    question: Question, source_texts: Sequence[str], scorer: PairScorer
) -> QuestionScore:
    """The best passage of the sources for ``question``, and whether it answers."""
    gold = [s.text for s in question.gold_spans if s.text.strip()]
    if not source_texts:
        return QuestionScore(
            question.id, question.doc or "", question.answerable, 0.0, False, False
        )
    best = best_passages(
        scorer, question.question, source_texts, overlapping=OVERLAPPING_ANSWER_PASSAGES
    )
    top = int(np.argmax([b.score for b in best]))
    passage = source_texts[top][best[top].start : best[top].end]
    return QuestionScore(
        id=question.id,
        doc=question.doc or "",
        answerable=question.answerable,
        best_score=best[top].score,
        best_passage_answers=question.answerable and passage_holds_gold(passage, gold),
        sources_hold_gold=question.answerable
        and any(span_overlaps(s, text) for s in gold for text in source_texts),
    )


def share_threshold(scores: Sequence[float], max_share: float) -> float:
    """The lowest threshold that at most ``max_share`` of ``scores`` reach (0.0 when there
    are none): just above the score of the first one too many, counted from the top."""
    if not scores:
        return 0.0
    ordered = sorted(scores, reverse=True)
    allowed = int(round(max_share * len(ordered), 9))
    if allowed >= len(ordered):
        return 0.0
    return float(np.nextafter(ordered[allowed], np.inf))


def fit_question_thresholds(
    rows: Sequence[QuestionScore],
    settings: CalibrationSettings,
    other_wordings: Sequence[QuestionScore] = (),
) -> dict[str, Any]:
    """The two thresholds from scored questions, and what they do on them.

    ``other_wordings``: answerable questions asked in other words (``floor_wordings``),
    pooled with ``rows`` for the refusal floor only.
    """
    scores = [r.best_score for r in rows]
    threshold = max(
        fit_threshold(scores, [int(r.best_passage_answers) for r in rows], settings.min_precision),
        share_threshold(
            [r.best_score for r in rows if not r.answerable], settings.max_false_answer_share
        ),
    )
    floor_rows = [r for r in (*rows, *other_wordings) if r.sources_hold_gold]

    def floor_of(kept: Sequence[QuestionScore]) -> float:
        scores = [r.best_score for r in kept]
        return keep_threshold(scores, [1] * len(scores), settings.floor_keep) if kept else 0.0

    floor = floor_of(floor_rows)
    floor = min(floor, threshold)
    answerable = [r for r in rows if r.answerable]
    unanswerable = [r for r in rows if not r.answerable]

    def share(
        items: Sequence[QuestionScore], test: Callable[[QuestionScore], bool]
    ) -> float | None:
        return sum(test(r) for r in items) / len(items) if items else None

    over = [r for r in rows if r.best_score >= threshold]
    return {
        "threshold": threshold,
        "recall_threshold": floor,
        "questions": len(rows),
        "answerable": len(answerable),
        "question_auroc": auroc(scores, [int(r.answerable) for r in rows]),
        "answering_passage_auroc": auroc(scores, [int(r.best_passage_answers) for r in rows]),
        "over_threshold": {
            "answerable": share(answerable, lambda r: r.best_score >= threshold),
            "unanswerable": share(unanswerable, lambda r: r.best_score >= threshold),
            "best_passage_answers": share(over, lambda r: r.best_passage_answers),
        },
        "under_floor": {
            "answerable": share(answerable, lambda r: r.best_score < floor),
            "unanswerable": share(unanswerable, lambda r: r.best_score < floor),
            "answerable_in_other_wordings": share(
                [r for r in other_wordings if r.answerable], lambda r: r.best_score < floor
            ),
        },
        "floor_questions": len(floor_rows),
        "floor_by_wording": {
            wording: floor_of([r for r in floor_rows if r.wording == wording])
            for wording in sorted({r.wording for r in floor_rows})
        },
    }

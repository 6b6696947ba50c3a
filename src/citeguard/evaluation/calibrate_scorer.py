"""Fit the evidence scorer's thresholds on whole questions, the way the graph uses them.

Training fits thresholds on single (question, passage) pairs. The graph decides on
something else: the *best* passage among a question's sources, a maximum over some twenty
passages, so a threshold fitted per pair lets too little or too much through (the pair
threshold fitted for 95% precision is reached by ~2% of answerable questions). Here the
thresholds are fitted on questions of the training dataset's validation documents (the
seeded split training used, never trained on), asked as the graph asks them:

1. the validation documents are indexed with the real ingest pipeline (``OUT/index``);
2. each question (a seeded sample of at most ``max_questions``) is searched in its own
   document with the graph's defaults (:class:`~citeguard.graph.context.Context`: top_k,
   context_k, mode, alpha, fusion); the sources are chosen by the graph's rule
   (:func:`~citeguard.index.opening.choose_sources`: the first ``context_k`` hits, and the
   document's opening for a question about its date or parties; with ``scorer_rerank``,
   the hits are first ordered by the scorer, as the graph does with that setting on);
3. each source is scored by its best passage; the question's best passage is the one the
   passage answer (``scorer_answer``) would quote.

Fitted, and written into the model's ``model.json`` (the pair-level values are kept as
``pair_threshold`` and ``pair_recall_threshold``):

- ``threshold`` (the answer threshold): the lowest best-passage score that at most
  ``max_false_answer_share`` of the unanswerable questions reach (the passage answer would
  answer them falsely wherever the model refused them), and at which the best passage
  holds a gold span at least ``min_precision`` of the time, over all questions (an
  unanswerable question's best passage never does; an answerable question's wrong passage
  would be a wrong answer);
- ``recall_threshold`` (the refusal floor): the highest score that still keeps
  ``floor_keep`` of the answerable questions whose sources hold a gold span.

With a quote judge (``citeguard calibrate`` passes the local model's relevance check, the
one the graph's default validation asks of a passage answer's quote), a third:

- ``passage_answer_threshold``: the lowest best-passage score at which the passage answers
  that the relevance check lets through answer at most ``max_false_answer_share`` of the
  unanswerable questions falsely, and hold a gold span at least ``min_precision`` of the
  time; never above the answer threshold. The answer threshold spends the false-answer
  budget on every passage that reaches it; the check refuses about half of the wrong ones
  (``bench/passage_relevance.py``), so the passage answer can be drafted from lower scores
  within the same budget. Every question whose best passage reaches the refusal floor has
  its passage answer drafted and judged.

``OUT/calibration.json`` holds every question's score and labels, the question-level AUROC
and what each threshold does on these questions.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.documents import SearchHit
from citeguard.evaluation.dataset import (
    QUESTIONS_FILE,
    Question,
    dataset_docs_dir,
    load_questions,
)
from citeguard.evaluation.matching import span_overlaps
from citeguard.evaluation.pair_metrics import auroc, fit_threshold, keep_threshold
from citeguard.evaluation.train_pairs import PairSettings, validation_documents
from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.graph.context import Context
from citeguard.index.search import HybridSearcher
from citeguard.learned.evidence import PairScorer, best_passages
from citeguard.learned.saved_model import DESCRIPTION_FILE, describe_model
from citeguard.text.citations import strip_citations

logger = logging.getLogger(__name__)

QuoteJudge = Callable[[str, str], float]
"""P(the text answers the question), asked as (question, the passage answer's quote): the
relevance check the validator asks of a passage answer (``relevance_reads_answer``)."""


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
    relevance_step: float = 0.05
    """The weaker passages' relevance minimum is scanned down from 0.95 in these steps."""
    seed: int = 13
    scorer_rerank: bool = Context.scorer_rerank
    """Ask with the hits reranked by the scorer before the sources are chosen, as a graph
    with ``scorer_rerank`` on does; the default follows the graph's. Reranked sources'
    best scores are higher than in retrieval order, so thresholds must be fitted the way
    the graph will ask."""


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
    best = best_passages(scorer, question.question, source_texts)
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
    rows: Sequence[QuestionScore], settings: CalibrationSettings
) -> dict[str, Any]:
    """The two thresholds from scored questions, and what they do on them."""
    scores = [r.best_score for r in rows]
    threshold = max(
        fit_threshold(scores, [int(r.best_passage_answers) for r in rows], settings.min_precision),
        share_threshold(
            [r.best_score for r in rows if not r.answerable], settings.max_false_answer_share
        ),
    )
    floor_rows = [r for r in rows if r.sources_hold_gold]
    floor = (
        keep_threshold(
            [r.best_score for r in floor_rows], [1] * len(floor_rows), settings.floor_keep
        )
        if floor_rows
        else 0.0
    )
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
        },
    }


@dataclass(frozen=True)
class JudgedQuote:
    """A question's passage answer as the graph would draft it, and the relevance check's
    verdict on its quote."""

    id: str
    answerable: bool
    best_score: float
    best_passage_answers: bool
    relevance: float
    quote: str


def delivered_quotes(
    judged: Sequence[JudgedQuote], at: float, judge_threshold: float
) -> list[JudgedQuote]:
    """The passage answers drafted from ``at`` that the relevance check lets through."""
    return [q for q in judged if q.best_score >= at and q.relevance >= judge_threshold]


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
    stay within the false-answer budget and the precision guard (see the module docs).

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
    total)`` after each."""
    judged: list[JudgedQuote] = []
    over = [(q, r) for q, r in zip(questions, rows, strict=True) if r.best_score >= min_score]
    for n, (question, row) in enumerate(over, start=1):
        drafted = passage_answer_of_sources(
            scorer, question.question, list(sources_of(question)), min_score
        )
        if drafted is not None:
            quote = strip_citations(drafted[1])
            judged.append(
                JudgedQuote(
                    id=row.id,
                    answerable=row.answerable,
                    best_score=row.best_score,
                    best_passage_answers=row.best_passage_answers,
                    relevance=float(quote_judge(question.question, quote)),
                    quote=quote,
                )
            )
        if on_quote is not None:
            on_quote(n, len(over))
    return judged


THRESHOLD_KEYS = (
    "threshold",
    "recall_threshold",
    "passage_answer_threshold",
    "weak_passage_relevance_threshold",
)
"""The fitted thresholds, written at the top of ``model.json``."""


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

    def delivered(at: float, weak_relevance: float | None = None) -> dict[str, Any]:
        kept = delivered_quotes(judged, at, judge_threshold)
        if weak_relevance is not None:
            kept += [q for q in judged if q.best_score < at and q.relevance >= weak_relevance]
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
        "passage_answers": {
            "judged": len(judged),
            "judge_threshold": judge_threshold,
            "at_answer_threshold": delivered(threshold),
            "at_passage_answer_threshold": delivered(fitted),
            "with_weak_passages": delivered(fitted, weak),
        },
    }


def validation_questions(
    dataset: Path, pair_settings: PairSettings, settings: CalibrationSettings
) -> list[Question]:
    """The questions of the documents training held out, a seeded sample of at most
    ``settings.max_questions``."""
    questions = [q for q in load_questions(dataset / QUESTIONS_FILE, unique_ids=False) if q.doc]
    held_out = validation_documents(questions, pair_settings)
    chosen = [q for q in questions if q.doc in held_out]
    if len(chosen) > settings.max_questions:
        chosen = random.Random(settings.seed).sample(chosen, settings.max_questions)
    return chosen


def question_sources(
    searcher: HybridSearcher,
    question: str,
    docs: Sequence[str] | None,
    rerank_by: PairScorer | None = None,
) -> list[SearchHit]:
    """The sources the graph's defaults (:class:`~citeguard.graph.context.Context`) give
    ``question``: its search, reranked by ``rerank_by`` when given (``scorer_rerank``), then
    :func:`~citeguard.index.opening.choose_sources`, as the retrieve node does."""
    from citeguard.graph.passage_scores import AnswerScores
    from citeguard.graph.sources import retrieve_sources

    graph = Context(scorer_rerank=rerank_by is not None)
    _, sources = retrieve_sources(
        searcher, question, graph, docs, AnswerScores(rerank_by, question)
    )
    return sources


def calibrate_scorer(
    dataset: str | Path,
    model_dir: str | Path,
    out: str | Path,
    scorer: PairScorer,
    settings: CalibrationSettings | None = None,
    pair_settings: PairSettings | None = None,
    progress: bool = False,
    on_question: Callable[[int, int], None] | None = None,
    command: str = "",
    quote_judge: QuoteJudge | None = None,
    on_quote: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Index the validation documents, score their questions, fit and write the thresholds.

    Args:
        scorer: the model in ``model_dir``, loaded (tests pass a fake).
        pair_settings: the split training used (its seed and validation share).
        quote_judge: the relevance check of a passage answer's quote; when given, the
            passage answer threshold is fitted with it (see the module docs).
        on_question, on_quote: progress, (done, total), of scoring and of judging.

    Returns:
        The contents of ``OUT/calibration.json`` (without the per-question rows).
    """
    from citeguard.index.search import load_index
    from citeguard.ingest.pipeline import ingest_paths

    settings = settings or CalibrationSettings()
    pair_settings = pair_settings or PairSettings()
    root, folder, model = Path(dataset), Path(out), Path(model_dir)
    folder.mkdir(parents=True, exist_ok=True)
    questions = validation_questions(root, pair_settings, settings)
    docs = sorted({q.doc for q in questions if q.doc})
    docs_dir = dataset_docs_dir(root)
    summary = ingest_paths([docs_dir / d for d in docs], folder / "index", progress=progress)
    if summary.skipped:
        logger.warning("%d validation documents could not be indexed", len(summary.skipped))
    searcher = load_index(folder / "index")
    indexed = set(searcher.documents)
    rows: list[QuestionScore] = []
    asked: list[Question] = []

    def sources_of(question: Question) -> list[str]:
        chosen = question_sources(
            searcher,
            question.question,
            question.scope(indexed),
            scorer if settings.scorer_rerank else None,
        )
        return [hit.chunk.text for hit in chosen]

    for n, question in enumerate(questions, start=1):
        scope = question.scope(indexed)
        if not scope or not set(scope) <= indexed:
            continue
        rows.append(score_question(question, sources_of(question), scorer))
        asked.append(question)
        if on_question is not None:
            on_question(n, len(questions))
    fitted = fit_question_thresholds(rows, settings)
    judged: list[JudgedQuote] = []
    if quote_judge is not None:
        judged = judge_passage_answers(
            asked, rows, sources_of, scorer, quote_judge, fitted["recall_threshold"], on_quote
        )
        fitted.update(passage_answer_summary(rows, judged, fitted["threshold"], settings))
    result = {
        "dataset": Path(dataset).name,
        "command": command,
        "settings": asdict(settings),
        "split": {"seed": pair_settings.seed, "validation_share": pair_settings.validation_share},
        "documents": len(docs),
        **fitted,
    }
    (folder / "calibration.json").write_text(
        json.dumps(
            {
                **result,
                "rows": [asdict(r) for r in rows],
                "judged_quotes": [asdict(q) for q in judged],
            },
            indent=2,
        )
        + "\n"
    )
    previous = json.loads((model / DESCRIPTION_FILE).read_text())
    describe_model(
        model,
        {
            "pair_threshold": previous.get("pair_threshold", previous.get("threshold")),
            "pair_recall_threshold": previous.get(
                "pair_recall_threshold", previous.get("recall_threshold")
            ),
            "threshold": fitted["threshold"],
            "recall_threshold": fitted["recall_threshold"],
            # Absent without a quote judge: the scorer then drafts at the answer threshold.
            "passage_answer_threshold": fitted.get("passage_answer_threshold"),
            "weak_passage_relevance_threshold": fitted.get("weak_passage_relevance_threshold"),
            "question_calibration": {k: v for k, v in result.items() if k not in THRESHOLD_KEYS},
        },
    )
    return result

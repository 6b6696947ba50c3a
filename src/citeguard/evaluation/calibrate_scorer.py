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
   ``scorer_rerank_pool`` hits are retrieved and first ordered by the scorer, as the
   graph does with that setting on);
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
  ``floor_keep`` of the answerable questions whose sources hold a gold span; with
  ``floor_wordings`` (``--floor-wordings``, an option) each answerable question is also
  asked in the dataset's other wordings (``train_pairs.wordings``: the category description
  training held out, the generic templates), each with its own search, and the floor keeps
  that share of all of them: it refuses before any model call, so it should hold for
  wordings users type, not only for the one the scorer was trained on most.

With a quote judge (``citeguard calibrate`` passes the local model's relevance check, the
one the graph's default validation asks of a passage answer's quote), a third:

- ``passage_answer_threshold``: the lowest best-passage score at which the passage answers
  that the relevance check lets through answer at most ``max_false_answer_share`` of the
  unanswerable questions falsely, and hold a gold span at least ``min_precision`` of the
  time; never above the answer threshold. The answer threshold spends the false-answer
  budget on every passage that reaches it; the check refuses about half of the wrong ones
  (``bench/passage_relevance.py``), so the passage answer can be drafted from lower scores
  within the same budget. Every question whose best passage reaches the refusal floor has
  its passage answer drafted and judged;
- ``passage_first_threshold``: the lowest best-passage score from which those passage
  answers hold a gold span at least ``passage_first_precision`` of the time; from it the
  passage answer is tried before the model (``passage_first``).

``OUT/calibration.json`` holds every question's score and labels, the question-level AUROC
and what each threshold does on these questions.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from citeguard.documents import SearchHit
from citeguard.evaluation.dataset import (
    QUESTIONS_FILE,
    Question,
    dataset_docs_dir,
    load_questions,
)
from citeguard.evaluation.question_thresholds import (
    CalibrationSettings,
    QuestionScore,
    fit_question_thresholds,
    score_question,
)
from citeguard.evaluation.quote_thresholds import (
    JudgedQuote,
    QuoteJudge,
    judge_passage_answers,
    passage_answer_summary,
)
from citeguard.evaluation.train_pairs import (
    PairSettings,
    load_categories,
    validation_documents,
    wordings,
)
from citeguard.graph.context import Context
from citeguard.index.searcher import Searcher
from citeguard.learned.evidence import PairScorer, averaged_relevance
from citeguard.learned.saved_model import DESCRIPTION_FILE, describe_model

logger = logging.getLogger(__name__)

THRESHOLD_KEYS = (
    "threshold",
    "recall_threshold",
    "passage_answer_threshold",
    "weak_passage_relevance_threshold",
    "passage_first_threshold",
)
"""The fitted thresholds, written at the top of ``model.json``."""


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
    searcher: Searcher,
    question: str,
    docs: Sequence[str] | None,
    rerank_by: PairScorer | None = None,
    rerank_pool: int = Context.scorer_rerank_pool,
) -> list[SearchHit]:
    """The sources the graph's defaults (:class:`~citeguard.graph.context.Context`) give
    ``question``: its search, or with ``rerank_by`` (``scorer_rerank``) its search for
    ``rerank_pool`` hits reordered by that scorer; then
    :func:`~citeguard.index.opening.choose_sources`, as the retrieve node does."""
    from citeguard.graph.passage_scores import AnswerScores
    from citeguard.graph.sources import retrieve_sources

    graph = Context(scorer_rerank=rerank_by is not None, scorer_rerank_pool=rerank_pool)
    _, sources = retrieve_sources(
        searcher, question, graph, docs, AnswerScores(rerank_by, question)
    )
    return sources


def reworded_scores(
    questions: Sequence[Question],
    categories: dict[str, dict[str, str]],
    sources_of: Callable[[Question, str], list[str]],
    scorer: PairScorer,
) -> list[QuestionScore]:
    """Each answerable question's best passage in every other wording the dataset gives
    of it, searched with that wording (for the refusal floor, ``floor_wordings``)."""
    out: list[QuestionScore] = []
    for question in questions:
        if not question.answerable:
            continue
        for name, text in wordings(question, categories).items():
            if name == "dataset" or text == question.question:
                continue
            reworded = dataclasses.replace(question, question=text)
            scored = score_question(reworded, sources_of(question, text), scorer)
            out.append(dataclasses.replace(scored, wording=name))
    return out


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

    def sources_of(question: Question, wording: str | None = None) -> list[str]:
        chosen = question_sources(
            searcher,
            wording or question.question,
            question.scope(indexed),
            scorer if settings.scorer_rerank else None,
            settings.scorer_rerank_pool,
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
    other_wordings = (
        reworded_scores(asked, load_categories(root), sources_of, scorer)
        if settings.floor_wordings
        else []
    )
    fitted = fit_question_thresholds(rows, settings, other_wordings)
    judged: list[JudgedQuote] = []
    if quote_judge is not None:
        if settings.passage_relevance_with_scorer:
            quote_judge = averaged_relevance(quote_judge, scorer)
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
                "other_wording_rows": [asdict(r) for r in other_wordings],
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
            "passage_first_threshold": fitted.get("passage_first_threshold"),
            "question_calibration": {k: v for k, v in result.items() if k not in THRESHOLD_KEYS},
        },
    )
    return result

"""The evidence scorer on a labelled dataset, per question, without the chat model.

    python bench/scorer_quality.py ../shared/data/cuad-dev --index DIR [--model DIR]
    python bench/scorer_quality.py ../shared/data/cuad-train --index evals/calibration/index \
        --validation-split

For every question, the graph's search (its ``Context`` defaults, scoped to the question's
document as the evaluation harness asks) and the scorer's best-passage score of each hit;
the sources are chosen by the graph's rule (``index/opening.choose_sources``: the first
``context_k`` hits, and the document's opening for a question about its date or parties).
Reports:

- question-level AUROC of the best score among the sources: does it tell answerable from
  unanswerable questions?
- what the scorer's two thresholds would do: the share of answerable and of unanswerable
  questions whose sources fall under the refusal floor (``scorer_sufficiency``), and whose
  best passage reaches the answer threshold (the most ``scorer_answer`` could quote);
- span hit among the sources (a gold span overlaps a source) in retrieval order and after
  the scorer's rerank (``scorer_rerank``).

``DIR`` is an index of the dataset's documents (``citeguard ingest``, or an evaluation
run's cached index; with ``--validation-split``, a training dataset's held-out questions,
the sample ``citeguard calibrate`` uses, over its index). Writes
bench/results/scorer_quality.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, chosen_scorer, question_bench_parser

from citeguard.documents import SearchHit
from citeguard.evaluation.calibrate_scorer import question_sources
from citeguard.evaluation.dataset import Question
from citeguard.evaluation.matching import span_overlaps
from citeguard.evaluation.pair_metrics import auroc
from citeguard.index.search import load_index
from citeguard.learned.evidence import best_passages

OUT = Path("bench/results/scorer_quality.json")


def span_hit(question: Question, sources: list[SearchHit]) -> bool:
    """A gold span of the question overlaps one of the sources."""
    return any(span_overlaps(s.text, h.chunk.text) for s in question.gold_spans for h in sources)


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    scorer = chosen_scorer(args)
    searcher = load_index(args.index)
    indexed = set(searcher.documents)
    questions = bench_questions(args)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for q in questions:
        sources = question_sources(searcher, q.question, q.scope(indexed))
        reranked_sources = question_sources(searcher, q.question, q.scope(indexed), scorer)
        source_scores = best_passages(scorer, q.question, [h.chunk.text for h in sources])
        rows.append(
            {
                "id": q.id,
                "answerable": q.answerable,
                "best_source_score": max((b.score for b in source_scores), default=0.0),
                "span_hit_retrieval": span_hit(q, sources),
                "span_hit_reranked": span_hit(q, reranked_sources),
            }
        )
    seconds = time.perf_counter() - started

    def share(items: list[dict], test) -> float | None:
        return sum(bool(test(r)) for r in items) / len(items) if items else None

    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    result = {
        "dataset": str(args.dataset),
        "model": str(args.model) if args.model else "shipped",
        "command": "python bench/scorer_quality.py " + " ".join(argv),
        "questions": len(rows),
        "thresholds": {"answer": scorer.threshold, "refusal_floor": scorer.recall_threshold},
        "question_auroc": auroc(
            [r["best_source_score"] for r in rows], [int(r["answerable"]) for r in rows]
        ),
        "answerable_under_floor": share(
            answerable, lambda r: r["best_source_score"] < scorer.recall_threshold
        ),
        "unanswerable_under_floor": share(
            unanswerable, lambda r: r["best_source_score"] < scorer.recall_threshold
        ),
        "answerable_over_answer_threshold": share(
            answerable, lambda r: r["best_source_score"] >= scorer.threshold
        ),
        "unanswerable_over_answer_threshold": share(
            unanswerable, lambda r: r["best_source_score"] >= scorer.threshold
        ),
        "span_hit_retrieval_order": share(answerable, lambda r: r["span_hit_retrieval"]),
        "span_hit_scorer_order": share(answerable, lambda r: r["span_hit_reranked"]),
        "seconds_per_question": seconds / max(len(rows), 1),
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

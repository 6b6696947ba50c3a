"""Where the retrieve step's time goes: the search, and the evidence scorer reading passages.

    python bench/retrieval_time.py DATASET --index DIR [--validation-split] [--limit N]

For every question, in dataset order and in one process, the graph's own retrieval
(``graph/sources.retrieve_sources`` under the ``Context`` defaults, then the sources scored
and the passage a passage answer would quote chosen, as the retrieve node does), timed in
four passes:

- **cold**: the scorer's in-memory cache emptied before each question, as in each
  ``citeguard ask`` before passage vectors were stored: a new process embeds every passage;
- **cold_filling_store**: the same, the passages embedded kept in a store
  (``index/stored_passage_vectors.py``; here a temporary file, in the graph the index's
  generation folder): what the first question about a chunk costs;
- **cold_store_filled**: the same again, every passage now read from the store: each
  ``citeguard ask`` about chunks asked about before, in a new process;
- **warm**: the in-memory cache kept between questions, as in ``citeguard eval`` or the
  server, where the questions of one document share chunks.

For each, the seconds per question (p50, mean) and the part spent inside the scorer's
``scores`` (embedding the question and the passages not cached, and the cosines), with the
texts embedded per question. The rest is the hybrid search and the opening source. A
probe, not a test. Run it on idle cores. Writes bench/results/retrieval_time.json.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index

from citeguard.graph.context import Context
from citeguard.graph.passage_scores import AnswerScores
from citeguard.graph.sources import retrieve_sources
from citeguard.index.stored_passage_vectors import StoredPassageVectors
from citeguard.learned.bi_encoder import BiEncoderScorer, BiEncoderWithStoredPassages
from citeguard.learned.evidence import PairScorer

OUT = Path("bench/results/retrieval_time.json")


class TimedScorer:
    """The scorer, with the seconds spent in its ``scores`` added up."""

    def __init__(self, scorer: PairScorer) -> None:
        self.scorer = scorer
        self.seconds = 0.0
        self.threshold = scorer.threshold
        self.recall_threshold = scorer.recall_threshold
        self.passage_answer_threshold = scorer.passage_answer_threshold
        self.weak_passage_relevance_threshold = scorer.weak_passage_relevance_threshold
        self.passage_first_threshold = scorer.passage_first_threshold

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.scorer.scores(pairs)
        finally:
            self.seconds += time.perf_counter() - started


def summary(rows: list[dict[str, float]]) -> dict[str, Any]:
    """p50 and mean of each measure over the questions."""
    return {
        key: {
            "p50": statistics.median(r[key] for r in rows),
            "mean": statistics.fmean(r[key] for r in rows),
        }
        for key in ("seconds", "scorer_seconds", "other_seconds", "texts_embedded")
    }


def time_question(
    reader: PairScorer,
    scorer: BiEncoderScorer,
    searcher: Any,
    indexed: Any,
    q: Any,
    ctx: Context,
    forget: bool,
) -> dict[str, float]:
    """One question's retrieval, timed; ``forget``: the scorer's memory emptied first."""
    if forget:
        scorer.forget_embedded_texts()
    timed = TimedScorer(reader)
    before = scorer.texts_embedded
    started = time.perf_counter()
    scored = AnswerScores(timed, q.question)
    _, sources = retrieve_sources(searcher, q.question, ctx, q.scope(indexed) or None, scored)
    scored.score(sources)
    if ctx.scorer_answer:
        scored.choose_quoted_passage(sources)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "scorer_seconds": timed.seconds,
        "other_seconds": seconds - timed.seconds,
        "texts_embedded": scorer.texts_embedded - before,
    }


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument("--limit", type=int, default=0, help="the first N questions only")
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    if not isinstance(scorer, BiEncoderScorer):
        parser.error("the scorer keeps no cache of embedded passages (not a bi-encoder)")
    questions = bench_questions(args)
    questions = questions[: args.limit] if args.limit else questions
    ctx = Context()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = StoredPassageVectors(Path(folder) / "passages.sqlite", scorer.dimension)
        stored = BiEncoderWithStoredPassages(scorer, store)
        modes: dict[str, tuple[PairScorer, bool]] = {
            "cold": (scorer, True),
            "cold_filling_store": (stored, True),
            "cold_store_filled": (stored, True),
            "warm": (scorer, False),
        }
        for mode, (reader, forget) in modes.items():
            scorer.forget_embedded_texts()
            rows = [
                time_question(reader, scorer, searcher, indexed, q, ctx, forget) for q in questions
            ]
            results[mode] = summary(rows)
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/retrieval_time.py " + " ".join(argv),
            "questions": len(questions),
            **results,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

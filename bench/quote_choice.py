"""Where a passage answer's quote comes from, and whether each step keeps the gold span.

    python bench/quote_choice.py DATASET --index DIR [--validation-split] [--model DIR]

A passage answer is chosen in two steps: the evidence scorer's best passage among the
question's sources (one window per source, the best of them), then the best sentence of that
passage (``generate/passage_answer.quote_passage``). For every answerable question, with
the sources the graph's defaults give it, this counts whether the gold span is

- among the sources at all (some quotable sentence of a source overlaps it),
- in the passage the scorer chooses, and in the one the bundled MiniLM embedder (cosine of
  question and passage) or the sum of the two would choose,
- in the sentence the scorer quotes from the scorer's passage, and in the one MiniLM would,
- in the sentence the scorer rates best among all the sources' sentences (no passage step).

A step that loses the gold where another keeps it is what a better reader would gain; the
same counts on other kinds of documents say whether the gain carries over. No chat model is
called. Writes bench/results/quote_choice.json.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index, source_texts

from citeguard.evaluation.dataset import Question
from citeguard.evaluation.question_thresholds import passage_holds_gold
from citeguard.generate.passage_answer import quote_passage
from citeguard.generate.passage_pieces import passage_sentences
from citeguard.index.embedder import get_embedder
from citeguard.learned.evidence import best_passages

OUT = Path("bench/results/quote_choice.json")
ONLY_THE_BEST = 2.0
"""A neighbour threshold no score reaches: the quote is the best sentence alone."""


def holds_gold(question: Question, text: str) -> bool:
    """Whether ``text`` holds gold by the rule calibration judges a best passage with
    (:func:`~citeguard.evaluation.question_thresholds.passage_holds_gold`)."""
    return bool(text) and passage_holds_gold(text, [s.text for s in question.gold_spans])


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    embedder = get_embedder()

    def cosines(question: str, texts: Sequence[str]) -> np.ndarray:
        # The embedder's vectors are L2-normalized: the dot product is the cosine.
        return np.asarray(embedder.embed_documents(list(texts)) @ embedder.embed_query(question))

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for q in bench_questions(args):
        if not q.answerable:
            continue
        sources = source_texts(searcher, q, indexed)
        if not sources:
            rows.append({"id": q.id, "gold_in_sources": False})
            continue
        found = best_passages(scorer, q.question, sources)
        passages = [sources[i][p.start : p.end] for i, p in enumerate(found)]
        by_scorer = np.asarray([p.score for p in found])
        by_minilm = cosines(q.question, passages)
        chosen = passages[int(np.argmax(by_scorer))]

        def scorer_scores(texts: Sequence[str], question: str = q.question) -> list[float]:
            return [float(s) for s in scorer.scores([(question, t) for t in texts])]

        def minilm_scores(texts: Sequence[str], question: str = q.question) -> list[float]:
            return [float(s) for s in cosines(question, texts)]

        # The best sentence of each source, then the best of those: no passage step.
        per_source = [quote_passage(s, 1, scorer_scores, ONLY_THE_BEST).text for s in sources]
        quoted = [t for t in per_source if t]
        best_of_all = quoted[int(np.argmax(scorer_scores(quoted)))] if quoted else ""
        rows.append(
            {
                "id": q.id,
                "question": q.question,
                "gold_in_sources": any(
                    holds_gold(q, s) for source in sources for s in passage_sentences(source)
                ),
                "passage_by_scorer": holds_gold(q, chosen),
                "passage_by_minilm": holds_gold(q, passages[int(np.argmax(by_minilm))]),
                "passage_by_sum": holds_gold(q, passages[int(np.argmax(by_scorer + by_minilm))]),
                "sentence_by_scorer": holds_gold(
                    q, quote_passage(chosen, 1, scorer_scores, ONLY_THE_BEST).text
                ),
                "sentence_by_minilm": holds_gold(
                    q, quote_passage(chosen, 1, minilm_scores, ONLY_THE_BEST).text
                ),
                "best_sentence_of_all_sources": holds_gold(q, best_of_all),
            }
        )
    counts = {
        key: sum(bool(r.get(key)) for r in rows)
        for key in (
            "gold_in_sources",
            "passage_by_scorer",
            "passage_by_minilm",
            "passage_by_sum",
            "sentence_by_scorer",
            "sentence_by_minilm",
            "best_sentence_of_all_sources",
        )
    }
    result = {
        "dataset": str(args.dataset),
        "model": str(args.model) if args.model else "shipped",
        "command": "python bench/quote_choice.py " + " ".join(argv),
        "answerable": len(rows),
        "gold_held": counts,
        "seconds_per_question": (time.perf_counter() - started) / max(len(rows), 1),
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

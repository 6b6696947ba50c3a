"""What each reader of the relevance check gives a passage answer's quote, on any dataset.

    python bench/quote_readers.py DATASET --index DIR [--validation-split] [--model DIR]
        [--wording TEXT] [--reader DIR ...]

The relevance check of a passage answer is the mean of two readers' P(the quote answers the
question): the local model's (the judge) and the evidence scorer's
(``learned.evidence.averaged_relevance``). For every question, with the sources the graph's
defaults give it, this drafts the passage answer as the graph does
(``generate/passage_answer.passage_answer_of_sources``), asks both readers about the quote the
check reads, and reports, for the judge, the scorer and their mean: the AUROC of right quotes
(an answerable question's quote holding gold) against all others, and at each threshold how
many right quotes, other quotes, and quotes of unanswerable questions reach it. Loads the
local model (one judge call a quote). Writes bench/results/quote_readers.json with every
quote's scores and the text the readers read (``read``). ``--wording`` asks the judge another
relevance question than the shipped one (``llm.judge.RELEVANCE_QUESTION``), to compare
wordings on the same quotes. Each ``--reader`` is another scorer folder that reads the same
quotes (drafted by the bench's scorer) in the scorer's place, reported alone and in the mean
with the judge: a candidate second reader compared on the same quotes and the same judge calls.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import (
    bench_questions,
    load_scorer,
    question_bench_parser,
    scorer_and_index,
    source_texts,
)
from quote_choice import holds_gold

from citeguard.evaluation.pair_metrics import auroc
from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.learned.evidence import best_passage_score
from citeguard.llm.judge import RELEVANCE_QUESTION, local_judge
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/quote_readers.json")
THRESHOLDS = (0.35, 0.4, 0.45, 0.5, 0.55)


def reader_summary(rows: list[dict[str, Any]], read: Callable[[dict[str, Any]], float]) -> dict:
    """AUROC of right quotes against the others, and what reaches each threshold."""
    right = [r for r in rows if r["right"]]
    return {
        "auroc": auroc([read(r) for r in rows], [int(r["right"]) for r in rows])
        if right and len(right) < len(rows)
        else None,
        "reaching": {
            str(t): {
                "right": sum(read(r) >= t for r in right),
                "other": sum(read(r) >= t for r in rows if not r["right"]),
                "unanswerable": sum(read(r) >= t for r in rows if not r["answerable"]),
            }
            for t in THRESHOLDS
        },
    }


def reading_of(key: str) -> Callable[[dict[str, Any]], float]:
    """A quote row's reading by the reader stored under ``key``."""
    return lambda row: float(row[key])


def mean_with_judge(key: str) -> Callable[[dict[str, Any]], float]:
    """The mean of the judge's reading and the one stored under ``key``, as the check reads."""
    return lambda row: (float(row["judge"]) + float(row[key])) / 2


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument(
        "--wording", default=RELEVANCE_QUESTION, help="the judge's relevance question"
    )
    parser.add_argument(
        "--reader",
        type=Path,
        action="append",
        default=[],
        help="another scorer folder that reads the same quotes (repeatable)",
    )
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    readers_of_quotes = {str(folder): load_scorer(folder) for folder in args.reader}
    judge = local_judge()
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for q in bench_questions(args):
        sources = source_texts(searcher, q, indexed)
        drafted = passage_answer_of_sources(scorer, q.question, sources, min_score=0.0)
        if drafted is None:
            continue
        quote = strip_citations(drafted[1].text)
        read = drafted[1].for_relevance(quote)
        rows.append(
            {
                "id": q.id,
                "question": q.question,
                "answerable": q.answerable,
                "right": q.answerable and holds_gold(q, drafted[1].text),
                "quote": quote,
                "read": read,
                "judge": float(judge.answers_question_probability(q.question, read, args.wording)),
                "scorer": best_passage_score(scorer, q.question, read),
                **{
                    folder: best_passage_score(reader, q.question, read)
                    for folder, reader in readers_of_quotes.items()
                },
            }
        )
    readers: dict[str, Callable[[dict[str, Any]], float]] = {
        "judge": reading_of("judge"),
        "scorer": reading_of("scorer"),
        # The check's own mean (learned.evidence.averaged_relevance), of the two readings above.
        "mean": mean_with_judge("scorer"),
    }
    for folder in readers_of_quotes:
        readers[folder] = reading_of(folder)
        readers[f"mean with {folder}"] = mean_with_judge(folder)
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/quote_readers.py " + " ".join(argv),
            "wording": args.wording,
            "quotes": len(rows),
            "right_quotes": sum(r["right"] for r in rows),
            "readers": {name: reader_summary(rows, read) for name, read in readers.items()},
            "seconds": time.perf_counter() - started,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

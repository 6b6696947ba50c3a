"""Would passages that overlap keep the gold where passages side by side cut it in two?

    python bench/overlapping_passages.py DATASET --index DIR [--validation-split] [--model DIR]

The evidence scorer reads each source as passages of whole sentences, at most 80 words,
laid side by side (``text/passages.passages``), and the passage answer quotes the best of
them. A clause that starts near the end of one passage and ends in the next is read half
in each. This chooses the passage a second way, among passages starting at every sentence
(whole sentences up to the same 80 words, so passages overlap: ``best_passages``
``overlapping``, the graph's ``scorer_passages_overlap``), and counts for both, over the
questions whose best passage reaches the passage answer threshold: the answerable
questions whose best passage and whose quote hold the gold, the question AUROC of the
best score and the questions over the floor (the same both ways: the score stays the
best side-by-side passage's). With ``--judge-changed``, every quote that the two ways
draw differently is read by the relevance check (the mean of the local model's and the
scorer's P, as the graph reads a passage answer's quote), both ways, and the summary
counts the changed quotes it passes: right ones, other answerable ones, and quotes of
questions the document does not answer, for each way alone and for the graph's way
(``overlapping_then_side_by_side``: the overlapping passage's quote, and when the check
refuses it the side-by-side passage's, the fallback the graph quotes next). Without it no
chat model is called. With ``--time``, each way's scoring of a question's sources is
timed on a first sight of them (the scorer's cache emptied before each).
``--rows-from FILE`` summarises the rows of an earlier output again, with no model
loaded. Writes bench/results/overlapping_passages.json.

    python bench/overlapping_passages.py DATASET --index DIR --rows-from EARLIER.json --out FILE
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index, source_texts
from quote_choice import holds_gold

from citeguard.evaluation.pair_metrics import auroc
from citeguard.evaluation.question_thresholds import passage_holds_gold
from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.learned.evidence import averaged_relevance, best_passages
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/overlapping_passages.json")
RELEVANCE = 0.5
"""The relevance check's threshold on a passage answer's quote (the graph's default)."""


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument(
        "--judge-changed",
        action="store_true",
        help="read every quote that changed with the relevance check (loads the local model)",
    )
    parser.add_argument(
        "--time",
        action="store_true",
        help="time each way's scoring of a question's sources, the scorer's cache emptied "
        "before each (a first sight of every chunk: the scorer's cost in a fresh process)",
    )
    parser.add_argument(
        "--rows-from",
        type=Path,
        help="summarise the rows of this earlier output instead of reading the questions",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.rows_from:
        earlier = json.loads(args.rows_from.read_text(encoding="utf-8"))
        floor, rows = float(earlier["floor"]), list(earlier["rows"])
    else:
        floor, rows = read_questions(args)
    ways = ("side_by_side", "overlapping", "overlapping_then_side_by_side")
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/overlapping_passages.py " + " ".join(argv),
            "floor": floor,
            "questions": len(rows),
            "answerable": sum(r["answerable"] for r in rows),
            **{way: summary(rows, way, floor) for way in ways},
            "quotes_changed": sum(
                r["side_by_side"]["quote"] != r["overlapping"]["quote"] for r in rows
            ),
            "seconds": time.perf_counter() - started,
            "rows": rows,
        },
    )
    return 0


def read_questions(args: Any) -> tuple[float, list[dict[str, Any]]]:
    """(the passage answer threshold, a row per question with both ways' passages and
    quotes, and the relevance check's reading of the quotes that differ with
    ``--judge-changed``)."""
    scorer, searcher, indexed = scorer_and_index(args)
    relevance = None
    if args.judge_changed:
        from citeguard.llm.judge import local_judge

        relevance = averaged_relevance(local_judge().answers_question_probability, scorer)
    floor = float(scorer.passage_answer_threshold)
    ways = {"side_by_side": False, "overlapping": True}
    rows: list[dict[str, Any]] = []
    questions = bench_questions(args)
    for n, q in enumerate(questions, start=1):
        sources = source_texts(searcher, q, indexed)
        row: dict[str, Any] = {"id": q.id, "answerable": q.answerable}
        gold = [s.text for s in q.gold_spans if s.text.strip()]
        for name, overlapping in ways.items():
            forget = getattr(scorer, "forget_embedded_texts", None)
            if args.time and forget is not None:
                forget()
            timed = time.perf_counter()
            found = best_passages(scorer, q.question, sources, overlapping=overlapping)
            seconds = time.perf_counter() - timed
            best = max(range(len(found)), key=lambda i: found[i].score) if found else None
            drafted = passage_answer_of_sources(scorer, q.question, sources, floor, overlapping)
            row[name] = {
                "score": found[best].score if best is not None else 0.0,
                "passage_gold": best is not None
                and q.answerable
                and passage_holds_gold(sources[best][found[best].start : found[best].end], gold),
                "quote_gold": drafted is not None and holds_gold(q, drafted[1].text),
                "quote": drafted[1].text if drafted is not None else "",
                "read": drafted[1].for_relevance(strip_citations(drafted[1].text))
                if drafted is not None
                else "",
            }
            if args.time:
                row[name]["scoring_seconds"] = seconds
        if relevance is not None and row["side_by_side"]["quote"] != row["overlapping"]["quote"]:
            for name in ways:
                read = row[name]["read"]
                row[name]["relevance"] = relevance(q.question, read) if read else 0.0
        rows.append(row)
        if n % 50 == 0:
            print(f"{n}/{len(questions)} questions", file=sys.stderr, flush=True)
    return floor, rows


def median_or_none(values: list[float | None]) -> float | None:
    """The median of ``values``, None when any is missing (a run without ``--time``)."""
    if not values or any(v is None for v in values):
        return None
    return float(statistics.median(v for v in values if v is not None))


def delivered(row: dict[str, Any], way: str) -> dict[str, Any] | None:
    """The quote a way delivers among those that changed: the way's own when the check
    passes it; for ``overlapping_then_side_by_side`` the overlapping passage's, else the
    side-by-side passage's (the graph's fallback). None when none passes."""
    names = ["overlapping", "side_by_side"] if way == "overlapping_then_side_by_side" else [way]
    for name in names:
        if row[name].get("relevance", 0.0) >= RELEVANCE:
            return dict(row[name])
    return None


def summary(rows: list[dict[str, Any]], way: str, floor: float) -> dict[str, Any]:
    """One way's counts over the questions whose best passage reaches ``floor``."""
    first = "overlapping" if way == "overlapping_then_side_by_side" else way
    over = [r for r in rows if r[first]["score"] >= floor]
    kinds: dict[str, Callable[[dict[str, Any], dict[str, Any]], bool]] = {
        "right": lambda r, quote: bool(quote["quote_gold"]),
        "other_answerable": lambda r, quote: r["answerable"] and not quote["quote_gold"],
        "unanswerable": lambda r, quote: not r["answerable"],
    }
    passing = [(r, delivered(r, way)) for r in over]
    return {
        "question_auroc": auroc(
            [r[first]["score"] for r in rows], [int(r["answerable"]) for r in rows]
        ),
        "answerable_over_floor": sum(r["answerable"] for r in over),
        "unanswerable_over_floor": sum(not r["answerable"] for r in over),
        "passage_holds_gold": sum(r[first]["passage_gold"] for r in over),
        "quote_holds_gold": sum(r[first]["quote_gold"] for r in over),
        # With --time: seconds to score a question's sources, on a first sight of them.
        "scoring_seconds_p50": median_or_none([r[first].get("scoring_seconds") for r in rows]),
        # Of the quotes that changed, those the relevance check passes (--judge-changed).
        "changed_passing": {
            kind: sum(quote is not None and keep(r, quote) for r, quote in passing)
            for kind, keep in kinds.items()
        },
    }


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

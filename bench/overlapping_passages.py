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
questions the document does not answer. Without it no chat model is called. Writes
bench/results/overlapping_passages.json.
"""

from __future__ import annotations

import sys
import time
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
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    relevance = None
    if args.judge_changed:
        from citeguard.llm.judge import local_judge

        relevance = averaged_relevance(local_judge().answers_question_probability, scorer)
    floor = float(scorer.passage_answer_threshold)
    ways = {"side_by_side": False, "overlapping": True}
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    questions = bench_questions(args)
    for n, q in enumerate(questions, start=1):
        sources = source_texts(searcher, q, indexed)
        row: dict[str, Any] = {"id": q.id, "answerable": q.answerable}
        gold = [s.text for s in q.gold_spans if s.text.strip()]
        for name, overlapping in ways.items():
            found = best_passages(scorer, q.question, sources, overlapping=overlapping)
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
        if relevance is not None and row["side_by_side"]["quote"] != row["overlapping"]["quote"]:
            for name in ways:
                read = row[name]["read"]
                row[name]["relevance"] = relevance(q.question, read) if read else 0.0
        rows.append(row)
        if n % 50 == 0:
            print(f"{n}/{len(questions)} questions", file=sys.stderr, flush=True)

    def summary(name: str) -> dict[str, Any]:
        over = [r for r in rows if r[name]["score"] >= floor]
        return {
            "question_auroc": auroc(
                [r[name]["score"] for r in rows], [int(r["answerable"]) for r in rows]
            ),
            "answerable_over_floor": sum(r["answerable"] for r in over),
            "unanswerable_over_floor": sum(not r["answerable"] for r in over),
            "passage_holds_gold": sum(r[name]["passage_gold"] for r in over),
            "quote_holds_gold": sum(r[name]["quote_gold"] for r in over),
            # Of the quotes that changed, those the relevance check passes (--judge-changed).
            "changed_passing": {
                kind: sum(
                    r[name].get("relevance", 0.0) >= RELEVANCE and keep(r, name) for r in over
                )
                for kind, keep in (
                    ("right", lambda r, n: r[n]["quote_gold"]),
                    ("other_answerable", lambda r, n: r["answerable"] and not r[n]["quote_gold"]),
                    ("unanswerable", lambda r, n: not r["answerable"]),
                )
            },
        }

    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/overlapping_passages.py " + " ".join(argv),
            "floor": floor,
            "questions": len(rows),
            "answerable": sum(r["answerable"] for r in rows),
            **{name: summary(name) for name in ways},
            "quotes_changed": sum(
                r["side_by_side"]["quote"] != r["overlapping"]["quote"] for r in rows
            ),
            "seconds": time.perf_counter() - started,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

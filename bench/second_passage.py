"""Would a second passage answer, from the next-best source, answer what the first refuses?

    python bench/second_passage.py DATASET --index DIR [--validation-split] [--model DIR]
        [--judge] [--floor F]

A passage answer quotes the evidence scorer's best passage among the question's sources
(one window per source, the best of them); when the relevance check refuses that quote,
the question is refused. On CUAD dev the gold clause is among the sources for 55 of 60
answerable questions and in the scorer's passage for 42 (docs/results.md, "Where a passage
answer's quote loses the gold"). This asks whether the best passage of another source
(the next-best source's window) holds the gold where the first does not, and, with
``--judge``, whether the relevance check (the mean of the local model's and the scorer's
P, as the graph reads a passage answer) would pass its quote, and at what cost in quotes
of questions the document does not answer.

For every question whose best passage reaches ``--floor`` (default: the shipped scorer's
passage answer threshold), it drafts the first passage answer as the graph does; without
``--judge`` only the gold is counted (no chat model, ~1-3 s a question). With ``--judge``
the first quote is read; when it fails (under 0.5), the second is drafted and read. The
summary gives, at each threshold for the second quote, how many right quotes (an
answerable question's quote holding gold) and quotes of unanswerable questions it adds.
Writes bench/results/second_passage.json with every question's row.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index, source_texts
from quote_choice import holds_gold

from citeguard.evaluation.dataset import Question
from citeguard.generate.passage_answer import scored_passage_answer
from citeguard.generate.passage_pieces import through_following_list
from citeguard.learned.evidence import PairScorer, best_passage_score, best_passages
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/second_passage.json")
RELEVANCE = 0.5
"""The relevance check's threshold on a passage answer's quote (the graph's default)."""
SECOND_THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def drafted_quotes(
    scorer: PairScorer, question: str, sources: Sequence[str], floor: float, quoted: int = 2
) -> list[dict[str, Any]]:
    """The passage of each source whose best passage reaches ``floor``, best first: its
    source number, the scorer's score, the passage and, for the first ``quoted``, the
    quote (as ``passage_answer_of_sources`` drafts the first)."""
    found = best_passages(scorer, question, sources)
    order = sorted(range(len(found)), key=lambda i: -found[i].score)
    drafts: list[dict[str, Any]] = []
    for i in order:
        if found[i].score < floor:
            break
        text = sources[i]
        passage = text[found[i].start : through_following_list(text, found[i].start, found[i].end)]
        draft: dict[str, Any] = {"source": i + 1, "score": found[i].score, "passage": passage}
        if len(drafts) < quoted:
            answer = scored_passage_answer(passage, i + 1, question, scorer)
            if not answer.text:
                continue
            quote = strip_citations(answer.text)
            draft.update(quote=quote, read=answer.for_relevance(quote))
        drafts.append(draft)
    return drafts


def label(question: Question, draft: dict[str, Any]) -> bool:
    """A right quote: the question is answerable and the quote (or, for a passage not
    quoted, the passage) holds its gold."""
    return question.answerable and holds_gold(question, draft.get("quote", draft["passage"]))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Quotes the first passage answer delivers, and what a second adds at each threshold."""
    judged = [r for r in rows if "first_relevance" in r]
    first_pass = [r for r in judged if r["first_relevance"] >= RELEVANCE]
    seconds = [r for r in judged if "second_relevance" in r]
    return {
        "questions": len(rows),
        "unanswerable": sum(not r["answerable"] for r in rows),
        "first_passes": {
            "right": sum(r["first_right"] for r in first_pass),
            "other": sum(not r["first_right"] for r in first_pass),
            "unanswerable": sum(not r["answerable"] for r in first_pass),
        },
        "second_drafted": len(seconds),
        "second_adds": {
            str(t): {
                "right": sum(r["second_right"] and r["second_relevance"] >= t for r in seconds),
                "other": sum(not r["second_right"] and r["second_relevance"] >= t for r in seconds),
                "unanswerable": sum(
                    not r["answerable"] and r["second_relevance"] >= t for r in seconds
                ),
            }
            for t in SECOND_THRESHOLDS
        },
    }


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument("--judge", action="store_true", help="read the quotes with the check")
    parser.add_argument("--floor", type=float, help="passage answer threshold (default: shipped)")
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    floor = args.floor if args.floor is not None else float(scorer.passage_answer_threshold)
    judge = None
    if args.judge:
        from citeguard.llm.judge import local_judge

        judge = local_judge()

    def relevance(question: str, read: str) -> float:
        assert judge is not None
        said = float(judge.answers_question_probability(question, read))
        return (said + best_passage_score(scorer, question, read)) / 2

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    questions = bench_questions(args)
    for n, q in enumerate(questions, start=1):
        drafts = drafted_quotes(scorer, q.question, source_texts(searcher, q, indexed), floor)
        if not drafts:
            continue
        row: dict[str, Any] = {
            "id": q.id,
            "question": q.question,
            "answerable": q.answerable,
            "first_right": label(q, drafts[0]),
            "first_score": drafts[0]["score"],
            "first_quote": drafts[0]["quote"],
            "gold_in_later": [label(q, d) for d in drafts[1:]],
        }
        if judge is not None:
            row["first_relevance"] = relevance(q.question, drafts[0]["read"])
            if row["first_relevance"] < RELEVANCE and len(drafts) > 1:
                row.update(
                    second_right=label(q, drafts[1]),
                    second_score=drafts[1]["score"],
                    second_quote=drafts[1]["quote"],
                    second_relevance=relevance(q.question, drafts[1]["read"]),
                )
        rows.append(row)
        if n % 25 == 0:
            print(f"{n}/{len(questions)} questions", file=sys.stderr, flush=True)
    answerable = [r for r in rows if r["answerable"]]
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/second_passage.py " + " ".join(argv),
            "floor": floor,
            "answerable_drafted": len(answerable),
            "first_holds_gold": sum(r["first_right"] for r in answerable),
            "gold_only_in_second": sum(
                not r["first_right"] and r["gold_in_later"][:1] == [True] for r in answerable
            ),
            "gold_only_later": sum(
                not r["first_right"] and any(r["gold_in_later"]) for r in answerable
            ),
            **(summary(rows) if judge is not None else {}),
            "seconds": time.perf_counter() - started,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

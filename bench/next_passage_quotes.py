"""Would the next source's quote answer when the best one's is refused? A probe, not a feature.

    python bench/next_passage_quotes.py ../shared/data/cuad-train --calibration evals/calibration

The passage answer quotes the best-scored passage of a question's sources, and the relevance
check (the local model's P and the scorer's, averaged) keeps or refuses that quote. When it
refuses, the answer is a refusal, even when another source's passage holds the answer. This
bench asks the questions ``citeguard calibrate`` asks (cuad-train's held-out contracts, the
same seeded sample and sources, searched in its ``OUT/index``) and, for every question whose
best passage reaches the shipped scorer's refusal floor, drafts and judges the quotes of the
best passages of its top three sources in turn, stopping at the first the check keeps
(relevance >= 0.5). Then it counts what the passage answer would deliver if a later source's
quote needed a relevance of at least M (M from 0.5 to 0.9; "none" is today's rule): right
answers (an answerable question, the quoted passage holding gold), answerable questions
answered from a wrong passage, and unanswerable questions answered, against the 2.5%
false-answer budget calibration fits within (for M over 0.5, a later quote kept at 0.5 but
under M ends the question: the source after it is not tried). The model's own answers are not
involved.

About 12 min on 2 cores for 600 questions. Writes ``--out`` (default
bench/results/next_passage_quotes.json).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import quote_bench_parser, shipped_scorer

from citeguard.evaluation.calibrate_scorer import question_sources, validation_questions
from citeguard.evaluation.question_thresholds import CalibrationSettings, passage_holds_gold
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.generate.passage_answer import scored_passage_answer
from citeguard.learned.evidence import averaged_relevance, best_passages
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/next_passage_quotes.json")
SOURCES_TRIED = 3
"""The sources whose best passages are quoted in turn."""
KEEP = 0.5
"""The relevance at which the check keeps a quote (the graph's judge threshold)."""
LATER_MINIMUMS = (0.5, 0.6, 0.7, 0.8, 0.9)
"""The relevance minimums tried for a later source's quote."""


def delivered_counts(rows: list[dict[str, Any]], later_minimum: float | None) -> dict[str, int]:
    """What the passage answer delivers when a later source's quote needs ``later_minimum``
    (None: later sources are never quoted)."""
    counts = {"right": 0, "wrong_passage": 0, "unanswerable": 0, "from_later_source": 0}
    for row in rows:
        for quote in row["quotes"]:
            if quote["rank"] > 0 and later_minimum is None:
                break
            need = KEEP if quote["rank"] == 0 else max(KEEP, later_minimum or KEEP)
            if quote["relevance"] >= need:
                if not row["answerable"]:
                    counts["unanswerable"] += 1
                elif quote["holds_gold"]:
                    counts["right"] += 1
                else:
                    counts["wrong_passage"] += 1
                counts["from_later_source"] += quote["rank"] > 0
                break
    return counts


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    parser.add_argument("--max-questions", type=int, default=600)
    args = parser.parse_args(argv)

    from citeguard.index.search import load_index
    from citeguard.llm.judge import local_judge

    scorer = shipped_scorer(parser)
    judge = local_judge()
    relevance = averaged_relevance(judge.answers_question_probability, scorer)
    settings = CalibrationSettings(max_questions=args.max_questions)
    questions = validation_questions(args.dataset, PairSettings(), settings)
    searcher = load_index(args.calibration / "index")
    indexed = set(searcher.documents)
    rows: list[dict[str, Any]] = []
    for n, question in enumerate(questions, start=1):
        scope = question.scope(indexed)
        if not scope or not set(scope) <= indexed:
            continue
        texts = [h.chunk.text for h in question_sources(searcher, question.question, scope)]
        gold = [s.text for s in question.gold_spans if s.text.strip()]
        found = best_passages(scorer, question.question, texts) if texts else []
        order = sorted(range(len(found)), key=lambda i: -found[i].score)
        quotes: list[dict[str, Any]] = []
        for rank, i in enumerate(order[:SOURCES_TRIED]):
            if found[i].score < scorer.recall_threshold:
                break
            passage = texts[i][found[i].start : found[i].end]
            drafted = scored_passage_answer(passage, i + 1, question.question, scorer)
            if not drafted.text:
                continue
            quote = strip_citations(drafted.text)
            score = relevance(question.question, drafted.for_relevance(quote))
            quotes.append(
                {
                    "rank": rank,
                    "passage_score": found[i].score,
                    "relevance": score,
                    "holds_gold": bool(gold) and passage_holds_gold(passage, gold),
                    "quote": quote,
                }
            )
            if score >= KEEP:
                break
        rows.append({"id": question.id, "answerable": question.answerable, "quotes": quotes})
        print(f"{n}/{len(questions)}", file=sys.stderr, flush=True)

    unanswerable = sum(not r["answerable"] for r in rows)
    result: dict[str, Any] = {
        "command": "python bench/next_passage_quotes.py " + " ".join(argv),
        "questions": len(rows),
        "answerable": len(rows) - unanswerable,
        "false_answer_budget": 0.025 * unanswerable,
        "delivered": {
            "none": delivered_counts(rows, None),
            **{str(m): delivered_counts(rows, m) for m in LATER_MINIMUMS},
        },
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

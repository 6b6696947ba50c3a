"""Which validation rules refuse a passage answer that quotes the gold clause.

    python bench/quote_rules.py DATASET --index DIR [--validation-split] [--model DIR]

The passage answer quotes the evidence scorer's best passage of the question's sources
word for word (``generate/passage_answer.passage_answer_of_sources``). The judge does not read
such a quote (``quotes_are_supported``), but every lexical and strict rule does: a rule that
flags a quote of the clause that answers the question refuses a right answer before the
relevance check is asked. For every question, with the sources the graph's defaults give
it, this builds the passage answer as the graph would and validates it at the strict level
with the run's default thresholds (no model reads it: the relevance check is not run), then
counts

- among answerable questions whose quote holds gold: the quotes each rule flags (each one a
  right answer the rule refuses; the count should be 0 for every rule), with the sentences;
- among unanswerable questions: the quotes each rule flags (what the rule catches before
  the relevance check does);
- the questions whose best passage holds nothing quotable (the passage answer is empty).

No chat model is called. Writes bench/results/quote_rules.json.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index, source_texts
from quote_choice import holds_gold

from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.graph.context import Context
from citeguard.index.embedder import get_embedder
from citeguard.validate.validator import validate_answer

OUT = Path("bench/results/quote_rules.json")


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    embedder = get_embedder()
    settings = Context().validation_settings("strict")

    flagged: dict[str, Counter[str]] = {"gold_quotes": Counter(), "unanswerable_quotes": Counter()}
    quoted = {
        "gold_quotes": 0,
        "unanswerable_quotes": 0,
        "other_answerable_quotes": 0,
        "no_quote": 0,
    }
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for q in bench_questions(args):
        sources = source_texts(searcher, q, indexed)
        if not sources:
            continue
        drafted = passage_answer_of_sources(scorer, q.question, sources, min_score=0.0)
        if drafted is None:
            # Nothing of the best passage is quotable (a lead-in whose list the passage
            # cut, markup): the graph's passage answer is empty and refused.
            quoted["no_quote"] += 1
            rows.append({"id": q.id, "group": "no_quote", "question": q.question,
                         "answerable": q.answerable})  # fmt: skip
            continue
        answer = drafted[1].text
        if not q.answerable:
            group = "unanswerable_quotes"
        elif holds_gold(q, answer):
            group = "gold_quotes"
        else:
            group = "other_answerable_quotes"
        quoted[group] += 1
        if group == "other_answerable_quotes":
            continue
        result = validate_answer(
            answer, sources, q.question, settings, embed=embedder.embed_documents
        )
        failing = [s for s in result.sentences if not s.supported]
        reasons = sorted({r for s in failing for r in s.reasons})
        flagged[group].update(reasons)
        if failing:
            rows.append(
                {
                    "id": q.id,
                    "group": group,
                    "question": q.question,
                    "reasons": reasons,
                    "flagged_sentences": [s.text for s in failing],
                }
            )
    result_json = {
        "dataset": str(args.dataset),
        "model": str(args.model) if args.model else "shipped",
        "command": "python bench/quote_rules.py " + " ".join(argv),
        "quotes": quoted,
        "quotes_flagged": {group: sum(1 for r in rows if r["group"] == group) for group in flagged},
        "flagged_by_reason": {group: dict(counts) for group, counts in flagged.items()},
        "seconds": time.perf_counter() - started,
        "rows": rows,
    }
    write_result(args.out, result_json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

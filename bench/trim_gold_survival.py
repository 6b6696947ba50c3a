"""How often the model's trimmed view of its sources still holds the gold answer.

    python bench/trim_gold_survival.py evals/RUN/results.jsonl \
        --questions ../shared/data/cuad-dev --index-dir INDEX [--words 120 100 80]

The free strategy shows the model each source cut to its ``source_words`` words most related
to the question (``citeguard.generate.trimming``); validation and citations use the whole source. A
gold clause cut out of the view cannot be answered from, however good the model. For every
answerable question of an evaluation run, this re-trims the sources the run retrieved (no
model call) and counts the questions where a gold span overlaps one source by the
evaluation's own hit@k rule (``citeguard.evaluation.metrics.span_hit``): in the whole
sources, and in the view at each ``--words`` budget. It also counts the view's words per
question (all questions). The index gives the embedder and the stored sentence vectors, as
in the graph. Results go to ``bench/results/trim_gold_survival.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "trim_gold_survival.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument(
        "--questions", type=Path, required=True, help="the dataset (folder or questions.jsonl)"
    )
    parser.add_argument("--index-dir", required=True, help="the index the run searched")
    parser.add_argument("--words", type=int, nargs="+", default=[120, 100, 80])
    args = parser.parse_args()

    from citeguard.evaluation.dataset import load_questions
    from citeguard.evaluation.metrics import span_hit, span_texts
    from citeguard.generate.trimming import trim_sources
    from citeguard.graph.context import Context
    from citeguard.graph.resources import Resources

    questions = {question.id: question for question in load_questions(args.questions)}
    records = [json.loads(line) for line in args.results.read_text().splitlines() if line]
    ctx = Context(index_dir=args.index_dir)
    resources = Resources()
    embed, stored = resources.embed(ctx), resources.stored_sentence_vectors(ctx)

    answerable = [r for r in records if r["answerable"] and r["id"] in questions]
    gold = {r["id"]: span_texts(questions[r["id"]].gold_spans) for r in answerable}
    whole = sum(span_hit(gold[r["id"]], [e["text"] for e in r["evidence"]]) for r in answerable)
    rows: list[dict[str, Any]] = []
    for budget in args.words:
        kept = 0
        words = 0
        for record in records:
            view = trim_sources(record["evidence"], record["question"], embed, budget, stored)
            texts = [str(item["text"]) for item in view]
            words += sum(len(text.split()) for text in texts)
            if record["id"] in gold and span_hit(gold[record["id"]], texts):
                kept += 1
        rows.append(
            {
                "source_words": budget,
                "gold_in_view": kept,
                "words_per_question": round(words / max(1, len(records)), 1),
            }
        )
    result = {
        "results": str(args.results),
        "answerable": len(answerable),
        "gold_in_whole_sources": whole,
        "views": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

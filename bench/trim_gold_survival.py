"""How often the model's trimmed view of its sources still holds the gold answer.

    python bench/trim_gold_survival.py evals/RUN/results.jsonl \
        --questions ../shared/data/cuad-dev/questions.jsonl --index-dir INDEX [--words 120 100 80]

The free strategy shows the model each source cut to its ``source_words`` words most related
to the question (``citeguard.trimming``); validation and citations use the whole source. A
gold clause cut out of the view cannot be answered from, however good the model. For every
answerable question of an evaluation run, this re-trims the sources the run retrieved (no
model call) and counts the questions where one source holds at least ``--min-share`` of the
gold span's words: in the whole sources, and in the view at each ``--words`` budget. It
also counts the view's words per question (all questions). The index gives the embedder and
the stored sentence vectors, as in the graph. Results go to
``bench/results/trim_gold_survival.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "trim_gold_survival.json"


def _share(gold: str, texts: list[str]) -> float:
    from citeguard.validation.grounding import token_set

    words = token_set(gold)
    if not words:
        return 0.0
    return max((len(words & token_set(text)) / len(words) for text in texts), default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument("--questions", type=Path, required=True, help="the dataset's questions")
    parser.add_argument("--index-dir", required=True, help="the index the run searched")
    parser.add_argument("--words", type=int, nargs="+", default=[120, 100, 80])
    parser.add_argument("--min-share", type=float, default=0.6)
    args = parser.parse_args()

    from citeguard.context import Context
    from citeguard.resources import Resources
    from citeguard.trimming import trim_sources

    questions = {
        row["id"]: row
        for row in (json.loads(line) for line in args.questions.read_text().splitlines() if line)
    }
    records = [json.loads(line) for line in args.results.read_text().splitlines() if line]
    ctx = Context(index_dir=args.index_dir)
    resources = Resources()
    embed, stored = resources.embed(ctx), resources.stored_sentence_vectors(ctx)

    answerable = [r for r in records if r["answerable"] and r["id"] in questions]
    gold = {r["id"]: " ".join(s["text"] for s in questions[r["id"]]["gold_spans"]) for r in records}
    whole = sum(
        _share(gold[r["id"]], [e["text"] for e in r["evidence"]]) >= args.min_share
        for r in answerable
    )
    rows: list[dict[str, Any]] = []
    for budget in args.words:
        kept = 0
        words = 0
        for record in records:
            view = trim_sources(record["evidence"], record["question"], embed, budget, stored)
            texts = [str(item["text"]) for item in view]
            words += sum(len(text.split()) for text in texts)
            if record in answerable and _share(gold[record["id"]], texts) >= args.min_share:
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
        "min_share": args.min_share,
        "views": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Where everyday questions about one document land against each scorer's thresholds.

    python bench/everyday_questions.py --index DIR --model DIR [--model DIR ...]
        [--question TEXT ...] [--out FILE]

A scorer trained or calibrated on contracts may move a plain-language document's passages
under its refusal floor, and the graph then refuses before any model call. For each
question (default: the README demo's parking question on the bundled lease, two other
wordings of it, and three more lease questions), search the index with the graph's
defaults (:func:`~citeguard.evaluation.calibrate_scorer.question_sources`) and score the
sources' 80-word passages with each ``--model`` folder (``shipped`` names the shipped
scorer). Prints, per model, its refusal floor and answer threshold and each question's best
passage score, and whether it clears the floor; writes bench/results/everyday_questions.json.
``DIR`` indexes the document(s), e.g. the index ``citeguard eval src/citeguard/sample_corpus``
builds under .citeguard-eval/indexes/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import load_scorer

OUT = Path("bench/results/everyday_questions.json")
LEASE_QUESTIONS = (
    "Does the lease include a parking space?",
    "Is there a parking space?",
    "Can I park my car?",
    "When is the rent due, and what is the late fee?",
    "Can I have a pet?",
    "How much is the security deposit?",
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="index of the document(s)")
    parser.add_argument(
        "--model",
        action="append",
        required=True,
        help="a trained scorer's folder, or 'shipped'; repeat to compare",
    )
    parser.add_argument(
        "--question", action="append", help="a question to score; repeat (default: the lease's)"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    from citeguard.evaluation.calibrate_scorer import question_sources
    from citeguard.index.search import load_index
    from citeguard.learned.evidence import best_passages

    questions = list(args.question or LEASE_QUESTIONS)
    searcher = load_index(args.index)
    sources = {q: [h.chunk.text for h in question_sources(searcher, q, None)] for q in questions}
    models: list[dict[str, Any]] = []
    for name in args.model:
        scorer = load_scorer(None if name == "shipped" else Path(name))
        rows = []
        for q in questions:
            best = max((b.score for b in best_passages(scorer, q, sources[q])), default=0.0)
            rows.append(
                {"question": q, "best_passage": best, "over_floor": best >= scorer.recall_threshold}
            )
        models.append(
            {
                "model": name,
                "refusal_floor": scorer.recall_threshold,
                "answer_threshold": scorer.threshold,
                "questions_over_floor": sum(r["over_floor"] for r in rows),
                "questions": rows,
            }
        )
    result = {
        "index": str(args.index),
        "command": "python bench/everyday_questions.py " + " ".join(argv),
        "models": models,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

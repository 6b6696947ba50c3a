"""What the sufficiency word rules refuse, against the evidence scorer's score, per question.

    citeguard calibrate ../shared/data/cuad-train --model MODEL --out evals/calibration
    python bench/sufficiency_rules.py ../shared/data/cuad-train --calibration evals/calibration

Reads a calibration run (its index of the validation documents and every question's best
passage score), asks each question again as the graph does (the ``Context`` defaults,
sources by ``choose_sources``), applies the word rules of ``validate/sufficiency.py``
(cosine floor, question words in the sources) without the scorer, and counts questions by
the rule that fired (or none), answerable or not, and where the scorer put them: under its
refusal floor, between the thresholds, or over its answer threshold. Questions at the floor
or over it that a word rule refuses are those ``scorer_sufficiency``'s override lets through
(it stood at the answer threshold until the floor was found to decide better, docs/results.md,
"The refusal floor"). ``--wording description`` asks each question in its category's CUAD
description instead (the wording training held out), scored afresh by the calibrated scorer (its
folder is ``--model``, default the shipped one). Writes bench/results/sufficiency_rules.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from citeguard.evaluation.calibrate_scorer import (
    question_sources,
    validation_questions,
)
from citeguard.evaluation.question_thresholds import (
    CalibrationSettings,
    score_question,
)
from citeguard.evaluation.train_pairs import PairSettings, wordings
from citeguard.graph.context import Context
from citeguard.index.search import load_index
from citeguard.learned.shipped import load_pair_model, shipped_model
from citeguard.validate.sufficiency import assess_sufficiency

OUT = Path("bench/results/sufficiency_rules.json")


def band(score: float, floor: float, threshold: float) -> str:
    """Where the scorer puts a question: under the floor, between, or over the threshold."""
    if score >= threshold:
        return "over_answer_threshold"
    return "under_floor" if score < floor else "between"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset calibration used")
    parser.add_argument(
        "--calibration", type=Path, required=True, help="a `citeguard calibrate` --out folder"
    )
    parser.add_argument(
        "--wording",
        default="dataset",
        help="dataset (the questions as written, scored by calibration) or another wording "
        "of evaluation/train_pairs.wordings, e.g. description (scored afresh)",
    )
    parser.add_argument("--model", type=Path, help="the scorer for --wording (default: shipped)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    calibration = json.loads((args.calibration / "calibration.json").read_text())
    scores = {row["id"]: row for row in calibration["rows"]}
    settings = CalibrationSettings(**calibration["settings"])
    pairs = PairSettings(
        seed=calibration["split"]["seed"], validation_share=calibration["split"]["validation_share"]
    )
    questions = [q for q in validation_questions(args.dataset, pairs, settings) if q.id in scores]
    searcher = load_index(args.calibration / "index")
    indexed = set(searcher.documents)
    graph = Context()
    floor, threshold = calibration["recall_threshold"], calibration["threshold"]
    categories_file = args.dataset / "categories.json"
    categories = json.loads(categories_file.read_text()) if categories_file.is_file() else {}
    scorer = None
    if args.wording != "dataset":
        scorer = load_pair_model(args.model) if args.model else shipped_model("scorer")
        if scorer is None:
            print("no trained scorer could be loaded", file=sys.stderr)
            return 1
    counts: Counter[tuple[str, str, str]] = Counter()
    for q in questions:
        asked = wordings(q, categories).get(args.wording)
        if asked is None:
            continue
        sources = question_sources(searcher, asked, q.scope(indexed))
        evidence = [{"text": h.chunk.text, "dense_score": h.dense_score} for h in sources]
        verdict = assess_sufficiency(
            asked,
            evidence,
            graph.min_dense_score,
            graph.min_question_coverage,
            graph.retrieval_mode,
        )
        best = (
            scores[q.id]["best_score"]
            if scorer is None
            else score_question(
                replace(q, question=asked), [h.chunk.text for h in sources], scorer
            ).best_score
        )
        counts[
            (
                verdict["reason"] or "none",
                "answerable" if q.answerable else "unanswerable",
                band(best, floor, threshold),
            )
        ] += 1
    rows: list[dict[str, Any]] = [
        {"word_rule": rule, "label": label, "scorer": where, "questions": n}
        for (rule, label, where), n in sorted(counts.items())
    ]
    result = {
        "dataset": str(args.dataset),
        "calibration": str(args.calibration),
        "command": "python bench/sufficiency_rules.py " + " ".join(argv),
        "wording": args.wording,
        "questions": sum(counts.values()),
        "thresholds": {"refusal_floor": floor, "answer": threshold},
        "overridden": sum(
            r["questions"]
            for r in rows
            if r["word_rule"] != "none" and r["scorer"] == "over_answer_threshold"
        ),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for r in rows:
        print(f"{r['word_rule']:22} {r['label']:12} {r['scorer']:22} {r['questions']:4}")
    print(f"overridden by the scorer: {result['overridden']} of {result['questions']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

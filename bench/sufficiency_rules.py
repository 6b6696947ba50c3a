"""What the sufficiency word rules refuse, against the evidence scorer's score, per question.

    citeguard calibrate ../shared/data/cuad-train --model MODEL --out evals/calibration
    python bench/sufficiency_rules.py ../shared/data/cuad-train --calibration evals/calibration

Reads a calibration run (its index of the validation documents and every question's best
passage score), asks each question again as the graph does (the ``Context`` defaults,
sources by ``choose_sources``), applies the word rules of ``validate/sufficiency.py``
(cosine floor, question words in the sources) without the scorer, and counts questions by
the rule that fired (or none), answerable or not, and where the scorer put them: under its
refusal floor, between the thresholds, or over its answer threshold. Questions over the
answer threshold that a word rule refuses are those ``scorer_sufficiency``'s override lets
through. Writes bench/results/sufficiency_rules.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from citeguard.evaluation.calibrate_scorer import CalibrationSettings, validation_questions
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.graph.context import Context
from citeguard.index.opening import choose_sources
from citeguard.index.search import load_index
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
    counts: Counter[tuple[str, str, str]] = Counter()
    for q in questions:
        hits = searcher.search(
            q.question,
            k=graph.top_k,
            mode=graph.retrieval_mode,
            alpha=graph.alpha,
            docs=q.scope(indexed),
            fusion=graph.fusion,
            rerank=graph.rerank,
        )
        sources = choose_sources(
            hits,
            q.question,
            graph.context_k,
            searcher if graph.opening_source else None,
            graph.retrieval_mode,
        )
        evidence = [{"text": h.chunk.text, "dense_score": h.dense_score} for h in sources]
        verdict = assess_sufficiency(
            q.question,
            evidence,
            graph.min_dense_score,
            graph.min_question_coverage,
            graph.retrieval_mode,
        )
        counts[
            (
                verdict["reason"] or "none",
                "answerable" if q.answerable else "unanswerable",
                band(scores[q.id]["best_score"], floor, threshold),
            )
        ] += 1
    rows = [
        {"word_rule": rule, "label": label, "scorer": where, "questions": n}
        for (rule, label, where), n in sorted(counts.items())
    ]
    result = {
        "dataset": str(args.dataset),
        "calibration": str(args.calibration),
        "command": "python bench/sufficiency_rules.py " + " ".join(argv),
        "questions": len(questions),
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
    print(f"overridden by the scorer: {result['overridden']} of {len(questions)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

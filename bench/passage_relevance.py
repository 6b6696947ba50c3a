"""Which evidence should the relevance check read when it judges a passage answer?

    python bench/passage_relevance.py ../shared/data/cuad-train --calibration evals/calibration

A probe, not a test (docs/results.md, "The relevance check on the quote"). The passage
answer (``scorer_answer``) quotes the evidence scorer's best passage when it reaches the
scorer's answer threshold. The relevance check then asks the local model whether a cited
source answers the question. Asked of the whole cited source (a chunk of ~600 tokens, as
for a written answer), its P(Yes) is diluted by everything else the chunk says. This asks
it both ways, for every calibration question (``citeguard calibrate``: cuad-train's held-out
validation contracts, never trained on) whose best passage reaches the answer threshold:

- ``source``: the whole cited source, as the validator asks today;
- ``quote``: only the sentences the passage answer quotes.

A good quote is one of an answerable question whose best passage holds the gold span
(``best_passage_answers``); every other quote (an unanswerable question's, or a wrong
passage of an answerable one) would be a wrong answer. Reported: AUROC of each, and at the
judge threshold the share of good quotes kept and of wrong ones rejected.
Writes the scored rows to ``--out`` (default bench/results/passage_relevance.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench_output import write_result

from citeguard.evaluation.calibrate_scorer import (
    question_sources,
    validation_questions,
)
from citeguard.evaluation.pair_metrics import auroc
from citeguard.evaluation.question_thresholds import CalibrationSettings
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.graph.context import Context
from citeguard.index.search import load_index
from citeguard.learned.shipped import load_pair_model, shipped_folder
from citeguard.llm.judge import local_judge
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/passage_relevance.json")


def summary(rows: list[dict[str, Any]], key: str, threshold: float) -> dict[str, Any]:
    good = [r[key] for r in rows if r["good"]]
    wrong = [r[key] for r in rows if not r["good"]]
    return {
        "auroc": auroc([r[key] for r in rows], [int(r["good"]) for r in rows]),
        "good_kept": sum(s >= threshold for s in good) / len(good) if good else None,
        "wrong_rejected": sum(s < threshold for s in wrong) / len(wrong) if wrong else None,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset the scorer was calibrated on")
    parser.add_argument(
        "--calibration", type=Path, required=True, help="a `citeguard calibrate` --out folder"
    )
    parser.add_argument("--model", type=Path, help="the scorer's folder (default: shipped)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--min-score",
        type=float,
        help="draft the passage answer of every question whose best passage reaches this "
        "score (default: the scorer's answer threshold, as the graph does)",
    )
    args = parser.parse_args(argv)

    scorer = load_pair_model(args.model or shipped_folder("scorer"))
    min_score = scorer.threshold if args.min_score is None else args.min_score
    calibration = json.loads((args.calibration / "calibration.json").read_text())
    rerank = bool(calibration["settings"].get("scorer_rerank"))
    # The calibration's own questions, in its order (cuad-train repeats some ids).
    split = calibration["split"]
    questions = iter(
        validation_questions(
            args.dataset,
            PairSettings(validation_share=split["validation_share"], seed=split["seed"]),
            CalibrationSettings(**calibration["settings"]),
        )
    )
    searcher = load_index(args.calibration / "index")
    indexed = set(searcher.documents)
    judge = local_judge()
    threshold = Context().judge_threshold
    rows: list[dict[str, Any]] = []
    candidates = [r for r in calibration["rows"] if r["best_score"] >= min_score]
    started = time.perf_counter()
    for n, row in enumerate(candidates, start=1):
        question = next(q for q in questions if q.id == row["id"])
        hits = question_sources(
            searcher, question.question, question.scope(indexed), scorer if rerank else None
        )
        sources = [hit.chunk.text for hit in hits]
        drafted = passage_answer_of_sources(scorer, question.question, sources, min_score)
        if drafted is None:
            continue
        cited, drafted_quote = drafted
        quote = strip_citations(drafted_quote.text)
        rows.append(
            {
                "id": row["id"],
                "good": bool(row["answerable"] and row["best_passage_answers"]),
                "answerable": row["answerable"],
                "best_score": row["best_score"],
                "quote": quote,
                "source": judge.answers_question_probability(question.question, sources[cited - 1]),
                "quote_only": judge.answers_question_probability(
                    question.question, drafted_quote.for_relevance(quote)
                ),
            }
        )
        print(f"{n}/{len(candidates)}", file=sys.stderr, flush=True)
    result = {
        "command": "python bench/passage_relevance.py " + " ".join(argv),
        "questions": len(rows),
        "good": sum(r["good"] for r in rows),
        "threshold": threshold,
        "min_score": min_score,
        "source": summary(rows, "source", threshold),
        "quote_only": summary(rows, "quote_only", threshold),
        "seconds": time.perf_counter() - started,
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

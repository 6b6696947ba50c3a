"""Does another wording of the relevance question let more right passage answers through?

    python bench/relevance_prompts.py ../shared/data/cuad-train --calibration evals/calibration

A probe, not a test (docs/results.md, "Tried and rejected"). The relevance check asks the
local model "Does the EVIDENCE answer the QUESTION?" of every passage answer's quote. Many
of the right quotes it doubts answer yes/no questions whose answer is "no" or a condition,
so the wording might read as "is the answer yes?". This re-asks the question in other
wordings of every quote ``citeguard calibrate`` judged (``calibration.json``'s
``judged_quotes``: cuad-train's held-out validation contracts, never trained on) and, for
each wording:

- AUROC of P(Yes) between good quotes (an answerable question's, its best passage holding
  the gold span) and the rest, over all quotes, those of passages under the passage answer
  threshold (``weak``, where the fitted relevance minimum is strict) and those of yes/no
  questions;
- the passage answer thresholds fitted again from its scores, by the rules
  ``citeguard calibrate`` uses, and the right answers they deliver within the same
  false-answer budget (in-sample: the same quotes fit and count).

The shipped wording's scores are the calibration's own (the same model and prompt); the
others share its prompt up to the last line, so each costs only that line's tokens.
Writes every score to ``--out`` (default bench/results/relevance_prompts.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import refit

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.pair_metrics import auroc
from citeguard.llm.judge import RELEVANCE_QUESTION, local_judge
from citeguard.text.questions import is_yes_no_question

OUT = Path("bench/results/relevance_prompts.json")

WORDINGS = {
    "shipped": RELEVANCE_QUESTION,
    "yes-or-no": "Does the EVIDENCE contain the answer to the QUESTION, whether that answer "
    "is yes or no? Answer Yes or No.",
    "addresses": "Does the EVIDENCE address what the QUESTION asks about? Answer Yes or No.",
    "answerable": "Can the QUESTION be answered from the EVIDENCE? Answer Yes or No.",
    "about": "Is the EVIDENCE about what the QUESTION asks? Answer Yes or No.",
}
"""The wordings compared; each replaces the prompt's last line."""


def separation(quotes: list[dict[str, Any]], scores: dict[int, float]) -> dict[str, Any]:
    """AUROC of good against other quotes, and how many of each there are."""
    labels = [int(q["good"]) for q in quotes]
    return {
        "quotes": len(quotes),
        "good": sum(labels),
        "auroc": auroc([scores[q["n"]] for q in quotes], labels),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset the scorer was calibrated on")
    parser.add_argument(
        "--calibration", type=Path, required=True, help="a `citeguard calibrate` --out folder"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    calibration = json.loads((args.calibration / "calibration.json").read_text())
    # cuad-train repeats some ids, always for the same question text.
    texts = {q.id: q.question for q in load_questions(args.dataset, unique_ids=False)}
    quotes = [
        {
            **q,
            "n": n,
            "question": texts[q["id"]],
            "good": bool(q["answerable"] and q["best_passage_answers"]),
        }
        for n, q in enumerate(calibration["judged_quotes"])
    ]
    weak_below = calibration["passage_answer_threshold"]
    groups = {
        "all": quotes,
        "weak": [q for q in quotes if q["best_score"] < weak_below],
        "yes_no": [q for q in quotes if is_yes_no_question(q["question"])],
    }
    scores: dict[str, dict[int, float]] = {name: {} for name in WORDINGS}
    judge = local_judge()
    started = time.perf_counter()
    for q in quotes:
        scores["shipped"][q["n"]] = q["relevance"]
        for name, wording in WORDINGS.items():
            if name != "shipped":
                scores[name][q["n"]] = judge.answers_question_probability(
                    q["question"], q["quote"], wording
                )
        print(f"{q['n'] + 1}/{len(quotes)}", file=sys.stderr, flush=True)

    wordings: dict[str, Any] = {}
    for name, wording in WORDINGS.items():
        fitted = refit(calibration, [scores[name][q["n"]] for q in quotes])
        wordings[name] = {
            "wording": wording,
            **{group: separation(qs, scores[name]) for group, qs in groups.items()},
            **{key: value for key, value in fitted.items() if key != "auroc"},
        }
    result = {
        "command": "python bench/relevance_prompts.py " + " ".join(argv),
        "calibration": calibration["command"],
        "wordings": wordings,
        "seconds": time.perf_counter() - started,
        "rows": [
            {"id": q["id"], "good": q["good"], **{n: scores[n][q["n"]] for n in WORDINGS}}
            for q in quotes
        ],
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where each answerable question is lost, and what the relevance check decides on model answers.

    python bench/refusal_causes.py RUN DATASET [RUN DATASET ...] [--out FILE]

Reads the draft trails of runs made by ``citeguard eval`` (each results line's ``drafts``:
who wrote each draft and what the validator said, ``graph/draft_trail.py``); no
model is called. For every answerable question refused, one cause:

- ``before the model: ...``: sufficiency refused (the scorer's floor, or a word rule);
- the model's first draft and, when one was tried, the passage answer, each labelled
  ``refused`` (the model's refusal), ``relevance`` (every sentence passed, the relevance
  check did not), ``support judge`` or ``rule: REASON`` (a sentence failed).

And every model draft (not a quote) that passed its sentence checks and met the relevance
check, with its score and whether a source it cites holds gold (answerable questions) or
the question has no answer: what the check's threshold keeps and stops on model answers.
Writes bench/results/refusal_causes.json.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import quote_label, run_dataset_pairs, trail_run

from citeguard.evaluation.dataset import Question
from citeguard.evaluation.refusal_causes import answerable_refusal_causes, refusal_cause

OUT = Path("bench/results/refusal_causes.json")


def model_answer_relevance(record: dict[str, Any], question: Question) -> list[dict[str, Any]]:
    """The model drafts of one question that reached the relevance check."""
    rows = []
    for draft in record.get("drafts") or []:
        if draft["drafted_by"] == "answer_from_passage" or draft["relevance"] is None:
            continue
        holds_gold = quote_label(record, question, draft) == "right"
        rows.append(
            {
                "question": record["question"],
                "answerable": question.answerable,
                "cites_gold": holds_gold,
                "relevance": round(float(draft["relevance"]), 3),
                "passed": draft["passed"],
            }
        )
    return rows


def run_causes(run: Path, dataset: Path) -> dict[str, Any]:
    """Refusal causes and model answers' relevance readings of one run."""
    questions, records = trail_run(run, dataset)
    refused: list[dict[str, Any]] = []
    relevance: list[dict[str, Any]] = []
    for record in records:
        question = questions[str(record["id"])]
        relevance.extend(model_answer_relevance(record, question))
        if question.answerable and record.get("status") == "refused":
            gold_in_view = bool((record.get("scores") or {}).get("context_recall"))
            refused.append(
                {
                    "question": record["question"],
                    "cause": refusal_cause(record),
                    "gold_in_sources": gold_in_view,
                }
            )
    return {
        "run": str(run),
        "dataset": str(dataset),
        "questions": len(records),
        "answerable_refused": len(refused),
        "causes": answerable_refusal_causes(records),
        "model_answers_at_relevance_check": {
            "right": sorted(r["relevance"] for r in relevance if r["cites_gold"]),
            "wrong_passage": sorted(
                r["relevance"] for r in relevance if r["answerable"] and not r["cites_gold"]
            ),
            "unanswerable": sorted(r["relevance"] for r in relevance if not r["answerable"]),
        },
        "rows": {"refused": refused, "model_answers": relevance},
    }


def main(argv: list[str]) -> int:
    pairs, out = run_dataset_pairs(argv, __doc__.split("\n\n")[0], OUT)
    runs = [run_causes(run, dataset) for run, dataset in pairs]
    total: Counter[str] = Counter()
    for run in runs:
        total.update(run["causes"])
    write_result(
        out,
        {
            "command": "python bench/refusal_causes.py " + " ".join(argv),
            "causes_in_all_runs": dict(total.most_common()),
            "runs": runs,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

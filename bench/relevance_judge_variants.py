"""Does the relevance judge do better with its question's prior taken out, or shown examples?

    python bench/relevance_judge_variants.py ../shared/data/cuad-train \
        --calibration evals/calibration

A probe, not a feature (docs/results.md, "Tried and rejected"). The relevance check asks the
local model whether a passage answer's quote answers the question, and averages its P(Yes)
with the evidence scorer's. Two ways a small model's yes/no reading is often improved:

- **contextual calibration** (Zhao et al., "Calibrate Before Use", 2021): a question may draw
  a Yes (or a No) for almost any text; asked with a content-free input ("N/A"), the model
  shows that bias, and ``logit P(Yes | quote) - logit P(Yes | "N/A")`` takes it out;
- **worked examples**: four judged pairs shown as earlier turns (:data:`EXAMPLES`, written
  for this probe, on leases, policies and contracts: two quotes that answer with a condition
  or a restriction, two on the question's topic that do not answer it).

For every quote a ``citeguard calibrate`` run judged (``judged_quotes`` in its
``calibration.json``: cuad-train's held-out contracts), good quotes (an answerable question
whose best passage holds gold) against the rest, it reports each reading's AUROC alone and
averaged with the shipped scorer (the calibrated one through a sigmoid), over all quotes,
those of yes/no questions and those of passages under the scorer's answer threshold; and for
each mean, the passage answer thresholds fitted again by ``citeguard calibrate``'s rules and
the passage answers they deliver within the same false-answer budget (in-sample: the same
quotes fit and count). The quote is read as recorded, without the section heading the graph
puts above it. Three judge calls a quote: about 25 min on 2 cores for 264 quotes. Writes
``--out`` (default bench/results/relevance_judge_variants.json).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import (
    CONTENT_FREE,
    is_good,
    quote_bench_parser,
    read_judged_quotes,
    refit,
    sigmoid,
)

from citeguard.learned.evidence import best_passage_score
from citeguard.llm.judge import JUDGE_SYSTEM_PROMPT, relevance_messages

OUT = Path("bench/results/relevance_judge_variants.json")
EXAMPLES = (
    (
        "Tenant shall not assign this lease or sublet any part of the premises without "
        "Landlord's prior written consent.",
        "Can the tenant sublet the apartment?",
        "Yes",
    ),
    (
        "Contractor hereby assigns to the Company all rights in any inventions made in "
        "performing the services.",
        "Can either party assign this agreement to someone else?",
        "No",
    ),
    (
        "Your email address is kept private unless you choose to show it on your public profile.",
        "Will other users see my email address?",
        "Yes",
    ),
    (
        "This agreement shall continue for an initial term of three years from the effective date.",
        "How much notice must be given to end the agreement?",
        "No",
    ),
)
"""(evidence, question, verdict) shown before the quote in the worked-examples reading."""


def logit(p: float) -> float:
    """log(p / (1 - p)), with p kept off 0 and 1."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def with_examples(question: str, evidence: str) -> list[dict[str, str]]:
    """The relevance prompt with :data:`EXAMPLES` as earlier turns."""
    messages = [{"role": "system", "content": JUDGE_SYSTEM_PROMPT}]
    for shown, asked, verdict in EXAMPLES:
        messages += relevance_messages(asked, shown)[1:]
        messages.append({"role": "assistant", "content": verdict})
    return messages + relevance_messages(question, evidence)[1:]


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    calibration, judged, scorer = read.calibration, read.quotes, read.scorer
    from citeguard.llm.judge import local_judge

    judge = local_judge()
    rows: list[dict[str, Any]] = []
    for n, (quote, question) in enumerate(zip(judged, read.questions, strict=True), start=1):
        text = str(quote["quote"])
        rows.append(
            {
                "question": question,
                "quote": text,
                "good": is_good(quote),
                "scorer": best_passage_score(scorer, question, text),
                "judge": judge.answers_question_probability(question, text),
                "judge, content-free": judge.answers_question_probability(question, CONTENT_FREE),
                "judge, worked examples": judge.yes_probability(with_examples(question, text)),
            }
        )
        print(f"{n}/{len(judged)}", file=sys.stderr, flush=True)

    def calibrated(r: dict[str, Any]) -> float:
        return logit(r["judge"]) - logit(r["judge, content-free"])

    readings: dict[str, Callable[[dict[str, Any]], float]] = {
        "judge": lambda r: r["judge"],
        "judge, content-free input alone": lambda r: r["judge, content-free"],
        "judge, calibrated": calibrated,
        "judge, worked examples": lambda r: r["judge, worked examples"],
        "scorer": lambda r: r["scorer"],
    }
    means: dict[str, Callable[[dict[str, Any]], float]] = {
        "judge and scorer": lambda r: (r["judge"] + r["scorer"]) / 2,
        "calibrated judge and scorer": lambda r: (sigmoid(calibrated(r)) + r["scorer"]) / 2,
        "judge with examples and scorer": lambda r: (r["judge, worked examples"] + r["scorer"]) / 2,
    }

    def separation(score: Callable[[dict[str, Any]], float]) -> dict[str, float | None]:
        return read.auroc_by_group([score(r) for r in rows])

    result: dict[str, Any] = {
        "command": "python bench/relevance_judge_variants.py " + " ".join(argv),
        "calibration": calibration.get("command"),
        "quotes": len(rows),
        "good": sum(r["good"] for r in rows),
        "quotes_per_group": {name: sum(kept) for name, kept in read.groups().items()},
        "auroc": {name: separation(score) for name, score in {**readings, **means}.items()},
        "fitted": {
            name: refit(calibration, [score(r) for r in rows]) for name, score in means.items()
        },
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

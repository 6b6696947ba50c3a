"""Does the local model read a yes/no question's quote better by answering it than by
judging it?

    python bench/three_way_relevance.py ../shared/data/cuad-train --calibration evals/calibration

A probe, not a test (docs/results.md, "Tried and rejected"). The relevance check asks the
1.5B judge "Does the EVIDENCE answer the QUESTION?", and it doubts right quotes a yes or no
must be inferred from ("Units may not be rented for periods shorter than 30 days" for "Can I
rent my place on Airbnb for a weekend?"). A small model may answer a question more reliably
than it judges one, so this asks it to answer instead: "Yes, No, or Unknown if the EVIDENCE
does not say", and reads P(decided) = P(Yes or No) over the three tokens. For the quotes of
yes/no questions that ``citeguard calibrate`` judged (``calibration.json``'s
``judged_quotes``), it reports the AUROC, good quotes against the rest, of the judge, the
three-way reading, the scorer, and the means the check would take. Two judge calls a quote
(the evidence prefix is shared): about 12 min on 2 cores for cuad-train's 160. Writes
``--out`` (default bench/results/three_way_relevance.json).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from judged_quotes import is_good, quote_bench_parser, read_judged_quotes

from citeguard.evaluation.pair_metrics import auroc
from citeguard.learned.evidence import best_passage_score
from citeguard.llm.judge import LocalJudge, evidence_first_messages
from citeguard.text.questions import is_yes_no_question

OUT = Path("bench/results/three_way_relevance.json")
ANSWER_IT = (
    "Answer the QUESTION from the EVIDENCE alone: Yes, No, or Unknown if the EVIDENCE does not say."
)
"""The three-way prompt's last line; the rest is the judge's, evidence first."""


THREE = ("Yes", "No", "Unknown")
"""The three answers, each one token in the shipped model's vocabulary."""


def decided_probability(judge: LocalJudge, question: str, evidence: str) -> float:
    """P("Yes" or "No") over "Yes", "No" and "Unknown" as the next token after the
    three-way prompt."""
    messages = evidence_first_messages(evidence, "QUESTION", question, ANSWER_IT)
    values = judge.answer_logits(messages, THREE)
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    return (weights[0] + weights[1]) / sum(weights)


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    from citeguard.llm.judge import local_judge

    judge = local_judge()
    asked = [
        (quote, question)
        for quote, question in zip(read.quotes, read.questions, strict=True)
        if is_yes_no_question(question)
    ]
    rows: list[dict[str, Any]] = []
    for n, (quote, question) in enumerate(asked, start=1):
        text = str(quote["quote"])
        rows.append(
            {
                "question": question,
                "quote": text,
                "good": is_good(quote),
                "judge": judge.answers_question_probability(question, text),
                "three-way": decided_probability(judge, question, text),
                "scorer": best_passage_score(read.scorer, question, text),
            }
        )
        print(f"{n}/{len(asked)}", file=sys.stderr, flush=True)
    good = [int(r["good"]) for r in rows]
    readings = {
        "judge": [r["judge"] for r in rows],
        "three-way": [r["three-way"] for r in rows],
        "scorer": [r["scorer"] for r in rows],
        "judge and scorer (the check)": [(r["judge"] + r["scorer"]) / 2 for r in rows],
        "three-way and scorer": [(r["three-way"] + r["scorer"]) / 2 for r in rows],
    }
    result: dict[str, Any] = {
        "command": "python bench/three_way_relevance.py " + " ".join(argv),
        "calibration": read.calibration.get("command"),
        "quotes": len(rows),
        "good": sum(good),
        "auroc": {name: auroc(scores, good) for name, scores in readings.items()},
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Does the local model's likelihood of the question, given the quote, read a quote better?

    python bench/question_likelihood.py ../shared/data/cuad-train --calibration evals/calibration

A probe, not a feature (docs/results.md, "Tried and rejected"). The relevance check asks the
1.5B model a yes/no question about the quote. A small model often ranks candidate answers
better by the *noisy channel* (Min et al., "Noisy Channel Language Model Prompting", 2022):
how likely the question is once the model has read the passage, rather than how likely the
answer is given the question. For every quote a ``citeguard calibrate`` run judged (good: an
answerable question whose best passage holds gold), four readings, each the mean log
probability per token of the text the model is asked to write:

- **question given quote**: the model is shown the quote and asked to write the question it
  answers; the score is that of the real question;
- the same **less the question given "N/A"** (pointwise mutual information: the question's
  own likelihood taken out);
- **quote given question**: shown the question, asked to quote the passage that answers it;
- the same **less the quote given the question "N/A"**.

It reports each reading's AUROC (all quotes, yes/no questions' quotes, quotes of passages
under the scorer's answer threshold); the recorded check's (the mean of the judge and the
scorer, with ``--passage-relevance-with-scorer``); and the mean of the judge, the scorer and
the question's likelihood (mapped to 0-1 by a logistic whose slope and offset are searched on
a grid over the same quotes), with the passage answer thresholds fitted again by
``citeguard calibrate``'s rules from it (in-sample: the same quotes fit and count). About
47 min on 2 cores for 264 quotes (three passes each).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
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
from citeguard.llm.local_llama import LocalLlama, load_local_llama

OUT = Path("bench/results/question_likelihood.json")
QUESTION_WRITER = (
    "You read a passage of a document and write the question a reader would ask "
    "that the passage answers."
)
QUOTER = "You answer questions about a document by quoting the passage that answers them."
SLOPES = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
OFFSETS = tuple(-3.0 + 0.25 * i for i in range(37))
"""The grid the logistic's slope and offset are searched on (offsets -3 to 6)."""


def mean_token_logprob(model: LocalLlama, messages: list[dict[str, str]], reply: str) -> float:
    """Mean log probability per token of ``reply`` as the model's answer to ``messages``."""
    llama = model.llama
    prompt = model.chat_formatter()(messages=messages).prompt
    prompt_tokens = llama.tokenize(prompt.encode(), add_bos=True, special=True)
    reply_tokens = llama.tokenize(reply.encode(), add_bos=False, special=False)
    llama.reset()
    first, _ = model.next_token_logits(prompt_tokens)
    rows = [np.asarray(first, dtype=np.float64)]
    if len(reply_tokens) > 1:
        rows += list(np.asarray(model.eval_with_logits(reply_tokens[:-1]), dtype=np.float64))
    total = 0.0
    for logits, token in zip(rows, reply_tokens, strict=True):
        top = logits.max()
        total += logits[token] - (top + math.log(float(np.exp(logits - top).sum())))
    return total / len(reply_tokens)


def question_given(model: LocalLlama, question: str, passage: str) -> float:
    messages = [
        {"role": "system", "content": QUESTION_WRITER},
        {
            "role": "user",
            "content": f"Passage: {passage}\n\nWrite the question this passage answers.",
        },
    ]
    return mean_token_logprob(model, messages, question)


def quote_given(model: LocalLlama, question: str, passage: str) -> float:
    messages = [
        {"role": "system", "content": QUOTER},
        {"role": "user", "content": f"Question: {question}\n\nQuote the passage that answers it."},
    ]
    return mean_token_logprob(model, messages, passage)


def fitted_logistic(values: list[float], good: list[int]) -> tuple[float, float]:
    """The (slope, offset) of the grid whose logistic of ``values`` best predicts ``good``."""

    def log_likelihood(slope: float, offset: float) -> float:
        total = 0.0
        for value, label in zip(values, good, strict=True):
            p = sigmoid(slope * value + offset)
            total += math.log(max(1e-9, p if label else 1.0 - p))
        return total

    return max(((s, o) for s in SLOPES for o in OFFSETS), key=lambda so: log_likelihood(*so))


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    calibration = read.calibration
    if not calibration["settings"].get("passage_relevance_with_scorer"):
        parser.error("calibrate that folder with --passage-relevance-with-scorer (the default)")
    model = load_local_llama()
    question_alone: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    for n, (quote, question) in enumerate(zip(read.quotes, read.questions, strict=True), start=1):
        text = str(quote["quote"])
        if question not in question_alone:
            question_alone[question] = question_given(model, question, CONTENT_FREE)
        scorer = best_passage_score(read.scorer, question, text)
        rows.append(
            {
                "question": question,
                "quote": text,
                "good": is_good(quote),
                "recorded": quote["relevance"],
                "scorer": scorer,
                # The recorded check is the mean of the judge and the scorer.
                "judge": 2 * quote["relevance"] - scorer,
                "question given quote": question_given(model, question, text),
                "question alone": question_alone[question],
                "quote given question": quote_given(model, question, text),
                "quote alone": quote_given(model, CONTENT_FREE, text),
            }
        )
        print(f"{n}/{len(read.quotes)}", file=sys.stderr, flush=True)

    good = read.good
    slope, offset = fitted_logistic([r["question given quote"] for r in rows], good)

    def three_way(r: dict[str, Any]) -> float:
        likelihood = sigmoid(slope * r["question given quote"] + offset)
        return (r["judge"] + r["scorer"] + likelihood) / 3

    readings: dict[str, Callable[[dict[str, Any]], float]] = {
        "question given quote": lambda r: r["question given quote"],
        "question given quote, less alone": lambda r: (
            r["question given quote"] - r["question alone"]
        ),
        "quote given question": lambda r: r["quote given question"],
        "quote given question, less alone": lambda r: r["quote given question"] - r["quote alone"],
        "judge": lambda r: r["judge"],
        "scorer": lambda r: r["scorer"],
        "recorded check (judge and scorer)": lambda r: r["recorded"],
        "judge, scorer and question given quote": three_way,
    }
    write_result(
        args.out,
        {
            "command": "python bench/question_likelihood.py " + " ".join(argv),
            "calibration": calibration.get("command"),
            "quotes": len(rows),
            "good": sum(good),
            "auroc": {
                name: read.auroc_by_group([score(r) for r in rows])
                for name, score in readings.items()
            },
            "logistic": {"slope": slope, "offset": offset},
            "fitted": {
                "recorded check (judge and scorer)": refit(
                    calibration, [r["recorded"] for r in rows]
                ),
                "judge, scorer and question given quote": refit(
                    calibration, [three_way(r) for r in rows]
                ),
            },
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Does a hypothetical answer tell right quotes from wrong ones (HyDE)? A probe, not a feature.

    python bench/hypothetical_answers.py ../shared/data/cuad-train --calibration evals/calibration

The relevance check of a passage answer asks whether its quote answers the question. A bundled
sentence embedder compares two statements better than a question with a statement, so the
local model could first write the sentence a document would state to answer the question
(a hypothetical answer: Gao et al., "Precise Zero-Shot Dense Retrieval without Relevance
Labels", 2022), and the check compare that sentence with the quote, with no contract-trained
weights in the way. This bench measures the idea before any of it is built: for every quote a
``citeguard calibrate`` run judged (``judged_quotes`` in its ``calibration.json``: cuad-train's
held-out contracts), the AUROC, good quotes (an answerable question whose best passage holds
gold) against wrong ones, of

- the relevance the calibration recorded for the quote (the graph's check);
- the bundled MiniLM's cosine of the question with the quote, and of the hypothetical answer
  with the quote;
- the shipped evidence scorer's P of the question and of the hypothetical answer.

The local model writes one sentence per distinct question (greedy, 48 tokens at most).
Writes ``--out`` (default bench/results/hypothetical_answers.json).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from bench_questions import local_model_first_lines
from judged_quotes import is_good, quote_bench_parser, read_judged_quotes

from citeguard.evaluation.pair_metrics import auroc
from citeguard.learned.bi_encoder import base_embedder

OUT = Path("bench/results/hypothetical_answers.json")
WRITER_PROMPT = (
    "Write one sentence, as the document itself would state it, that answers the question. "
    "Invent plausible details. Do not say you do not know."
)
"""What the local model is asked before each question."""


def hypothetical_answers(questions: list[str]) -> dict[str, str]:
    """The local model's one-sentence answer to each distinct question, written blind."""
    return local_model_first_lines(WRITER_PROMPT, questions)


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    judged, questions, scorer = read.quotes, read.questions, read.scorer
    quotes = [str(q["quote"]) for q in judged]
    written = hypothetical_answers(questions)
    hypotheses = [written[q] for q in questions]
    embedder = base_embedder("all-MiniLM-L6-v2", 256)

    def cosine(first: list[str], second: list[str]) -> list[float]:
        a = embedder.encode(first, normalize_embeddings=True)
        b = embedder.encode(second, normalize_embeddings=True)
        return [float(x) for x in np.sum(a * b, axis=1)]

    signals: dict[str, list[float]] = {
        "recorded relevance": [float(q["relevance"]) for q in judged],
        "MiniLM cosine, question": cosine(questions, quotes),
        "MiniLM cosine, hypothetical answer": cosine(hypotheses, quotes),
        "scorer, question": [
            float(p) for p in scorer.scores(list(zip(questions, quotes, strict=True)))
        ],
        "scorer, hypothetical answer": [
            float(p) for p in scorer.scores(list(zip(hypotheses, quotes, strict=True)))
        ],
    }
    good = [int(is_good(q)) for q in judged]
    result: dict[str, Any] = {
        "command": "python bench/hypothetical_answers.py " + " ".join(argv),
        "quotes": len(judged),
        "good": sum(good),
        "auroc": {name: auroc(values, good) for name, values in signals.items()},
        "rows": [
            {
                "question": question,
                "hypothetical_answer": hypothesis,
                "quote": quote,
                "good": bool(good_quote),
                **{name: values[i] for name, values in signals.items()},
            }
            for i, (question, hypothesis, quote, good_quote) in enumerate(
                zip(questions, hypotheses, quotes, good, strict=True)
            )
        ],
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

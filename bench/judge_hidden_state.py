"""Does the local model know more about a quote than its Yes/No says?

    python bench/judge_hidden_state.py ../shared/data/cuad-train --calibration evals/calibration

A probe, not a feature (docs/results.md, "Tried and rejected"). The relevance check reads
the 1.5B judge's P(Yes) to "Does the EVIDENCE answer the QUESTION?", which is one direction
of the model's last hidden state. Linear probes on a language model's hidden states often
separate true from false statements better than what the model says (Azaria and Mitchell,
"The Internal State of an LLM Knows When It's Lying", 2023). For every quote a ``citeguard
calibrate`` run judged (good: an answerable question whose best passage holds gold), this
bench asks the judge's relevance question as the graph does and keeps the hidden state of
the prompt's last token after each chosen layer (``--layers``; ``final`` is the normed
output the next-token logits are read from). An L2 logistic probe on each layer is scored
out of fold, its folds split by contract (``--folds``), so a quote is never scored by a
probe trained on its own document.

It reports the AUROC (all quotes, yes/no questions' quotes, quotes of passages under the
scorer's answer threshold) of: the P(Yes) read here, the recorded check (the mean of the
judge and the scorer, with ``--passage-relevance-with-scorer``), each layer's probe alone
and in the mean with the scorer (as the check means the judge and the scorer); and, for the
check and each mean, what a relevance minimum delivers at each step of ``MINIMUMS``: good
quotes, quotes of unanswerable questions and wrong passages of answerable ones; and each
probe's AUROC with 2, 5, 10 and 20 folds (trained on half to 95% of the quotes: would more
quotes help?). The probe's probabilities follow the share of good quotes in its training
folds, so minimums, not a refit at the check's 0.5, compare it with the check.

The quote is read without the heading the graph puts above it (calibration does not keep
the heading), so the P(Yes) here differs slightly from the recorded judge's. About 11 min on
2 cores for 264 quotes.

The layers are read through llama.cpp's graph callback (``cb_eval``;
``citeguard.llm.llama_internals.LastTokenStates``), on a copy of the model of its own.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from judged_quotes import is_good, quote_bench_parser, read_judged_quotes

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.pair_metrics import auroc
from citeguard.learned.evidence import best_passage_score
from citeguard.llm import amx
from citeguard.llm.judge import LocalJudge, relevance_messages
from citeguard.llm.llama_internals import (
    FINAL_NORM,
    LastTokenStates,
    graph_callback,
)
from citeguard.llm.local_llama import LocalLlama

OUT = Path("bench/results/judge_hidden_state.json")
N_EMBD = 1536
"""The bundled Qwen2.5-1.5B's hidden width (checked once the model is loaded)."""
LEARNING_CURVE_FOLDS = (2, 5, 10, 20)
"""Fold counts each probe is also scored with: its training share is (k - 1) / k."""
MINIMUMS = tuple(round(0.3 + 0.025 * i, 3) for i in range(15))
"""Relevance minimums each reading is counted at (0.3 to 0.65)."""


def probed_judge(layers: Sequence[str]) -> tuple[LocalJudge, LastTokenStates]:
    """The judge on its own copy of the local model, loaded as the graph loads it, whose
    layers ``capture`` reads."""
    path, extra_buffers = amx.runtime_choice(None)
    capture = LastTokenStates(layers, N_EMBD)
    with graph_callback(capture.callback):
        model = LocalLlama.load(str(path), extra_buffers=extra_buffers)
    if model.llama.n_embd() != N_EMBD:
        raise RuntimeError(f"expected a {N_EMBD}-wide model, found {model.llama.n_embd()}")
    return LocalJudge(model), capture


def fit_logistic(features: np.ndarray, labels: np.ndarray, c: float) -> np.ndarray:
    """Weights (bias last) of an L2 logistic regression, by Newton's method: the loss summed
    over rows plus ||w||^2 / (2c), the bias not penalised."""
    x = np.hstack([features, np.ones((len(features), 1))])
    penalty = np.full(x.shape[1], 1.0 / c)
    penalty[-1] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - labels) + penalty * w
        hessian = (x.T * (p * (1 - p))) @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def out_of_fold(
    features: np.ndarray, labels: np.ndarray, folds: np.ndarray, c: float
) -> np.ndarray:
    """Each row's probe probability from a probe fitted on the other folds (standardised
    with those folds' means and spreads)."""
    scores = np.zeros(len(labels))
    for fold in np.unique(folds):
        train, test = folds != fold, folds == fold
        mean, spread = features[train].mean(0), features[train].std(0) + 1e-6
        w = fit_logistic((features[train] - mean) / spread, labels[train], c)
        z = (features[test] - mean) / spread
        scores[test] = 1.0 / (1.0 + np.exp(-(z @ w[:-1] + w[-1])))
    return scores


def contract_folds(documents: Sequence[str], folds: int, seed: int = 13) -> np.ndarray:
    """A fold per quote: its document's, documents dealt to folds in a seeded order."""
    names = sorted(set(documents))
    random.Random(seed).shuffle(names)
    fold_of = {name: i % folds for i, name in enumerate(names)}
    return np.array([fold_of[d] for d in documents])


def delivered(scores: Sequence[float], quotes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """At each of ``MINIMUMS``: good quotes kept, unanswerable questions' quotes kept and
    wrong passages of answerable questions kept."""
    out = []
    for minimum in MINIMUMS:
        kept = [q for s, q in zip(scores, quotes, strict=True) if s >= minimum]
        out.append(
            {
                "minimum": minimum,
                "good": sum(is_good(q) for q in kept),
                "unanswerable": sum(not q["answerable"] for q in kept),
                "wrong_passage": sum(q["answerable"] and not is_good(q) for q in kept),
            }
        )
    return out


def main(argv: list[str]) -> int:
    parser = quote_bench_parser(__doc__, OUT)
    parser.add_argument("--layers", default="14,18,22,27," + FINAL_NORM, help="comma-separated")
    parser.add_argument("--folds", type=int, default=10, help="contract folds of the probe")
    parser.add_argument("--c", type=float, default=0.01, help="inverse L2 strength")
    args = parser.parse_args(argv)
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    if not read.calibration["settings"].get("passage_relevance_with_scorer"):
        parser.error("calibrate that folder with --passage-relevance-with-scorer (the default)")
    layers = [layer.strip() for layer in args.layers.split(",") if layer.strip()]
    judge, capture = probed_judge(layers)
    document_of = {q.id: q.doc for q in load_questions(args.dataset, unique_ids=False)}
    p_yes: list[float] = []
    states: dict[str, list[np.ndarray]] = {layer: [] for layer in layers}
    scorer: list[float] = []
    for n, (quote, question) in enumerate(zip(read.quotes, read.questions, strict=True), start=1):
        text = str(quote["quote"])
        capture.rows.clear()
        p_yes.append(judge.yes_probability(relevance_messages(question, text)))
        for layer in layers:
            states[layer].append(capture.rows[layer].copy())
        scorer.append(best_passage_score(read.scorer, question, text))
        print(f"{n}/{len(read.quotes)}", file=sys.stderr, flush=True)
    labels = np.array(read.good, dtype=float)
    documents = [str(document_of[q["id"]]) for q in read.quotes]
    folds = contract_folds(documents, args.folds)
    check = [float(q["relevance"]) for q in read.quotes]
    readings: dict[str, list[float]] = {
        "P(Yes) read here": p_yes,
        "scorer": scorer,
        "recorded check (judge and scorer)": check,
    }
    by_folds: dict[str, dict[int, float | None]] = {}
    for layer in layers:
        features = np.stack(states[layer])
        # Fewer folds train each probe on fewer quotes: does more data help?
        by_folds[layer] = {
            k: auroc(
                list(out_of_fold(features, labels, contract_folds(documents, k), args.c)), read.good
            )
            for k in LEARNING_CURVE_FOLDS
        }
        probe = out_of_fold(features, labels, folds, args.c)
        readings[f"probe {layer}"] = [float(p) for p in probe]
        readings[f"probe {layer} and scorer"] = [
            (float(p) + s) / 2 for p, s in zip(probe, scorer, strict=True)
        ]
    write_result(
        args.out,
        {
            "command": "python bench/judge_hidden_state.py " + " ".join(argv),
            "calibration": read.calibration.get("command"),
            "quotes": len(read.quotes),
            "good": int(labels.sum()),
            "documents": len(set(documents)),
            "auroc": {name: read.auroc_by_group(s) for name, s in readings.items()},
            "probe_auroc_by_folds": by_folds,
            "delivered": {
                name: delivered(s, read.quotes)
                for name, s in readings.items()
                if name == "recorded check (judge and scorer)" or name.endswith("and scorer")
            },
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

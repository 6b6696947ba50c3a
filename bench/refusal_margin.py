"""How sure is the local model when it refuses? A probe of a signal, not a feature.

    python bench/refusal_margin.py ../shared/data/cuad-train --out evals/refusal-margin

The 1.5B model refuses most answerable questions it refuses with the answering clause in
view, and the passage answer that follows then has to pass the relevance check on its own.
Greedy decoding hides how close the refusal was: the model may have put 0.99 on "The
document does not contain ..." or 0.55. If its refusals of answerable questions are less
sure than its refusals of unanswerable ones, that margin is a signal the graph already
computes and throws away, and one the relevance check (the judge and the scorer reading the
quote) does not see.

This bench asks a seeded sample of the questions of the documents training held out (the
split ``citeguard calibrate`` uses: cuad-train's validation documents) through the whole
graph as ``citeguard eval`` does (default settings, every model call fresh, no independent
judge), records every greedy choice the model makes (the chosen token's probability and its
lead over the next-best token, before any grammar), and reports, over the questions whose
first draft is the refusal, how well the refusal's probability separates answerable
questions from the rest (AUROC), also over those where a passage answer was then tried.
Writes ``OUT/margins.json`` (one entry per question) and ``OUT/summary.json``;
``bench/unsure_refusal_fit.py OUT`` then measures what a lower relevance threshold on the
passage answer after an unsure refusal would gain.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from held_out_sample import sample_dataset

from citeguard.evaluation.harness import run_evaluation
from citeguard.evaluation.pair_metrics import auroc
from citeguard.llm import decoding
from citeguard.text.refusal import REFUSAL

RECORDED: list[list[dict[str, float]]] = []
"""The greedy choices of each decode since the last question, one list per decode."""


def install_recorder() -> None:
    """Wrap the greedy chooser so that every choice's probability is recorded."""
    import numpy as np

    original_init = decoding.GreedyGrammarChooser.__init__
    original_choose = decoding.GreedyGrammarChooser.choose

    def init(self: Any, model: Any, grammar_text: str | None) -> None:
        original_init(self, model, grammar_text)
        RECORDED.append([])

    def choose(self: Any, logits: Any) -> int:
        token = original_choose(self, logits)
        row = np.asarray(logits, dtype=np.float64)
        top = row.max()
        log_total = top + math.log(float(np.exp(row - top).sum()))
        chosen = float(row[token])
        others = row.copy()
        others[token] = -np.inf
        RECORDED[-1].append(
            {
                "token": token,
                "p": math.exp(chosen - log_total),
                "lead": chosen - float(others.max()),
            }
        )
        return token

    decoding.GreedyGrammarChooser.__init__ = init  # type: ignore[method-assign]
    decoding.GreedyGrammarChooser.choose = choose  # type: ignore[method-assign]


def text_of(tokens: list[int]) -> str:
    """The text of the local model's ``tokens``."""
    from citeguard.llm.local_llama import load_local_llama

    piece = load_local_llama().llama.detokenize(tokens)
    return piece.decode("utf-8", errors="ignore")


def refusal_probability(steps: list[dict[str, float]], refusal_length: int) -> float:
    """The probability greedy decoding gave the refusal's opening tokens, multiplied."""
    return math.exp(sum(math.log(max(s["p"], 1e-12)) for s in steps[:refusal_length]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=120)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument(
        "--opening-tokens",
        type=int,
        default=4,
        help="how many of the refusal's first tokens its probability is taken over",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    folder = sample_dataset(args.dataset, args.out, args.questions, args.seed)
    install_recorder()
    margins: dict[str, list[list[dict[str, float]]]] = {}

    def on_record(record: dict[str, Any]) -> None:
        margins[str(record["id"])] = [list(steps) for steps in RECORDED]
        RECORDED.clear()

    from citeguard.evaluation.run_config import EvalConfig

    config = dataclasses.replace(EvalConfig(), judge=False)
    run_evaluation(folder, args.out / "run", config, fresh=True, on_record=on_record)
    records = [
        json.loads(line)
        for line in (args.out / "run" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    rows = []
    for record in records:
        decodes = margins.get(str(record["id"]), [])
        first = decodes[0] if decodes else []
        first_text = text_of([int(s["token"]) for s in first])
        rows.append(
            {
                "id": record["id"],
                "question": record["question"],
                "answerable": record["answerable"],
                "status": record.get("status"),
                "refusal_reason": record.get("refusal_reason"),
                "right": (record.get("scores") or {}).get("correct"),
                "context_has_gold": (record.get("scores") or {}).get("context_recall"),
                "first_draft": first_text,
                "first_decode": first[:12],
                "decodes": len(decodes),
            }
        )
    write_result(args.out / "margins.json", {"rows": rows})
    refused = [r for r in rows if r["first_decode"] and r["first_draft"].startswith(REFUSAL[:20])]
    sure = [refusal_probability(r["first_decode"], args.opening_tokens) for r in refused]
    labels = [int(bool(r["answerable"])) for r in refused]
    summary = {
        "questions": len(rows),
        "first_draft_refused": len(refused),
        "refused_answerable": sum(labels),
        "auroc_unsure_refusal_answerable": auroc([1 - s for s in sure], labels)
        if 0 < sum(labels) < len(labels)
        else None,
        "refusal_probability": {
            "answerable": sorted(round(s, 3) for s, y in zip(sure, labels, strict=True) if y),
            "unanswerable": sorted(round(s, 3) for s, y in zip(sure, labels, strict=True) if not y),
        },
    }
    write_result(args.out / "summary.json", summary)
    json.dump(summary, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The support verifier against the 1.5B LLM judge, on the same (claim, evidence) pairs.

    python bench/verifier_vs_judge.py ../shared/data/cuad-dev [--max-pairs 300] [--no-judge]
    python bench/verifier_vs_judge.py ../shared/data/cuad-train --validation-split --no-judge
    python bench/verifier_vs_judge.py ... --verifier evals/verifier/model   # a candidate

The pairs are built from a labelled dataset as the verifier's training pairs are
(``citeguard.evaluation.verifier_pairs``): each gold clause sentence against the passage that
holds it (supported), and its controlled edits against the same passage (a number changed,
parties swapped, a negation flipped, a term relabeled, another clause: unsupported). On
cuad-dev none of these documents was seen in training.

Writes bench/results/verifier_vs_judge.json: for each judge, AUROC, the share of wrong pairs
rejected and of correct pairs kept at its threshold (the verifier's shipped threshold; the
judge's default 0.5), the same by kind of edit, and the seconds per pair. Each judge is
also measured as the validator uses it (``..._with_rules``): asked only about claims that
the rule checks pass (numbers stated by the evidence, no names reversed, no negation
flipped, :mod:`citeguard.validate.copy_edits`); a claim a rule fails scores 0.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from bench_output import write_result

from citeguard.errors import ModelUnavailableError
from citeguard.evaluation.cli_train import edit_names
from citeguard.evaluation.pair_metrics import auroc
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.evaluation.verifier_pairs import CLAIM_EDITS, Claim, build_claims
from citeguard.graph.context import Context
from citeguard.learned.evidence import best_passage_score
from citeguard.learned.shipped import PairModel, load_pair_model, shipped_model
from citeguard.text.quantities import unsupported_quantities
from citeguard.validate.copy_edits import copy_edit_reasons

OUT = Path("bench/results/verifier_vs_judge.json")


def rates(
    claims: Sequence[Claim], scores: Sequence[float], threshold: float, seconds: float
) -> dict[str, object]:
    labels = [c.label for c in claims]
    s = np.asarray(scores)
    y = np.asarray(labels)
    by_edit = {
        edit: float(np.mean(s[[c.edit == edit for c in claims]] < threshold))
        for edit in sorted({c.edit for c in claims if c.label == 0})
    }
    return {
        "pairs": len(claims),
        "auroc": auroc(scores, labels),
        "threshold": threshold,
        "wrong_rejected": float(np.mean(s[y == 0] < threshold)),
        "correct_kept": float(np.mean(s[y == 1] >= threshold)),
        "wrong_rejected_by_edit": by_edit,
        "seconds_per_pair": seconds / max(len(claims), 1),
    }


def timed(score: Callable[[str, str], float], claims: Sequence[Claim]) -> tuple[list[float], float]:
    started = time.perf_counter()
    scores = [float(score(c.claim, c.evidence)) for c in claims]
    return scores, time.perf_counter() - started


def fails_rules(claim: Claim) -> bool:
    """Whether the validator's rule checks reject the claim before any judge reads it."""
    return bool(
        unsupported_quantities(claim.claim, claim.evidence)
        or copy_edit_reasons(claim.claim, claim.evidence)
    )


def with_rules(claims: Sequence[Claim], scores: Sequence[float]) -> list[float]:
    """The judge's scores, 0 where a rule check rejects the claim first."""
    return [0.0 if fails_rules(c) else s for c, s in zip(claims, scores, strict=True)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="?", default="../shared/data/cuad-dev", type=Path)
    parser.add_argument("--max-pairs", type=int, default=300, help="seeded sample (default 300)")
    parser.add_argument("--no-judge", action="store_true", help="the verifier only (fast)")
    parser.add_argument(
        "--validation-split",
        action="store_true",
        help="only the documents training holds out for validation (a training dataset such "
        "as cuad-train: the verifier's own validation split); default: every document",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--claim-edits",
        type=edit_names,
        default=PairSettings().claim_edits,
        help="the claim variants to build, comma-separated (default: "
        f"{','.join(PairSettings().claim_edits)}; all: {','.join(CLAIM_EDITS)})",
    )
    parser.add_argument(
        "--verifier",
        type=Path,
        default=None,
        help="a trained verifier's folder (e.g. evals/verifier/model) to measure instead of "
        "the shipped one, at its own threshold",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device of the --verifier (cpu, or cuda where a GPU is); its seconds per "
        "pair then say nothing of the graph's, which runs on the CPU (default: cpu)",
    )
    args = parser.parse_args(argv)

    if args.validation_split:
        settings = PairSettings(claim_edits=args.claim_edits)
    else:
        settings = PairSettings(validation_share=1.0, claim_edits=args.claim_edits)
    _, claims = build_claims(args.dataset, settings)
    if len(claims) > args.max_pairs:
        claims = random.Random(13).sample(claims, args.max_pairs)
    verifier: PairModel | None
    if args.verifier is not None:
        try:
            verifier = load_pair_model(args.verifier, args.device)
        except ModelUnavailableError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    else:
        verifier = shipped_model("verifier")
    if verifier is None:
        print("no trained verifier could be loaded", file=sys.stderr)
        return 1
    results: dict[str, object] = {
        "dataset": str(args.dataset),
        "command": " ".join(sys.argv),
        "verifier_model": str(args.verifier or "shipped"),
    }
    scores, seconds = timed(lambda c, e: best_passage_score(verifier, c, e), claims)
    results["verifier"] = rates(claims, scores, verifier.threshold, seconds)
    results["verifier_with_rules"] = rates(
        claims, with_rules(claims, scores), verifier.threshold, seconds
    )
    if not args.no_judge:
        from citeguard.llm.judge import local_judge

        judge = local_judge()
        scores, seconds = timed(judge.support_probability, claims)
        threshold = Context().judge_threshold
        results["llm_judge"] = rates(claims, scores, threshold, seconds)
        results["llm_judge_with_rules"] = rates(
            claims, with_rules(claims, scores), threshold, seconds
        )
    write_result(args.out, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

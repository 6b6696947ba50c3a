"""What the copy-edit rules flag: right claims they would refuse, edited claims they catch.

    python bench/copy_edit_rules.py ../shared/data/cuad-train [evals/*/results.jsonl ...]

The rules of :mod:`citeguard.validate.copy_edits` (a swap of names, a flipped "not", a
replaced term, a splice) fail a sentence before any judge reads it, so a rule that flags a
right sentence costs an answer. Two measures:

- on a labelled dataset, the verifier's claims (``citeguard.evaluation.verifier_pairs``,
  every edit kind): the share flagged of each kind, supported claims (which must be 0)
  and edited ones (what the rules catch of that construction);
- on evaluation runs (their ``results.jsonl``), every distinct sentence the model wrote in
  a delivered answer, against the sources it cites: the model's own wording, where a flag
  would be a right answer refused.

Writes bench/results/copy_edit_rules.json and prints it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from bench_output import write_result

from citeguard.evaluation.train_pairs import PairSettings
from citeguard.evaluation.verifier_pairs import CLAIM_EDITS, build_claims
from citeguard.text.citations import parse_citations, strip_citations
from citeguard.text.sentences import split_sentences
from citeguard.validate.copy_edits import copy_edit_reasons

OUT = Path("bench/results/copy_edit_rules.json")


def delivered_sentences(results: Path) -> list[tuple[str, str]]:
    """(sentence, the sources it cites joined) of every answered question in a run."""
    out: list[tuple[str, str]] = []
    for line in results.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("status") != "answered":
            continue
        sources = [e["text"] for e in row.get("evidence", [])]
        for sentence in split_sentences(row["answer"]):
            cited = sorted(
                {c.sources[0] for c in parse_citations(sentence.text, len(sources)) if c.valid}
            )
            claim = strip_citations(sentence.text).strip()
            if cited and re.search(r"\w", claim):
                out.append((claim, "\n\n".join(sources[n - 1] for n in cited)))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a labelled dataset (docs/, questions.jsonl)")
    parser.add_argument("runs", nargs="*", type=Path, help="results.jsonl files of eval runs")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    settings = PairSettings(validation_share=1.0, claim_edits=CLAIM_EDITS)
    _, claims = build_claims(args.dataset, settings)
    total: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    right_flagged: list[dict[str, object]] = []
    for claim in claims:
        kind = claim.edit if claim.label == 0 else f"supported:{claim.edit}"
        total[kind] += 1
        reasons = copy_edit_reasons(claim.claim, claim.evidence)
        if reasons:
            flagged[kind] += 1
            if claim.label == 1:
                right_flagged.append({"claim": claim.claim, "reasons": reasons})
    sentences = list(dict.fromkeys(s for run in args.runs for s in delivered_sentences(run)))
    model_flagged = [
        {"claim": claim, "reasons": reasons}
        for claim, evidence in sentences
        if (reasons := copy_edit_reasons(claim, evidence))
    ]
    results = {
        "dataset": str(args.dataset),
        "command": " ".join(sys.argv),
        "claims_flagged_by_kind": {
            kind: {"claims": total[kind], "flagged": flagged[kind] / total[kind]}
            for kind in sorted(total)
        },
        "supported_claims_flagged": right_flagged,
        "model_sentences": len(sentences),
        "model_sentences_flagged": model_flagged,
    }
    write_result(args.out, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The questions of a finished run whose outcome ``scorer_answer`` could change.

    python bench/passage_answer_candidates.py RUN --dataset DATASET --out SUBSET

``scorer_answer`` acts only after the model refused, or its answers failed validation, and
only when a source passage reaches the evidence scorer's answer threshold; everything
before that point is the same as without it. So for a run made without it, the questions it
could change are its refusals for ``model_refused`` or ``validation_failed`` whose sources'
best passage (by the shipped scorer, or ``CITEGUARD_LEARNED_WEIGHTS``) reaches the
threshold. They are written as a dataset of their own (``SUBSET/questions.jsonl``, with the
dataset's documents linked and its other files copied), to be run fresh with
``citeguard eval SUBSET --scorer-answer`` under the same settings as RUN; the other answers
are RUN's. Prints each candidate with its score.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

CHANGEABLE = ("model_refused", "validation_failed")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="an evaluation run folder (results.jsonl)")
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True, help="the subset dataset folder")
    args = parser.parse_args(argv)

    from citeguard.learned.evidence import best_passages
    from citeguard.learned.shipped import shipped_model

    scorer = shipped_model("scorer")
    if scorer is None:
        print("no trained scorer could be loaded", file=sys.stderr)
        return 1
    records = [json.loads(line) for line in (args.run / "results.jsonl").read_text().splitlines()]
    chosen: set[str] = set()
    for record in records:
        if record["status"] != "refused" or record["refusal_reason"] not in CHANGEABLE:
            continue
        texts = [str(item["text"]) for item in record["evidence"]]
        best = max((b.score for b in best_passages(scorer, record["question"], texts)), default=0)
        if best >= scorer.threshold:
            chosen.add(record["id"])
            print(f"{best:.3f} {record['refusal_reason']} {record['id']}")
    args.out.mkdir(parents=True, exist_ok=True)
    for item in args.dataset.iterdir():
        if item.name == "docs":
            target = args.out / "docs"
            if not target.exists():
                target.symlink_to(item.resolve(), target_is_directory=True)
        elif item.is_file() and item.name != "questions.jsonl":
            shutil.copyfile(item, args.out / item.name)
    lines = (args.dataset / "questions.jsonl").read_text().splitlines()
    kept = [line for line in lines if line.strip() and json.loads(line)["id"] in chosen]
    (args.out / "questions.jsonl").write_text("".join(line + "\n" for line in kept))
    print(
        f"{len(kept)} of {len(records)} questions could change (threshold {scorer.threshold:.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""A seeded sample of the questions of the documents training held out, as a dataset folder.

    python bench/held_out_sample.py ../shared/data/cuad-train --out DIR --questions 240 --seed 31

The documents are those ``citeguard train`` and ``citeguard calibrate`` keep out of training
(cuad-train's validation split), so that ``citeguard eval DIR/dataset`` measures the whole
graph on contracts nothing was trained on, with the labels thresholds may be fitted on.
cuad-train asks some questions of a document twice (the same category in two rows); such an
id is made unique with a suffix ("-2"), since ``citeguard eval`` needs unique ids.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench_questions import dataset_records, write_dataset_subset

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.train_pairs import PairSettings, validation_documents


def with_unique_ids(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with each repeated id after its first given a suffix ("-2", "-3", ...)."""
    seen: Counter[str] = Counter()
    unique = []
    for record in records:
        seen[record["id"]] += 1
        count = seen[record["id"]]
        unique.append({**record, "id": f"{record['id']}-{count}"} if count > 1 else record)
    return unique


def sample_dataset(dataset: Path, out: Path, n_questions: int, seed: int) -> Path:
    """``out``/dataset: a seeded sample of the held-out documents' questions (``docs``
    links to the original's files)."""
    questions = [q for q in load_questions(dataset / "questions.jsonl", unique_ids=False) if q.doc]
    held_out = validation_documents(questions, PairSettings())
    chosen = [line for line in dataset_records(dataset) if line.get("doc") in held_out]
    chosen = random.Random(seed).sample(chosen, min(n_questions, len(chosen)))
    return write_dataset_subset(dataset, out / "dataset", with_unique_ids(chosen))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=240)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    folder = sample_dataset(args.dataset, args.out, args.questions, args.seed)
    print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

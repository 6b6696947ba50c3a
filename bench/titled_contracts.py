"""A dataset of contracts whose clauses stand under title lines, to watch the passage answer
quote under a title ("A title is no answer to a yes/no question", docs/results.md).

    python bench/titled_contracts.py ../shared/data/cuad-train --out DIR
    citeguard eval DIR --out RUN

Writes DIR/docs (links to the contracts of DATASET/docs that hold a title line
"<number>. EXCLUSIVITY") and DIR/questions.jsonl (their questions of five yes/no clause
categories), in the project's dataset format. Built from cuad-train, its scores say what a
change does, not how good the system is.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bench_questions import dataset_records, write_dataset_subset

TITLE_LINE = re.compile(r"(?m)^\s*[0-9]+\.?[0-9]*\.?\s*(?:EXCLUSIVITY|Exclusivity)\.?\s*$")
CATEGORIES = ("Exclusivity", "Non-Compete", "Anti-Assignment", "Cap On Liability", "Audit Rights")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dataset", type=Path, help="a CUAD-format dataset (docs/, questions.jsonl)")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write")
    args = parser.parse_args(argv)
    titled = {
        path.name
        for path in (args.dataset / "docs").glob("*.txt")
        if TITLE_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
    }
    questions = [
        record
        for record in dataset_records(args.dataset)
        if record["doc"] in titled and record["category"] in CATEGORIES
    ]
    write_dataset_subset(args.dataset, args.out, questions)
    print(f"{len(titled)} contracts, {len(questions)} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

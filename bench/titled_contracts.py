"""A dataset of contracts whose clauses stand under title lines, to watch the passage answer
quote under a title ("A title is no answer to a yes/no question", docs/results.md).

    python bench/titled_contracts.py ../shared/data/cuad-train --out DIR
    citeguard eval DIR --out RUN

Writes DIR/docs (the contracts of DATASET/docs that hold a title line "<number>. EXCLUSIVITY")
and DIR/questions.jsonl (their questions of five yes/no clause categories), in the
project's dataset format. Built from cuad-train, its scores say what a change does, not
how good the system is.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

TITLE_LINE = re.compile(r"(?m)^\s*[0-9]+\.?[0-9]*\.?\s*(?:EXCLUSIVITY|Exclusivity)\.?\s*$")
CATEGORIES = ("Exclusivity", "Non-Compete", "Anti-Assignment", "Cap On Liability", "Audit Rights")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dataset", type=Path, help="a CUAD-format dataset (docs/, questions.jsonl)")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write")
    args = parser.parse_args(argv)
    docs = sorted(
        path
        for path in (args.dataset / "docs").glob("*.txt")
        if TITLE_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
    )
    names = {path.name for path in docs}
    questions = [
        line
        for line in (args.dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip() and (q := json.loads(line))["doc"] in names and q["category"] in CATEGORIES
    ]
    (args.out / "docs").mkdir(parents=True, exist_ok=True)
    for path in docs:
        shutil.copy(path, args.out / "docs" / path.name)
    (args.out / "questions.jsonl").write_text("\n".join(questions) + "\n", encoding="utf-8")
    print(f"{len(docs)} contracts, {len(questions)} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

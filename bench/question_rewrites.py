"""Do questions rewritten in a document's words get more right answers? A probe, not a feature.

    python bench/question_rewrites.py DATASET --out FOLDER
    citeguard eval FOLDER --out RUN      # then: python bench/compare_runs.py --answers BEFORE RUN

Everyday questions ("Can kids use this app?") are asked of documents that state their answer
in another register ("The Service is not intended for children under 16"), and the 1.5B
model, the judge and the evidence scorer (trained on contract questions) all read them less
well than a question in the document's own words. This bench has the local model rewrite
every question of a dataset, before it sees any document, as the precise question a lawyer
would ask of the text (greedy, 48 tokens at most; four worked examples: pets on a bus, a gym
refund, an account closed for spam, and a liability cap kept as asked), and writes a copy of
the dataset with the rewritten questions (its ``docs`` a link to the original's) and
``rewrites.json`` (each question and its rewrite). ``citeguard eval`` on the copy then
measures the rewrite end to end: retrieval, the model's answer, validation and the relevance
check all read the rewritten question, and the answers are scored against the original's
gold.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_output import write_result
from bench_questions import local_model_first_lines

REWRITER_PROMPT = (
    "You rewrite a reader's question about a document (a contract, a policy, a lease, house "
    "rules or terms of service) as the precise question a lawyer would ask of the "
    "document's text, in the words such documents use. Keep the question's meaning and its "
    "scope; add no facts and do not answer it. Reply with the rewritten question only."
)
"""What the local model is told before each question."""

WORKED_EXAMPLES = (
    (
        "Can I bring my dog on the bus?",
        "Does the carrier permit passengers to bring pets on board?",
    ),
    (
        "How fast do I get my money back if I quit the gym?",
        "Within what period is a refund paid after a member cancels the membership?",
    ),
    ("Is there a cap on either party's liability?", "Is there a cap on either party's liability?"),
    (
        "Can they close my account for posting spam?",
        "May the provider terminate a user account for posting spam?",
    ),
)
"""Earlier turns showing a rewrite (and a question already in a document's words, kept)."""


def rewrites(questions: list[str]) -> dict[str, str]:
    """The local model's rewrite of each distinct question (the question itself when the
    model writes nothing)."""
    written = local_model_first_lines(REWRITER_PROMPT, questions, WORKED_EXAMPLES)
    return {question: rewrite.strip() or question for question, rewrite in written.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a dataset folder (docs/, questions.jsonl)")
    parser.add_argument("--out", type=Path, required=True, help="the folder of the copy")
    args = parser.parse_args(argv)

    questions_file = args.dataset / "questions.jsonl"
    if not questions_file.is_file():
        parser.error(f"{questions_file} not found: pass a dataset folder")
    records = [json.loads(line) for line in questions_file.read_text().splitlines() if line]
    written = rewrites([record["question"] for record in records])
    args.out.mkdir(parents=True, exist_ok=True)
    docs = args.out / "docs"
    if not docs.exists():
        docs.symlink_to((args.dataset / "docs").resolve(), target_is_directory=True)
    with (args.out / "questions.jsonl").open("w") as out:
        for record in records:
            out.write(json.dumps({**record, "question": written[record["question"]]}) + "\n")
    write_result(
        args.out / "rewrites.json",
        {
            "command": "python bench/question_rewrites.py " + " ".join(argv),
            "changed": sum(old != new for old, new in written.items()),
            "rows": [{"question": old, "rewrite": new} for old, new in written.items()],
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

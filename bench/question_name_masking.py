"""Does the scorer read a question better with the document's own name masked in it?

    python bench/question_name_masking.py DATASET --index DIR [--both]

The evidence scorer (a bi-encoder trained on contracts) leans on a name the question shares
with a passage: for "How old do I have to be to use GitHub?" on GitHub's privacy statement
it scores "GitHub is subject to the ... Federal Trade Commission" 0.65 and the answer, "Our
Services are not intended for individuals under the age of 13.", 0.13. A name that stands in
most of the document's chunks (its author, a service's own name) tells its passages apart
no better than "the", so this asks whether the scorer should read the question with such a
name as "it" ("its" for "GitHub's"): a capitalized word of the question found in at least
half the chunks of the question's document, when the document has at least 8 chunks (a
share over fewer means little). With ``--both`` the name is masked in the passages too.

For every question whose wording changes, the best source passage's score (what the refusal
floor reads) with the question as asked and masked, and, over all questions, the question
AUROC of that score either way (answerable against unanswerable). No chat model. Writes
bench/results/question_name_masking.json.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, chosen_scorer, question_bench_parser

from citeguard.evaluation.calibrate_scorer import question_sources
from citeguard.evaluation.pair_metrics import auroc
from citeguard.index.search import HybridSearcher, load_index
from citeguard.learned.evidence import best_passages
from citeguard.text.tokens import STOPWORDS

OUT = Path("bench/results/question_name_masking.json")
MIN_SHARE = 0.5
"""A name in at least this share of the document's chunks is the document's own."""
MIN_CHUNKS = 8
"""Shares are read only in documents of at least this many chunks."""
_NAME = re.compile(r"\b[A-Z][A-Za-z0-9&-]*[A-Za-z0-9]\b")


def document_names(searcher: HybridSearcher, question: str, docs: list[str]) -> list[str]:
    """The question's capitalized words that stand in at least :data:`MIN_SHARE` of the
    chunks of its documents (at least :data:`MIN_CHUNKS` of them)."""
    texts = [c.text for c in searcher.chunks if c.doc in set(docs)]
    if len(texts) < MIN_CHUNKS:
        return []
    names = []
    for word in dict.fromkeys(_NAME.findall(question)):
        if word.lower() in STOPWORDS:  # "How", "Can", "The": no names
            continue
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        if sum(bool(pattern.search(t)) for t in texts) >= MIN_SHARE * len(texts):
            names.append(word)
    return names


def masked(text: str, names: list[str]) -> str:
    """``text`` with each of ``names`` read as "it" (its possessive as "its")."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}('s)?\b", lambda m: "its" if m.group(1) else "it", text)
    return text


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument("--both", action="store_true", help="mask the passages too")
    args = parser.parse_args(argv)
    scorer = chosen_scorer(args)
    searcher = load_index(args.index)
    indexed = set(searcher.documents)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    questions = bench_questions(args)
    for q in questions:
        docs = q.scope(indexed) or sorted(indexed)
        texts = [h.chunk.text for h in question_sources(searcher, q.question, docs)]
        asked = max((b.score for b in best_passages(scorer, q.question, texts)), default=0.0)
        names = document_names(searcher, q.question, docs)
        row: dict[str, Any] = {"id": q.id, "answerable": q.answerable, "asked": asked}
        if names:
            shown = [masked(t, names) for t in texts] if args.both else texts
            scores = best_passages(scorer, masked(q.question, names), shown)
            row.update(
                question=q.question,
                masked=masked(q.question, names),
                masked_score=max((b.score for b in scores), default=0.0),
            )
        rows.append(row)
    labels = [int(r["answerable"]) for r in rows]
    result = {
        "dataset": str(args.dataset),
        "passages_masked_too": args.both,
        "questions": len(rows),
        "questions_masked": sum("masked" in r for r in rows),
        "question_auroc_asked": auroc([r["asked"] for r in rows], labels),
        "question_auroc_masked": auroc([r.get("masked_score", r["asked"]) for r in rows], labels),
        "seconds_per_question": (time.perf_counter() - started) / max(1, len(rows)),
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

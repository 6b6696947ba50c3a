"""Would retrieval find answers better if each chunk were indexed with its section headings?

    python bench/heading_context.py DATASET --index DIR

A chunk of a long policy is indexed by its own words only, while what it is about is often
said in the heading above it: "## Changes to Our Privacy Statement" above "If there are
material changes to the statement, we will provide at least 30 days prior notice ..." for
"Will they tell me before they change the privacy rules?". This ranks every answerable
question's own document twice (hybrid, dense, lexical; the graph's alpha and min-max
fusion): over the index as ingest built it (each chunk's text alone), and with the dense and
BM25 halves rebuilt from each chunk with the trail of headings in force where it starts in
front of it ("Security and Retention > ..." then the text; at most three, each heading
closing those of its level and deeper). The chunks themselves, and so every quote and
citation, are unchanged.

Headings are read from the parsed text: Markdown's "#" lines; in other files a line that
reads as a heading the way a passage answer reads one (``passage_pieces.is_heading``: a few
words, each capitalized or a small word, "5. Term and Termination", "RECITALS"), its level
the depth of its section number. Writes
bench/results/heading_context.json: per question the rank of the first chunk holding a gold
span either way (99: not in the first 40), and how many are found in the first 1, 4 and 8.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result

from citeguard.evaluation.dataset import dataset_docs_dir, load_questions
from citeguard.evaluation.matching import span_overlaps
from citeguard.generate.passage_pieces import is_heading
from citeguard.index.bm25 import BM25Index
from citeguard.index.search import HybridSearcher, load_index
from citeguard.ingest.parsing import parse_document

OUT = Path("bench/results/heading_context.json")
MODES = ("hybrid", "dense", "lexical")
DEPTH = 40
TRAIL = 3
_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
_SECTION_NUMBER = re.compile(r"^(?:(?:article|section)\s+)?(\d+(?:\.\d+)*)[.)]?\s", re.I)


def text_headings(text: str) -> list[tuple[int, int, str]]:
    """(offset, level, heading) of the lines of plain text that read as headings
    (``passage_pieces.is_heading`` once a closing stop or colon is set aside); the level is
    the depth of the section number a line opens on ("5.1" is 2), else 1."""
    found, offset = [], 0
    for line in text.split("\n"):
        start, offset, heading = offset, offset + len(line) + 1, line.strip().rstrip(" .:")
        if not any(c.isalpha() for c in heading) or not is_heading(heading):
            continue
        number = _SECTION_NUMBER.match(heading)
        found.append((start, number.group(1).count(".") + 1 if number else 1, heading))
    return found


def headings_of(text: str, markdown: bool) -> list[tuple[int, int, str]]:
    """(offset, level, heading) of a parsed document's headings, in order."""
    if markdown:
        return [(m.start(), len(m.group(1)), m.group(2)) for m in _MARKDOWN_HEADING.finditer(text)]
    return text_headings(text)


def trail_at(headings: list[tuple[int, int, str]], offset: int) -> list[str]:
    """The headings in force at ``offset``: each closes those of its level and deeper."""
    trail: list[tuple[int, str]] = []
    for start, level, heading in headings:
        if start >= offset:
            break
        trail = [t for t in trail if t[0] < level] + [(level, heading)]
    return [heading for _, heading in trail][-TRAIL:]


def gold_rank(searcher: HybridSearcher, question: Any, docs: list[str], mode: str) -> int:
    """1-based rank of the first hit in ``docs`` (the question's) holding a gold span."""
    spans = [s.text for s in question.gold_spans]
    hits = searcher.search(question.question, k=DEPTH, mode=mode, docs=docs)
    for rank, hit in enumerate(hits, 1):
        if any(span_overlaps(span, hit.chunk.text) for span in spans):
            return rank
    return 99


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True, help="index of the dataset's docs")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    index = load_index(args.index)
    docs_dir = dataset_docs_dir(args.dataset)
    headings = {
        doc: headings_of(parse_document(docs_dir / doc).text, doc.endswith(".md"))
        for doc in index.documents
    }
    chunks = index.chunks
    with_trail = [
        "\n".join([" > ".join(trail), c.text])
        if (trail := trail_at(headings[c.doc], c.char_start))
        else c.text
        for c in chunks
    ]
    embedder = index.embedder
    searchers = {
        "text": index,  # the chunks as ingest embedded and counted them
        "headings": HybridSearcher.from_arrays(
            chunks, embedder.embed_documents(with_trail), BM25Index.build(with_trail), embedder
        ),
    }
    rows: list[dict[str, Any]] = []
    for q in load_questions(args.dataset):
        docs = q.scope(set(index.documents))
        if not q.answerable or not q.gold_spans or not docs:
            continue
        ranks = {way: {m: gold_rank(s, q, docs, m) for m in MODES} for way, s in searchers.items()}
        rows.append({"id": q.id, "question": q.question, "ranks": ranks})
    found = {
        way: {
            f"hybrid_first_{n}": sum(r["ranks"][way]["hybrid"] <= n for r in rows)
            for n in (1, 4, 8)
        }
        for way in searchers
    }
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "answerable": len(rows),
            "documents_with_headings": sum(bool(h) for h in headings.values()),
            "found": found,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

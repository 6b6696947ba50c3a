"""Retrieval quality on a labelled dataset (not a test): page hit@k and span hit@k per mode.

For every answerable question: is a gold page among the top-k chunks' pages (page_hit), and
does a gold span overlap a top-k chunk (span_hit, see citeguard.evaluation.matching)?
Questions are scoped to their document when the dataset names one ("scoped") and also run
against the whole corpus ("global"). With --long-text both ways of embedding chunks longer
than the model's window are compared (mean of windows vs the model's silent truncation).

    python bench/retrieval_quality.py ../shared/data/cuad-dev --long-text
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from citeguard.evaluation.dataset import dataset_docs_dir, load_questions
from citeguard.evaluation.matching import span_overlaps
from citeguard.index.embedder import SentenceTransformerEmbedder
from citeguard.index.search import load_index
from citeguard.ingest.pipeline import ingest_paths

MODES = ("hybrid", "dense", "lexical")


def evaluate(searcher, questions, k: int) -> dict[str, dict[str, float]]:
    indexed = set(searcher.documents)
    table: dict[str, dict[str, float]] = {}
    for mode in MODES:
        for scoped in (True, False):
            page_hits = span_hits = 0
            for q in questions:
                hits = searcher.search(
                    q.question, k=k, mode=mode, docs=q.scope(indexed) if scoped else None
                )
                if not scoped:
                    hits = [
                        h
                        for h in hits
                        if q.scope(indexed) is None or h.chunk.doc in (q.scope(indexed) or [])
                    ] or []
                pages = {
                    p for h in hits for p in range(h.chunk.pdf_pages[0], h.chunk.pdf_pages[1] + 1)
                }
                page_hits += bool(pages & set(q.gold_pages))
                span_hits += any(
                    span_overlaps(s.text, h.chunk.text) for s in q.gold_spans for h in hits
                )
            n = len(questions)
            table[f"{mode}/{'scoped' if scoped else 'global'}"] = {
                "page_hit": page_hits / n,
                "span_hit": span_hits / n,
            }
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--suffix", default=".pdf", help="which document files to index")
    parser.add_argument("--work", type=Path, default=Path("bench/results/retrieval-index"))
    parser.add_argument("--long-text", action="store_true", help="also index with truncation")
    parser.add_argument("--out", type=Path, default=Path("bench/results/retrieval_quality.json"))
    args = parser.parse_args(argv)

    questions = [q for q in load_questions(args.dataset) if q.answerable]
    files = sorted(str(p) for p in dataset_docs_dir(args.dataset).glob(f"*{args.suffix}"))
    report: dict[str, object] = {"questions": len(questions), "k": args.k}
    variants = ["mean", "truncate"] if args.long_text else ["mean"]
    for variant in variants:
        embedder = SentenceTransformerEmbedder(long_text=variant)
        index_dir = args.work / variant
        started = time.perf_counter()
        ingest_paths(files, index_dir, embedder=embedder, progress=True)
        searcher = load_index(index_dir, embedder=embedder)
        report[f"ingest_seconds_{variant}"] = time.perf_counter() - started
        report[variant] = evaluate(searcher, questions, args.k)
        print(json.dumps({variant: report[variant]}, indent=2), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

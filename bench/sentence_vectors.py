"""Trimming's cost per question with and without the index's stored sentence vectors.

    python bench/sentence_vectors.py ../shared/data/cuad-dev --index DIR [--limit 100]

For each question, the question's document is searched (hybrid, 4 hits, as the answer
graph's default ``context_k``) and the hits are trimmed to 120 words each
(``citeguard.generate.trimming``) twice: embedding the sources' sentences while answering, as a
fresh process (the CLI's ``ask``) does, and looking them up in the index's stored vectors.
Writes seconds per question (p50, mean) for both and how many trimmed prompts are
identical to ``bench/results/sentence_vectors.json``. Build the index with
``citeguard ingest`` or ``citeguard eval`` first; run on idle cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.evaluation.dataset import load_questions
from citeguard.generate.trimming import trim_sources
from citeguard.index.search import load_index

RESULTS = Path(__file__).resolve().parent / "results" / "sentence_vectors.json"
SOURCES = 4
SOURCE_WORDS = 120


def fresh_embed(model: Any) -> Callable[[Sequence[str]], np.ndarray]:
    """A new embedding function over ``model`` (nothing cached under it yet)."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.embed_documents(list(texts)))

    return embed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--index", required=True, type=Path, help="the dataset's index folder")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    searcher = load_index(args.index)
    if searcher.sentence_vectors is None:
        parser.error(f"{args.index} stores no sentence vectors: run `citeguard ingest` on it")
    model = searcher.embedder
    model.embed_documents(["warm-up"])
    questions = load_questions(args.dataset)[: args.limit]
    seconds: dict[str, list[float]] = {"embedded": [], "stored": []}
    identical = 0
    for question in questions:
        docs = [d for d in searcher.documents if Path(d).stem == Path(question.doc or "").stem]
        hits = searcher.search(question.question, k=SOURCES, docs=docs or None)
        evidence = [{"text": h.chunk.text, "chunk_id": h.chunk.chunk_id} for h in hits]

        # A new function per question and variant: trimming's in-memory cache (keyed by the
        # function) starts empty, as in a fresh process.
        embedded_now, stored_lookup = fresh_embed(model), fresh_embed(model)
        started = time.perf_counter()
        plain = trim_sources(evidence, question.question, embedded_now, SOURCE_WORDS)
        seconds["embedded"].append(time.perf_counter() - started)
        started = time.perf_counter()
        fast = trim_sources(
            evidence,
            question.question,
            stored_lookup,
            SOURCE_WORDS,
            searcher.stored_sentence_vectors,
        )
        seconds["stored"].append(time.perf_counter() - started)
        identical += [p["text"] for p in plain] == [f["text"] for f in fast]

    report: dict[str, Any] = {
        "dataset": args.dataset,
        "questions": len(questions),
        "date": time.strftime("%Y-%m-%d"),
        "identical_trimmed_sources": identical,
    }
    for label, values in seconds.items():
        report[f"seconds_{label}"] = {
            "p50": round(statistics.median(values), 3),
            "mean": round(statistics.fmean(values), 3),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

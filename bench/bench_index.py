"""Ingestion and search benchmark (not a test): speed, latency and memory on this machine.

Reports PDF parse pages/s, chunking chunks/s, embedding chunks/s (real model), index build
time and search latency p50/p95 at 1k/10k/100k chunks, with and without the query
embedding, peak memory, rank-bm25 scoring time for comparison, and LangChain's
EnsembleRetriever(BM25Retriever + FAISS) on the same corpus as the peer.

Scale corpora are synthetic: Zipf-distributed words and random unit vectors (embedding 100k
chunks with the real model would take ~30 minutes on 2 cores and measures the model, not
the index). The real model is timed separately on real chunks.

    python bench/bench_index.py                 # full run, writes bench/results/index.json
    python bench/bench_index.py --sizes 1000 10000 --queries 50
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from citeguard.documents import Chunk
from citeguard.index.bm25 import BM25Index, tokenize
from citeguard.index.embedder import get_embedder
from citeguard.index.search import HybridSearcher
from citeguard.ingest.chunking import ChunkSettings, chunk_document
from citeguard.ingest.parsing import parse_document

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PDF_DIR = ROOT.parent / "shared" / "data" / "cuad-dev" / "docs"
SAMPLE_DIR = ROOT / "src" / "citeguard" / "sample_corpus"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000}


def bench_real_pipeline(pdf_dir: Path, embed_limit: int) -> dict[str, float]:
    pdfs = sorted(pdf_dir.glob("*.pdf"))
    if not pdfs:
        return {}
    started = time.perf_counter()
    docs = [parse_document(p) for p in pdfs]
    parse_s = time.perf_counter() - started
    pages = sum(len(d.pages) for d in docs)

    embedder = get_embedder()
    settings = ChunkSettings()
    started = time.perf_counter()
    chunks = [c for d in docs for c in chunk_document(d, settings, embedder.count_tokens)]
    chunk_s = time.perf_counter() - started

    sample = [c.text for c in chunks[:embed_limit]]
    embedder.embed_documents(sample[:4])  # warm up
    started = time.perf_counter()
    embedder.embed_documents(sample)
    embed_s = time.perf_counter() - started
    return {
        "documents": len(docs),
        "pages": pages,
        "parse_pages_per_s": pages / parse_s,
        "chunks": len(chunks),
        "chunking_chunks_per_s": len(chunks) / chunk_s,
        "embedded_chunks": len(sample),
        "embedding_chunks_per_s": len(sample) / embed_s,
        "mean_chunk_tokens": float(np.mean(embedder.count_tokens([c.text for c in chunks]))),
    }


def synthetic_corpus(n: int, dim: int, rng: np.random.Generator) -> tuple[list[Chunk], np.ndarray]:
    vocab = np.array([f"w{i}" for i in range(20000)])
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    words = rng.choice(len(vocab), size=(n, 120), p=weights)
    chunks = []
    for i in range(n):
        text = " ".join(vocab[words[i]])
        chunks.append(
            Chunk(f"syn:{i}", f"doc{i // 50}.txt", text, (1, 1), ("1", "1"), 0, len(text))
        )
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return chunks, vectors


def bench_scale(n: int, n_queries: int, embedder, rng, peer: bool) -> dict[str, object]:
    chunks, vectors = synthetic_corpus(n, embedder.dimension, rng)
    started = time.perf_counter()
    searcher = HybridSearcher.from_arrays(chunks, vectors, embedder=embedder)
    build_s = time.perf_counter() - started
    queries = [" ".join(chunks[int(i)].text.split()[5:10]) for i in rng.integers(0, n, n_queries)]
    qvecs = rng.standard_normal((n_queries, embedder.dimension)).astype(np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)

    searcher.search(queries[0], query_vector=qvecs[0])  # warm up
    without_embedding = []
    for q, v in zip(queries, qvecs, strict=True):
        t = time.perf_counter()
        searcher.search(q, k=8, query_vector=v)
        without_embedding.append(time.perf_counter() - t)
    with_embedding = []
    for q in queries[: min(n_queries, 30)]:
        t = time.perf_counter()
        searcher.search(q, k=8)
        with_embedding.append(time.perf_counter() - t)

    bm25_rank = []
    if n <= 10000:  # rank-bm25 scores in a Python loop; at 100k it takes seconds a query
        from rank_bm25 import BM25Okapi

        okapi = BM25Okapi([tokenize(c.text) for c in chunks])
        for q in queries[:20]:
            t = time.perf_counter()
            okapi.get_scores(tokenize(q))
            bm25_rank.append(time.perf_counter() - t)
    bm25 = BM25Index.build(c.text for c in chunks)
    bm25_ours = []
    for q in queries[:20]:
        t = time.perf_counter()
        bm25.get_scores(tokenize(q))
        bm25_ours.append(time.perf_counter() - t)

    result: dict[str, object] = {
        "chunks": n,
        "build_s": build_s,
        "search_without_query_embedding": percentiles(without_embedding),
        "search_with_query_embedding": percentiles(with_embedding),
        "bm25_scoring_ours": percentiles(bm25_ours),
        "bm25_scoring_rank_bm25": percentiles(bm25_rank) if bm25_rank else None,
        "peak_rss_mb": peak_rss_mb(),
    }
    if peer:
        result["peer"] = bench_peer(chunks, vectors, queries[:20], qvecs[:20], without_embedding)
    return result


def bench_peer(chunks, vectors, queries, qvecs, ours_samples) -> dict[str, object]:
    """LangChain's EnsembleRetriever(BM25Retriever + FAISS) over the same chunks and vectors."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_community.vectorstores import FAISS
    from langchain_core.embeddings import Embeddings

    class QueueEmbeddings(Embeddings):
        """Hands out precomputed query vectors, so the peer is timed without the model too."""

        def __init__(self) -> None:
            self.next: np.ndarray | None = None

        def embed_documents(self, texts):  # pragma: no cover - not used
            raise NotImplementedError

        def embed_query(self, text):
            return self.next.tolist()

    emb = QueueEmbeddings()
    texts = [c.text for c in chunks]
    started = time.perf_counter()
    store = FAISS.from_embeddings(list(zip(texts, vectors.tolist(), strict=True)), emb)
    bm25 = BM25Retriever.from_texts(texts, preprocess_func=tokenize)
    bm25.k = 8
    ensemble = EnsembleRetriever(
        retrievers=[store.as_retriever(search_kwargs={"k": 8}), bm25], weights=[0.65, 0.35]
    )
    build_s = time.perf_counter() - started
    samples = []
    for q, v in zip(queries, qvecs, strict=True):
        emb.next = v
        t = time.perf_counter()
        ensemble.invoke(q)
        samples.append(time.perf_counter() - t)
    peer = percentiles(samples)
    ours = percentiles(ours_samples)
    return {
        "build_s": build_s,
        "search": peer,
        "p50_ratio_peer_over_ours": peer["p50_ms"] / ours["p50_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--pdf-dir", type=Path, default=DEFAULT_PDF_DIR)
    parser.add_argument("--embed-limit", type=int, default=200)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "index.json")
    args = parser.parse_args(argv)

    pdf_dir = args.pdf_dir if args.pdf_dir.exists() else SAMPLE_DIR
    report: dict[str, object] = {
        "machine": {"python": sys.version.split()[0], "platform": platform.platform()},
        "pipeline": bench_real_pipeline(pdf_dir, args.embed_limit),
        "pdf_dir": str(pdf_dir),
    }
    print(json.dumps(report["pipeline"], indent=2), flush=True)
    embedder = get_embedder()
    rng = np.random.default_rng(0)
    scale = []
    for n in args.sizes:
        row = bench_scale(n, args.queries, embedder, rng, peer=not args.no_peer)
        scale.append(row)
        print(json.dumps(row, indent=2), flush=True)
    report["scale"] = scale
    report["peak_rss_mb"] = peak_rss_mb()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Which signal tells an answerable question from an unanswerable one, before any model call?

    python bench/answerability_signals.py DATASET --index DIR [--validation-split]
        [--model DIR] [--embedder PATH] [--out FILE]

For every question (with ``--validation-split``: the seeded sample of the training split's
held-out documents that ``citeguard calibrate`` uses; else all of DATASET), hybrid search in
its own document with the graph's defaults, the first ``context_k`` hits as sources, each
cut into the 80-word passages the trained models read. Per question, the best passage by:

- ``scorer``: the evidence scorer (``--model``, else the shipped one);
- ``cosine``: the cosine of question and passage by a sentence embedder (the index's
  model, or ``--embedder``, a sentence-transformers folder);
- ``retrieval``: the first hit's fused retrieval score (no passage).

Reports each signal's question-level AUROC (answerable vs not), and for the questions it
ranks highest (top 5, 10, 20, 40) the share that are answerable and the share whose best
passage holds a gold span: what a threshold high enough to answer from that passage would
get. ``DIR`` indexes DATASET's documents (for ``--validation-split``, the index
``citeguard calibrate`` wrote to ``OUT/index``). Writes bench/results/answerability_signals.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from bench_questions import bench_questions, chosen_scorer, question_bench_parser

OUT = Path("bench/results/answerability_signals.json")
TOP = (5, 10, 20, 40)


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument("--embedder", help="a sentence-transformers folder for the cosine")
    args = parser.parse_args(argv)

    from citeguard.evaluation.pair_metrics import auroc
    from citeguard.evaluation.question_thresholds import passage_holds_gold
    from citeguard.graph.context import Context
    from citeguard.graph.resources import Resources
    from citeguard.index.opening import choose_sources
    from citeguard.index.search import load_index
    from citeguard.learned.evidence import PASSAGE_WORDS, best_passages
    from citeguard.text.passages import passages

    scorer = chosen_scorer(args)
    if args.embedder:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(args.embedder, device="cpu")

        def embed(texts: list[str]) -> np.ndarray:
            return np.asarray(model.encode(texts, normalize_embeddings=True, batch_size=32))
    else:
        embed = Resources().embed(Context(index_dir=str(args.index)))  # type: ignore[assignment]
    questions = bench_questions(args)
    searcher = load_index(args.index)
    indexed = set(searcher.documents)
    ctx = Context()
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for q in questions:
        scope = q.scope(indexed)
        if not scope or not set(scope) <= indexed:
            continue
        hits = searcher.search(
            q.question, k=ctx.top_k, mode=ctx.retrieval_mode, alpha=ctx.alpha,
            docs=scope, fusion=ctx.fusion,
        )  # fmt: skip
        chosen = choose_sources(
            hits, q.question, ctx.context_k, searcher if ctx.opening_source else None,
            ctx.retrieval_mode,
        )  # fmt: skip
        texts = [h.chunk.text for h in chosen]
        cut = [p.text for text in texts for p in passages(text, PASSAGE_WORDS)]
        if not cut:
            continue
        gold = [s.text for s in q.gold_spans if s.text.strip()]
        best = best_passages(scorer, q.question, texts)
        top = int(np.argmax([b.score for b in best]))
        scorer_passage = texts[top][best[top].start : best[top].end]
        vectors = np.asarray(embed([q.question, *cut]))
        similarity = vectors[1:] @ vectors[0]
        cosine_passage = cut[int(np.argmax(similarity))]
        rows.append(
            {
                "id": q.id,
                "doc": q.doc,
                "answerable": q.answerable,
                "scorer": best[top].score,
                "scorer_passage_gold": q.answerable and passage_holds_gold(scorer_passage, gold),
                "cosine": float(similarity.max()),
                "cosine_passage_gold": q.answerable and passage_holds_gold(cosine_passage, gold),
                "retrieval": float(hits[0].score),
            }
        )
    seconds = time.perf_counter() - started

    labels = [int(r["answerable"]) for r in rows]
    signals: dict[str, Any] = {}
    for name in ("scorer", "cosine", "retrieval"):
        ranked = sorted(rows, key=lambda r: -r[name])
        signals[name] = {
            "question_auroc": auroc([r[name] for r in rows], labels),
            "top": {
                str(n): {
                    "lowest_score": ranked[:n][-1][name],
                    "answerable": sum(r["answerable"] for r in ranked[:n]) / n,
                    # (retrieval scores chunks, not passages: no best passage to check)
                    "best_passage_holds_gold": sum(r[f"{name}_passage_gold"] for r in ranked[:n])
                    / n
                    if f"{name}_passage_gold" in ranked[0]
                    else None,
                }
                for n in TOP
                if n <= len(ranked)
            },
        }
    result = {
        "dataset": str(args.dataset),
        "command": "python bench/answerability_signals.py " + " ".join(argv),
        "questions": len(rows),
        "answerable": sum(labels),
        "signals": signals,
        "seconds_per_question": seconds / max(len(rows), 1),
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

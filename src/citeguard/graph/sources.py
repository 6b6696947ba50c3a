"""How a question's sources are found: one rule for the retrieve node and for everything
that asks questions the way the graph does (scorer calibration, benches)."""

from __future__ import annotations

from collections.abc import Sequence

from citeguard.documents import SearchHit
from citeguard.graph.context import Context
from citeguard.graph.passage_scores import AnswerScores
from citeguard.index.opening import choose_sources
from citeguard.index.searcher import Searcher


def retrieve_sources(
    searcher: Searcher,
    question: str,
    ctx: Context,
    docs: Sequence[str] | None,
    scores: AnswerScores,
) -> tuple[list[SearchHit], list[SearchHit]]:
    """(the retrieved hits, the sources the model sees) under ``ctx``: the search, the
    scorer's rerank when ``ctx.scorer_rerank`` (``scores`` without a scorer keeps retrieval
    order), then :func:`~citeguard.index.opening.choose_sources`."""
    hits = searcher.search(
        question,
        k=ctx.top_k,
        mode=ctx.retrieval_mode,
        alpha=ctx.alpha,
        docs=list(docs) if docs else None,
        fusion=ctx.fusion,
        rerank=ctx.rerank,
    )
    if ctx.scorer_rerank:
        hits = scores.reranked(hits)
    sources = choose_sources(
        hits,
        question,
        ctx.context_k,
        searcher if ctx.opening_source else None,
        ctx.retrieval_mode,
    )
    return list(hits), sources

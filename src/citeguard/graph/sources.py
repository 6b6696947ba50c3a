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
    """(the retrieved hits, the sources the model sees) under ``ctx``: the search for
    ``ctx.top_k`` hits, or with ``ctx.scorer_rerank`` and a scorer, for
    ``ctx.scorer_rerank_pool`` hits, the first kept first and the rest reordered by the
    scorer; then :func:`~citeguard.index.opening.choose_sources`; with
    ``ctx.scorer_source_rescue`` and a scorer, an answering hit in place of a source when
    no source answers (:meth:`~citeguard.graph.passage_scores.AnswerScores.rescued`)."""
    reranks = ctx.scorer_rerank and scores.has_scorer
    hits = searcher.search(
        question,
        k=ctx.scorer_rerank_pool if reranks else ctx.top_k,
        mode=ctx.retrieval_mode,
        alpha=ctx.alpha,
        docs=list(docs) if docs else None,
        fusion=ctx.fusion,
        rerank=ctx.rerank,
    )
    if reranks and hits:
        # Retrieval's best hit stays the first source: the scorer was trained on contracts,
        # and a question in everyday words of another kind of document ("Is there a
        # parking space?" of a lease) can score every passage low and the answering one
        # lower than some; the words it shares with the question still find it.
        hits = [hits[0], *scores.reranked(hits[1:])]
    sources = choose_sources(
        hits,
        question,
        ctx.context_k,
        searcher if ctx.opening_source else None,
        ctx.retrieval_mode,
    )
    if ctx.scorer_source_rescue and scores.has_scorer:
        sources = scores.rescued(hits, sources)
    return list(hits), sources

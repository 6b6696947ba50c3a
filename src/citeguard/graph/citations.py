"""The citations a user can check: for each cited source, its page and the verbatim quote.

Plain functions over the evidence records the retrieve node puts in state (a search hit
as JSON plus its ``page_starts``), so that they are testable without LangGraph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeguard.generate.selection import number_sentences
from citeguard.graph.state import Citation
from citeguard.text.tokens import sentence_token_set, token_set
from citeguard.validate.quotes import Quote, best_quote


def page_of_offset(evidence: dict[str, Any], offset: int) -> tuple[int, str]:
    """PDF page and printed label of a document offset inside this evidence chunk.

    ``page_starts`` lists ``[char_start, pdf_page, printed_page]`` for each page the chunk
    touches; without it the chunk's first page is the best answer.
    """
    pdf_page, printed = int(evidence["pdf_pages"][0]), str(evidence["printed_pages"][0])
    for start, page, label in evidence.get("page_starts") or []:
        if int(start) <= offset:
            pdf_page, printed = int(page), str(label)
    return pdf_page, printed


def build_citations(
    sentences: Sequence[dict[str, Any]],
    evidence: Sequence[dict[str, Any]],
    selected_ids: Sequence[str] | None = None,
) -> list[Citation]:
    """One citation per (sentence, cited source) with the quote that supports it.

    The quote is the best supporting sentence(s) of the cited source; when the answer was
    written from selected sentences (``selected_ids``, evidence-first and extractive), it is
    the selected sentence of that source that best covers the answer sentence, exactly.
    """
    selected = _selected_by_source(evidence, selected_ids)
    citations: list[Citation] = []
    seen: set[tuple[int, int, int]] = set()
    for sentence in sentences:
        for marker in sentence.get("cited_sources", []):
            if not 1 <= marker <= len(evidence):
                continue
            source = evidence[marker - 1]
            if selected.get(marker):
                quote = _best_selected(sentence["text"], selected[marker])
            else:
                quote = best_quote(sentence["text"], source["text"], int(source["char_start"]))
            key = (marker, quote.char_start, quote.char_end)
            if key in seen:
                continue
            seen.add(key)
            pdf_page, printed = page_of_offset(source, quote.char_start)
            citations.append(
                Citation(
                    marker=marker,
                    doc=source["doc"],
                    pdf_page=pdf_page,
                    printed_page=printed,
                    chunk_id=source["chunk_id"],
                    quote=quote.text,
                    char_start=quote.char_start,
                    char_end=quote.char_end,
                )
            )
    return citations


def _selected_by_source(
    evidence: Sequence[dict[str, Any]], selected_ids: Sequence[str] | None
) -> dict[int, list[Quote]]:
    """The selected sentences (ids like "2.3") as quotes, by source number."""
    if not selected_ids:
        return {}
    wanted = set(selected_ids)
    by_source: dict[int, list[Quote]] = {}
    for numbered in number_sentences(evidence):
        if numbered.id in wanted:
            quote = Quote(numbered.text, numbered.char_start, numbered.char_end)
            by_source.setdefault(numbered.source, []).append(quote)
    return by_source


def _best_selected(sentence: str, candidates: Sequence[Quote]) -> Quote:
    """The candidate sharing the most tokens with ``sentence`` (the earliest on ties)."""
    wanted = sentence_token_set(sentence)
    return max(candidates, key=lambda quote: len(wanted & token_set(quote.text)))

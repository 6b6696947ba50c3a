"""The quote shown with a citation: the part of a cited chunk that supports a sentence."""

from __future__ import annotations

from dataclasses import dataclass

from citeguard.text.citations import strip_citations
from citeguard.text.passages import blank_html_comments, without_html_comments
from citeguard.text.quantities import extract_quantities, stated_quantity_tokens
from citeguard.text.sentences import split_sentences
from citeguard.text.tokens import sentence_token_set, token_set


@dataclass(frozen=True)
class Quote:
    """A span of the document: ``document_text[char_start:char_end] == text``."""

    text: str
    char_start: int
    char_end: int


def best_quote(sentence: str, chunk_text: str, chunk_char_start: int, max_window: int = 2) -> Quote:
    """The sentence(s) of ``chunk_text`` that best support ``sentence``.

    Candidates are single chunk sentences and windows of up to ``max_window`` adjacent
    ones. The score is the share of the answer sentence's tokens (markers removed) that
    the candidate contains, a quantity stated in another format counting as contained
    ("August 4, 2010" in "dated 8/4/10", as the validator's quantity check reads it); ties
    go to the shorter window, then to the candidate with fewer extra tokens, then to the
    earlier one. So a window is chosen only when it covers words that no single sentence
    covers.

    Args:
        sentence: One answer sentence (its citation markers are ignored).
        chunk_text: Text of the cited chunk (``Chunk.text``).
        chunk_char_start: Offset of the chunk in the document text (``Chunk.char_start``).
        max_window: Largest number of adjacent chunk sentences in one quote.

    Returns:
        The quote, with offsets into the document text; its text is the document's there,
        HTML comments left out (``text.passages.without_html_comments``). An empty chunk
        gives an empty quote at ``chunk_char_start``.
    """
    # A comment between a lead-in and its list is no sentence of its own: the quote may
    # then span both, and is shown without it.
    pieces = split_sentences(blank_html_comments(chunk_text))
    if not pieces:
        return Quote("", chunk_char_start, chunk_char_start)
    wanted = sentence_token_set(sentence)
    claimed = extract_quantities(strip_citations(sentence))
    piece_tokens = [
        token_set(piece.text) | stated_quantity_tokens(claimed, piece.text) for piece in pieces
    ]

    best_key: tuple[float, int, float, int] | None = None
    best_span = (pieces[0].start, pieces[0].end)
    for first in range(len(pieces)):
        window_tokens: set[str] = set()
        for size in range(1, max(1, max_window) + 1):
            last = first + size - 1
            if last >= len(pieces):
                break
            window_tokens = window_tokens | piece_tokens[last]
            covered = len(wanted & window_tokens)
            share = covered / len(wanted) if wanted else 0.0
            precision = covered / len(window_tokens) if window_tokens else 0.0
            key = (round(share, 9), -size, round(precision, 9), -first)
            if best_key is None or key > best_key:
                best_key = key
                best_span = (pieces[first].start, pieces[last].end)
    start, end = best_span
    text = without_html_comments(chunk_text[start:end])
    return Quote(text, chunk_char_start + start, chunk_char_start + end)

"""Paragraph-aware chunking with a token budget, overlap and a page-span limit.

How a document becomes chunks (the paper's "paragraph-aware evidence chunks"):

1. The document text is cut into paragraphs at blank lines.
2. Low-information paragraphs are dropped: navigation text ("Back to top", "Page 3 of
   12", bare page numbers), table-of-contents entries (dotted leaders ending in a page
   number, and entries on a page headed "Contents"). A chunk never spans a dropped
   paragraph, because a chunk must be one contiguous slice of the document text.
3. Paragraphs are cut into sentence pieces at sentence punctuation; a sentence longer
   than the budget is cut at clause punctuation (";" and ":"), and a clause still longer
   than the budget into runs of words.
4. A paragraph shorter than ``min_chunk_tokens`` (a heading such as "ARTICLE 5 TERM", a
   label such as "By:") is glued to the paragraph after it, or else to the one before;
   a short paragraph with no neighbour is dropped unless it reads as a sentence.
5. Pieces are packed greedily up to ``max_tokens``. A chunk ends at a paragraph end when
   that still fills at least half the budget, otherwise at a sentence end. The next
   chunk starts with the trailing pieces of the previous one that fit in
   ``overlap_tokens``. A chunk covers at most two consecutive pages.

Token counts come from the caller's ``count_tokens`` (the embedding model's tokenizer),
always called on lists. Counts of pieces are added up, which matches the tokenizer
exactly for whitespace and WordPiece-style tokenizers since pieces are cut at spaces.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeguard.documents import Chunk, ParsedDocument

TokenCounter = Callable[[Sequence[str]], list[int]]
"""Counts tokens of each text in a batch (e.g. ``Embedder.count_tokens``)."""

# Bump when the algorithm changes in a way that changes chunk boundaries, so that chunk
# ids (which include it) change too.
CHUNKER_VERSION = 1


@dataclass(frozen=True)
class ChunkSettings:
    """How documents are cut into chunks (the paper's final setting is 600/120)."""

    max_tokens: int = 600
    """Largest chunk, in tokens of the embedding model's tokenizer."""
    overlap_tokens: int = 120
    """Tokens (at most) that a chunk repeats from the end of the previous chunk."""
    min_chunk_tokens: int = 12
    """Paragraphs shorter than this are glued to a neighbour, or dropped if isolated."""

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if not 0 <= self.overlap_tokens < self.max_tokens:
            raise ValueError("overlap_tokens must be >= 0 and smaller than max_tokens")
        if self.min_chunk_tokens < 0:
            raise ValueError("min_chunk_tokens must be >= 0")

    def fingerprint(self) -> str:
        """A short string that changes whenever the settings or the algorithm change."""
        return (
            f"v{CHUNKER_VERSION}-max{self.max_tokens}-ov{self.overlap_tokens}"
            f"-min{self.min_chunk_tokens}"
        )


def count_words(texts: Sequence[str]) -> list[int]:
    """A whitespace token counter (for tests and tokenizer-free use)."""
    return [len(text.split()) for text in texts]


# --------------------------------------------------------------------------- noise rules

_NAVIGATION = re.compile(
    r"(?:back to (?:top|contents|index)|return to (?:top|contents)|go to top|top of page"
    r"|next page|previous page|skip to (?:main )?content|\(?continued\)?"
    r"|(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[-\s]*\d{1,4}[-\s]*"
    r"|(?:page\s*)?[ivxlcdm]{1,7}|(?:table of )?contents:?)",
    re.IGNORECASE,
)
_CONTENTS_HEADING = re.compile(r"(?:table of )?contents:?", re.IGNORECASE)
# Dotted leaders followed by a page number: "1. Definitions ........ 3".
_LEADER = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlcdm]{1,7})\b", re.IGNORECASE)
_ENDS_WITH_LEADER = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
_ENDS_WITH_PAGE_REF = re.compile(r"\s(?:\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
_SENTENCE_LIKE = re.compile(r"[.!?][\"')\]]?$")

# Sentence ends: punctuation, optional closing quote/bracket, space, then something that
# can start a sentence. Abbreviations are filtered afterwards.
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_CLAUSE_END = re.compile(r"[;:]\s+")
_WORD = re.compile(r"\S+")
_ABBREVIATIONS = frozenset(
    "inc ltd co corp no nos mr mrs ms dr st sec art para e.g i.e etc vs u.s u.k jr sr "
    "llc l.p n.a s.a fig p pp cf approx dept est".split()
)


def _is_navigation(text: str) -> bool:
    return len(text) <= 40 and _NAVIGATION.fullmatch(text) is not None


def _is_toc_entry(text: str) -> bool:
    if _ENDS_WITH_LEADER.search(text):
        return True
    return len(_LEADER.findall(text)) >= 2


def _is_contents_page_entry(text: str) -> bool:
    """An entry on a page headed "Contents": short, ends with a page reference."""
    if not _ENDS_WITH_PAGE_REF.search(text):
        return False
    words = text.split()
    numbers = sum(1 for w in words if w.isdigit())
    return len(words) <= 25 or numbers >= 0.2 * len(words)


# --------------------------------------------------------------------------- pieces


@dataclass
class _Piece:
    start: int
    end: int
    tokens: int
    first_page: int  # index into doc.pages
    last_page: int
    paragraph_start: bool
    break_before: bool  # a dropped paragraph lies between this piece and the previous


def _spans(
    text: str, start: int, end: int, pattern: re.Pattern[str], sentences: bool = False
) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` after each match of ``pattern``; spans exclude spaces.

    With ``sentences``, a match right after an abbreviation ("Inc.", "No.") is no cut.
    """
    spans: list[tuple[int, int]] = []
    cursor = start
    for match in pattern.finditer(text, start, end):
        if sentences and _ends_with_abbreviation(text, cursor, match.start()):
            continue
        cut = match.end()
        piece_end = len(text[cursor:cut].rstrip()) + cursor
        if piece_end > cursor:
            spans.append((cursor, piece_end))
        cursor = cut
    if cursor < end:
        spans.append((cursor, end))
    return spans


def _ends_with_abbreviation(text: str, start: int, punct: int) -> bool:
    """Whether the word before the sentence punctuation at ``punct`` is an abbreviation."""
    word_start = text.rfind(" ", start, punct) + 1
    word = text[max(word_start, start) : punct].lstrip("(\"'").lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _word_runs(
    text: str, start: int, end: int, budget: int, count_tokens: TokenCounter
) -> list[tuple[int, int, int]]:
    """Cut an over-long span into runs of whole words of at most ``budget`` tokens."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    counts = count_tokens([text[a:b] for a, b in words])
    runs: list[tuple[int, int, int]] = []
    run_start, run_end, run_tokens = words[0][0], words[0][1], 0
    for (a, b), n in zip(words, counts, strict=True):
        if run_tokens and run_tokens + n > budget:
            runs.append((run_start, run_end, run_tokens))
            run_start, run_tokens = a, 0
        run_end = b
        run_tokens += n
    runs.append((run_start, run_end, run_tokens))
    return runs


def _split_long(
    text: str,
    spans: list[tuple[int, int]],
    counts: list[int],
    budget: int,
    count_tokens: TokenCounter,
) -> tuple[list[tuple[int, int]], list[int]]:
    """Replace spans over ``budget`` by clause spans, then by word runs (batched counts)."""
    if all(n <= budget for n in counts):
        return spans, counts
    clause_lists: list[list[tuple[int, int]]] = []
    for (a, b), n in zip(spans, counts, strict=True):
        clause_lists.append(_spans(text, a, b, _CLAUSE_END) if n > budget else [])
    clause_counts = iter(count_tokens([text[a:b] for cl in clause_lists for a, b in cl]))
    out_spans: list[tuple[int, int]] = []
    out_counts: list[int] = []
    for (a, b), n, clauses in zip(spans, counts, clause_lists, strict=True):
        if n <= budget:
            out_spans.append((a, b))
            out_counts.append(n)
            continue
        for ca, cb in clauses:
            cn = next(clause_counts)
            if cn <= budget:
                out_spans.append((ca, cb))
                out_counts.append(cn)
            else:
                for ra, rb, rn in _word_runs(text, ca, cb, budget, count_tokens):
                    out_spans.append((ra, rb))
                    out_counts.append(rn)
    return out_spans, out_counts


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in re.finditer(r"[^\n]+(?:\n[^\n]+)*", text):
        raw = match.group()
        left = len(raw) - len(raw.lstrip())
        right = len(raw.rstrip())
        if right > left:
            spans.append((match.start() + left, match.start() + right))
    return spans


def _build_pieces(
    doc: ParsedDocument, settings: ChunkSettings, count_tokens: TokenCounter
) -> list[_Piece]:
    text = doc.text
    page_starts = [page.char_start for page in doc.pages]

    def page_index(offset: int) -> int:
        return max(bisect.bisect_right(page_starts, offset) - 1, 0)

    paragraphs = _paragraph_spans(text)
    para_pages = [page_index(a) for a, _ in paragraphs]
    contents_pages = {
        para_pages[i]
        for i, (a, b) in enumerate(paragraphs)
        if _CONTENTS_HEADING.fullmatch(text[a:b])
    }

    # Keep or drop each paragraph; remember where drops cut the text.
    kept: list[tuple[int, int, bool]] = []  # (start, end, break_before)
    dropped_since_last = False
    for (a, b), page in zip(paragraphs, para_pages, strict=True):
        para = text[a:b]
        drop = _is_navigation(para) or _is_toc_entry(para)
        if not drop and page in contents_pages:
            drop = _is_contents_page_entry(para)
        if drop:
            dropped_since_last = True
            continue
        kept.append((a, b, dropped_since_last))
        dropped_since_last = False

    # Sentence pieces of every kept paragraph, counted in one batch.
    sentence_lists = [_spans(text, a, b, _SENTENCE_END, sentences=True) for a, b, _ in kept]
    flat = [span for spans in sentence_lists for span in spans]
    if not flat:
        return []
    counts = count_tokens([text[a:b] for a, b in flat])
    # Leave room for a short heading to be glued in front of any piece of a long
    # paragraph without breaking the budget (unless the budget is tiny).
    piece_budget = settings.max_tokens
    if settings.max_tokens > 2 * settings.min_chunk_tokens:
        piece_budget -= settings.min_chunk_tokens
    flat, counts = _split_long(text, flat, counts, piece_budget, count_tokens)

    # Regroup pieces per paragraph (pieces are in text order and never cross paragraphs).
    pieces: list[_Piece] = []
    para_of_piece: list[int] = []
    cursor = 0
    for index, (_a, b, break_before) in enumerate(kept):
        first = True
        while cursor < len(flat) and flat[cursor][0] < b:
            pa, pb = flat[cursor]
            pieces.append(
                _Piece(pa, pb, counts[cursor], page_index(pa), page_index(pb - 1), first, False)
            )
            pieces[-1].break_before = break_before and first
            para_of_piece.append(index)
            first = False
            cursor += 1
    return _glue_short_paragraphs(text, pieces, para_of_piece, settings)


def _merge(left: _Piece, right: _Piece) -> _Piece:
    return _Piece(
        left.start,
        right.end,
        left.tokens + right.tokens,
        left.first_page,
        right.last_page,
        left.paragraph_start,
        left.break_before,
    )


def _glue_short_paragraphs(
    text: str, pieces: list[_Piece], para_of_piece: list[int], settings: ChunkSettings
) -> list[_Piece]:
    """Glue paragraphs under ``min_chunk_tokens`` to a neighbour (see module docs)."""
    # Collapse each paragraph's pieces into one when the paragraph is short.
    grouped: list[tuple[_Piece, bool]] = []  # (piece, is_short_paragraph)
    i = 0
    while i < len(pieces):
        j = i
        total = 0
        while j < len(pieces) and para_of_piece[j] == para_of_piece[i]:
            total += pieces[j].tokens
            j += 1
        if total < settings.min_chunk_tokens:
            merged = pieces[i]
            for k in range(i + 1, j):
                merged = _merge(merged, pieces[k])
            grouped.append((merged, True))
        else:
            grouped.extend((pieces[k], False) for k in range(i, j))
        i = j

    out: list[_Piece] = []
    pending: _Piece | None = None  # short paragraphs waiting for the next paragraph
    for piece, short in grouped:
        if pending is not None:
            if (
                not piece.break_before
                and pending.tokens + piece.tokens <= settings.max_tokens
                and piece.last_page - pending.first_page <= 1
            ):
                piece = _merge(pending, piece)
                short = short and piece.tokens < settings.min_chunk_tokens
            elif _place_orphan(text, pending, out, settings):
                piece.break_before = True
            pending = None
        if short:
            pending = piece
        else:
            out.append(piece)
    if pending is not None:
        _place_orphan(text, pending, out, settings)
    return out


def _place_orphan(text: str, piece: _Piece, out: list[_Piece], settings: ChunkSettings) -> bool:
    """Glue a short paragraph that has no partner after it backwards, keep or drop it.

    Returns True when it was dropped (so the next piece must not join across it).
    """
    if out and not piece.break_before:
        previous = out[-1]
        if (
            previous.tokens + piece.tokens <= settings.max_tokens
            and piece.last_page - previous.first_page <= 1
        ):
            out[-1] = _merge(previous, piece)
            return False
    fragment = text[piece.start : piece.end]
    if len(fragment.split()) >= 3 and _SENTENCE_LIKE.search(fragment):
        out.append(piece)
        return False
    return True


# --------------------------------------------------------------------------- chunks


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "doc"


def chunk_document(
    doc: ParsedDocument, settings: ChunkSettings, count_tokens: TokenCounter
) -> list[Chunk]:
    """Cut a parsed document into chunks (see the module docs for the rules).

    Args:
        doc: the parsed document; every chunk is a slice of ``doc.text``.
        settings: budget, overlap and the short-fragment threshold.
        count_tokens: batch token counter of the embedding model (or :func:`count_words`).

    Returns:
        Chunks in document order, with ids ``"{doc-slug}:{index:04d}:{hash}"`` that are
        the same for the same text and settings.
    """
    pieces = _build_pieces(doc, settings, count_tokens)
    if not pieces:
        return []

    prefix = [0]
    for piece in pieces:
        prefix.append(prefix[-1] + piece.tokens)

    def tokens(a: int, b: int) -> int:
        return prefix[b] - prefix[a]

    max_tokens = settings.max_tokens
    spans: list[tuple[int, int]] = []  # piece index ranges [s, e)
    n = len(pieces)
    s = 0
    while s < n:
        e = s + 1
        while (
            e < n
            and not pieces[e].break_before
            and pieces[e].last_page - pieces[s].first_page <= 1
            and tokens(s, e + 1) <= max_tokens
        ):
            e += 1
        budget_stop = (
            e < n and not pieces[e].break_before and pieces[e].last_page - pieces[s].first_page <= 1
        )
        if budget_stop and not pieces[e].paragraph_start:
            # Prefer ending at a paragraph end if that keeps the chunk at least half full.
            p = e - 1
            while p > s and not pieces[p].paragraph_start:
                p -= 1
            if p > s and tokens(s, p) >= max_tokens // 2:
                e = p
        spans.append((s, e))
        if e >= n:
            break
        if pieces[e].break_before:
            s = e
            continue
        # Overlap: step back over trailing pieces while they fit the overlap budget and
        # the next chunk can still take piece e (budget and page span).
        k = e
        while (
            k - 1 > s
            and tokens(k - 1, e) <= settings.overlap_tokens
            and tokens(k - 1, e + 1) <= max_tokens
            and pieces[e].last_page - pieces[k - 1].first_page <= 1
        ):
            k -= 1
        s = k

    chunks: list[Chunk] = []
    slug = _slug(doc.name)
    fingerprint = settings.fingerprint()
    for index, (s, e) in enumerate(spans):
        start, end = pieces[s].start, pieces[e - 1].end
        text = doc.text[start:end]
        first, last = doc.page_at(start), doc.page_at(end - 1)
        digest = hashlib.sha256(f"{fingerprint}\x00{text}".encode()).hexdigest()[:12]
        chunks.append(
            Chunk(
                chunk_id=f"{slug}:{index:04d}:{digest}",
                doc=doc.name,
                text=text,
                pdf_pages=(first.pdf_page, last.pdf_page),
                printed_pages=(first.printed_page, last.printed_page),
                char_start=start,
                char_end=end,
                metadata={
                    "token_count": tokens(s, e),
                    # Where each covered page begins, so a quote inside the chunk can be
                    # given its exact page: [[char_start, pdf_page, printed_page], ...].
                    "page_starts": [
                        [max(page.char_start, start), page.pdf_page, page.printed_page]
                        for page in doc.pages
                        if page.pdf_page in (first.pdf_page, last.pdf_page)
                    ],
                },
            )
        )
    return chunks

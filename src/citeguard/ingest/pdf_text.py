"""The text of a PDF, page by page, with its printed page labels.

A PDF is read with PyMuPDF. Each page's text lines are grouped into paragraphs from the
layout (text blocks, blank lines and vertical gaps inside a block), normalized (see
:mod:`citeguard.ingest.textnorm`) and joined with one blank line between paragraphs.
Before that, two kinds of page furniture are removed:

- running headers and footers: lines near the top or bottom of the page whose text,
  with digits masked, repeats on many pages ("Acme Lease - Page 3", "Source: ...");
- page-number lines ("3", "Page 3", "Page 3 of 12", "- 3 -", "iii").

The printed page number is recovered from those page-number lines, but only when it is
consistent with a neighbouring page (the number rises by one per PDF page), so that a
stray number in a header is not mistaken for a page label; otherwise the PDF index is
used. Roman front matter followed by arabic numbering restarting at 1 works because
each numbering style is checked against neighbours of the same style.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeguard.errors import ParsingError
from citeguard.ingest.textnorm import (
    PARAGRAPH_SEPARATOR,
    normalize_line,
    normalize_paragraph,
)

logger = logging.getLogger(__name__)

_EDGE_LINES = 3
# A masked line must repeat at the same edge on at least this share of pages (and on at
# least two pages) to count as a running header/footer.
_RUNNING_MIN_SHARE = 0.4

NO_TEXT_LAYER = "no text layer (scanned or image-only PDF; OCR is not supported)"

_ROMAN = re.compile(r"m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_NUMBER = r"(?P<n>\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,4})?"
# "Page 3", "Page 3 of 12", "Lease Agreement - Page 3": the word page, optionally after
# other header text ending in a separator (so "see page 3" in a sentence never matches).
_EXPLICIT_PAGE = re.compile(r"(?:.*[-|\u2502,:]\s*)?(?:page|pg\.?)\s*" + _NUMBER, re.I)
# "3", "- 3 -", "[3]", "3 | Page", "iv"; a trailing period ("1.") is a list enumerator.
_BARE_PAGE = re.compile(
    r"[-|\u2502\[(<*\s]*" + _NUMBER + r"[-|\u2502\])>*\s]*(?P<word>page)?", re.I
)
_DIGITS = re.compile(r"\d+")
_ENUMERATOR = re.compile(r"^\(?[0-9A-Za-z]{1,4}[.)]$")
_ENDS_SENTENCE = re.compile(r"[.:;!?][\"')\]]?$")


@dataclass
class _Line:
    block: int
    text: str  # normalized
    raw: str
    x0: float
    y0: float
    x1: float
    y1: float
    removed: bool = False


@dataclass(frozen=True)
class _NumberCandidate:
    kind: str  # "arabic" or "roman"
    value: int
    label: str
    explicit: bool  # the line said "Page"
    line: _Line


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a zip archive (.docx, .xlsx ...)"),
    (b"\xd0\xcf\x11\xe0", "an old Office file or an encrypted Office document"),
    (b"<", "HTML or XML text"),
)


def _what_it_is(data: bytes) -> str:
    """What a file that lacks a PDF header seems to be, by its first bytes."""
    head = data.lstrip()[:8]
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return f"no PDF header; the file is {name}"
    return "no PDF header"


def too_many_pages(pages: int, max_pages: int) -> str:
    """The reason given for a document over the page limit."""
    return f"{pages:,} pages, over the limit of {max_pages:,} (--max-pages)"


def parse_pdf(path: Path, data: bytes, max_pages: int | None) -> tuple[list[str], list[str]]:
    if not data:
        raise ParsingError(path, "not a readable PDF: the file is empty")
    if b"%PDF-" not in data[:1024]:  # readers accept the header within the first 1 KB
        raise ParsingError(path, f"not a readable PDF: {_what_it_is(data)}")
    # Imported on first use: ~1.3 s on 2 cores, which every process that merely names the
    # parser (``citeguard ask``, through the CLI's ingest options) would otherwise pay.
    import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises several types for damaged files
        raise ParsingError(path, f"not a readable PDF: {exc}") from exc
    with doc:
        if doc.needs_pass:
            raise ParsingError(path, "PDF is encrypted (password required)")
        if doc.page_count == 0:
            raise ParsingError(path, "no pages")
        if max_pages is not None and doc.page_count > max_pages:
            raise ParsingError(path, too_many_pages(doc.page_count, max_pages))
        page_lines: list[list[_Line]] = []
        has_images = False
        for index in range(doc.page_count):
            try:
                page = doc[index]
                page_lines.append(_page_lines(page.get_text("dict")))
                if not page_lines[-1] and page.get_images():
                    has_images = True
            except Exception as exc:
                raise ParsingError(path, f"cannot extract text: {exc}", page=index + 1) from exc
    if not any(page_lines):
        raise ParsingError(path, NO_TEXT_LAYER if has_images else "no text")
    if has_images:
        logger.warning("%s: some pages are images without text (OCR is not supported)", path.name)

    _remove_running_lines(page_lines)
    printed = _resolve_printed_pages(page_lines)
    texts = [_page_text(lines) for lines in page_lines]
    return texts, printed


def _page_lines(page_dict: dict[str, Any]) -> list[_Line]:
    """Non-empty text lines of one page, in content order, with their block index.

    A whitespace-only line is kept as an empty marker line so that paragraph breaks
    written as blank lines inside one block survive.
    """
    lines: list[_Line] = []
    for block_index, block in enumerate(page_dict.get("blocks", ())):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", ()):
            raw = "".join(span.get("text", "") for span in line.get("spans", ()))
            x0, y0, x1, y1 = line["bbox"]
            lines.append(_Line(block_index, normalize_line(raw), raw, x0, y0, x1, y1))
    # Drop empty lines at the ends; inner ones mark paragraph breaks.
    while lines and not lines[-1].text:
        lines.pop()
    while lines and not lines[0].text:
        lines.pop(0)
    return lines


def _edge_lines(lines: Sequence[_Line]) -> tuple[list[_Line], list[_Line]]:
    """The topmost and bottommost few non-empty lines of a page, by position."""
    visible = sorted((ln for ln in lines if ln.text), key=lambda ln: (ln.y0, ln.x0))
    return visible[:_EDGE_LINES], visible[-_EDGE_LINES:]


def _mask(text: str) -> str:
    return _DIGITS.sub("#", text.lower()).replace(" ", "")


def _remove_running_lines(page_lines: list[list[_Line]]) -> None:
    """Mark headers/footers that repeat (digits masked) at the same page edge."""
    pages_with_text = sum(1 for lines in page_lines if lines)
    if pages_with_text < 2:
        return
    needed = max(2, math.ceil(_RUNNING_MIN_SHARE * pages_with_text))
    counts: Counter[tuple[str, str]] = Counter()
    edges = [_edge_lines(lines) for lines in page_lines]
    for top, bottom in edges:
        keys = {("top", _mask(ln.text)) for ln in top} | {
            ("bottom", _mask(ln.text)) for ln in bottom
        }
        counts.update(keys)
    for top, bottom in edges:
        for where, group in (("top", top), ("bottom", bottom)):
            for line in group:
                if counts[(where, _mask(line.text))] >= needed:
                    line.removed = True


def _roman_value(text: str) -> int | None:
    lower = text.lower()
    if not lower or len(lower) > 7 or not _ROMAN.fullmatch(lower):
        return None
    total = 0
    for char, following in zip(lower, lower[1:] + " ", strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if following != " " and _ROMAN_VALUES[following] > value else value
    return total


def _number_candidate(line: _Line) -> _NumberCandidate | None:
    """Read a page label from a line such as "3", "Page 3 of 12", "- 3 -" or "iv"."""
    text = line.text.strip()
    if len(text) > 60:
        return None
    match = _EXPLICIT_PAGE.fullmatch(text)
    explicit = match is not None
    if match is None:
        match = _BARE_PAGE.fullmatch(text)
        if match is None:
            return None
        explicit = match.group("word") is not None
    token = match.group("n")
    if token.isdigit():
        if int(token) == 0:
            return None
        return _NumberCandidate("arabic", int(token), str(int(token)), explicit, line)
    roman = _roman_value(token)
    if roman is not None and (token.islower() or token.isupper()):
        return _NumberCandidate("roman", roman, token, explicit, line)
    return None


def _resolve_printed_pages(page_lines: list[list[_Line]]) -> list[str]:
    """Pick each page's printed label and mark its line removed (see module docs)."""
    candidates: list[list[_NumberCandidate]] = []
    for lines in page_lines:
        top, bottom = _edge_lines(lines)
        found: list[_NumberCandidate] = []
        for line in [*top, *bottom]:
            candidate = _number_candidate(line)
            if candidate is not None and all(c.line is not line for c in found):
                found.append(candidate)
        candidates.append(found)

    labels: list[str] = []
    count = len(page_lines)
    for index, found in enumerate(candidates):
        best: tuple[int, int, float] | None = None
        chosen: _NumberCandidate | None = None
        for candidate in found:
            support = 0
            for distance in (-1, 1):
                other = index + distance
                if 0 <= other < count and any(
                    c.kind == candidate.kind and c.value - candidate.value == distance
                    for c in candidates[other]
                ):
                    support += 1
            # Prefer the best-supported candidate, then an explicit "Page n", then the
            # lowest line on the page (footers carry page numbers more often).
            rank = (support, int(candidate.explicit), candidate.line.y0)
            if support and (best is None or rank > best):
                best, chosen = rank, candidate
        if chosen is not None:
            chosen.line.removed = True
            labels.append(chosen.label)
        else:
            labels.append(str(index + 1))
        for candidate in found:
            # "Page 3 of 12" is page furniture even when its number is not trusted.
            if candidate.explicit:
                candidate.line.removed = True
    return labels


def _starts_new_paragraph(previous: _Line, line: _Line, block_right: float, width: float) -> bool:
    """Layout cues for a paragraph break between two lines of the same block."""
    height = max(previous.y1 - previous.y0, 1.0)
    if line.y0 - previous.y1 > 0.6 * height:
        return True
    if _ENUMERATOR.match(previous.text):
        return False  # "1." alone on a line belongs to the heading after it
    short = previous.x1 < block_right - 0.25 * width
    starts_upper = bool(line.text) and (line.text[0].isupper() or line.text[0] in "(\"'0123456789")
    return short and starts_upper and bool(_ENDS_SENTENCE.search(previous.text))


def _page_text(lines: Sequence[_Line]) -> str:
    paragraphs: list[str] = []
    current: list[_Line] = []

    def flush() -> None:
        if current:
            text = normalize_paragraph([ln.text for ln in current])
            if text:
                paragraphs.append(text)
            current.clear()

    block_extent: dict[int, tuple[float, float]] = {}
    for line in lines:
        if line.text and not line.removed:
            left, right = block_extent.get(line.block, (line.x0, line.x1))
            block_extent[line.block] = (min(left, line.x0), max(right, line.x1))

    previous: _Line | None = None
    for line in lines:
        if line.removed:
            continue
        if not line.text:
            flush()
            previous = None
            continue
        if previous is None or previous.block != line.block:
            flush()
        else:
            left, right = block_extent[line.block]
            if _starts_new_paragraph(previous, line, right, max(right - left, 1.0)):
                flush()
        current.append(line)
        previous = line
    flush()
    return PARAGRAPH_SEPARATOR.join(paragraphs)

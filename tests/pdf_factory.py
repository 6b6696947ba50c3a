"""Generate small PDFs with PyMuPDF for tests (no binary fixtures in the repository).

Typical use::

    from pdf_factory import PageSpec, make_pdf, make_sample_contract_pdf

    make_pdf(tmp_path / "a.pdf", [PageSpec(paragraphs=["First paragraph."], footer="1")])
    path = make_sample_contract_pdf(tmp_path / "lease.pdf")  # see SAMPLE_* constants

Body paragraphs are word-wrapped to the page width; a "\\n" inside a paragraph forces a
line break there (useful for hyphenation tests). Paragraphs are separated by a blank
line's worth of space, the header sits near the top edge and the footer near the bottom.
Only Latin-1 text renders with the built-in Helvetica font.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

PAGE_WIDTH, PAGE_HEIGHT = 612.0, 792.0  # US Letter, points
MARGIN = 72.0
FONT_SIZE = 11.0
LEADING = 14.0  # distance between baselines inside a paragraph


@dataclass(frozen=True)
class PageSpec:
    """One page to draw."""

    paragraphs: Sequence[str] = field(default_factory=tuple)
    """Body paragraphs, top to bottom."""
    header: str | None = None
    """Text drawn near the top edge (a running header, a page number...)."""
    footer: str | None = None
    """Text drawn near the bottom edge."""


def _wrap(text: str, width: float) -> list[str]:
    lines: list[str] = []
    for forced in text.split("\n"):
        current = ""
        for word in forced.split():
            candidate = f"{current} {word}" if current else word
            if current and pymupdf.get_text_length(candidate, fontsize=FONT_SIZE) > width:
                lines.append(current)
                current = word
            else:
                current = candidate
        if current:
            lines.append(current)
    return lines


def make_pdf(path: str | Path, pages: Sequence[PageSpec]) -> Path:
    """Write a PDF with one page per spec and return its path.

    Raises:
        ValueError: a page's paragraphs do not fit on the page.
    """
    target = Path(path)
    doc = pymupdf.open()
    width = PAGE_WIDTH - 2 * MARGIN
    for number, spec in enumerate(pages, start=1):
        page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        if spec.header:
            page.insert_text((MARGIN, 40), spec.header, fontsize=FONT_SIZE - 2)
        y = MARGIN + FONT_SIZE
        for paragraph in spec.paragraphs:
            for line in _wrap(paragraph, width):
                if y > PAGE_HEIGHT - MARGIN:
                    raise ValueError(f"page {number}: paragraphs do not fit on the page")
                page.insert_text((MARGIN, y), line, fontsize=FONT_SIZE)
                y += LEADING
            y += LEADING  # blank line between paragraphs
        if spec.footer:
            footer_width = pymupdf.get_text_length(spec.footer, fontsize=FONT_SIZE - 2)
            x = (PAGE_WIDTH - footer_width) / 2
            page.insert_text((x, PAGE_HEIGHT - 36), spec.footer, fontsize=FONT_SIZE - 2)
    doc.save(target)
    doc.close()
    return target


def make_image_only_pdf(path: str | Path, pages: int = 2) -> Path:
    """A "scanned" PDF: every page holds an image and no text layer."""
    target = Path(path)
    doc = pymupdf.open()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.clear_with(200)
    for _ in range(pages):
        page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        page.insert_image(pymupdf.Rect(72, 72, 540, 720), pixmap=pixmap)
    doc.save(target)
    doc.close()
    return target


def make_blank_pdf(path: str | Path, pages: int = 1) -> Path:
    """A PDF whose pages are empty (no text, no images)."""
    target = Path(path)
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    doc.save(target)
    doc.close()
    return target


def make_encrypted_pdf(path: str | Path, password: str = "secret") -> Path:
    """A PDF that needs a password to open."""
    target = Path(path)
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    page.insert_text((MARGIN, 100), "Confidential terms of the agreement.", fontsize=FONT_SIZE)
    doc.save(
        target,
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw=password,
        owner_pw=password + "-owner",
    )
    doc.close()
    return target


# The sample contract: front matter numbered i, ii (title page, contents page), then
# three body pages numbered "Page 1 of 3" .. "Page 3 of 3" under a running header. The
# last paragraph of body page 1 continues on body page 2.
SAMPLE_HEADER = "Acme Commercial Lease Agreement - Confidential"
SAMPLE_PRINTED_PAGES = ["i", "ii", "1", "2", "3"]
SAMPLE_TOC_LINES = [
    "Article 1 Definitions .................... 1",
    "Article 2 Rent .......................... 1",
    "Article 5 Term .......................... 2",
]
SAMPLE_BREAK_BEFORE = "The Tenant shall pay the monthly rent in advance on the first day of"
SAMPLE_BREAK_AFTER = "each calendar month, without demand, deduction or set-off of any kind."
SAMPLE_TERM_HEADING = "ARTICLE 5 TERM"
SAMPLE_TERM_TEXT = (
    "The term of this Lease begins on the Commencement Date and ends five years later "
    "unless it is terminated earlier under Article 9."
)

_FILLER = (
    "The parties agree that this clause applies to the premises and to every part of "
    "them, and that the obligations stated here bind their successors and permitted assigns. "
)


def sample_contract_pages() -> list[PageSpec]:
    """The page specs behind :func:`make_sample_contract_pdf` (to build variants)."""
    return [
        PageSpec(
            paragraphs=[
                "COMMERCIAL LEASE AGREEMENT",
                "between Acme Properties LLC (the Landlord) and Widget Makers Inc. (the Tenant)",
                "This document sets out the full terms under which the Landlord lets the "
                "premises at 12 Harbour Road to the Tenant.",
            ],
            footer="i",
        ),
        PageSpec(paragraphs=["Contents", *SAMPLE_TOC_LINES], footer="ii"),
        PageSpec(
            header=SAMPLE_HEADER,
            paragraphs=[
                "ARTICLE 1 DEFINITIONS",
                "In this Lease the Premises means the warehouse unit at 12 Harbour Road, "
                "including its loading bays, and the Commencement Date means 1 March 2024. "
                + _FILLER,
                "ARTICLE 2 RENT",
                "The annual rent is 48,000 dollars, payable in twelve equal monthly "
                "instalments of 4,000 dollars. " + _FILLER,
                SAMPLE_BREAK_BEFORE,
            ],
            footer="Page 1 of 3",
        ),
        PageSpec(
            header=SAMPLE_HEADER,
            paragraphs=[
                SAMPLE_BREAK_AFTER,
                "Late payments carry interest at four percent above the base rate from the "
                "due date until the date of payment. " + _FILLER,
                SAMPLE_TERM_HEADING,
                SAMPLE_TERM_TEXT,
            ],
            footer="Page 2 of 3",
        ),
        PageSpec(
            header=SAMPLE_HEADER,
            paragraphs=[
                "ARTICLE 9 TERMINATION",
                "Either party may terminate this Lease by giving six months written notice "
                "to the other party. " + _FILLER,
                "Back to top",
            ],
            footer="Page 3 of 3",
        ),
    ]


def make_sample_contract_pdf(path: str | Path) -> Path:
    """Write the five-page sample contract described by the ``SAMPLE_*`` constants."""
    return make_pdf(path, sample_contract_pages())


def make_zero_page_pdf(path: str | Path) -> Path:
    """A syntactically valid PDF with an empty page tree (PyMuPDF cannot save one)."""
    target = Path(path)
    target.write_bytes(
        b"%PDF-1.4\n"
        b"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
        b"trailer << /Root 1 0 R >>\n%%EOF\n"
    )
    return target

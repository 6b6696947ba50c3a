"""Parse PDF, text, Markdown, HTML and Word files into page-aware documents.

One entry point, :func:`parse_document`, picks the reader by suffix:

- PDF: :mod:`citeguard.ingest.pdf_text` (paragraphs from the layout, running headers and
  page-number lines removed, printed page labels recovered);
- plain text (.txt, .md): one page unless form feeds ("\\f") split it, in any common
  encoding (:mod:`citeguard.ingest.encodings`);
- HTML: one page per section (:mod:`citeguard.ingest.html_text`);
- Word (.docx): the pages Word recorded, else sections (:mod:`citeguard.ingest.docx_text`).

Every reader's text goes through the same normalization (:mod:`citeguard.ingest.textnorm`),
so offsets, quotes and lexical matching behave the same whatever the format.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

from citeguard.documents import PAGE_SEPARATOR, Page, ParsedDocument
from citeguard.errors import ParsingError
from citeguard.ingest.docx_text import NotDocx, docx_pages
from citeguard.ingest.encodings import NotText, decode_text
from citeguard.ingest.html_text import html_sections
from citeguard.ingest.pdf_text import parse_pdf, too_many_pages
from citeguard.ingest.textnorm import (
    PARAGRAPH_SEPARATOR,
    paragraphs_from_plain_text,
)

logger = logging.getLogger(__name__)

SUPPORTED_SUFFIXES: tuple[str, ...] = (".pdf", ".txt", ".md", ".html", ".htm", ".docx")
"""File types :func:`parse_document` reads (compared case-insensitively)."""

READER_VERSIONS: dict[str, int] = {}
"""The version of the reader of each file type whose text has changed since indexes began
to record it (1 for every other type; none has changed yet). The index records each
document's; a document read by an older version is read again on the next ingest, though
its file is unchanged. Whoever changes what a reader makes of a file type raises its
version here."""


def reader_version(path: str | Path) -> int:
    """The version of the reader :func:`parse_document` uses for ``path`` now."""
    return READER_VERSIONS.get(Path(path).suffix.lower(), 1)


# How many lines at the top and at the bottom of a page may be headers or footers.
# --------------------------------------------------------------------------- public API


def parse_document(path: str | Path, max_pages: int | None = None) -> ParsedDocument:
    """Parse one file into a :class:`ParsedDocument`.

    Args:
        path: a .pdf, .txt, .md, .html/.htm or .docx file.
        max_pages: refuse a document of more pages (a PDF is refused before any page is
            read); None for no limit.

    Raises:
        ParsingError: the file is missing or unreadable, over ``max_pages``, of an
            unsupported type, not
            text in a known encoding (:mod:`citeguard.ingest.encodings`), a corrupt,
            encrypted or empty PDF or .docx, or has no text.
    """
    file_path = Path(path)
    suffix = file_path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ParsingError(
            file_path,
            f"unsupported file type {suffix or '(none)'!r}; "
            f"supported: {', '.join(SUPPORTED_SUFFIXES)}",
        )
    data = _read_bytes(file_path)
    content_hash = hashlib.sha256(data).hexdigest()
    encoding = None
    if suffix == ".pdf":
        page_texts, printed = parse_pdf(file_path, data, max_pages)
    elif suffix == ".docx":
        page_texts = _parse_docx(file_path, data)
        printed = [str(i + 1) for i in range(len(page_texts))]
    else:
        if suffix in (".html", ".htm"):
            page_texts, encoding = _parse_html(file_path, data)
        else:
            page_texts, encoding = _parse_plain_text(file_path, data, markdown=suffix == ".md")
        printed = [str(i + 1) for i in range(len(page_texts))]
    if max_pages is not None and len(page_texts) > max_pages:
        raise ParsingError(file_path, too_many_pages(len(page_texts), max_pages))
    if suffix == ".pdf" and any(label != str(i + 1) for i, label in enumerate(printed)):
        logger.debug("%s: printed page labels %s", file_path.name, printed)
    logger.debug("%s: parsed %d page(s)", file_path.name, len(page_texts))
    document = _assemble(file_path.name, str(file_path), content_hash, page_texts, printed)
    return dataclasses.replace(document, encoding=encoding)


def document_from_pages(
    name: str,
    page_texts: Sequence[str],
    printed_pages: Sequence[str] | None = None,
    path: str | None = None,
) -> ParsedDocument:
    """Build a document from raw page strings (handy for tests and in-memory text).

    Each page string is normalized like a plain-text file (blank lines separate
    paragraphs). ``content_hash`` is the sha256 of the page strings joined by form feeds.
    """
    texts = [PARAGRAPH_SEPARATOR.join(paragraphs_from_plain_text(t)) for t in page_texts]
    printed = list(printed_pages) if printed_pages is not None else []
    if printed and len(printed) != len(texts):
        raise ValueError("printed_pages must have one label per page")
    printed = printed or [str(i + 1) for i in range(len(texts))]
    digest = hashlib.sha256("\f".join(page_texts).encode("utf-8")).hexdigest()
    return _assemble(name, path or name, digest, texts, printed)


def discover_documents(
    paths: Sequence[str | Path],
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Expand files and folders into the supported documents they hold.

    Folders are searched recursively. Hidden files and folders (names starting with ".")
    are passed over, as version control and editors keep their own files there. Every
    other file that will not be indexed is reported: an unsupported type, a symbolic link
    whose target is missing, something that is not a regular file. Files are returned
    sorted within each folder and without duplicates, in argument order.

    Returns:
        ``(files, skipped)`` where ``skipped`` lists ``(path, reason)`` for every file or
        argument that will not be indexed.
    """
    files: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def consider(file: Path) -> None:
        if file.is_symlink() and not file.exists():
            skipped.append((file, "dangling symbolic link (its target does not exist)"))
        elif not file.is_file():
            skipped.append((file, "not a regular file or folder"))
        elif file.suffix.lower() not in SUPPORTED_SUFFIXES:
            skipped.append((file, f"unsupported file type {file.suffix or '(none)'!r}"))
        elif (key := file.resolve()) not in seen:
            seen.add(key)
            files.append(file)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                relative = found.relative_to(path).parts
                if any(part.startswith(".") for part in relative) or found.is_dir():
                    continue
                consider(found)
        elif path.exists() or path.is_symlink():
            consider(path)
        else:
            skipped.append((path, "not found"))
    return files, skipped


# --------------------------------------------------------------------------- assembly


def _assemble(
    name: str, path: str, content_hash: str, page_texts: Sequence[str], printed: Sequence[str]
) -> ParsedDocument:
    pages: list[Page] = []
    offset = 0
    for index, (text, label) in enumerate(zip(page_texts, printed, strict=True)):
        if index:
            offset += len(PAGE_SEPARATOR)
        pages.append(Page(pdf_page=index + 1, printed_page=label, text=text, char_start=offset))
        offset += len(text)
    return ParsedDocument(
        name=name,
        path=path,
        content_hash=content_hash,
        pages=tuple(pages),
        text=PAGE_SEPARATOR.join(page_texts),
    )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise ParsingError(path, "file not found") from exc
    except IsADirectoryError as exc:
        raise ParsingError(path, "is a directory, not a file") from exc
    except PermissionError as exc:
        raise ParsingError(path, "permission denied") from exc
    except OSError as exc:
        raise ParsingError(path, f"cannot read file: {exc.strerror or exc}") from exc


# --------------------------------------------------------------------------- plain text


def _parse_plain_text(path: Path, data: bytes, markdown: bool) -> tuple[list[str], str]:
    """The pages (split at form feeds) of a text file, and the encoding it was read with."""
    try:
        decoded = decode_text(data)
    except NotText as exc:
        raise ParsingError(path, str(exc)) from exc
    if decoded.encoding != "utf-8":
        logger.info("%s: read as %s text", path.name, decoded.encoding)
    text = decoded.text
    pages = [
        PARAGRAPH_SEPARATOR.join(paragraphs_from_plain_text(raw, markdown=markdown))
        for raw in text.split("\f")
    ]
    # A trailing form feed (common at the end of printed text) does not make a page.
    while len(pages) > 1 and not pages[-1]:
        pages.pop()
    if not any(pages):
        raise ParsingError(path, "no text")
    return pages, decoded.encoding


# --------------------------------------------------------------------------- HTML, DOCX


def _parse_html(path: Path, data: bytes) -> tuple[list[str], str]:
    """One page per section of the HTML page (:mod:`citeguard.ingest.html_text`)."""
    try:
        decoded = decode_text(data)
    except NotText as exc:
        raise ParsingError(path, str(exc)) from exc
    sections = html_sections(decoded.text)
    if not sections:
        raise ParsingError(path, "no visible text")
    return [PARAGRAPH_SEPARATOR.join(section) for section in sections], decoded.encoding


def _parse_docx(path: Path, data: bytes) -> list[str]:
    """The file's pages, or its sections (:mod:`citeguard.ingest.docx_text`)."""
    try:
        pages, _ = docx_pages(data)
    except NotDocx as exc:
        raise ParsingError(path, str(exc)) from exc
    if not any(pages):
        raise ParsingError(path, "no text")
    return [PARAGRAPH_SEPARATOR.join(page) for page in pages]

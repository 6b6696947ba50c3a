"""The paragraphs of a Word (.docx) file, on the pages the file states, else by section.

A .docx is a zip of XML parts; the text is in ``word/document.xml``. It is read with the
standard library (zipfile, ElementTree on expat, which refuses entity expansion attacks), so
no Word library is needed. Paragraphs keep their order, table cells included; headings are
paragraphs of their own.

Pages: a .docx has no fixed layout, but Word records where pages broke when it last saved
the file (``w:lastRenderedPageBreak``) and where the author forced a break (``w:br
w:type="page"``, a section that starts on a new page). When the file has any such mark, the
pages are those, numbered from 1, and a citation's page is the page Word showed. When it
has none (files written by other tools), each ``Heading 1``/``Title`` starts a new
section, and the sections are numbered as pages.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from io import BytesIO
from xml.etree import ElementTree

from citeguard.ingest.textnorm import normalize_line

MAX_XML_BYTES = 64 * 1024 * 1024
"""The largest ``word/document.xml`` read (uncompressed): a guard against zip bombs."""
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_SECTION_STYLES = ("heading1", "title")


class NotDocx(ValueError):
    """The bytes are not a readable .docx; the message says why."""


def docx_pages(data: bytes) -> tuple[list[list[str]], bool]:
    """The paragraphs of each page (or section) and whether the pages are the file's own.

    Raises:
        NotDocx: not a zip, no ``word/document.xml``, too large, or malformed XML.
    """
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise NotDocx("not a valid .docx (not a zip archive: corrupt, or encrypted)") from exc
    with archive:
        try:
            info = archive.getinfo("word/document.xml")
        except KeyError as exc:
            raise NotDocx("not a Word document (no word/document.xml)") from exc
        if info.file_size > MAX_XML_BYTES:
            raise NotDocx(f"document text of {info.file_size:,} bytes is over the limit")
        try:
            root = ElementTree.fromstring(archive.read(info))
        except (ElementTree.ParseError, zipfile.BadZipFile, OSError) as exc:
            raise NotDocx(f"corrupt .docx ({exc})") from exc
    body = root.find(f"{_W}body")
    if body is None:
        return [], False
    paragraphs = list(_paragraphs(body))
    if any(breaks for _, _, breaks in paragraphs):
        return _split_at_breaks(paragraphs), True
    return _split_at_headings(paragraphs), False


def _paragraphs(body: ElementTree.Element) -> Iterator[tuple[str, str, list[int]]]:
    """(text, style, positions in the text where a page break falls) per paragraph."""
    for paragraph in body.iter(f"{_W}p"):
        pieces: list[str] = []
        breaks: list[int] = []
        style = ""
        for node in paragraph.iter():
            tag = node.tag
            if tag == f"{_W}pStyle":
                style = (node.get(f"{_W}val") or "").lower()
            elif tag == f"{_W}t":
                pieces.append(node.text or "")
            elif tag in (f"{_W}tab", f"{_W}cr"):
                pieces.append(" ")
            elif tag == f"{_W}br":
                if node.get(f"{_W}type") == "page":
                    breaks.append(len("".join(pieces)))
                else:
                    pieces.append(" ")
            elif tag == f"{_W}lastRenderedPageBreak":
                breaks.append(len("".join(pieces)))
            elif tag == f"{_W}sectPr" and _starts_new_page(node):
                breaks.append(-1)  # the next paragraph starts a new page
        yield "".join(pieces), style, breaks


def _starts_new_page(section: ElementTree.Element) -> bool:
    kind = section.find(f"{_W}type")
    return kind is None or kind.get(f"{_W}val") in (None, "nextPage", "oddPage", "evenPage")


def _split_at_breaks(paragraphs: list[tuple[str, str, list[int]]]) -> list[list[str]]:
    pages: list[list[str]] = [[]]
    for text, _, breaks in paragraphs:
        start = 0
        for position in sorted(b for b in breaks if b >= 0):
            _add(pages[-1], text[start:position])
            # Word marks one break twice (a forced break, then a rendered one where the
            # next page begins): a page that has not begun yet is not ended again.
            if pages[-1]:
                pages.append([])
            start = position
        _add(pages[-1], text[start:])
        if -1 in breaks and pages[-1]:
            pages.append([])
    while len(pages) > 1 and not pages[-1]:
        pages.pop()
    return pages


def _split_at_headings(paragraphs: list[tuple[str, str, list[int]]]) -> list[list[str]]:
    sections: list[list[str]] = [[]]
    for text, style, _ in paragraphs:
        if style.startswith(_SECTION_STYLES) and any(sections[-1]):
            sections.append([])
        _add(sections[-1], text)
    return [section for section in sections if section]


def _add(page: list[str], text: str) -> None:
    paragraph = normalize_line(text)
    if paragraph:
        page.append(paragraph)

"""The readable text of an HTML page, split into sections at its main headings.

Privacy policies and terms of service are published as HTML. What a reader sees is kept:
headings and paragraphs, list items and table cells, each as its own paragraph. What a
reader does not read as the document is dropped: scripts, styles, navigation, page header
and footer, forms, embedded frames. The page's ``<h1>``/``<h2>`` headings start sections,
and each section becomes one "page" of the parsed document (a page without such headings is
one page), so a citation names the section a user can find by its heading.

Built on the standard library's tolerant ``html.parser``: broken markup still gives text.
"""

from __future__ import annotations

from html.parser import HTMLParser

from citeguard.ingest.textnorm import normalize_line

SKIPPED_TAGS = frozenset(
    "script style noscript template svg math nav header footer aside form iframe object "
    "canvas button select option datalist head".split()
)
"""Elements whose content is not the document's text."""
BLOCK_TAGS = frozenset(
    "p div section article main li ul ol dl dt dd table thead tbody tfoot tr td th caption "
    "blockquote pre figure figcaption address details summary hr br h1 h2 h3 h4 h5 h6 "
    "title body html center fieldset legend".split()
)
"""Elements that end the paragraph before them and start a new one."""
SECTION_TAGS = frozenset({"h1", "h2"})
_VOID_TAGS = frozenset("br hr img input meta link area base col embed source track wbr".split())


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[list[str]] = [[]]
        self._words: list[str] = []
        self._open_skipped: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_TAGS:
            if tag in BLOCK_TAGS and not self._open_skipped:
                self._end_paragraph()
            return
        if self._open_skipped or tag in SKIPPED_TAGS:
            self._open_skipped.append(tag)
            return
        if tag in BLOCK_TAGS:
            self._end_paragraph()
        if tag in SECTION_TAGS and any(self.sections[-1]):
            self.sections.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID_TAGS:
            return
        if self._open_skipped:
            # Close the innermost matching skipped element (tolerates unclosed children).
            if tag in self._open_skipped:
                while self._open_skipped and self._open_skipped.pop() != tag:
                    pass
            return
        if tag in BLOCK_TAGS:
            self._end_paragraph()

    def handle_data(self, data: str) -> None:
        if not self._open_skipped:
            self._words.append(data)

    def _end_paragraph(self) -> None:
        paragraph = normalize_line("".join(self._words))
        self._words = []
        if paragraph:
            self.sections[-1].append(paragraph)

    def finish(self) -> list[list[str]]:
        self.close()
        self._end_paragraph()
        return [section for section in self.sections if section]


def html_sections(html: str) -> list[list[str]]:
    """The paragraphs of each section of an HTML page (empty when it has no visible text)."""
    extractor = _TextExtractor()
    extractor.feed(html)
    return extractor.finish()

"""Markdown source to the paragraphs a reader sees.

A policy or a guide kept as Markdown carries markup that is not its text: HTML comments
("<!-- markdownlint-disable GHD034 -->", which a passage answer once quoted as the answer to
"Can GitHub staff look at my private repos?"), front matter, emphasis marks, link targets in
brackets, table rules. Left in, they are read by the model, quoted, and matched as words.
What is kept, and how:

- a heading ("## Private repositories") is a paragraph of its own, its "#" marks kept: they
  tell the quoting code (``generate/passage_answer``) and the model that it is a heading;
- ``**bold**``, ``__bold__``, ``*emphasis*``, ``_emphasis_`` and ``code`` lose their
  marks; ``[text](url)`` becomes "text (url)" and an image ``![alt](url)`` its alt text;
- HTML comments, a leading front-matter block ("---" ... "---") and a table's rule row
  ("|:---|") go; fenced code keeps its lines, marks and all, without the fences.

List items and table rows stay in their paragraph, as blank lines make paragraphs in any
text: read one item a paragraph, GitHub's terms of service were chunked otherwise and lost
two right answers to retrieval (`docs/results.md`, "Quotes as the document reads them").
"""

from __future__ import annotations

import re

_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL)
# "_Short version: ..._" or "*not*": one mark on each side, not inside a word
# ("snake_case"), not before a space ("3 * 4").
_EMPHASIS = re.compile(r"(?<![\w*_])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*_])", re.DOTALL)
_CODE = re.compile(r"`([^`]+)`")


def _inline(line: str) -> str:
    """Text without emphasis and code marks, links as "text (url)", images as alt text."""
    line = _IMAGE.sub(lambda m: m.group(1), line)
    line = _LINK.sub(lambda m: m.group(1) if m.group(1) == m.group(2) else f"{m[1]} ({m[2]})", line)
    line = _STRONG.sub(lambda m: m.group(2), line)
    line = _EMPHASIS.sub(lambda m: m.group(2), line)
    return _CODE.sub(lambda m: m.group(1), line)


def markdown_paragraphs(text: str) -> list[list[str]]:
    """The raw lines of each paragraph of Markdown ``text``, markup taken out (module docs);
    the caller normalizes and joins each paragraph's lines."""
    text = _HTML_COMMENT.sub("", _FRONT_MATTER.sub("", text))
    paragraphs: list[list[str]] = []
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        if current:
            # Emphasis may span the paragraph's lines: taken out of them together.
            paragraphs.append(_inline("\n".join(current)).split("\n"))
            current.clear()

    for raw in text.splitlines():
        if _FENCE.match(raw):
            if in_fence and current:  # code as it stands, marks and all
                paragraphs.append(list(current))
                current.clear()
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            current.append(raw)
            continue
        if not raw.strip():
            flush()
        elif _HEADING.match(raw):
            flush()
            paragraphs.append([_inline(raw)])
        elif _TABLE_RULE.match(raw):
            continue
        else:
            current.append(raw)
    flush()
    return paragraphs

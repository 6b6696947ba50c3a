"""Text normalization shared by the parsers.

Every parser turns raw lines into normalized paragraphs with the same rules, so that
offsets, quotes and lexical matching behave the same for PDF and plain-text sources:

- Unicode NFKC (ligatures such as "ﬁ" become "fi", non-breaking spaces become spaces);
- curly quotes and typographic dashes become their ASCII forms;
- soft hyphens and zero-width characters are removed;
- whitespace inside a line collapses to single spaces;
- a word hyphenated at a line end is joined ("obliga-" + "tion" -> "obligation") when the
  next line starts lowercase, except after prefixes that usually keep their hyphen
  ("third-" + "party" -> "third-party");
- the lines of one paragraph are joined with single spaces; paragraphs are separated by
  exactly one blank line ("\\n\\n").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

PARAGRAPH_SEPARATOR = "\n\n"

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00ad": None,  # soft hyphen: only a hint where a word may break
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
        "\t": " ",
        "\r": " ",
        "\f": " ",
        "\v": " ",
    }
)

_SPACES = re.compile(r"\s+")

# Words that usually keep their hyphen when a line break falls right after it; joining
# them would turn "third-party" into "thirdparty". Kept short on purpose: a longer list
# starts catching real hyphenation ("co-venant", "re-quired").
_KEEP_HYPHEN_PREFIXES = frozenset(
    {
        "self",
        "non",
        "third",
        "cross",
        "well",
        "half",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
    }
)
_TRAILING_WORD = re.compile(r"([A-Za-z]+)-$")


def normalize_line(line: str) -> str:
    """Normalize one physical line: NFKC, straight quotes/dashes, collapsed spaces."""
    text = unicodedata.normalize("NFKC", line).translate(_CHAR_MAP)
    return _SPACES.sub(" ", text).strip()


def join_lines(lines: Iterable[str]) -> str:
    """Join the (already normalized) lines of one paragraph into a single line.

    A trailing hyphen is treated as hyphenation when the next line starts with a
    lowercase letter; otherwise (or after a prefix such as "third-") the hyphen stays and
    the halves are joined without a space.
    """
    out = ""
    for line in lines:
        if not line:
            continue
        if not out:
            out = line
            continue
        match = _TRAILING_WORD.search(out)
        if out.endswith("-") and match and len(out) >= 2:
            if line[0].islower() and match.group(1).lower() not in _KEEP_HYPHEN_PREFIXES:
                out = out[:-1] + line
            else:
                out = out + line
        else:
            out = out + " " + line
    return out


def normalize_paragraph(lines: Sequence[str]) -> str:
    """Normalize raw lines of one paragraph and join them into one line of text."""
    return join_lines(normalize_line(line) for line in lines)


def paragraphs_from_plain_text(text: str, markdown: bool = False) -> list[str]:
    """Split plain text into normalized paragraphs (blank lines separate paragraphs).

    With ``markdown`` a heading line ("# Title") is a paragraph of its own even when no
    blank line follows it, so that it is not glued into the next paragraph's sentence.
    """
    paragraphs: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            joined = normalize_paragraph(current)
            if joined:
                paragraphs.append(joined)
            current.clear()

    for raw in text.splitlines():
        if not raw.strip():
            flush()
            continue
        if markdown and raw.lstrip().startswith("#"):
            flush()
            current.append(raw)
            flush()
            continue
        current.append(raw)
    flush()
    return paragraphs

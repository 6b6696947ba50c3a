"""Markdown's markup is taken out at ingest; headings are paragraphs of their own."""

from __future__ import annotations

from pathlib import Path

from citeguard.generate.passage_answer import quote_passage
from citeguard.ingest.markdown_text import markdown_paragraphs
from citeguard.ingest.parsing import parse_document

POLICY = """---
title: Privacy Statement
redirect_from: /privacy
---
<!-- markdownlint-disable search-replace -->

## Private repositories: GitHub Access

GitHub personnel does not access private repository information without your consent
except for:

<!-- markdownlint-disable GHD034
     (a comment over two lines) -->

* security purposes
* to assist the repository owner with a
  support matter
1. Open **Settings**, then `Privacy`.

| Purpose | Description |
|:---|---:|
| Required Cookies | Cookies used to log you in. |

See the [Terms of Service](https://docs.github.com/terms) or ![a diagram](d.png) at
[https://github.com](https://github.com).

_Short version: we may change these terms, and we
will tell you._ Nothing *else* changes for snake_case_names.

```
git clone **repo**
```
"""


def paragraphs(text: str) -> list[str]:
    return [" ".join(lines) for lines in markdown_paragraphs(text)]


def test_markup_is_taken_out_and_paragraphs_stay_as_blank_lines_make_them() -> None:
    assert paragraphs(POLICY) == [
        "## Private repositories: GitHub Access",
        "GitHub personnel does not access private repository information without your "
        "consent except for:",
        # A list stays one paragraph, as before: items apart changed the chunks and what
        # retrieval found.
        "* security purposes * to assist the repository owner with a   support matter "
        "1. Open Settings, then Privacy.",
        "| Purpose | Description | | Required Cookies | Cookies used to log you in. |",
        "See the Terms of Service (https://docs.github.com/terms) or a diagram at "
        "https://github.com.",
        "Short version: we may change these terms, and we will tell you. Nothing else changes "
        "for snake_case_names.",
        "git clone **repo**",
    ]


def test_plain_markdown_keeps_its_text() -> None:
    text = "# Rent\nRent is due monthly.\n\nA * B * C is not a list, nor is 3 * 4."
    assert paragraphs(text) == [
        "# Rent",
        "Rent is due monthly.",
        "A * B * C is not a list, nor is 3 * 4.",
    ]
    # An unclosed emphasis or a lone bracket is left as it is.
    assert paragraphs("Fees **apply [see below]") == ["Fees **apply [see below]"]


def test_a_markdown_file_is_indexed_without_its_markup(tmp_path: Path) -> None:
    path = tmp_path / "privacy.md"
    path.write_text(POLICY, encoding="utf-8")
    text = parse_document(path).text
    assert "<!--" not in text and "markdownlint" not in text and "redirect_from" not in text
    assert "* security purposes * to assist the repository owner with a support matter" in text


def test_a_quote_under_a_markdown_heading_is_read_under_it() -> None:
    passage = (
        "## Private repositories: GitHub Access\n\n"
        "GitHub personnel does not access private repository information without consent."
    )
    scored: list[str] = []

    def recording(sentences: list[str]) -> list[float]:
        scored.extend(sentences)
        return [0.9 if "personnel" in s else 0.1 for s in sentences]

    quote = quote_passage(passage, 2, recording, threshold=0.5)
    assert quote.text == (
        "GitHub personnel does not access private repository information without consent [2]."
    )
    assert quote.heading == "Private repositories: GitHub Access"
    assert scored[-1] == (
        "Private repositories: GitHub Access. GitHub personnel does not access private "
        "repository information without consent"
    )

"""HTML and Word files: the text a reader sees, on pages a user can find."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from citeguard.errors import ParsingError
from citeguard.ingest.parsing import parse_document

POLICY_HTML = """<!doctype html>
<html><head><title>Privacy</title><style>body { color: red }</style>
<script>var secret = "tracking code";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<header>Site banner</header>
<h1>Privacy Policy</h1>
<p>We respect your&nbsp;privacy &amp; explain
   what we collect.</p>
<h2>Data we collect</h2>
<ul><li>Your e-mail address.</li><li>Your IP address<br>and browser.</li></ul>
<script>alert("x")</script>
<h2>How long we keep it</h2>
<p>We keep data for <b>30 days</b>.</p>
<footer>Copyright 2026</footer>
</body></html>"""


def test_html_keeps_the_text_and_drops_scripts_and_navigation(tmp_path: Path) -> None:
    path = tmp_path / "policy.html"
    path.write_text(POLICY_HTML, encoding="utf-8")
    doc = parse_document(path)
    assert [page.text for page in doc.pages] == [
        "Privacy Policy\n\nWe respect your privacy & explain what we collect.",
        "Data we collect\n\nYour e-mail address.\n\nYour IP address\n\nand browser.",
        "How long we keep it\n\nWe keep data for 30 days.",
    ]
    for dropped in ("tracking code", "alert", "Home", "banner", "Copyright", "color"):
        assert dropped not in doc.text
    for page in doc.pages:  # offsets point into the extracted text
        assert doc.text[page.char_start : page.char_end] == page.text


def test_html_without_visible_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.htm"
    path.write_text("<html><script>only()</script></html>", encoding="utf-8")
    with pytest.raises(ParsingError, match="no visible text"):
        parse_document(path)


def test_broken_html_still_gives_its_text(tmp_path: Path) -> None:
    path = tmp_path / "broken.html"
    path.write_text("<p>Rent is <b>due <i>monthly<p>Deposit: \u00a3500", encoding="utf-8")
    doc = parse_document(path)
    assert doc.text == "Rent is due monthly\n\nDeposit: \u00a3500"


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def paragraph(text: str, style: str | None = None, before: str = "", inside: str = "") -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}<w:r>{before}<w:t>{text}</w:t>{inside}</w:r></w:p>"


def write_docx(path: Path, body: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr(
            "word/document.xml", f"<w:document {W}><w:body>{body}</w:body></w:document>"
        )


def test_docx_pages_follow_the_page_breaks_the_file_records(tmp_path: Path) -> None:
    path = tmp_path / "lease.docx"
    body = (
        paragraph("Lease", "Title")
        + paragraph("Rent is due on the first.", inside='<w:br w:type="page"/>')
        + paragraph("Deposit", "Heading1", before="<w:lastRenderedPageBreak/>")
        + "<w:tbl><w:tr><w:tc>"
        + paragraph("Cell text")
        + "</w:tc></w:tr></w:tbl>"
    )
    write_docx(path, body)
    doc = parse_document(path)
    assert [page.text for page in doc.pages] == [
        "Lease\n\nRent is due on the first.",
        "Deposit\n\nCell text",
    ]
    assert [page.printed_page for page in doc.pages] == ["1", "2"]


def test_docx_without_page_marks_is_split_into_sections(tmp_path: Path) -> None:
    path = tmp_path / "guide.docx"
    body = (
        paragraph("Intro text.")
        + paragraph("Repairs", "Heading1")
        + paragraph("The landlord repairs heating.")
        + paragraph("Pets", "Heading1")
        + paragraph("No pets.")
    )
    write_docx(path, body)
    assert [page.text for page in parse_document(path).pages] == [
        "Intro text.",
        "Repairs\n\nThe landlord repairs heating.",
        "Pets\n\nNo pets.",
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not a zip at all", "not a zip"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "encrypted"),
    ],
    ids=["garbage", "ole-encrypted"],
)
def test_unreadable_docx_is_refused(tmp_path: Path, data: bytes, reason: str) -> None:
    path = tmp_path / "bad.docx"
    path.write_bytes(data)
    with pytest.raises(ParsingError, match=reason):
        parse_document(path)


def test_zip_that_is_not_a_word_file(tmp_path: Path) -> None:
    path = tmp_path / "other.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(ParsingError, match="no word/document.xml"):
        parse_document(path)

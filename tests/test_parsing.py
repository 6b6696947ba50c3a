"""Parsing: pages, printed page numbers, normalization, furniture removal, errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from citeguard.documents import PAGE_SEPARATOR, ParsedDocument
from citeguard.errors import ParsingError
from citeguard.ingest import discover_documents, document_from_pages, parse_document
from citeguard.ingest.textnorm import join_lines, normalize_line
from pdf_factory import (
    SAMPLE_BREAK_AFTER,
    SAMPLE_BREAK_BEFORE,
    SAMPLE_HEADER,
    SAMPLE_PRINTED_PAGES,
    PageSpec,
    make_blank_pdf,
    make_encrypted_pdf,
    make_image_only_pdf,
    make_pdf,
    make_sample_contract_pdf,
    make_zero_page_pdf,
)

BODY = (
    "The Tenant shall keep the premises in good repair and condition throughout the term, "
    "and shall return them to the Landlord in the same state at the end of the Lease."
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> ParsedDocument:
    path = make_sample_contract_pdf(tmp_path_factory.mktemp("sample") / "lease.pdf")
    return parse_document(path)


NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"]


def _body(index: int) -> str:
    # One line, different on every page: a line repeated at the top or bottom of every
    # page would rightly be taken for a running header or footer.
    return f"{NAMES[index]} clause: the Tenant keeps the premises in good repair."


def _footers(labels: list[str]) -> list[PageSpec]:
    return [PageSpec(paragraphs=[_body(i)], footer=label) for i, label in enumerate(labels)]


# --------------------------------------------------------------------------- PDF pages


def test_sample_contract_pages_and_printed_numbers(sample: ParsedDocument) -> None:
    assert [p.pdf_page for p in sample.pages] == [1, 2, 3, 4, 5]
    assert [p.printed_page for p in sample.pages] == SAMPLE_PRINTED_PAGES
    assert sample.name == "lease.pdf"


def test_page_texts_sit_at_their_offsets(sample: ParsedDocument) -> None:
    assert sample.text == PAGE_SEPARATOR.join(p.text for p in sample.pages)
    for page in sample.pages:
        assert sample.text[page.char_start : page.char_end] == page.text
        assert sample.page_at(page.char_start) == page


def test_running_header_and_page_number_lines_are_stripped(sample: ParsedDocument) -> None:
    assert SAMPLE_HEADER not in sample.text
    assert "Page 1 of 3" not in sample.text
    assert not sample.pages[0].text.endswith("i")
    assert not sample.pages[1].text.endswith("ii")
    # Body text right under the header survives.
    assert sample.pages[2].text.startswith("ARTICLE 1 DEFINITIONS")


def test_paragraphs_joined_and_separated_by_one_blank_line(sample: ParsedDocument) -> None:
    page = sample.pages[2].text
    paragraphs = page.split("\n\n")
    assert all(p and "\n" not in p and p == p.strip() for p in paragraphs)
    # The wrapped definitions paragraph is one paragraph, its lines joined by spaces.
    assert any(
        p.startswith("In this Lease") and p.endswith("permitted assigns.") for p in paragraphs
    )
    assert "\n\n\n" not in sample.text


def test_paragraph_crossing_page_break_keeps_both_halves(sample: ParsedDocument) -> None:
    assert sample.pages[2].text.endswith(SAMPLE_BREAK_BEFORE)
    assert sample.pages[3].text.startswith(SAMPLE_BREAK_AFTER)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["- 3 -", "- 4 -", "- 5 -"], ["3", "4", "5"]),
        (["Page 7", "Page 8", "Page 9"], ["7", "8", "9"]),
        (["12", "13", "14"], ["12", "13", "14"]),
        (["iii", "iv", "v", "1", "2"], ["iii", "iv", "v", "1", "2"]),
        # Numbers that do not rise with the page index are not trusted.
        (["7", "12", "3"], ["1", "2", "3"]),
        # Only the consistent run is trusted; the odd page falls back to its index.
        (["40", "4", "5", "6"], ["1", "4", "5", "6"]),
    ],
)
def test_printed_page_numbers_from_footers(
    tmp_path: Path, labels: list[str], expected: list[str]
) -> None:
    doc = parse_document(make_pdf(tmp_path / "n.pdf", _footers(labels)))
    assert [p.printed_page for p in doc.pages] == expected
    for index, page in enumerate(doc.pages):
        assert page.text == _body(index)


def test_printed_page_number_in_header(tmp_path: Path) -> None:
    specs = [
        PageSpec(paragraphs=[_body(n)], header=f"Lease Agreement - Page {n}") for n in (2, 3, 4)
    ]
    doc = parse_document(make_pdf(tmp_path / "h.pdf", specs))
    assert [p.printed_page for p in doc.pages] == ["2", "3", "4"]
    assert "Lease Agreement" not in doc.text


def test_page_without_numbers_uses_pdf_index(tmp_path: Path) -> None:
    doc = parse_document(make_pdf(tmp_path / "plain.pdf", _footers(["", "", ""])))
    assert [p.printed_page for p in doc.pages] == ["1", "2", "3"]


def test_single_number_in_body_is_not_a_page_label(tmp_path: Path) -> None:
    specs = [PageSpec(paragraphs=[_body(0), "42"]), PageSpec(paragraphs=[_body(1)])]
    doc = parse_document(make_pdf(tmp_path / "one.pdf", specs))
    assert [p.printed_page for p in doc.pages] == ["1", "2"]


def test_running_footer_with_changing_digits_is_stripped(tmp_path: Path) -> None:
    specs = _footers([f"Lease v2 printed 2024-0{n}-01" for n in range(1, 5)])
    doc = parse_document(make_pdf(tmp_path / "f.pdf", specs))
    assert "printed" not in doc.text
    assert [p.text for p in doc.pages] == [_body(i) for i in range(4)]


def test_text_repeated_only_once_is_not_a_running_header(tmp_path: Path) -> None:
    specs = [
        PageSpec(paragraphs=[_body(0)], header="Schedule of Works"),
        *(PageSpec(paragraphs=[_body(i)]) for i in range(1, 5)),
    ]
    doc = parse_document(make_pdf(tmp_path / "once.pdf", specs))
    assert doc.pages[0].text.startswith("Schedule of Works")


def test_hyphenation_at_line_ends(tmp_path: Path) -> None:
    paragraph = (
        "The obliga-\ntion of the Tenant under the twenty-\nfive year lease binds any "
        "third-\nparty assignee and the Non-\nWaiver clause."
    )
    doc = parse_document(make_pdf(tmp_path / "norm.pdf", [PageSpec(paragraphs=[paragraph])]))
    assert doc.text == (
        "The obligation of the Tenant under the twenty-five year lease binds any "
        "third-party assignee and the Non-Waiver clause."
    )


def test_quotes_dashes_and_ligatures_normalized(tmp_path: Path) -> None:
    # Helvetica in generated PDFs cannot draw these characters, so a text file is used.
    path = tmp_path / "quotes.txt"
    path.write_text(
        "The \u201cTenant\u201d \u2013 and its \ufb01nance \u2014 the Tenant\u2019s "
        "e\u00adstate\u2026",
        encoding="utf-8",
    )
    assert parse_document(path).text == 'The "Tenant" - and its finance - the Tenant\'s estate...'


def test_normalize_line_handles_ligatures_and_spaces() -> None:
    assert normalize_line("  \ufb01nal \ufb02oor\u00a0\u00a0plan\t ") == "final floor plan"
    assert normalize_line("e\u00adnough\u200b") == "enough"
    assert join_lines(["pay-", "ment due", "Non-", "Waiver"]) == "payment due Non-Waiver"


def test_content_hash_is_sha256_of_file_bytes(tmp_path: Path, sample: ParsedDocument) -> None:
    data = Path(sample.path).read_bytes()
    assert sample.content_hash == hashlib.sha256(data).hexdigest()


def test_parsing_is_deterministic(tmp_path: Path) -> None:
    path = make_sample_contract_pdf(tmp_path / "again.pdf")
    assert parse_document(path) == parse_document(path)


# --------------------------------------------------------------------------- PDF errors


def test_corrupt_pdf(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    with pytest.raises(ParsingError, match="not a readable PDF") as info:
        parse_document(path)
    assert "broken.pdf" in str(info.value)


def test_empty_file_pdf(tmp_path: Path) -> None:
    path = tmp_path / "zero.pdf"
    path.write_bytes(b"")
    with pytest.raises(ParsingError, match="not a readable PDF"):
        parse_document(path)


def test_encrypted_pdf(tmp_path: Path) -> None:
    with pytest.raises(ParsingError, match="PDF is encrypted"):
        parse_document(make_encrypted_pdf(tmp_path / "locked.pdf"))


def test_pdf_without_pages(tmp_path: Path) -> None:
    with pytest.raises(ParsingError, match="no pages"):
        parse_document(make_zero_page_pdf(tmp_path / "nopages.pdf"))


def test_pdf_with_blank_pages(tmp_path: Path) -> None:
    with pytest.raises(ParsingError, match="no text$"):
        parse_document(make_blank_pdf(tmp_path / "blank.pdf", pages=2))


def test_image_only_pdf(tmp_path: Path) -> None:
    with pytest.raises(ParsingError, match=r"no text layer \(scanned or image-only PDF"):
        parse_document(make_image_only_pdf(tmp_path / "scan.pdf"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ParsingError, match="file not found"):
        parse_document(tmp_path / "absent.pdf")


def test_directory_with_pdf_suffix(tmp_path: Path) -> None:
    folder = tmp_path / "folder.pdf"
    folder.mkdir()
    with pytest.raises(ParsingError, match="is a directory"):
        parse_document(folder)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("text", encoding="utf-8")

    def deny(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    # Tests may run as root, where chmod cannot make a file unreadable.
    monkeypatch.setattr(Path, "read_bytes", deny)
    with pytest.raises(ParsingError, match="permission denied"):
        parse_document(path)


def test_unsupported_file_type(tmp_path: Path) -> None:
    path = tmp_path / "notes.odt"
    path.write_bytes(b"PK")
    with pytest.raises(ParsingError, match="unsupported file type '.odt'"):
        parse_document(path)


# --------------------------------------------------------------------------- plain text


def test_txt_with_form_feeds_gives_pages(tmp_path: Path) -> None:
    path = tmp_path / "memo.txt"
    path.write_text(
        "First page line one\ncontinues here.\n\nSecond paragraph.\fPage two text.\f\fPage four.\f",
        encoding="utf-8",
    )
    doc = parse_document(path)
    assert [p.text for p in doc.pages] == [
        "First page line one continues here.\n\nSecond paragraph.",
        "Page two text.",
        "",
        "Page four.",
    ]
    assert [p.printed_page for p in doc.pages] == ["1", "2", "3", "4"]
    for page in doc.pages:
        assert doc.text[page.char_start : page.char_end] == page.text


def test_txt_single_page_normalized(tmp_path: Path) -> None:
    path = tmp_path / "memo.txt"
    raw = "\ufeffThe \ufb01rst   \u201cclause\u201d\r\nwraps here.\r\n\r\n\r\n\r\nNext   one."
    path.write_bytes(raw.encode("utf-8"))
    doc = parse_document(path)
    assert len(doc.pages) == 1
    assert doc.text == 'The first "clause" wraps here.\n\nNext one.'
    assert doc.content_hash == hashlib.sha256(raw.encode("utf-8")).hexdigest()


def test_markdown_heading_is_its_own_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text("# Rent\nRent is due monthly.\n\n## Term\nFive years.", encoding="utf-8")
    assert parse_document(path).text == "# Rent\n\nRent is due monthly.\n\n## Term\n\nFive years."


LATIN_TEXT = (
    "Caf\u00e9 cr\u00e8me: the d\u00e9p\u00f4t is due on signing, says the propri\u00e9taire."
)
CP1252_TEXT = "\u201cRent\u201d \u2013 due on the 1st of each month \u2026 late fee \u20ac75."


@pytest.mark.parametrize(
    ("text", "codec", "reported"),
    [
        (LATIN_TEXT, "latin-1", None),
        (CP1252_TEXT, "cp1252", None),
        (LATIN_TEXT, "utf-16", "utf-16"),
        (LATIN_TEXT, "utf-32", "utf-32"),
        (LATIN_TEXT, "utf-8-sig", "utf-8"),
    ],
    ids=["latin-1", "cp1252", "utf-16-bom", "utf-32-bom", "utf-8-bom"],
)
def test_text_in_other_encodings_is_read(
    tmp_path: Path, text: str, codec: str, reported: str | None
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode(codec))
    doc = parse_document(path)
    assert doc.text == normalize_line(text)  # curly quotes straightened, as for any text
    assert doc.encoding is not None
    if reported is not None:
        assert doc.encoding.startswith(reported)
    else:  # detected: some single-byte encoding that decodes these bytes to the same text
        assert doc.encoding != "utf-8"


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01\x02\x03binary\x00", bytes(range(256)) * 4, b"text\x00with a NUL byte"],
    ids=["nul-bytes", "all-bytes", "utf8-with-nul"],
)
def test_binary_file_named_txt_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(data)
    with pytest.raises(ParsingError, match="binary") as info:
        parse_document(path)
    assert "data.txt" in str(info.value)


def test_empty_text_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(" \n\n \f ", encoding="utf-8")
    with pytest.raises(ParsingError, match="no text"):
        parse_document(path)


def test_document_from_pages() -> None:
    doc = document_from_pages("inline.txt", ["One\nline.", "Two."], printed_pages=["x", "y"])
    assert doc.text == "One line.\n\nTwo."
    assert [(p.pdf_page, p.printed_page, p.char_start) for p in doc.pages] == [
        (1, "x", 0),
        (2, "y", 11),
    ]


# --------------------------------------------------------------------------- discovery


def test_discover_documents(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / ".hidden").mkdir()
    for name in ["b.txt", "a.PDF", "sub/c.md", "sub/skip.odt", ".secret.txt", ".hidden/d.txt"]:
        (root / name).write_text("x", encoding="utf-8")
    (root / "sub" / "dangling.txt").symlink_to(tmp_path / "missing.txt")
    explicit = tmp_path / "notes.rtf"
    explicit.write_text("x", encoding="utf-8")
    lone = tmp_path / "lone.txt"
    lone.write_text("x", encoding="utf-8")

    files, skipped = discover_documents([root, lone, root / "b.txt", explicit, tmp_path / "gone"])

    assert files == [root / "a.PDF", root / "b.txt", root / "sub" / "c.md", lone]
    assert skipped == [
        (root / "sub" / "dangling.txt", "dangling symbolic link (its target does not exist)"),
        (root / "sub" / "skip.odt", "unsupported file type '.odt'"),
        (explicit, "unsupported file type '.rtf'"),
        (tmp_path / "gone", "not found"),
    ]

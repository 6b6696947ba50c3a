"""Source headings in the generation prompt: long document names are shortened."""

from __future__ import annotations

from citeguard.prompts import (
    MAX_DOCUMENT_LABEL_CHARS,
    document_labels,
    format_sources,
    shorten_document_name,
)

LONG = "AlliedEsportsEntertainmentInc_20190815_8-K_EX-10.34_11788308_EX-10.34_Sponsorshi.pdf"


def _source(doc: str, page: str, text: str) -> dict[str, object]:
    return {"doc": doc, "printed_pages": [page, page], "text": text}


def test_short_names_are_shown_whole() -> None:
    assert shorten_document_name("lease.pdf") == "lease.pdf"
    name = "x" * MAX_DOCUMENT_LABEL_CHARS
    assert shorten_document_name(name) == name


def test_long_names_are_cut_at_a_separator_with_an_ellipsis() -> None:
    label = shorten_document_name(LONG)
    assert label == "AlliedEsportsEntertainmentInc\u2026"
    assert len(label) <= MAX_DOCUMENT_LABEL_CHARS + 1


def test_a_long_name_without_separators_is_cut_at_the_budget() -> None:
    label = shorten_document_name("a" * 80, max_chars=20)
    assert label == "a" * 20 + "\u2026"


def test_names_that_would_look_alike_are_kept_whole() -> None:
    first = "Residential_Lease_Agreement_Building_North_Unit_4A.pdf"
    second = "Residential_Lease_Agreement_Building_North_Unit_5B.pdf"
    assert document_labels([first, second, first]) == {first: first, second: second}
    assert document_labels([first, "lease.pdf"]) == {
        first: shorten_document_name(first),
        "lease.pdf": "lease.pdf",
    }


def test_source_headings_use_the_labels_and_keep_text_and_pages() -> None:
    text = format_sources([_source(LONG, "8", "Rent is due."), _source("lease.pdf", "2", "Pets.")])
    assert text == (
        "[1] AlliedEsportsEntertainmentInc\u2026, page 8\nRent is due.\n\n"
        "[2] lease.pdf, page 2\nPets."
    )
    assert LONG not in text

"""Citation marker parsing: valid, invalid, malformed, placeholders and document brackets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeguard.text.citations import parse_citations, strip_citations


def kinds(text: str, k: int = 4) -> list[tuple[str, str, bool]]:
    return [(m.text, m.kind, m.valid) for m in parse_citations(text, k)]


def test_valid_markers_in_range() -> None:
    markers = parse_citations("Rent is due monthly [1][3].", k=4)
    assert [(m.sources, m.valid, m.kind) for m in markers] == [
        ((1,), True, "citation"),
        ((3,), True, "citation"),
    ]
    assert markers[0].start == len("Rent is due monthly ")
    assert markers[0].end == markers[0].start + 3


def test_marker_offsets_slice_the_text() -> None:
    text = "A [2] and B [4]."
    for marker in parse_citations(text, 4):
        assert text[marker.start : marker.end] == marker.text


@pytest.mark.parametrize("marker, number", [("[0]", 0), ("[5]", 5), ("[ 12 ]", 12)])
def test_out_of_range_markers_are_invalid_citations(marker: str, number: int) -> None:
    (parsed,) = parse_citations(f"The rent is due {marker}.", k=4)
    assert parsed.kind == "citation"
    assert parsed.valid is False
    assert parsed.sources == (number,)
    assert parsed.problem and "does not exist" in parsed.problem


def test_k_plus_one_is_invalid_but_k_is_valid() -> None:
    assert kinds("x [3] y [4]", k=3) == [("[3]", "citation", True), ("[4]", "citation", False)]


@pytest.mark.parametrize(
    "marker, sources",
    [
        ("[1-3]", (1, 2, 3)),
        ("[1–2]", (1, 2)),
        ("[1, 2]", (1, 2)),
        ("[1,2]", (1, 2)),
        ("[1; 3]", (1, 3)),
        ("[1 and 2]", (1, 2)),
        ("[^1]", (1,)),
        ("[Source 2]", (2,)),
        ("[source 1, 2]", (1, 2)),
        ("【1†source】", (1,)),
    ],
)
def test_malformed_markers_are_flagged(marker: str, sources: tuple[int, ...]) -> None:
    (parsed,) = parse_citations(f"The rent is due {marker}.", k=4)
    assert parsed.kind == "malformed"
    assert parsed.valid is False
    assert parsed.sources == sources
    assert parsed.text == marker


def test_caret_and_superscript_footnotes_are_malformed() -> None:
    assert kinds("The rent is due.^1") == [("^1", "malformed", False)]
    assert kinds("The rent is due¹.") == [("¹", "malformed", False)]


def test_exponents_are_not_footnotes() -> None:
    assert kinds("The premises measure 500 m² in total.") == []
    assert kinds("An area of 10² square feet.") == []


@pytest.mark.parametrize(
    "text", ["[Landlord] shall pay.", "The tenant [sic] agrees.", "A royalty of [***] percent."]
)
def test_bracketed_document_text_is_not_a_marker(text: str) -> None:
    assert parse_citations(text, 4) == []


@pytest.mark.parametrize(
    "placeholder",
    ["[date]", "[n]", "[N]", "[name]", "[●]", "[___]", "[ ]", "[X]", "[insert amount]"],
)
def test_placeholders_are_detected(placeholder: str) -> None:
    (parsed,) = parse_citations(f"The lease expires on {placeholder}.", k=4)
    assert parsed.kind == "placeholder"
    assert parsed.valid is False


def test_parenthesised_numbers_are_not_markers() -> None:
    assert parse_citations("within thirty (30) days under clause (1)", 4) == []


def test_no_sources_makes_every_number_invalid() -> None:
    (parsed,) = parse_citations("Rent [1].", k=0)
    assert parsed.valid is False


def test_strip_citations_removes_markers_and_tidies_spacing() -> None:
    assert strip_citations("The rent is due [1][2].") == "The rent is due."
    assert strip_citations("Rent [1-3] is due [^2].") == "Rent is due."
    assert (
        strip_citations("Signed on [date] by [Landlord] [1].") == "Signed on [date] by [Landlord]."
    )


@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(min_value=0, max_value=10))
def test_parse_citations_never_raises(text: str, k: int) -> None:
    for marker in parse_citations(text, k):
        assert text[marker.start : marker.end] == marker.text
        assert marker.valid == (marker.kind == "citation" and 1 <= marker.sources[0] <= k)
    strip_citations(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]^¹0123456789-, ab.●_")), max_size=40))
def test_parse_citations_on_bracket_soup(text: str) -> None:
    for marker in parse_citations(text, 3):
        assert text[marker.start : marker.end] == marker.text

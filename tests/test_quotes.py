"""Quotes: the chunk sentence(s) that support an answer sentence, in document offsets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeguard.text.passages import without_html_comments
from citeguard.validate.quotes import best_quote

DOCUMENT = (
    "LEASE AGREEMENT\n\n"
    "1. Rent. The Tenant shall pay rent of $1,200 per month. Rent is due on the first day "
    "of each month. Late payments incur a fee of 5%.\n\n"
    "2. Term. The term of this lease is twelve (12) months. The Tenant may renew the lease "
    "for one additional year by giving sixty (60) days' notice."
)


def chunk_at(start: int, end: int) -> tuple[str, int]:
    return DOCUMENT[start:end], start


def test_quote_is_the_best_matching_sentence_with_document_offsets() -> None:
    start = DOCUMENT.index("1. Rent.")
    chunk, chunk_start = chunk_at(start, len(DOCUMENT))
    quote = best_quote("Late payments cost a 5% fee [1].", chunk, chunk_start)
    assert quote.text == "Late payments incur a fee of 5%."
    assert DOCUMENT[quote.char_start : quote.char_end] == quote.text


def test_window_of_two_sentences_when_the_answer_spans_them() -> None:
    chunk, chunk_start = chunk_at(0, len(DOCUMENT))
    quote = best_quote(
        "The lease lasts twelve months and can be renewed with sixty days' notice [1].",
        chunk,
        chunk_start,
    )
    assert quote.text.startswith("The term of this lease is twelve (12) months.")
    assert quote.text.endswith("sixty (60) days' notice.")
    assert DOCUMENT[quote.char_start : quote.char_end] == quote.text


def test_single_sentence_preferred_when_a_window_adds_nothing() -> None:
    chunk, chunk_start = chunk_at(0, len(DOCUMENT))
    quote = best_quote("The term is twelve (12) months [1].", chunk, chunk_start)
    assert quote.text == "The term of this lease is twelve (12) months."


def test_a_date_stated_in_another_format_is_quoted_where_the_document_states_it() -> None:
    # The answer writes the date out; the amendment's signature block states it as 8/4/10
    # (CUAD dev, Cisco and ScanSource). The sentence that shares only "agreement" with the
    # answer must not be shown as its evidence.
    chunk = (
        "All other terms and conditions of the Agreement remain unchanged.\n\n"
        "Cisco Systems, Inc. ScanSource, Inc.\n\n"
        "BY: /s/ S.K. Vereschagin BY: /s/ Jeffry E. Yelton\n\n"
        "NAME: S.K. Vereschagin NAME: Jeff Yelton\n\n"
        "DATE: 8/4/10 DATE: 7-29-10"
    )
    quote = best_quote("The agreement was made or signed on August 4, 2010 [2].", chunk, 100)
    assert quote.text == "DATE: 8/4/10 DATE: 7-29-10"
    assert chunk[quote.char_start - 100 : quote.char_end - 100] == quote.text


def test_a_lead_in_and_its_list_are_quoted_together_without_the_comment_between() -> None:
    """A Markdown file read as text puts a comment between a lead-in and its list: no
    sentence of its own, it neither splits the quote nor shows in it."""
    lead_in = "Staff do not open private files without your consent, except for:"
    chunk = f"{lead_in}\n\n<!-- markdownlint-disable GHD034 -->\n\n* security reviews * support"
    quote = best_quote(f"{lead_in} * security reviews * support [1].", chunk, 10)
    assert quote.text == f"{lead_in}\n\n* security reviews * support"
    assert (quote.char_start, quote.char_end) == (10, 10 + len(chunk))


def test_empty_chunk_gives_an_empty_quote_at_the_chunk_start() -> None:
    quote = best_quote("Anything [1].", "", 42)
    assert (quote.text, quote.char_start, quote.char_end) == ("", 42, 42)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.text(max_size=300), st.integers(min_value=0, max_value=1000))
def test_best_quote_never_raises_and_slices_the_document(
    sentence: str, chunk: str, prefix_length: int
) -> None:
    document = "x" * prefix_length + chunk
    quote = best_quote(sentence, chunk, prefix_length)
    assert without_html_comments(document[quote.char_start : quote.char_end]) == quote.text

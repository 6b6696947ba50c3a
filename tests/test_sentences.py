"""Sentence splitting of answers and legal text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeguard.text.sentences import split_sentences


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


@pytest.mark.parametrize(
    "text",
    [
        "The parties, e.g. the Landlord, agree [1].",
        "The landlord, i.e. Acme Inc., agrees [1].",
        "Acme Ltd. and Beta Co. signed it [1].",
        "It is governed by the laws of the U.S. and Delaware [1].",
        "Mr. Smith and Dr. Jones signed on behalf of No. 5 Holdings [1].",
        "See Sec. 4 and Section 3.2 of the lease [1].",
        "The rent is $1,250.50 per month [1].",
        "Fees, taxes, etc. are excluded [2].",
        "Payment is due within 2.5 days of invoice [1].",
    ],
)
def test_abbreviations_numbers_and_amounts_do_not_split(text: str) -> None:
    assert texts(text) == [text]


def test_markers_after_the_period_belong_to_the_sentence_before() -> None:
    assert texts("Rent is $500. [1] The term is one year. [2][3]") == [
        "Rent is $500. [1]",
        "The term is one year. [2][3]",
    ]


def test_marker_before_the_period() -> None:
    assert texts("Rent is $500 [1]. The term is one year [2].") == [
        "Rent is $500 [1].",
        "The term is one year [2].",
    ]


def test_malformed_marker_after_period_is_attached_too() -> None:
    assert texts("Rent is due. [1-2] Next sentence.") == ["Rent is due. [1-2]", "Next sentence."]


def test_company_suffix_ends_a_sentence_before_a_sentence_opener() -> None:
    assert texts("The tenant is Acme Inc. The landlord is Beta LLC.") == [
        "The tenant is Acme Inc.",
        "The landlord is Beta LLC.",
    ]


def test_no_as_an_answer_still_splits() -> None:
    assert texts("No. The tenant may not assign the lease [1].") == [
        "No.",
        "The tenant may not assign the lease [1].",
    ]


def test_question_exclamation_and_lowercase_continuation() -> None:
    assert texts("Is it due? Yes! it is. Done") == ["Is it due?", "Yes! it is.", "Done"]


def test_blank_lines_and_bullets_split() -> None:
    text = "Summary\n\n- Rent is due [1]\n- Term is one year [2]"
    assert texts(text) == ["Summary", "Rent is due [1]", "Term is one year [2]"]


def test_enumerator_is_not_a_sentence() -> None:
    assert texts("2. The Tenant shall pay rent.") == ["2. The Tenant shall pay rent."]


def test_offsets_point_into_the_input() -> None:
    text = "  First one [1].   Second, at $3.50. [2]\n\nThird  "
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == ["First one [1].", "Second, at $3.50. [2]", "Third"]
    for sentence in sentences:
        assert text[sentence.start : sentence.end] == sentence.text


def test_empty_and_whitespace() -> None:
    assert split_sentences("") == []
    assert split_sentences("   \n\n ") == []


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_split_sentences_never_raises_and_offsets_hold(text: str) -> None:
    previous_end = 0
    for sentence in split_sentences(text):
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.start >= previous_end
        assert sentence.text == sentence.text.strip()
        previous_end = sentence.end


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab. [1]?!\n-Inc")), max_size=60))
def test_split_sentences_on_punctuation_soup(text: str) -> None:
    for sentence in split_sentences(text):
        assert text[sentence.start : sentence.end] == sentence.text

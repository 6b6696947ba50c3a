"""Cutting a source down to the sentences a claim rests on (citeguard.validate.focus)."""

from __future__ import annotations

import numpy as np

from citeguard.validate.focus import ELLIPSIS, claim_focused_source, within_budget

SOURCE = (
    "1. TERM. This Agreement begins on March 1, 2020 and runs for two years. "
    "2. FEES. The Distributor shall pay a monthly fee of $5,000 to the Company. "
    "3. NOTICES. Notices must be sent in writing to the addresses stated above. "
    "4. TERMINATION. Either party may terminate this Agreement on ninety days' notice."
)


def test_short_source_is_returned_whole() -> None:
    assert claim_focused_source("The fee is $5,000 [1].", SOURCE, max_words=500) == SOURCE
    assert claim_focused_source("The fee is $5,000 [1].", SOURCE, max_words=0) == SOURCE


def test_keeps_the_sentences_sharing_most_of_the_claims_words_in_document_order() -> None:
    claim = (
        "Either party may terminate on ninety days' notice, and the Agreement runs for two "
        "years [1]."
    )
    # The two sentences stating the claim fill the 22 words; the heading "3. NOTICES." and
    # the notices clause share one claim word each and no longer fit.
    focused = claim_focused_source(claim, SOURCE, max_words=22)
    assert focused == (
        "This Agreement begins on March 1, 2020 and runs for two years."
        + ELLIPSIS
        + "Either party may terminate this Agreement on ninety days' notice."
    )


def test_budget_holds_at_least_one_sentence() -> None:
    focused = claim_focused_source("The monthly fee is $5,000 [1].", SOURCE, max_words=3)
    assert focused == "The Distributor shall pay a monthly fee of $5,000 to the Company."


def test_unsplittable_source_is_returned_whole() -> None:
    text = " ".join(["word"] * 50)
    assert claim_focused_source("word [1].", text, max_words=10) == text


def test_source_sharing_no_word_with_the_claim_is_returned_whole() -> None:
    assert claim_focused_source("Pets are allowed [1].", SOURCE, max_words=10) == SOURCE


def test_within_budget_skips_a_long_sentence_for_a_shorter_one_that_fits() -> None:
    sentences = ["a b c d e", "f g h i j k l m n o", "p q"]
    keep = within_budget(sentences, np.array([0.9, 0.8, 0.1]), max_words=8)
    assert keep == [0, 2]

"""Claims that copy their evidence's words but turn its meaning around."""

from __future__ import annotations

from citeguard.graph.context import Context
from citeguard.validate.copy_edits import copy_edit_reasons, flips_negation, reverses_names
from citeguard.validate.validator import validate_answer

ROYALTY = (
    "Aucta shall pay to ETON a royalty of five percent (5%) of Net Sales. This Agreement is "
    "between Aucta Pharmaceuticals and ETON. The Licensor grants to the Licensee a "
    "non-exclusive license. The Tenant may not sublet the Premises. Licensee doesn't "
    "warrant the Software."
)
STRICT = Context().validation_settings(level="strict")


def test_two_names_in_each_others_place_are_found() -> None:
    for claim in (
        "ETON shall pay to Aucta a royalty of five percent (5%) of Net Sales.",
        "The Licensee grants to the Licensor a non-exclusive license.",
    ):
        assert reverses_names(claim, ROYALTY), claim
        assert copy_edit_reasons(claim, ROYALTY) == ["names_reversed"]


def test_names_as_the_evidence_orders_them_or_paired_or_paraphrased_pass() -> None:
    for claim in (
        "Aucta shall pay to ETON a royalty of five percent (5%) of Net Sales.",
        "Aucta pays ETON a royalty.",
        # A pair says the same both ways.
        "The parties are ETON and Aucta Pharmaceuticals.",
        "The agreement is between ETON and Aucta Pharmaceuticals.",
        # A paraphrase gains nothing from a swap.
        "ETON receives a royalty from Aucta.",
        # "this Agreement" names the document, not a party.
        "The Licensor grants the license under this Agreement.",
    ):
        assert not reverses_names(claim, ROYALTY), claim


def test_a_not_added_or_dropped_from_the_evidences_words_is_found() -> None:
    assert flips_negation("The Tenant may sublet the Premises.", ROYALTY)
    assert flips_negation("Aucta shall not pay to ETON a royalty", ROYALTY)
    assert flips_negation("Licensee does warrant the Software", ROYALTY)
    # As written, a contraction written out, or in other words: no flip.
    assert not flips_negation("The Tenant may not sublet the Premises.", ROYALTY)
    assert not flips_negation("Licensee does not warrant the Software", ROYALTY)
    assert not flips_negation("The Tenant cannot sublet.", ROYALTY)
    assert not flips_negation("Subletting is not allowed.", ROYALTY)
    # Too short to be a copy.
    assert not flips_negation("Not sublet.", ROYALTY)


def test_the_validator_fails_a_turned_around_copy_and_says_why() -> None:
    question = "Who pays the royalty?"
    result = validate_answer(
        "ETON shall pay to Aucta a royalty of five percent (5%) of Net Sales [1].",
        [ROYALTY],
        question,
        STRICT,
    )
    assert not result.passed
    assert "names_reversed" in result.sentences[0].reasons
    assert "who does what" in result.feedback_text
    kept = "Aucta shall pay to ETON a royalty of five percent (5%) of Net Sales [1]."
    assert validate_answer(kept, [ROYALTY], question, STRICT).passed
    flipped = validate_answer(
        "The Tenant may sublet the Premises [1].", [ROYALTY], "Can the Tenant sublet?", STRICT
    )
    assert "negation_flipped" in flipped.sentences[0].reasons
    assert not flipped.passed

"""Claims that copy their evidence's words but turn its meaning around."""

from __future__ import annotations

from citeguard.graph.context import Context
from citeguard.validate.copy_edits import (
    _without_pairings,
    copy_edit_reasons,
    flips_negation,
    replaced_term,
    reverses_names,
    spliced_sentences,
)
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


def test_the_documents_own_name_in_a_partys_place_is_found() -> None:
    """ "this Agreement" names the document, but a claim that puts a party where the clause
    names the document, and the document where it names the party, is a swap like any."""
    evidence = (
        "This Agreement shall not be assignable by Consultant. This Agreement will be "
        "governed by the laws of the State of California."
    )
    assert reverses_names("This Consultant shall not be assignable by Agreement.", evidence)
    for claim in (
        "This Agreement shall not be assignable by Consultant.",
        "Consultant may not assign this Agreement.",
        "This Agreement will be governed by the laws of the State of California.",
    ):
        assert not reverses_names(claim, evidence), claim


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


INDEMNITIES = (
    "To avoid any confusion or interference with the rights of the Company, the Professional "
    "agrees not to endorse another company's golf clubs. Each of EA, Farids and the Company "
    "shall not solicit the employees of the other party. The indemnities of the MHC, the "
    "Company, the Bank and the Agent shall survive. All IGER INTELLECTUAL PROPERTY shall "
    "remain with IGER and all CERES INTELLECTUAL PROPERTY with CERES."
)


def test_a_swap_across_a_comma_between_clauses_or_inside_a_capitalized_run_is_found() -> None:
    for claim in (
        # The comma ends one clause before the next: not a pair of names.
        "To avoid any confusion or interference with the rights of the Professional, the "
        "Company agrees not to endorse another company's golf clubs.",
        # The names stand inside runs of capitals ("IGER INTELLECTUAL PROPERTY").
        "All CERES INTELLECTUAL PROPERTY shall remain with CERES and all IGER INTELLECTUAL "
        "PROPERTY with IGER.",
    ):
        assert reverses_names(claim, INDEMNITIES), claim


def test_a_swap_is_found_beside_a_pair_of_the_same_names() -> None:
    evidence = (
        "NCB appoints NPC, and NPC agrees to serve, as NCB's sole agent to merchants who "
        "desire to receive services from NCB or NPC."
    )
    swapped = (
        "NPC appoints NCB, and NCB agrees to serve, as NPC's sole agent to merchants who "
        "desire to receive services from NPC or NCB."
    )
    assert reverses_names(swapped, evidence)
    # The pair alone in the other order says the same.
    paired = (
        "NCB appoints NPC, and NPC agrees to serve, as NCB's sole agent to merchants who "
        "desire to receive services from NPC or NCB."
    )
    assert not reverses_names(paired, evidence)


def test_overlapping_pairings_of_two_names_are_left_out_as_one_stretch() -> None:
    left = _without_pairings("notice from Exact, Pfizer and Exact shall engage", "Exact", "Pfizer")
    assert left.split() == ["notice", "from", "\x01", "shall", "engage"]


def test_names_reordered_inside_a_list_pass() -> None:
    for claim in (
        "Each of Farids, EA and the Company shall not solicit the employees of the other party.",
        "The indemnities of the Company, the MHC, the Bank and the Agent shall survive.",
    ):
        assert not reverses_names(claim, INDEMNITIES), claim


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


LEASE = (
    "Tenant shall pay a late fee of $50 if rent is more than five days late. The pet fee is "
    "not refundable and is separate from the security deposit. Oakwood Properties LLC "
    '("Landlord") shall return the security deposit within 30 days after Tenant moves out. '
    "Tenant shall pay the rent to Landlord on the first day of each month. Repairs are "
    "requested from Oakwood Properties LLC in writing."
)


def test_a_term_of_the_evidence_put_for_another_is_found() -> None:
    # The case: one of the lease's charges stated under the name of another.
    claim = "The late fee is not refundable and is separate from the security deposit."
    assert replaced_term(claim, LEASE) == ("late", "pet")
    assert copy_edit_reasons(claim, LEASE) == ["term_replaced"]
    # A name put for a name, though the evidence never writes the one put in.
    named = "Repairs are requested from Maple Homes LLC in writing."
    assert replaced_term(named, LEASE) == ("maple homes", "oakwood properties")
    # A name of up to five words put for another name.
    law = "It will be governed by the law of the Shenzhen Leheyuan Trading Co, otherwise not."
    china = "It will be governed by the law of the People's Republic of China, otherwise not."
    assert replaced_term(law, china) == (
        "shenzhen leheyuan trading co",
        "people's republic of china",
    )
    # A number for another the evidence states elsewhere, which the number check passes.
    days = "Landlord shall return the security deposit within five days after Tenant moves out."
    assert replaced_term(days, LEASE) == ("five", "30")


def test_the_evidences_word_turned_to_its_opposite_by_a_prefix_is_found() -> None:
    # "refundable" for the evidence's "not refundable" is the negation rule's; a prefix
    # does the same inside one word.
    deposit = "The cleaning deposit is non-refundable and is kept by Landlord after move-out."
    claim = "The cleaning deposit is refundable and is kept by Landlord after move-out."
    assert replaced_term(claim, deposit) == ("refundable", "non-refundable")
    license_grant = "Licensor grants Licensee an exclusive license to sell the Products."
    turned = "Licensor grants Licensee a non-exclusive license to sell the Products."
    assert copy_edit_reasons(turned, license_grant) == ["term_replaced"]
    assert replaced_term(
        "The licence is irrevocable for the term of this Agreement.",
        "The licence is revocable for the term of this Agreement.",
    ) == ("irrevocable", "revocable")
    # Not an opposite: another spelling, a word that only starts alike, the same word.
    for same_meaning, source in (
        ("Licensor grants Licensee a nonexclusive license to sell the Products.",
         "Licensor grants Licensee a non-exclusive license to sell the Products."),
        ("The Parties shall inform each other of any claim within the Term.",
         "The Parties shall notify each other of any claim within the Term."),
        (license_grant, license_grant),
    ):  # fmt: skip
        assert replaced_term(same_meaning, source) is None


DEPOSIT = (
    "This Lease is made between Oakwood Properties LLC and the Tenant. The Tenant shall pay "
    "the security deposit of $900 to Oakwood Properties. Rent is due monthly in advance. "
    "Licensor shall pay all taxes on the royalties due under this Agreement."
)


def test_a_term_replaced_at_the_claims_first_or_last_words_is_found() -> None:
    # The evidence's words before or after the copied stretch are not the term replaced.
    ends_on = "The Tenant shall pay the security deposit of $900 to Maple Homes."
    assert replaced_term(ends_on, DEPOSIT) == ("maple homes", "oakwood properties")
    opens_with = "Landlord shall pay all taxes on the royalties due under this Agreement."
    assert replaced_term(opens_with, DEPOSIT) is None  # a word the evidence never writes
    relabelled = "Tenant shall pay all taxes on the royalties due under this Agreement."
    assert replaced_term(relabelled, DEPOSIT) == ("tenant", "licensor")
    # The first word is capitalized whatever it is: it counts in place of a name the
    # evidence writes as one inside a sentence, not of a word that only opens one.
    audit = (
        "The fees are payable to SHPS under this Agreement. SHPS shall have the right, upon "
        "reasonable prior written notice, to examine, copy and audit such records."
    )
    clients = "Clients shall have the right, upon reasonable prior written notice, to examine."
    assert replaced_term(clients, audit) == ("clients", "shps")
    payments = (
        "Royalties shall be paid within thirty days of the end of each quarter. Payments "
        "are made in dollars."
    )
    fees = "Fees shall be paid within thirty days of the end of each quarter."
    assert replaced_term(fees, payments) is None
    # What a claim adds at its end is its own: a name's full form where the evidence's
    # sentence stops, words the evidence writes in another sentence.
    for claim in (
        "The Tenant shall pay the security deposit of $900 to Oakwood Properties LLC.",
        "The Tenant shall pay the security deposit of $900 to the landlord in advance.",
    ):
        assert replaced_term(claim, DEPOSIT) is None


def test_copies_paraphrases_forms_and_defined_names_pass() -> None:
    for claim in (
        # Word for word.
        "The pet fee is not refundable and is separate from the security deposit.",
        # A function word for another, one word in another form.
        "The pet fee is not refundable and will be separate from the security deposit.",
        "Tenant pays a late fee of $50 if rent is more than five days late.",
        # A common word the evidence never uses: a paraphrase, left to the other checks.
        "The pet fee is not returnable and is separate from the security deposit.",
        # A number is the number check's.
        "Tenant shall pay a late fee of $75 if rent is more than five days late.",
        # The evidence defines the name as the other.
        "Tenant shall pay the rent to Oakwood Properties LLC on the first day of each month.",
        # Too few of the evidence's words: the model's own sentence.
        "A late fee applies to rent paid after five days.",
    ):
        assert replaced_term(claim, LEASE) is None, claim


def test_the_validator_fails_a_replaced_term_and_says_which_to_use() -> None:
    result = validate_answer(
        "The late fee is not refundable and is separate from the security deposit [1].",
        [LEASE],
        "Is the late fee refundable?",
        STRICT,
    )
    assert not result.passed
    assert "term_replaced" in result.sentences[0].reasons
    assert "use the source's term" in result.feedback_text


NOTICE = (
    "Tenant shall pay a late fee of $50 if rent is received after the fifth day of the month. "
    "Tenant owes two months of rent as a fee for breaking the lease early. The term is one "
    "year. The lease renews for one more year unless either party gives notice."
)


def test_one_sentences_start_joined_to_anothers_end_is_found() -> None:
    claim = "Tenant shall pay a late fee of $50 as a fee for breaking the lease early."
    assert spliced_sentences(claim, NOTICE) == (
        "tenant shall pay a late fee of $50",
        "as a fee for breaking the lease early",
    )
    assert copy_edit_reasons(claim, NOTICE) == ["sentences_spliced"]
    # The end may be three words, cut from another sentence.
    assign = (
        "Rogers may assign its rights to a person that directly or indirectly controls, is "
        "controlled by or is under common control with Rogers. The term of this Agreement "
        "is five years."
    )
    short_end = (
        "Rogers may assign its rights to a person that directly or indirectly controls of "
        "this Agreement."
    )
    assert spliced_sentences(short_end, assign) == (
        "rogers may assign its rights to a person that directly or indirectly controls",
        "of this agreement",
    )
    # A short end from a sentence of the same subject: two statements, each stated.
    rent = (
        "The Tenant shall pay monthly rent of $1,200 within thirty days of the invoice. "
        "The Tenant shall pay rent by bank transfer."
    )
    combined = "The Tenant shall pay monthly rent of $1,200 by bank transfer."
    assert spliced_sentences(combined, rent) is None


def test_whole_statements_joined_copies_and_own_words_are_not_splices() -> None:
    for claim in (
        # Two whole statements joined: each is stated.
        "The term is one year; the lease renews for one more year unless either party "
        "gives notice.",
        # A sentence's opening alone, or a copy.
        "Tenant shall pay a late fee of $50.",
        "Tenant owes two months of rent as a fee for breaking the lease early.",
        # The opening ends where its sentence ends: two statements.
        "The term is one year and the lease renews for one more year.",
        # Parts too short to be copies.
        "Tenant pays $50 late as a fee.",
    ):
        assert spliced_sentences(claim, NOTICE) is None, claim


def test_the_validator_fails_a_splice() -> None:
    result = validate_answer(
        "Tenant shall pay a late fee of $50 as a fee for breaking the lease early [1].",
        [NOTICE],
        "What is the fee for breaking the lease?",
        STRICT,
    )
    assert not result.passed
    assert "sentences_spliced" in result.sentences[0].reasons

"""The support verifier's controlled edits keep the words and break the meaning."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citeguard.evaluation.dataset import GoldSpan, Question
from citeguard.evaluation.verifier_pairs import (
    CLAIM_EDITS,
    acting_parties,
    change_number,
    claims_for,
    defined_parties,
    document_names,
    flip_negation,
    main_clause,
    relabel,
    splice,
    swap_acting_parties,
    swap_entity,
    swap_roles,
)
from citeguard.text.passages import passages

CONTRACT = (
    'This License Agreement is made by Acme Corp. (the "Licensor") and Beta LLC ("Licensee"). '
    "The parties agree as follows. "
    "The Licensor grants the Licensee a license to use the Software for 12 months. "
    "Either party may terminate this Agreement upon 30 days' written notice. "
    "The Licensee shall not assign this Agreement without consent. "
    "Fees are payable within 45 days of invoice."
)


def test_change_number_changes_only_a_number() -> None:
    edited = change_number("Either party may terminate upon 30 days' notice.", random.Random(1))
    assert edited is not None and "30 days" not in edited and "days' notice" in edited
    assert change_number("No numbers here.", random.Random(1)) is None


def test_swap_roles() -> None:
    claim = "The Licensor grants the Licensee a license."
    assert (
        swap_roles(claim, ["Licensor", "Licensee"]) == "The Licensee grants the Licensor a license."
    )
    assert swap_roles("The Licensor grants a license.", ["Licensor", "Licensee"]) is None


def test_flip_negation_both_ways() -> None:
    assert flip_negation("The Licensee shall not assign it.") == "The Licensee shall assign it."
    assert flip_negation("The Licensee shall assign it.") == "The Licensee shall not assign it."
    assert flip_negation("Fees are payable.") == "Fees are not payable."
    assert flip_negation("Payment in full.") is None


def test_relabel() -> None:
    assert relabel("The notice period is 30 days.") == "The cure period is 30 days."
    assert relabel("Nothing to confuse.") is None
    # A term inside a longer one is not that term: "non-exclusive" never becomes
    # "non-non-exclusive".
    assert relabel("Licensor grants a non-exclusive license.") == (
        "licensee grants a non-exclusive license."
    )


def test_swap_roles_is_the_same_in_every_process() -> None:
    # Two parties starting at the same place ("SINA", "SINA Leju"): the order parties come
    # in (a set's, which differs between processes) must not change the edit.
    claim = "SINA Leju shall pay Beta within 30 days."
    edits = {
        swap_roles(claim, parties)
        for parties in (["SINA", "SINA Leju", "Beta"], ["Beta", "SINA Leju", "SINA"])
    }
    assert len(edits) == 1 and None not in edits and claim not in edits


def test_document_names_are_multiword_capitalized_names() -> None:
    text = (
        "This Agreement is between Acme Widgets Inc. and Gamma Holdings LLC, under the laws "
        "of the State of Delaware. The Company shall pay. Section Five applies."
    )
    names = document_names(text)
    assert "Acme Widgets Inc" in names and "Gamma Holdings LLC" in names
    assert "State of Delaware" in names
    assert not any(n.startswith(("This", "The ", "Section")) for n in names)


def test_swap_entity_prefers_another_party() -> None:
    claim = "The Licensor grants a license to use the Software."
    edited = swap_entity(claim, ["Licensor", "Licensee"], ["Acme Corp"], random.Random(0))
    assert edited == "The Licensee grants a license to use the Software."
    # no other party: another name of the document
    edited = swap_entity("Acme Corp pays the fee.", [], ["Acme Corp", "Beta LLC"], random.Random(0))
    assert edited == "Beta LLC pays the fee."
    assert swap_entity("Nobody is named here.", ["Licensor"], [], random.Random(0)) is None
    assert swap_entity("Acme Corp pays.", [], ["Acme Corp"], random.Random(0)) is None


def test_splice_joins_the_claim_to_another_sentence_of_the_evidence() -> None:
    claim = "The tenant pays a late fee of $75.00 if rent is paid after the fifth day."
    evidence = (
        claim + " The tenant may end the lease early by paying two months of rent for "
        "breaking the lease early."
    )
    spliced = splice(claim, evidence, random.Random(0))
    assert spliced is not None and spliced != claim
    assert spliced.startswith("The tenant pays") and spliced.endswith("lease early.")
    assert all(word in evidence for word in spliced.split())
    assert splice(claim, claim, random.Random(0)) is None  # no other sentence


def test_main_clause_is_the_part_before_a_semicolon() -> None:
    claim = "The Licensee shall not assign this Agreement to anyone; provided that it may merge."
    assert main_clause(claim) == "The Licensee shall not assign this Agreement to anyone."
    assert main_clause("No semicolon in this claim at all, none.") is None
    assert main_clause("Too short; the rest of the claim goes on here.") is None


def test_defined_parties() -> None:
    assert defined_parties(CONTRACT) == ["Licensor", "Licensee"]


def test_claims_keep_their_evidence_and_label_edits_unsupported() -> None:
    start = CONTRACT.index("The Licensor grants")
    end = CONTRACT.index("12 months.") + len("12 months.")
    question = Question(
        id="q", question="License grant?", answerable=True, doc="c.txt",
        gold_spans=(GoldSpan(CONTRACT[start:end], start, end),),
    )  # fmt: skip
    claims = claims_for(question, CONTRACT, passages(CONTRACT, 20), random.Random(3))
    supported = [c for c in claims if c.label == 1]
    assert [c.claim for c in supported] == [CONTRACT[start:end]]
    edits = {c.edit: c for c in claims if c.label == 0}
    assert {"number", "roles", "other-clause"} <= set(edits)
    assert "12 months" not in edits["number"].claim
    assert edits["roles"].claim.startswith("The Licensee grants the Licensor")
    assert all(c.evidence == supported[0].evidence for c in claims)
    assert CONTRACT[start:end] in supported[0].evidence


def test_claims_of_a_dataset_split_like_the_scorer_pairs(tmp_path: Path) -> None:
    from citeguard.evaluation.train_pairs import PairSettings, build_pairs
    from citeguard.evaluation.verifier_pairs import build_claims
    from test_training import make_dataset

    dataset = make_dataset(tmp_path / "data")
    settings = PairSettings(validation_share=0.34)
    train, validation = build_claims(dataset, settings)
    pairs_train, pairs_validation = build_pairs(dataset, settings)
    assert {c.doc for c in validation} <= {p.doc for p in pairs_validation}
    assert {c.doc for c in train} <= {p.doc for p in pairs_train}
    assert any(c.label == 1 for c in train) and any(c.edit == "number" for c in train)
    assert build_claims(dataset, settings) == (train, validation)


def test_claim_edits_choose_the_variants_and_fragments_stay_supported() -> None:
    text = CONTRACT + (
        " The Licensee shall pay all fees to Acme Corp within 45 days of invoice; late "
        "payments bear interest."
    )
    start = text.index("The Licensee shall pay")
    end = len(text)
    question = Question(
        id="q", question="Payment?", answerable=True, doc="c.txt",
        gold_spans=(GoldSpan(text[start:end], start, end),),
    )  # fmt: skip
    cut = passages(text, 200)
    default = claims_for(question, text, cut, random.Random(3))
    assert not {c.edit for c in default} & {"entity", "splice", "fragment"}
    every = claims_for(question, text, cut, random.Random(3), claim_edits=CLAIM_EDITS)
    by_edit = {c.edit: c for c in every}
    assert {"entity", "fragment"} <= set(by_edit)
    assert by_edit["fragment"].label == 1
    assert (
        by_edit["fragment"].claim
        == "The Licensee shall pay all fees to Acme Corp within 45 days of invoice."
    )
    assert by_edit["entity"].label == 0 and "Licensor" in by_edit["entity"].claim
    only = claims_for(question, text, cut, random.Random(3), claim_edits=("negation",))
    assert {c.edit for c in only} == {"none", "negation"}


def test_unknown_claim_edits_are_refused(tmp_path: Path) -> None:
    from citeguard.evaluation.cli_train import edit_names
    from citeguard.evaluation.train_pairs import PairSettings
    from citeguard.evaluation.verifier_pairs import build_claims
    from test_training import make_dataset

    assert edit_names("number, splice") == ("number", "splice")
    with pytest.raises(Exception, match="unknown claim edit"):
        edit_names("number,rephrase")
    with pytest.raises(ValueError, match="unknown claim edits"):
        build_claims(make_dataset(tmp_path / "data"), PairSettings(claim_edits=("rephrase",)))


def test_acting_parties_are_subjects_of_obligations_not_the_document_itself() -> None:
    document = (
        'This Agreement is made by Acme ("Licensor") and Beta ("Licensee") as of the '
        '"Effective Date". Licensor shall deliver. Licensee shall pay. Licensor will '
        "support. Licensee may audit. This Agreement shall be governed by Ohio law. "
        "This Agreement may be amended."
    )
    parties = ["Licensor", "Licensee", "Effective Date", "Agreement"]
    assert acting_parties(document, parties) == ["Licensor", "Licensee"]


def test_swap_acting_parties_skips_symmetric_joins() -> None:
    parties = ["Licensor", "Licensee"]
    assert (
        swap_acting_parties("The Licensor grants the Licensee a license.", parties)
        == "The Licensee grants the Licensor a license."
    )
    for symmetric in (
        "The Licensor and the Licensee shall cooperate.",
        "Neither Licensor nor Licensee may assign.",
        "A dispute between Licensor and Licensee goes to arbitration.",
    ):
        assert swap_acting_parties(symmetric, parties) is None
    assert swap_acting_parties("The Licensor may audit.", parties) is None

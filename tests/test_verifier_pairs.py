"""The support verifier's controlled edits keep the words and break the meaning."""

from __future__ import annotations

import random
from pathlib import Path

from citeguard.evaluation.dataset import GoldSpan, Question
from citeguard.evaluation.verifier_pairs import (
    change_number,
    claims_for,
    defined_parties,
    flip_negation,
    relabel,
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

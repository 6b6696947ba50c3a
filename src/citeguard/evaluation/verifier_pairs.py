"""Training pairs for the support verifier: (claim, evidence) -> does the evidence support it?

A verifier learns little from claims that are merely unrelated to their evidence: the
failures that matter keep the words and break the meaning. So every supported claim (a
sentence of a gold clause, against the passage that holds it) comes with controlled edits
of itself against the same evidence, each labelled unsupported:

- ``number``: a number, amount, duration or date changed ("30 days" -> "45 days");
- ``roles``: two parties swapped ("licensed by Acme to Beta" -> "by Beta to Acme");
- ``negation``: a negation added or removed ("shall not assign" <-> "shall assign");
- ``relabel``: one term stated as another ("notice period" -> "cure period", "late fee" ->
  "security deposit");
- ``other-clause``: a sentence of another clause of the same document (FactCC-style).

Three more are chosen with ``PairSettings.claim_edits`` (the shipped verifier's first two
training steps used the five above; adding kinds changes the pair list):

- ``entity``: a name the document uses put in place of one the claim states (a party, a
  company, a place: "licensed by Acme" -> "licensed by Gamma"), preferring the document's
  other parties: a wrong party in the clause's own words;
- ``splice``: the claim's opening joined to the end of another sentence of the same evidence
  ("a late fee of $75.00" + "... for breaking the lease early"): every word is in the
  evidence, the statement is not;
- ``fragment`` (supported): the claim's main clause alone, as answers state it, so that
  short claims are not taken as unsupported for being short;
- ``parties``: ``roles`` without its noise: only names that act in the document (the
  subject of "shall", "will", "may", "agrees" ... at least twice), and never two names the
  claim joins symmetrically ("A and B agree", "between A and B", "neither A nor B"), where
  the swap says the same thing.

An edit that does not apply to a claim (no number in it, one party only ...) is skipped.
Built from the same datasets, seeds and document split as the evidence scorer's pairs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citeguard.evaluation.dataset import Question, dataset_docs_dir, load_questions
from citeguard.evaluation.train_pairs import PairSettings, holds_gold, validation_documents
from citeguard.text.passages import Passage, passages
from citeguard.text.quantities import extract_quantities
from citeguard.text.sentences import split_sentences
from citeguard.validate.copy_edits import swap_names

RELABELS: tuple[tuple[str, str], ...] = (
    ("notice period", "cure period"),
    ("late fee", "security deposit"),
    ("security deposit", "late fee"),
    ("rent", "deposit"),
    ("termination", "renewal"),
    ("renewal", "termination"),
    ("exclusive", "non-exclusive"),
    ("licensor", "licensee"),
    ("licensee", "licensor"),
    ("buyer", "seller"),
    ("seller", "buyer"),
    ("minimum", "maximum"),
    ("maximum", "minimum"),
    ("before", "after"),
    ("after", "before"),
)
"""Term -> another term a reader must not confuse it with (matched as whole words)."""
CLAIM_EDITS: tuple[str, ...] = (
    "number",
    "roles",
    "negation",
    "relabel",
    "other-clause",
    "entity",
    "splice",
    "fragment",
    "parties",
)
"""Every variant ``PairSettings.claim_edits`` may name, in the order they are drawn."""
SUPPORTED_EDITS = frozenset({"fragment"})
"""Variants that keep the claim supported (label 1)."""
_NAME = re.compile(r"\b[A-Z][\w&'-]*(?: (?:of )?[A-Z][\w&'-]*){1,5}")
_NOT_A_NAME_START = frozenset(
    "the this that such each any all in if for section article schedule exhibit".split()
)
_JOIN = re.compile(
    r",\s|\s(?:for|of|to|within|by|if|unless|upon|after|before|in|with|from|on|at)\s"
)
_NEGATABLE = re.compile(r"\b(shall|will|may|must|can|is|are)( not)?\b", re.IGNORECASE)
_DEFINED_PARTY = re.compile(r"\(\s*(?:the\s+)?[\"“]([A-Z][A-Za-z&.\- ]{1,40})[\"”]\s*\)")


@dataclass(frozen=True)
class DocumentNames:
    """The names a document's claims are edited with, found once per document (every
    question of a document shares them)."""

    parties: list[str]
    """Its defined parties (:func:`defined_parties`): the ``roles`` swap."""
    names: list[str]
    """Its multi-word names (:func:`document_names`): the ``entity`` swap."""
    acting: list[str]
    """The parties that act in it (:func:`acting_parties`): the ``parties`` swap."""

    @classmethod
    def of(cls, document: str) -> DocumentNames:
        parties = defined_parties(document)
        return cls(parties, document_names(document), acting_parties(document, parties))


@dataclass(frozen=True)
class Claim:
    """One verifier example."""

    claim: str
    evidence: str
    label: int
    """1: the evidence supports the claim; 0: it does not."""
    edit: str
    """"none" for a supported claim, else the edit that broke it."""
    doc: str


def change_number(claim: str, rng: random.Random) -> str | None:
    """The claim with one quantity's digits changed, or None when it states none."""
    quantities = [q for q in extract_quantities(claim) if re.search(r"\d", q.text)]
    if not quantities:
        return None
    target = rng.choice(quantities)
    digits = re.search(r"\d+", target.text)
    if digits is None:
        return None
    value = int(digits.group())
    new = str(value + rng.choice([1, 2, 5, 10]) if value < 1000 else value * 2)
    text = target.text[: digits.start()] + new + target.text[digits.end() :]
    return claim[: target.start] + text + claim[target.end :]


def parties_in_order(claim: str, parties: Sequence[str]) -> list[str]:
    """The ``parties`` the claim names, in the order it first names them."""
    return sorted(
        {p for p in parties if re.search(rf"\b{re.escape(p)}\b", claim)},
        # Ties broken by name: "SINA" and "SINA Leju" start at the same place, and set
        # order differs between runs (string hashing is seeded per process).
        key=lambda p: (claim.index(p), -len(p), p),
    )


def swap_roles(claim: str, parties: Sequence[str]) -> str | None:
    """The claim with the first two parties it names swapped, or None."""
    named = parties_in_order(claim, parties)
    if len(named) < 2:
        return None
    return swap_names(claim, named[0], named[1])


def flip_negation(claim: str) -> str | None:
    """The claim with its first modal negated, or its first negation removed."""
    match = _NEGATABLE.search(claim)
    if match is None:
        return None
    replacement = match.group(1) if match.group(2) else f"{match.group(1)} not"
    return claim[: match.start()] + replacement + claim[match.end() :]


def relabel(claim: str) -> str | None:
    """The claim with one term replaced by one it must not be confused with, or None."""
    for term, other in RELABELS:
        # Whole terms only: "exclusive" inside "non-exclusive" is another term.
        pattern = re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", re.IGNORECASE)
        if pattern.search(claim):
            return pattern.sub(other, claim, count=1)
    return None


def document_names(document: str, limit: int = 60) -> list[str]:
    """Names of two to six capitalized words the document uses ("Acme Widgets Inc.",
    "State of Delaware"), first seen first, at most ``limit``."""
    seen: dict[str, None] = {}
    for match in _NAME.finditer(document[:20000]):
        name = match.group()
        if name.split()[0].lower() in _NOT_A_NAME_START or len(name) > 60:
            continue
        seen.setdefault(name, None)
        if len(seen) >= limit:
            break
    return list(seen)


def _names_in(claim: str, names: Sequence[str]) -> list[str]:
    return [n for n in names if re.search(rf"\b{re.escape(n)}\b", claim)]


def swap_entity(
    claim: str, parties: Sequence[str], names: Sequence[str], rng: random.Random
) -> str | None:
    """The claim with one name it states replaced by another name of the document (another
    party when there is one), or None when it states none or the document has no other."""
    stated = _names_in(claim, [*parties, *names])
    if not stated:
        return None
    target = rng.choice(stated)
    absent = [n for n in parties if n not in stated and n not in claim]
    if not absent:
        absent = [n for n in names if n not in stated and n not in claim and target not in n]
    if not absent:
        return None
    return re.sub(rf"\b{re.escape(target)}\b", rng.choice(absent), claim, count=1)


def splice(claim: str, evidence: str, rng: random.Random) -> str | None:
    """The claim's opening joined, at a comma or preposition, to the end of another sentence
    of the evidence, or None when there is no such sentence or join."""
    others = [
        s.text
        for s in split_sentences(evidence)
        if len(s.text.split()) >= 8 and s.text not in claim and claim not in s.text
    ]
    if not others:
        return None
    other = rng.choice(others)
    heads = [m.start() for m in _JOIN.finditer(claim) if 0.25 < m.start() / len(claim) < 0.75]
    tails = [m.start() for m in _JOIN.finditer(other) if 0.2 < m.start() / len(other) < 0.8]
    if not heads or not tails:
        return None
    return claim[: rng.choice(heads)] + other[rng.choice(tails) :]


def main_clause(claim: str) -> str | None:
    """The claim's part before its first semicolon or colon, when that is a sentence of its
    own (eight words or more), ended with a period; else None."""
    head = re.split(r"[;:]", claim, maxsplit=1)[0].strip()
    if head == claim.strip() or len(head.split()) < 8:
        return None
    return head.rstrip(",") + "."


_ACTS = r"\s+(?:shall|will|may|must|agrees|agree|hereby|represents|warrants|grants)\b"
_SYMMETRIC_JOIN = re.compile(r"^[\s,]*(?:and|or|nor|&|/)(?:\s+the)?\s*$", re.IGNORECASE)


def acting_parties(document: str, parties: Sequence[str]) -> list[str]:
    """The defined ``parties`` that act in the document: at least twice the subject of
    "shall", "will", "may", "agrees" ..., and never "this ..." (a defined "Effective Date",
    "Products" or "Agreement" is not a party)."""
    return [
        p
        for p in parties
        if len(re.findall(rf"\b{re.escape(p)}{_ACTS}", document)) >= 2
        # "this Agreement", "this Venture": the document itself, not a party
        and not re.search(rf"\b[Tt]his\s+{re.escape(p)}\b", document)
    ]


def swap_acting_parties(claim: str, parties: Sequence[str]) -> str | None:
    """The claim with its first two acting parties swapped, unless it joins them
    symmetrically ("A and B", "between A and B", "neither A nor B"); else None."""
    named = parties_in_order(claim, parties)
    if len(named) < 2:
        return None
    first, second = named[0], named[1]
    between = claim[claim.index(first) + len(first) : claim.index(second)]
    if first in second or second in first or _SYMMETRIC_JOIN.match(between):
        return None
    return swap_roles(claim, [first, second])


def defined_parties(document: str) -> list[str]:
    """Names a contract defines for its parties: ("Licensee"), (the "Company") ..."""
    seen: dict[str, None] = {}
    for match in _DEFINED_PARTY.finditer(document[:5000]):
        seen.setdefault(match.group(1).strip(), None)
    return list(seen)


def claims_for(
    question: Question,
    document: str,
    passages: Sequence[Passage],
    rng: random.Random,
    max_claims: int = 2,
    claim_edits: Sequence[str] = PairSettings().claim_edits,
    names: DocumentNames | None = None,
) -> list[Claim]:
    """The supported claims one answerable question gives, each with its variants
    (``claim_edits``, drawn in the order of :data:`CLAIM_EDITS`); ``names`` are the
    document's (found here when not given)."""
    spans = [(s.start, s.end) for s in question.gold_spans if s.start is not None and s.end]
    spans = [(start, end) for start, end in spans if end is not None]
    holding = [p for p in passages if holds_gold(p, spans)]
    if not holding:
        return []
    names = names or DocumentNames.of(document)
    others = [p for p in passages if p not in holding]
    doc = question.doc or ""
    out: list[Claim] = []
    for start, end in spans[:max_claims]:
        evidence = next((p for p in holding if p.start <= start < p.end), holding[0])
        sentences = [s.text for s in split_sentences(document[start:end]) if len(s.text) > 20]
        if not sentences:
            continue
        claim = sentences[0]
        out.append(Claim(claim, evidence.text, 1, "none", doc))
        for name in (e for e in CLAIM_EDITS if e in claim_edits):
            edited = _variant(name, claim, evidence.text, names, others, rng)
            if edited and edited != claim:
                label = 1 if name in SUPPORTED_EDITS else 0
                out.append(Claim(edited, evidence.text, label, name, doc))
    return out


def _variant(
    name: str,
    claim: str,
    evidence: str,
    names: DocumentNames,
    others: Sequence[Passage],
    rng: random.Random,
) -> str | None:
    """One variant of ``claim`` by the edit ``name`` (None when it does not apply)."""
    if name == "number":
        return change_number(claim, rng)
    if name == "roles":
        return swap_roles(claim, names.parties)
    if name == "negation":
        return flip_negation(claim)
    if name == "relabel":
        return relabel(claim)
    if name == "other-clause":
        if not others:
            return None
        other_sentences = [s.text for s in split_sentences(rng.choice(others).text)]
        return rng.choice(other_sentences) if other_sentences else None
    if name == "entity":
        return swap_entity(claim, names.parties, names.names, rng)
    if name == "splice":
        return splice(claim, evidence, rng)
    if name == "fragment":
        return main_clause(claim)
    if name == "parties":
        return swap_acting_parties(claim, names.acting)
    check_claim_edits([name])
    raise AssertionError(f"claim edit {name!r} is known but has no variant")


def check_claim_edits(names: Sequence[str]) -> None:
    """Raises ValueError naming the unknown edits among ``names`` and the known ones."""
    unknown = [name for name in names if name not in CLAIM_EDITS]
    if unknown:
        raise ValueError(
            f"unknown claim edits {', '.join(unknown)}; known: {', '.join(CLAIM_EDITS)}"
        )


def build_claims(
    dataset: str | Path, settings: PairSettings | None = None
) -> tuple[list[Claim], list[Claim]]:
    """(training claims, validation claims), split by document as the scorer's pairs are."""
    settings = settings or PairSettings()
    check_claim_edits(settings.claim_edits)
    root = Path(dataset)
    questions = [q for q in load_questions(root, unique_ids=False) if q.doc and q.answerable]
    validation_docs = validation_documents(questions, settings)
    folder = dataset_docs_dir(root)
    rng = random.Random(settings.seed)
    texts: dict[str, tuple[str, list[Passage], DocumentNames]] = {}
    train: list[Claim] = []
    validation: list[Claim] = []
    for question in questions:
        doc = question.doc or ""
        if doc not in texts:
            text = (folder / doc).read_text(encoding="utf-8")
            texts[doc] = (text, passages(text, settings.passage_words), DocumentNames.of(text))
        text, cut, names = texts[doc]
        claims = claims_for(question, text, cut, rng, claim_edits=settings.claim_edits, names=names)
        (validation if doc in validation_docs else train).extend(claims)
    return train, validation

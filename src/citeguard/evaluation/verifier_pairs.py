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
_NEGATABLE = re.compile(r"\b(shall|will|may|must|can|is|are)( not)?\b", re.IGNORECASE)
_DEFINED_PARTY = re.compile(r"\(\s*(?:the\s+)?[\"“]([A-Z][A-Za-z&.\- ]{1,40})[\"”]\s*\)")


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


def swap_roles(claim: str, parties: Sequence[str]) -> str | None:
    """The claim with the first two parties it names swapped, or None."""
    named = sorted(
        {p for p in parties if re.search(rf"\b{re.escape(p)}\b", claim)},
        key=lambda p: claim.index(p),
    )
    if len(named) < 2:
        return None
    first, second = named[0], named[1]
    marker = "\x00"
    swapped = re.sub(rf"\b{re.escape(first)}\b", marker, claim)
    swapped = re.sub(rf"\b{re.escape(second)}\b", first, swapped)
    return swapped.replace(marker, second)


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
        pattern = re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE)
        if pattern.search(claim):
            return pattern.sub(other, claim, count=1)
    return None


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
) -> list[Claim]:
    """The supported claims one answerable question gives, each with its edited variants."""
    spans = [(s.start, s.end) for s in question.gold_spans if s.start is not None and s.end]
    spans = [(start, end) for start, end in spans if end is not None]
    holding = [p for p in passages if holds_gold(p, spans)]
    if not holding:
        return []
    parties = defined_parties(document)
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
        edits = {
            "number": change_number(claim, rng),
            "roles": swap_roles(claim, parties),
            "negation": flip_negation(claim),
            "relabel": relabel(claim),
        }
        if others:
            other_sentences = [s.text for s in split_sentences(rng.choice(others).text)]
            edits["other-clause"] = rng.choice(other_sentences) if other_sentences else None
        for name, edited in edits.items():
            if edited and edited != claim:
                out.append(Claim(edited, evidence.text, 0, name, doc))
    return out


def build_claims(
    dataset: str | Path, settings: PairSettings | None = None
) -> tuple[list[Claim], list[Claim]]:
    """(training claims, validation claims), split by document as the scorer's pairs are."""
    settings = settings or PairSettings()
    root = Path(dataset)
    questions = [q for q in load_questions(root, unique_ids=False) if q.doc and q.answerable]
    validation_docs = validation_documents(questions, settings)
    folder = dataset_docs_dir(root)
    rng = random.Random(settings.seed)
    texts: dict[str, tuple[str, list[Passage]]] = {}
    train: list[Claim] = []
    validation: list[Claim] = []
    for question in questions:
        doc = question.doc or ""
        if doc not in texts:
            text = (folder / doc).read_text(encoding="utf-8")
            texts[doc] = (text, passages(text, settings.passage_words))
        text, cut = texts[doc]
        claims = claims_for(question, text, cut, rng)
        (validation if doc in validation_docs else train).extend(claims)
    return train, validation

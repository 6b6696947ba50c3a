"""Claims that copy a clause of their evidence but change what it means.

A model that answers in the clause's own words can still turn it around: "ETON shall pay
to Aucta" from a clause that says "Aucta shall pay to ETON", or "Tenant may sublet" from
"Tenant may not sublet". Every word stands in the evidence, so word checks pass them, and
the trained verifier scores a swap of parties nearly as high as the clause itself
(``docs/results.md``, "The verifier with harder claims"). Both edits are decided here by
comparing the claim with the evidence's own wording:

- :func:`reverses_names`: with two of its names swapped, the claim copies the evidence's
  word trigrams clearly better than as written;
- :func:`flips_negation`: the claim and a passage of the evidence are the same words once
  "not"/"never" is removed from both, but not as written.

A claim in its own words is never flagged: each rule needs the evidence's wording around
the edit, so paraphrases ("Aucta is paid by ETON") are left to the other checks.
"""

from __future__ import annotations

import re

# A name as the evidence writes it: capitalized words ("Aucta", "Acme Widgets Inc."), or a
# word in capitals ("ETON", "LICENSEE").
_NAME = re.compile(r"\b[A-Z][\w&'.-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'.-]*)*")
# Words that open a sentence or a clause with a capital without naming anyone.
_NOT_NAMES = frozenset(
    "a an the this that these those any each either neither no all if in on for upon "
    "subject notwithstanding except unless during within after before yes".split()
)
# Joins that say the same both ways: "A and B", "between A and B", "A, B".
_SYMMETRIC = re.compile(r"^[\s,]*(?:and|or|nor|&|/|,)?(?:\s+the)?[\s,]*$", re.IGNORECASE)
# Trigrams of the evidence a swap must gain to count: one could be chance.
_SWAP_GAIN = 2
_ARTICLES = frozenset({"the", "a", "an"})
# A longer run of capitals is a sentence in capitals ("IN NO EVENT SHALL ..."), not a name.
_NAME_WORDS = 5
_NEGATION = re.compile(r"\b(?:not|never)\b")


def _names(claim: str, evidence: str) -> list[str]:
    """The claim's names that the evidence also writes, first named first."""
    found: list[str] = []
    for match in _NAME.finditer(claim):
        name = match.group()
        # "The Licensee": the name is "Licensee".
        while (head := name.split(maxsplit=1))[0].lower() in _NOT_NAMES and len(head) > 1:
            name = head[1]
        name = re.sub(r"['\u2019]s$", "", name).rstrip(".'")
        if name.lower() in _NOT_NAMES or len(name) < 2 or name in found:
            continue
        if len(name.split()) <= _NAME_WORDS and _names_a_party(name, evidence):
            found.append(name)
    return found


def _names_a_party(name: str, evidence: str) -> bool:
    """Whether ``name`` stands in the evidence, and never as "this ...": "this Agreement"
    or "the Term of this Agreement" names the document, not a party."""
    if re.search(rf"\b(?:this|these)\s+{re.escape(name)}\b", evidence, re.IGNORECASE):
        return False
    return re.search(rf"\b{re.escape(name)}\b", evidence) is not None


def swap_names(text: str, first: str, second: str) -> str:
    """``text`` with every whole-word ``first`` and ``second`` in each other's place."""
    marker = "\x00"
    text = re.sub(rf"\b{re.escape(first)}\b", marker, text)
    text = re.sub(rf"\b{re.escape(second)}\b", first, text)
    return text.replace(marker, second)


def _joined_symmetrically(text: str, first: str, second: str) -> bool:
    """Whether ``text`` joins the two names as a pair ("A and B", "B or A", "A, B")."""
    for a, b in ((first, second), (second, first)):
        for match in re.finditer(rf"\b{re.escape(a)}\b(.{{0,12}}?)\b{re.escape(b)}\b", text):
            if _SYMMETRIC.match(match.group(1)):
                return True
    return False


def _trigrams(text: str) -> list[tuple[str, ...]]:
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in _ARTICLES]
    return list(zip(words, words[1:], words[2:], strict=False))


def reverses_names(claim: str, evidence: str) -> bool:
    """Whether the claim, with two of the evidence's names swapped, copies the evidence's
    wording clearly better than as written ("ETON shall pay to Aucta" where the evidence
    has "Aucta shall pay to ETON"). Names the claim joins as a pair ("A and B") are left
    alone, and a paraphrase gains nothing from a swap, so neither is flagged."""
    names = _names(claim, evidence)
    if len(names) < 2 or _holds(_normalized(claim.strip().rstrip(".;:,")), _normalized(evidence)):
        return False
    written = set(_trigrams(evidence))
    as_written = sum(t in written for t in _trigrams(claim))
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if first in second or second in first:
                continue
            if _joined_symmetrically(claim, first, second):
                continue
            swapped = sum(t in written for t in _trigrams(swap_names(claim, first, second)))
            if swapped >= as_written + _SWAP_GAIN:
                return True
    return False


_CONTRACTED = {"can't": "can not", "cannot": "can not", "won't": "will not"}


def _normalized(text: str) -> str:
    """Lower case, single spaces, and a negation written out ("doesn't" -> "does not")."""
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"\b(?:can't|cannot|won't)\b", lambda m: _CONTRACTED[m.group()], text)
    text = re.sub(r"\b(\w+)n't\b", r"\1 not", text)
    return " ".join(text.split())


def _holds(passage: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(passage)}(?!\w)", text) is not None


def flips_negation(claim: str, evidence: str) -> bool:
    """Whether the claim is a passage of the evidence with a "not" or "never" added or
    removed ("Tenant may sublet" from "Tenant may not sublet"): the same words once
    negations are dropped from both, but not the same as written."""
    body = _normalized(claim.strip().rstrip(".;:,"))
    if len(body.split()) < 3:
        return False
    text = _normalized(evidence)
    if _holds(body, text):
        return False
    without = " ".join(_NEGATION.sub("", body).split())
    return _holds(without, " ".join(_NEGATION.sub("", text).split()))


def copy_edit_reasons(claim: str, evidence: str) -> list[str]:
    """The reason codes of the edits :func:`reverses_names` and :func:`flips_negation`
    find in the claim (citation markers removed) against its cited evidence."""
    reasons: list[str] = []
    if reverses_names(claim, evidence):
        reasons.append("names_reversed")
    if flips_negation(claim, evidence):
        reasons.append("negation_flipped")
    return reasons

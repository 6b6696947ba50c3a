"""Claims that copy a clause of their evidence but change what it means.

A model that answers in the clause's own words can still turn it around: "ETON shall pay
to Aucta" from a clause that says "Aucta shall pay to ETON", or "Tenant may sublet" from
"Tenant may not sublet". Every word stands in the evidence, so word checks pass them, and
the trained verifier scores a swap of parties nearly as high as the clause itself
(``docs/results.md``, "The support verifier"). Both edits are decided here by
comparing the claim with the evidence's own wording:

- :func:`reverses_names`: with two of its names swapped, the claim copies the evidence's
  word trigrams clearly better than as written;
- :func:`flips_negation`: the claim and a passage of the evidence are the same words once
  "not"/"never" is removed from both, but not as written;
- :func:`replaced_term`: the claim copies a stretch of the evidence except for one term put
  in place of the evidence's own, a term the evidence uses for something else ("the late
  fee is not refundable" where the passage says "the pet fee is not refundable" and names
  a late fee elsewhere), another name ("licensed by Gamma" where it says "by Acme"), or
  the evidence's word with a negating prefix added or dropped ("a non-exclusive license"
  where it says "an exclusive license");
- :func:`spliced_sentences`: the claim is the opening of one sentence of the evidence, cut
  mid-way, joined to the end of another ("Tenant shall pay a late fee of $50" + "... for
  breaking the lease early").

A claim in its own words is never flagged: each rule needs the evidence's wording around
the edit, so paraphrases ("Aucta is paid by ETON") are left to the other checks.
"""

from __future__ import annotations

import functools
import re
from difflib import SequenceMatcher

from citeguard.text.sentences import split_sentences

# A name as the evidence writes it: capitalized words ("Aucta", "Acme Widgets Inc."), or a
# word in capitals ("ETON", "LICENSEE").
_NAME = re.compile(r"\b[A-Z][\w&'.-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'.-]*)*")
# Words that open a sentence or a clause with a capital without naming anyone.
_NOT_NAMES = frozenset(
    "a an the this that these those any each either neither no all if in on for upon "
    "subject notwithstanding except unless during within after before yes".split()
)
# Joins that say the same both ways: "A and B", "between A and B", "A, B".
_SYMMETRIC = re.compile(
    r"^(?:['\u2019]s)?[\s,]*(?:and|or|nor|&|/|,)?(?:\s+the)?[\s,]*$", re.IGNORECASE
)
# What a pairing of two names is replaced by before a swap is compared: no word, so no
# trigram of the evidence runs through it.
_PAIRED = " \x01 "
_CONJUNCTION = re.compile(r"\b(?:and|or|nor)\b|[&/]", re.IGNORECASE)
# After "A, B": a list that goes on (", C", "and C", "or C"), so the comma joined a pair.
_LIST_GOES_ON = re.compile(r"['\u2019]?s?\s*(?:,|and\b|or\b|nor\b|&)", re.IGNORECASE)
# Trigrams of the evidence a swap must gain to count: one could be chance.
_SWAP_GAIN = 2
_ARTICLES = frozenset({"the", "a", "an"})
# A longer run of capitals is a sentence in capitals ("IN NO EVENT SHALL ..."), not a name.
_NAME_WORDS = 5
_NEGATION = re.compile(r"\b(?:not|never)\b")


def _names(claim: str, evidence: str) -> list[str]:
    """The claim's names that the evidence also writes, first named first.

    A run of capitalized words is read whole and, where it is longer, as its first and
    last word too: "IGER INTELLECTUAL PROPERTY" and "Term MusclePharm" hold the names
    "IGER" and "MusclePharm", which a swap exchanges on their own.
    """
    found: list[str] = []
    for match in _NAME.finditer(claim):
        name = match.group()
        # "The Licensee": the name is "Licensee".
        while (head := name.split(maxsplit=1))[0].lower() in _NOT_NAMES and len(head) > 1:
            name = head[1]
        name = re.sub(r"['\u2019]s$", "", name).rstrip(".'")
        if len(name.split()) > _NAME_WORDS:
            continue
        words = name.split()
        for candidate in dict.fromkeys([name, words[0], words[-1]]):
            candidate = re.sub(r"['\u2019]s$", "", candidate).rstrip(".',")
            if candidate.lower() in _NOT_NAMES or len(candidate) < 2 or candidate in found:
                continue
            if _stands_in(candidate, evidence):
                found.append(candidate)
    return found


def _stands_in(name: str, evidence: str) -> bool:
    """Whether ``name`` stands in the evidence as written. The document's own name counts
    ("this Agreement"): "This Consultant shall not be assignable by Agreement." puts it in
    a party's place, and a claim that copies the clause gains nothing from that swap."""
    return re.search(rf"\b{re.escape(name)}\b", evidence) is not None


def swap_names(text: str, first: str, second: str) -> str:
    """``text`` with every whole-word ``first`` and ``second`` in each other's place."""
    marker = "\x00"
    text = re.sub(rf"\b{re.escape(first)}\b", marker, text)
    text = re.sub(rf"\b{re.escape(second)}\b", first, text)
    return text.replace(marker, second)


def _pairings(text: str, first: str, second: str) -> list[tuple[int, int]]:
    """Where ``text`` joins the two names as a pair ("A and B", "B or A") or in a list
    ("A, B and C", "the A, the B, the C"): (start, end) of each such stretch. A comma alone
    joins them only where a list goes on after the second: in "the rights of A, B agrees"
    it ends one clause before the next."""
    spans: list[tuple[int, int]] = []
    for a, b in ((first, second), (second, first)):
        for match in re.finditer(rf"\b{re.escape(a)}\b(.{{0,12}}?)\b{re.escape(b)}\b", text):
            join = match.group(1)
            if not _SYMMETRIC.match(join):
                continue
            if _CONJUNCTION.search(join) or _LIST_GOES_ON.match(text, match.end()):
                spans.append(match.span())
    return spans


def _without_pairings(text: str, first: str, second: str) -> str:
    """``text`` with each stretch that pairs the two names (:func:`_pairings`) put out of
    the comparison: a pair says the same in either order, so only the names' other places
    can show a swap."""
    merged: list[list[int]] = []
    for start, end in sorted(_pairings(text, first, second)):
        if merged and start <= merged[-1][1]:
            # Pairings that overlap ("A, B and A") are one stretch.
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + _PAIRED + text[end:]
    return text


def _trigrams(text: str) -> list[tuple[str, ...]]:
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in _ARTICLES]
    return list(zip(words, words[1:], words[2:], strict=False))


def reverses_names(claim: str, evidence: str) -> bool:
    """Whether the claim, with two of the evidence's names swapped, copies the evidence's
    wording clearly better than as written ("ETON shall pay to Aucta" where the evidence
    has "Aucta shall pay to ETON"). Where the claim joins the two as a pair ("A and B") or
    a list, that stretch is left out of the comparison, so a list in another order passes
    while a swap elsewhere in the same claim ("NPC appoints NCB ... from NCB or NPC") is
    found; a paraphrase gains nothing from a swap, so it passes too."""
    names = _names(claim, evidence)
    if len(names) < 2 or _holds(_normalized(claim.strip().rstrip(".;:,")), _normalized(evidence)):
        return False
    written = set(_trigrams(evidence))
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if first in second or second in first:
                continue
            compared = _without_pairings(claim, first, second)
            as_written = sum(t in written for t in _trigrams(compared))
            swapped = sum(t in written for t in _trigrams(swap_names(compared, first, second)))
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


# Words of a claim and its evidence, in lower case, as the term comparison reads them.
_WORD = re.compile(r"[\w$%]+(?:['-][\w$%]+)*")
# Words that carry no term of their own: a claim that puts "will" for "shall", "its" for
# "their" or "the Party" for "such party" says the same thing. Not ``text.tokens.STOPWORDS``:
# that list holds "before", "after", "without", "more", whose swap changes the meaning.
_FUNCTION_WORDS = frozenset(
    "a an the this that these those such its it their they them his her he she we you your "
    "our us shall will may must can could would should is are be been being was were has have "
    "had do does of to in on at by for with from as and or nor not any all each either "
    "neither no which who whom whose what when where whether if than then there here "
    "hereunder thereof herein hereof said same other party parties".split()
)
# Numbers, which count as a replaced term only when the evidence states the one put in.
_NUMBER_WORD = re.compile(
    r"\d|^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|ninety|hundred|thousand|million|first|second|third)$"
)
# The longest term counted as one replacement ("security deposit", "Acme Widgets Inc."),
# and the longest name put for a name ("the People's Republic of China").
_TERM_WORDS = 3
_NAME_TERM_WORDS = 5
# Words the claim must copy around the term, and the share of its words they make: fewer,
# and the claim is the model's own sentence rather than the evidence's with one term changed.
_MIN_COPIED_WORDS = 5
_MIN_COPIED_SHARE = 0.7
# Words of the evidence kept on either side of the stretch the claim copies, so that the
# comparison sees the claim's first and last words against the evidence's own.
_WINDOW_MARGIN = 4


@functools.lru_cache(maxsize=32)
def _words(text: str) -> tuple[str, ...]:
    """The lower-case words of ``text``; cached, since every rule of
    :func:`copy_edit_reasons` and every sentence citing the same source reads its words."""
    return tuple(w.lower() for w in _WORD.findall(text.replace("\u2019", "'")))


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


# Endings that make another form of one word ("terminates", "termination", "paid" aside).
# Not ``text.tokens.stem``: it strips inflections only, so "termination" and "terminate"
# stay apart, and its final "e" rule makes "licensee" a prefix of "licensor".
_ENDINGS = ("ations", "ation", "ions", "ion", "ings", "ing", "ments", "ment", "ed", "es", "s", "e")


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def _same_stem(first: str, second: str) -> bool:
    """One word in two forms ("pays" and "pay", "terminated" and "termination", "renew"
    and "renewal"); "licensor" and "licensee" are two terms."""
    a, b = _stem(first), _stem(second)
    return a.startswith(b) or b.startswith(a)


# Prefixes that make a word its opposite: "exclusive" and "non-exclusive", "revocable" and
# "irrevocable", "refundable" and "non-refundable", "limited" and "unlimited".
_NEGATING_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il")
# The shortest word read as the stem of such an opposite ("in" + "to" is not one).
_MIN_NEGATED_WORD = 4


def _negated_by_prefix(first: str, second: str) -> bool:
    """Whether one word is the other with a negating prefix ("non-exclusive" for
    "exclusive", "irrevocable" for "revocable"): a "not" flipped inside one word."""
    short, long = sorted((first, second), key=len)
    return len(short) >= _MIN_NEGATED_WORD and any(
        long == prefix + short for prefix in _NEGATING_PREFIXES
    )


def _runs_on(text: str, before: str, after: str) -> bool:
    """Whether ``text`` writes the word ``after`` right after ``before`` in one sentence
    (no full stop, colon or semicolon between them)."""
    pattern = rf"\b{re.escape(before)}(\W+){re.escape(after)}\b"
    return any(
        not re.search(r"[.!?;:]", m.group(1))
        for m in re.finditer(pattern, text.replace("\u2019", "'"), re.IGNORECASE)
    )


def _as_written(text: str, words: tuple[str, ...]) -> str:
    """The words as ``text`` writes them (its capitals kept), or "" when it does not."""
    pattern = r"\b" + r"\W+".join(re.escape(w) for w in words) + r"\b"
    match = re.search(pattern, text.replace("\u2019", "'"), re.IGNORECASE)
    return match.group() if match else ""


def _defined_as(first: str, second: str, evidence: str) -> bool:
    """Whether the evidence defines one term as the other ('Acme Inc. ("Licensor")'), so
    that the claim may write either."""
    text = evidence.lower().replace("\u201c", '"').replace("\u201d", '"')
    for name, alias in ((first, second), (second, first)):
        pattern = (
            rf"\b{re.escape(name)}\b[^.;]{{0,80}}?\(\s*(?:the\s+|hereinafter\s+"
            rf"(?:called\s+|referred\s+to\s+as\s+)?)?[\"']+\s*{re.escape(alias)}\b"
        )
        if re.search(pattern, text):
            return True
    return False


def _named_within_a_sentence(name: str, evidence: str) -> bool:
    """Whether the evidence writes ``name`` with its capital after a word of the same
    sentence (so as a name, not only as a sentence's capitalized first word)."""
    return (
        re.search(rf"[a-z,;:(]\s+(?:the\s+)?{re.escape(name)}\b", evidence.replace("\u2019", "'"))
        is not None
    )


def replaced_term(claim: str, evidence: str) -> tuple[str, str] | None:
    """The term the claim puts in place of the evidence's own, as (claim's, evidence's),
    when the claim copies a stretch of the evidence word for word but for that one term
    (one to three words) and the term is either one the evidence uses elsewhere ("late fee"
    stated where the passage says "pet fee") or a name put in place of a name ("Gamma" for
    "Acme") or the evidence's own word turned to its opposite by a prefix ("non-exclusive"
    where the clause says "exclusive", "refundable" where it says "non-refundable"); else
    None.

    A term the evidence never uses, put for a common word, is a paraphrase ("ends" for
    "terminates") and is left to the other checks, as are function words ("will" for
    "shall"), one word in two forms, and a name the evidence defines as the other ('Acme
    Inc. ("Licensor")'). A number counts only when put for a number the evidence states
    elsewhere ("within 45 days" where the clause says 30 and another clause 45); any other
    is the number check's (``text.quantities``).
    """
    claim_words = _words(claim)
    evidence_words = _words(evidence)
    if len(claim_words) < _MIN_COPIED_WORDS + 1 or _contains(evidence_words, claim_words):
        return None
    anchor = SequenceMatcher(None, claim_words, evidence_words, autojunk=False)
    i, j, size = anchor.find_longest_match(0, len(claim_words), 0, len(evidence_words))
    if size < 3:
        return None
    start = max(0, j - i - _WINDOW_MARGIN)
    window = evidence_words[start : j + len(claim_words) - i + _WINDOW_MARGIN]
    ops = SequenceMatcher(None, claim_words, window, autojunk=False).get_opcodes()
    # Words only one side has at either end: the claim's own lead-in, the evidence's margin.
    while ops and ops[0][0] in ("insert", "delete"):
        ops = ops[1:]
    while ops and ops[-1][0] in ("insert", "delete"):
        ops = ops[:-1]
    changes = [op for op in ops if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] != "replace":
        return None
    _, c1, c2, e1, e2 = changes[0]
    put, own = claim_words[c1:c2], window[e1:e2]
    at_start, at_end = c1 == 0, c2 == len(claim_words)
    if at_start and not at_end:
        # The evidence's side runs back into the margin before the copied stretch: its own
        # term is the words next to that stretch, as many as the claim puts in.
        own = own[-len(put) :]
    elif at_end and not at_start:
        own = own[: len(put)]
    put_written, own_written = _as_written(claim, put), _as_written(evidence, own)
    a_name_for_a_name = put_written[:1].isupper() and own_written[:1].isupper()
    longest = _NAME_TERM_WORDS if a_name_for_a_name else _TERM_WORDS
    if len(put) > longest or len(own) > longest:
        return None
    copied = sum(op[2] - op[1] for op in ops if op[0] == "equal")
    if copied < _MIN_COPIED_WORDS or copied < _MIN_COPIED_SHARE * len(claim_words):
        return None
    put_terms = [w for w in put if w not in _FUNCTION_WORDS]
    own_terms = [w for w in own if w not in _FUNCTION_WORDS]
    if not put_terms or not own_terms:
        return None
    numbers = [bool(_NUMBER_WORD.search(w)) for w in put + own]
    if any(numbers) and not (all(numbers) and _contains(evidence_words, put)):
        # A number for a number the evidence states elsewhere ("45 days" where the clause
        # says "30 days" and another "45"); any other number is the number check's.
        return None
    put_text, own_text = " ".join(put), " ".join(own)
    if any(_negated_by_prefix(a, b) for a in put_terms for b in own_terms):
        return put_text, own_text
    if not all(numbers) and any(_same_stem(a, b) for a in put_terms for b in own_terms):
        return None
    if at_end and not (a_name_for_a_name and e1 > 0 and _runs_on(evidence, window[e1 - 1], own[0])):
        # Words the claim ends on may be its own addition ("... monthly in advance", "...
        # Oakwood Properties LLC" where the evidence's sentence ends before "LLC"); only a
        # name put for a name the same sentence goes on to counts there.
        return None
    if not _contains(evidence_words, put) and not (
        a_name_for_a_name and (not at_start or _named_within_a_sentence(own_written, evidence))
    ):
        # A term the evidence never uses counts only as a name put for a name. As the
        # claim's first word it is capitalized whatever it is, so there it counts only in
        # place of a name the evidence writes with a capital inside a sentence ("SHPS shall
        # have the right" against "... by Client. SHPS shall ..." and "fees payable to SHPS").
        return None
    if _defined_as(put_text, own_text, evidence):
        return None
    return put_text, own_text


# Words each part of a spliced claim must copy: fewer could be a common phrase.
_MIN_SPLICED_PART = 4
# The end may be shorter: it must also stand in the evidence after a cut the claim's
# opening does not continue ("... directly or indirectly controls" + "of this Agreement").
_MIN_SPLICED_END = 3
# Opening words of a short end's sentence that, found in the claim's opening, make the two
# parts statements of one subject ("The Tenant shall ..."), not a splice.
_SHARED_SUBJECT_WORDS = 3


def _longest_copied_opening(claim_words: tuple[str, ...], evidence_words: tuple[str, ...]) -> int:
    """How many of the claim's first words stand together in the evidence."""
    size = len(claim_words)
    while size > 0 and not _contains(evidence_words, claim_words[:size]):
        size -= 1
    return size


def spliced_sentences(claim: str, evidence: str) -> tuple[str, str] | None:
    """The two parts, as (opening, end), when the claim is the opening of one sentence of
    the evidence cut mid-way and joined to the end of another sentence begun mid-way
    ("Tenant shall pay a late fee of $50" + "for breaking the lease early"); else None.

    Every word stands in the evidence, and in its order within each part, so word checks
    pass it; the statement is in neither sentence. Two whole statements joined ("The term is
    five years; it renews for one year") are not a splice: the opening ends its sentence
    or the end begins one, and both are stated.
    """
    claim_words = _words(claim)
    evidence_words = _words(evidence)
    if len(claim_words) < 2 * _MIN_SPLICED_PART or _contains(evidence_words, claim_words):
        return None
    size = _longest_copied_opening(claim_words, evidence_words)
    opening, end = claim_words[:size], claim_words[size:]
    if size < _MIN_SPLICED_PART or len(end) < _MIN_SPLICED_END:
        return None
    if not _contains(evidence_words, end):
        return None
    sentences = [_words(sentence.text) for sentence in split_sentences(evidence)]
    if any(_contains(words, opening) and _contains(words, end) for words in sentences):
        return None
    for words in sentences:
        if words[-len(opening) :] == opening or words[: len(end)] == end:
            return None
        if (
            len(end) < _MIN_SPLICED_PART
            and _contains(words, end)
            and _contains(opening, words[:_SHARED_SUBJECT_WORDS])
        ):
            # A short end from a sentence that opens as the claim does ("The Tenant shall
            # pay rent by bank transfer" beside "The Tenant shall pay monthly rent of
            # $1,200") reads as two statements of one subject joined, each stated.
            return None
    return " ".join(opening), " ".join(end)


def copy_edit_reasons(claim: str, evidence: str) -> list[str]:
    """The reason codes of the edits :func:`reverses_names`, :func:`flips_negation`,
    :func:`replaced_term` and :func:`spliced_sentences` find in the claim (citation markers
    removed) against its cited evidence."""
    reasons: list[str] = []
    if reverses_names(claim, evidence):
        reasons.append("names_reversed")
    if flips_negation(claim, evidence):
        reasons.append("negation_flipped")
    if replaced_term(claim, evidence) is not None:
        reasons.append("term_replaced")
    if spliced_sentences(claim, evidence) is not None:
        reasons.append("sentences_spliced")
    return reasons

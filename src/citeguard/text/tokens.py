"""Tokens: normalization, stemming, token sets and overlap, shared by every layer.

Token normalization (used for every overlap in this package):

1. Unicode NFKC, curly quotes made straight, lower case.
2. Tokens are runs of letters and digits; a decimal point inside a number is kept
   ("3.2", "1250.50") and thousands separators are dropped ("1,000" -> "1000").
3. Single letters and the stopwords in :data:`STOPWORDS` are dropped. The list is English
   function words only (articles, pronouns, prepositions, conjunctions, auxiliary and
   modal verbs, question words, negation); domain words such as "agreement" or "party"
   are kept on purpose, since whether they are uninformative depends on the question,
   which the content-word check handles directly.
4. A light suffix stemmer joins inflections: plural -s/-es/-ies, -ed, -ing and a final -e
   ("terminate", "terminates", "terminated", "terminating" -> "terminat"). It does not
   touch derivations (-ion, -ment), which often change meaning in contracts.

"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from citeguard.text.citations import strip_citations

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    either few for from further had has have having he her here hers herself him himself
    his how i if in into is it its itself just may me might more most must my myself
    neither no nor not of off on once only or other our ours ourselves out over own same
    shall she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up upon very was we were what when
    where whether which while who whom whose why will with would you your yours yourself
    yourselves s t don isn aren wasn weren doesn didn won wouldn shouldn cannot can't
    per via within without among amongst any whatever whichever whoever
    """.split()
)
"""English function words ignored by every token set (see the module docstring)."""

_CURLY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "\u00a0": " "})
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
_VOWEL = re.compile(r"[aeiouy]")


def normalize_text(text: str) -> str:
    """NFKC, straight quotes, lower case, no thousands separators."""
    text = unicodedata.normalize("NFKC", text).translate(_CURLY).lower()
    return _THOUSANDS.sub("", text)


def stem(token: str) -> str:
    """Light inflectional stemmer (see the module docstring)."""
    if not token.isalpha() or len(token) <= 3:
        return token
    word = token
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        stem_part = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem_part) >= 3 and _VOWEL.search(stem_part):
            word = stem_part
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # transferred -> transfer
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Normalized content tokens of ``text`` in order (stopwords and single letters dropped)."""
    result = []
    for token in _TOKEN.findall(normalize_text(text)):
        token = token.rstrip(".")
        if token in STOPWORDS or (len(token) == 1 and token.isalpha()):
            continue
        result.append(stem(token))
    return result


def content_tokens(text: str) -> list[str]:
    """Alias of :func:`tokens`: the normalized content tokens of ``text``, in order."""
    return tokens(text)


def token_set(text: str) -> set[str]:
    """The normalized token set T of ``text`` (citation markers are not removed here)."""
    return set(tokens(text))


def sentence_token_set(sentence: str) -> set[str]:
    """T_s: the token set of an answer sentence with its citation markers removed."""
    return token_set(strip_citations(sentence))


def lexical_overlap(sentence: str, evidence: str) -> float:
    """|T_s ∩ T_e| / |T_s| (the paper's Overlap); 0.0 when T_s is empty."""
    sentence_tokens = sentence_token_set(sentence)
    if not sentence_tokens:
        return 0.0
    return len(sentence_tokens & token_set(evidence)) / len(sentence_tokens)


def coverage(words: Iterable[str], evidence_tokens: set[str]) -> float:
    """Share of ``words`` present in ``evidence_tokens``; 0.0 for no words."""
    words = set(words)
    if not words:
        return 0.0
    return len(words & evidence_tokens) / len(words)


def content_words_not_in_question(sentence: str, question: str) -> set[str]:
    """Tokens of the sentence (markers removed) that the question does not contain."""
    return sentence_token_set(sentence) - token_set(question)

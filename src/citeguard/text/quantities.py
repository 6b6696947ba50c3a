"""The quantities a sentence asserts: numbers, dates, amounts, percentages, durations.

Quantities (:func:`extract_quantities`) are numbers, dates, amounts, percentages and
durations with a normalized value, so that "thirty (30) days" and "30 days", "$1,000" and
"1000 dollars", "5%" and "five percent", "January 5, 2021" / "5th day of January, 2021" /
"01/05/2021" compare equal. Numeric dates are read in U.S. order (month/day/year), the
convention of the contracts this project reads. Units are not converted ("12 months" is
not "one year"): a sentence that converts must be caught by another check or a judge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from citeguard.text.citations import strip_citations
from citeguard.text.tokens import token_set

QuantityKind = Literal["date", "amount", "percentage", "duration", "number"]


@dataclass(frozen=True)
class Quantity:
    """A number-like claim found in text."""

    kind: QuantityKind
    value: str
    """Normalized: "1000" for an amount, "30 day" for a duration, "2021-01-05" (or
    "2021-01", "--01-05") for a date, "5" for a percentage or a number."""
    text: str
    start: int
    end: int


_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "thirtieth": 30,
}  # fmt: skip
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUMBER_WORD = rf"\b(?:{_alternation(list(_UNITS) + list(_SCALES))})\b"
_WORDS = rf"{_NUMBER_WORD}(?:(?:\s+|-)(?:and\s+)?{_NUMBER_WORD})*"
# A number as contracts write it: "thirty (30)", "30 (thirty)", "30", "thirty".
_NUMBER = (
    rf"(?:(?:{_WORDS})\s*\(\s*(?:{_DIGITS})\s*\)|(?:{_DIGITS})\s*\(\s*(?:{_WORDS})\s*\)"
    rf"|(?:{_DIGITS})|(?:{_WORDS}))"
)
_MULTIPLIER = r"(?:\s*(?:million|billion|thousand|mm|bn|m|k)\b)?"
_MONTH = rf"(?:{_alternation(_MONTHS)})\.?"
_ORDINAL_WORD = rf"(?:(?:twenty|thirty)-)?(?:{_alternation(_ORDINALS)})"
_DAY = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?|{_ORDINAL_WORD})"
_YEAR = r"(?:\d{4})"
_CURRENCY_BEFORE = r"(?:u\.?s\.?\s*\$|us\$|\$|usd|eur|€|£|gbp|cad|c\$|¥|jpy|rmb|cny)"
_CURRENCY_AFTER = r"(?:(?:u\.?s\.?\s+)?dollars?|usd|euros?|eur|pounds?(?:\s+sterling)?|gbp|yen|rmb)"
_DURATION_UNIT = (
    r"(?:calendar\s+|business\s+|working\s+|consecutive\s+|full\s+)?"
    r"(?P<unit>day|week|month|year|hour|minute)s?'?"
)

_QUANTITY = re.compile(
    rf"""
      (?P<date_mdy>(?P<m1>{_MONTH})\s+(?P<d1>{_DAY}),?\s+(?P<y1>{_YEAR}))
    | (?P<date_dmy>(?:the\s+)?(?P<d2>{_DAY})\s+(?:day\s+of\s+)?(?P<m2>{_MONTH}),?\s+(?P<y2>{_YEAR}))
    | (?P<date_numeric>(?P<n1>\d{{1,2}})[/.-](?P<n2>\d{{1,2}})[/.-](?P<n3>\d{{4}}|\d{{2}})(?!\d))
    | (?P<date_iso>(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d))
    | (?P<date_dm>(?:the\s+)?(?P<d3>{_DAY})\s+day\s+of\s+(?P<m3>{_MONTH}))
    | (?P<date_md>(?P<m4>{_MONTH})\s+(?P<d4>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[,.]?\s*\d))
    | (?P<date_my>(?P<m5>{_MONTH}),?\s+(?P<y5>{_YEAR}))
    | (?P<amount_before>{_CURRENCY_BEFORE}\s*(?P<a1>{_NUMBER}){_MULTIPLIER})
    | (?P<amount_after>(?P<a2>{_NUMBER}){_MULTIPLIER}\s*{_CURRENCY_AFTER}\b)
    | (?P<percentage>(?P<p>{_NUMBER})\s*(?:%|percent\b|per\s+cent\b|percentage\s+points?\b))
    | (?P<duration>(?P<t>{_NUMBER})(?:\s+|-){_DURATION_UNIT}\b)
    | (?P<number>{_DIGITS}|{_WORDS})
    """,
    re.VERBOSE | re.IGNORECASE,
)


def _words_value(text: str) -> int | None:
    total, current = 0, 0
    seen = False
    for word in re.findall(r"[a-z]+", text.lower()):
        if word == "and":
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def _decimal_text(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _number_value(text: str) -> Decimal | None:
    """Value of a number as written: digits win over words ("thirty (30)" -> 30)."""
    digits = re.search(_DIGITS, text)
    if digits:
        try:
            return Decimal(digits.group(0).replace(",", ""))
        except InvalidOperation:
            return None
    words = _words_value(text)
    return Decimal(words) if words is not None else None


def _with_multiplier(value: Decimal, written: str) -> Decimal:
    tail = written.lower().rstrip()
    for suffix, factor in (
        ("million", 10**6), ("billion", 10**9), ("thousand", 1000), ("mm", 10**6),
        ("bn", 10**9), ("m", 10**6), ("k", 1000),
    ):  # fmt: skip
        if re.search(rf"\d\s*{suffix}$|\s{suffix}$", tail):
            return value * factor
    return value


def _day_value(text: str) -> int | None:
    text = text.lower()
    digits = re.match(r"\d{1,2}", text)
    if digits:
        return int(digits.group(0))
    total = 0
    for part in text.split("-"):
        if part in _ORDINALS:
            total += _ORDINALS[part]
        elif part in _UNITS:
            total += _UNITS[part]
        else:
            return None
    return total


def _month_value(text: str) -> int:
    return _MONTHS[text.lower().rstrip(".")]


def _iso(year: int | None, month: int | None, day: int | None) -> str | None:
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and not 1 <= day <= 31:
        return None
    if year is not None and month is not None and day is not None:
        return f"{year:04d}-{month:02d}-{day:02d}"
    if year is not None and month is not None:
        return f"{year:04d}-{month:02d}"
    if month is not None and day is not None:
        return f"--{month:02d}-{day:02d}"
    return None


def _date_value(match: re.Match[str]) -> str | None:
    group = match.lastgroup
    g = match.group
    if group == "date_mdy":
        return _iso(int(g("y1")), _month_value(g("m1")), _day_value(g("d1")))
    if group == "date_dmy":
        return _iso(int(g("y2")), _month_value(g("m2")), _day_value(g("d2")))
    if group == "date_numeric":
        year = int(g("n3"))
        if year < 100:
            year += 2000 if year < 70 else 1900
        return _iso(year, int(g("n1")), int(g("n2")))
    if group == "date_iso":
        return _iso(int(g("iy")), int(g("im")), int(g("id")))
    if group == "date_dm":
        return _iso(None, _month_value(g("m3")), _day_value(g("d3")))
    if group == "date_md":
        return _iso(None, _month_value(g("m4")), _day_value(g("d4")))
    if group == "date_my":
        return _iso(int(g("y5")), _month_value(g("m5")), None)
    return None


def extract_quantities(text: str) -> list[Quantity]:
    """Dates, amounts, percentages, durations and numbers in ``text``, in order.

    Citation markers should be removed first (:func:`strip_citations`), or "[1]" counts as
    the number 1. "one" on its own is not a quantity ("one of the parties"); inside a
    duration or amount it is ("one (1) year").
    """
    found: list[Quantity] = []
    for match in _QUANTITY.finditer(text):
        group = match.lastgroup or ""
        written = match.group(0)
        start, end = match.start(), match.end()
        value: str | None = None
        kind: QuantityKind
        if group.startswith("date_"):
            kind = "date"
            value = _date_value(match)
        elif group.startswith("amount_"):
            kind = "amount"
            number = _number_value(match.group("a1") or match.group("a2") or "")
            if number is not None:
                value = _decimal_text(_with_multiplier(number, written.split("(")[0]))
        elif group == "percentage":
            kind = "percentage"
            number = _number_value(match.group("p"))
            value = _decimal_text(number) if number is not None else None
        elif group == "duration":
            kind = "duration"
            number = _number_value(match.group("t"))
            unit = match.group("unit").lower()
            value = f"{_decimal_text(number)} {unit}" if number is not None else None
        else:
            kind = "number"
            if written.strip().lower() == "one":
                continue
            number = _number_value(written)
            value = _decimal_text(number) if number is not None else None
        if value is not None:
            found.append(Quantity(kind, value, written, start, end))
    return found


def _atoms(quantity: Quantity) -> set[str]:
    """Bare numeric values a quantity contributes (for matching a plain number)."""
    if quantity.kind == "duration":
        return {quantity.value.split()[0]}
    if quantity.kind == "date":
        parts = [p for p in quantity.value.split("-") if p]
        return {str(int(p)) for p in parts}
    return {quantity.value}


def _dates_agree(claim: str, evidence: str) -> bool:
    """Equal, or one is a partial date (year-month, month-day) consistent with the other."""
    if claim == evidence:
        return True
    if claim.startswith("--") or evidence.startswith("--"):
        return claim[-5:] == evidence[-5:] and len(claim) >= 7 and len(evidence) >= 7
    return evidence.startswith(claim) or claim.startswith(evidence)


def quantity_supported(claim: Quantity, evidence: Sequence[Quantity]) -> bool:
    """Whether ``claim`` (from a sentence) is stated by some quantity of the evidence.

    Same kind and value always match. Dates also match a consistent partial date. Amounts
    and percentages also match a bare number of the same value (the currency or "%" may sit
    in a table header). A bare number matches any quantity containing it (a year in a
    date, the count in a duration). Durations need the same count and unit.
    """
    for item in evidence:
        if claim.kind == "date":
            if item.kind == "date" and _dates_agree(claim.value, item.value):
                return True
        elif claim.kind == "duration":
            if item.kind == "duration" and item.value == claim.value:
                return True
        elif claim.kind in ("amount", "percentage"):
            if item.kind in (claim.kind, "number") and item.value == claim.value:
                return True
        elif claim.value in _atoms(item):
            return True
    return False


def supported_quantity_tokens(sentence: str, evidence: str) -> set[str]:
    """Tokens of the sentence's quantities that ``evidence`` states, in any format.

    "August 4, 2010" is stated by "8/4/10": its words ("august", "4", "2010") are backed
    by the quantity check, so a word check must not count them as missing.
    """
    return stated_quantity_tokens(extract_quantities(strip_citations(sentence)), evidence)


def stated_quantity_tokens(claimed: Sequence[Quantity], evidence: str) -> set[str]:
    """:func:`supported_quantity_tokens` for quantities already extracted from a sentence,
    for a caller that reads one sentence against many evidence texts (``evidence`` is not
    read when nothing is claimed)."""
    if not claimed:
        return set()
    evidence_quantities = extract_quantities(evidence)
    words: set[str] = set()
    for quantity in claimed:
        if quantity_supported(quantity, evidence_quantities):
            words |= token_set(quantity.text)
    return words


def unsupported_quantities(sentence: str, evidence: str) -> list[Quantity]:
    """Quantities of ``sentence`` (markers removed) that ``evidence`` does not state."""
    evidence_quantities = extract_quantities(evidence)
    return [
        quantity
        for quantity in extract_quantities(strip_citations(sentence))
        if not quantity_supported(quantity, evidence_quantities)
    ]

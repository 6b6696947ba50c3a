"""The checks of one answer sentence against the sources it cites.

:func:`check_sentence` applies the level's checks (:mod:`.validator` describes them) and
writes the feedback line that tells the regeneration what to fix.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence

import numpy as np

from citeguard.text.citations import CitationMarker, parse_citations, strip_citations
from citeguard.text.passages import blank_html_comments
from citeguard.text.quantities import supported_quantity_tokens, unsupported_quantities
from citeguard.text.questions import is_yes_no_question
from citeguard.text.refusal import is_refusal
from citeguard.text.sentences import Sentence
from citeguard.text.tokens import (
    content_words_not_in_question,
    coverage,
    lexical_overlap,
    sentence_token_set,
    token_set,
)
from citeguard.validate.copy_edits import copy_edit_reasons
from citeguard.validate.focus import claim_focused_source
from citeguard.validate.settings import EPSILON, ValidationSettings
from citeguard.validate.verdicts import (
    INFORMATIONAL_REASONS,
    REASON_TEXT,
    CitationRepair,
    SentenceVerdict,
)

# A sentence that opens on the word, lead or determiner: "No party may assign this
# Agreement" answers "May a party assign this Agreement?" in the question's own words.
_OPENS_ON_YES_OR_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
# A "Yes"/"No" lead on a statement: "Yes, ...", "No: ...", "No - ...", "No it may not". Not
# the determiner "no" that opens many a clause: "No animals may be kept ...", "No-charge
# services ..." (a clause quoted word for word, not a lead on something else).
_YES_NO_LEAD = re.compile(
    r"^\W*(?:yes(?![-\w])|no(?=\s*(?:[,.;:!\[]|$)|\s+[-\u2013\u2014]|"
    r"\s+(?:the|a|an|it|its|they|there|this|that|these|those|he|she|we|you|i)\b))",
    re.IGNORECASE,
)
_YES_NO_WORDS = frozenset({"yes", "no"})

# How a yes/no question asks, not what it is about: "Is consent required?" is answered by
# "may not assign without consent", which never says "required"; "Does the lease provide
# for a deposit?" by "Tenant shall pay a deposit".
_ASKING_WORDS = frozenset(
    token_set(
        "require required requires requirement permit permitted permits allow allowed allows "
        "entitled obligated obliged oblige must may can shall need needed needs able "
        "provide provides provided contain contains include includes"
    )
)

# A pointer to another place in the document instead of the fact itself ("effective on the
# date first above written", "the fees set forth below"): grounded words, but no answer.
# "Herein" alone ("subject to the terms set forth herein") means "in this agreement":
# legal drafting, not a pointer; 59 of cuad-train's 4,857 answerable questions have a gold
# clause that says it, and quoting one must not fail.
_REFERS_ELSEWHERE = re.compile(
    r"\b(?:(?:first\s+)?(?:above|below)[-\s](?:written|mentioned|stated|set\s+forth)"
    r"|(?:written|set\s+forth|stated|given|specified|indicated|shown|mentioned|appearing"
    r"|signed|executed)"
    r"\s+(?:first\s+)?(?:above|below|hereinabove|hereinbelow)"
    r"|at\s+the\s+(?:beginning|top|end)\s+of\s+this\s+(?:agreement|document|contract|lease))\b",
    re.IGNORECASE,
)


# A sentence that stops mid-phrase before its marker ("expires on the date this Agreement
# is signed by the last signatory, which is [2]."): the grammar makes the model close every
# sentence with a marker, and a model that has run out of words closes it anywhere.
# Lower case only, after a space: "Schedule A [2]." and "Section 2(a) [1]." are complete.
# A colon before the marker announces a list that never came ("within the following
# territories: [3].").
_ENDS_MID_PHRASE = re.compile(
    r"(\s(a|an|the|of|and|or|but|which|whose|is|are|was|were|be|been|than|"
    r"after|before|on|in|at|to|for|with|from|by|under|within|until|upon)|:)\s*\.?\s*$"
)


# A claim about what the document leaves out ("The lease does not explicitly mention a
# parking space, but ...", "The notice period is not specified"): silence cannot be cited,
# and the first such sentence seen passed every word check beside a clause that did
# mention the parking space. Verbs about what a text says only: "does not include
# utilities" or "does not permit assignment" can be what a clause states.
_TEXT_VERBS = (
    r"mention|specify|state|say|address|discuss|reference|refer\s+to|indicate|describe|"
    r"detail|list|define|clarify|(?:contain|provide|give|offer|include)\s+(?:any\s+)?"
    r"(?:specific\s+|explicit\s+)?(?:mention|information|reference|details?)"
)
_TEXT_VERBS_PASSIVE = r"mentioned|specified|stated|addressed|discussed|referenced|described|defined"
_CLAIMS_ABSENCE = re.compile(
    r"\b(?:does|do|did)\s*(?:not|n't)\s+(?:\w+ly\s+)?(?:" + _TEXT_VERBS + r")\b"
    r"|\b(?:is|are|was|were)\s*(?:not|n't)\s+(?:\w+ly\s+)?(?:" + _TEXT_VERBS_PASSIVE + r")\b"
    r"|\b(?:no|without\s+any|makes\s+no)\s+(?:\w+\s+)?(?:mention|reference)\s+(?:of|to)\b",
    re.IGNORECASE,
)


def claims_absence(claim: str) -> bool:
    """Whether the sentence says what the document does not mention, state or specify."""
    return bool(_CLAIMS_ABSENCE.search(claim))


def ends_mid_phrase(claim: str) -> bool:
    """Whether the sentence (citations removed) ends on an article, conjunction, "is", a
    preposition or a colon: "expires after [4]." stops before what it was about to say."""
    # "expires after [4]. years thereafter [3]." is one sentence to the splitter (the
    # next word is lower case): check where each part stops.
    parts = re.split(r"\.\s+(?=[a-z])", claim)
    return any(_ENDS_MID_PHRASE.search(part) for part in parts)


def refers_elsewhere(sentence: str) -> bool:
    """Whether the sentence points to another part of the document instead of stating it."""
    return bool(_REFERS_ELSEWHERE.search(sentence))


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cosines(vectors: np.ndarray, sentence_row: int, source_rows: Sequence[int]) -> float:
    sentence = vectors[sentence_row]
    best = -1.0
    for row in source_rows:
        source = vectors[row]
        norm = float(np.linalg.norm(sentence) * np.linalg.norm(source))
        if norm > 0:
            best = max(best, float(np.dot(sentence, source)) / norm)
    return best


class CheckInputs:
    """What every sentence's check needs, computed once per answer."""

    def __init__(
        self,
        sources: Sequence[str],
        question: str,
        settings: ValidationSettings,
        vectors: np.ndarray | None,
        judge: Callable[[str, str], float] | None,
    ) -> None:
        self.sources = list(sources)
        self.question = question
        self.settings = settings
        self.source_tokens = [token_set(source) for source in self.sources]
        self.vectors = vectors
        self.judge = judge

    def evidence(self, cited: Sequence[int]) -> str:
        return "\n".join(self.sources[n - 1] for n in cited)

    def judge_evidence(self, claim: str, cited: Sequence[int]) -> str:
        """What the judge reads: each cited source focused on the claim."""
        budget = self.settings.judge_evidence_words
        return "\n".join(claim_focused_source(claim, self.sources[n - 1], budget) for n in cited)

    def evidence_tokens(self, cited: Sequence[int]) -> set[str]:
        tokens: set[str] = set()
        for n in cited:
            tokens |= self.source_tokens[n - 1]
        return tokens


def _cited_sources(markers: Sequence[CitationMarker]) -> list[int]:
    cited: list[int] = []
    for marker in markers:
        if marker.kind == "citation" and marker.valid and marker.sources[0] not in cited:
            cited.append(marker.sources[0])
    return cited


def _repair(claim: str, cited: list[int], ctx: CheckInputs) -> CitationRepair | None:
    """Strict (c): a clearly better source than the cited one(s), if there is one."""
    # "Yes"/"No" are in no source: left in, they would make a restated-question answer
    # ("Yes, <the question's words> [4].") unrepairable.
    words = (content_words_not_in_question(claim, ctx.question) - _YES_NO_WORDS) or (
        sentence_token_set(claim) - _YES_NO_WORDS
    )
    if not words:
        return None
    cited_share = coverage(words, ctx.evidence_tokens(cited))
    if unsupported_quantities(claim, ctx.evidence(cited)):
        # The sentence's numbers decide where it comes from: a source stating all of them
        # that the cited one lacks wins without the word margin ("$2 million ... $5
        # million" copied from [3] but cited [1], whose clause says "$1 million").
        stating_all = [
            number
            for number, source in enumerate(ctx.sources, start=1)
            if number not in cited and not unsupported_quantities(claim, source)
        ]
        shares = {n: coverage(words, ctx.source_tokens[n - 1]) for n in stating_all}
        if shares:
            best = max(shares, key=shares.__getitem__)
            if shares[best] + EPSILON >= cited_share:
                return CitationRepair(list(cited), [best], cited_share, shares[best])
    best_index, best_share = 0, -1.0
    for number, tokens in enumerate(ctx.source_tokens, start=1):
        if number in cited:
            continue
        share = coverage(words, tokens)
        if share > best_share:
            best_index, best_share = number, share
    if best_index and best_share + EPSILON >= cited_share + ctx.settings.repair_margin:
        return CitationRepair(list(cited), [best_index], cited_share, best_share)
    return None


def _backed_tokens(claim: str, cited: Sequence[int], ctx: CheckInputs) -> set[str]:
    """The cited evidence's tokens, plus the claim's words of quantities it states.

    A number stated in another format ("August 4, 2010" for "8/4/10") counts as present.
    """
    return ctx.evidence_tokens(cited) | supported_quantity_tokens(claim, ctx.evidence(cited))


def _yes_no_terms_missing(claim: str, evidence_tokens: set[str], question: str) -> set[str]:
    """The question's words that a yes/no answer repeats and its cited source lacks.

    "Yes, a party may terminate for convenience [3]." asserts the question's own terms;
    when source 3 never says "convenience", the sentence claims what the source does not
    (an absent clause answered "Yes", or "No" concluded from silence).
    """
    return (sentence_token_set(claim) & token_set(question)) - evidence_tokens - _ASKING_WORDS


def _strict_reasons(
    claim: str, cited: list[int], ctx: CheckInputs
) -> tuple[list[str], float | None]:
    """Strict checks (a) and (b) against the cited evidence."""
    reasons: list[str] = []
    evidence = ctx.evidence(cited)
    evidence_tokens = _backed_tokens(claim, cited, ctx)
    new_words = content_words_not_in_question(claim, ctx.question) - {"yes"}
    yes_no_question = is_yes_no_question(ctx.question)
    yes_no_answer = yes_no_question and bool(_OPENS_ON_YES_OR_NO.match(claim))
    support: float | None = None
    if new_words:
        support = coverage(new_words, evidence_tokens)
        if support + EPSILON < ctx.settings.content_support_threshold:
            reasons.append("content_not_in_evidence")
    elif yes_no_answer:
        # The yes/no exemption: "Yes, ... [1]." to "Is there ...?" adds no words of its
        # own; it needs evidence about the question's subject. Lexical checks cannot tell
        # "Yes" from "No": the judge level can.
        on_topic = coverage(token_set(ctx.question), evidence_tokens)
        if on_topic + EPSILON < ctx.settings.yes_no_question_coverage:
            reasons.append("yes_no_unsupported")
    else:
        reasons.append("restates_question")
    if _YES_NO_LEAD.match(claim) and not (sentence_token_set(claim) - _YES_NO_WORDS) & token_set(
        ctx.question
    ):
        # "Yes: <a sentence about something else>" answers nothing: a yes/no answer must
        # speak about the question's subject.
        reasons.append("yes_no_off_topic")
    if yes_no_question and _yes_no_terms_missing(claim, evidence_tokens, ctx.question):
        # Any answer to a yes/no question, with or without a "Yes"/"No" lead: "The
        # agreement provides for liquidated damages [2]." asserts the question's terms too.
        reasons.append("yes_no_terms_not_in_evidence")
    if unsupported_quantities(claim, evidence):
        reasons.append("number_not_in_evidence")
    if refers_elsewhere(claim):
        reasons.append("refers_elsewhere")
    reasons.extend(copy_edit_reasons(claim, evidence))
    if claims_absence(claim) and not is_verbatim(claim, evidence):
        # A clause's own "unless otherwise specified" quoted word for word is its text.
        reasons.append("claims_absence")
    if ends_mid_phrase(claim):
        reasons.append("incomplete_sentence")
    return reasons, support


def _feedback(
    index: int,
    verdict: SentenceVerdict,
    markers: Sequence[CitationMarker],
    claim: str,
    ctx: CheckInputs,
) -> str:
    k = len(ctx.sources)
    parts: list[str] = []
    for reason in verdict.reasons:
        if reason in INFORMATIONAL_REASONS:
            continue
        if reason == "invalid_citation":
            bad = ", ".join(m.text for m in markers if m.kind == "citation" and not m.valid)
            parts.append(f"cites {bad}, but only sources [1]..[{k}] exist")
        elif reason == "malformed_citation":
            bad = ", ".join(f"{m.text} ({m.problem})" for m in markers if m.kind == "malformed")
            parts.append(f"uses {bad}")
        elif reason == "placeholder":
            bad = ", ".join(m.text for m in markers if m.kind == "placeholder")
            parts.append(f"contains the placeholder {bad}; write the actual value from the sources")
        elif reason == "content_not_in_evidence":
            tokens = _backed_tokens(claim, verdict.cited_sources, ctx)
            missing = sorted(content_words_not_in_question(claim, ctx.question) - tokens)
            cited = "".join(f"[{n}]" for n in verdict.cited_sources)
            parts.append(
                f"says things source {cited} does not state (words not found: "
                f"{', '.join(missing[:8])})"
            )
        elif reason == "yes_no_terms_not_in_evidence":
            tokens = _backed_tokens(claim, verdict.cited_sources, ctx)
            missing = sorted(_yes_no_terms_missing(claim, tokens, ctx.question))
            cited = "".join(f"[{n}]" for n in verdict.cited_sources)
            parts.append(
                f"answers yes/no about {', '.join(missing[:8])}, which source {cited} does "
                "not mention; answer only from what a source says, or answer with the refusal"
            )
        elif reason == "number_not_in_evidence":
            missing_q = unsupported_quantities(claim, ctx.evidence(verdict.cited_sources))
            cited = "".join(f"[{n}]" for n in verdict.cited_sources)
            quantities = ", ".join(f'"{q.text}"' for q in missing_q)
            parts.append(f"states {quantities}, which source {cited} does not contain")
        else:
            parts.append(REASON_TEXT.get(reason, reason))
    written = verdict.original_text or verdict.text
    return f'Sentence {index} ("{_short(written)}") ' + "; ".join(parts) + "."


def check_sentence(
    index: int, sentence: Sentence, row: int, n_sentences: int, ctx: CheckInputs
) -> SentenceVerdict:
    settings = ctx.settings
    k = len(ctx.sources)
    markers = parse_citations(sentence.text, k)
    citations = [m for m in markers if m.kind == "citation"]
    malformed = [m for m in markers if m.kind == "malformed"]
    claim = strip_citations(sentence.text)
    cited = _cited_sources(markers)
    placeholders = unfilled_placeholders(markers, claim, cited, ctx)
    reasons: list[str] = []

    if n_sentences > 1 and is_refusal(sentence.text):
        reasons.append("mixed_refusal")
    if not citations and not malformed:
        reasons.append("no_citation")
    if any(not m.valid for m in citations):
        reasons.append("invalid_citation")
    if malformed:
        reasons.append("malformed_citation")
    if placeholders:
        reasons.append("placeholder")
    citation_valid = bool(citations) and not malformed and all(m.valid for m in citations)

    repair: CitationRepair | None = None
    if settings.level != "paper" and citation_valid:
        repair = _repair(claim, cited, ctx)
        if repair is not None:
            reasons.append("better_source_available")
            cited = list(repair.to_sources)

    lexical: float | None = None
    semantic: float | None = None
    support: float | None = None
    judge_score: float | None = None
    if cited:
        evidence = ctx.evidence(cited)
        lexical = lexical_overlap(claim, evidence)
        if ctx.vectors is not None:
            semantic = _cosines(ctx.vectors, row, [n - 1 + n_sentences for n in cited])
        lexical_ok = lexical + EPSILON >= settings.lexical_threshold
        semantic_ok = semantic is not None and semantic + EPSILON >= settings.semantic_threshold
        if not sentence_token_set(claim):
            reasons.append("no_content")
        if not (lexical_ok or semantic_ok):
            reasons.append("lexical_below_threshold")
            if semantic is not None:
                reasons.append("semantic_below_threshold")
        if settings.level != "paper":
            strict_reasons, support = _strict_reasons(claim, cited, ctx)
            reasons.extend(strict_reasons)

    failing = [r for r in reasons if r not in INFORMATIONAL_REASONS]
    quoted = settings.quotes_are_supported and cited and is_verbatim(claim, ctx.evidence(cited))
    if (
        settings.level == "judge"
        and ctx.judge is not None
        and citation_valid
        and not failing
        and not quoted
    ):
        judge_score = float(ctx.judge(claim, ctx.judge_evidence(claim, cited)))
        if judge_score + EPSILON < settings.judge_threshold:
            reasons.append("judge_unsupported")
            failing.append("judge_unsupported")

    delivered_text = sentence.text
    if repair is not None:
        delivered_text = _rewrite_markers(sentence.text, repair.to_sources, k)
    verdict = SentenceVerdict(
        text=delivered_text,
        start=sentence.start,
        end=sentence.end,
        markers=[m.text for m in markers],
        cited_sources=cited,
        citation_valid=citation_valid,
        lexical_score=lexical,
        semantic_score=semantic,
        judge_score=judge_score,
        content_support=support,
        supported=citation_valid and not failing,
        reasons=reasons,
        repaired_citation=repair,
        original_text=sentence.text if repair is not None else None,
    )
    if not verdict.supported:
        verdict.feedback = _feedback(index, verdict, markers, claim, ctx)
    return verdict


def unfilled_placeholders(
    markers: Sequence[CitationMarker], claim: str, cited: Sequence[int], ctx: CheckInputs
) -> list[CitationMarker]:
    """The template blanks of ``markers`` ("[n]", "[date]", "[·]") that the answer left
    unfilled. A claim that stands word for word in its ``cited`` sources has none: a blank
    it holds is the document's own ("effective as of the [·] day of [·], 2019" in a
    contract filed unsigned), quoted as the document states it."""
    blanks = [m for m in markers if m.kind == "placeholder"]
    if blanks and cited and is_verbatim(claim, ctx.evidence(cited)):
        return []
    return blanks


def is_verbatim(claim: str, evidence: str) -> bool:
    """``claim`` (citation markers removed) stands word for word in ``evidence``: same
    words in the same order, whitespace and letter case aside.

    The claim's closing punctuation is not required (a quoted heading or list item has
    none in the document, and the answer's sentence closes with ``[n].``), but then the
    quote must end where the document's phrase ends: at punctuation, a closing bracket or
    quote mark, a line break or the end of the evidence. A quote cut before "only with
    consent" is not verbatim. An HTML comment in the evidence is read as whitespace
    (``text.passages.blank_html_comments``): a quote of a lead-in and the list after it
    leaves out the comment a Markdown file put between them.
    """
    body = claim.strip().rstrip(".;:,").rstrip()
    tokens = re.findall(r"\w+|[^\w\s]", body)
    if not tokens:
        return False
    # Word tokens are apart by whitespace; punctuation may or may not be ("MAY , 2010" in
    # the document is "MAY, 2010" once the answer's markers are removed).
    pattern = r"(?<!\w)" + re.escape(tokens[0])
    for before, token in itertools.pairwise(tokens):
        apart = r"\s+" if before[-1].isalnum() and token[0].isalnum() else r"\s*"
        pattern += apart + re.escape(token)
    pattern += r"(?=[ \t]*(?:[.;:,!?)\]\"'\n]|$))"
    return re.search(pattern, blank_html_comments(evidence), flags=re.IGNORECASE) is not None


def _rewrite_markers(sentence: str, to_sources: Sequence[int], k: int) -> str:
    """Replace a sentence's citation markers by the repaired one(s), where the first was."""
    new_marker = "".join(f"[{n}]" for n in to_sources)
    pieces: list[str] = []
    cursor = 0
    placed = False
    for marker in parse_citations(sentence, k):
        if marker.kind != "citation":
            continue
        before = sentence[cursor : marker.start]
        if placed:
            before = before.rstrip(" ")
        pieces.append(before)
        if not placed:
            pieces.append(new_marker)
            placed = True
        cursor = marker.end
    pieces.append(sentence[cursor:])
    return "".join(pieces)

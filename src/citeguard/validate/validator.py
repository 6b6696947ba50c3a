"""Sentence-level validation of a candidate answer against its numbered sources.

Levels (each includes the one before):

``paper``
    The paper's rule. A sentence is supported when its citation is valid (at least one
    marker, every marker a single ``[n]`` with 1 <= n <= k) AND its lexical overlap with
    the cited evidence is >= ``lexical_threshold`` (0.10) OR the embedding cosine is >=
    ``semantic_threshold`` (0.40). A sentence without a citation is unsupported.
``strict``
    Paper, plus three checks that catch what a 0.10 overlap lets through:

    (a) *New content.* The sentence's content words that are not in the question must be
        found in the cited evidence (share >= ``content_support_threshold`` = 0.5, i.e. a
        majority), and there must be at least one: a sentence that only restates the
        question says nothing ("restates_question"). Yes/no exemption, for yes/no
        questions only ("Is ...?", "Can ...?", see :mod:`citeguard.text.questions`): a sentence
        starting with "Yes"/"No" whose only other words come from the question passes (a)
        when the cited source contains at least ``yes_no_question_coverage`` (0.5) of the
        question's content words, i.e. the source is about what was asked. Word checks
        cannot tell "Yes" from "No"; the judge level can.
        A sentence that opens with "Yes"/"No" must also share at least one content word
        with the question ("yes_no_off_topic"): "Yes: Title: CEO [2]." answers nothing.
        Any sentence answering a yes/no question, with or without the lead, must find its
        words taken from the question in the cited source, asking words ("required",
        "may", "provide", ...) aside ("yes_no_terms_not_in_evidence"): "Yes, a party may
        terminate for convenience [3]." needs a source that speaks of convenience.
        The words of a quantity the evidence states in another format count as found
        ("August 4, 2010" for "8/4/10").
    (b) *Quantities.* Every number, date, amount, percentage and duration in the sentence
        must be stated by the cited evidence (see :mod:`citeguard.text.tokens`).
        A sentence that points elsewhere instead of stating the fact ("effective on the
        date first above written", "the fees set forth below") fails ("refers_elsewhere"),
        and so does one that stops mid-phrase ("..., which is [2].", "incomplete_sentence").
    (c) *Best source.* If another given source covers the sentence's words better than the
        cited one(s) by at least ``repair_margin`` (0.25 of the words, a clear margin that
        overlapping chunks never reach), the citation is repaired to that source, the
        repair is recorded, and the sentence is judged against the repaired source. When
        the cited source lacks one of the sentence's quantities and another source states
        them all, that source wins without the margin if its words cover the sentence at
        least as well. "Yes"/"No" never count as words here.
``judge``
    Strict, plus ``judge(sentence, cited evidence) >= judge_threshold`` (0.5: the judge
    returns P(supported), and 0.5 is the decision boundary of a calibrated probability).
    The judge is only asked about sentences that passed every other check, and reads the
    cited sources whole (``judge_evidence_words`` > 0 narrows them to the sentences
    sharing most of the claim's words: faster, but more lenient).
    With ``relevance_check`` on, an answer whose sentences all pass must also cite a source
    that answers the question: ``relevance(question, source) >= judge_threshold`` for at
    least one cited source, else "sources_do_not_answer_question". Support alone lets
    through a true statement about something else ("a late fee of $75" for a question
    about a fee to end the lease early).

Placeholders ("[date]", "[n]") fail at every level. Thresholds are compared with ``>=``
(a score exactly at the threshold passes).

A refusal is detected with :func:`citeguard.text.refusal.is_refusal`; with
``challenge_refusals`` on, it fails when :func:`refusal_despite_strong_evidence` finds a
source that plainly covers the question.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from citeguard.text.questions import is_yes_no_question
from citeguard.text.citations import CitationMarker, parse_citations, strip_citations
from citeguard.validate.focus import claim_focused_source
from citeguard.text.tokens import content_words_not_in_question, coverage, lexical_overlap, sentence_token_set, token_set
from citeguard.text.quantities import supported_quantity_tokens, unsupported_quantities
from citeguard.text.refusal import is_refusal
from citeguard.text.sentences import Sentence, split_sentences

logger = logging.getLogger(__name__)

ValidationLevel = Literal["paper", "strict", "judge"]
EmbedFn = Callable[[Sequence[str]], np.ndarray]
JudgeFn = Callable[[str, str], float]
RelevanceFn = Callable[[str, str], float]
"""P(the evidence answers the question) for (question, evidence)."""

# Float scores such as 3/30 are compared to thresholds such as 0.10 with this tolerance,
# so that "exactly at the threshold" passes whatever the rounding.
_EPSILON = 1e-9

# Reasons that record something without making the sentence unsupported.
INFORMATIONAL_REASONS = frozenset({"better_source_available"})

_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
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
_REFERS_ELSEWHERE = re.compile(
    r"\b(?:(?:first\s+)?(?:above|below)[-\s](?:written|mentioned|stated|set\s+forth)"
    r"|(?:written|set\s+forth|stated|given|specified|indicated|shown|mentioned|appearing"
    r"|signed|executed)"
    r"\s+(?:first\s+)?(?:above|below|hereinabove|hereinbelow|herein)"
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


@dataclass(frozen=True)
class ValidationSettings:
    """Thresholds of the validator (see the module docstring for what each level checks)."""

    level: ValidationLevel = "strict"
    lexical_threshold: float = 0.10
    """Paper: minimum |Ts ∩ Te| / |Ts|."""
    semantic_threshold: float = 0.40
    """Paper: minimum cosine of sentence and cited-source embeddings."""
    content_support_threshold: float = 0.5
    """Strict (a): minimum share of the sentence's non-question content words in the
    cited evidence (a majority of what the sentence adds must be in the source)."""
    yes_no_question_coverage: float = 0.5
    """Strict (a), yes/no exemption: minimum share of the question's content words in
    the cited evidence."""
    repair_margin: float = 0.25
    """Strict (c): how much better (share of the sentence's words) another source must
    cover the sentence before the citation is repaired to it."""
    judge_threshold: float = 0.5
    """Judge: minimum P(supported)."""
    judge_evidence_words: int = 0
    """Judge: 0 (default) = the judge reads each cited source whole; N > 0 = only its
    sentences sharing most of the claim's words, at most N words
    (:func:`~citeguard.validate.focus.claim_focused_source`). Shorter evidence is faster
    (about a second per 100 words on a CPU) but the judge is more lenient with it: on CUAD
    dev, 100 words let through 4 answers that the whole-source judge rejects."""
    relevance_check: bool = True
    """Judge: also require a cited source that answers the question (module docstring)."""
    challenge_refusals: bool = False
    """Fail a refusal when a source plainly covers the question (see
    ``refusal_question_coverage``), so that the graph regenerates with feedback naming that
    source. Off by default: with the bundled 1.5B model, 55 of 55 such regenerations on CUAD
    dev refused again, at ~1.2 s each (docs/results.md, session 10)."""
    refusal_question_coverage: float = 0.6
    """With ``challenge_refusals``: a refusal is challenged when one source holds at least
    this share of the question's content words (see
    :func:`refusal_despite_strong_evidence`)."""

    def __post_init__(self) -> None:
        if self.level not in ("paper", "strict", "judge"):
            raise ValueError(f"unknown validation level {self.level!r}: paper, strict or judge")
        for name in (
            "lexical_threshold",
            "semantic_threshold",
            "content_support_threshold",
            "yes_no_question_coverage",
            "repair_margin",
            "judge_threshold",
            "refusal_question_coverage",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        if self.judge_evidence_words < 0:
            raise ValueError(f"judge_evidence_words must be >= 0, got {self.judge_evidence_words}")


@dataclass(frozen=True)
class CitationRepair:
    """A citation moved to a source that supports the sentence clearly better."""

    from_sources: list[int]
    to_sources: list[int]
    from_coverage: float
    to_coverage: float


@dataclass
class SentenceVerdict:
    """The validator's decision about one sentence of the answer."""

    text: str
    """The sentence as it would be delivered: as written, except that a repaired citation
    is rewritten to the repaired marker(s)."""
    start: int
    """Offset of the sentence in the candidate answer (as written)."""
    end: int
    markers: list[str]
    """Citation, malformed and placeholder markers as written."""
    cited_sources: list[int]
    """Valid source numbers the sentence is judged against (after any repair)."""
    citation_valid: bool
    lexical_score: float | None
    """Overlap with the cited evidence; None when nothing valid is cited."""
    semantic_score: float | None
    """Best cosine with a cited source; None when skipped or nothing valid is cited."""
    judge_score: float | None
    content_support: float | None
    """Strict: share of the sentence's non-question content words in the evidence."""
    supported: bool
    reasons: list[str] = field(default_factory=list)
    """Machine-readable codes (see :data:`REASON_TEXT`)."""
    repaired_citation: CitationRepair | None = None
    original_text: str | None = None
    """The sentence as written, when a repair changed ``text``; else None."""
    feedback: str | None = None
    """One line for the regeneration prompt; None for a supported sentence."""


@dataclass
class ValidationResult:
    """The verdict on a whole candidate answer."""

    passed: bool
    is_refusal: bool
    level: str
    sentences: list[SentenceVerdict]
    supported_ratio: float
    """(n - u) / n over the answer's sentences; 0.0 for no sentences."""
    triggers: list[str]
    """Why to regenerate: invalid_citation, malformed_citation, unsupported_sentence,
    sources_do_not_answer_question, refusal_despite_strong_evidence, empty_answer. Empty
    when the candidate passed."""
    feedback: list[str]
    """One human-readable line per problem, for the regeneration prompt."""
    checks_skipped: list[str] = field(default_factory=list)
    """"semantic" when no embedding function was given; "judge" at level judge without one."""
    answer: str = field(default="", repr=False)
    """The candidate as validated. Not part of :meth:`to_json`, so that a summary of a
    failed candidate never carries its text."""
    citations_repaired: bool = False
    """Whether any sentence's citation was repaired (see :meth:`answer_text`)."""
    relevance_score: float | None = None
    """With ``relevance_check``: the highest P(answers the question) over the cited
    sources; None when not asked."""

    def answer_text(self) -> str:
        """The answer to deliver: the candidate with repaired citations rewritten."""
        if not self.citations_repaired:
            return self.answer.strip()
        pieces: list[str] = []
        last = 0
        for verdict in self.sentences:
            if verdict.original_text is None:
                continue
            pieces.append(self.answer[last : verdict.start])
            pieces.append(verdict.text)
            last = verdict.end
        pieces.append(self.answer[last:])
        return "".join(pieces).strip()

    @property
    def feedback_text(self) -> str:
        """The feedback as a bulleted block for the regeneration prompt."""
        return "\n".join(f"- {line}" for line in self.feedback)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types.

        The candidate's words appear in exactly two places, so that a caller can drop
        them for a refused run: each sentence's ``text`` and the top-level ``feedback``
        (the bulleted :attr:`feedback_text`). The candidate itself, the per-sentence
        feedback lines and ``original_text`` are left out.
        """
        data = asdict(self)
        del data["answer"]
        for sentence in data["sentences"]:
            del sentence["feedback"]
            del sentence["original_text"]
        data["feedback"] = self.feedback_text
        return data


REASON_TEXT: dict[str, str] = {
    "no_citation": "has no citation; end it with the marker of the source that states it",
    "invalid_citation": "cites a source that does not exist",
    "malformed_citation": "uses a malformed citation marker",
    "placeholder": "contains an unfilled placeholder instead of a value from the sources",
    "lexical_below_threshold": "shares too few words with the cited source",
    "semantic_below_threshold": "is not semantically close to the cited source",
    "restates_question": "only restates the question; state what the source says",
    "content_not_in_evidence": "says things the cited source does not state",
    "yes_no_unsupported": "answers yes/no, but the cited source is not about the question",
    "yes_no_off_topic": "answers yes/no with a sentence that is not about the question",
    "number_not_in_evidence": "states a number, date or amount that the cited source does not",
    "better_source_available": "cited a source while another source supports it better",
    "incomplete_sentence": (
        "stops in the middle of a phrase; finish it with the fact the source states, or "
        "answer with the refusal"
    ),
    "refers_elsewhere": (
        "points to another part of the document (such as 'the date first above written') "
        "instead of stating it; give the actual date, amount or term from the sources, or "
        "answer with the refusal if the sources do not state it"
    ),
    "yes_no_terms_not_in_evidence": (
        "answers a yes/no question with words of the question that the cited source does "
        "not contain"
    ),
    "judge_unsupported": "is not supported by the cited source according to the judge",
    "mixed_refusal": "mixes the refusal sentence with an answer; give one or the other",
    "no_content": "has no words to check",
}
"""What each reason code means, in the words used for feedback."""


def question_coverage(question: str, sources: Sequence[str]) -> list[float]:
    """For each source, the share of the question's content words it contains."""
    question_tokens = token_set(question)
    return [coverage(question_tokens, token_set(source)) for source in sources]


def refusal_despite_strong_evidence(
    question: str,
    sources: Sequence[str],
    retrieval_scores: Sequence[float] | None = None,
    *,
    coverage_threshold: float = 0.6,
    min_retrieval_score: float | None = None,
    min_question_terms: int = 2,
) -> bool:
    """Whether refusing would ignore evidence that is plainly about the question.

    Rule: some source contains at least ``coverage_threshold`` (0.6) of the question's
    content words (normalized tokens, stopwords removed). A question with fewer than
    ``min_question_terms`` content words gives no basis and never fires. When
    ``retrieval_scores`` (one per source, e.g. dense cosine) and ``min_retrieval_score``
    are both given, the covering source must also have scored at least that.
    """
    if len(token_set(question)) < min_question_terms:
        return False
    for index, share in enumerate(question_coverage(question, sources)):
        if share + _EPSILON < coverage_threshold:
            continue
        if (
            retrieval_scores is not None
            and min_retrieval_score is not None
            and index < len(retrieval_scores)
            and retrieval_scores[index] < min_retrieval_score
        ):
            continue
        return True
    return False


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


class _Context:
    """What every sentence's check needs, computed once per answer."""

    def __init__(
        self,
        sources: Sequence[str],
        question: str,
        settings: ValidationSettings,
        vectors: np.ndarray | None,
        judge: JudgeFn | None,
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


def _repair(claim: str, cited: list[int], ctx: _Context) -> CitationRepair | None:
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
            if shares[best] + _EPSILON >= cited_share:
                return CitationRepair(list(cited), [best], cited_share, shares[best])
    best_index, best_share = 0, -1.0
    for number, tokens in enumerate(ctx.source_tokens, start=1):
        if number in cited:
            continue
        share = coverage(words, tokens)
        if share > best_share:
            best_index, best_share = number, share
    if best_index and best_share + _EPSILON >= cited_share + ctx.settings.repair_margin:
        return CitationRepair(list(cited), [best_index], cited_share, best_share)
    return None


def _backed_tokens(claim: str, cited: Sequence[int], ctx: _Context) -> set[str]:
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


def _strict_reasons(claim: str, cited: list[int], ctx: _Context) -> tuple[list[str], float | None]:
    """Strict checks (a) and (b) against the cited evidence."""
    reasons: list[str] = []
    evidence_tokens = _backed_tokens(claim, cited, ctx)
    new_words = content_words_not_in_question(claim, ctx.question) - {"yes"}
    yes_no_question = is_yes_no_question(ctx.question)
    yes_no_answer = yes_no_question and bool(_YES_NO.match(claim))
    support: float | None = None
    if new_words:
        support = coverage(new_words, evidence_tokens)
        if support + _EPSILON < ctx.settings.content_support_threshold:
            reasons.append("content_not_in_evidence")
    elif yes_no_answer:
        # The yes/no exemption: "Yes, ... [1]." to "Is there ...?" adds no words of its
        # own; it needs evidence about the question's subject. Lexical checks cannot tell
        # "Yes" from "No": the judge level can.
        on_topic = coverage(token_set(ctx.question), evidence_tokens)
        if on_topic + _EPSILON < ctx.settings.yes_no_question_coverage:
            reasons.append("yes_no_unsupported")
    else:
        reasons.append("restates_question")
    if _YES_NO.match(claim) and not (sentence_token_set(claim) - {"yes", "no"}) & token_set(
        ctx.question
    ):
        # "Yes: <a sentence about something else>" answers nothing: a yes/no answer must
        # speak about the question's subject.
        reasons.append("yes_no_off_topic")
    if yes_no_question and _yes_no_terms_missing(claim, evidence_tokens, ctx.question):
        # Any answer to a yes/no question, with or without a "Yes"/"No" lead: "The
        # agreement provides for liquidated damages [2]." asserts the question's terms too.
        reasons.append("yes_no_terms_not_in_evidence")
    if unsupported_quantities(claim, ctx.evidence(cited)):
        reasons.append("number_not_in_evidence")
    if refers_elsewhere(claim):
        reasons.append("refers_elsewhere")
    if ends_mid_phrase(claim):
        reasons.append("incomplete_sentence")
    return reasons, support


def _feedback(
    index: int,
    verdict: SentenceVerdict,
    markers: Sequence[CitationMarker],
    claim: str,
    ctx: _Context,
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


def _check_sentence(
    index: int, sentence: Sentence, row: int, n_sentences: int, ctx: _Context
) -> SentenceVerdict:
    settings = ctx.settings
    k = len(ctx.sources)
    markers = parse_citations(sentence.text, k)
    citations = [m for m in markers if m.kind == "citation"]
    malformed = [m for m in markers if m.kind == "malformed"]
    placeholders = [m for m in markers if m.kind == "placeholder"]
    claim = strip_citations(sentence.text)
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
    cited = _cited_sources(markers)

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
        lexical_ok = lexical + _EPSILON >= settings.lexical_threshold
        semantic_ok = semantic is not None and semantic + _EPSILON >= settings.semantic_threshold
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
    if settings.level == "judge" and ctx.judge is not None and citation_valid and not failing:
        judge_score = float(ctx.judge(claim, ctx.judge_evidence(claim, cited)))
        if judge_score + _EPSILON < settings.judge_threshold:
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


_REPRODUCIBLE_TRIGGERS = frozenset(
    {"invalid_citation", "malformed_citation", "empty_answer", "refusal_despite_strong_evidence"}
)
_MODEL_JUDGED_REASONS = frozenset({"judge_unsupported"}) | INFORMATIONAL_REASONS


def rejected_by_reproducible_checks(verdict: Mapping[str, Any]) -> bool:
    """Whether a failed verdict (``ValidationResult.to_json()``) is sure to fail again for
    the same answer, sources and question.

    The citation, lexical, semantic and rule checks are deterministic. The judge and the
    relevance check are not quite: their P(Yes) comes from the local model's logits, which
    move in the last digits with how much of the prompt its KV cache already held (one
    answer scored 0.48 and then 0.50 against the same source). A rejection that rests only
    on them may not repeat.
    """
    if verdict.get("passed"):
        return False
    if set(verdict.get("triggers", [])) & _REPRODUCIBLE_TRIGGERS:
        return True
    return any(
        set(sentence.get("reasons", [])) - _MODEL_JUDGED_REASONS
        for sentence in verdict.get("sentences", [])
    )


def validate_answer(
    answer: str,
    sources: Sequence[str],
    question: str,
    settings: ValidationSettings | None = None,
    embed: EmbedFn | None = None,
    judge: JudgeFn | None = None,
    relevance: RelevanceFn | None = None,
) -> ValidationResult:
    """Validate a candidate ``answer`` against the ``sources`` it was generated from.

    Args:
        answer: The generator's text, citing sources as [1]..[k].
        sources: The k source texts, in the order they were numbered.
        question: The user's question (for the strict content-word and refusal checks).
        settings: Level and thresholds; the defaults when None.
        embed: Maps texts to L2-normalized vectors (one row per text). None skips the
            semantic check, recorded in ``checks_skipped``.
        judge: Returns P(supported) for (claim, evidence); used at level "judge" only.
            None at that level skips the judge, recorded in ``checks_skipped``.
        relevance: Returns P(the evidence answers the question) for (question, evidence);
            used at level "judge" with ``settings.relevance_check`` only. None then skips
            the check, recorded in ``checks_skipped``.
    """
    settings = settings or ValidationSettings()
    skipped: list[str] = []
    if embed is None:
        skipped.append("semantic")
    if settings.level == "judge" and judge is None:
        skipped.append("judge")
        logger.warning("validation level 'judge' without a judge function: judge check skipped")
    check_relevance = settings.level == "judge" and settings.relevance_check
    if check_relevance and relevance is None:
        skipped.append("relevance")
        logger.warning("relevance check on without a relevance function: check skipped")
        check_relevance = False

    def result(**values: Any) -> ValidationResult:
        values.setdefault("sentences", [])
        values.setdefault("supported_ratio", 0.0)
        values.setdefault("is_refusal", False)
        return ValidationResult(
            level=settings.level, checks_skipped=skipped, answer=answer, **values
        )

    if not answer.strip():
        return result(
            passed=False,
            triggers=["empty_answer"],
            feedback=["The answer was empty: answer from the sources with [n] markers, or "
                      "reply with the refusal sentence alone."],
        )  # fmt: skip
    if is_refusal(answer):
        fired = settings.challenge_refusals and refusal_despite_strong_evidence(
            question, sources, coverage_threshold=settings.refusal_question_coverage
        )
        feedback = []
        if fired:
            shares = question_coverage(question, sources)
            best = max(range(len(shares)), key=shares.__getitem__)
            feedback.append(
                f"The answer refused, but source [{best + 1}] contains "
                f"{shares[best]:.0%} of the question's key terms: answer from the sources "
                "with citations if they state the answer."
            )
        return result(
            passed=not fired,
            is_refusal=True,
            triggers=["refusal_despite_strong_evidence"] if fired else [],
            feedback=feedback,
        )

    sentences = split_sentences(answer)
    if not sentences:
        return result(
            passed=False,
            triggers=["empty_answer"],
            feedback=["The answer had no sentences: answer from the sources with [n] "
                      "markers, or reply with the refusal sentence alone."],
        )  # fmt: skip

    vectors: np.ndarray | None = None
    if embed is not None:
        texts = [strip_citations(s.text) for s in sentences] + list(sources)
        vectors = np.asarray(embed(texts), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(
                f"embed returned shape {vectors.shape} for {len(texts)} texts; "
                "expected one row per text"
            )
    ctx = _Context(sources, question, settings, vectors, judge)
    verdicts = [
        _check_sentence(i + 1, sentence, i, len(sentences), ctx)
        for i, sentence in enumerate(sentences)
    ]

    triggers: list[str] = []
    if any("invalid_citation" in v.reasons for v in verdicts):
        triggers.append("invalid_citation")
    if any("malformed_citation" in v.reasons for v in verdicts):
        triggers.append("malformed_citation")
    if any(not v.supported for v in verdicts):
        triggers.append("unsupported_sentence")
    feedback = [v.feedback for v in verdicts if v.feedback]
    relevance_score: float | None = None
    if check_relevance and not triggers and relevance is not None:
        # Asked once per cited source, after every sentence passed: the check is about the
        # answer as a whole, and a failing answer is regenerated anyway.
        cited = sorted({n for v in verdicts for n in v.cited_sources})
        relevance_score = max(float(relevance(question, sources[n - 1])) for n in cited)
        if relevance_score + _EPSILON < settings.judge_threshold:
            triggers.append("sources_do_not_answer_question")
            markers = ", ".join(f"[{n}]" for n in cited)
            feedback.append(
                f"The cited source(s) {markers} do not answer the question asked "
                f'("{question.strip()}"): answer from the source that states what was '
                "asked, or reply with the refusal sentence alone."
            )
    supported = sum(v.supported for v in verdicts)
    return result(
        passed=not triggers,
        sentences=verdicts,
        supported_ratio=supported / len(verdicts),
        triggers=triggers,
        feedback=feedback,
        citations_repaired=any(v.repaired_citation is not None for v in verdicts),
        relevance_score=relevance_score,
    )

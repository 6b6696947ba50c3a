"""The answer from a passage: the evidence scorer's answering passage, in its own words.

When the model refuses (or its answers fail validation) although the trained evidence
scorer rates a passage of the sources as answering, the passage's own sentences become the
answer, each cited to its source. Nothing is paraphrased, so nothing can be misstated; the
answer is validated like any other before it is delivered.

How the passage becomes sentences:

* A passage is cut out of its chunk by word count, so its last sentence may be a piece of a
  list ("...; (b) Workers' Compensation Insurance ...; and") or stop mid-phrase. A dangling
  "and"/"or" is dropped with the punctuation before it, which leaves a quote that ends
  where one of the document's phrases ends; a sentence that still stops mid-phrase is left
  out.
* PDF text breaks sentences where the page did ("or to any other" / blank line /
  "Participant, for ..."): a piece is joined to the next when it ends on a lower-case word
  without punctuation or the next opens with a lower-case letter, and the two read as one
  sentence to the splitter the validator uses (each sentence of the answer needs its own
  citation; "as of Dec." / "8, 2005" stays two). Headings ("11. Landlord's Entry",
  "DISTRIBUTOR AGREEMENT") stay apart.
* A bulleted list is joined to its lead-in (a colon or a lower-case word before it) with
  its bullets, so that its items read apart and the quote stays the document's text
  ("Prohibited items include - grills - space heaters"), and it ends where the list does:
  the paragraph after a last item that has no closing punctuation is not run into it. An
  item, bulleted or lettered, that is a sentence of its own under a lead-in that ends in a
  colon ("You may not:" / "• Share your password." / "• Use the service for spam.";
  "shall not: (a) sell the Software." / "(b) Rent it.") is never quoted: alone it states
  the opposite of the document.
* A piece that opens on a lower-case word, after its own list label if it has one, is the
  rest of a sentence begun before the passage or a page break ("first year of the term of
  the Agreement."), or an item whose lead-in lies before it ("(c) in the Restricted
  Territory, compete with ..."): it is never quoted (a page-broken piece inside the
  passage is joined to the sentence it continues, above).
* With the scorer's sentence scores, only the best sentence and the neighbours that also
  reach the answer threshold are quoted: the passage's window may open on the end of the
  clause before. A heading is not quoted, and it ends the quote there: it names the clause
  (and a short heading often scores best), it does not answer, and a judge reading "11.
  Landlord's Entry." as a claim finds nothing that states it. Only when no other sentence
  reaches the threshold is the best heading quoted (a question may ask for a title); for
  a yes/no question, the statement under it is quoted instead, read under the heading.
* A numbered heading that the page runs into its first subsection ("5. TERM AND
  TERMINATION 5.1 This Agreement shall commence ...") is one sentence to the splitter; the
  heading and the subsection's number are left out of the quote, which starts where the
  statement does ("This Agreement shall commence ...").
* A statement's own list or section number is left out too ("1. The Term of the
  Agreement is hereby extended ..." is quoted from "The Term"; "(a)", "E)", "1.2", "iv."
  alike): it labels the statement and states nothing, and a quote that opens on it reads,
  to a reader and to a judge, as a claim whose first word is "1.".
* A short numbered line that stands as a paragraph of its own, without a full stop, is a
  heading however it is capitalized ("3. Who we share it with", "1. Quiet hours": policies
  and house rules write headings in sentence case). It is neither joined to the statement
  after it ("3. Who we share it with We do not sell your personal data" read as one
  sentence) nor quoted ahead of a statement; the statements under it are scored, and the
  quote judged for relevance, as they read under it (:func:`quote_under_heading`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeguard.generate.selection import MIN_SENTENCE_CHARS, as_cited_sentence
from citeguard.learned.evidence import OVERLAPPING_ANSWER_PASSAGES, PairScorer, best_passages
from citeguard.text.passages import blank_html_comments
from citeguard.text.questions import is_yes_no_question
from citeguard.text.sentences import BULLETS, Sentence, split_sentences
from citeguard.validate.checks import ends_mid_phrase

MAX_SENTENCES = 4
"""At most as many sentences as the generator may write."""

SentenceScores = Callable[[Sequence[str]], Sequence[float]]
"""P(the sentence answers the question) for each sentence: the evidence scorer's."""

_DANGLING_CONNECTIVE = re.compile(r"[\s,;:]*\b(?:and/or|and|or|but)\s*$", re.IGNORECASE)
_ENDS_ON_LOWER_WORD = re.compile(r"\b[a-z][\w'-]*$")
_OPENS_LOWER = re.compile(r"^[\s\"'(]*[a-z]")
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
_LIST_ITEM_BULLET = re.compile(rf"(?:^|\n)[ \t]*([{re.escape(BULLETS)}])[ \t]+$")
_NEVER_ENDS_A_HEADING = frozenset("a an the and or of".split())
_SECTION_NUMBER = re.compile(r"^(?:(?:section|article)\s+)?[\dIVXivx]+(?:\.\d+)*[.)]?\s+", re.I)
_HEADING_SMALL_WORDS = frozenset("a an and as for in of on or the to".split())
HEADING_MAX_WORDS = 6
"""A heading is at most this many words after its section number."""
# A list or section number before a statement: "1. The Term ...", "1.2 The Licensee ...",
# "(a) The Licensee ...", "E) The Distributors ...", "iv. Each party ...". A bare number
# ("30 days ...") is a quantity, and "J. Smith" an initial: neither is one.
_LEADING_ENUMERATOR = re.compile(
    r"^(?:\(?(?:\d{1,3}(?:\.\d{1,3})*|[A-Za-z]|[ivx]{1,5}|[IVX]{1,5})\)"
    r"|\d{1,3}(?:\.\d{1,3})*\.|\d{1,3}(?:\.\d{1,3})+|[ivx]{1,5}\.)"
    r"\s+(?=[A-Z\"\u201c(])"
)
# "5. TERM AND TERMINATION 5.1 " before a statement: a section's number and heading, then
# its first subsection's number ("5.1", "1.1", never a bare "5", which may be a quantity).
_HEADING_THEN_SUBSECTION = re.compile(
    r"^(?P<heading>(?:(?:section|article)\s+)?\d+(?:\.\d+)*[.)]?\s+[^.;:]{1,80}?)"
    r"\s+\d+\.\d+[.)]?\s+(?=[A-Z(\"])",
    re.IGNORECASE,
)


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` reads as a section heading: a few words, each capitalized or
    a small word ("11. Landlord's Entry", "SUCCESSORS AND ASSIGNS", "Extent of Cross
    Licenses"), rather than a statement."""
    words = _SECTION_NUMBER.sub("", sentence.strip()).split()
    if not words or len(words) > HEADING_MAX_WORDS:
        return False
    return (
        all(
            word[0].isupper() or word[0].isdigit() or word.lower() in _HEADING_SMALL_WORDS
            for word in words
        )
        and not words[0].islower()
    )


def without_numbered_heading(sentence: str) -> str:
    """``sentence`` without a leading section heading and subsection number ("5. TERM AND
    TERMINATION 5.1 This Agreement ..." -> "This Agreement ..."); unchanged otherwise."""
    match = _HEADING_THEN_SUBSECTION.match(sentence)
    if match is None or not is_heading(match.group("heading")):
        return sentence
    return sentence[match.end() :]


def without_enumerator(sentence: str) -> str:
    """``sentence`` without the list or section numbers it opens on ("1. The Term of the
    Agreement is ..." -> "The Term of the Agreement is ...", "(a) (i) The Licensee ..." ->
    "The Licensee ..."); unchanged otherwise. The number is the document's label for the
    statement, not part of what it states, and a reader (or a judge) reads "1." as a claim's
    first word."""
    while (match := _LEADING_ENUMERATOR.match(sentence)) is not None:
        sentence = sentence[match.end() :]
    return sentence


def _list_bullet(passage: str, pieces: Sequence[Sentence], i: int) -> str:
    """The bullet ("•", "-", "*", ...) that opens ``pieces[i]`` as an item of a bulleted
    list, at the start of a line of ``passage``; "" when the piece is no such item."""
    before = passage[pieces[i - 1].end if i > 0 else 0 : pieces[i].start]
    match = _LIST_ITEM_BULLET.search(before)
    return match.group(1) if match else ""


def _is_heading_paragraph(passage: str, pieces: Sequence[Sentence], i: int) -> bool:
    """Whether ``pieces[i]`` is a numbered heading line: a paragraph of its own (a blank
    line or the passage's edge on each side), a section number, at most
    :data:`HEADING_MAX_WORDS` words after it, no closing punctuation, and no article or
    conjunction last."""
    piece = pieces[i]
    number = _SECTION_NUMBER.match(piece.text)
    if number is None or piece.text.rstrip()[-1] in ".;:!?,":
        return False
    words = piece.text[number.end() :].split()
    if not 0 < len(words) <= HEADING_MAX_WORDS or words[-1].lower() in _NEVER_ENDS_A_HEADING:
        # "2. The Tenant shall pay to the" / page break / "Landlord the rent.": a sentence
        # the page broke, not a heading.
        return False
    before = passage[pieces[i - 1].end : piece.start] if i > 0 else "\n\n"
    after = passage[piece.end : pieces[i + 1].start] if i + 1 < len(pieces) else "\n\n"
    return bool(_BLANK_LINE.search(before) and _BLANK_LINE.search(after))


STATEMENT, TITLE, HEADING_LINE, LEAD_IN_ITEM = "statement", "title", "heading line", "item"
FRAGMENT, MARKUP, QUESTION = "fragment", "markup", "question"
"""What a piece of a passage is: a statement; a heading that reads as a title (quoted when
nothing else answers: a question may ask for one); a numbered heading line in sentence case
("9. Where your data is stored"), never quoted ahead of a statement: it names the answer's
topic and answers nothing; an item of a list, bulleted or lettered, under a lead-in that
ends in a colon, as a sentence of its own ("You may not:" / "• Share your password." / "•
Use the service for spam."), never quoted: alone it may state the opposite of what the
document says; a fragment, a piece that opens on a lower-case word, after its own list
label if it has one ("including, but not limited to, all court costs ...", "(c) in the
Restricted Territory, compete with ...", "first year of the term of the Agreement"): the
rest of a sentence that began before the passage or before a page break, never quoted,
since alone it states nothing or the opposite; markup, a piece that is nothing but HTML
comments and tags ("<!-- markdownlint-disable GHD034 -->" in a Markdown file read as
text), never quoted: it is an instruction to a program, not a statement of the document; a
question, a piece that ends in a question mark (a guide's "Can I be charged for
repainting?" above its answer), never quoted: it asks, and states nothing."""

NEVER_QUOTED = (LEAD_IN_ITEM, FRAGMENT, MARKUP, QUESTION)
"""The kinds of piece a quote never includes."""

PASSED_OVER = (FRAGMENT, MARKUP, QUESTION)
"""The kinds of piece that a quote of the passage's first sentences (no scores) skips when
the passage opens on them; an item under a lead-in is not skipped: the quote stops before
it."""

# A piece opening on a word in lower case: not "iPhone" or "eBay", which a sentence may
# open on.
_OPENS_ON_LOWER_WORD = re.compile(r"^[\s\"'(]*[a-z][a-z'-]*(?=[\s,;:.)]|$)")


# An HTML comment or tag, as Markdown files carry them ("<!-- ... -->", "<br>", "</div>").
_HTML_COMMENT_OR_TAG = re.compile(r"<!--.*?(?:-->|$)|</?[A-Za-z][^<>]*>", re.DOTALL)


# A lettered item: "(a) ", "a) ", "(iv) ", "b. " (not "A. ", an initial, nor "1. ", which is
# as often a section of its own, after "The parties agree as follows:").
_LETTER_LABEL = r"(?:\((?:[a-zA-Z]|[ivx]{1,5})\)|(?:[a-z]|[ivx]{1,5})[.)])"
_LETTERED_ITEM = re.compile(rf"^{_LETTER_LABEL}\s")
# A lead-in's colon with its list's first item run into it ("shall not: (a) sell ...").
_COLON_THEN_ITEM = re.compile(rf":\s*(?:[{re.escape(BULLETS)}]|{_LETTER_LABEL})\s")


LIST_MAX_WORDS = 150
"""At most this many words of a list are read after a passage that leads into it."""

# A line that opens an item of a list: a bullet or a letter label ("(a)", "b.", "(iv)").
_LIST_ITEM_LINE = re.compile(rf"^[ \t]*(?:[{re.escape(BULLETS)}]|{_LETTER_LABEL})[ \t]")


def through_following_list(text: str, start: int, end: int) -> int:
    """Where the passage ``text[start:end]`` ends once the list it leads into is read.

    A passage is a window of whole sentences, and its last one may be a lead-in ("GitHub
    personnel does not access private repository information without your consent except
    ... and for:") whose list lies after the window's end: alone, the lead-in ends
    mid-phrase and nothing of it can be quoted. When the passage (HTML comments aside) ends
    in a colon, it is read on through the list items that follow (lines opening on a
    bullet or a letter label, and the lines an item wraps onto; blank lines and comment
    lines between items pass), as far as :data:`LIST_MAX_WORDS` words; otherwise, or when
    no item follows, ``end`` is returned.
    """
    if not blank_html_comments(text[start:end]).rstrip().endswith(":"):
        return end
    extended, words, position = end, 0, end
    item_open = False  # the line before was an item's, no blank line since
    for line in blank_html_comments(text[end:]).splitlines(keepends=True):
        position += len(line)
        if not line.strip():
            item_open = False
            continue
        if not (item_open or _LIST_ITEM_LINE.match(line)):
            break
        words += len(line.split())
        if words > LIST_MAX_WORDS:
            break
        extended = position - (len(line) - len(line.rstrip()))
        item_open = True
    return extended


@dataclass
class _Joined:
    """A sentence of the passage as the pieces the splitter made are joined into it."""

    text: str
    heading: bool
    ends_on_item: bool = False
    """Its last piece is an item of a list (bulleted or lettered)."""
    lead_in_item: bool = False
    """It is an item of a list under a lead-in that ends in a colon, not joined to it."""


def _passage_pieces(passage: str) -> list[tuple[str, str]]:
    """The passage's complete sentences with what each is (:data:`STATEMENT`, ...), in
    order, each as it stands in the passage apart from whitespace, a closing dangling
    connective and closing punctuation."""
    passage = blank_html_comments(passage)
    pieces = split_sentences(passage)
    joined: list[_Joined] = []
    under_lead_in = False  # the list being read follows a lead-in that ends in a colon
    for i, piece in enumerate(pieces):
        heading = _is_heading_paragraph(passage, pieces, i)
        bullet = _list_bullet(passage, pieces, i)
        item = bool(bullet) or bool(_LETTERED_ITEM.match(piece.text))
        last = joined[-1] if joined else None
        if item and last is not None and not last.ends_on_item:
            # A list starts here: under a lead-in when what it follows ends in a colon, or
            # runs into the list's first item after one.
            under_lead_in = last.text.endswith(":") or bool(_COLON_THEN_ITEM.search(last.text))
        if last is None or heading or last.heading:
            continues = False
        elif bullet:
            # A bulleted item continues its lead-in or the list before it. It keeps its
            # bullet, so that the items read apart ("include: • grills • space heaters", not
            # "include grills space heaters") and the quote stays the document's text.
            continues = bool(
                last.ends_on_item
                or last.text.endswith(":")
                or _ENDS_ON_LOWER_WORD.search(last.text)
                or _OPENS_LOWER.match(piece.text)
            )
        else:
            # After a list's last item, which may end without punctuation, only a piece
            # that opens in lower case (the page broke the item) continues it, not the
            # paragraph after the list.
            continues = bool(
                (not last.ends_on_item and _ENDS_ON_LOWER_WORD.search(last.text))
                or _OPENS_LOWER.match(piece.text)
            )
        text = f"{bullet} {piece.text}" if bullet else piece.text
        if last is not None and continues and len(split_sentences(f"{last.text} {text}")) == 1:
            last.text = f"{last.text} {text}"
            last.ends_on_item = item
        else:
            joined.append(_Joined(piece.text, heading, item, item and under_lead_in))
    sentences: list[tuple[str, str]] = []
    for entry in joined:
        body = _DANGLING_CONNECTIVE.sub("", " ".join(entry.text.split()).rstrip(" .;:,"))
        if entry.heading:
            # Kept however short, and though it may end on a preposition ("3. Who we share
            # it with"): it ends a quote that reaches it.
            sentences.append((body, TITLE if is_heading(body) else HEADING_LINE))
            continue
        body = without_numbered_heading(body)
        if not is_heading(body):
            body = without_enumerator(body)  # "1. Definitions" keeps its number
        if _word_chars(body) >= MIN_SENTENCE_CHARS and not ends_mid_phrase(body):
            sentences.append((body, _kind_of(body, entry.lead_in_item)))
    return sentences


def _word_chars(text: str) -> int:
    """How many letters, digits and underscores ``text`` holds (what a sentence's length is
    measured in: punctuation and spaces are not words)."""
    return len(re.sub(r"\W", "", text))


def _kind_of(body: str, lead_in_item: bool) -> str:
    """What a joined sentence of a passage is (:data:`STATEMENT`, ...), ``body`` as it will
    be quoted."""
    if lead_in_item:
        return LEAD_IN_ITEM
    if _word_chars(_HTML_COMMENT_OR_TAG.sub("", body)) < MIN_SENTENCE_CHARS:
        return MARKUP
    if body.endswith("?"):
        return QUESTION
    if is_heading(body):
        return TITLE
    if _OPENS_ON_LOWER_WORD.match(_LETTERED_ITEM.sub("", body, count=1)):
        return FRAGMENT
    return STATEMENT


def passage_sentences(passage: str) -> list[str]:
    """The passage's complete sentences, in order, each as it stands in the passage apart
    from whitespace, a closing dangling connective and closing punctuation."""
    return [text for text, _ in _passage_pieces(passage)]


@dataclass(frozen=True)
class PassageQuote:
    """A passage answer: ``text``, its cited sentences, and ``heading``, the heading line
    it stands under in the passage ("" when none)."""

    text: str
    heading: str = ""

    def for_relevance(self, said: str) -> str:
        """What the relevance check reads of the answer ``said`` (the quote without its
        markers): :func:`quote_under_heading`."""
        return quote_under_heading(said, self.heading)


def quote_under_heading(said: str, heading: str) -> str:
    """A quote as the relevance check reads it: under the heading line it stands under, as
    the document states it ("9. Where your data is stored. Our servers are located in the
    European Union"). The heading is not delivered (it answers nothing), but the quote means
    what it means under it."""
    return f"{heading}. {said}" if heading else said


def quote_passage(
    passage: str,
    source: int,
    sentence_scores: SentenceScores | None = None,
    threshold: float = 0.0,
    title_may_answer: bool = True,
) -> PassageQuote:
    """The passage's answering sentences, each cited ``[source]`` (text "" when it holds
    none), with the heading line they stand under.

    Args:
        sentence_scores: scores each sentence against the question; without it the first
            sentences are quoted.
        threshold: the score a neighbour of the best sentence needs to be quoted too.
        title_may_answer: whether a title scored best is quoted alone (a question may ask
            for one). Without it, the statement right under the title is quoted instead,
            read under the title: "12. EXCLUSIVITY" says that the contract has such a
            section, not what it commits anyone to.
    """
    pieces = _passage_pieces(passage)
    if sentence_scores is None:
        # The first sentences are quoted: a heading line is not one of them, nor the end
        # of a sentence the passage opens on, nor markup or a question, and they stop
        # before any piece that is never quoted.
        pieces = [piece for piece in pieces if piece[1] != HEADING_LINE] or pieces[:1]
        while pieces and pieces[0][1] in PASSED_OVER:
            pieces = pieces[1:]
        stops = [i for i, piece in enumerate(pieces) if piece[1] in NEVER_QUOTED]
        pieces = pieces[: stops[0]] if stops else pieces
    sentences = [text for text, _ in pieces]
    candidates = [i for i in range(len(sentences)) if pieces[i][1] not in NEVER_QUOTED]
    if not candidates:
        return PassageQuote("")
    # Each statement is scored as it reads under its heading line, as the relevance check
    # will read the quote: "Our servers are located in the European Union" answers
    # "Where is my data stored?" under "9. Where your data is stored".
    headings = _governing_heading_lines(pieces)
    first, last, best = 0, len(sentences) - 1, 0  # without scores: from the first, cut below
    if sentence_scores is not None and len(sentences) > 1:
        scores = list(
            sentence_scores(
                [quote_under_heading(t, h) for t, h in zip(sentences, headings, strict=True)]
            )
        )

        def quotable(i: int) -> bool:
            return scores[i] >= threshold and pieces[i][1] == STATEMENT

        statements = [i for i in range(len(sentences)) if quotable(i)]
        not_heading_lines = [i for i in candidates if pieces[i][1] != HEADING_LINE]
        best = max(statements or not_heading_lines or candidates, key=lambda i: scores[i])
        if not title_may_answer and pieces[best][1] == TITLE:
            under = best + 1
            if under < len(pieces) and pieces[under][1] == STATEMENT:
                return PassageQuote(as_cited_sentence(sentences[under], source), sentences[best])
        first = last = best
        while first > 0 and quotable(first - 1):
            first -= 1
        while last + 1 < len(sentences) and quotable(last + 1):
            last += 1
    quoted = sentences[first : last + 1]
    if len(quoted) > MAX_SENTENCES:
        start = min(max(best - first - MAX_SENTENCES // 2, 0), len(quoted) - MAX_SENTENCES)
        quoted = quoted[start : start + MAX_SENTENCES]
    heading = headings[first] if sentences else ""
    return PassageQuote(" ".join(as_cited_sentence(text, source) for text in quoted), heading)


def _governing_heading_lines(pieces: Sequence[tuple[str, str]]) -> list[str]:
    """For each statement of ``pieces``, the heading line it stands under ("" for none,
    and for the headings themselves); a title-style heading starts a section of its own."""
    current = ""
    governing: list[str] = []
    for text, kind in pieces:
        if kind in NEVER_QUOTED:
            governing.append("")  # never quoted, and within the section of the heading
        elif kind != STATEMENT:
            current = text if kind == HEADING_LINE else ""
            governing.append("")
        else:
            governing.append(current)
    return governing


def passage_answer(
    passage: str,
    source: int,
    sentence_scores: SentenceScores | None = None,
    threshold: float = 0.0,
) -> str:
    """The text of :func:`quote_passage`: the passage's answering sentences, each cited
    ``[source]``; "" when it holds none."""
    return quote_passage(passage, source, sentence_scores, threshold).text


def scored_passage_answer(
    passage: str, source: int, question: str, scorer: PairScorer | None
) -> PassageQuote:
    """:func:`quote_passage` with the evidence scorer choosing the sentences (the best
    for ``question`` and its neighbours at the scorer's threshold); without a scorer, the
    passage's first sentences. A yes/no question is not answered by a title alone: it asks
    what the clause says, not whether it has a heading."""
    if scorer is None:
        return quote_passage(passage, source)
    return quote_passage(
        passage,
        source,
        lambda sentences: scorer.scores([(question, s) for s in sentences]).tolist(),
        scorer.threshold,
        title_may_answer=not is_yes_no_question(question),
    )


def passage_answer_of_sources(
    scorer: PairScorer,
    question: str,
    sources: Sequence[str],
    min_score: float,
    overlapping: bool = OVERLAPPING_ANSWER_PASSAGES,
) -> tuple[int, PassageQuote] | None:
    """(cited source number, the passage answer) as the graph drafts it first from
    ``sources``: the first of :func:`passage_answers_of_sources`, None when there is none.
    (The graph scores its sources in the retrieve node; calibration and benches call this.)
    """
    drafted = passage_answers_of_sources(scorer, question, sources, min_score, overlapping)
    return drafted[0] if drafted else None


def passage_answers_of_sources(
    scorer: PairScorer,
    question: str,
    sources: Sequence[str],
    min_score: float,
    overlapping: bool = OVERLAPPING_ANSWER_PASSAGES,
) -> list[tuple[int, PassageQuote]]:
    """(cited source number, passage answer) pairs in the order the graph drafts them from
    ``sources`` when each before fails validation: the best-scored passage of them all,
    quoted by :func:`scored_passage_answer`, then, when that passage was chosen among
    overlapping ones (``overlapping``, as the graph's ``scorer_passages_overlap``), the
    side-by-side passage its score was read from, when its quote differs. Quotes with no
    text are left out (they fail validation); empty when no passage reaches ``min_score``."""
    if not sources:
        return []
    found = best_passages(scorer, question, sources, overlapping=overlapping)
    best = max(range(len(found)), key=lambda i: found[i].score)
    if found[best].score < min_score:
        return []
    text = sources[best]
    spans = [(found[best].start, found[best].end)]
    if found[best].has_other_scored_passage:
        spans.append((found[best].scored_start, found[best].scored_end))
    drafted: list[tuple[int, PassageQuote]] = []
    for start, end in spans:
        answer = scored_passage_answer(
            text[start : through_following_list(text, start, end)], best + 1, question, scorer
        )
        if answer.text and all(answer.text != earlier.text for _, earlier in drafted):
            drafted.append((best + 1, answer))
    return drafted

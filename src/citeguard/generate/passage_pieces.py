"""What each sentence of a passage is, before any of it is quoted.

A passage answer quotes the document's own sentences
(:mod:`citeguard.generate.passage_answer`). This module cuts a passage into those
sentences, joined as the document means them, and says what each is: a statement, a title
or heading line, an item under a lead-in, a lead-in to a numbered list, a fragment, markup
or a question; only statements (and, failing them, titles) are quoted.

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
* A lead-in is never quoted without what it leads into. What follows its colon is joined
  to it when the two read as one sentence and it is no item or heading ("by and between:"
  / "Dong-A ST Co., Ltd., a corporation ..."). A lead-in to a numbered list ("This
  Agreement may be terminated:" / "1. By either Party ...") is never quoted: alone it
  states more than the document does, and the numbers between it and its items keep the
  two from being one quoted sentence. A passage window that ends on a lead-in, or on a
  dangling "and"/"or", is read on through what it leads into
  (:func:`through_following_list`).
* A piece that opens on a lower-case word, after its own list label if it has one, is the
  rest of a sentence begun before the passage or a page break ("first year of the term of
  the Agreement."), or an item whose lead-in lies before it ("(c) in the Restricted
  Territory, compete with ..."): it is never quoted (a page-broken piece inside the
  passage is joined to the sentence it continues, above).
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
  quote judged for relevance, as they read under it
  (:func:`citeguard.generate.passage_answer.quote_under_heading`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeguard.generate.selection import MIN_SENTENCE_CHARS
from citeguard.text.passages import blank_html_comments
from citeguard.text.sentences import BULLETS, Sentence, split_sentences
from citeguard.validate.checks import ends_mid_phrase

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
LEAD_IN = "lead-in"
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
repainting?" above its answer), never quoted: it asks, and states nothing; a lead-in, a
sentence that ends in a colon with a numbered list's first item after it ("This Agreement
may be terminated:" / "1. By either Party on provision of seven (7) days written notice
..."), never quoted: alone it states more than the document ("This Agreement may be
terminated.") or nothing at all ("The parties agree as follows."), and the numbers between
it and its items keep the two from reading as one quoted sentence."""

NEVER_QUOTED = (LEAD_IN_ITEM, LEAD_IN, FRAGMENT, MARKUP, QUESTION)
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
# The end of a finished sentence: a full stop, semicolon, "!" or "?", before any closing
# quote marks and brackets.
_ENDS_A_SENTENCE = re.compile(r"[.;!?][\"'\u201d)\]]*\s*$")
# A numbered item's label: "1.", "6.1.1.", "2)", "(3)".
_NUMBER_LABEL = r"(?:\(\d{1,3}\)|\d{1,3}(?:\.\d{1,3})*[.)])"
_OPENS_ON_NUMBER_LABEL = re.compile(rf"^{_NUMBER_LABEL}(?:\s|$)")
# A lead-in's colon with the label of its list's first numbered item after it, which the
# splitter ends the sentence on ("This Agreement may be terminated: 1." / "By either ...").
_COLON_THEN_NUMBER_LABEL = re.compile(rf":\s*{_NUMBER_LABEL}$")


LIST_MAX_WORDS = 150
"""At most this many words of a list (or of the sentence a lead-in runs into) are read after
a passage that leads into it."""
_MAX_CHARS_PER_WORD = 12  # what a word, with its space, takes at most as a rule

# A line that opens an item of a list: a bullet, a letter label ("(a)", "b.", "(iv)") or a
# number label ("1.", "6.1.1.", alone on its line or before the item's words).
_LIST_ITEM_LINE = re.compile(
    rf"^[ \t]*(?:(?:[{re.escape(BULLETS)}]|{_LETTER_LABEL})[ \t]|{_NUMBER_LABEL}(?:[ \t]|$))"
)


def through_following_list(text: str, start: int, end: int) -> int:
    """Where the passage ``text[start:end]`` ends once what its last sentence leads into
    is read.

    A passage is a window of whole sentences, and its last one may be a lead-in ("GitHub
    personnel does not access private repository information without your consent except
    ... and for:") whose list lies after the window's end, or a sentence the window cut at
    a dangling "and" ("... by and between: Dong-A ST Co., Ltd., ... ("Dong-A") and"):
    alone, it ends mid-phrase, or its quote ends where the document's sentence does not.
    When the passage (HTML comments aside) ends in a colon, it is read on through the list
    items that follow (lines opening on a bullet, a letter label or a number label, and the
    lines an item wraps onto; blank lines and comment lines between items pass), as far as
    :data:`LIST_MAX_WORDS` words. When no item follows a colon, or the passage ends on a
    dangling "and"/"or", it is read on through the next sentence, unless that is a heading
    ("the following facts:" / "Recitals"), longer than :data:`LIST_MAX_WORDS` words, or
    cut off itself by the end of ``text``.
    Otherwise ``end`` is returned.
    """
    passage = blank_html_comments(text[start:end]).rstrip()
    after = blank_html_comments(text[end:])
    if passage.endswith(":"):
        extended = _through_list_items(after, end)
        if extended > end:
            return extended
    elif not _DANGLING_CONNECTIVE.search(passage):
        return end
    # Enough text for a sentence of LIST_MAX_WORDS words, without splitting the whole rest.
    following = split_sentences(after[: LIST_MAX_WORDS * _MAX_CHARS_PER_WORD])
    if not following:
        return end
    sentence = following[0]
    if (
        len(sentence.text.split()) > LIST_MAX_WORDS
        or _reads_as_heading(sentence.text)
        or not _ENDS_A_SENTENCE.search(sentence.text)
    ):
        # Too long, a heading, or itself cut off by the end of the text ("... by any
        # device or in"): not read on, since the passage would still end mid-phrase.
        return end
    return end + sentence.end


def _reads_as_heading(text: str) -> bool:
    """Whether a piece reads as a heading once its closing stop or colon is set aside
    ("Recitals", "RECITALS:")."""
    return is_heading(text.rstrip(" .:"))


def _through_list_items(after: str, end: int) -> int:
    """Where a passage ending at ``end`` ends once the list items that open ``after`` (the
    text after it) are read; ``end`` when none does."""
    extended, words, position = end, 0, end
    item_open = False  # the line before was an item's, no blank line since
    for line in after.splitlines(keepends=True):
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

    def ends_in_colon(self) -> bool:
        """Whether it ends in a colon (trailing whitespace aside): it leads into what
        follows."""
        return self.text.rstrip().endswith(":")

    def leads_into_numbered_list(self, following: _Joined | None) -> bool:
        """Whether it is a lead-in to a numbered list: a colon, then the first item's label
        (run into it, or opening ``following``)."""
        if _COLON_THEN_NUMBER_LABEL.search(self.text.rstrip()):
            return True
        return (
            self.ends_in_colon()
            and following is not None
            and bool(_OPENS_ON_NUMBER_LABEL.match(following.text))
        )


def passage_pieces(passage: str) -> list[tuple[str, str]]:
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
            # paragraph after the list. After a lead-in, what it introduces continues it
            # when the two read as one sentence ("by and between:" / "Dong-A ST Co., Ltd.,
            # a corporation ..."), unless it is an item, a numbered one included, or a
            # heading ("the following facts:" / "Recitals").
            continues = bool(
                (not last.ends_on_item and _ENDS_ON_LOWER_WORD.search(last.text))
                or _OPENS_LOWER.match(piece.text)
                or (
                    last.ends_in_colon()
                    and not item
                    and not _OPENS_ON_NUMBER_LABEL.match(piece.text)
                    and not _reads_as_heading(piece.text)
                )
            )
        text = f"{bullet} {piece.text}" if bullet else piece.text
        if last is not None and continues and len(split_sentences(f"{last.text} {text}")) == 1:
            last.text = f"{last.text} {text}"
            last.ends_on_item = item
        else:
            joined.append(_Joined(piece.text, heading, item, item and under_lead_in))
    sentences: list[tuple[str, str]] = []
    for i, entry in enumerate(joined):
        if entry.leads_into_numbered_list(joined[i + 1] if i + 1 < len(joined) else None):
            body = " ".join(_COLON_THEN_NUMBER_LABEL.sub(":", entry.text).split()).rstrip(" :")
            sentences.append((body, LEAD_IN))
            continue
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
    return [text for text, _ in passage_pieces(passage)]

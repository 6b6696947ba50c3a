"""All prompt text of the answer graph, and the citation-format rules it states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeguard.text.refusal import REFUSAL

__all__ = [
    "REFUSAL",
    "SYSTEM_PROMPT",
    "REGENERATION_RULES",
    "format_sources",
    "answer_messages",
    "regeneration_messages",
]

SYSTEM_PROMPT = f"""You answer questions about documents using ONLY the numbered sources given.
Rules:
- End every sentence with the marker of the source that supports it, like [1] or [2].
- Use only markers of sources that were given. Never use outside knowledge.
- Quote or closely paraphrase the source's own words, including its exact numbers, dates and names.
- Answer in at most four short sentences.
- If the sources do not contain the answer, reply exactly: {REFUSAL}"""

REGENERATION_RULES = f"""Your previous answer was rejected by a citation checker for these reasons:
{{feedback}}
Write a new answer that fixes every problem. Each sentence must state a fact that the cited
source says in its own words, and cite that source. If no source states the answer, reply
exactly: {REFUSAL}"""

# Two worked examples, given as earlier chat turns: small models follow a shown pattern far
# more reliably than a described one (docs/models.md). They come from an unrelated
# domain (a gym contract) so the model learns the shape without borrowing the wording, and
# the answer cites the second source too: this model otherwise cites [1] wherever the
# evidence is.
_EXAMPLE_SOURCES = [
    {
        "doc": "gym-membership.pdf",
        "printed_pages": ["2", "2"],
        "text": "4. FEES. The monthly membership fee is $45, charged on the 5th day of each month.",
    },
    {
        "doc": "gym-membership.pdf",
        "printed_pages": ["3", "3"],
        "text": "7. CANCELLATION. Members may cancel with 30 days' written notice delivered "
        "to the front desk.",
    },
]
_EXAMPLES: list[tuple[str, str]] = [
    (
        "How much is the fee and how can I cancel?",
        "The membership fee is $45 per month, charged on the 5th day of each month [1]. "
        "A member may cancel with 30 days' written notice delivered to the front desk [2].",
    ),
    ("Is there a discount for students?", REFUSAL),
]


def format_sources(evidence: Sequence[dict[str, Any]]) -> str:
    """Number the evidence as source blocks [1]..[k], each headed by document and page.

    The document's name is repeated per source on purpose: naming it once above sources
    from one document saved ~150 prompt tokens a question on CUAD (long file names) but
    cost one more false answer at both validation levels on 100 questions and turned the
    sample lease's parking answer into a refusal (docs/results.md, "Sources and prompts").
    """
    blocks = []
    for number, item in enumerate(evidence, start=1):
        chunk = item.get("chunk", item)
        doc = chunk.get("doc", "document")
        pages = chunk.get("printed_pages") or [item.get("printed_page", "?")]
        first, last = str(pages[0]), str(pages[-1])
        page_label = f"page {first}" if first == last else f"pages {first}-{last}"
        blocks.append(f"[{number}] {doc}, {page_label}\n{chunk.get('text', '').strip()}")
    return "\n\n".join(blocks)


def _user_turn(question: str, evidence: Sequence[dict[str, Any]]) -> str:
    return f"Sources:\n{format_sources(evidence)}\n\nQuestion: {question}"


def answer_messages(question: str, evidence: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """Chat messages for the first, citation-constrained generation."""
    messages: list[tuple[str, str]] = [("system", SYSTEM_PROMPT)]
    for example_question, example_answer in _EXAMPLES:
        messages.append(("human", _user_turn(example_question, _EXAMPLE_SOURCES)))
        messages.append(("ai", example_answer))
    messages.append(("human", _user_turn(question, evidence)))
    return messages


def regeneration_messages(
    question: str, evidence: Sequence[dict[str, Any]], previous: str, feedback: str
) -> list[tuple[str, str]]:
    """The stricter prompt: the rejected answer and, per failing sentence, why it failed."""
    messages = answer_messages(question, evidence)
    messages.append(("ai", previous))
    messages.append(("human", REGENERATION_RULES.format(feedback=feedback)))
    return messages


# --------------------------------------------------------------------------- evidence-first

SELECTION_SYSTEM_PROMPT = """You pick the sentences that answer a question about documents.
The sources are split into numbered sentences like [2.3] (source 2, sentence 3).
Reply with the ids of the sentences that directly answer the question, separated by
commas, at most four, most relevant first. If no sentence answers it, reply: none"""

_SELECTION_EXAMPLE_SOURCES = """[1] gym-membership.pdf, page 2
[1.1] 4. FEES. The monthly membership fee is $45, charged on the 5th day of each month.
[1.2] Fees already paid are not refundable.

[2] gym-membership.pdf, page 3
[2.1] The gym is open from 6 am to 10 pm every day.
[2.2] 7. CANCELLATION. Members may cancel with 30 days' written notice delivered to the \
front desk."""

_SELECTION_EXAMPLES: list[tuple[str, str]] = [
    ("How can a member cancel the membership?", "2.2"),
    ("Is there a discount for students?", "none"),
]

WRITING_SYSTEM_PROMPT = f"""You answer a question using ONLY the given sentences from documents.
Each sentence is labelled with its source marker, like [2]. Answer in one to three short
sentences, each ending with the marker of the source it rests on. Keep the sentences' own
words, numbers, dates and names. If the sentences do not answer the question, reply
exactly: {REFUSAL}"""

_WRITING_EXAMPLE = (
    "Sentences:\n[2] 7. CANCELLATION. Members may cancel with 30 days' written notice "
    "delivered to the front desk.\n\nQuestion: How can a member cancel the membership?",
    "Members may cancel with 30 days' written notice delivered to the front desk [2].",
)

YES_NO_SYSTEM_PROMPT = """You answer a yes/no question from the given sentences only.
Reply with one word: Yes or No."""

SELECTION_RETRY = """The answer built from your previous selection was rejected:
{feedback}
Select again: pick only sentences that state the answer itself. If none does, reply: none"""


def selection_messages(
    question: str, numbered_sources: str, feedback: str | None = None
) -> list[tuple[str, str]]:
    """Messages for the selection step (fixed prefix first, identical across questions)."""
    messages: list[tuple[str, str]] = [("system", SELECTION_SYSTEM_PROMPT)]
    for example_question, example_reply in _SELECTION_EXAMPLES:
        messages.append(
            ("human", f"Sources:\n{_SELECTION_EXAMPLE_SOURCES}\n\nQuestion: {example_question}")
        )
        messages.append(("ai", example_reply))
    messages.append(("human", f"Sources:\n{numbered_sources}\n\nQuestion: {question}"))
    if feedback:
        messages.append(("human", SELECTION_RETRY.format(feedback=feedback)))
    return messages


def writing_messages(
    question: str, selected_sentences: str, previous: str | None = None, feedback: str | None = None
) -> list[tuple[str, str]]:
    """Messages for writing the answer from the selected sentences only."""
    messages: list[tuple[str, str]] = [
        ("system", WRITING_SYSTEM_PROMPT),
        ("human", _WRITING_EXAMPLE[0]),
        ("ai", _WRITING_EXAMPLE[1]),
        ("human", f"Sentences:\n{selected_sentences}\n\nQuestion: {question}"),
    ]
    if previous is not None and feedback:
        messages.append(("ai", previous))
        messages.append(("human", REGENERATION_RULES.format(feedback=feedback)))
    return messages


def yes_no_messages(question: str, selected_sentences: str) -> list[tuple[str, str]]:
    """Messages for the Yes/No lead of an extractive answer."""
    return [
        ("system", YES_NO_SYSTEM_PROMPT),
        ("human", f"Sentences:\n{selected_sentences}\n\nQuestion: {question}"),
    ]

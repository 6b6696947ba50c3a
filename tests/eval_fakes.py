"""A tiny generated dataset and scripted components for evaluation-harness tests."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from citeguard.generate.prompts import REFUSAL
from citeguard.ingest.chunking import ChunkSettings
from citeguard.llm.model_work import WorkCounter

LEASE = (
    "Rent. The tenant shall pay monthly rent of 1,250 dollars on the first day of each month "
    "by bank transfer to the landlord.\n\n"
    "Deposit. The landlord shall return the security deposit within 30 days after the tenant "
    "moves out, less deductions for damage.\n\n"
    "Pets. The tenant may keep one cat with the written consent of the landlord and no other "
    "animals in the apartment.\n"
)
PRIVACY = (
    "Collection. We collect email addresses and postal addresses to send order receipts and "
    "shipping updates to customers.\n\n"
    "Sharing. We never sell personal data to advertisers or data brokers under any "
    "circumstances whatsoever.\n"
)
NOTES = (
    "Parking. Each tenant receives one parking space in the garage beneath the building "
    "for one car.\n"
)

RENT_SPAN = "The tenant shall pay monthly rent of 1,250 dollars on the first day of each month"
DEPOSIT_SPAN = "return the security deposit within 30 days after the tenant moves out"
SELL_SPAN = "We never sell personal data to advertisers or data brokers"

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "rent",
        "question": "When must the tenant pay the monthly rent?",
        "doc": "lease.txt",
        "answerable": True,
        "gold_spans": [{"text": RENT_SPAN}],
        "gold_pages": [1],
        "reference_answer": "on the first day of each month",
    },
    {
        "id": "deposit",
        "question": "Within how many days is the security deposit returned?",
        "doc": "lease.txt",
        "answerable": True,
        "gold_spans": [{"text": DEPOSIT_SPAN}],
        "reference_answer": "within 30 days",
    },
    {
        "id": "sell",
        "question": "Does the company sell personal data to advertisers?",
        "doc": "privacy.txt",
        "answerable": True,
        "gold_spans": [{"text": SELL_SPAN}],
        "reference_answer": "No, it never sells personal data",
    },
    {
        "id": "crypto",
        "question": "What cryptocurrency royalties apply to uranium mining?",
        "answerable": False,
    },
    {
        "id": "pets-dogs",
        "question": "How many dogs may the tenant keep in the apartment?",
        "doc": "lease.txt",
        "answerable": False,
    },
]

# What the scripted model says, per question id: one reply per call, in order.
REPLIES: dict[str, list[str]] = {
    "rent": [
        "The tenant shall pay monthly rent of 1,250 dollars on the first day of each month [1]."
    ],
    # First an unsupported claim, then (after validation feedback) the right answer.
    "deposit": [
        "The deposit is forfeited entirely to cover cleaning costs [1].",
        "The landlord shall return the security deposit within 30 days after the tenant "
        "moves out [1].",
    ],
    # The model refuses an answerable question (evidence is there): a false refusal.
    "sell": [REFUSAL, REFUSAL],
    # An answer to an unanswerable question: cites a real source, but it is wrong.
    "pets-dogs": [
        "The tenant may keep one cat with the written consent of the landlord [1].",
    ],
}

CHUNKS = ChunkSettings(max_tokens=40, overlap_tokens=0, min_chunk_tokens=3)


def write_dataset(root: Path, questions: Sequence[dict[str, Any]] = QUESTIONS) -> Path:
    """The dataset folder: docs/ with three small documents, and questions.jsonl."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "lease.txt").write_text(LEASE, encoding="utf-8")
    (docs / "privacy.txt").write_text(PRIVACY, encoding="utf-8")
    (docs / "notes.md").write_text(NOTES, encoding="utf-8")
    lines = [json.dumps(q) for q in questions]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


class QuestionScriptedChatModel(BaseChatModel):
    """Replies by question: finds which scripted question the prompt asks and pops its next
    reply. Records every call, and can fail after a number of calls (a simulated crash)."""

    replies: dict[str, list[str]]
    questions: dict[str, str]
    """Question text -> id."""
    calls: list[str] = []
    crash_after: int | None = None

    @property
    def _llm_type(self) -> str:
        return "question-scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        if self.crash_after is not None and len(self.calls) >= self.crash_after:
            raise KeyboardInterrupt("simulated crash")
        # The last "Question:" line is the real question (earlier ones are worked examples);
        # a regeneration prompt repeats the whole first prompt before its feedback.
        prompt = "\n".join(str(m.content) for m in messages)
        asked = re.findall(r"Question: (.+)", prompt)
        question_id = self.questions[asked[-1].strip()]
        self.calls.append(question_id)
        reply = self.replies[question_id].pop(0)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


def scripted_chat_model(crash_after: int | None = None) -> QuestionScriptedChatModel:
    return QuestionScriptedChatModel(
        replies={k: list(v) for k, v in REPLIES.items()},
        questions={q["question"]: q["id"] for q in QUESTIONS},
        calls=[],
        crash_after=crash_after,
    )


def word_judge(claim: str, evidence: str) -> float:
    """A deterministic stand-in for the entailment judge: 0.9 when at least 80% of the
    claim's words (4+ letters) occur in the evidence, else 0.1."""
    words = set(re.findall(r"[a-z]{4,}", claim.lower()))
    if not words:
        return 0.1
    found = words & set(re.findall(r"[a-z]{4,}", evidence.lower()))
    return 0.9 if len(found) / len(words) >= 0.8 else 0.1


class CountingScriptedChatModel(QuestionScriptedChatModel):
    """A scripted model that reports its work as the local llama.cpp model does: each call
    evaluates 100 prompt tokens (50 more from the KV cache) and decodes 10, counted in its
    ``work`` (which the resources built around it count with)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    work: WorkCounter = Field(default_factory=WorkCounter, exclude=True)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        self.work.add_prompt(evaluated=100, reused=50, seconds=0.5)
        self.work.add_decode(tokens=10, seconds=0.25)
        return super()._generate(messages, stop, run_manager)


def counting_chat_model() -> CountingScriptedChatModel:
    return CountingScriptedChatModel(
        replies={k: list(v) for k, v in REPLIES.items()},
        questions={q["question"]: q["id"] for q in QUESTIONS},
        calls=[],
    )

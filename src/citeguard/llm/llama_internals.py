"""Every use of llama-cpp-python beyond its public ``Llama`` methods, in one place.

CiteGuard runs llama-cpp-python 0.3.x. Its ``Llama`` class lacks a few things CiteGuard
needs, so the functions below reach past it; when llama-cpp-python changes, this is the
module to check (``tests/test_llm.py``'s integration test exercises every function). Why
each is needed:

- :func:`extra_buffer_types` wraps ``llama_cpp.llama.llama_cpp.llama_model_default_params``:
  ``Llama`` has no argument for llama.cpp's "extra buffer types" (AMX kernels, weight
  repacking), so the defaults it starts from are changed while a model loads.
- :func:`context_tokens`, :func:`last_context_token`, :func:`set_context_tokens` and
  :func:`keep_context_prefix` read and set ``Llama.input_ids`` and ``n_tokens``: the record
  of which tokens the KV cache holds, which ``Llama.eval`` trusts to skip a shared prefix.
  It must follow a KV snapshot that is loaded, a guessed token that is dropped, or a timing
  pass that is undone.
- :func:`save_sequence_state` and :func:`load_sequence_state` pass ``Llama._ctx.ctx`` (the
  raw context) to llama.cpp's ``llama_state_seq_*`` calls: a snapshot of one sequence's KV
  state, without the n_batch x n_vocab logits table that ``Llama.save_state`` copies too.
- :func:`eval_with_logits` fills ``Llama._batch`` and decodes it on ``Llama._ctx``:
  ``Llama.eval`` keeps the logits of every token only when the model was loaded with
  ``logits_all=True``, which allocates n_ctx x n_vocab floats (2.4 GB here) for every call,
  while checking guessed tokens needs them for one short batch.
- :func:`last_logits` reads ``Llama._ctx.get_logits_ith(-1)``: the next-token logits after
  an ``eval`` without ``logits_all`` (``Llama.scores`` is only filled with it).
- :func:`vocab` hands ``Llama._model.vocab`` to llama.cpp's grammar sampler and end-of-
  generation test, which take the vocabulary pointer.
- :func:`chat_formatter` reads ``Llama._model``'s special tokens to build the same Jinja2
  formatter ``create_chat_completion`` builds, so that CiteGuard's own decoding loop and the
  judge tokenize exactly the prompt llama-cpp-python's loop would.
- :func:`graph_callback` and :class:`LastTokenStates` wrap ``llama_context_default_params``
  and call ``libggml-base``'s tensor functions: ``Llama`` has no argument for llama.cpp's
  graph callback (``cb_eval``), through which a layer's hidden states can be read. Only a
  bench uses them (``bench/judge_hidden_state.py``, what the judge's hidden state knows); the
  graph never sets a callback, which would be called for every node of every pass.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.errors import ModelUnavailableError

INSTALL_HINT = "pip install 'citeguard-rag[local-llm]'"

# Reentrant: a model loaded inside graph_callback's block edits the model defaults too.
_DEFAULT_PARAMS_LOCK = threading.RLock()


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or an error that names the install command."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelUnavailableError(
            f"the local model needs llama-cpp-python (builds from source, ~4 min): {INSTALL_HINT}"
        ) from exc
    return llama_cpp


@contextlib.contextmanager
def extra_buffer_types(enabled: bool) -> Iterator[None]:
    """Load models with llama.cpp's "extra buffer types" (AMX, weight repacking) on or off.

    Whether AMX is safe is decided by :func:`citeguard.llm.amx.extra_buffers_enabled`: where
    it is not, the first matrix product kills the whole process. The defaults are wrapped
    for the length of the block, so one load at a time may use it (a lock sees to that).
    """
    with _edited_defaults("llama_model_default_params", "use_extra_bufts", enabled):
        yield


@contextlib.contextmanager
def graph_callback(callback: Any) -> Iterator[None]:
    """Contexts made inside the block call ``callback`` (a
    ``ggml_backend_sched_eval_callback``, such as :attr:`LastTokenStates.callback`) for every
    node of their compute graph."""
    with _edited_defaults("llama_context_default_params", "cb_eval", callback):
        yield


@contextlib.contextmanager
def _edited_defaults(function: str, field: str, value: Any) -> Iterator[None]:
    """For the length of the block, the defaults llama-cpp-python's low-level ``function``
    returns (which ``Llama`` starts from) have ``field`` set to ``value``. One block at a
    time (a lock): the function is module state."""
    import llama_cpp.llama as llama_module

    low_level = llama_module.llama_cpp
    with _DEFAULT_PARAMS_LOCK:
        original = getattr(low_level, function)

        def edited() -> Any:
            params = original()
            setattr(params, field, value)
            return params

        setattr(low_level, function, edited)
        try:
            yield
        finally:
            setattr(low_level, function, original)


FINAL_NORM = "final"
""":class:`LastTokenStates`' name for the normed last hidden state (llama.cpp's
``result_norm``), the one the next-token logits are computed from."""


class LastTokenStates:
    """The hidden state of the last token of the latest evaluated batch, after each of
    ``layers`` (layer numbers as text, or :data:`FINAL_NORM`), kept in :attr:`rows`.

    Install :attr:`callback` with :func:`graph_callback` while the context is made; keep this
    object alive as long as the context (llama.cpp holds only the C pointer).
    """

    def __init__(self, layers: Sequence[str], width: int) -> None:
        llama_cpp = import_llama_cpp()
        folder = Path(llama_cpp.__file__).parent / "lib"
        ggml = ctypes.CDLL(str(folder / "libggml-base.so"))
        ggml.ggml_get_name.restype = ctypes.c_char_p
        ggml.ggml_get_name.argtypes = [ctypes.c_void_p]
        ggml.ggml_nelements.restype = ctypes.c_int64
        ggml.ggml_nelements.argtypes = [ctypes.c_void_p]
        ggml.ggml_nbytes.restype = ctypes.c_size_t
        ggml.ggml_nbytes.argtypes = [ctypes.c_void_p]
        ggml.ggml_backend_tensor_get.argtypes = [
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_size_t,
        ]
        self._ggml = ggml
        self._width = width
        self._layer_of = {
            (b"result_norm" if layer == FINAL_NORM else f"l_out-{layer}".encode()): layer
            for layer in layers
        }
        self.rows: dict[str, np.ndarray] = {}
        """The latest row of each layer, by its name in ``layers``."""
        self.callback = llama_cpp.llama_cpp.ggml_backend_sched_eval_callback(self._on_node)

    def _on_node(self, tensor: int, ask: bool, _user_data: int) -> bool:
        """llama.cpp asks first whether a node's data is wanted, then hands that data over."""
        layer = self._layer_of.get(self._ggml.ggml_get_name(tensor))
        if layer is None:
            return not ask
        if ask:
            return True
        count = int(self._ggml.ggml_nelements(tensor))
        if self._ggml.ggml_nbytes(tensor) != count * 4 or count % self._width:
            raise RuntimeError(
                f"layer {layer}'s hidden states are not float32 rows of {self._width}"
            )
        row = np.empty(self._width, dtype=np.float32)
        offset = (count - self._width) * 4
        self._ggml.ggml_backend_tensor_get(tensor, row.ctypes.data, offset, self._width * 4)
        self.rows[layer] = row
        return True


def context_tokens(llama: Any) -> list[int]:
    """The tokens the context's KV cache holds, in order."""
    tokens: list[int] = llama._input_ids.tolist()
    return tokens


def set_context_tokens(llama: Any, tokens: Sequence[int]) -> None:
    """Record that the KV cache holds ``tokens`` (after loading a snapshot of them)."""
    llama.input_ids[: len(tokens)] = tokens
    llama.n_tokens = len(tokens)


def last_context_token(llama: Any) -> int | None:
    """The context's last token (None when it is empty)."""
    return int(llama.input_ids[llama.n_tokens - 1]) if llama.n_tokens else None


def keep_context_prefix(llama: Any, count: int) -> None:
    """Record that only the first ``count`` tokens of the context count; the next
    evaluation drops the KV cache past them (guesses undone, a prefix reused)."""
    llama.n_tokens = count


def save_sequence_state(llama: Any, capacity_bytes: int) -> tuple[Any, int] | None:
    """A copy of the context's KV state (buffer, bytes), or None when it would not fit in
    ``capacity_bytes`` or llama.cpp wrote nothing."""
    llama_cpp = import_llama_cpp()
    ctx = llama._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, 0)
    if size > capacity_bytes:
        return None
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
    if not written:
        return None
    return buffer, int(written)


def load_sequence_state(llama: Any, buffer: Any, size: int) -> bool:
    """Load a state from :func:`save_sequence_state`; False when llama.cpp refused it."""
    llama_cpp = import_llama_cpp()
    return bool(llama_cpp.llama_state_seq_set_data(llama._ctx.ctx, buffer, size, 0) == size)


def eval_with_logits(llama: Any, tokens: list[int]) -> Any:
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


def last_logits(llama: Any) -> Any:
    """The next-token logits after the last ``Llama.eval`` (a view, valid until the next)."""
    import numpy as np

    return np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))


def vocab(llama: Any) -> Any:
    """The model's vocabulary pointer, for llama.cpp's sampler and vocabulary calls."""
    return llama._model.vocab


def is_end_of_generation(llama: Any, token: int) -> bool:
    """Whether ``token`` ends generation (end of turn or of text) for this model."""
    return bool(import_llama_cpp().llama_vocab_is_eog(vocab(llama), token))


def chat_formatter(llama: Any) -> Any:
    """The GGUF's chat template as ``create_chat_completion`` formats it.

    Raises:
        ModelUnavailableError: the GGUF carries no chat template.
    """
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

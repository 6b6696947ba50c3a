"""Per-machine settings: every ``CITEGUARD_*`` environment variable, defined once, read here.

These say where things live on this machine and how hard its CPU may be driven; what a run
answers is decided by its graph settings (``citeguard.graph.context``), not by these. Each
variable is one row of :data:`VARIABLES` (name, default, meaning), read only through the
typed functions below, and read when asked, never at import time, so a changed environment
(a test's ``monkeypatch.setenv``, a server started with other settings) is seen.
``tests/test_environment.py`` fails when a module under ``src/citeguard`` reads a
``CITEGUARD_*`` variable itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Switch = Literal["auto", "on", "off"]
"""A setting that a value turns on or off and that is otherwise decided by measuring."""

_ON = frozenset({"1", "on", "true"})
_OFF = frozenset({"0", "off", "false"})


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, its default (as text) and what it sets."""

    name: str
    default: str
    meaning: str


INDEX = Variable(
    "CITEGUARD_INDEX", "./.citeguard", "index folder when no --index or index_dir is given"
)
CACHE = Variable(
    "CITEGUARD_CACHE",
    "~/.cache/citeguard",
    "folder of files built once per machine: assembled model weights, the Q8_0 copy, "
    "AMX verdicts, the llama-cpp-python wheel",
)
GGUF = Variable(
    "CITEGUARD_GGUF", "", "a GGUF chat model file to run instead of the bundled Qwen2.5 1.5B"
)
LLAMA_THREADS = Variable(
    "CITEGUARD_LLAMA_THREADS",
    "",
    "llama.cpp threads for prompts and decoding (empty: every core); on a machine shared "
    "with other busy processes 1 can be several times faster, as idle threads spin",
)
PROMPT_CACHE_MB = Variable(
    "CITEGUARD_PROMPT_CACHE_MB",
    "1024",
    "memory for KV snapshots of recent prompts, so a repeated prompt prefix is not read "
    "again; 0 turns KV reuse off (every call reads its whole prompt)",
)
LOOKUP_DECODING = Variable(
    "CITEGUARD_LOOKUP_DECODING",
    "auto",
    "auto: CiteGuard's greedy loop, checking guessed tokens several per pass where this CPU "
    "makes that faster; 1: always guess; 0: llama-cpp-python's own loop, one token per pass",
)
LLAMA_EXTRA_BUFFERS = Variable(
    "CITEGUARD_LLAMA_EXTRA_BUFFERS",
    "auto",
    "auto: on CPUs with AMX, check once in a child process that llama.cpp can use it, then "
    "run a Q8_0 copy of the model on it; 1: llama.cpp's extra buffer types always on; 0: off",
)
EMBED_BF16 = Variable(
    "CITEGUARD_EMBED_BF16",
    "auto",
    "auto: the embedding model reads in bfloat16 on CPUs with AMX bfloat16 units (ingest "
    "about 3x faster, vectors within cosine 0.9999 of float32), in float32 elsewhere; "
    "1: always bfloat16 (slow on CPUs without bfloat16 units); 0: always float32",
)

DOCUMENT_ROOTS = Variable(
    "CITEGUARD_DOCUMENT_ROOTS",
    "",
    "served graphs only: the folders (separated by ':') whose files the served indexer graph "
    "may read by path; unset: it reads no server path, clients send file contents instead",
)
INDEX_ROOT = Variable(
    "CITEGUARD_INDEX_ROOT",
    "",
    "served graphs only: the folder holding the indexes clients may name (an index_dir is a "
    "name inside it); unset: clients cannot choose, every run uses the default index",
)
LEARNED_WEIGHTS = Variable(
    "CITEGUARD_LEARNED_WEIGHTS",
    "",
    "a folder holding scorer/ and/or verifier/ as `citeguard train` writes them (the "
    "contents of its OUT/model), used instead of the trained models shipped in the package",
)

VARIABLES: tuple[Variable, ...] = (
    INDEX,
    CACHE,
    GGUF,
    LLAMA_THREADS,
    PROMPT_CACHE_MB,
    LOOKUP_DECODING,
    LLAMA_EXTRA_BUFFERS,
    EMBED_BF16,
    DOCUMENT_ROOTS,
    INDEX_ROOT,
    LEARNED_WEIGHTS,
)


def _set_value(variable: Variable) -> str | None:
    """The variable's value when it is set and not empty, else None."""
    return os.environ.get(variable.name) or None


def _integer(variable: Variable) -> int | None:
    value = _set_value(variable)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{variable.name} must be a whole number, not {value!r}") from None


def _switch(variable: Variable) -> Switch:
    value = (os.environ.get(variable.name) or variable.default).strip().lower()
    if value in _ON:
        return "on"
    if value in _OFF:
        return "off"
    return "auto"


def index_dir() -> Path | None:
    """The index folder ``CITEGUARD_INDEX`` names (None: unset)."""
    value = _set_value(INDEX)
    return Path(value).expanduser() if value else None


def cache_root() -> Path:
    """The per-machine cache folder: ``CITEGUARD_CACHE``, else ``~/.cache/citeguard``."""
    value = _set_value(CACHE)
    return Path(value) if value else Path.home() / ".cache" / "citeguard"


def gguf_file() -> str | None:
    """The GGUF file ``CITEGUARD_GGUF`` names, as written (None: the bundled model)."""
    return _set_value(GGUF)


def llama_threads() -> int:
    """llama.cpp threads: ``CITEGUARD_LLAMA_THREADS``, else every CPU."""
    return _integer(LLAMA_THREADS) or os.cpu_count() or 1


def prompt_cache_mb() -> int:
    """MB of KV snapshots (``CITEGUARD_PROMPT_CACHE_MB``, default 1024); 0 or less: no KV
    reuse at all."""
    value = _integer(PROMPT_CACHE_MB)
    return int(PROMPT_CACHE_MB.default) if value is None else value


def lookup_decoding() -> Switch:
    """``CITEGUARD_LOOKUP_DECODING``: "off" is llama-cpp-python's loop, "on" always guesses,
    "auto" (the default) guesses where timing says it pays."""
    return _switch(LOOKUP_DECODING)


def llama_extra_buffers() -> Switch:
    """``CITEGUARD_LLAMA_EXTRA_BUFFERS``: "on"/"off" force llama.cpp's extra buffer types
    (AMX); "auto" (the default) probes the CPU once."""
    return _switch(LLAMA_EXTRA_BUFFERS)


def embed_bf16() -> Switch:
    """``CITEGUARD_EMBED_BF16``: "on"/"off" force the embedding model's bfloat16 reading;
    "auto" (the default) uses it where the CPU has AMX bfloat16 units."""
    return _switch(EMBED_BF16)


def document_roots() -> tuple[Path, ...]:
    """The folders ``CITEGUARD_DOCUMENT_ROOTS`` names (empty: none)."""
    value = _set_value(DOCUMENT_ROOTS) or ""
    return tuple(Path(part).expanduser() for part in value.split(os.pathsep) if part.strip())


def index_root() -> Path | None:
    """The folder ``CITEGUARD_INDEX_ROOT`` names (None: unset)."""
    value = _set_value(INDEX_ROOT)
    return Path(value).expanduser() if value else None


def learned_weights() -> Path | None:
    """The folder ``CITEGUARD_LEARNED_WEIGHTS`` names (None: the shipped models)."""
    value = _set_value(LEARNED_WEIGHTS)
    return Path(value).expanduser() if value else None

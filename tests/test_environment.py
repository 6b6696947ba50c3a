"""CITEGUARD_* variables: defined once in citeguard.environment, read nowhere else."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from citeguard import environment

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "citeguard"
OWNER = PACKAGE / "environment.py"
NAME = re.compile(r"^CITEGUARD_[A-Z0-9_]+$")


def environment_reads(module: Path) -> list[str]:
    """``CITEGUARD_*`` names a module reads from the environment, or holds as a bare name
    (a constant passed to ``os.environ`` somewhere else), with their line numbers."""
    found: list[str] = []
    for node in ast.walk(ast.parse(module.read_text(), filename=str(module))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if NAME.match(node.value):
                found.append(f"line {node.lineno}: {node.value}")
    return found


@pytest.mark.parametrize(
    "module",
    [m for m in sorted(PACKAGE.rglob("*.py")) if m != OWNER],
    ids=lambda m: str(m.relative_to(PACKAGE)),
)
def test_only_environment_reads_citeguard_variables(module: Path) -> None:
    reads = environment_reads(module)
    assert not reads, (
        f"{module.relative_to(PACKAGE)} names CITEGUARD_* variables itself ({reads}): "
        "define them in citeguard/environment.py and read them through its functions"
    )


def test_the_check_sees_direct_reads(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\n"
        "a = os.environ['CITEGUARD_GGUF']\n"
        "b = os.environ.get('CITEGUARD_LLAMA_THREADS')\n"
        "c = os.getenv('CITEGUARD_CACHE', '')\n"
        '"""Docs may mention $CITEGUARD_INDEX."""\n'
    )
    assert [read.split(": ")[1] for read in environment_reads(probe)] == [
        "CITEGUARD_GGUF",
        "CITEGUARD_LLAMA_THREADS",
        "CITEGUARD_CACHE",
    ]


def test_every_variable_is_in_the_table_once() -> None:
    names = [variable.name for variable in environment.VARIABLES]
    assert len(names) == len(set(names)) == 11
    assert all(NAME.match(name) for name in names)
    assert all(variable.meaning for variable in environment.VARIABLES)


def test_the_readme_table_lists_every_variable() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(CITEGUARD_[A-Z0-9_]+)` \|", readme, flags=re.M)
    assert sorted(listed) == sorted(variable.name for variable in environment.VARIABLES)


def test_accessors_read_the_environment_when_called(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for variable in environment.VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)
    assert environment.index_dir() is None and environment.gguf_file() is None
    assert environment.cache_root() == Path.home() / ".cache" / "citeguard"
    assert environment.llama_threads() == (os.cpu_count() or 1)
    assert environment.prompt_cache_mb() == 1024
    assert environment.lookup_decoding() == environment.llama_extra_buffers() == "auto"
    assert environment.embed_bf16() == "auto"

    monkeypatch.setenv(environment.INDEX.name, str(tmp_path / "index"))
    monkeypatch.setenv(environment.CACHE.name, str(tmp_path / "cache"))
    monkeypatch.setenv(environment.GGUF.name, "~/model.gguf")
    monkeypatch.setenv(environment.LLAMA_THREADS.name, "1")
    monkeypatch.setenv(environment.PROMPT_CACHE_MB.name, "0")
    monkeypatch.setenv(environment.LOOKUP_DECODING.name, "1")
    monkeypatch.setenv(environment.LLAMA_EXTRA_BUFFERS.name, " Off ")
    monkeypatch.setenv(environment.EMBED_BF16.name, "1")
    assert environment.index_dir() == tmp_path / "index"
    assert environment.cache_root() == tmp_path / "cache"
    assert environment.gguf_file() == "~/model.gguf"
    assert environment.llama_threads() == 1
    assert environment.prompt_cache_mb() == 0
    assert environment.lookup_decoding() == "on"
    assert environment.llama_extra_buffers() == "off"
    assert environment.embed_bf16() == "on"
    monkeypatch.setenv(environment.LLAMA_THREADS.name, "many")
    with pytest.raises(ValueError, match=environment.LLAMA_THREADS.name):
        environment.llama_threads()

"""What this machine's CPU can do, read from ``/proc/cpuinfo``.

Two parts of CiteGuard choose their arithmetic by the CPU: llama.cpp's AMX tiles for the
chat model (``citeguard.llm.amx``) and the embedding model's bfloat16 reading
(``citeguard.index.embedder``). Both read the flags here.
"""

from __future__ import annotations

from pathlib import Path

AMX_BF16_FLAGS = frozenset({"amx_tile", "amx_bf16"})
"""The flags of AMX's bfloat16 matrix units (Intel Xeon since Sapphire Rapids)."""


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The feature flags of the first CPU in ``cpuinfo`` (empty where there is no such file)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def cpu_has_amx_bf16(flags: frozenset[str] | None = None) -> bool:
    """Whether the CPU's flags (default: read from /proc/cpuinfo) include AMX's bfloat16
    units, which multiply bfloat16 matrices several times faster than float32 on AVX-512."""
    return AMX_BF16_FLAGS <= (cpu_flags() if flags is None else flags)

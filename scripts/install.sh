#!/usr/bin/env bash
# Create (or reuse) the project's virtualenv and install CiteGuard with the given extras.
# Usage: scripts/install.sh [EXTRAS]   e.g. scripts/install.sh local-llm,dev
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-local-llm}"
venv="${CITEGUARD_VENV:-.venv}"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --disable-pip-version-check -q)
# torch first and pinned: 2.13.0 is the CPU build; an unpinned torch may pull a multi-GB
# CUDA build.
"${pip[@]}" "torch==2.13.0"
case ",${extras}," in
  *,local-llm,*)
    # llama-cpp-python builds from source (~5 min on 2 cores), once: the wheel is kept in
    # the cache folder and reused. GCC's dead-store elimination drops the stores that fill
    # AMX's tile configuration (GCC 12), so with GCC it is built with -fno-dse; otherwise
    # AMX, ~30% faster prompts on CPUs that have it, cannot be used (src/citeguard/llm/amx.py).
    llama="llama-cpp-python==0.3.36"
    wheels="${CITEGUARD_CACHE:-$HOME/.cache/citeguard}/wheels"
    wheel=$(ls "$wheels"/llama_cpp_python-0.3.36-*.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$wheel" ]; then
      cmake_args="${CMAKE_ARGS:-}"
      if "${CC:-cc}" --version 2>/dev/null | grep -q "Free Software Foundation"; then
        cmake_args="$cmake_args -DCMAKE_C_FLAGS='-fno-dse -fno-tree-dse'"
        cmake_args="$cmake_args -DCMAKE_CXX_FLAGS='-fno-dse -fno-tree-dse'"
      fi
      echo "building $llama from source, once (~5 min)..."
      mkdir -p "$wheels"
      CMAKE_ARGS="$cmake_args" "$venv/bin/python" -m pip wheel --disable-pip-version-check -q \
        --no-deps --no-cache-dir "$llama" -w "$wheels"
      wheel=$(ls "$wheels"/llama_cpp_python-0.3.36-*.whl | head -n 1)
    fi
    # Replaces a llama-cpp-python built elsewhere (pip's own cache) by this build.
    # (Its dependencies come with the install below.)
    marker="$venv/.citeguard-llama-wheel.sha256"
    if ! sha256sum "$wheel" | cmp -s - "$marker"; then
      "${pip[@]}" --no-deps --force-reinstall "$wheel"
      sha256sum "$wheel" > "$marker"
    fi
    ;;
esac
"${pip[@]}" -e ".[${extras}]"

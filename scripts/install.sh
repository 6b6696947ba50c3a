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
# CUDA build. llama-cpp-python builds from source the first time (~4 min on 2 cores).
"${pip[@]}" "torch==2.13.0"
"${pip[@]}" -e ".[${extras}]"

#!/usr/bin/env bash
# Install CiteGuard with every extra and run the whole test suite (real-model tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh local-llm,server,eval,dev
venv="${CITEGUARD_VENV:-.venv}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec "$venv/bin/python" -m pytest "$@"

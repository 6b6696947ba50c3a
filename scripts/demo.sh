#!/usr/bin/env bash
# Install CiteGuard and answer questions over the bundled sample corpus, offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh local-llm
venv="${CITEGUARD_VENV:-.venv}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
corpus="src/citeguard/sample_corpus/docs"
index=".citeguard-sample"
"$venv/bin/citeguard" ingest "$corpus" --index "$index"
echo
# Both questions in one process: the models load once.
"$venv/bin/citeguard" ask --index "$index" \
  "When is the rent due, and what is the late fee?" \
  "Does the lease include a parking space?"

"""Start-up: how long a fresh process takes to have a question's embedding models ready,
how long ``citeguard ingest`` takes on the bundled sample corpus, and (``--ask``) a whole
``citeguard ask`` on it, each run several times.

A question needs the MiniLM embedder (the query's vector) and the evidence scorer. Both
are BERT models that ``citeguard.index.bert_encoder`` runs in plain PyTorch; the
reference is the same two models loaded through sentence-transformers, as before that
module (and as training still does). Each timing is a new Python process, so imports are
counted as a user's ``citeguard ask`` pays them.

    python bench/startup_time.py --runs 3 [--ask] --out FILE
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "When is rent due?"
PASSAGE = "The monthly rent is payable in advance on or before the first day of each month."

WITH_ENCODER = f"""
from citeguard.index.embedder import get_embedder
from citeguard.learned.shipped import shipped_model
get_embedder().embed_query({QUESTION!r})
shipped_model("scorer").scores([({QUESTION!r}, {PASSAGE!r})])
"""

WITH_SENTENCE_TRANSFORMERS = f"""
import torch
from sentence_transformers import SentenceTransformer
from citeguard.index.embedder import resolve_embedding_model_path
from citeguard.learned.bi_encoder import EMBEDDINGS_PREFIX, base_embedder, transformer_of
from citeguard.learned.saved_model import load_trained_weights, read_description
from citeguard.learned.shipped import shipped_folder
SentenceTransformer(str(resolve_embedding_model_path("all-MiniLM-L6-v2"))).encode([{QUESTION!r}])
folder = shipped_folder("scorer")
description = read_description(folder)
scorer = base_embedder(str(description["base_model"]), int(description["max_length"]))
load_trained_weights(transformer_of(scorer), folder, EMBEDDINGS_PREFIX, description)
with torch.inference_mode():
    scorer.encode([{QUESTION!r}, {PASSAGE!r}], normalize_embeddings=True)
"""


def _seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="processes per measurement")
    parser.add_argument("--out", type=Path, help="write the summary here as JSON")
    parser.add_argument(
        "--ask",
        action="store_true",
        help=f"also time a whole `citeguard ask {QUESTION!r}` on the ingested corpus "
        "(needs the local model; ~30 s a run on 2 cores)",
    )
    args = parser.parse_args()
    corpus = Path(__file__).resolve().parents[1] / "src" / "citeguard" / "sample_corpus" / "docs"
    citeguard = str(Path(sys.executable).with_name("citeguard"))
    timings: dict[str, list[float]] = {
        "python_start": [],
        "encoder": [],
        "sentence_transformers": [],
        "ingest": [],
        **({"ask": []} if args.ask else {}),
    }
    for _ in range(args.runs):
        timings["python_start"].append(_seconds([sys.executable, "-c", "pass"]))
        timings["encoder"].append(_seconds([sys.executable, "-c", WITH_ENCODER]))
        timings["sentence_transformers"].append(
            _seconds([sys.executable, "-c", WITH_SENTENCE_TRANSFORMERS])
        )
        with tempfile.TemporaryDirectory() as index:
            timings["ingest"].append(_seconds([citeguard, "ingest", str(corpus), "--index", index]))
            if args.ask:
                timings["ask"].append(_seconds([citeguard, "ask", QUESTION, "--index", index]))
    summary = {
        "command": " ".join(["python bench/startup_time.py", *sys.argv[1:]]),
        "runs": args.runs,
        "median_seconds": {name: round(statistics.median(v), 2) for name, v in timings.items()},
        "seconds": {name: [round(x, 2) for x in v] for name, v in timings.items()},
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

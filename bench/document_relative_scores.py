"""Does a score relative to its own document tell answerable questions better than the raw one?

    python bench/document_relative_scores.py DATASET --index DIR [--validation-split]
        [--model DIR] [--out FILE]

A scorer's scores fall over a whole document when a question is worded unlike
the document (everyday words against legal ones), so a fixed threshold fitted on contracts
may refuse a plain-language document's answerable questions. This bench asks whether
placing the best source passage within its document's own distribution removes that
scale. For every question (with ``--validation-split``: the seeded sample of the training
split's held-out documents that ``citeguard calibrate`` uses; else all of DATASET), the
graph's sources (:func:`~citeguard.evaluation.calibrate_scorer.question_sources`) are cut
into the scorer's 80-word passages, and so is every chunk of the question's document(s).
Per question, with the scorer's logits (``--model``, else the shipped one; for a
bi-encoder an affine map of the cosine, so a z-score is the cosine's):

- ``best``: the best source passage's logit (what the graph thresholds, before the
  monotone map to a probability);
- ``z``: that logit's z-score among all passages of the document;
- ``gap_p90``: that logit minus the document's 90th percentile;
- ``gap_second``: the document's best passage minus its second best;
- ``best_plus_z_W``: ``best + W * z`` for a few weights W.

Reports each signal's question-level AUROC. Writes
bench/results/document_relative_scores.json.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from bench_output import write_result
from bench_questions import bench_questions, chosen_scorer, question_bench_parser

OUT = Path("bench/results/document_relative_scores.json")
MIXING_WEIGHTS = (0.2, 0.5, 1.0)


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)

    from citeguard.evaluation.calibrate_scorer import question_sources
    from citeguard.evaluation.pair_metrics import auroc
    from citeguard.index.search import load_index
    from citeguard.learned.evidence import PASSAGE_WORDS
    from citeguard.text.passages import passages

    model = chosen_scorer(args)

    def logits(question: str, texts: list[str]) -> np.ndarray:
        probabilities = np.clip(model.scores([(question, t) for t in texts]), 1e-12, 1 - 1e-12)
        return np.log(probabilities / (1.0 - probabilities))

    searcher = load_index(args.index)
    indexed = set(searcher.documents)
    questions = bench_questions(args)
    document_passages: dict[tuple[str, ...], list[str]] = {}
    rows: list[dict[str, Any]] = []
    for q in questions:
        scope = q.scope(indexed)
        docs = tuple(scope) if scope else tuple(sorted(indexed))
        if docs not in document_passages:
            document_passages[docs] = list(
                dict.fromkeys(
                    p.text
                    for c in searcher.chunks
                    if c.doc in docs
                    for p in passages(c.text, PASSAGE_WORDS)
                )
            )
        document_logits = np.sort(logits(q.question, document_passages[docs]))[::-1]
        sources = question_sources(searcher, q.question, scope)
        cut = [p.text for h in sources for p in passages(h.chunk.text, PASSAGE_WORDS)]
        if not cut or len(document_logits) < 2:
            continue
        best = float(logits(q.question, cut).max())
        spread = float(document_logits.std()) or 1e-6
        rows.append(
            {
                "id": q.id,
                "answerable": q.answerable,
                "best": best,
                "z": (best - float(document_logits.mean())) / spread,
                "gap_p90": best - float(np.percentile(document_logits, 90)),
                "gap_second": float(document_logits[0] - document_logits[1]),
            }
        )
    for weight in MIXING_WEIGHTS:
        for row in rows:
            row[f"best_plus_z_{weight}"] = row["best"] + weight * row["z"]
    labels = [int(r["answerable"]) for r in rows]
    signals = [k for k in rows[0] if k not in ("id", "answerable")] if rows else []
    result = {
        "dataset": str(args.dataset),
        "model": str(args.model) if args.model else "shipped",
        "command": "python bench/document_relative_scores.py " + " ".join(argv),
        "questions": len(rows),
        "question_auroc": {name: auroc([r[name] for r in rows], labels) for name in signals},
        "rows": rows,
    }
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

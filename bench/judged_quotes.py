"""What the benches that re-read a calibration's judged quotes share.

``citeguard calibrate`` judges the passage answer of every held-out question over the refusal
floor and keeps each quote, its labels and its relevance in ``calibration.json``
(``judged_quotes``). Benches that read those quotes again take the same arguments, need
the same things (the calibration, its quotes, each quote's question text, the shipped
scorer) and refit the passage answer thresholds from other relevance scores the same way.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.pair_metrics import auroc
from citeguard.evaluation.question_thresholds import CalibrationSettings, QuestionScore
from citeguard.evaluation.quote_thresholds import JudgedQuote, passage_answer_summary
from citeguard.learned.evidence import PairScorer
from citeguard.learned.shipped import shipped_model
from citeguard.text.questions import is_yes_no_question

CONTENT_FREE = "N/A"
"""The content-free text a reading is also taken with, to measure its bias alone."""


def is_good(quote: dict[str, Any]) -> bool:
    """A good quote: its question is answerable and its best passage holds gold."""
    return bool(quote["answerable"]) and bool(quote["best_passage_answers"])


def sigmoid(x: float) -> float:
    """The logistic function, mapping a log-odds to a probability."""
    return 1.0 / (1.0 + math.exp(-x))


@dataclass
class JudgedQuotes:
    """A calibration's judged quotes, ready to be read again."""

    calibration: dict[str, Any]
    quotes: list[dict[str, Any]]
    questions: list[str]
    """The question of each quote, in order."""
    scorer: PairScorer

    @property
    def good(self) -> list[int]:
        """1 for each good quote (:func:`is_good`), else 0, in order."""
        return [int(is_good(q)) for q in self.quotes]

    def groups(self) -> dict[str, list[bool]]:
        """Which quotes each AUROC is also reported over: all of them, those of yes/no
        questions, and those of passages under the scorer's answer threshold."""
        weak_below = self.calibration["threshold"]
        return {
            "all": [True] * len(self.quotes),
            "yes_no": [is_yes_no_question(q) for q in self.questions],
            "under_answer_threshold": [q["best_score"] < weak_below for q in self.quotes],
        }

    def auroc_by_group(self, scores: Sequence[float]) -> dict[str, float | None]:
        """AUROC of ``scores`` (one per quote, in order), good quotes against the rest,
        over each of :meth:`groups`."""
        good = self.good
        return {
            name: auroc(
                [s for s, keep in zip(scores, kept, strict=True) if keep],
                [g for g, keep in zip(good, kept, strict=True) if keep],
            )
            for name, kept in self.groups().items()
        }


def quote_bench_parser(doc: str, out: Path) -> argparse.ArgumentParser:
    """The arguments of such a bench: DATASET, ``--calibration`` and ``--out`` (default
    ``out``); ``doc`` is the bench's module docstring."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dataset the calibration asked")
    parser.add_argument("--calibration", type=Path, required=True, help="a calibrate --out")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def load_calibration(parser: argparse.ArgumentParser, calibration_dir: Path) -> dict[str, Any]:
    """The ``calibration.json`` of the ``citeguard calibrate --out`` folder
    ``calibration_dir``; a usage error through ``parser`` when the folder holds none or its
    calibration judged no quotes."""
    path = calibration_dir / "calibration.json"
    if not path.is_file():
        parser.error(f"{path} not found: pass the --out folder of a citeguard calibrate run")
    calibration: dict[str, Any] = json.loads(path.read_text())
    if not calibration.get("judged_quotes"):
        parser.error(f"{calibration_dir} judged no quotes (--no-judge-quotes)")
    return calibration


def read_judged_quotes(
    parser: argparse.ArgumentParser, dataset: Path, calibration_dir: Path
) -> JudgedQuotes:
    """The judged quotes of the calibration in ``calibration_dir``, with their questions
    from ``dataset`` and the shipped scorer; a usage error through ``parser`` when the
    folder holds no calibration, it judged no quotes, or the scorer does not load."""
    calibration = load_calibration(parser, calibration_dir)
    quotes = calibration["judged_quotes"]
    scorer = shipped_scorer(parser)
    # cuad-train repeats some ids, always for the same question text.
    asked = {q.id: q.question for q in load_questions(dataset, unique_ids=False)}
    return JudgedQuotes(calibration, quotes, [asked[q["id"]] for q in quotes], scorer)


def shipped_scorer(parser: argparse.ArgumentParser) -> PairScorer:
    """The shipped evidence scorer; a usage error through ``parser`` when it does not load."""
    scorer = shipped_model("scorer")
    if scorer is None:
        parser.error("the shipped scorer could not be loaded")
    return scorer


def stored(kind: type, record: dict[str, Any]) -> Any:
    """A dataclass rebuilt from its JSON record (fields added since ignored)."""
    names = {f.name for f in dataclasses.fields(kind)}
    return kind(**{k: v for k, v in record.items() if k in names})


def refit(calibration: dict[str, Any], relevance: Sequence[float]) -> dict[str, Any]:
    """The passage answer thresholds fitted again by ``citeguard calibrate``'s rules and
    settings with ``relevance`` (one score per judged quote, in order) as the check, what
    they deliver, and the scores' AUROC, good quotes (an answerable question whose best
    passage holds gold) against the rest."""
    rows = [stored(QuestionScore, r) for r in calibration["rows"]]
    judged = [stored(JudgedQuote, q) for q in calibration["judged_quotes"]]
    rescored = [dataclasses.replace(q, relevance=r) for q, r in zip(judged, relevance, strict=True)]
    good = [int(q.answerable and q.best_passage_answers) for q in judged]
    fitted = passage_answer_summary(
        rows,
        rescored,
        calibration["threshold"],
        stored(CalibrationSettings, calibration["settings"]),
    )
    return {
        "auroc": auroc(list(relevance), good),
        "passage_answer_threshold": fitted["passage_answer_threshold"],
        "weak_passage_relevance_threshold": fitted["weak_passage_relevance_threshold"],
        "delivered": fitted["passage_answers"]["with_weak_passages"],
    }

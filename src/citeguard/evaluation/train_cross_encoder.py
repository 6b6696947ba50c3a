"""Train the two cross-encoders: the evidence scorer and the support verifier.

- the **evidence scorer** reads (question, passage): does the passage answer the question?
  Pairs from :mod:`citeguard.evaluation.train_pairs`;
- the **support verifier** reads (claim, evidence): does the evidence support the claim?
  Claims and their controlled edits from :mod:`citeguard.evaluation.verifier_pairs`.

Both start from the bundled MiniLM embedder's encoder (no model hub), fine-tuned with binary
cross-entropy, AdamW and a linear warm-up and decay, all seeded, on CPU, in one of two
architectures: a cross-encoder (the pair read together, a one-logit head) or a bi-encoder
(each text embedded apart, P = sigmoid(scale * cosine + bias), ``citeguard.learned.bi_encoder``).

Written to ``OUT``:

- ``model/``: the trained weights in float16 without the (untrained) embeddings, and
  ``model.json`` with the threshold: what :class:`citeguard.learned.cross_encoder.CrossEncoder`
  loads, and what ``src/citeguard/learned/weights/`` ships;
- ``training.json``: what was trained on and how (pair and training settings, the command),
  the metrics on the validation split, the fitted threshold, the weights' sha256, and the
  data's licence;
- ``report.md`` and ``loss.png``: the training report (loss curve, AUROC overall and on the
  held-out wording, calibration by bins, time and peak memory);
- ``pairs-train.jsonl`` and ``pairs-validation.jsonl``: the exact pairs.

Thresholds are fitted on the validation split of the training dataset. The scorer's: the
lowest score at which passages judged answering are right at least ``target_precision`` of
the time. The verifier's: the highest score that still keeps ``target_precision`` of the
supported claims; the report gives the share of each kind of edited claim it rejects.
"""

from __future__ import annotations

import json
import logging
import math
import random
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from citeguard.errors import ModelUnavailableError
from citeguard.evaluation.pair_draws import (
    TextPair,
    draw_around_mistakes,
    draw_training_pairs,
    misjudged,
)
from citeguard.evaluation.pair_metrics import auroc, calibration, fit_threshold, keep_threshold
from citeguard.evaluation.train_pairs import (
    HELD_OUT_WORDING,
    PairSettings,
    build_pairs,
    load_miner,
)
from citeguard.evaluation.verifier_pairs import build_claims
from citeguard.index.embedder import DEFAULT_EMBEDDING_MODEL
from citeguard.learned.bi_encoder import TrainableBiEncoder
from citeguard.learned.cross_encoder import (
    EMBEDDINGS_PREFIX,
    base_classifier,
    freeze_embeddings,
    save_cross_encoder,
)
from citeguard.learned.evidence import PairScorer
from citeguard.learned.saved_model import describe_model, load_trained_weights, read_description
from citeguard.learned.shipped import load_pair_model

logger = logging.getLogger(__name__)

LICENCE = (
    "Trained on CUAD v1 (c) The Atticus Project, CC BY 4.0 (Hendrycks et al., NeurIPS 2021), "
    "when the dataset is cuad-train; weights derived from all-MiniLM-L6-v2 (Apache-2.0)."
)


Architecture = Literal["cross-encoder", "bi-encoder"]
ARCHITECTURES: tuple[Architecture, ...] = ("cross-encoder", "bi-encoder")


@dataclass(frozen=True)
class TrainSettings:
    """How the scorer is trained; stored with the weights."""

    base_model: str = DEFAULT_EMBEDDING_MODEL
    epochs: int = 1
    batch_size: int = 16
    learning_rate: float = 3e-5
    warmup_share: float = 0.1
    max_length: int = 256
    max_train_pairs: int = 20_000
    """Pairs drawn (seeded) from all training pairs: bounds CPU time."""
    target_precision: float = 0.9
    """The scorer's threshold: passages above it answer this share of the time; the
    verifier's: it keeps this share of the supported claims."""
    recall_keep: float = 0.95
    """The lower threshold keeps this share of the positive pairs (the scorer's refusal
    floor: below it, a passage is taken not to answer)."""
    seed: int = 13
    architecture: Architecture = "cross-encoder"
    """cross-encoder: the pair read together; bi-encoder: each text embedded apart and the
    cosine mapped to a probability (``citeguard.learned.bi_encoder``)."""
    line_learning_rate: float = 1e-2
    """The bi-encoder's scale and bias (two numbers) learn at this rate."""
    init_from: str | None = None
    """A trained model folder of the same architecture and base model to continue training
    from (None: start from ``base_model``)."""
    skip_pairs: int = 0
    """Leave out the first this many pairs of the seeded draw: the pairs the ``init_from``
    model was trained on, with the same seed, so continued training sees new pairs."""
    device: str = "cpu"
    """The torch device that trains, mines and validates (``"cuda"`` where a GPU is).
    The same command gives the same metrics within noise on either, not the same bits."""


Kind = Literal["scorer", "verifier"]
KINDS: tuple[Kind, ...] = ("scorer", "verifier")


Datasets = str | Path | Sequence[str | Path]
"""One dataset folder, or several whose pairs are trained on together."""


def dataset_folders(datasets: Datasets) -> list[Path]:
    """The dataset folders of ``datasets``, in order."""
    if isinstance(datasets, str | Path):
        return [Path(datasets)]
    return [Path(d) for d in datasets]


def text_pairs(
    datasets: Datasets, kind: Kind, settings: PairSettings, device: str = "cpu"
) -> tuple[list[TextPair], list[TextPair]]:
    """(training, validation) pairs of one kind, each dataset split by its documents, the
    datasets' pairs one after another (one dataset: exactly its own pairs); a scorer's
    mined negatives are scored on ``device`` (a torch device name)."""
    train: list[TextPair] = []
    validation: list[TextPair] = []
    miner = load_miner(settings, device) if kind == "scorer" and settings.mined_negatives else None
    for folder in dataset_folders(datasets):
        more_train, more_validation = _dataset_text_pairs(folder, kind, settings, miner)
        train.extend(more_train)
        validation.extend(more_validation)
    return train, validation


def _dataset_text_pairs(
    dataset: Path, kind: Kind, settings: PairSettings, miner: PairScorer | None
) -> tuple[list[TextPair], list[TextPair]]:
    if kind == "scorer":
        train, validation = build_pairs(dataset, settings, miner)
        return (
            [TextPair(p.question, p.passage, p.label, p.wording, p.doc) for p in train],
            [TextPair(p.question, p.passage, p.label, p.wording, p.doc) for p in validation],
        )
    claims_train, claims_validation = build_claims(dataset, settings)
    return (
        [TextPair(c.claim, c.evidence, c.label, c.edit, c.doc) for c in claims_train],
        [TextPair(c.claim, c.evidence, c.label, c.edit, c.doc) for c in claims_validation],
    )


def _write_pairs(pairs: Sequence[TextPair], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for item in pairs:
            out.write(json.dumps(asdict(item)) + "\n")


class _CrossEncoderTrainee:
    """The cross-encoder under training: tokenizer, model, and batched logits."""

    def __init__(
        self, base_model: str, max_length: int, init_from: Path | None, device: str
    ) -> None:
        self.tokenizer, self.model = base_classifier(base_model)
        if init_from is not None:
            load_trained_weights(
                self.model, init_from, EMBEDDINGS_PREFIX, read_description(init_from)
            )
        freeze_embeddings(self.model)
        self.model.to(device)
        self.max_length = max_length
        self.device = device

    def parameter_groups(self, settings: TrainSettings) -> list[dict[str, Any]]:
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        return [{"params": trainable, "lr": settings.learning_rate}]

    def train(self) -> None:
        self.model.train()

    def logits(self, pairs: Sequence[TextPair]) -> Any:
        batch = self.tokenizer(
            [p.first for p in pairs],
            [p.second for p in pairs],
            truncation="longest_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        return self.model(**batch).logits.squeeze(-1)

    def save(self, folder: Path, settings: TrainSettings) -> None:
        save_cross_encoder(self.model, folder, settings.base_model, settings.max_length, {})


class _BiEncoderTrainee:
    """The bi-encoder under training (:class:`TrainableBiEncoder`), same interface."""

    def __init__(
        self, base_model: str, max_length: int, init_from: Path | None, device: str
    ) -> None:
        self.encoder = TrainableBiEncoder(base_model, max_length, device)
        if init_from is not None:
            self.encoder.load(init_from)

    def parameter_groups(self, settings: TrainSettings) -> list[dict[str, Any]]:
        return [
            {"params": self.encoder.encoder_parameters(), "lr": settings.learning_rate},
            {"params": self.encoder.line_parameters(), "lr": settings.line_learning_rate},
        ]

    def train(self) -> None:
        self.encoder.train()

    def logits(self, pairs: Sequence[TextPair]) -> Any:
        return self.encoder.logits([p.first for p in pairs], [p.second for p in pairs])

    def save(self, folder: Path, settings: TrainSettings) -> None:
        self.encoder.save(folder, settings.base_model, settings.max_length, {})


def check_continuable(folder: Path, settings: TrainSettings) -> None:
    """Refuse to continue training a model of another architecture or base model.

    Raises:
        ModelUnavailableError: the folder holds no model, or one that does not match.
    """
    description = read_description(folder)
    architecture = description.get("architecture", "cross-encoder")
    if architecture != settings.architecture or description.get("base_model") != (
        settings.base_model
    ):
        raise ModelUnavailableError(
            f"{folder} holds a {architecture} on {description.get('base_model')}; "
            f"continuing needs a {settings.architecture} on {settings.base_model}"
        )


def train_cross_encoder(
    dataset: Datasets,
    out: str | Path,
    kind: Kind = "scorer",
    pair_settings: PairSettings | None = None,
    settings: TrainSettings | None = None,
    command: str = "",
    on_step: Callable[[int, int, float], None] | None = None,
    on_mining: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Build pairs, train, evaluate on the validation split, write everything to ``out``.

    A verifier with ``pair_settings.mine_with`` trains first on every training pair that
    verifier misjudges, then on a seeded draw of the rest (``on_mining`` reports the
    scoring: pairs done, pairs in all).

    Returns:
        The contents of ``training.json``.
    """
    import torch
    from transformers import get_linear_schedule_with_warmup

    pair_settings = pair_settings or PairSettings()
    settings = settings or TrainSettings()
    started = time.perf_counter()
    init_from = Path(settings.init_from) if settings.init_from else None
    if init_from is not None:
        check_continuable(init_from, settings)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)
    train_pairs, validation_pairs = text_pairs(dataset, kind, pair_settings, settings.device)
    _write_pairs(train_pairs, folder / "pairs-train.jsonl")
    _write_pairs(validation_pairs, folder / "pairs-validation.jsonl")
    mistakes = 0
    if kind == "verifier" and pair_settings.mine_with:
        miner = load_pair_model(Path(pair_settings.mine_with), settings.device)
        wrong = misjudged(train_pairs, miner, on_batch=on_mining)
        mistakes = min(sum(wrong), settings.max_train_pairs)
        chosen = draw_around_mistakes(train_pairs, wrong, settings.max_train_pairs, rng)
    else:
        chosen = draw_training_pairs(
            train_pairs, settings.max_train_pairs, rng, settings.skip_pairs
        )
    logger.info(
        "%d training pairs (of %d; %d misjudged by the miner), %d validation",
        len(chosen),
        len(train_pairs),
        mistakes,
        len(validation_pairs),
    )

    trainee: _CrossEncoderTrainee | _BiEncoderTrainee = (
        _BiEncoderTrainee(settings.base_model, settings.max_length, init_from, settings.device)
        if settings.architecture == "bi-encoder"
        else _CrossEncoderTrainee(
            settings.base_model, settings.max_length, init_from, settings.device
        )
    )
    optimizer = torch.optim.AdamW(trainee.parameter_groups(settings))
    steps = settings.epochs * math.ceil(len(chosen) / settings.batch_size)
    schedule = get_linear_schedule_with_warmup(
        optimizer, int(steps * settings.warmup_share), max(steps, 1)
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses: list[float] = []
    step = 0
    for _ in range(settings.epochs):
        order = chosen[:]
        rng.shuffle(order)
        trainee.train()
        for i in range(0, len(order), settings.batch_size):
            batch = order[i : i + settings.batch_size]
            targets = torch.tensor([float(p.label) for p in batch], device=settings.device)
            loss = loss_fn(trainee.logits(batch), targets)
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(float(loss.detach()))
            step += 1
            if on_step is not None:
                on_step(step, steps, losses[-1])
    train_seconds = time.perf_counter() - started

    # Measured on what ships: the weights as saved (float16, embeddings from the base
    # model), loaded the way the graph loads them.
    model_dir = folder / "model"
    trainee.save(model_dir, settings)
    shipped = load_pair_model(model_dir, settings.device)
    scores = shipped.scores([(p.first, p.second) for p in validation_pairs]).tolist()
    labels = [p.label for p in validation_pairs]
    if kind == "scorer":
        threshold = fit_threshold(scores, labels, settings.target_precision)
    else:
        threshold = keep_threshold(scores, labels, settings.target_precision)
    recall_threshold = keep_threshold(scores, labels, settings.recall_keep)
    positive_scores = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    by_group: dict[str, dict[str, float | None]] = {}
    for name in sorted({p.group for p in validation_pairs}):
        rows = [
            (s, p.label) for s, p in zip(scores, validation_pairs, strict=True) if p.group == name
        ]
        negatives = [s for s, y in rows if y == 0]
        if kind == "verifier" and not negatives:
            # A variant that stays supported (the verifier's "fragment"): how many kept.
            kept_here = [s >= threshold for s, _ in rows]
            by_group[name] = {"kept_at_threshold": float(np.mean(kept_here))}
            continue
        by_group[name] = {
            # The scorer's wordings hold both labels; a verifier edit is scored against
            # every supported claim.
            "auroc": auroc([s for s, _ in rows], [y for _, y in rows])
            if kind == "scorer"
            else auroc(
                positive_scores + negatives, [1] * len(positive_scores) + [0] * len(negatives)
            ),
            "rejected_at_threshold": float(np.mean([s < threshold for s in negatives]))
            if negatives
            else None,
        }
    kept = float(np.mean([s >= threshold for s in positive_scores])) if positive_scores else None

    summary: dict[str, Any] = {
        "kind": kind,
        "dataset": ", ".join(str(d) for d in dataset_folders(dataset)),
        "command": command,
        "pair_settings": asdict(pair_settings),
        "train_settings": asdict(settings),
        "pairs": {
            "train_used": len(chosen),
            "misjudged_by_miner": mistakes,
            "train_all": len(train_pairs),
            "validation": len(validation_pairs),
        },
        "validation": {
            "auroc": auroc(scores, labels),
            "by_group": by_group,
            "held_out_wording": HELD_OUT_WORDING if kind == "scorer" else None,
            "threshold": threshold,
            "positives_kept_at_threshold": kept,
            "recall_threshold": recall_threshold,
            "recall_keep": settings.recall_keep,
            "target_precision": settings.target_precision,
            "calibration": calibration(scores, labels),
        },
        "seconds": time.perf_counter() - started,
        "train_seconds": train_seconds,
        "peak_memory_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "licence": LICENCE,
    }
    saved = describe_model(
        model_dir,
        {
            "kind": kind,
            "threshold": threshold,
            "recall_threshold": recall_threshold,
            "validation_auroc": summary["validation"]["auroc"],
            "command": command,
            "licence": LICENCE,
        },
    )
    summary["weights_sha256"] = saved["weights_sha256"]
    summary["weights_bytes"] = saved["weights_bytes"]
    (folder / "training.json").write_text(json.dumps(summary, indent=2) + "\n")
    _write_report(folder, summary, losses)
    return summary


def _write_report(folder: Path, summary: dict[str, Any], losses: list[float]) -> None:
    """report.md and loss.png (when matplotlib is installed)."""
    try:
        if not losses:
            raise ImportError("no training steps to plot")
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(figsize=(6, 3))
        window = max(1, len(losses) // 50)
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        axis.plot(smooth)
        axis.set_xlabel("step")
        axis.set_ylabel(f"loss (mean of {window})")
        figure.tight_layout()
        figure.savefig(folder / "loss.png", dpi=100)
        plt.close(figure)
    except ImportError as exc:  # the report still says everything in numbers
        logger.warning("no loss.png: %s", exc)
    v = summary["validation"]
    lines = [
        f"# {'Evidence scorer' if summary['kind'] == 'scorer' else 'Support verifier'}: "
        "training report",
        "",
        f"- dataset: `{summary['dataset']}`; command: `{summary['command']}`",
        f"- pairs: {summary['pairs']}",
        f"- validation AUROC: {v['auroc']}",
        f"- by {'wording' if summary['kind'] == 'scorer' else 'edit'}"
        f" (held out of training: {v['held_out_wording']}): {v['by_group']}",
        f"- threshold {v['threshold']:.3f} (target {v['target_precision']}); positives kept "
        f"at it: {v['positives_kept_at_threshold']}; lower threshold {v['recall_threshold']:.3f} "
        f"(keeps {v['recall_keep']} of the positives)",
        f"- time: {summary['seconds']:.0f} s (training {summary['train_seconds']:.0f} s); "
        f"peak memory {summary['peak_memory_mb']:.0f} MB",
        f"- weights: {summary['weights_bytes']:,} bytes, sha256 `{summary['weights_sha256']}`",
        "",
        "| score bin | pairs | mean score | share answering |",
        "|---|---|---|---|",
        *[
            f"| {b['bin']} | {b['pairs']} | {b['mean_score']:.2f} | {b['share_answering']:.2f} |"
            for b in v["calibration"]
        ],
        "",
        "![loss](loss.png)",
        "",
        summary["licence"],
    ]
    (folder / "report.md").write_text("\n".join(lines) + "\n")

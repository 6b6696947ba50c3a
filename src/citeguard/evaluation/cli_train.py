"""``citeguard train DATASET --out DIR [--kind scorer|verifier]``: train a cross-encoder;
``citeguard calibrate DATASET --model DIR --out DIR``: fit a trained scorer's thresholds on
whole questions (:mod:`citeguard.evaluation.calibrate_scorer`).

Any dataset in the project's format works (``docs/`` + ``questions.jsonl`` with gold
character spans; ``categories.json`` adds wordings), so a user with labelled questions over
their own documents, or questions ``citeguard synthesize`` wrote for them, can train their
own scorer; several datasets are trained on together. Defaults come from
:class:`~citeguard.evaluation.train_pairs.PairSettings` and
:class:`~citeguard.evaluation.train_cross_encoder.TrainSettings`.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from citeguard.evaluation.question_thresholds import CalibrationSettings
from citeguard.evaluation.train_cross_encoder import ARCHITECTURES, KINDS, TrainSettings
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.evaluation.verifier_pairs import CLAIM_EDITS, check_claim_edits


def edit_names(text: str) -> tuple[str, ...]:
    """``--claim-edits number,roles,...`` as a tuple of names (checked when pairs are built)."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    try:
        check_claim_edits(names)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return names


OPTIONS = (
    ("epochs", TrainSettings, int, "passes over the training pairs"),
    ("max_train_pairs", TrainSettings, int, "training pairs drawn (seeded) from all of them"),
    ("batch_size", TrainSettings, int, "pairs per optimizer step"),
    ("learning_rate", TrainSettings, float, "AdamW learning rate"),
    ("max_length", TrainSettings, int, "word pieces read per pair"),
    ("target_precision", TrainSettings, float, "precision the fitted threshold aims at"),
    ("passage_words", PairSettings, int, "words per passage"),
    ("hard_negatives", PairSettings, int, "most similar non-answering passages per question"),
    ("validation_share", PairSettings, float, "share of documents kept for validation"),
    (
        "mined_negatives",
        PairSettings,
        int,
        "scorer: this many more negatives per question, the non-answering passages that "
        "the --mine-with scorer rates highest (its own mistakes)",
    ),
    (
        "named_questions",
        PairSettings,
        float,
        'scorer: share of training pairs asked naming their document ("As for Vertex: '
        '...", a name the document uses often and the others rarely), so a name shared '
        "by question and passage is not read as evidence (0: none)",
    ),
    (
        "mine_with",
        PairSettings,
        str,
        "scorer: the trained scorer folder that mines those negatives; verifier: a trained "
        "verifier whose misjudged training pairs (at its threshold) are all trained on, the "
        "seeded draw filling the rest of --max-train-pairs; usually the --init-from one",
    ),
    ("seed", TrainSettings, int, "seed for the split, the sampling and the training"),
    (
        "claim_edits",
        PairSettings,
        edit_names,
        "the verifier's claim variants, comma-separated, of: " + ", ".join(CLAIM_EDITS),
    ),
    (
        "init_from",
        TrainSettings,
        str,
        "a trained model folder (same architecture) to continue training instead of "
        "starting from the base model",
    ),
    (
        "skip_pairs",
        TrainSettings,
        int,
        "leave out the first N pairs of the seeded draw, e.g. those the --init-from model "
        "saw (its --max-train-pairs, same --seed)",
    ),
    (
        "device",
        TrainSettings,
        str,
        "torch device that trains, finds the verifier's mistakes and validates: cpu, or cuda "
        "on a machine with an NVIDIA GPU (same metrics within noise, not the same bits)",
    ),
)
"""Options: field, the settings class that defines it (and its default), type, help."""


def add_train_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``train`` sub-command to the main CLI's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "train",
        help="train the evidence scorer or the support verifier on a labelled dataset",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else None,
    )
    p.add_argument(
        "dataset",
        metavar="DATASET",
        nargs="+",
        help="folder with docs/ and questions.jsonl; several are trained on together, each "
        "split by its own documents (e.g. a labelled set and one `citeguard synthesize` wrote)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the weights and report go")
    p.add_argument(
        "--kind",
        choices=KINDS,
        default="scorer",
        help="scorer: (question, passage) -> answers it?; verifier: (claim, evidence) -> "
        "supported? (default: scorer)",
    )
    p.add_argument(
        "--architecture",
        choices=ARCHITECTURES,
        default=None,
        help="cross-encoder: the two texts read together; bi-encoder: each embedded apart, "
        f"their cosine mapped to a probability (default: {TrainSettings().architecture})",
    )
    for field, owner, kind, text in OPTIONS:
        default = getattr(owner(), field)
        if isinstance(default, tuple):
            default = ",".join(default)
        p.add_argument(
            "--" + field.replace("_", "-"),
            type=kind,
            default=None,
            help=f"{text} (default: {default})",
        )
    return p


PROGRESS_EVERY = 50
"""Without a terminal (a log file), one progress line per this many steps."""
MINING_PROGRESS_EVERY = 5000
"""One progress line per this many pairs scored by the verifier that mines."""


def _device_problem(device: str) -> str | None:
    """Why torch cannot train on ``device`` here, or None when it can."""
    import torch

    try:
        chosen = torch.device(device)
    except (RuntimeError, ValueError) as exc:
        return f"not a torch device name ({exc})"
    if chosen.type == "cuda" and not torch.cuda.is_available():
        return "this torch sees no CUDA GPU (the CPU build, or no driver); use --device cpu"
    if chosen.type not in ("cpu", "cuda"):
        return "use cpu or cuda"
    return None


def run_train(args: argparse.Namespace) -> int:
    """Train and print the validation metrics; the report is in DIR/report.md."""
    from citeguard.evaluation.train_cross_encoder import train_cross_encoder

    chosen = {
        field: getattr(args, field)
        for field in [*(option[0] for option in OPTIONS), "architecture"]
        if getattr(args, field) is not None
    }
    pair_fields = {f.name for f in dataclasses.fields(PairSettings)}
    train_fields = {f.name for f in dataclasses.fields(TrainSettings)}
    pairs = PairSettings(**{k: v for k, v in chosen.items() if k in pair_fields})
    settings = TrainSettings(**{k: v for k, v in chosen.items() if k in train_fields})
    if "seed" in chosen:
        pairs = dataclasses.replace(pairs, seed=chosen["seed"])
    device_problem = _device_problem(settings.device)
    if device_problem:
        print(f"error: --device {settings.device}: {device_problem}", file=sys.stderr)
        return 2
    if pairs.mined_negatives > 0 and args.kind != "scorer":
        print("error: --mined-negatives mines passages for the scorer only", file=sys.stderr)
        return 2
    if pairs.mined_negatives > 0 and not pairs.mine_with:
        print("error: --mined-negatives needs --mine-with SCORER_DIR", file=sys.stderr)
        return 2
    if pairs.named_questions > 0 and args.kind != "scorer":
        print("error: --named-questions names the scorer's questions only", file=sys.stderr)
        return 2
    if not 0.0 <= pairs.named_questions <= 1.0:
        print("error: --named-questions is a share, from 0 to 1", file=sys.stderr)
        return 2
    if pairs.mine_with and not Path(pairs.mine_with, "model.json").is_file():
        print(f"error: --mine-with {pairs.mine_with}: no trained model there", file=sys.stderr)
        return 2
    if pairs.mined_negatives > 0:
        print(
            f"training: mining {pairs.mined_negatives} negatives per question with "
            f"{pairs.mine_with}, one pass over every document (-v logs each)",
            file=sys.stderr,
            flush=True,
        )
    if args.kind == "verifier" and pairs.mine_with:
        print(
            f"training: scoring every training pair with {pairs.mine_with} to find its mistakes",
            file=sys.stderr,
            flush=True,
        )
    bar = _progress_bar()

    def on_step(step: int, total: int, loss: float) -> None:
        if bar is not None:
            bar.total = total
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.3f}")
        elif step % PROGRESS_EVERY == 0 or step == total:
            print(f"training: step {step}/{total}, loss {loss:.3f}", file=sys.stderr, flush=True)

    reported = 0

    def on_mining(done: int, total: int) -> None:
        nonlocal reported
        if done - reported >= MINING_PROGRESS_EVERY or done == total:
            reported = done
            print(f"mining: pair {done}/{total}", file=sys.stderr, flush=True)

    summary = train_cross_encoder(
        args.dataset,
        args.out,
        args.kind,
        pairs,
        settings,
        command="citeguard train " + shlex.join(sys.argv[2:]),
        on_step=on_step,
        on_mining=on_mining,
    )
    if bar is not None:
        bar.close()
    v = summary["validation"]
    print(f"validation AUROC {v['auroc']}; by group {v['by_group']}")
    print(f"threshold {v['threshold']:.3f}; report: {args.out}/report.md")
    return 0


def _progress_bar() -> Any:
    if not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(desc="training", unit="step")


CALIBRATE_OPTIONS = (
    ("max_questions", CalibrationSettings, int, "validation questions drawn (seeded)"),
    (
        "max_false_answer_share",
        CalibrationSettings,
        float,
        "share of unanswerable questions that may reach the answer threshold",
    ),
    (
        "min_precision",
        CalibrationSettings,
        float,
        "share of questions over the answer threshold whose best passage must answer",
    ),
    ("floor_keep", CalibrationSettings, float, "share of answerable questions the floor keeps"),
    (
        "passage_first_precision",
        CalibrationSettings,
        float,
        "share of the passage answers over the passage-first threshold whose quote must hold "
        "gold (they are tried before the model)",
    ),
    ("seed", CalibrationSettings, int, "seed of the question sample"),
    (
        "scorer_rerank_pool",
        CalibrationSettings,
        int,
        "with --scorer-rerank, the hits retrieved for the scorer to reorder, as the graph's "
        "scorer_rerank_pool; fit for the setting the graph will run with",
    ),
)


CALIBRATE_FLAGS = (
    (
        "scorer_rerank",
        "ask with the hits reranked by the scorer (for a graph with scorer_rerank on), "
        "or in retrieval order; fit the thresholds for the setting the graph will run with",
        "as the graph's default",
    ),
    (
        "floor_wordings",
        "fit the refusal floor on every wording the dataset gives of each answerable "
        "question (its own, the category description training held out, the generic "
        "templates), each searched apart, so the floor holds for other wordings than the one "
        "the scorer learned most",
        "as the shipped scorer was fitted",
    ),
    (
        "passage_relevance_with_scorer",
        "judge each passage answer's quote by the mean of the local model's and the "
        "scorer's relevance, for a graph with passage_relevance_with_scorer on; fit for "
        "the setting the graph will run with",
        "as the graph's default",
    ),
)
"""``citeguard calibrate``'s on/off options, each a :class:`CalibrationSettings` field: (field,
help, why its default); given, they replace the field's default."""


def add_interpolate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``interpolate`` sub-command: average two trained models' weights."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "interpolate",
        help="average two trained models' weights (robust fine-tuning)",
        description="Write (1 - W) * START + W * TUNED, tensor by tensor, as a trained model "
        "in DIR: a model trained further on one kind of document keeps much of its gain "
        "there and much of START's robustness elsewhere (WiSE-FT). The result has no "
        "thresholds: fit them with `citeguard calibrate` before use.",
    )
    p.add_argument(
        "start",
        metavar="START",
        help="the model the training started from, or 'bundled': the bundled embedder a "
        "bi-encoder was fine-tuned from (with TUNED's line)",
    )
    p.add_argument("tuned", metavar="TUNED", help="the model it trained into")
    p.add_argument(
        "--weight",
        type=float,
        default=0.5,
        metavar="W",
        help="share of TUNED, 0 to 1 (default: %(default)s)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where the model goes")
    return p


def run_interpolate(args: argparse.Namespace) -> int:
    """Interpolate and say what was written."""
    from citeguard.errors import ModelUnavailableError
    from citeguard.learned.interpolate import (
        BUNDLED_START,
        interpolate_models,
        write_bundled_start,
    )

    try:
        with tempfile.TemporaryDirectory() as scratch:
            start = Path(args.start)
            if args.start == BUNDLED_START:
                start = Path(scratch) / BUNDLED_START
                write_bundled_start(Path(args.tuned), start)
            written = interpolate_models(
                start, Path(args.tuned), args.weight, Path(args.out), start_name=args.start
            )
    except (ModelUnavailableError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {args.out} ({written['weights_bytes']:,} bytes, sha256 "
        f"{written['weights_sha256'][:12]}...); fit its thresholds with `citeguard calibrate`"
    )
    return 0


def add_calibrate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``calibrate`` sub-command: fit a trained scorer's thresholds per question."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "calibrate",
        help="fit a trained evidence scorer's thresholds on whole questions, as the graph "
        "uses them",
        description="Index the validation documents of DATASET (the split training used), "
        "ask each question as the graph does, score its sources' best passage, and write the "
        "answer threshold and refusal floor into MODEL/model.json; with the local model, also "
        "the passage answer threshold (--judge-quotes). Takes about a second per question on "
        "2 cores, plus indexing, plus a second per judged passage answer.",
    )
    p.add_argument("dataset", metavar="DATASET", help="the dataset the scorer was trained on")
    p.add_argument("--model", required=True, metavar="MODEL", help="the trained scorer's folder")
    p.add_argument(
        "--out", required=True, metavar="DIR", help="where the index and calibration.json go"
    )
    for field, owner, kind, text in CALIBRATE_OPTIONS:
        p.add_argument(
            "--" + field.replace("_", "-"),
            type=kind,
            default=None,
            help=f"{text} (default: {getattr(owner(), field)})",
        )
    p.add_argument(
        "--validation-share",
        type=float,
        default=PairSettings().validation_share,
        help="share of documents training kept for validation (default: %(default)s)",
    )
    p.add_argument(
        "--split-seed",
        type=int,
        default=PairSettings().seed,
        help="the seed training split the documents with (default: %(default)s)",
    )
    for field, text, note in CALIBRATE_FLAGS:
        default = "on" if getattr(CalibrationSettings(), field) else "off"
        p.add_argument(
            "--" + field.replace("_", "-"),
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"{text} (default: {default}, {note})",
        )
    p.add_argument(
        "--judge-quotes",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also fit the passage answer threshold: draft the passage answer of every "
        "question whose best passage reaches the refusal floor and ask the local model's "
        "relevance check of its quote, as the graph's default validation does; needs the "
        "local model, about a second per drafted answer (default: on)",
    )
    return p


def run_calibrate(args: argparse.Namespace) -> int:
    """Calibrate and print the thresholds and what they do on the validation questions."""
    from citeguard.errors import ModelUnavailableError
    from citeguard.evaluation.calibrate_scorer import calibrate_scorer
    from citeguard.learned.shipped import load_pair_model

    try:
        scorer = load_pair_model(Path(args.model))
    except ModelUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    chosen = {
        field: getattr(args, field)
        for field, *_ in CALIBRATE_OPTIONS
        if getattr(args, field) is not None
    }
    for field, *_ in CALIBRATE_FLAGS:
        if getattr(args, field) is not None:
            chosen[field] = getattr(args, field)
    pairs = PairSettings(validation_share=args.validation_share, seed=args.split_seed)
    interactive = sys.stderr.isatty()
    quote_judge = None
    if args.judge_quotes:
        from citeguard.llm.judge import local_judge

        try:
            quote_judge = local_judge().answers_question_probability
        except ModelUnavailableError as exc:
            print(f"error: {exc} (or calibrate with --no-judge-quotes)", file=sys.stderr)
            return 1

    def on_question(done: int, total: int) -> None:
        if not interactive and (done % PROGRESS_EVERY == 0 or done == total):
            print(f"calibrating: question {done}/{total}", file=sys.stderr, flush=True)

    def on_quote(done: int, total: int) -> None:
        if done % PROGRESS_EVERY == 0 or done == total:
            print(f"judging passage answers: {done}/{total}", file=sys.stderr, flush=True)

    result = calibrate_scorer(
        args.dataset,
        args.model,
        args.out,
        scorer,
        CalibrationSettings(**chosen),
        pairs,
        progress=interactive,
        on_question=on_question,
        command="citeguard calibrate " + shlex.join(sys.argv[2:]),
        quote_judge=quote_judge,
        on_quote=on_quote,
    )
    print(
        f"answer threshold {result['threshold']:.3f}, refusal floor "
        f"{result['recall_threshold']:.3f} on {result['questions']} questions "
        f"(question AUROC {result['question_auroc']}); written to {args.model}/model.json"
    )
    print(f"over the answer threshold: {result['over_threshold']}")
    print(f"under the floor: {result['under_floor']}; details: {args.out}/calibration.json")
    if "passage_answer_threshold" in result:
        print(
            f"passage answer threshold {result['passage_answer_threshold']:.3f}, weaker "
            f"passages' quotes from relevance {result['weak_passage_relevance_threshold']}, "
            f"passage first from {result['passage_first_threshold']:.3f}: "
            f"{result['passage_answers']}"
        )
    return 0

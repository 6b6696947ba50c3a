"""A trained model saved on disk: its weights file, its description, and loading them.

Both trained models (``learned/cross_encoder.py``, ``learned/bi_encoder.py``) save only
what training changed, in float16 (``encoder.safetensors``), beside ``model.json``: the base
model's name, the maximum input length, and what training and calibration wrote about the
model (thresholds, metrics, the command), with the weights' sha256, checked at every load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from citeguard.errors import ModelUnavailableError

WEIGHTS_FILE = "encoder.safetensors"
DESCRIPTION_FILE = "model.json"


def file_sha256(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_description(folder: Path, description: dict[str, Any]) -> dict[str, Any]:
    """Write ``model.json``: ``description`` with the saved weights' sha256 and size."""
    weights = folder / WEIGHTS_FILE
    described = {
        **description,
        "weights_sha256": file_sha256(weights),
        "weights_bytes": weights.stat().st_size,
    }
    (folder / DESCRIPTION_FILE).write_text(json.dumps(described, indent=2) + "\n")
    return described


def read_description(folder: Path) -> dict[str, Any]:
    """A saved model's ``model.json``, once its weights are found to match their sha256.

    Raises:
        ModelUnavailableError: a file is missing or the weights differ from the ones
            described.
    """
    weights = folder / WEIGHTS_FILE
    described = folder / DESCRIPTION_FILE
    if not weights.is_file() or not described.is_file():
        raise ModelUnavailableError(f"no trained model in {folder}")
    description: dict[str, Any] = json.loads(described.read_text())
    expected = description.get("weights_sha256")
    if expected and file_sha256(weights) != expected:
        raise ModelUnavailableError(f"{weights} does not match its sha256 in {described}")
    return description


def describe_model(folder: Path, about: dict[str, Any]) -> dict[str, Any]:
    """Add ``about`` (thresholds, metrics ...) to a saved model's ``model.json``; the
    weights are left as saved. Returns the whole description."""
    path = folder / DESCRIPTION_FILE
    description = {**json.loads(path.read_text()), **about}
    path.write_text(json.dumps(description, indent=2) + "\n")
    return description


def load_trained_weights(
    module: Any, folder: Path, untrained_prefix: str, description: dict[str, Any]
) -> None:
    """Put a saved model's weights over ``module`` (a freshly loaded base model) and set it
    to evaluation mode; only parameters under ``untrained_prefix`` may be absent.

    Raises:
        ModelUnavailableError: the weights do not fit the base model.
    """
    from safetensors.torch import load_file

    weights = folder / WEIGHTS_FILE
    trained = {name: tensor.float() for name, tensor in load_file(str(weights)).items()}
    missing, unexpected = module.load_state_dict(trained, strict=False)
    untrained = [name for name in missing if not name.startswith(untrained_prefix)]
    if untrained or unexpected:
        raise ModelUnavailableError(
            f"{weights} does not fit {description['base_model']}: "
            f"missing {untrained[:3]}, unexpected {list(unexpected)[:3]}"
        )
    module.eval()


class DescribedThresholds:
    """The thresholds a saved model's ``model.json`` holds, as :class:`PairScorer
    <citeguard.learned.evidence.PairScorer>` reads them (shared by both architectures)."""

    description: dict[str, Any]

    @property
    def threshold(self) -> float:
        """The decision threshold fitted for precision (0.5 if none): the scorer's "this
        passage answers" (its answer threshold), the verifier's "supported"."""
        return float(self.description.get("threshold", 0.5))

    @property
    def recall_threshold(self) -> float:
        """The threshold fitted to keep most positives (``threshold`` if none): the scorer's
        refusal floor, below which a passage is taken not to answer."""
        return float(self.description.get("recall_threshold", self.threshold))

    @property
    def passage_answer_threshold(self) -> float:
        """The passage answer's threshold when the relevance check reads its quote
        (``threshold`` if calibration fitted none)."""
        value = self.description.get("passage_answer_threshold")
        return self.threshold if value is None else float(value)

    @property
    def weak_passage_relevance_threshold(self) -> float | None:
        """The relevance a weaker passage's quote must reach (None if calibration fitted
        none: the passage answer is drafted from ``passage_answer_threshold`` only)."""
        value = self.description.get("weak_passage_relevance_threshold")
        return None if value is None else float(value)

    @property
    def passage_first_threshold(self) -> float | None:
        """The score from which the passage answer is tried before the model (None if
        calibration fitted none: the model is always asked first)."""
        value = self.description.get("passage_first_threshold")
        return None if value is None else float(value)

"""The trained models that ship inside the package, loaded once, with a fallback.

``weights/scorer`` and ``weights/verifier`` hold what ``citeguard train`` wrote for each
(``docs/models.md`` gives the commands and their sha256); ``CITEGUARD_LEARNED_WEIGHTS``
points at a user's own instead. When a model's files are absent
or fail to load, one warning says so and callers fall back to the checks that need no
trained model: lexical sufficiency floors, the model's own refusal, the local LLM judge.
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Literal

from citeguard.environment import learned_weights
from citeguard.errors import ModelUnavailableError
from citeguard.learned.bi_encoder import ARCHITECTURE as BI_ENCODER
from citeguard.learned.bi_encoder import BiEncoderScorer
from citeguard.learned.cross_encoder import CrossEncoder
from citeguard.learned.saved_model import DESCRIPTION_FILE, file_sha256

logger = logging.getLogger(__name__)

LearnedKind = Literal["scorer", "verifier"]
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "weights"

_FALLBACK = {
    "scorer": "retrieval order, the sufficiency floors and the model's own refusals decide",
    "verifier": "support is judged by the local LLM judge",
}


def shipped_folder(kind: LearnedKind) -> Path:
    """Where the trained ``kind`` is loaded from: ``CITEGUARD_LEARNED_WEIGHTS/kind`` when
    that variable names a folder holding it, else the package's own."""
    chosen = learned_weights()
    if chosen is not None and (chosen / kind).is_dir():
        return chosen / kind
    return SHIPPED_WEIGHTS / kind


def trained_model_identity(kind: LearnedKind) -> str:
    """What marks the trained ``kind`` a run would load: its weights' sha256 (12 digits)
    and a hash of its whole ``model.json`` (thresholds included, which ``citeguard
    calibrate`` rewrites without touching the weights); "absent" when no readable
    ``model.json`` is there. Evaluation records it, so results made with other trained
    models (``CITEGUARD_LEARNED_WEIGHTS``) are never resumed or reused as these."""
    described = shipped_folder(kind) / DESCRIPTION_FILE
    try:
        weights = str(json.loads(described.read_text()).get("weights_sha256", ""))[:12]
        description = file_sha256(described)[:12]
    except (OSError, ValueError, AttributeError):
        return "absent"
    return f"{weights or 'unknown'}/{description}"


PairModel = CrossEncoder | BiEncoderScorer


def load_pair_model(folder: Path, device: str = "cpu") -> PairModel:
    """The saved model in ``folder``, by the architecture its ``model.json`` names (a
    cross-encoder when it names none), on ``device`` (a torch device name).

    Raises:
        ModelUnavailableError: see :class:`CrossEncoder` and :class:`BiEncoderScorer`.
    """
    described = folder / DESCRIPTION_FILE
    if not described.is_file():
        raise ModelUnavailableError(f"no trained model in {folder}")
    try:
        architecture = json.loads(described.read_text()).get("architecture")
    except (OSError, ValueError) as exc:
        raise ModelUnavailableError(f"no readable {described}: {exc}") from exc
    if architecture == BI_ENCODER:
        return BiEncoderScorer(folder, device=device)
    return CrossEncoder(folder, device=device)


@functools.cache
def shipped_model(kind: LearnedKind) -> PairModel | None:
    """The shipped ``kind`` loaded (once per process), or None after one warning."""
    folder = shipped_folder(kind)
    try:
        return load_pair_model(folder)
    except (ModelUnavailableError, ImportError, OSError, ValueError, RuntimeError) as exc:
        logger.warning("the trained %s could not be loaded (%s); %s", kind, exc, _FALLBACK[kind])
        return None

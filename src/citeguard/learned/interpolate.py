"""Interpolate two saved models of the same architecture: ``(1 - weight) * start + weight *
tuned``, tensor by tensor (and the bi-encoder's line, scale and bias, the same way).

Why: a model fine-tuned further on one kind of document (contracts) sharpens there and can
lose on others (a lease asked in everyday words). Averaging its weights with the model it
started from keeps much of the gain where it was trained and much of the robustness of the
start elsewhere (WiSE-FT: Wortsman et al., "Robust fine-tuning of zero-shot models", CVPR
2022). ``citeguard interpolate START TUNED --weight W --out DIR`` writes the result as a
saved model, without thresholds: calibrate it (``citeguard calibrate``) before use.
``START`` may be ``bundled``: the bundled embedder a bi-encoder was fine-tuned from, with the
tuned model's line (:func:`write_bundled_start`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeguard.errors import ModelUnavailableError
from citeguard.learned.saved_model import WEIGHTS_FILE, read_description, write_description

LINE_PARAMETERS = ("scale", "bias")
"""A bi-encoder's cosine-to-probability line, interpolated like the weights."""
KEPT_FIELDS = ("architecture", "base_model", "max_length", "kind")
"""What the interpolated model keeps of ``tuned``'s description (the two must agree)."""
BUNDLED_START = "bundled"
"""``START`` naming the bundled embedder a bi-encoder started from instead of a folder."""


def write_bundled_start(tuned: Path, out: Path) -> dict[str, Any]:
    """Write the bundled embedder that the bi-encoder in ``tuned`` was fine-tuned from as a
    saved model in ``out``, with ``tuned``'s line, so it can be interpolated with it.

    The line is ``tuned``'s because the bundled embedder has none (it was never trained to
    give a probability); interpolating then moves only the encoder's weights.

    Raises:
        ModelUnavailableError: ``tuned`` holds no saved bi-encoder.
    """
    import torch

    from citeguard.learned.bi_encoder import ARCHITECTURE, TrainableBiEncoder

    description = read_description(tuned)
    if description.get("architecture") != ARCHITECTURE:
        raise ModelUnavailableError(
            f"{tuned} is a {description.get('architecture')!r}: only a bi-encoder starts "
            "from the bundled embedder"
        )
    base_model, max_length = str(description["base_model"]), int(description["max_length"])
    bundled = TrainableBiEncoder(base_model, max_length)
    with torch.no_grad():
        for name in LINE_PARAMETERS:
            getattr(bundled, name).fill_(float(description[name]))
    return bundled.save(out, base_model, max_length, {"kind": description.get("kind")})


def interpolate_models(
    start: Path, tuned: Path, weight: float, out: Path, start_name: str | None = None
) -> dict[str, Any]:
    """Write ``(1 - weight) * start + weight * tuned`` to ``out`` as a saved model.

    ``start_name`` is what the description records as the start (default: its folder), for
    a start written to a scratch folder (:data:`BUNDLED_START`).

    Returns:
        The written ``model.json`` (no thresholds: fit them with ``citeguard calibrate``).

    Raises:
        ValueError: ``weight`` is outside [0, 1].
        ModelUnavailableError: a folder holds no saved model, or the two models differ in
            architecture, base model, input length or tensors.
    """
    from safetensors.torch import load_file, save_file

    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight {weight} is outside [0, 1]")
    first, second = read_description(start), read_description(tuned)
    for field in KEPT_FIELDS:
        if first.get(field) != second.get(field):
            raise ModelUnavailableError(
                f"{start} and {tuned} differ in {field}: "
                f"{first.get(field)!r} against {second.get(field)!r}"
            )
    a, b = load_file(str(start / WEIGHTS_FILE)), load_file(str(tuned / WEIGHTS_FILE))
    if a.keys() != b.keys() or any(a[name].shape != b[name].shape for name in a):
        raise ModelUnavailableError(f"{start} and {tuned} do not hold the same tensors")
    dtype = next(iter(b.values())).dtype
    mixed = {
        name: ((1.0 - weight) * a[name].float() + weight * b[name].float()).to(dtype).contiguous()
        for name in sorted(a)
    }
    out.mkdir(parents=True, exist_ok=True)
    save_file(mixed, str(out / WEIGHTS_FILE))
    description: dict[str, Any] = {field: second[field] for field in KEPT_FIELDS if field in second}
    for name in LINE_PARAMETERS:
        if name in first and name in second:
            description[name] = (1.0 - weight) * float(first[name]) + weight * float(second[name])
    description["interpolated"] = {
        "start": start_name or str(start),
        "start_sha256": first.get("weights_sha256"),
        "tuned": str(tuned),
        "tuned_sha256": second.get("weights_sha256"),
        "weight": weight,
    }
    if "licence" in second:
        description["licence"] = second["licence"]
    return write_description(out, description)

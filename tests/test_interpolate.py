"""Interpolating two trained models (``citeguard interpolate``, ``learned/interpolate.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from citeguard.errors import ModelUnavailableError
from citeguard.learned.interpolate import interpolate_models
from citeguard.learned.saved_model import WEIGHTS_FILE, read_description, write_description
from citeguard.serve import cli


def saved_model(folder: Path, fill: float, scale: float, **about: object) -> Path:
    """A saved bi-encoder-like model: two float16 tensors of ``fill``, and its line."""
    folder.mkdir(parents=True)
    tensors = {
        "encoder.layer.0.weight": torch.full((2, 3), fill, dtype=torch.float16),
        "pooler.dense.bias": torch.full((3,), -fill, dtype=torch.float16),
    }
    save_file(tensors, str(folder / WEIGHTS_FILE))
    description = {
        "architecture": "bi-encoder",
        "base_model": "all-MiniLM-L6-v2",
        "max_length": 128,
        "kind": "scorer",
        "scale": scale,
        "bias": -scale / 2,
        "threshold": 0.3,
        "recall_threshold": 0.05,
        "licence": "test",
        **about,
    }
    write_description(folder, description)
    return folder


def test_interpolation_mixes_every_tensor_and_the_line(tmp_path: Path) -> None:
    start = saved_model(tmp_path / "start", 1.0, 8.0)
    tuned = saved_model(tmp_path / "tuned", 3.0, 12.0)
    written = interpolate_models(start, tuned, 0.25, tmp_path / "mixed")
    mixed = load_file(str(tmp_path / "mixed" / WEIGHTS_FILE))
    assert mixed["encoder.layer.0.weight"].dtype == torch.float16
    assert torch.all(mixed["encoder.layer.0.weight"] == 1.5)  # 0.75 * 1 + 0.25 * 3
    assert torch.all(mixed["pooler.dense.bias"] == -1.5)
    assert written["scale"] == pytest.approx(9.0) and written["bias"] == pytest.approx(-4.5)
    # No thresholds carried over: they belong to the two models, not to the mix.
    assert "threshold" not in written and "recall_threshold" not in written
    assert written["interpolated"]["weight"] == 0.25
    assert written["interpolated"]["tuned_sha256"] == read_description(tuned)["weights_sha256"]
    # What was written loads with its sha256 checked.
    assert read_description(tmp_path / "mixed")["weights_sha256"] == written["weights_sha256"]


def test_the_ends_are_the_two_models(tmp_path: Path) -> None:
    start = saved_model(tmp_path / "start", 1.0, 8.0)
    tuned = saved_model(tmp_path / "tuned", 3.0, 12.0)
    interpolate_models(start, tuned, 0.0, tmp_path / "zero")
    interpolate_models(start, tuned, 1.0, tmp_path / "one")
    for end, model in (("zero", start), ("one", tuned)):
        got, want = (
            load_file(str(tmp_path / end / WEIGHTS_FILE)),
            load_file(str(model / WEIGHTS_FILE)),
        )
        assert all(torch.equal(got[name], want[name]) for name in want)


def test_models_that_do_not_match_are_refused(tmp_path: Path) -> None:
    start = saved_model(tmp_path / "start", 1.0, 8.0)
    other = saved_model(tmp_path / "other", 3.0, 12.0, architecture="cross-encoder")
    with pytest.raises(ModelUnavailableError, match="architecture"):
        interpolate_models(start, other, 0.5, tmp_path / "mixed")
    with pytest.raises(ValueError, match="outside"):
        interpolate_models(start, start, 1.5, tmp_path / "mixed")
    assert not (tmp_path / "mixed").exists()


def test_the_command_writes_the_model_and_reports_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = saved_model(tmp_path / "start", 1.0, 8.0)
    tuned = saved_model(tmp_path / "tuned", 3.0, 12.0)
    out = tmp_path / "mixed"
    assert cli.main(["interpolate", str(start), str(tuned), "--out", str(out)]) == 0
    assert json.loads((out / "model.json").read_text())["interpolated"]["weight"] == 0.5
    assert "citeguard calibrate" in capsys.readouterr().out
    missing = tmp_path / "missing"
    assert cli.main(["interpolate", str(start), str(missing), "--out", str(out)]) == 2
    assert "no trained model" in capsys.readouterr().err


def test_the_bundled_embedder_is_a_start_with_the_tuned_line(tmp_path: Path) -> None:
    # The shipped scorer was fine-tuned from the bundled MiniLM: written as a start, the
    # bundled encoder holds every tensor the scorer does, and the scorer's line.
    from citeguard.learned.bi_encoder import EMBEDDINGS_PREFIX, base_embedder, transformer_of
    from citeguard.learned.interpolate import write_bundled_start
    from citeguard.learned.shipped import shipped_folder

    tuned = shipped_folder("scorer")
    written = write_bundled_start(tuned, tmp_path / "bundled")
    start = load_file(str(tmp_path / "bundled" / WEIGHTS_FILE))
    shipped = load_file(str(tuned / WEIGHTS_FILE))
    assert start.keys() == shipped.keys()
    bundled = transformer_of(base_embedder("all-MiniLM-L6-v2", 128)).state_dict()
    name = next(n for n in start if not n.startswith(EMBEDDINGS_PREFIX))
    assert torch.equal(start[name], bundled[name].half())
    assert not torch.equal(start[name], shipped[name])  # fine-tuning moved it
    described = read_description(tuned)
    assert (written["scale"], written["bias"]) == (described["scale"], described["bias"])
    assert "threshold" not in written


def test_the_command_starts_from_the_bundled_embedder(tmp_path: Path) -> None:
    from citeguard.learned.shipped import shipped_folder

    out = tmp_path / "mixed"
    tuned = str(shipped_folder("scorer"))
    assert cli.main(["interpolate", "bundled", tuned, "--weight", "1", "--out", str(out)]) == 0
    recorded = json.loads((out / "model.json").read_text())["interpolated"]
    assert recorded["start"] == "bundled" and recorded["weight"] == 1.0
    # At weight 1 the mix is the tuned model itself.
    got, want = load_file(str(out / WEIGHTS_FILE)), load_file(str(Path(tuned) / WEIGHTS_FILE))
    assert all(torch.equal(got[n], want[n]) for n in want)


def test_only_a_bi_encoder_starts_from_the_bundled_embedder(tmp_path: Path) -> None:
    from citeguard.learned.interpolate import write_bundled_start

    cross = saved_model(tmp_path / "cross", 3.0, 12.0, architecture="cross-encoder")
    with pytest.raises(ModelUnavailableError, match="bi-encoder"):
        write_bundled_start(cross, tmp_path / "bundled")

"""Files written beside their target and renamed: whole or absent, never partial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeguard.atomic_files import replaced_on_success, write_json_atomic


def test_the_target_appears_only_when_the_block_succeeds(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "model.bin"
    with replaced_on_success(target) as tmp:
        tmp.write_bytes(b"whole")
        assert not target.exists()
    assert target.read_bytes() == b"whole"
    assert target.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in target.parent.iterdir()) == ["model.bin"]


def test_a_failing_block_leaves_the_old_target_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "verdicts.json"
    write_json_atomic(target, {"a": True})
    with pytest.raises(RuntimeError), replaced_on_success(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash while writing")
    assert json.loads(target.read_text()) == {"a": True}
    assert [p.name for p in tmp_path.iterdir()] == ["verdicts.json"]

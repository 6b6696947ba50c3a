"""A run's results file: one JSON line per question, appended as each finishes.

Each line is forced to disk as soon as its question finishes, so a crash loses nothing; a
re-run with the same settings (``settings_key``) reads back the finished lines and skips
those questions. The folder's other files (settings, summary, report) are named here too.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from citeguard.evaluation.run_config import EvaluationError, settings_difference

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
SETTINGS_FILE = "settings.json"


def read_results(
    path: Path, settings_key: str, fresh: bool = False, difference: str = ""
) -> dict[str, dict[str, Any]]:
    """Finished records by question id, from an earlier (maybe interrupted) run.

    A last line cut off by a crash is dropped (that question is simply run again).
    Errored records are not finished. Records of other settings are an error, unless
    ``fresh`` (then the file is started again); ``difference`` is added to that error's
    message (see :func:`difference_from_folder`).
    """
    if not path.exists():
        return {}
    if fresh:
        path.unlink()
        return {}
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    done: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                logger.warning("%s: dropping the unfinished last line %d", path, number)
                path.write_text("".join(lines[: number - 1]), encoding="utf-8")
                break
            raise EvaluationError(f"{path} line {number}: not valid JSON ({exc.msg})") from exc
        if record.get("settings_key") != settings_key:
            raise EvaluationError(
                f"{path} holds results of other settings (line {number}{difference}); "
                "use another --out folder, or --fresh to discard them"
            )
        if not record.get("error"):
            done[str(record["id"])] = record
    return done


def difference_from_folder(out: Path, settings: dict[str, Any]) -> str:
    """ ", differs in: a (old -> new), ..." against the folder's settings.json, if any."""
    try:
        old = json.loads((out / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return ""
    old.pop("settings_key", None)
    return settings_difference(old, settings)


def append_result(path: Path, record: dict[str, Any]) -> None:
    """Append one record and force it to disk, so that a crash right after loses nothing."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def errors_of(path: Path, ids: set[str]) -> list[dict[str, Any]]:
    """The latest error record of each unfinished selected id (for counting)."""
    if not ids or not path.exists():
        return []
    latest: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if str(record.get("id")) in ids:
                latest[str(record["id"])] = record
    return list(latest.values())

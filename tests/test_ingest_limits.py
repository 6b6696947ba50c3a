"""Per-file limits: a file over one is reported and skipped, the rest of the batch indexed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from citeguard.documents import ParsedDocument
from citeguard.errors import ParsingError
from citeguard.index.dense import HashingEmbedder
from citeguard.ingest import limits as limits_module
from citeguard.ingest.limits import NO_LIMITS, IngestLimits, parse_within_limits
from citeguard.ingest.pipeline import ingest_paths
from pdf_factory import make_blank_pdf, make_sample_contract_pdf


def test_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("word " * 300_000, encoding="utf-8")  # 1.5 MB
    with pytest.raises(ParsingError, match=r"1\.5 MB, over the limit of 1 MB"):
        parse_within_limits(path, IngestLimits(max_file_mb=1))


def test_pdf_over_the_page_limit(tmp_path: Path) -> None:
    path = make_blank_pdf(tmp_path / "long.pdf", pages=12)
    with pytest.raises(ParsingError, match="12 pages, over the limit of 10"):
        parse_within_limits(path, IngestLimits(max_pages=10))


def test_text_over_the_page_limit(tmp_path: Path) -> None:
    path = tmp_path / "pages.txt"
    path.write_text("\f".join(f"page {n}" for n in range(5)), encoding="utf-8")
    with pytest.raises(ParsingError, match="5 pages, over the limit of 3"):
        parse_within_limits(path, IngestLimits(max_pages=3))


def test_the_child_parse_gives_the_same_document(tmp_path: Path) -> None:
    path = make_sample_contract_pdf(tmp_path / "contract.pdf")
    in_child = parse_within_limits(path, IngestLimits())
    assert isinstance(in_child, ParsedDocument)
    assert in_child == parse_within_limits(path, NO_LIMITS)


def _slow_parse(path: Path, max_pages: int | None = None) -> ParsedDocument:
    time.sleep(30)
    raise AssertionError("not reached")


def _crashing_parse(path: Path, max_pages: int | None = None) -> ParsedDocument:
    os._exit(3)


def test_a_stuck_parser_is_stopped_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stuck.txt"
    path.write_text("text", encoding="utf-8")
    monkeypatch.setattr(limits_module, "parse_document", _slow_parse)
    started = time.monotonic()
    with pytest.raises(ParsingError, match=r"parsing took over 0\.5 s"):
        parse_within_limits(path, IngestLimits(parse_timeout_s=0.5))
    assert time.monotonic() - started < 25  # killed, not waited out (the parse sleeps 30 s)


def test_a_crashing_parser_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "crash.txt"
    path.write_text("text", encoding="utf-8")
    monkeypatch.setattr(limits_module, "parse_document", _crashing_parse)
    with pytest.raises(ParsingError, match="crashed"):
        parse_within_limits(path, IngestLimits())


def test_ingest_skips_files_over_limits_and_indexes_the_rest(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_sample_contract_pdf(docs / "contract.pdf")
    (docs / "small.txt").write_text("Rent is due on the first day of the month.", encoding="utf-8")
    (docs / "huge.txt").write_text("clause " * 40_000, encoding="utf-8")
    summary = ingest_paths(
        [docs],
        tmp_path / "index",
        embedder=HashingEmbedder(),
        limits=IngestLimits(max_chunks_per_file=20),
    )
    skipped = {Path(path).name: reason for path, reason in summary.skipped}
    assert set(skipped) == {"huge.txt"}
    assert "over the limit of 20 (--max-chunks-per-file)" in skipped["huge.txt"]
    assert sorted(summary.added_docs) == ["contract.pdf", "small.txt"]

"""Bounds on one file, so that no single file can stall or swamp an ingest.

A user's folder may hold a 2,000-page scan, a 10 MB log saved as .txt, or a PDF that sends
the parser into a loop. Each limit turns such a file into a reported skip while the rest
of the folder is indexed:

- size, checked before the file is read;
- pages, checked before a PDF's pages are read;
- parse time: the file is parsed in a child process that is killed at the deadline, so a
  stuck parser cannot block the batch (a thread could not be stopped);
- chunks, checked after chunking and before any embedding, which is where time goes.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from citeguard.documents import ParsedDocument
from citeguard.errors import ParsingError
from citeguard.ingest.parsing import parse_document


@dataclass(frozen=True)
class IngestLimits:
    """Per-file limits; None switches one off."""

    max_file_mb: float | None = 100.0
    """Largest file read, in MB (10^6 bytes)."""
    max_pages: int | None = 2000
    """Most pages in one document."""
    parse_timeout_s: float | None = 120.0
    """Longest time parsing one file may take."""
    max_chunks_per_file: int | None = 3000
    """Most chunks one document may make (each is embedded with its sentences)."""


NO_LIMITS = IngestLimits(None, None, None, None)


def check_size(path: Path, limits: IngestLimits) -> None:
    """Raise ParsingError when the file is over ``max_file_mb`` (read nothing)."""
    if limits.max_file_mb is None:
        return
    size = path.stat().st_size
    if size > limits.max_file_mb * 1_000_000:
        raise ParsingError(
            path,
            f"{size / 1e6:,.1f} MB, over the limit of {limits.max_file_mb:g} MB (--max-file-mb)",
        )


def parse_within_limits(path: Path, limits: IngestLimits) -> ParsedDocument:
    """Parse one file under the size, page and time limits.

    Raises:
        ParsingError: the file is over a limit, timed out, or cannot be parsed.
        OSError: the file cannot be read.
    """
    check_size(path, limits)
    if limits.parse_timeout_s is None:
        return parse_document(path, max_pages=limits.max_pages)
    return _parse_in_child(path, limits.max_pages, limits.parse_timeout_s)


def _parse_in_child(path: Path, max_pages: int | None, timeout_s: float) -> ParsedDocument:
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_parse, args=(sender, path, max_pages), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(timeout_s):
            raise ParsingError(path, f"parsing took over {timeout_s:g} s (--parse-timeout)")
        try:
            outcome = receiver.recv()
        except EOFError as exc:
            raise ParsingError(path, "the parser crashed on this file") from exc
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if isinstance(outcome, ParsedDocument):
        return outcome
    kind, reason, page = outcome
    if kind == "os":
        raise OSError(reason)
    raise ParsingError(path, reason, page=page)


def _child_parse(sender: Connection, path: Path, max_pages: int | None) -> None:
    """Body of the child process: send the parsed document, or the error as plain data."""
    try:
        sender.send(parse_document(path, max_pages=max_pages))
    except ParsingError as exc:
        sender.send(("parsing", exc.reason, exc.page))
    except OSError as exc:
        sender.send(("os", exc.strerror or str(exc), None))
    except Exception as exc:  # any parser bug is this file's problem, not the batch's
        sender.send(("parsing", f"cannot parse: {type(exc).__name__}: {exc}", None))
    finally:
        sender.close()

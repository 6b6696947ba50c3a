"""Files a client sends to a graph: checked for name, type and size, then saved to index.

A remote client cannot name files on the server; it sends their bytes. Each upload is a
plain file name with a supported suffix (no folders, no hidden names) and base64 content
within the per-file size limit; the bytes are written atomically into the index folder's
``uploads/``, where ingest reads them like any other file (and re-sending the same bytes
leaves the index unchanged).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from citeguard.atomic_files import replaced_on_success
from citeguard.ingest.limits import IngestLimits
from citeguard.ingest.parsing import SUPPORTED_SUFFIXES

UPLOADS_FOLDER = "uploads"


def checked_upload(
    upload: Mapping[str, Any], limits: IngestLimits | None = None
) -> tuple[str, bytes]:
    """The upload's file name and bytes.

    Raises:
        ValueError: the name is not a plain file name of a supported type, the content is
            not base64, or it is over the size limit.
    """
    max_mb = (limits or IngestLimits()).max_file_mb
    name = str(upload.get("name") or "")
    if not name or PurePath(name).name != name or name.startswith(".") or "\\" in name:
        raise ValueError(f"upload name {name!r}: give a plain file name such as 'lease.pdf'")
    if PurePath(name).suffix.lower() not in SUPPORTED_SUFFIXES:
        raise ValueError(
            f"upload {name!r}: unsupported file type; supported: {', '.join(SUPPORTED_SUFFIXES)}"
        )
    encoded = str(upload.get("content_base64") or "")
    if max_mb is not None and len(encoded) * 3 / 4 > max_mb * 1_000_000:
        raise ValueError(f"upload {name!r}: over the limit of {max_mb:g} MB")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"upload {name!r}: content_base64 is not valid base64") from exc
    return name, data


def save_uploads(files: Sequence[tuple[str, bytes]], index_dir: Path) -> Path:
    """Write the checked uploads into ``index_dir/uploads`` and return that folder."""
    folder = index_dir / UPLOADS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        with replaced_on_success(folder / name) as tmp:
            tmp.write_bytes(data)
    return folder

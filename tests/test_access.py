"""Served graphs touch only what the operator allowed; the CLI's and library's take any path.

The served graphs read the operator's policy from the environment at each run
(``CITEGUARD_DOCUMENT_ROOTS``, ``CITEGUARD_INDEX_ROOT``). A client asking for a path or
an index outside it gets a clear refusal, and nothing is read or written.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from citeguard.errors import AccessDeniedError
from citeguard.graph.access import ServerAccess
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.indexer_graph import compile_indexer_graph
from citeguard.index.dense import HashingEmbedder
from graph_fakes import fake_resources
from pdf_factory import make_sample_contract_pdf

RENT = "Monthly rent of $1,250 is due on the first day of each month."


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A served indexer graph, a document root with one file, a secret outside it."""
    root = tmp_path / "documents"
    root.mkdir()
    (root / "lease.txt").write_text(RENT, encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("The server's private key is hunter2.", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CITEGUARD_DOCUMENT_ROOTS", raising=False)
    monkeypatch.delenv("CITEGUARD_INDEX_ROOT", raising=False)
    monkeypatch.setenv("CITEGUARD_INDEX", str(tmp_path / "default-index"))
    indexer = compile_indexer_graph(HashingEmbedder(), access=ServerAccess.from_environment)
    return {"root": root, "secret": secret, "indexer": indexer, "tmp": tmp_path}


def nothing_written(tmp: Path) -> bool:
    return not (tmp / "default-index").exists() and not (tmp / "indexes").exists()


def test_without_document_roots_no_server_path_is_read(served: dict[str, Any]) -> None:
    with pytest.raises(AccessDeniedError, match="CITEGUARD_DOCUMENT_ROOTS"):
        served["indexer"].invoke({"paths": [str(served["root"] / "lease.txt")]})
    assert nothing_written(served["tmp"])


@pytest.mark.parametrize(
    "path",
    ["{secret}", "{root}/../secret.txt", "../secret.txt", "/etc/passwd", "{root}/link.txt"],
    ids=["outside", "dotdot-absolute", "dotdot-relative", "system-file", "symlink-out"],
)
def test_paths_outside_the_roots_are_refused(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    monkeypatch.setenv("CITEGUARD_DOCUMENT_ROOTS", str(served["root"]))
    (served["root"] / "link.txt").symlink_to(served["secret"])
    named = path.format(root=served["root"], secret=served["secret"])
    with pytest.raises(AccessDeniedError):
        served["indexer"].invoke({"paths": [named]})
    assert nothing_written(served["tmp"])


def test_a_folder_inside_the_roots_is_read_without_its_links_out(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEGUARD_DOCUMENT_ROOTS", str(served["root"]))
    (served["root"] / "link.txt").symlink_to(served["secret"])
    summary = served["indexer"].invoke({"paths": ["."]})["summary"]
    assert summary["added_docs"] == ["lease.txt"]
    skipped = {Path(path).name: reason for path, reason in summary["skipped"]}
    assert "outside the folders this server may read" in skipped["link.txt"]


@pytest.mark.parametrize("index_dir", ["/tmp/elsewhere", "../escape", "a/b"])
def test_clients_name_only_plain_indexes_under_the_index_root(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch, index_dir: str
) -> None:
    monkeypatch.setenv("CITEGUARD_DOCUMENT_ROOTS", str(served["root"]))
    paths = [str(served["root"] / "lease.txt")]
    with pytest.raises(AccessDeniedError, match="CITEGUARD_INDEX_ROOT"):
        served["indexer"].invoke({"paths": paths, "index_dir": "team-a"})
    monkeypatch.setenv("CITEGUARD_INDEX_ROOT", str(served["tmp"] / "indexes"))
    with pytest.raises(AccessDeniedError, match="plain name"):
        served["indexer"].invoke({"paths": paths, "index_dir": index_dir})
    assert nothing_written(served["tmp"])
    summary = served["indexer"].invoke({"paths": paths, "index_dir": "team-a"})["summary"]
    assert Path(summary["index_dir"]) == served["tmp"] / "indexes" / "team-a"


def test_remote_clients_send_bytes(served: dict[str, Any], tmp_path: Path) -> None:
    pdf = make_sample_contract_pdf(tmp_path / "contract.pdf").read_bytes()
    uploads = [
        {"name": "contract.pdf", "content_base64": base64.b64encode(pdf).decode()},
        {"name": "note.txt", "content_base64": base64.b64encode(RENT.encode()).decode()},
    ]
    summary = served["indexer"].invoke({"uploads": uploads})["summary"]
    assert sorted(summary["added_docs"]) == ["contract.pdf", "note.txt"]
    again = served["indexer"].invoke({"uploads": uploads})["summary"]
    assert again["unchanged"] == 2


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        ({"name": "../evil.txt", "content_base64": "aGk="}, "plain file name"),
        ({"name": "sub/evil.txt", "content_base64": "aGk="}, "plain file name"),
        ({"name": ".hidden.txt", "content_base64": "aGk="}, "plain file name"),
        ({"name": "tool.exe", "content_base64": "aGk="}, "unsupported file type"),
        ({"name": "note.txt", "content_base64": "not base64!"}, "not valid base64"),
    ],
)
def test_bad_uploads_are_refused_before_anything_is_written(
    served: dict[str, Any], upload: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        served["indexer"].invoke({"uploads": [upload]})
    assert nothing_written(served["tmp"])


def test_the_served_answer_graph_refuses_an_index_outside_the_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CITEGUARD_INDEX_ROOT", raising=False)
    resources = fake_resources(["unused"], access=ServerAccess.from_environment)
    graph = compile_graph(resources)
    with pytest.raises(AccessDeniedError, match="does not let clients choose an index"):
        graph.invoke({"question": "When is rent due?"}, context=Context(index_dir="/etc"))
    assert resources._chat_model.prompts == []  # type: ignore[union-attr]


def test_the_library_graphs_take_any_path(tmp_path: Path) -> None:
    elsewhere = tmp_path / "anywhere" / "notes.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text(RENT, encoding="utf-8")
    indexer = compile_indexer_graph(HashingEmbedder())
    summary = indexer.invoke({"paths": [str(elsewhere)], "index_dir": str(tmp_path / "idx")})
    assert summary["summary"]["added_docs"] == ["notes.txt"]

"""End to end with the real components: PyMuPDF, MiniLM, FAISS on disk, the local LLM.

Slow (tens of seconds a question on 2 cores) but part of CI: it is the proof that the
shipped defaults answer a question with a correct, checkable citation and refuse an
unanswerable one.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pymupdf
import pytest

from citeguard.generate.prompts import REFUSAL
from citeguard.serve import cli

pytestmark = pytest.mark.integration

CORPUS = Path(str(resources.files("citeguard") / "sample_corpus" / "docs"))


def _local_model_available() -> str | None:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return "llama-cpp-python is not installed (pip install 'citeguard-rag[local-llm]')"
    from citeguard.errors import ModelUnavailableError
    from citeguard.llm.weights import resolve_gguf_path

    try:
        resolve_gguf_path()
    except ModelUnavailableError as exc:
        return str(exc)
    return None


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    reason = _local_model_available()
    if reason:
        pytest.skip(reason)
    index = tmp_path_factory.mktemp("sample-index")
    assert cli.main(["ingest", str(CORPUS), "--index", str(index), "--json"]) == 0
    return str(index)


def test_answerable_question_is_answered_with_a_checkable_citation(
    sample_index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = cli.main(
        ["ask", "What is the late fee if rent is paid late?", "--index", sample_index, "--json"]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["status"] == "answered", result
    assert "75" in result["answer"]
    citation = next(c for c in result["citations"] if "75" in c["quote"])
    assert citation["doc"] == "lease.pdf"
    # The quote is on the cited page of the real PDF.
    with pymupdf.open(CORPUS / citation["doc"]) as pdf:
        page_text = " ".join(pdf[citation["pdf_page"] - 1].get_text().split())
    assert " ".join(citation["quote"].split())[:40] in page_text
    assert result["validation"]["passed"] is True


def test_unanswerable_question_is_refused(sample_index: str) -> None:
    from citeguard import answer

    result = answer("Does the lease include a parking space in a garage?", index=sample_index)
    assert result["status"] == "refused"
    assert result["answer"] == REFUSAL
    assert result["citations"] == []

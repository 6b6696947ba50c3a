"""The LangGraph server: langgraph.json, schemas, graph, runs and streams (no unvalidated text).

The unit tests check langgraph.json and the exported graphs in-process. The integration test
starts ``langgraph dev`` on a free port over an index of the bundled sample corpus, talks
to it through ``langgraph_sdk`` with the real local model, and stops it by its process group.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from algorithm1 import CONDITIONAL_EDGES, NODES, PLAIN_EDGES
from citeguard.generate.prompts import REFUSAL

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "langgraph.json"
SAMPLE_CORPUS = REPO / "src" / "citeguard" / "sample_corpus"

ANSWERABLE = "What is the late fee if rent is paid late?"
UNANSWERABLE = "Does the tenant have access to a swimming pool?"
OUTPUT_KEYS = {"question", "answer", "status", "refusal_reason", "citations", "validation"}
CUSTOM_EVENTS = {
    "retrieved",
    "insufficient_evidence",
    "generating",
    "validating",
    "regenerating",
    "answering_from_passage",
    "sentence",
    "refused",
}
STARTUP_TIMEOUT_S = 180
RUN_TIMEOUT_S = 600
MARKER = re.compile(r"\[\d+\]")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
REPORTED_URL = re.compile(r"API:\s*(http://[\w.\-\[\]:]+?:(\d+))\b")


def load_graph_spec(spec: str) -> Any:
    """Import ``./path/file.py:attr`` the way the server does (by file path)."""
    path, _, attr = spec.partition(":")
    module_spec = importlib.util.spec_from_file_location(
        f"langgraph_spec_{Path(path).stem}", REPO / path
    )
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module  # dataclasses look their module up there
    module_spec.loader.exec_module(module)
    return getattr(module, attr)


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Names of properties (also in $defs) without a description."""
    missing = [k for k, v in schema.get("properties", {}).items() if not v.get("description")]
    for name, sub in schema.get("$defs", {}).items():
        missing += [f"{name}.{k}" for k in undescribed(sub)]
    return missing


# --------------------------------------------------------------------- unit (no server)


def test_langgraph_json_declares_both_graphs() -> None:
    from langgraph_cli.config import validate_config_file

    config = validate_config_file(CONFIG)
    assert set(config["graphs"]) == {"citeguard", "indexer"}
    assert "." in config["dependencies"]


@pytest.mark.parametrize("name", ["citeguard", "indexer"])
def test_exported_graphs_have_no_checkpointer_and_describe_every_field(name: str) -> None:
    spec = json.loads(CONFIG.read_text())["graphs"][name]
    graph = load_graph_spec(spec)
    assert graph.checkpointer is None, "the server rejects graphs that carry a checkpointer"
    for schema in (
        graph.get_input_jsonschema(),
        graph.get_output_jsonschema(),
        graph.get_context_jsonschema(),
    ):
        assert schema["properties"]
        assert undescribed(schema) == [], schema.get("title")


# --------------------------------------------------------------------- the real server


def server_unavailable_reason() -> str | None:
    """Why the server test cannot run here, or None."""
    for module in ("langgraph_api", "langgraph_sdk", "llama_cpp"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'citeguard-rag[server,local-llm]')"
    if not (Path(sys.executable).parent / "langgraph").exists():
        return "the langgraph command is not installed next to this Python"
    from citeguard.errors import ModelUnavailableError
    from citeguard.llm.weights import resolve_gguf_path

    try:
        resolve_gguf_path()
    except ModelUnavailableError as exc:
        return f"local model weights unavailable: {exc}"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sample_pdfs() -> list[Path]:
    """The bundled sample PDFs, wherever the corpus keeps them (./ or ./docs/)."""
    folder = SAMPLE_CORPUS / "docs" if (SAMPLE_CORPUS / "docs").is_dir() else SAMPLE_CORPUS
    return sorted(folder.glob("*.pdf"))


def log_tail(log: Path, lines: int = 40) -> str:
    text = ANSI.sub("", log.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(text.splitlines()[-lines:])


def wait_until_ready(process: subprocess.Popen[bytes], log: Path) -> str:
    """Poll the server's log for the URL it reports, then /ok; returns the base URL."""
    import httpx

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    url = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited with {process.returncode}:\n{log_tail(log)}")
        if url is None:
            # The server moves to another port when the requested one is busy.
            match = REPORTED_URL.search(ANSI.sub("", log.read_text(errors="replace")))
            url = match.group(1) if match else None
        if url is not None:
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    return url
            except httpx.HTTPError:
                pass
        time.sleep(0.5)
    pytest.fail(f"langgraph dev not ready after {STARTUP_TIMEOUT_S} s:\n{log_tail(log)}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server's whole process group (the CLI runs uvicorn in the same group)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    reason = server_unavailable_reason()
    if reason:
        pytest.skip(reason)
    from citeguard.ingest.pipeline import ingest_paths

    workdir = tmp_path_factory.mktemp("server")
    index_dir = workdir / "index"
    summary = ingest_paths(sample_pdfs(), index_dir)
    assert summary.added == 2, summary

    # The repository's langgraph.json with absolute paths, run from a temporary folder: the
    # dev server keeps its state in ./.langgraph_api, which must not land in the checkout.
    config = json.loads(CONFIG.read_text())
    config["dependencies"] = [str(REPO / d) for d in config["dependencies"]]
    config["graphs"] = {name: str(REPO / spec) for name, spec in config["graphs"].items()}
    (workdir / "langgraph.json").write_text(json.dumps(config))

    env = {
        **os.environ,
        "CITEGUARD_INDEX": str(index_dir),
        "HF_HUB_OFFLINE": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",  # no network calls from the test
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
    }
    log = workdir / "server.log"
    started = time.perf_counter()
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "langgraph"),
                "dev",
                "--no-browser",
                "--no-reload",
                "--port",
                str(free_port()),
                "--config",
                str(workdir / "langgraph.json"),
            ],
            cwd=workdir,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as a whole
        )
    try:
        url = wait_until_ready(process, log)
        from langgraph_sdk import get_sync_client

        client = get_sync_client(url=url, timeout=RUN_TIMEOUT_S)
        assistant = client.assistants.search(graph_id="citeguard", limit=1)[0]
        yield {
            "client": client,
            "assistant_id": assistant["assistant_id"],
            "log": log,
            "url": url,
            "startup_s": time.perf_counter() - started,
        }
    finally:
        stop(process)


def readme_block(language: str, must_contain: str) -> str:
    """The README's fenced ``language`` code block that contains ``must_contain``."""
    blocks = re.findall(rf"```{language}\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    matching = [block for block in blocks if must_contain in block]
    assert len(matching) == 1, f"expected one {language} block with {must_contain!r}"
    return matching[0]


def run_readme_examples(url: str) -> tuple[dict[str, Any], str]:
    """Run the README's curl and langgraph_sdk examples against the server at ``url``.

    Returns the curl call's JSON output and what the Python example printed.
    """
    readme_url = "http://127.0.0.1:2024"
    curl = readme_block("bash", "/runs/wait").replace(readme_url, url)
    sdk = readme_block("python", "get_sync_client").replace(readme_url, url)
    assert shutil.which("curl"), "curl is needed to run the README example"
    curl_run = subprocess.run(
        ["bash", "-c", curl], capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    assert curl_run.returncode == 0, curl_run.stderr
    sdk_run = subprocess.run(
        [sys.executable, "-c", sdk], capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    assert sdk_run.returncode == 0, sdk_run.stderr
    return json.loads(curl_run.stdout), sdk_run.stdout


def timed_wait(server: dict[str, Any], question: str) -> dict[str, Any]:
    started = time.perf_counter()
    result = server["client"].runs.wait(None, "citeguard", input={"question": question})
    assert isinstance(result, dict), f"{result!r}\n{log_tail(server['log'])}"
    assert "__error__" not in result, f"{result}\n{log_tail(server['log'])}"
    print(f"runs.wait {question!r}: {time.perf_counter() - started:.1f} s")
    return result


def stream_all_modes(server: dict[str, Any], question: str) -> list[tuple[str, Any]]:
    parts = server["client"].runs.stream(
        None,
        "citeguard",
        input={"question": question},
        stream_mode=["custom", "messages", "updates", "values"],
    )
    events = [(part.event, part.data) for part in parts]
    errors = [data for event, data in events if event == "error"]
    assert not errors, f"{errors}\n{log_tail(server['log'])}"
    return events


def model_call_events(server: dict[str, Any], question: str) -> list[Any]:
    """The model-call events of an "events"-mode stream (the server's astream_events)."""
    parts = server["client"].runs.stream(
        None, "citeguard", input={"question": question}, stream_mode="events"
    )
    events = [part.data for part in parts if part.event == "events"]
    assert events, "no events-mode parts"
    return [e for e in events if str(e.get("event", "")).startswith(("on_chat_model", "on_llm"))]


def message_texts(events: list[tuple[str, Any]]) -> list[str]:
    """Every non-empty text carried by a "messages" stream event (model tokens)."""
    texts = []
    for event, data in events:
        if event.startswith("messages"):
            for item in data if isinstance(data, list) else [data]:
                content = item.get("content") if isinstance(item, dict) else None
                if content:
                    texts.append(str(content))
    return texts


def final_values(events: list[tuple[str, Any]]) -> dict[str, Any]:
    values = [data for event, data in events if event == "values"]
    assert values, "no values event"
    return dict(values[-1])


def check_only_output_keys(events: list[tuple[str, Any]]) -> None:
    """Streams carry only output-schema keys: no evidence, drafts or draft references."""
    for event, data in events:
        if event == "values":
            assert set(data) <= OUTPUT_KEYS | {"docs"}, set(data) - OUTPUT_KEYS
        if event == "updates":
            for update in data.values():
                assert update is None or set(update) <= OUTPUT_KEYS, update


@pytest.mark.integration
def test_server_end_to_end(server: dict[str, Any]) -> None:
    client, assistant_id = server["client"], server["assistant_id"]
    print(f"server ready in {server['startup_s']:.1f} s (index built before)")

    # Schemas: a description on every field of input, output and context.
    schemas = client.assistants.get_schemas(assistant_id)
    for key in ("input_schema", "output_schema", "context_schema"):
        assert schemas[key], f"{key} missing: see the server log\n{log_tail(server['log'])}"
        assert undescribed(schemas[key]) == [], key
    assert set(schemas["output_schema"]["properties"]) == OUTPUT_KEYS

    # The drawn graph: six nodes and exactly Algorithm 1's conditional edges.
    drawn = client.assistants.get_graph(assistant_id)
    assert {n["id"] for n in drawn["nodes"]} - {"__start__", "__end__"} == NODES
    edges = [(e["source"], e["target"], bool(e.get("conditional"))) for e in drawn["edges"]]
    assert len(edges) == len(set(edges))
    assert {(s, t) for s, t, c in edges if c} == CONDITIONAL_EDGES
    assert {(s, t) for s, t, c in edges if not c} == PLAIN_EDGES

    # runs/wait: an answerable and an unanswerable question, real local model.
    answered = timed_wait(server, ANSWERABLE)
    assert set(answered) <= OUTPUT_KEYS and {"answer", "status", "citations"} <= set(answered)
    assert answered["status"] == "answered", answered
    assert answered["refusal_reason"] is None
    assert answered["citations"] and all(c["quote"] for c in answered["citations"])
    assert "75" in answered["answer"]

    # The README's curl and langgraph_sdk examples, as printed there (same question: the
    # prompt is already in llama.cpp's cache, so each costs only the decoding).
    assert ANSWERABLE in readme_block("bash", "/runs/wait")
    curl_output, sdk_printed = run_readme_examples(server["url"])
    assert curl_output["status"] == "answered" and "75" in curl_output["answer"], curl_output
    assert "75" in sdk_printed, sdk_printed

    refused = timed_wait(server, UNANSWERABLE)
    assert set(refused) <= OUTPUT_KEYS
    assert refused["status"] == "refused" and refused["answer"] == REFUSAL
    assert refused["citations"] == []

    # Streams: custom progress events, validated sentences only, no model tokens anywhere.
    events = stream_all_modes(server, ANSWERABLE)
    check_only_output_keys(events)
    assert message_texts(events) == [], "raw model tokens reached the client"
    custom = [data for event, data in events if event == "custom"]
    assert {c["event"] for c in custom} <= CUSTOM_EVENTS
    assert custom[0] == {"event": "retrieved", "sources": custom[0]["sources"]}
    final = final_values(events)
    assert final["status"] == "answered"
    streamed = [c["text"] for c in custom if c["event"] == "sentence"]
    delivered = [s["text"] for s in final["validation"]["sentences"]]
    assert streamed and streamed == delivered
    # Sentences come after the last validation started, never while a candidate is unchecked.
    last_validating = max(i for i, c in enumerate(custom) if c["event"] == "validating")
    first_sentence = min(i for i, c in enumerate(custom) if c["event"] == "sentence")
    assert first_sentence > last_validating
    # Any answer text in any event is the validated one.
    for event, data in events:
        if event in ("values", "updates"):
            answers = (
                [data.get("answer")]
                if event == "values"
                else [(u or {}).get("answer") for u in data.values()]
            )
            assert all(a in (None, final["answer"]) for a in answers)

    events = stream_all_modes(server, UNANSWERABLE)
    check_only_output_keys(events)
    assert message_texts(events) == [], "raw model tokens reached the client"
    custom = [data for event, data in events if event == "custom"]
    assert "sentence" not in {c["event"] for c in custom}
    assert custom[-1]["event"] == "refused" and custom[-1]["reason"]
    final = final_values(events)
    assert final["answer"] == REFUSAL
    # A candidate always carries [n] markers (the grammar requires them): none may appear.
    assert not MARKER.search(json.dumps([d for _, d in events])), "a draft leaked"

    # "events" mode: the generator's calls (drafts, regeneration prompts) are not in it.
    assert model_call_events(server, UNANSWERABLE) == []


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("server_load", REPO / "scripts/server_load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.integration
def test_fifty_concurrent_runs_queue_and_all_complete(server: dict[str, Any]) -> None:
    """50 runs at once on the one model: those it cannot serve yet wait in the server's
    queue; every run ends in an answer or a refusal, none in an error. Bounded: the mix is
    mostly questions refused before the model, plus a few that the model answers (the same
    question, its prompt already in llama.cpp's cache)."""
    import asyncio

    script = load_script()
    questions = [ANSWERABLE] + [*script.OFF_TOPIC_QUESTIONS] * 3  # 1 in 10 through the model
    summary = asyncio.run(
        script.run_load(
            server["url"], clients=50, duration=0, timeout=RUN_TIMEOUT_S, questions=questions
        )
    )
    print(json.dumps({k: v for k, v in summary.items() if k != "runs_detail"}))
    assert summary["runs"] == 50 and summary["errors"] == []
    assert summary["statuses"] == {"answered": 5, "refused": 45}
    assert summary["refusal_reasons"] == {"insufficient_evidence": 45}

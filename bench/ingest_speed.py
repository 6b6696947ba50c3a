"""Ingest speed end to end (not a test): CiteGuard against what a LangChain user builds.

On the same PDFs, one after the other in one process:

- CiteGuard: ``ingest_paths`` (PyMuPDF parsing with printed pages, paragraph-aware
  chunking, chunk and sentence embeddings, BM25, FAISS, atomic write);
- LangChain: ``PyMuPDFLoader`` + ``RecursiveCharacterTextSplitter`` (2,400 characters,
  ~600 tokens, overlap 480) + ``HuggingFaceEmbeddings`` (the same MiniLM weights) +
  ``FAISS.from_documents`` + ``save_local``.

The corpus is the CUAD dev PDFs, copied ``--copies`` times under other names so that the
total passes 1,000 pages (5 copies: 1,035 pages). Reports pages/s, the time for 1,000
pages, chunks, and index bytes per chunk; writes ``bench/results/ingest_speed.json``. Run
it on idle cores.

    python bench/ingest_speed.py                      # 5 copies, both pipelines
    python bench/ingest_speed.py --copies 1 --only citeguard
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pymupdf

from citeguard.cpu_features import cpu_has_amx_bf16
from citeguard.index.embedder import langchain_embeddings, reads_in_bfloat16
from citeguard.ingest.pipeline import ingest_paths

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PDF_DIR = ROOT.parent / "shared" / "data" / "cuad-dev" / "docs"
OUT = ROOT / "bench" / "results" / "ingest_speed.json"


def corpus(source: Path, copies: int, folder: Path) -> tuple[list[Path], int]:
    """``copies`` copies of every PDF in ``source`` under distinct names; total pages."""
    files: list[Path] = []
    pages = 0
    for pdf in sorted(source.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            count = doc.page_count
        for copy in range(copies):
            target = folder / f"{pdf.stem}-copy{copy}.pdf"
            shutil.copyfile(pdf, target)
            files.append(target)
            pages += count
    return files, pages


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def run_citeguard(files: list[Path], work: Path) -> dict[str, Any]:
    index = work / "citeguard-index"
    started = time.perf_counter()
    summary = ingest_paths(files, index)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "pages": summary.pages,
        "chunks": summary.chunks,
        "skipped": summary.skipped,
        "index_bytes": folder_bytes(index),
        "embedding_precision": "bfloat16" if reads_in_bfloat16() else "float32",
    }


def run_langchain(files: list[Path], work: Path) -> dict[str, Any]:
    from langchain_community.document_loaders import PyMuPDFLoader
    from langchain_community.vectorstores import FAISS
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    started = time.perf_counter()
    embeddings = langchain_embeddings()
    pages = [page for file in files for page in PyMuPDFLoader(str(file)).load()]
    splitter = RecursiveCharacterTextSplitter(chunk_size=2400, chunk_overlap=480)
    chunks = splitter.split_documents(pages)
    store = FAISS.from_documents(chunks, embeddings)
    store.save_local(str(work / "langchain-index"))
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "pages": len(pages),
        "chunks": len(chunks),
        "index_bytes": folder_bytes(work / "langchain-index"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=Path, default=DEFAULT_PDF_DIR, help="folder of PDFs")
    parser.add_argument("--copies", type=int, default=5, help="copies of each PDF (default 5)")
    parser.add_argument("--only", choices=["citeguard", "langchain"], help="run one pipeline")
    parser.add_argument("--out", type=Path, default=OUT, help="JSON result file")
    args = parser.parse_args()

    results: dict[str, Any] = {
        "machine": platform.processor() or platform.machine(),
        "amx_bf16": cpu_has_amx_bf16(),
    }
    with tempfile.TemporaryDirectory(prefix="citeguard-ingest-bench-") as tmp:
        work = Path(tmp)
        (work / "pdfs").mkdir()
        files, pages = corpus(args.pdfs, args.copies, work / "pdfs")
        results.update(files=len(files), pages=pages)
        runs = {"citeguard": run_citeguard, "langchain": run_langchain}
        for name, run in runs.items():
            if args.only in (None, name):
                outcome = run(files, work)
                outcome["pages_per_second"] = outcome["pages"] / outcome["seconds"]
                outcome["seconds_per_1000_pages"] = 1000 / outcome["pages_per_second"]
                outcome["index_bytes_per_chunk"] = outcome["index_bytes"] / max(
                    outcome["chunks"], 1
                )
                results[name] = outcome
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"{results['files']} PDFs, {results['pages']} pages")
    if "citeguard" in results:
        print(f"CiteGuard's embedder read in {results['citeguard']['embedding_precision']}")
    print("| pipeline | pages/s | s per 1,000 pages | chunks | index bytes/chunk |")
    print("|---|---|---|---|---|")
    for name in ("citeguard", "langchain"):
        if name in results:
            r = results[name]
            print(
                f"| {name} | {r['pages_per_second']:.1f} | {r['seconds_per_1000_pages']:.0f} "
                f"| {r['chunks']} | {r['index_bytes_per_chunk']:,.0f} |"
            )


if __name__ == "__main__":
    main()

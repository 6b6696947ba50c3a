"""Ingestion: parse files into page-aware documents and cut them into chunks.

No LangGraph and no index code here; the indexer graph and the CLI call these functions.
"""

from citeguard.ingest.chunking import ChunkSettings, TokenCounter, chunk_document, count_words
from citeguard.ingest.parsing import (
    SUPPORTED_SUFFIXES,
    discover_documents,
    document_from_pages,
    parse_document,
)

__all__ = [
    "SUPPORTED_SUFFIXES",
    "ChunkSettings",
    "TokenCounter",
    "chunk_document",
    "count_words",
    "discover_documents",
    "document_from_pages",
    "parse_document",
]

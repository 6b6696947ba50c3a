"""Search: BM25 (sparse), FAISS (dense), hybrid fusion, and the on-disk index store.

No LangGraph here; ``retriever.CiteGuardRetriever`` adapts the searcher to LangChain.
"""

from citeguard.index.bm25 import BM25Index, tokenize
from citeguard.index.dense import DenseIndex
from citeguard.index.fusion import (
    DEFAULT_ALPHA,
    fuse,
    fuse_minmax,
    minmax_normalize,
    reciprocal_rank_fusion,
)
from citeguard.index.search import HybridSearcher, UnknownDocumentError
from citeguard.index.searcher import Searcher, StoredChunkVectors
from citeguard.index.store import (
    DocumentRecord,
    IndexData,
    Manifest,
    read_index,
    read_manifest,
    resolve_index_dir,
    write_index,
)

__all__ = [
    "DEFAULT_ALPHA",
    "BM25Index",
    "DenseIndex",
    "DocumentRecord",
    "HybridSearcher",
    "IndexData",
    "Manifest",
    "Searcher",
    "StoredChunkVectors",
    "UnknownDocumentError",
    "fuse",
    "fuse_minmax",
    "minmax_normalize",
    "read_index",
    "read_manifest",
    "reciprocal_rank_fusion",
    "resolve_index_dir",
    "tokenize",
    "write_index",
]

"""What a served graph may touch: documents under the operator's roots, indexes under one.

Whoever can reach a LangGraph server can start runs with any input and context. Without a
policy, the indexer graph would read any file the server's user can read (and search would
quote it back), and either graph would write or read an index anywhere. So the graphs
``langgraph.json`` serves are compiled with a :class:`ServerAccess` built from the
operator's environment (``CITEGUARD_DOCUMENT_ROOTS``, ``CITEGUARD_INDEX_ROOT``), never from
anything a client sends:

- a document path must resolve (symbolic links followed, ``..`` refused outright) inside a
  document root; with no roots set, no server path is read at all and clients send file
  contents instead (the indexer's ``uploads``);
- an index is the default one, or a plain name inside the index root; with no index root
  set, clients cannot choose one.

The CLI and library graphs carry no policy: they run as the machine's own user, who may
name any path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from citeguard import environment
from citeguard.errors import AccessDeniedError


def within(path: Path, roots: Sequence[Path]) -> bool:
    """Whether the resolved ``path`` lies inside one of the (resolved) ``roots``."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(root.resolve()) for root in roots)


@dataclass(frozen=True)
class ServerAccess:
    """The operator's limits on what served graphs read and write."""

    document_roots: tuple[Path, ...] = ()
    """Folders whose files may be read by path; empty: none."""
    index_root: Path | None = None
    """Folder holding the indexes clients may name; None: only the default index."""

    @classmethod
    def from_environment(cls) -> ServerAccess:
        """The policy the operator set in the server's environment."""
        return cls(environment.document_roots(), environment.index_root())

    def document_path(self, raw: str) -> Path:
        """The path a client named, when it is inside a document root.

        Raises:
            AccessDeniedError: no roots are set, the path has a ``..`` part, or it resolves
                (through any symbolic link) outside every root.
        """
        if not self.document_roots:
            raise AccessDeniedError(
                "this server reads no document paths (the operator has set no "
                "CITEGUARD_DOCUMENT_ROOTS); send the files' contents in 'uploads' instead"
            )
        if ".." in PurePath(raw).parts:
            raise AccessDeniedError(f"{raw!r}: paths with '..' are refused")
        path = Path(raw)
        if not path.is_absolute():
            path = self.document_roots[0] / path
        if not within(path, self.document_roots):
            raise AccessDeniedError(f"{raw!r} is outside the folders this server may read")
        return path

    def index_dir(self, raw: str | None) -> str | None:
        """The index folder for a client's ``index_dir`` (None: the default index).

        Raises:
            AccessDeniedError: a client named an index and there is no index root, or the
                name is not a plain folder name inside it.
        """
        if not raw:
            return None
        if self.index_root is None:
            raise AccessDeniedError(
                "this server does not let clients choose an index (the operator has set no "
                "CITEGUARD_INDEX_ROOT); leave index_dir unset"
            )
        name = PurePath(raw)
        if name.is_absolute() or ".." in name.parts or len(name.parts) != 1:
            raise AccessDeniedError(
                f"index_dir {raw!r}: give a plain name; indexes live in the server's index root"
            )
        return str(self.index_root / name)


UNRESTRICTED: ServerAccess | None = None
"""No policy: the CLI's and library's graphs, run by the machine's own user."""

"""The package's layers import only downwards: data flows down the tree, no arrow back up.

Each module belongs to a layer (its first package under ``citeguard``, or a root module);
it may import its own layer and the layers below it, never one above. Imports inside
functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "citeguard"

# Bottom to top. Root modules that every layer may use come first.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "documents", "atomic_files", "cache", "environment", "cpu_features"}),
    frozenset({"text"}),
    frozenset({"llm"}),
    frozenset({"index"}),
    frozenset({"ingest"}),
    frozenset({"learned"}),
    frozenset({"validate"}),
    frozenset({"generate"}),
    frozenset({"graph"}),
    frozenset({"api"}),
    frozenset({"evaluation"}),
    frozenset({"serve"}),
    frozenset({"__init__"}),
)


def layer_of(part: str) -> int:
    """The rank of the layer a top-level name under ``citeguard`` belongs to."""
    for rank, names in enumerate(LAYERS):
        if part in names:
            return rank
    raise AssertionError(f"citeguard.{part} is in no layer: add it to LAYERS")


def top_name(module: Path) -> str:
    relative = module.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imported_tops(module: Path) -> set[str]:
    """The top-level ``citeguard`` names a module imports (at any depth of its code)."""
    tops: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(), filename=str(module))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "citeguard":
                names = [f"citeguard.{alias.name}" for alias in node.names]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "citeguard" and len(parts) > 1:
                tops.add(parts[1])
    return tops


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda m: str(m.relative_to(PACKAGE)))
def test_module_imports_only_its_layer_and_below(module: Path) -> None:
    own = top_name(module)
    upward = sorted(t for t in imported_tops(module) if layer_of(t) > layer_of(own))
    assert not upward, f"{module.relative_to(PACKAGE)} imports upward: {upward}"


def test_every_package_folder_is_a_layer() -> None:
    for folder in PACKAGE.iterdir():
        if folder.is_dir() and (folder / "__init__.py").exists():
            layer_of(folder.name)


def test_upward_import_is_caught(tmp_path: Path) -> None:
    """The check itself sees a lazy import from a higher layer."""
    module = tmp_path / "probe.py"
    module.write_text("def f():\n    from citeguard.graph.state import State\n")
    assert imported_tops(module) == {"graph"}
    assert layer_of("graph") > layer_of("text")

"""The import-linter contract that keeps the core free of the harness and torch lists every core
module, so a new module cannot slip past it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_core_contract_lists_every_core_module():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(
        c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith("The core")
    )
    listed = set(contract["source_modules"])
    package = ROOT / "faircocco_plugins"
    modules = {
        f"faircocco_plugins.{path.stem}"
        for path in package.glob("*.py")
        if path.stem not in ("__init__", "cli") and not path.stem.startswith("_torch_")
    }
    assert listed == modules | {"faircocco_plugins.datasets"}


def test_no_module_of_the_package_imports_itself_back():
    """No import cycle, function-level imports included: each module's imports lead only down."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph, in the development install
    graph = grimp.build_graph("faircocco_plugins", cache_dir=None)
    imports = {
        module: {
            imported
            for imported in graph.find_modules_directly_imported_by(module)
            if imported.startswith("faircocco_plugins.")
        }
        for module in graph.modules
    }
    cycles = []
    for module in sorted(imports):
        # a cycle through `module` is a path back to it
        seen, frontier = set(), [module]
        while frontier:
            for imported in imports[frontier.pop()]:
                if imported == module:
                    cycles.append(module)
                elif imported not in seen:
                    seen.add(imported)
                    frontier.append(imported)
    assert sorted(set(cycles)) == []

"""The import-linter contracts that keep the core free of the harness and torch cover every core
module, so a new module cannot slip past them; and the core has no import cycle."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The modules that import the device modules, when a torch tensor arrives.
DOORS = {"faircocco_plugins._routes.dispatch", "faircocco_plugins._linalg.backend"}


def contract(name: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return next(c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == name)


def core_modules() -> set[str]:
    """Every module and package of the core but the command line and the harness."""
    modules = set()
    for path in (ROOT / "faircocco_plugins").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if len(parts) > 1 and parts[1] not in ("cli", "bench"):
            modules.add(".".join(parts))
    return modules


def uncovered(listed: list[str]) -> set[str]:
    """The core modules that are neither in ``listed`` nor inside a package it lists."""
    return {
        module
        for module in core_modules()
        if not any(module == source or module.startswith(f"{source}.") for source in listed)
    }


def test_the_harness_contract_covers_every_core_module():
    listed = contract("The core imports no harness, command line or adapter")["source_modules"]
    assert uncovered(listed) == set()


def test_the_torch_contracts_cover_every_module_but_those_that_import_torch():
    grimp = pytest.importorskip("grimp")  # import-linter's graph, in the development install
    graph = grimp.build_graph("faircocco_plugins", include_external_packages=True, cache_dir=None)
    device = {
        module
        for module in core_modules()
        if "torch" in graph.find_modules_directly_imported_by(module)
    }
    torch_ban = contract("Only the device modules import torch")["source_modules"]
    # the packages that hold device modules are left out; they hold a docstring and import nothing
    packages = {m for m in uncovered(torch_ban) if (ROOT / m.replace(".", "/")).is_dir()}
    assert [p for p in sorted(packages) if graph.find_modules_directly_imported_by(p)] == []
    assert uncovered(torch_ban) - packages == device
    doors = contract("Only the two doors import the device modules")
    assert set(doors["source_modules"]) == set(torch_ban) - DOORS
    assert set(doors["forbidden_modules"]) == device


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

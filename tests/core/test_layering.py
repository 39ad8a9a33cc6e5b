"""The import-linter contract that keeps the core free of the harness and torch lists every core
module, so a new module cannot slip past it."""

from __future__ import annotations

import tomllib
from pathlib import Path

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

"""The four distributions' metadata, read from their ``pyproject.toml`` files: what ``make wheels``
builds and installs must agree with itself.

A pin of one of the project's distributions on another that excludes the version built beside it
makes the built wheels uninstallable together; a missing pin lets an adapter meet any core.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]

# each distribution's folder and the import package it ships
PACKAGES = {
    ".": "faircocco_plugins",
    "adapters/torch": "faircocco_torch",
    "adapters/fairlearn": "faircocco_fairlearn",
    "adapters/aif360": "faircocco_aif360",
}


def _project(folder: str) -> dict[str, Any]:
    with open(ROOT / folder / "pyproject.toml", "rb") as file:
        project: dict[str, Any] = tomllib.load(file)["project"]
    return project


def _requirements(project: dict[str, Any]) -> list[Requirement]:
    """The dependencies and every extra's, as parsed requirements."""
    lines = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        lines.extend(extra)
    return [Requirement(line) for line in lines]


def _built_versions() -> dict[str, Version]:
    """Each of the project's distributions, by canonical name, with the version it builds."""
    projects = [_project(folder) for folder in PACKAGES]
    return {canonicalize_name(p["name"]): Version(p["version"]) for p in projects}


def _package_version(folder: str) -> str:
    """``__version__`` as assigned in the import package's ``__init__.py``, read without
    importing it (the AIF360 adapter is not installed in the development environment)."""
    init = ROOT / folder / PACKAGES[folder] / "__init__.py"
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets
        ):
            return str(ast.literal_eval(node.value))
    raise AssertionError(f"{init.relative_to(ROOT)} assigns no __version__")


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_pins_on_the_project_distributions_admit_the_versions_built(folder: str) -> None:
    built = _built_versions()
    sibling_pins = [
        r for r in _requirements(_project(folder)) if canonicalize_name(r.name) in built
    ]
    for requirement in sibling_pins:
        version = built[canonicalize_name(requirement.name)]
        assert requirement.specifier, f"{folder}: {requirement} has no version pin"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{folder}: {requirement} excludes the version built, {version}"
        )


def test_every_adapter_depends_on_the_core() -> None:
    for folder in PACKAGES:
        if folder == ".":
            continue
        names = {canonicalize_name(r.name) for r in _requirements(_project(folder))}
        assert "faircocco-plugins" in names, f"{folder} does not depend on faircocco-plugins"


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_the_package_version_is_the_distribution_version(folder: str) -> None:
    assert _package_version(folder) == _project(folder)["version"]


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_the_readme_and_license_files_exist(folder: str) -> None:
    project = _project(folder)
    readme = project.get("readme")
    assert isinstance(readme, str), f"{folder}: readme should name a file"
    assert (ROOT / folder / readme).is_file(), f"{folder}: readme {readme} is missing"
    license_files = project.get("license-files")
    assert license_files, f"{folder}: no license-files"
    for name in license_files:
        assert (ROOT / folder / name).is_file(), f"{folder}: license file {name} is missing"


def test_every_distribution_ships_the_same_license_text() -> None:
    texts = {
        folder: (ROOT / folder / name).read_text(encoding="utf-8")
        for folder in PACKAGES
        for name in _project(folder)["license-files"]
    }
    assert len(set(texts.values())) == 1, f"the license files differ: {sorted(texts)}"

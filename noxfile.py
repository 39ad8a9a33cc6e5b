"""Test sessions, one environment per adapter: ``nox -s torch``; ``make test`` runs them all.

Each adapter is tested in an environment of its own, with what its toolkit needs and nothing
else (AIF360 needs ``pandas<3``, while the core is tested with pandas 3). The core's own suite
runs in the development environment (``make pytest``).
"""

from __future__ import annotations

import os

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["torch", "fairlearn", "aif360"]


@nox.session
def torch(session: nox.Session) -> None:
    """The PyTorch adapter against the core, from ``adapters/torch/tests``."""
    # first and pinned: a CPU wheel of exactly this version is available, while any other
    # torch requirement pulls a CUDA build of several GB
    session.install("torch==2.13.0")
    session.install("-e", ".", "-e", "adapters/torch[test]")
    _absolute_data_path(session)
    session.chdir("adapters/torch")
    session.run("python", "-m", "pytest", "-q", *session.posargs)


@nox.session
def fairlearn(session: nox.Session) -> None:
    """The fairlearn adapter against the core and fairlearn 0.15, from ``adapters/fairlearn``
    (with torch and the torch adapter: fairlearn's adversarial mitigator runs on torch, and the
    paper's network is a base model)."""
    session.install("torch==2.13.0")  # first, as for the torch session
    session.install("-e", ".", "-e", "adapters/torch", "-e", "adapters/fairlearn[test]")
    session.chdir("adapters/fairlearn")
    session.run("python", "-m", "pytest", "-q", *session.posargs)


@nox.session
def aif360(session: nox.Session) -> None:
    """The AIF360 adapter against the core, the torch adapter and AIF360 0.6.1 with pandas<3,
    from ``adapters/aif360``; its layering is checked here, where AIF360 is installed."""
    session.install("torch==2.13.0")  # first, as for the torch session
    session.install(
        "-e",
        ".[bench]",
        "-e",
        "adapters/torch",
        "-e",
        "adapters/aif360[test,adversarial]",
        "import-linter",
    )
    _absolute_data_path(session)
    session.chdir("adapters/aif360")
    session.run("lint-imports")
    session.run("python", "-m", "pytest", "-q", *session.posargs)


def _absolute_data_path(session: nox.Session) -> None:
    """The tests run from the adapter's folder: a relative data path must not move."""
    if os.environ.get("FAIRCOCCO_DATA"):
        session.env["FAIRCOCCO_DATA"] = os.path.abspath(os.environ["FAIRCOCCO_DATA"])

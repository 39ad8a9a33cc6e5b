# Developer and CI entry points. `make demo` and `make test` work on a fresh machine with Python 3.11.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Run the steps of `test` one after another, in the order written, even under `make -j`.
.NOTPARALLEL:
.PHONY: venv demo example-aif360 lint docs pytest adapters wheels test

venv: $(STAMP)

# torch goes in first and pinned: a CPU wheel of exactly this version is available to pip, while
# any other torch requirement pulls a CUDA build of several GB. The stamp makes this target a
# no-op until pyproject.toml changes.
$(STAMP): pyproject.toml adapters/torch/pyproject.toml adapters/fairlearn/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install -e ".[dev,bench,ray]" -e adapters/torch -e adapters/fairlearn
	touch $(STAMP)

# A short real study and its report, beside the store, written by bench when the study
# completes: the paper's datasets found under $$FAIRCOCCO_DATA or downloaded, else synthetic
# ones. With all nine, 3 to 4 minutes on 2 cores of its own, longer in proportion on shared ones
# (the README has the measurements).
# A store holds one study configuration, and the datasets found make part of it, so a run with
# $$FAIRCOCCO_DATA set has a store of its own. Should the datasets found change otherwise (a
# first run offline on the synthetic ones, a later one online), bench stops and says what
# differs: name another store (`make demo DEMO_STORE=results/quick-2.sqlite`, as bench's
# advice says, given here) or remove the old.
DEMO_STORE ?= $(if $(FAIRCOCCO_DATA),results/quick-data-dir.sqlite,results/quick.sqlite)
demo: venv
	FAIRCOCCO_NEW_STORE_ADVICE='make demo DEMO_STORE=PATH' $(BIN)/faircocco bench --preset quick \
		--jobs 2 --store $(DEMO_STORE) --report $(DEMO_STORE:.sqlite=-report)

# The AIF360 example in the AIF360 adapter's nox environment (AIF360 needs pandas<3, .venv has
# pandas 3), made on first use without running its tests. TensorFlow, there for AIF360's
# adversarial baseline, is imported by AIF360 but not used by the example: its start-up log is
# kept quiet.
example-aif360: venv
	$(BIN)/nox -s aif360 --install-only
	TF_CPP_MIN_LOG_LEVEL=2 TF_ENABLE_ONEDNN_OPTS=0 .nox/aif360/bin/python examples/aif360_pipeline.py

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy adapters/torch/faircocco_torch
	$(BIN)/mypy adapters/fairlearn/faircocco_fairlearn
	$(BIN)/mypy adapters/aif360/faircocco_aif360
	$(BIN)/mypy benchmarks
	$(BIN)/lint-imports

# The pages read the same offline: formulas are MathML written into them (docs/_ext/mathml.py),
# and a page that loads a script from the network fails the build.
docs: venv
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	@if grep -rlE --include='*.html' '<script[^>]* src="(https?:)?//' docs/_build/html; then \
		echo "the pages above load a script from the network: they must read offline" >&2; \
		exit 1; \
	fi

# A run that collects no test (pytest's exit status 5) is a broken run, and fails like any other.
# The docstrings' examples run in a second pass: collecting the package's modules beside the
# tests would import the tests' same-named conftest.py files as one module.
pytest: venv
	$(BIN)/python -m pytest -q
	$(BIN)/python -m pytest -q --doctest-modules faircocco_plugins

# Each adapter's tests in an environment of its own (noxfile.py); created on first use.
adapters: venv
	$(BIN)/nox

# The four distributions as a user gets them: each sdist, and each wheel built from its sdist in
# an isolated build environment, into dist/; their metadata checked as PyPI renders it; then the
# wheels installed into fresh environments outside the source tree, torch first, and used there
# (.ci/wheel_smoke.sh). 2 minutes 27 seconds on 2 cores with TMPDIR=/dev/shm; 7 minutes 24 seconds
# with /tmp on a disk mounted with online discard, 4.5 minutes of which deleting the environments.
DIST := dist
wheels: venv
	rm -rf $(DIST)
	for folder in . adapters/torch adapters/fairlearn adapters/aif360; do \
		$(BIN)/python -m build --quiet --outdir $(DIST) $$folder || exit 1; \
	done
	$(BIN)/twine check --strict $(DIST)/*
	.ci/wheel_smoke.sh $(PYTHON) $(DIST)

test: venv lint docs pytest adapters wheels

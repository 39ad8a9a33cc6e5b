"""The plugin contract loads only numpy and pandas: adapters import it at their own import."""

import subprocess
import sys

#: Dependencies of the estimators, the harness or the adapters, not of the contract.
HEAVY = ("scipy", "tqdm", "platformdirs", "torch", "sklearn", "fairlearn", "aif360", "dask")


def modules_after(code: str) -> list[str]:
    """The top-level modules loaded by ``code`` in a fresh interpreter."""
    script = (
        f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return run.stdout.split()


def test_importing_the_contract_loads_only_numpy_and_pandas():
    loaded = modules_after("import faircocco_plugins.plugins")
    assert "numpy" in loaded and "pandas" in loaded
    assert [name for name in HEAVY if name in loaded] == []


def test_the_package_loads_its_public_names_on_first_use():
    assert "tqdm" not in modules_after("import faircocco_plugins")
    # the public functions' module imports tqdm, for the permutation test's progress bar
    assert "tqdm" in modules_after("from faircocco_plugins import faircocco_score")
    import faircocco_plugins

    assert set(faircocco_plugins.__all__) <= set(dir(faircocco_plugins))
    for name in faircocco_plugins.__all__:
        assert getattr(faircocco_plugins, name).__name__ == name

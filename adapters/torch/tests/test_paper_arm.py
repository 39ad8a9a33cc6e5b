"""The harness's arm of the paper's literal FairCOCCO settings."""

from __future__ import annotations

from importlib.metadata import entry_points

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")

from torch_helpers import biased_task

from faircocco_torch import FairCOCCOPenalty, FairCOCCORegressor
from faircocco_torch._mitigators import FAIRCOCCO_PAPER as spec


def test_the_paper_arm_builds_the_papers_penalty_without_warm_up() -> None:
    model = spec.factory(task="classification", notion="dp", lam=2.0, epochs=3, random_state=0)
    penalty = model.penalty
    assert isinstance(penalty, FairCOCCOPenalty)
    assert (penalty.notion, penalty.lam, model.notion, model.lam) == ("dp", 2.0, "dp", 2.0)
    assert (penalty.eps, penalty.conditioning_eps) == (1e-4, 1e-4)
    assert penalty.chance_adjusted is False and penalty.attribute_kernel == "joint"
    # a study's warm-up epochs never reach it
    assert spec.training_settings == ("epochs",) and model.warmup_epochs == 0
    assert spec.param_grid["lam"] == (0.5, 1.0, 2.0, 5.0)
    regressor = spec.factory(task="regression", notion="eo", lam=0.5, penalty_on="logits")
    assert isinstance(regressor, FairCOCCORegressor) and regressor.penalty.notion == "eo"


def test_the_paper_arm_runs_on_the_papers_binary_tables_only() -> None:
    caps = spec.capabilities
    assert caps.problems(task="classification", notion="eo", attributes=("binary",)) == []
    assert caps.problems(task="classification", notion="cal", attributes=("binary",))
    assert caps.problems(task="classification", notion="dp", attributes=("categorical",))


def test_the_paper_arm_trains_and_is_registered() -> None:
    X, y, a = biased_task(300, seed=0)
    model = spec.factory(task="classification", notion="eo", lam=1.0, epochs=2, random_state=0)
    model.fit(X, y, sensitive_features=a)
    assert model.penalty_applied_ and np.isfinite(model.predict_proba(X)).all()
    found = {e.name: e for e in entry_points(group="faircocco_plugins.mitigators")}
    if "faircocco" not in found:
        pytest.skip("faircocco-torch is not installed with its entry points")
    assert found["faircocco_paper"].load() is spec

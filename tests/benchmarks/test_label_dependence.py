"""``benchmarks/label_dependence.py``, the guide's table of dependence on probabilities and on
labels, runs end to end."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")

from benchmarks import label_dependence


def test_models_are_names_with_optional_json_parameters() -> None:
    assert label_dependence._models('nn,faircocco:{"lam": 10, "eps": 0.1}, hsic:{}') == [
        ("nn", {}),
        ("faircocco", {"lam": 10, "eps": 0.1}),
        ("hsic", {}),
    ]


def test_each_model_gets_a_row_on_probabilities_and_on_labels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if not os.environ.get("FAIRCOCCO_DATA"):
        pytest.skip("FAIRCOCCO_DATA is not set")
    args = ["--dataset", "law_school", "--models", "nn", "--max-train-rows", "1000"]
    label_dependence.main(args)
    out = capsys.readouterr().out
    assert "command:  python benchmarks/label_dependence.py " + " ".join(args) in out
    number = r"(\d+\.\d+)"
    row = re.search(rf"^nn +{number}" + rf" +{number}" * 6 + "$", out, flags=re.MULTILINE)
    assert row is not None, out
    positive_rate, hsic, hsic_labels, dcor, dcor_labels, adjusted, adjusted_labels = map(
        float, row.groups()
    )
    assert 0.0 < positive_rate <= 1.0
    assert hsic > 0.0 and hsic_labels > 0.0
    assert all(0.0 <= v <= 1.0 for v in (dcor, dcor_labels, adjusted, adjusted_labels))

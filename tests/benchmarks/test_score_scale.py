"""``benchmarks/score_scale.py``, the user guide's table of the score's scale, runs end to end."""

from __future__ import annotations

import re

import pytest

from benchmarks import score_scale


def test_every_prediction_gets_a_row_per_attribute(capsys: pytest.CaptureFixture[str]) -> None:
    score_scale.main(["--rows", "200", "--seeds", "2"])
    out = capsys.readouterr().out
    assert "command:  python benchmarks/score_scale.py --rows 200 --seeds 2" in out
    rows = re.findall(r"^ +(\S.*?)  (\d\.\d{3})-(\d\.\d{3})  ", out, flags=re.MULTILINE)
    assert len(rows) == len(score_scale.PREDICTIONS) * len(score_scale.ATTRIBUTES)
    # the attribute itself scores 1 on every draw
    assert [(low, high) for name, low, high in rows if name == "a"] == [("1.000", "1.000")] * 2

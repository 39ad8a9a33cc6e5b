"""Importing the metric does not print AIF360's notices about dependencies the adapter does not
need, and every other record passes."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from faircocco_aif360._quiet_import import without_unneeded_notices

ADVERSARIAL = (
    "No module named 'tensorflow': AdversarialDebiasing will be unavailable. To install, run:\n"
    "pip install 'aif360[AdversarialDebiasing]'"
)
REDUCTIONS = (
    "No module named 'fairlearn': ExponentiatedGradientReduction will be unavailable. To "
    "install, run:\npip install 'aif360[Reductions]'"
)


def test_importing_the_metric_prints_no_notice_about_unneeded_dependencies():
    result = subprocess.run(
        [sys.executable, "-c", "from faircocco_aif360 import FairCOCCOMetric"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "AdversarialDebiasing will be unavailable" not in result.stderr
    assert "SenSeI and SenSR will be unavailable" not in result.stderr


def test_only_the_unneeded_notices_are_dropped_and_only_inside_the_block(
    caplog: pytest.LogCaptureFixture,
):
    with caplog.at_level(logging.WARNING):
        with without_unneeded_notices():
            logging.warning(ADVERSARIAL)
            logging.warning(REDUCTIONS)
            logging.getLogger("aif360").warning(ADVERSARIAL)  # not the root logger's
        logging.warning(ADVERSARIAL)
    assert [record.getMessage() for record in caplog.records] == [
        REDUCTIONS,
        ADVERSARIAL,
        ADVERSARIAL,
    ]

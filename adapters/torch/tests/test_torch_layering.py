"""The torch adapter builds on the plugin contract, not on the head-to-head harness."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("faircocco_torch")


def test_importing_the_adapter_imports_no_harness_module() -> None:
    # a fresh interpreter: this test session has imported the harness already
    code = (
        "import sys, faircocco_torch\n"
        "from faircocco_torch import FairCOCCOPenalty\n"
        "FairCOCCOPenalty(notion='dp')\n"
        "print(' '.join(m for m in sys.modules if m.startswith('faircocco_plugins.bench')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_the_adapter_describes_its_methods_with_the_contract() -> None:
    from faircocco_plugins.plugins import Capabilities, MethodSpec
    from faircocco_torch import FairCOCCOPenalty
    from faircocco_torch._mitigators import FAIRCOCCO

    assert isinstance(FairCOCCOPenalty.capabilities, Capabilities)
    assert isinstance(FAIRCOCCO, MethodSpec)

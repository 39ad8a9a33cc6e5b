"""The fairlearn adapter builds on the core's public API and plugin contract only."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_adapter_imports_no_harness_and_no_torch():
    code = (
        "import sys, faircocco_fairlearn\n"
        "names = [m for m in sys.modules if m.startswith(('faircocco_plugins.bench', 'torch',"
        " 'faircocco_torch'))]\n"
        "print(' '.join(names))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""

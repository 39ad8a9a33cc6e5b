"""The AIF360 adapter builds on the core's public API and plugin contract only."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_adapter_imports_no_harness_and_no_torch():
    # a fresh interpreter: this test session has imported the harness already
    code = (
        "import sys, faircocco_aif360, faircocco_aif360.sklearn\n"
        "names = [m for m in sys.modules if m.startswith(('faircocco_plugins.bench', 'torch'))]\n"
        "print(' '.join(names))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""

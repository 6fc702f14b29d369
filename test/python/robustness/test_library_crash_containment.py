"""strata.load on a module that crashes IREE's runtime raises StrataError; the caller survives.

The saved fuzz finding `strata-run-signal-e39b237250.vmfb` segfaults IREE while loading. strata-run
contains that with its forked guard; as a library, `strata.load` tries the load in a forked child
first. The call runs in a subprocess here so that, were containment broken, only it would die.
"""

import subprocess
import sys

from conftest import ROOT

DAMAGED = ROOT / "test" / "fuzz" / "regressions" / "strata-run-signal-e39b237250.vmfb"

SCRIPT = """
import sys
import strata
from strata.errors import StrataError
try:
    strata.load(sys.argv[1], device="local-task", parameters=[sys.argv[2]])
except StrataError as e:
    print("StrataError:", e)
print("session alive")
"""


def test_damaged_module_is_an_error_not_a_crash(compiled):
    _, params = compiled
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(DAMAGED), str(params)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert "crashed IREE's runtime while loading (SIGSEGV): the module is damaged" in result.stdout
    assert "session alive" in result.stdout


def test_healthy_module_still_loads_and_runs(compiled):
    import numpy as np

    import strata

    vmfb, params = compiled
    model = strata.load(vmfb, parameters=[params])
    _, total = model(np.ones((2, 64), np.float32), np.ones((2, 32), np.float32))
    assert float(total) == 128.0

"""strata.heap_reuse: a CPU module's calls reuse what earlier calls freed instead of faulting in
fresh pages. Each case runs in a process of its own: the setting is the process's, and any
earlier load in the test process would already have made it."""

import subprocess
import sys

import pytest

_CALLS = """
import resource, sys
import numpy as np
import torch
import strata
from strata.iree_runtime import LoadedModule

class Affine(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0

x = torch.ones(3, 4096, 1024)  # 48 MiB: over glibc's largest automatic mmap threshold (32 MiB)
vmfb = strata.compile(Affine(), (x,), target="llvm-cpu").vmfb
main = LoadedModule(vmfb, "local-sync", reuse_freed_memory=sys.argv[1] == "reuse").function("main")
array = x.numpy()
for _ in range(3):
    result = main(array)[0]
    del result
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    result = main(array)[0]
    assert result[0, 0, 0] == 3.0
    del result
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

PAGES_PER_CALL = (48 << 20) // 4096


def _faults(mode: str) -> int:
    result = subprocess.run([sys.executable, "-c", _CALLS, mode], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return int(result.stdout.split()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc and Linux page-fault counts")
def test_calls_reuse_freed_buffers():
    """Ten calls with a 48 MiB input and result fault in less than one result's pages."""
    faults = _faults("reuse")
    assert faults < PAGES_PER_CALL, f"{faults} page faults over 10 calls"


def _thp_always() -> bool:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[always]" in f.read()
    except OSError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc and Linux page-fault counts")
@pytest.mark.skipif(_thp_always(), reason="transparent huge pages always on: fresh mappings fault in 2 MiB at a time")
def test_without_reuse_every_call_faults_its_buffers_in():
    """What the setting saves: glibc's defaults unmap the blocks when they are freed."""
    faults = _faults("default")
    assert faults > 10 * PAGES_PER_CALL, f"only {faults} page faults over 10 calls"

"""strata.batch_wait: a local-task call waits as a SCHED_BATCH thread where IREE's workers can
take every CPU, and the thread is back to SCHED_OTHER afterwards."""

import os
import subprocess
import sys

import pytest

from strata import batch_wait

pytestmark = pytest.mark.skipif(not batch_wait.supported(), reason="Linux scheduling policies")


def test_the_call_runs_as_batch_and_the_policy_comes_back():
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    seen = batch_wait.waiting_as_batch(lambda: os.sched_getscheduler(0))()
    assert seen == os.SCHED_BATCH
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


def test_the_policy_comes_back_when_the_call_raises():
    def fails():
        raise ValueError("inside the call")

    with pytest.raises(ValueError, match="inside the call"):
        batch_wait.waiting_as_batch(fails)()
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


def test_a_thread_under_another_policy_is_left_alone(monkeypatch):
    original = os.sched_setscheduler
    original(0, os.SCHED_BATCH, os.sched_param(0))
    try:
        changes = []
        monkeypatch.setattr(os, "sched_setscheduler", lambda *a: changes.append(a) or original(*a))
        wrapped = batch_wait.waiting_as_batch(lambda: os.sched_getscheduler(0))
        assert wrapped() == os.SCHED_BATCH
        assert os.sched_getscheduler(0) == os.SCHED_BATCH
        assert changes == []
    finally:
        original(0, os.SCHED_OTHER, os.sched_param(0))


def test_a_refused_change_is_no_error(monkeypatch):
    """Where the kernel refuses the policy change (a seccomp filter, say), calls go on as they
    are and the batch wait stops trying."""
    monkeypatch.setattr(batch_wait, "_disabled", False)
    tries = []

    def refuse(*args):
        tries.append(args)
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    wrapped = batch_wait.waiting_as_batch(lambda: "result")
    assert wrapped() == "result"
    assert wrapped() == "result"
    assert len(tries) == 1
    assert not batch_wait.supported()


def test_needed_only_where_the_workers_can_take_every_cpu():
    cpus = len(os.sched_getaffinity(0))
    assert batch_wait.needed(cpus)
    assert batch_wait.needed(cpus + 1)
    assert not batch_wait.needed(cpus - 1)


_MODULE = """
import os, sys
import numpy as np, torch
import iree.runtime as rt
rt.flags.parse_flags(f"--task_topology_group_count={sys.argv[1]}")
import strata
from strata.batch_wait import worker_threads
from strata.iree_runtime import LoadedModule

class Twice(torch.nn.Module):
    def forward(self, x):
        return x * 2.0

x = torch.arange(64.0).reshape(8, 8)
module = LoadedModule(strata.compile(Twice(), (x,)).vmfb, "local-task")
(result,) = module.function("main")(x.numpy())
np.testing.assert_array_equal(result, x.numpy() * 2.0)
assert os.sched_getscheduler(0) == os.SCHED_OTHER
print(worker_threads(), module.waits_as_batch)
"""


@pytest.mark.parametrize("workers", ["every CPU", "one fewer"])
def test_local_task_modules_wait_as_batch_when_the_workers_take_every_cpu(workers):
    """The module counts IREE's worker threads as the device made them (one per topology group)."""
    cpus = len(os.sched_getaffinity(0))
    count = cpus if workers == "every CPU" else cpus - 1
    if count < 1:
        pytest.skip("one CPU: there is no smaller worker count")
    run = subprocess.run([sys.executable, "-c", _MODULE, str(count)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    counted, waits = run.stdout.split()
    assert int(counted) == count
    assert waits == str(workers == "every CPU")

"""Waits for a call on IREE's local-task device as a SCHED_BATCH thread, so that the caller's
wake-up cannot preempt the worker that is finishing the call.

Why: IREE 3.13 waits for a call's results in `iree_async_semaphore_multi_wait`. The caller
registers a timepoint on the semaphore and sleeps; the worker that retires the last workgroup runs
the timepoint's callback, which wakes the caller (a futex) and only then marks the timepoint
completed; the caller, once awake, spins (`pause`) until it sees that mark. With as many workers as
CPUs (IREE's default) no CPU is idle at that moment, so Linux puts the woken caller on the
finishing worker's CPU and switches the worker out on its way back from the futex call, before
the mark. The caller then spins until the scheduler tick (4 ms at HZ=250) gives the worker back
its two remaining instructions. On the project's 2-vCPU machines with two workers, a 1024^3
matmul took 12 ms a call with one call in five at 14-16 ms, and the caller used 1.4 ms of CPU a
call; `perf` put it at that spin (test/benchmarks/README.md).

A SCHED_BATCH thread does not preempt the running thread when it wakes: it runs once the worker
has marked the timepoint and gone idle, microseconds later. The policy holds for the call only
(the thread is back to SCHED_OTHER, its nice value untouched, when the call returns), and only
where it can matter: with fewer workers than CPUs the caller wakes on an idle CPU, and the two
system calls (~5 us) would buy nothing. A thread running under another policy is left alone.
"""

from __future__ import annotations

import os
from pathlib import Path

_OTHER = getattr(os, "SCHED_OTHER", None)
_BATCH = getattr(os, "SCHED_BATCH", None)
WORKER_THREAD_PREFIX = "iree-worker"  # how IREE's task executor names its worker threads
_disabled = False  # set once the kernel refuses the policy change (a seccomp filter, say)


def supported() -> bool:
    """Whether the platform has SCHED_BATCH (Linux) and the kernel has not refused it yet."""
    return _BATCH is not None and hasattr(os, "sched_setscheduler") and not _disabled


def worker_threads() -> int:
    """How many of this process's threads are IREE task workers (0 where /proc cannot say)."""
    try:
        tasks = list(Path("/proc/self/task").iterdir())
    except OSError:
        return 0
    count = 0
    for task in tasks:
        try:
            count += (task / "comm").read_text().startswith(WORKER_THREAD_PREFIX)
        except OSError:
            pass  # the thread exited meanwhile
    return count


def needed(workers: int | None = None) -> bool:
    """Whether the process's IREE workers can take every CPU it may run on."""
    if not supported():
        return False
    workers = worker_threads() if workers is None else workers
    return workers >= len(os.sched_getaffinity(0))


def waiting_as_batch(call):
    """`call`, run with the calling thread as SCHED_BATCH if it was SCHED_OTHER."""
    get, set_, param = os.sched_getscheduler, os.sched_setscheduler, os.sched_param(0)

    def wrapped(*args):
        global _disabled
        if _disabled or get(0) != _OTHER:
            return call(*args)
        try:
            set_(0, _BATCH, param)
        except OSError:
            _disabled = True
            return call(*args)
        try:
            return call(*args)
        finally:
            try:
                set_(0, _OTHER, param)
            except OSError:  # the thread stays a batch thread; the call's result stands
                _disabled = True

    return wrapped

"""How evenly IREE's local-task device divides a grid of equal workgroups among its workers.

IREE 3.13's task executor hands a dispatch's workgroups to its workers in reservations: one
workgroup at a time while the grid has fewer than eight a worker, else eight at a time, each
worker taking the next reservation when it is done with its last. So a grid of 24 workgroups on
two workers is three reservations: one worker computes 16 workgroups, the other 8, and the
dispatch takes a third longer than an even split would (strata's matmul kernel on 1024^3 in 24
workgroups instead of 32: 1.31x the time). Kernels that may choose their grid ask `balance`.
"""

import functools
import os

RESERVATION = 8  # workgroups a reservation, once a grid has this many a worker
MAX_WORKERS = 8  # local-task's default worker count: one a core, at most this many


@functools.cache
def workers() -> int:
    """The workers local-task starts with by default here: one a CPU this process may use (these
    machines' CPUs are whole cores), at most `MAX_WORKERS`."""
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


def balance(workgroups: int, worker_count: int) -> float:
    """The share of the dispatch's time its workers spend computing, for `workgroups` of equal
    cost: the even split over the busiest worker's load, 1.0 when they finish together."""
    per_reservation = 1 if workgroups < worker_count * RESERVATION else RESERVATION
    loads = [0] * worker_count
    handed = 0
    while handed < workgroups:
        taken = min(per_reservation, workgroups - handed)
        loads[loads.index(min(loads))] += taken  # the first worker done takes the next
        handed += taken
    return workgroups / worker_count / max(loads)

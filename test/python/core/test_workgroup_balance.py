"""`strata.workgroup_balance`: how IREE's local-task divides a grid of workgroups among workers,
and the matmul kernel's panel groups chosen by it."""

import os

import pytest

from strata import workgroup_balance
from strata.matmul_kernel import MatmulKernel
from strata.workgroup_balance import balance


def test_balance_follows_local_task_reservations():
    # Fewer than eight a worker: one at a time, so only the odd one out is uneven.
    assert balance(8, 2) == 1.0 and balance(12, 2) == 1.0
    assert balance(15, 2) == pytest.approx(7.5 / 8)
    # Eight a reservation from 16 on two workers: 24 is three reservations, 16 and 8.
    assert balance(16, 2) == 1.0 and balance(32, 2) == 1.0
    assert balance(24, 2) == pytest.approx(0.75)
    assert balance(36, 2) == pytest.approx(18 / 20)  # 8 + 8 + 4 against 8 + 8
    assert balance(43, 2) == pytest.approx(21.5 / 24)
    assert balance(43, 1) == 1.0 and balance(1, 4) == pytest.approx(0.25)


def test_workers_is_this_process_cpus_up_to_eight():
    cpus = len(os.sched_getaffinity(0))
    assert workgroup_balance.workers() == min(cpus, workgroup_balance.MAX_WORKERS)


@pytest.mark.parametrize(("m", "k", "n", "two", "one"), [
    (512, 768, 2304, 6, 8),  # GPT-2's QKV at batch 4: 36 workgroups in 8 panels, 48 in 6
    (40, 64, 384, 6, 8),  # one row block: 3 workgroups in 8 panels, 4 in 6
    (128, 768, 2304, 8, 8),  # 18 in 8 is as even as any grid of 4 panels or more
    (128, 512, 1376, 2, 2),  # 86 panels: 2 or 1, and never below 2 for balance
    (1024, 1024, 1024, 8, 8),
    (2048, 2048, 2048, 8, 8),
    (1, 768, 2304, 8, 8),  # a matrix-vector product's grid: its panel groups alone
])
def test_panel_groups_divide_the_grid_evenly(monkeypatch, m, k, n, two, one):
    for worker_count, expected in ((2, two), (1, one)):
        monkeypatch.setattr("strata.matmul_kernel.workers", lambda: worker_count)
        kernel = MatmulKernel(m, k, n)
        assert kernel.panels_per_workgroup == expected
        assert kernel.panels % expected == 0

"""Runs the whole conformance catalogue through plain IREE and strata once per session."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


@pytest.fixture(scope="session")
def suite():
    from conformance.harness import run_suite

    return run_suite()

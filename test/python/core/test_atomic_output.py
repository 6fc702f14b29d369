"""strata.atomic_output: a destination file appears whole or not at all."""

import os

import pytest

from strata.atomic_output import TEMP_PREFIX, atomic_write, write_text_atomic
from strata.errors import StrataError


def test_replaces_the_file_only_on_success(tmp_path):
    target = tmp_path / "out.mlir"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as f:
            f.write("half of the new")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(TEMP_PREFIX)]
    write_text_atomic(target, "new")
    assert target.read_text() == "new"


def test_missing_directory_is_a_user_error(tmp_path):
    with pytest.raises(StrataError, match="does not exist"):
        write_text_atomic(tmp_path / "nowhere" / "out.mlir", "x")

"""strata-tblgen --check: the committed generated files match the .td files, and staleness fails."""

import pytest

from strata.errors import StrataError
from strata.tablegen import pass_registry_gen
from strata.tools import tblgen


def test_committed_generated_files_are_current(capsys):
    assert tblgen.main(["--check"]) == 0
    assert "generated files are current" in capsys.readouterr().out


def test_a_stale_file_fails_the_check_with_a_diff(monkeypatch, capsys):
    real = pass_registry_gen.generate

    def edited_td():
        return {path: text.replace("strata-raise-torch", "strata-raise-torch-renamed") for path, text in real().items()}

    monkeypatch.setattr(pass_registry_gen, "generate", edited_td)
    assert tblgen.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "+  'argument': 'strata-raise-torch-renamed'" in err
    assert "stale generated files: python/strata/passes/_registry_gen.py" in err


def test_a_pass_outside_the_strata_namespace_is_rejected(monkeypatch, tmp_path):
    """strata-opt tells strata's passes from upstream ones by the `strata-` prefix alone."""
    (tmp_path / "fold_things.td").write_text(
        'include "mlir/Pass/PassBase.td"\n'
        'def FoldThings : Pass<"fold-things", "ModuleOp"> {\n'
        '  let summary = "A pass named like an upstream one";\n'
        "}\n"
    )
    monkeypatch.setattr(pass_registry_gen, "PASSES_DIR", tmp_path)
    with pytest.raises(StrataError, match=r"fold_things.td: pass 'fold-things' must be named strata-\*"):
        pass_registry_gen.collect_passes()

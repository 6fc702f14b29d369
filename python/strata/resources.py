"""Where strata's declarative sources live: the `.td` files, pipeline and target descriptions.

They sit at the top of the repository (`dialects/`, `passes/`, `pipelines/`, `targets/`) because
they are the source of truth, not Python; the package finds them relative to itself.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIALECTS_DIR = ROOT / "dialects"
PASSES_DIR = ROOT / "passes"
PIPELINES_DIR = ROOT / "pipelines"
TARGETS_DIR = ROOT / "targets"

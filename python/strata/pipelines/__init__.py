"""strata's named lowering pipelines (`pipelines/*.toml`): load them, run them stage by stage.

    load("linalg-to-llvm").stages       ordered named stages, each a textual pass pipeline
    run(module, "linalg-to-llvm", dump_dir="out/")   lowers in place, dumping every stage

Pipelines: `torch-to-linalg` (FX-imported torch IR to linalg on tensors, through strata's raised
ops or through tosa), `linalg-to-llvm` (host CPU, ExecutionEngine), `linalg-to-nvvm` and
`linalg-to-rocdl` (GPU kernels; `strata.gpu` turns their output into PTX or an HSA code object).
"""

from strata.pipelines.runner import StageReport, op_counts_by_dialect, run
from strata.pipelines.spec import Option, Pipeline, Stage, load, names

__all__ = ["Option", "Pipeline", "Stage", "StageReport", "load", "names", "op_counts_by_dialect", "run"]

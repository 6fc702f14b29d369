"""lit configuration for strata's FileCheck tests.

Tools run from this checkout (tools/strata-*) with the project venv's Python, so a worktree tests
its own code. LLVM's FileCheck, not and split-file come from Debian's llvm-22-tools.
"""

import os
import shutil
import sys

import lit.formats

config.name = "strata"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py", ".test"]
config.excludes = ["lit.cfg.py", "Inputs", "python", "fuzz", "benchmarks", "conformance", "conftest.py", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

root = os.path.dirname(config.test_source_root)
python = sys.executable
llvm_bin = "/usr/lib/llvm-22/bin"

config.environment["PYTHONPATH"] = os.path.join(root, "python")
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
for var in ("HOME", "TMPDIR", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "STRATA_CACHE_DIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["PATH"] = os.pathsep.join(
    [llvm_bin, os.path.dirname(python), config.environment.get("PATH", os.environ["PATH"])]
)

config.substitutions.append(("%python", python))
config.substitutions.append(("%root", root))
for tool in ("strata-opt", "strata-compile", "strata-run", "strata-bench", "strata-tblgen"):
    # Longest match first does not matter here: no tool name is a prefix of another.
    config.substitutions.append(
        (r"(?<![\w/.-])" + tool + r"(?![\w.-])", f"{python} {os.path.join(root, 'tools', tool)}")
    )

for tool in ("FileCheck", "not", "split-file"):
    if not os.path.exists(os.path.join(llvm_bin, tool)):
        lit_config.fatal(f"{tool} not found in {llvm_bin}: install llvm-22-tools (tools/setup.sh does)")

if shutil.which("ptxas"):
    config.available_features.add("ptxas")
if os.path.exists(os.path.join(llvm_bin, "llc")):
    config.available_features.add("llc")

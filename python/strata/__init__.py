"""strata: a compiler toolchain for PyTorch models on the upstream MLIR Python bindings and IREE.

The public API (`compile`, `load`) is imported lazily so that tools which only need MLIR, such as
`strata-opt`, start without paying for torch and IREE.
"""

__version__ = "0.1.0"

_LAZY = {"compile": "strata.api", "load": "strata.api", "CompiledModel": "strata.api"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'strata' has no attribute {name!r}")

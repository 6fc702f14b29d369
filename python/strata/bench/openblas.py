"""Which OpenBLAS kernel numpy runs, and no kernel forced on it from outside.

The matmul target is measured against numpy's OpenBLAS, so the comparison is only as good as the
kernel OpenBLAS runs. OpenBLAS picks it for the host CPU when it loads, unless
`OPENBLAS_CORETYPE` names one (and `OPENBLAS_L2_SIZE` a cache size for its blocking): some machines
set both for every process, for old OpenBLAS builds that crash or compute wrong results on their
CPUs. A current build forced that way runs slower than its own pick (on an AVX-512 host, Haswell's
AVX2 kernel instead of SkylakeX's), which flatters whatever is compared with it. strata-bench
therefore drops both before numpy loads (`release_forced_kernel`), checks numpy's results against
eager as for every engine, and records the kernel that ran (`describe`), read from the loaded
library itself as threadpoolctl does.
"""

import ctypes
import os
from pathlib import Path

FORCING_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# How OpenBLAS's exported functions are spelt: plain, and in numpy's own build (scipy-openblas,
# 64-bit integers), prefixed and suffixed.
_SPELLINGS = (("openblas_", ""), ("scipy_openblas_", "64_"), ("scipy_openblas_", ""))

_released: dict[str, str] = {}


def release_forced_kernel() -> dict[str, str]:
    """Removes `FORCING_VARIABLES` from the environment and returns what they held. Only takes
    effect before numpy first loads OpenBLAS, which reads them once."""
    for name in FORCING_VARIABLES:
        if name in os.environ:
            _released[name] = os.environ.pop(name)
    return dict(_released)


def _loaded_library() -> Path | None:
    """The OpenBLAS shared library this process has loaded (numpy's), from /proc/self/maps."""
    try:
        maps = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return None
    for line in maps:
        fields = line.split(maxsplit=5)  # address, perms, offset, device, inode, path
        path = Path(fields[5]) if len(fields) == 6 else None
        if path and "openblas" in path.name.lower() and ".so" in path.name:
            return path
    return None


def _call(library, function: str, restype):
    for prefix, suffix in _SPELLINGS:
        entry = getattr(library, f"{prefix}{function}{suffix}", None)
        if entry is not None:
            entry.restype, entry.argtypes = restype, []
            return entry()
    return None


def describe() -> dict:
    """numpy's BLAS: its name and version, and where it is OpenBLAS, the kernel ("core") and
    thread count it runs with and the forcing variables strata-bench dropped (`ignored_environment`).
    """
    import numpy as np

    blas = np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {})
    info = {"name": blas.get("name"), "version": blas.get("version"), "core": None, "threads": None,
            "ignored_environment": dict(_released)}
    path = _loaded_library()
    if path is None:
        return info
    try:
        library = ctypes.CDLL(str(path))
    except OSError:
        return info
    core = _call(library, "get_corename", ctypes.c_char_p)
    info["core"] = core.decode() if core else None
    info["threads"] = _call(library, "get_num_threads", ctypes.c_int)
    return info


def summary_line(info: dict) -> str:
    """One line for the terminal table: `numpy: scipy-openblas 0.3.31, core SkylakeX, 2 threads`."""
    parts = [f"{info['name'] or 'unknown BLAS'} {info['version'] or ''}".strip()]
    if info["core"]:
        parts.append(f"core {info['core']}")
    if info["threads"]:
        parts.append(f"{info['threads']} thread{'s' if info['threads'] != 1 else ''}")
    ignored = " ".join(f"{k}={v}" for k, v in info["ignored_environment"].items())
    return "numpy: " + ", ".join(parts) + (f" (ignored {ignored})" if ignored else "")

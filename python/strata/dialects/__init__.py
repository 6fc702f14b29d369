"""strata's own dialects, `strata` and `probe`, defined in ODS (`dialects/*.td`).

`load_dialects(context)` makes them parse, print and verify their structure in a context;
`verify(op)` enforces every ODS type and attribute constraint and each op's verifier. The
Python op builders live in `strata.dialects.strata` and `strata.dialects.probe`.

The two functions are imported on first use (PEP 562): `strata.dialects.specs` is this package's
data, and strata-opt reads it on every run to decide whether the input needs the dialects at all,
without paying for the loader and the verifiers when it does not.
"""

__all__ = ["load_dialects", "verify"]


def __getattr__(name: str):
    if name == "load_dialects":
        from strata.dialects.loader import load_dialects

        return load_dialects
    if name == "verify":
        from strata.dialects.verification import verify

        return verify
    raise AttributeError(f"module 'strata.dialects' has no attribute '{name}'")

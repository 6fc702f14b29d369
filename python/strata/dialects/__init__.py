"""strata's own dialects, `strata` and `probe`, defined in ODS (`dialects/*.td`).

`load_dialects(context)` makes them parse, print and verify their structure in a context;
`verify(op)` enforces every ODS type and attribute constraint and each op's verifier. The
Python op builders live in `strata.dialects.strata` and `strata.dialects.probe`.
"""

from strata.dialects.loader import load_dialects
from strata.dialects.verification import verify

__all__ = ["load_dialects", "verify"]

"""Code generated from strata's TableGen sources (`dialects/*.td`, `passes/*.td`).

The `.td` files are the single source of truth; the generated Python is committed so that strata
runs without LLVM's dev tools, and `strata-tblgen --check` proves it is current.
"""

"""Op-level conformance of strata against PyTorch eager, side by side with plain IREE.

`cases` is the catalogue (one small function per aten op and dtype), `routes` compiles and runs a
batch of cases through plain IREE or through `strata.compile`, `harness` batches, bisects failures
and compares against eager, and `table` prints the side-by-side markdown table.
"""

"""How strata's CPU kernels store a result too large to stay in cache: non-temporal stores.

An ordinary store first reads the line it writes into cache (and evicts another for it); for a
result of many megabytes that read is as much memory traffic as writing it, and its reader finds
it in memory anyway. A non-temporal store writes whole lines straight to memory. An 8 MiB copy
kernel on these 2-core machines (iree-benchmark-module, medians): 1.10 ms with ordinary stores,
0.52 ms with non-temporal ones on one thread. A small result is left to ordinary stores: its
reader, the next dispatch, finds it in cache.

`vector.store`'s `nontemporal` is an inherent attribute its custom syntax cannot spell, so the
store is written in generic form.
"""

STREAMING_BYTES = 4 << 20  # results at least this large are streamed: many times the L2 of a core


def streams(result_bytes: int) -> bool:
    return result_bytes >= STREAMING_BYTES


def store(value: str, memref: str, indices: list[str], memref_type: str, vector_type: str, streaming: bool) -> str:
    """The MLIR text of `vector.store value, memref[indices]`, non-temporal with `streaming`."""
    if not streaming:
        return f"vector.store {value}, {memref}[{', '.join(indices)}] : {memref_type}, {vector_type}"
    operands = ", ".join([value, memref, *indices])
    types = ", ".join([vector_type, memref_type, *["index"] * len(indices)])
    return f'"vector.store"({operands}) <{{nontemporal = true}}> : ({types}) -> ()'

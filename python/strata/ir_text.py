"""Where ops can appear in textual IR: everything before the file-level `{-# ... #-}` section.

FX-imported models carry their weights as hex in that trailing resource section (24 MB of a
25 MB file for a 60-layer LLaMA stack, 48 MB of the 50 MB batch-1 MLP of strata-bench), so a
search for ops over the whole text is mostly a search through weights: three searches took
~40 ms in strata-opt, the matmul-shape scan of `iree_compile.model_traits` 65 ms. The section
starts at a line beginning `{-#`, which no op can: MLIR string literals cannot hold a newline.
"""


def op_section(text):
    """`text` (str or bytes) up to its resource section."""
    end = text.find(b"\n{-#" if isinstance(text, bytes) else "\n{-#")
    return text if end < 0 else text[:end]

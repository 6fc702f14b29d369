"""Externalize a model's weights into an IREE parameter archive (`.irpa`) at import time.

Inlining weights makes a module as big as the model and pushes every byte through iree-compile
(which buffers its whole output in memory). Instead, while the FX importer walks the graph, each
weight of at least `min_bytes` becomes a module global backed by a named parameter,
`util.global private @w = #stream.parameter.named<"model"::"w">`, loaded and converted back to a
torch tensor where it is used; the bytes go into an archive that the runtime maps at load time
(`strata-run --parameters=weights.irpa`, `strata.load(..., parameters=...)`). IREE's own
`--iree-parameter-export` cannot do this for torch input: it only exports globals, and IREE keeps
imported weights as inline constants.
"""

import contextlib
import os
import re
import tempfile
from pathlib import Path

from strata.atomic_output import TEMP_PREFIX
from strata.errors import StrataError
from strata.tensor_literals import TensorLiterals

SCOPE = "model"


class ParameterExternalizer(TensorLiterals):
    """FX importer hooks that turn large weights into parameter-backed globals (the others into
    literals, as `TensorLiterals` does)."""

    def __init__(self, min_bytes: int = 4096, named_tensors=()):
        """`named_tensors` (e.g. `model.state_dict().items()`) give the parameters their names."""
        super().__init__()
        self.min_bytes = min_bytes
        self._names = {t.data_ptr(): name for name, t in named_tensors if hasattr(t, "data_ptr")}
        self.weights: dict[str, object] = {}  # parameter key -> torch tensor
        self._module_op = None
        self._keys_by_tensor: dict[int, str] = {}

    def prepare_module(self, module_op):
        self._module_op = module_op
        module_op.context.allow_unregistered_dialects = True  # util/stream ops, printed generically

    def resolve_literal(self, gni, literal, info):
        import torch
        from torch_mlir import ir

        if not isinstance(literal, torch.Tensor) or literal.nbytes < self.min_bytes or self._module_op is None:
            return super().resolve_literal(gni, literal, info)
        key = self._keys_by_tensor.get(id(literal))
        element_type = gni._cc.dtype_to_type(literal.dtype)
        if isinstance(element_type, ir.IntegerType):  # builtin tensors use signless integers
            element_type = ir.IntegerType.get_signless(ir.IntegerType(element_type).width)
        builtin_type = ir.RankedTensorType.get(list(literal.shape), element_type)
        if key is None:
            name = self._names.get(literal.data_ptr()) or f"constant_{len(self.weights)}"
            key = self._unique(re.sub(r"[^\w.]", "_", name))
            self._keys_by_tensor[id(literal)] = key
            self.weights[key] = literal.detach().contiguous()
            with ir.InsertionPoint.at_block_begin(self._module_op.regions[0].blocks[0]), ir.Location.unknown():
                ir.Operation.create(
                    "util.global",
                    attributes={
                        "sym_name": ir.StringAttr.get(key),
                        "sym_visibility": ir.StringAttr.get("private"),
                        "type": ir.TypeAttr.get(builtin_type),
                        "initial_value": ir.Attribute.parse(f'#stream.parameter.named<"{SCOPE}"::"{key}"> : {builtin_type}'),
                    },
                )
        loaded = ir.Operation.create(
            "util.global.load",
            results=[builtin_type],
            attributes={"global": ir.FlatSymbolRefAttr.get(key)},
        ).result
        vtensor_type = gni._cc.tensor_to_vtensor_type(literal)
        return ir.Operation.create("torch_c.from_builtin_tensor", results=[vtensor_type], operands=[loaded]).result

    def _unique(self, key: str) -> str:
        candidate, n = key, 1
        while candidate in self.weights:
            candidate, n = f"{key}_{n}", n + 1
        return candidate

    @property
    def total_bytes(self) -> int:
        return sum(t.nbytes for t in self.weights.values())

    def save(self, path) -> None:
        """Writes the archive atomically: a failure leaves no partial `.irpa` behind."""
        import iree.runtime as rt
        import torch

        path = Path(path)
        if not path.parent.resolve().is_dir():
            raise StrataError(f"cannot write '{path}': directory '{path.parent}' does not exist")
        index = rt.ParameterIndex()
        for key, tensor in self.weights.items():
            index.add_buffer(key, tensor.reshape(-1).view(torch.uint8).numpy())  # raw bytes, any dtype
        fd, temporary = tempfile.mkstemp(prefix=TEMP_PREFIX + path.name + ".", dir=path.parent)
        os.close(fd)
        try:
            index.create_archive_file(temporary)
            os.chmod(temporary, 0o644)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

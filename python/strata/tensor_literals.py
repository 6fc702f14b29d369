"""FX importer hooks that make a model's constant tensors into literals from their bytes.

Torch-MLIR's FX importer turns each constant tensor (a model's weights, once torch.export has
lifted them) into a Python list with `Tensor.tolist()` before it packs the numbers into the
literal's resource blob: 7.7 of ResNet-18's 17 seconds of import went there, one float object per
weight. These hooks build the same `torch.vtensor.literal` (a `dense_resource` blob with the
importer's name for it, one blob per tensor however often it is used) from the tensor's memory
instead (and record them, `strata.resource_blobs`, so that passes computing with constants read
them back for free). One-element tensors (splats) and element types numpy lacks are left to the
importer.
"""


def _hooks_base():
    from torch_mlir.extras.fx_importer import FxImporterHooks

    return FxImporterHooks


class TensorLiterals(_hooks_base()):
    def __init__(self):
        self._attributes: dict[int, tuple[object, object]] = {}  # id(tensor) -> (tensor, attribute)

    def resolve_literal(self, gni, literal, info):
        import torch
        from torch_mlir import ir
        from torch_mlir.extras.fx_importer import TORCH_DTYPE_TO_NPY_TYPE, create_mlir_tensor_type

        from strata import resource_blobs

        if not isinstance(literal, torch.Tensor) or literal.numel() < 2 or literal.dtype not in TORCH_DTYPE_TO_NPY_TYPE:
            return None
        known = self._attributes.get(id(literal))
        if known is None:
            # A copy: the blob must not change with the model's parameters after the import.
            array = literal.detach().cpu().contiguous().numpy().astype(TORCH_DTYPE_TO_NPY_TYPE[literal.dtype], copy=True)
            name = f"torch_tensor_{'_'.join(str(d) for d in literal.shape)}_{literal.dtype}"
            attribute = resource_blobs.create(array, name, create_mlir_tensor_type(literal))
            known = self._attributes[id(literal)] = (literal, attribute)  # the tensor kept: its id stays its own
        return ir.Operation.create(
            "torch.vtensor.literal", results=[gni._cc.tensor_to_vtensor_type(literal)], attributes={"value": known[1]}
        ).result

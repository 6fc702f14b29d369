"""strata-read-only-arguments: the caller's tensors are read-only (passes/read_only_arguments.td).

Public functions are what the ExecutionEngine calls with the caller's arrays; one-shot
bufferization would otherwise write an in-place update of an argument into that array.
"""

from torch_mlir import ir

WRITABLE = "bufferization.writable"


def _public_definitions(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        if "sym_visibility" in op.attributes and ir.StringAttr(op.attributes["sym_visibility"]).value != "public":
            continue
        yield op


def run(op: ir.Operation, options) -> None:
    false = ir.BoolAttr.get(False)
    for func in _public_definitions(op):
        arguments = func.regions[0].blocks[0].arguments
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"])) if "arg_attrs" in func.attributes else []
        old += [ir.DictAttr.get({})] * (len(arguments) - len(old))
        new = []
        for argument, attrs in zip(arguments, old):
            entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
            if isinstance(argument.type, (ir.RankedTensorType, ir.UnrankedTensorType)):
                entries[WRITABLE] = false
            new.append(ir.DictAttr.get(entries))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(new)

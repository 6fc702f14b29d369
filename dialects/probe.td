//===- probe.td - run-time observation of tensor values ----*- tablegen -*-===//
//
// The `probe` dialect marks values a user wants to observe while a compiled
// model runs. Both ops return their input unchanged so they stay in the data
// flow where they were placed; `strata-lower-probes` turns them into IREE's
// tensor trace (IREE route) or runtime prints and checks (CPU route).
//
//===----------------------------------------------------------------------===//

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Probe_Dialect : Dialect {
  let name = "probe";
  let summary = "Debugging instrumentation: observe tensors at run time";
  let cppNamespace = "::probe";
}

class Probe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Probe_Dialect, mnemonic, traits>;

def Probe_NameAttr : ConfinedAttr<StrAttr, [AttrConstraint<
    CPred<"!::llvm::cast<::mlir::StringAttr>($_self).getValue().empty()">,
    "that is not empty">]>;

def Probe_TapOp : Probe_Op<"tap",
    [SameOperandsAndResultType, MemoryEffects<[MemWrite]>]> {
  let summary = "Observe a tensor at run time under a name";
  let description = [{
    Returns `input` unchanged and makes its value observable at run time
    under `name`: lowered to `flow.tensor.trace` on the IREE route and to a
    print of the name and the tensor on the CPU route.
  }];
  let arguments = (ins AnyRankedTensor:$input, Probe_NameAttr:$name);
  let results = (outs AnyRankedTensor:$result);
}

def Probe_CheckFiniteOp : Probe_Op<"check_finite",
    [SameOperandsAndResultType, MemoryEffects<[MemWrite]>]> {
  let summary = "Fail at run time if a tensor holds NaN or infinity";
  let description = [{
    Returns `input` unchanged; at run time, aborts with a message naming
    `name` if any element of `input` is NaN or infinite.
  }];
  let arguments = (ins RankedTensorOf<[AnyFloat]>:$input, Probe_NameAttr:$name);
  let results = (outs RankedTensorOf<[AnyFloat]>:$result);
}

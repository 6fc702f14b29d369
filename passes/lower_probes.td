//===- lower_probes.td - probe ops -> run-time observation --*- tablegen -*-===//

include "mlir/Pass/PassBase.td"

def LowerProbes : Pass<"strata-lower-probes", "ModuleOp"> {
  let summary = "Lower probe ops to run-time tracing and checks for the IREE or CPU route";
  let description = [{
    `probe.tap` becomes, on the IREE route, IREE's tensor trace
    (`flow.tensor.trace "name" = [...]`, an op of IREE's dialect emitted as
    unregistered IR for the text handoff to iree-compile) and, on the CPU
    route, a call `@strata_probe_tap_<elt>(id, memref<*x<elt>>)` to a
    callback the host registers with the execution engine; the module's
    `strata.probe_names` attribute maps each id to its tap's name.
    `probe.check_finite` becomes, on both routes, a reduction that checks
    every element is finite and a `cf.assert` naming the probe. Both ops are
    then replaced by their input.
  }];
  let options = [
    Option<"route", "route", "std::string", "\"iree\"",
           "Where the module runs: 'iree' (tensor trace) or 'cpu' (host callback)">,
  ];
}

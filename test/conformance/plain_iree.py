"""The plain-IREE route: what a user gets from Torch-MLIR and IREE without strata.

Per case this is `torch_mlir.fx.export_and_import(..., output_type="torch")`, then
`iree.compiler.compile_str(..., input_type="torch")` with only the flags that pick the host CPU
(everything else at IREE's defaults, including its f64-to-f32 demotion), run on local-task.

Doing that once per case costs about a second of import per case, so a batch of cases is exported
and imported once, as one `Batch` module, in Torch-MLIR's raw form; the imported function is then
cut into one function per case (its arguments, its results and the ops they need), and each is
lowered with the same Torch-MLIR pipeline `export_and_import` runs. That pipeline's failures are
therefore known per case. All lowered functions go to iree-compile as one module, printed without
locations so that a compile error's line number names the function, hence the case, that failed;
failed cases are taken out and the rest recompiled. Each case then runs as its own entry point.
"""

from __future__ import annotations

import re
import time
import warnings

import torch

from .cases import Case
from .compare import Outcome, RouteReport, compare
from .routes import Batch, RouteFailure, first_line, short

FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)
# The pipeline torch_mlir.fx.export_and_import(..., output_type="torch") runs after import.
TORCH_LOWERING = (
    "builtin.module(func.func(torch-match-quantized-custom-ops),"
    " torchdynamo-export-to-torch-backend-pipeline{ extra-library=})"
)


def symbol(index: int) -> str:
    return f"case{index}"


def import_raw(cases: list[Case], inputs: dict) -> str:
    """The batch's FX graph in Torch-MLIR's raw torch dialect, one function `main`."""
    import torch_mlir.fx

    args = tuple(t for c in cases for t in inputs[c.name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = torch_mlir.fx.export_and_import(Batch(cases), *args, output_type="raw")
    return module.operation.get_asm(enable_debug_info=False)


def cut(raw: str, context, arguments: range, results: range, name: str):
    """A module holding only `name`: main restricted to `arguments` and `results`, dead ops gone."""
    from torch_mlir import ir

    with context:
        return _cut(ir.Module.parse(raw), arguments, results, name)


def _cut(module, arguments: range, results: range, name: str):
    from torch_mlir import ir
    from torch_mlir.dialects import func

    main = module.body.operations[0]
    block = main.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    kept = list(ret.operands)[results.start : results.stop]
    with ir.InsertionPoint(ret), ret.location:
        func.ReturnOp(kept)
    ret.erase()
    # Cases share no values, so every op outside this case's slice is dead. Users follow their
    # producers in the block, so one backward sweep removes them all (unknown ops included,
    # which canonicalization would keep).
    ops = list(block.operations)
    for op in reversed(ops[:-1]):
        if all(len(list(r.uses)) == 0 for r in op.results):
            op.erase()
    for index in reversed(range(len(block.arguments))):
        if index not in arguments:
            block.erase_argument(index)
    main.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in block.arguments], [v.type for v in kept])
    )
    main.attributes["sym_name"] = ir.StringAttr.get(name)
    return module


def lower(module):
    """`module` (one function) through Torch-MLIR's torch-backend pipeline, in place."""
    from torch_mlir import ir, passmanager

    errors = []

    def collect(diagnostic):
        if diagnostic.severity == ir.DiagnosticSeverity.ERROR:
            errors.append(str(diagnostic.message))
        return True  # handled: keep it off stderr

    handler = module.context.attach_diagnostic_handler(collect)
    try:
        with module.context:
            passmanager.PassManager.parse(TORCH_LOWERING).run(module.operation)
    except ir.MLIRError as e:
        raise RouteFailure("import", short(errors[0]) if errors else first_line(e)) from e
    finally:
        handler.detach()
    functions = list(module.body.operations)
    if len(functions) != 1:
        raise RouteFailure("import", f"lowering left {len(functions)} top-level ops, expected one function")
    return module


def compile_functions(functions: dict):
    """One vmfb with the function of every module in `functions` (lowered, one context); a
    `CompileFailure` names the failing ones.

    The functions are cloned into one module so that the constants they keep as dense resources
    are printed with them.
    """
    import iree.compiler
    from torch_mlir import ir

    first = next(iter(functions.values()))
    with first.context, ir.Location.unknown():
        merged = ir.Module.create()
        with ir.InsertionPoint(merged.body):
            for module in functions.values():
                module.body.operations[0].clone()
        text = merged.operation.get_asm(enable_debug_info=False)
    owner, current = {}, None
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"\s*func\.func @(case\d+)\(", line)
        if match:
            current = match.group(1)
        elif line.startswith("}") or line.startswith("{-#"):
            current = None
        if current:
            owner[number] = current
    try:
        return iree.compiler.compile_str(text, input_type="torch", extra_args=list(FLAGS))
    except Exception as e:  # noqa: BLE001 - a compiler failure is this route's result
        # Diagnostics point at `<stdin>:LINE`; dispatches are named after their function.
        message = str(e)
        failing = {owner[int(n)] for n in re.findall(r"<stdin>:(\d+)", message) if int(n) in owner}
        failing |= set(re.findall(r"\b(case\d+)\$", message)) & set(functions)
        raise CompileFailure(first_line(e), failing) from e


class CompileFailure(RouteFailure):
    def __init__(self, message: str, functions: set[str]):
        super().__init__("compile", message)
        self.functions = functions


class PlainIree:
    name = "plain IREE"

    def run(self, cases: list[Case], inputs: dict, expected: dict, report: RouteReport, log=None) -> None:
        """Outcomes of `cases` into `report`; `log(str)` hears about each compile."""
        from torch_mlir import ir
        from torch_mlir.dialects import torch as torch_d

        t0 = time.perf_counter()
        report.builds += 1
        try:
            raw = import_raw(cases, inputs)
        except Exception as e:  # noqa: BLE001
            if len(cases) == 1:
                report.outcomes[cases[0].name] = Outcome("import", first_line(e))
                return
            half = len(cases) // 2
            self.run(cases[:half], inputs, expected, report, log)
            self.run(cases[half:], inputs, expected, report, log)
            return
        context = ir.Context()
        torch_d.register_dialect(context)
        functions, arg, res = {}, 0, 0
        for i, c in enumerate(cases):
            arguments = range(arg, arg + len(c.args))
            results = range(res, res + len(expected[c.name]))
            arg, res = arguments.stop, results.stop
            try:
                functions[symbol(i)] = lower(cut(raw, context, arguments, results, symbol(i)))
            except RouteFailure as failure:
                report.outcomes[c.name] = Outcome(failure.stage, failure.message)
        if log:
            log(f"{self.name}: imported {len(cases)} cases from {cases[0].name} ({time.perf_counter() - t0:.1f}s)")
        by_symbol = {symbol(i): c for i, c in enumerate(cases)}
        for vmfb, names in self._compile(functions, by_symbol, report, log):
            entry = self._load(vmfb)
            for name in names:
                c = by_symbol[name]
                try:
                    results = entry[name](*[t.numpy() for t in inputs[c.name]])
                    if not isinstance(results, (tuple, list)):
                        results = (results,)
                    actual = [torch.from_numpy(r.to_host().copy()) for r in results]
                except Exception as e:  # noqa: BLE001
                    report.outcomes[c.name] = Outcome("run", first_line(e))
                    continue
                report.outcomes[c.name] = compare(c, expected[c.name], actual)

    def _compile(self, functions: dict, by_symbol: dict, report: RouteReport, log):
        """[(vmfb, function names)] covering every function that compiles; failures recorded.

        When the error's line numbers name functions, those are compiled alone and the rest
        together; otherwise the set is halved.
        """
        if not functions:
            return []
        t0 = time.perf_counter()
        report.builds += 1
        try:
            vmfb = compile_functions(functions)
        except CompileFailure as failure:
            if log:
                log(f"{self.name}: compiling {len(functions)} functions failed ({time.perf_counter() - t0:.1f}s)")
            if len(functions) == 1:
                (name,) = functions
                report.outcomes[by_symbol[name].name] = Outcome("compile", failure.message)
                return []
            named = failure.functions & set(functions)
            if named and len(named) < len(functions):
                parts = [{n: functions[n]} for n in sorted(named)]
                parts.append({n: t for n, t in functions.items() if n not in named})
            else:
                names = list(functions)
                half = len(names) // 2
                parts = [{n: functions[n] for n in names[:half]}, {n: functions[n] for n in names[half:]}]
            return [built for part in parts for built in self._compile(part, by_symbol, report, log)]
        if log:
            log(f"{self.name}: compiled {len(functions)} functions ({time.perf_counter() - t0:.1f}s)")
        return [(vmfb, list(functions))]

    @staticmethod
    def _load(vmfb: bytes):
        import iree.runtime

        context = iree.runtime.SystemContext(config=iree.runtime.Config("local-task"))
        context.add_vm_module(iree.runtime.VmModule.copy_buffer(context.instance, vmfb))
        return context.modules.module

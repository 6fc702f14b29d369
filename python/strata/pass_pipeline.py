"""Textual pass pipelines in which upstream passes and strata's Python passes mix freely.

MLIR's pass manager parses `builtin.module(func.func(canonicalize,cse))` but does not know passes
defined in Python, and the bindings cannot nest a Python pass inside an op-specific pass manager.
So strata parses the pipeline text itself, hands each run of upstream passes back to MLIR's parser
(nested exactly as written), and adds each strata pass as a Python pass on the root that walks
down to the ops it is anchored on. Everything runs in one `PassManager`, in the written order, so
IR printing, timing and verification cover both kinds of pass.
"""

import os
from typing import NamedTuple

from torch_mlir import passmanager
from torch_mlir._mlir_libs._mlir import ir  # the native module: `torch_mlir.ir` also imports numpy (~0.1 s)

from strata.errors import StrataError

# Every strata pass is named `strata-*` (strata-tblgen rejects any other name), so a pipeline of
# upstream passes is built without importing strata's pass registry or dialects.
STRATA_PASS_PREFIX = "strata-"


# ----------------------------------------------------------------------------------------------
# Parsing


class PassElement(NamedTuple):
    name: str
    options: str = ""  # the text inside `{...}`, without the braces

    def text(self) -> str:
        return f"{self.name}{{{self.options}}}" if self.options else self.name


class NestedPipeline(NamedTuple):
    op_name: str
    elements: tuple = ()

    def text(self) -> str:
        return f"{self.op_name}({','.join(e.text() for e in self.elements)})"


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def error(self, message: str):
        caret = " " * self.pos + "^"
        raise StrataError(f"invalid pass pipeline: {message}\n  {self.text}\n  {caret}")

    def skip_space(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def name(self) -> str:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "_-."):
            self.pos += 1
        if start == self.pos:
            self.error("expected a pass or op name")
        return self.text[start : self.pos]

    def braced(self) -> str:
        depth, start = 0, self.pos + 1
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            depth += ch == "{"
            depth -= ch == "}"
            self.pos += 1
            if depth == 0:
                return self.text[start : self.pos - 1]
        self.pos = start - 1
        self.error("unbalanced '{'")

    def elements(self) -> tuple:
        elements = []
        self.skip_space()
        if self.peek() == ")":
            return ()
        while True:
            elements.append(self.element())
            self.skip_space()
            if self.peek() != ",":
                return tuple(elements)
            self.pos += 1

    def element(self):
        name = self.name()
        self.skip_space()
        if self.peek() == "(":
            self.pos += 1
            inner = self.elements()
            self.expect(")")
            return NestedPipeline(name, inner)
        if self.peek() == "{":
            return PassElement(name, self.braced().strip())
        return PassElement(name)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str):
        self.skip_space()
        if self.peek() != ch:
            self.error(f"expected '{ch}'")
        self.pos += 1


def parse_pipeline(text: str) -> NestedPipeline:
    """Parses an anchored pipeline, `builtin.module(...)` or `any(...)`, as mlir-opt requires."""
    parser = _Parser(text.strip())
    root = parser.element()
    parser.skip_space()
    if parser.pos != len(parser.text):
        parser.error("unexpected text after the pipeline")
    if not isinstance(root, NestedPipeline):
        raise StrataError(
            f"invalid pass pipeline '{text}': it must be anchored on an op, "
            f"e.g. 'builtin.module({text})'"
        )
    return root


def pipeline_from_pass_flags(flags: list[tuple[str, str]]) -> NestedPipeline:
    """The pipeline that mlir-opt-style flags (`--canonicalize --cse=...`) stand for."""
    return NestedPipeline("builtin.module", tuple(PassElement(n, o) for n, o in flags))


def names_strata_pass(pipeline: NestedPipeline) -> bool:
    """Whether any pass of `pipeline`, at any depth, is one of strata's."""
    return any(
        names_strata_pass(e) if isinstance(e, NestedPipeline) else e.name.startswith(STRATA_PASS_PREFIX)
        for e in pipeline.elements
    )


# ----------------------------------------------------------------------------------------------
# Building


def _native_complaint(text: str) -> str:
    """What LLVM's option parser wrote to fd 2 while rejecting `text` (it bypasses Python).

    Only called once adding `text` has failed: the rejected add is repeated on a scratch pass
    manager with fd 2 redirected, so the common, successful path pays nothing.
    """
    import tempfile

    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            passmanager.PassManager().add(text)
        except ValueError:
            pass
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode(errors="replace").strip()


def _nest_text(path: tuple[str, ...], elements: list) -> str:
    text = ",".join(e.text() for e in elements)
    for op_name in reversed(path):
        text = f"{op_name}({text})"
    return text


def _anchored_ops(root: ir.Operation, path: tuple[str, ...], anchor: str | None):
    """The ops a pass written at `path` runs on, nesting implicitly onto its anchor like mlir-opt."""
    ops = [root]
    for op_name in path:
        ops = [child for op in ops for child in _children(op) if child.name == op_name]
    if anchor and anchor != (path[-1] if path else root.name):
        ops = [child for op in ops for child in _children(op) if child.name == anchor]
    return ops


def _children(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def _python_pass(info, options, path: tuple[str, ...]):
    from strata import dialects, passes

    implementation = info.implementation()

    def run(root, pass_):
        try:
            for op in _anchored_ops(root, path, info.anchor):
                implementation(op, options)
            if not dialects.verify(root):
                pass_.signal_pass_failure()
        except passes.PassFailure:
            pass_.signal_pass_failure()

    return run


def build_pass_manager(pipeline: NestedPipeline, context: ir.Context) -> passmanager.PassManager:
    """A pass manager running `pipeline`; raises StrataError for unknown passes and bad options."""
    with context:
        return _PassManagerBuilder(pipeline.op_name).build(pipeline.elements)


class _PassManagerBuilder:
    """Adds pipeline elements to one pass manager, batching consecutive upstream passes.

    A class rather than nested closures: a recursive closure would form a reference cycle that
    keeps the pass manager (and its timing report) alive until the garbage collector runs.
    """

    def __init__(self, op_name: str):
        self.pm = passmanager.PassManager(op_name)
        self.pending: list[PassElement] = []
        self.pending_path: tuple[str, ...] = ()

    def build(self, elements) -> passmanager.PassManager:
        self._walk(elements, ())
        self._flush()
        return self.pm

    def _walk(self, elements, path: tuple[str, ...]) -> None:
        for element in elements:
            if isinstance(element, NestedPipeline):
                self._walk(element.elements, path + (element.op_name,))
                continue
            info = None
            if element.name.startswith(STRATA_PASS_PREFIX):
                from strata import passes

                info = passes.lookup(element.name)
            if info is None:
                if self.pending and self.pending_path != path:
                    self._flush()
                self.pending_path = path
                self.pending.append(element)
                continue
            self._flush()
            options = info.parse_options(element.options)
            self.pm.add(_python_pass(info, options, path), name=info.argument, argument=info.argument)

    def _flush(self) -> None:
        if not self.pending:
            return
        text = _nest_text(self.pending_path, self.pending)
        try:
            self.pm.add(text)
        except ValueError as e:
            raise StrataError(_pipeline_error(text, str(e), _native_complaint(text))) from None
        self.pending.clear()


def _pipeline_error(text: str, message: str, native: str) -> str:
    lines = [l.strip() for l in (message + "\n" + native).splitlines() if l.strip()]
    unknown = next((l for l in lines if "does not refer to a registered pass" in l), None)
    if unknown:
        name = unknown.split("'")[1]
        return f"unknown pass or pass pipeline '{name}' (see strata-opt --list-passes)"
    detail = "; ".join(l.removeprefix(": ") for l in lines if not l.startswith("failed to add"))
    return f"invalid pass pipeline '{text}': {detail or lines[0] if lines else message}"

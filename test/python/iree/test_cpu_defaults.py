"""llvm-cpu specifics of `strata.iree_compile`: the system-linker fallback for libm symbols IREE's
embedded linker lacks, and compile errors that carry the linker's or iree-compile's own cause."""

import pytest
import torch

import strata
from strata.errors import StrataError
from strata.iree_compile import CompileOptions, HostLinkedModuleWarning, _compile_error, compile_ir


class LibmModel(torch.nn.Module):
    def forward(self, x, y):
        return torch.sin(x), torch.log10(y)


def test_libm_symbols_the_embedded_linker_lacks_link_with_the_system_linker():
    torch.manual_seed(0)
    x, y = torch.randn(16, dtype=torch.float64), torch.rand(16) + 0.5
    with pytest.warns(HostLinkedModuleWarning, match=r"lacks sin, log10f: .*--iree-llvmcpu-link-embedded=false"):
        compiled = strata.compile(LibmModel(), (x, y))
    sin, log10 = compiled(x, y)
    assert sin.dtype == torch.float64
    torch.testing.assert_close(sin, torch.sin(x), rtol=0, atol=1e-15)
    torch.testing.assert_close(log10, torch.log10(y), rtol=1e-6, atol=1e-6)


class FakeToolError(Exception):
    def __init__(self, stderr: str):
        super().__init__("Error invoking IREE compiler tool iree-compile\nError code: 1\n"
                         f"Diagnostics:\n{stderr}\n\nInvoked with:\n iree-compile x.mlir\n")


LINK_FAILURE = """\
iree-lld: error: undefined symbol: sin
>>> referenced by model.py:4
>>>               /tmp/module_linked-2481ac.o:(main$async_dispatch_0_elementwise_8_f64)

iree-lld: error: undefined symbol: log10f
>>> referenced by model.py:4
Linking failed; escaped command line returned exit code 256:

"model.py":4:0: error: failed to link executable and generate target dylib (check above for more specific error messages)
"model.py":4:0: error: failed to serialize executable for target backend llvm-cpu
"""


def test_link_error_names_the_undefined_symbols():
    error = _compile_error(FakeToolError(LINK_FAILURE), "module {}", "torch", [])
    assert error.message.startswith('IREE compilation failed at "model.py":4')
    assert error.message.endswith("failed to link the executable: undefined symbol(s) sin, log10f")


def test_link_error_without_undefined_symbols_keeps_the_linkers_words():
    stderr = "iree-lld: error: unable to open output file\n<unknown>:0: error: failed to link executable and generate target dylib\n"
    error = _compile_error(FakeToolError(stderr), "module {}", "torch", [])
    assert error.message == "IREE compilation failed: failed to link the executable: unable to open output file"


def test_unknown_iree_flag_is_named_in_the_error():
    with pytest.raises(StrataError, match=r"^IREE compilation failed: Unknown command line argument '--iree-no-such-flag=1'\.$"):
        compile_ir("module {}", CompileOptions(extra_flags=("--iree-no-such-flag=1",)), input_type="auto")


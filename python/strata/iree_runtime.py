"""Load an IREE module and call its functions with numpy arrays, checking inputs first.

Inputs are checked against the function's signature, which strata stores in the module's
reflection metadata at compile time (`strata.inputs`/`strata.outputs`, in iree-run-module's
`2x?x3xf32` spelling): a wrong shape or dtype is a `StrataError` naming the argument and the
expected type. Modules built elsewhere have no such metadata and rely on IREE's own checks.

On Vulkan drivers that import host memory (lavapipe here) buffers must be 4096-byte aligned and
sized: numpy arrays fail to import and `DeviceArray.to_host()` fails on results. Inputs are
therefore staged through page-aligned, page-padded host allocations and results are copied back
with a device queue copy into such an allocation.

On CPU devices the memory the module allocates while it loads (its weights) is collapsed onto
huge pages (`strata.huge_pages`), what a call frees stays in the heap for the next call
(`strata.heap_reuse`), and inputs that are writable, contiguous and 64-byte aligned (torch's
tensors are) are read where they lie instead of being copied (a misaligned one would crash the
kernels, which load with aligned vector instructions). On local-task, where the workers can take
every CPU, the caller waits for a call as a SCHED_BATCH thread (`strata.batch_wait`).

On local-sync, the device's allocator is IREE's caching allocator over its heap allocator. Why:
that heap allocator zero-fills every buffer it mallocs, and a call allocates its results and its
transient arena afresh, so every call wrote zeros over megabytes it was about to overwrite (a
GPT-2 block: 4.3 MB a call; a softmax over 8 MiB: 40% of the call). The cache hands a call the
buffers an earlier call freed, as they are. (local-task's allocations are not zero-filled.)
"""

import contextlib
import functools
import mmap
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from strata import batch_wait
from strata.errors import StrataError
from strata.heap_reuse import keep_freed_buffers
from strata.huge_pages import collapse_new_memory

# IREE's CPU kernels assume their buffers 64-byte aligned (aligned vector loads); an input array
# that is not (numpy's own allocations often are only 16-byte aligned) is copied.
IMPORT_ALIGNMENT = 64

_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
}  # fmt: skip
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}
PAGE = 4096
# What IREE's bindings raise for a damaged module, archive or call (IREE's status codes map to
# these); their messages run on with a VM stack trace, of which the first line says it.
_IREE_ERRORS = (RuntimeError, ValueError, IndexError)


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:300] if lines else type(error).__name__


@dataclass(frozen=True)
class TensorType:
    """A tensor type as iree-run-module spells it: `2x?x3xf32` (`?` is a dynamic dimension)."""

    shape: tuple[int | None, ...]
    dtype: str

    @classmethod
    def parse(cls, text: str) -> "TensorType":
        *dims, dtype = text.strip().split("x")
        if dtype not in _DTYPES:
            raise StrataError(f"unsupported element type '{dtype}' in '{text}' (supported: {', '.join(_DTYPES)})")
        try:
            return cls(tuple(None if d == "?" else int(d) for d in dims), dtype)
        except ValueError:
            raise StrataError(f"bad tensor type '{text}': expected e.g. 2x3xf32") from None

    @classmethod
    def of(cls, array: np.ndarray) -> "TensorType":
        return cls(tuple(array.shape), dtype_name(array.dtype))

    def __str__(self) -> str:
        return "x".join([*("?" if d is None else str(d) for d in self.shape), self.dtype])

    def accepts(self, other: "TensorType") -> bool:
        return (
            self.dtype == other.dtype
            and len(self.shape) == len(other.shape)
            and all(a is None or a == b for a, b in zip(self.shape, other.shape))
        )

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(_DTYPES[self.dtype])


def dtype_name(dtype) -> str:
    try:
        return _NAMES[np.dtype(dtype)]
    except KeyError:
        raise StrataError(f"unsupported array dtype {np.dtype(dtype)}") from None


def _page_aligned(nbytes: int) -> np.ndarray:
    """A zeroed uint8 array whose data is page aligned and a whole number of pages long."""
    return np.frombuffer(mmap.mmap(-1, max(PAGE, -(-nbytes // PAGE) * PAGE)), dtype=np.uint8)


@functools.cache
def _element_type_dtypes() -> dict[int, np.dtype]:
    from iree.runtime import HalElementType as T
    from iree.runtime.array_interop import map_dtype_to_element_type

    mapping = {int(map_dtype_to_element_type(np.dtype(d))): np.dtype(d) for d in _DTYPES.values()}
    # Results carry signless integer types where numpy only has signed ones.
    for element_type, dtype in ((T.INT_8, np.int8), (T.INT_16, np.int16), (T.INT_32, np.int32), (T.INT_64, np.int64)):
        mapping.setdefault(int(element_type), np.dtype(dtype))
    return mapping


class Function:
    """One exported function of a loaded module; call it with numpy arrays, get numpy arrays."""

    def __init__(self, module: "LoadedModule", name: str):
        import iree.runtime as rt

        self._rt = rt
        self._module = module
        self.name = name
        # `main$async` is IREE's internal coarse-fences variant of `main`: it takes extra fence
        # arguments no user can pass, so it is not offered as a function of its own.
        try:
            vm_function = None if not name or name.endswith("$async") else module.vm_module.lookup_function(name)
            known = ", ".join(n for n in module.vm_module.function_names if not n.endswith("$async") and not n.startswith("__"))
        except _IREE_ERRORS as e:
            raise StrataError(f"cannot look up function '{name}': {_first_line(e)}") from None
        if vm_function is None:
            raise StrataError(f"module has no function '{name}' (functions: {known})")
        self._vm_function = vm_function
        try:
            reflection = dict(vm_function.reflection)
        except _IREE_ERRORS as e:
            raise StrataError(f"function '{name}' has unreadable metadata (damaged module?): {_first_line(e)}") from None
        self.inputs = tuple(map(TensorType.parse, filter(None, reflection.get("strata.inputs", "").split(","))))
        self.outputs = tuple(map(TensorType.parse, filter(None, reflection.get("strata.outputs", "").split(","))))
        self.has_signature = "strata.inputs" in reflection
        self._exact = tuple((t.numpy_dtype, t.shape) for t in self.inputs)

    def check_inputs(self, arrays) -> None:
        if not self.has_signature:
            return
        if len(arrays) == len(self._exact) and all(a.dtype == d and a.shape == s for a, (d, s) in zip(arrays, self._exact)):
            return  # the common case, without building a TensorType per call
        if len(arrays) != len(self.inputs):
            raise StrataError(f"function '{self.name}' takes {len(self.inputs)} inputs, got {len(arrays)}")
        for index, (expected, array) in enumerate(zip(self.inputs, arrays)):
            actual = TensorType.of(array)
            if not expected.accepts(actual):
                raise StrataError(f"function '{self.name}' input {index}: expected {expected}, got {actual}")

    def __call__(self, *arrays) -> list[np.ndarray]:
        arrays = [np.ascontiguousarray(a) for a in arrays]
        self.check_inputs(arrays)
        return self.invoke_unchecked(arrays)

    def invoke_unchecked(self, arrays) -> list[np.ndarray]:
        """Runs on contiguous arrays already known to match the signature."""
        if not self._module.staged:
            return self.fast_invoker()(arrays)
        rt = self._rt
        args = rt.VmVariantList(len(arrays))
        staging: list[np.ndarray] = []  # host memory imported by the device lives until the call ends
        for array in arrays:
            args.push_ref(self._module.to_device(array, staging))
        results = rt.VmVariantList(max(1, len(self.outputs)))
        try:
            self._module.context.invoke(self._vm_function, args, results)
        except _IREE_ERRORS as e:
            raise StrataError(f"function '{self.name}' failed: {_first_line(e)}") from None
        return [self._module.to_host(results.get_as_object(i, rt.HalBufferView)) for i in range(len(results))]

    @functools.cached_property
    def _fast(self):
        rt = self._rt
        module, name = self._module, self.name
        allocate, import_host = module.device.allocator.allocate_buffer_copy, module.device.allocator.import_host_allocation
        memory_type, usage, device = rt.MemoryType.DEVICE_LOCAL, rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING, module.device
        host_memory, host_usage = rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE, rt.BufferUsage.DEFAULT
        element_type = {np.dtype(d): rt.array_interop.map_dtype_to_element_type(np.dtype(d)) for d in _DTYPES.values()}
        dtypes = _element_type_dtypes()
        VmVariantList, HalBufferView = rt.VmVariantList, rt.HalBufferView
        invoke, vm_function = module.context.invoke, self._vm_function
        if module.waits_as_batch:
            invoke = batch_wait.waiting_as_batch(invoke)
        result_count = max(1, len(self.outputs))
        may_share_memory = np.may_share_memory

        def run(arrays):
            args = VmVariantList(len(arrays))
            imported = []
            for a in arrays:
                # A writable array as aligned as IREE's kernels assume is read where it lies
                # (no copy: a 48 MiB layer-norm input cost 7 ms per call to copy); any other is
                # copied. (Both routes reject a non-contiguous array; callers pass contiguous ones.)
                if a.flags.writeable and a.ctypes.data % IMPORT_ALIGNMENT == 0:
                    args.push_ref(HalBufferView(import_host(a, host_memory, host_usage), a.shape, element_type[a.dtype]))
                    imported.append(a)
                else:
                    args.push_ref(allocate(memory_type, usage, device, a, element_type[a.dtype]))
            results = VmVariantList(result_count)
            try:
                invoke(vm_function, args, results)
            except _IREE_ERRORS as e:
                raise StrataError(f"function '{name}' failed: {_first_line(e)}") from None
            out = []
            for i in range(len(results)):
                view = results.get_as_object(i, HalBufferView)
                dtype = dtypes.get(view.element_type)
                # The array views the result buffer's mapped memory (see to_host); to_host names
                # an element type numpy lacks.
                array = view.map().asarray(tuple(view.shape), dtype) if dtype is not None else module.to_host(view)
                # A result IREE returns in an input's buffer (an identity) must not alias the caller's array.
                if imported and any(may_share_memory(array, a) for a in imported):
                    array = array.copy()
                out.append(array)
            return out

        return run

    def fast_invoker(self):
        """`invoke_unchecked` with every lookup hoisted out, for callers that already guard
        shapes and dtypes (the torch.compile backend): a few microseconds of Python per call."""
        return self.invoke_unchecked if self._module.staged else self._fast


_DEVICE_FOR_TARGET = {"local": "local-task", "vulkan": "vulkan", "cuda": "cuda", "hip": "hip"}


def _load_error(message: str, device: str) -> str:
    if "required module 'io_parameters' not registered" in message:
        return "the module reads its weights from a parameter archive: pass it with --parameters=FILE.irpa"
    compiled_for = re.search(r'not found or unavailable: #hal\.device\.target<"(\w+)"', message)
    if compiled_for:
        name = compiled_for.group(1)
        return (f"the module was compiled for IREE device '{name}', which --device={device} cannot run "
                f"(use --device={_DEVICE_FOR_TARGET.get(name, name)})")
    return f"cannot load the module on '{device}': {message.splitlines()[0][:300]}"


def check_loads_without_crashing(vmfb: bytes, parameters, name: str) -> None:
    """Raises StrataError if loading `vmfb` crashes IREE's runtime (a damaged file can segfault it).

    For library use, where a crash would take the user's Python session down with it: the load
    (module, parameter archives, context on the CPU's local-sync device) is first tried in a forked
    child. Only a crash counts; ordinary load errors are left for the real load to report.
    """
    from strata.crash_guard import run_guarded

    def work(reporter) -> int:
        import iree.runtime as rt

        try:
            config = rt.Config("local-sync")
            instance = config.vm_instance
            modules = [rt.create_hal_module(instance, config.device)]
            vm_module = rt.VmModule.copy_buffer(instance, vmfb)
            if parameters:
                index = rt.ParameterIndex()
                for archive in parameters:
                    index.load(str(archive))
                modules.append(rt.create_io_parameters_module(instance, index.create_provider(scope="model")))
            rt.VmContext(instance, modules=modules + [vm_module])
        except Exception:  # noqa: BLE001 (an error, not a crash: the real load reports it)
            pass
        return 0

    def on_crash(signal_name: str, context) -> int:
        raise StrataError(f"'{name}' crashed IREE's runtime while loading ({signal_name}): the module is damaged")

    run_guarded(work, on_crash)


@functools.cache
def _caching_device(uri: str):
    """The device at `uri` with IREE's caching allocator; one per process, as `rt.Config` shares its
    devices too."""
    import iree.runtime as rt

    return rt.get_driver(uri).create_device_by_uri(uri, allocators=["caching"])


class LoadedModule:
    """A `.vmfb` loaded on one device, with its parameter archives (`.irpa`) if it has any.

    `huge_pages=False` keeps a CPU module's memory on the 4 KiB pages malloc gave it;
    `reuse_freed_memory=False` leaves glibc's thresholds and local-sync's allocator as they are
    (`strata.heap_reuse`, and the caching allocator above: a CPU module's calls otherwise reuse
    the buffers earlier calls freed instead of faulting in or zeroing fresh pages; the glibc
    setting is the process's, and freed memory stays resident for reuse).
    """

    def __init__(self, vmfb: bytes | Path | str, device: str = "local-task", parameters=(), *,
                 huge_pages: bool = True, reuse_freed_memory: bool = True):
        import iree.runtime as rt

        self._rt = rt
        data = Path(vmfb).read_bytes() if isinstance(vmfb, (str, Path)) else vmfb
        caching = reuse_freed_memory and device.split(":")[0] == "local-sync"
        try:
            self.config = rt.Config(device=_caching_device(device)) if caching else rt.Config(device)
        except (ValueError, RuntimeError) as e:
            raise StrataError(f"cannot open device '{device}': {str(e).splitlines()[0]}") from None
        self.device_name = device
        self.device = self.config.device
        instance = self.config.vm_instance
        # On CPU devices the module's weights live in what the copy and the initializers malloc.
        on_cpu = device.split(":")[0] in ("local-sync", "local-task")
        if on_cpu and reuse_freed_memory:
            keep_freed_buffers()
        with collapse_new_memory() if huge_pages and on_cpu else contextlib.nullcontext():
            self._load(rt, instance, data, device, parameters)
        self.staged = device.split(":")[0] == "vulkan"
        # Calls wait as a SCHED_BATCH thread where IREE's workers can take every CPU: otherwise the
        # caller's wake-up can stall the worker that finishes the call for a scheduler tick.
        self.waits_as_batch = device.split(":")[0] == "local-task" and batch_wait.needed()
        self._functions: dict[str, Function] = {}

    def _load(self, rt, instance, data: bytes, device: str, parameters) -> None:
        try:
            self.vm_module = rt.VmModule.copy_buffer(instance, data)
        except _IREE_ERRORS as e:
            raise StrataError(f"not a loadable IREE module: {_first_line(e)}") from None
        modules = [rt.create_hal_module(instance, self.device)]
        if parameters:
            index = rt.ParameterIndex()
            for archive in parameters:
                if not Path(archive).is_file():
                    raise StrataError(f"cannot read parameter archive '{archive}': no such file")
                try:
                    index.load(str(archive))
                except _IREE_ERRORS as e:
                    raise StrataError(f"cannot read parameter archive '{archive}': {_first_line(e)}") from None
            modules.append(rt.create_io_parameters_module(instance, index.create_provider(scope="model")))
        modules.append(self.vm_module)
        try:
            self.context = rt.VmContext(instance, modules=modules)
        except _IREE_ERRORS as e:
            raise StrataError(_load_error(str(e), device)) from None

    def function(self, name: str = "main") -> Function:
        if name not in self._functions:
            self._functions[name] = Function(self, name)
        return self._functions[name]

    def to_device(self, array: np.ndarray, staging: list):
        """A buffer view holding `array`; host memory the device imports is appended to `staging`."""
        rt = self._rt
        element_type = rt.array_interop.map_dtype_to_element_type(array.dtype)
        if not self.staged:
            return self.device.allocator.allocate_buffer_copy(
                memory_type=rt.MemoryType.DEVICE_LOCAL,
                allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
                device=self.device,
                buffer=array,
                element_type=element_type,
            )
        host = _page_aligned(array.nbytes)
        host[: array.nbytes] = array.reshape(-1).view(np.uint8)
        staging.append(host)
        buffer = self.device.allocator.import_host_allocation(
            host, rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE, rt.BufferUsage.DEFAULT
        )
        return rt.HalBufferView(buffer, array.shape, element_type)

    def to_host(self, view) -> np.ndarray:
        rt = self._rt
        dtype = _element_type_dtypes().get(int(view.element_type))
        if dtype is None:
            raise StrataError(f"unsupported result element type 0x{int(view.element_type):x}")
        shape = tuple(view.shape)
        if not self.staged:
            # The array views the result buffer's mapped host memory and keeps the mapping, and
            # through it the buffer, alive: no copy (a 48 MB layer-norm result cost ~10 ms to copy).
            return view.map().asarray(shape, dtype)
        host = _page_aligned(view.byte_length)
        target = self.device.allocator.import_host_allocation(
            host, rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE, rt.BufferUsage.DEFAULT
        )
        done = self.device.create_semaphore(0)
        self.device.queue_copy(view.get_buffer(), target, [], [(done, 1)])
        done.wait(1)
        return host[: view.byte_length].view(dtype).reshape(shape).copy()

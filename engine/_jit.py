"""numba set-up shared by every kernel module: one decorator, a source-keyed cache, and
kernels that can run as plain Python until they are compiled.

Compiled mode (the default).  `kernel` wraps a function in a cached `numba.njit`
dispatcher at import, as usual; `native(name, fallback)` gives numba's intrinsic.

Deferred mode.  A program that must answer at once (a GUI engine starting on an empty
cache) calls `defer_compilation()` before importing any kernel module.  Then `kernel`
returns the function unchanged and `native` its Python fallback, so the engine imports
without numba and its kernels run as ordinary Python: the same rules and search, about a
thousand times slower.  `compile_kernels()` later imports numba, wraps every kernel in a
cached dispatcher, and rebinds every engine-module global that named a plain kernel or
fallback, so from then on every call, from Python or from another kernel, is compiled.
The switch waits until no caller is inside `using_kernels()`: an interpreted search never
calls compiled kernels half-way with argument types the compiled code was not built for.

numba keys each cached function to its own file's source only, so a kernel in one file
keeps stale machine code after an edit to a kernel it calls in another file.  The cache
directory here is therefore named after a hash of every engine source file (and the
numba version): any edit to the engine starts a fresh cache, and an unchanged engine
always finds its cache.  Set ANTICHESS_CACHE_DIR to move the cache root.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import threading
from importlib import metadata
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parent


def _numba_version() -> str:
    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:  # numba installed without metadata: ask it
        import numba

        return numba.__version__


def source_hash(directory: Path = ENGINE_DIR) -> str:
    """A short hash of the engine's Python sources and data files (in `directory`: the
    kernels freeze the data they load, e.g. eval_weights.json) and the numba version."""
    digest = hashlib.sha256(_numba_version().encode())
    for path in sorted([*Path(directory).glob("*.py"), *Path(directory).glob("*.json")]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """The folder that holds one numba cache per engine source hash."""
    root = os.environ.get("ANTICHESS_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "antichess-engine" / "numba"


def reference_counted() -> bool:
    """True when every kernel is compiled with numba's runtime (NRT), which counts a
    reference, atomically, for every array a kernel receives or views; set
    ANTICHESS_REFERENCE_COUNTS=1 for that.  By default only the `allocating_kernel`s are.

    The counts were over a third of a search's time (`perf` on `search_root`: numba's
    `lock incq`/`lock decq`, 58 increments a node, most for negamax's 20 array arguments),
    and a `kernel` does not need them: it allocates no array (scratch arrays are
    `stack_array`s in the stack frame), returns none, and every array it sees belongs to a
    caller that outlives the call.  numba refuses to compile a kernel without its runtime
    if it allocates, so a kernel that starts to fails to compile, loudly, instead of leaking.
    """
    return bool(os.environ.get("ANTICHESS_REFERENCE_COUNTS"))


# Kernels compiled with and without reference counts are different machine code.
CACHE_DIR = cache_root() / (source_hash() + ("-counted" if reference_counted() else ""))


def _marker_name(directory: Path = ENGINE_DIR) -> str:
    """The name of the "every kernel cached" marker for the engine in `directory`.

    numba keeps its cache index per source file path, so a second checkout (or a fresh
    clone) of the same sources is cold even though it shares CACHE_DIR: the marker names a
    hash of that path, and of the files' modification times and sizes (numba versions that
    stamp a source by its modification time would find a touched file cold too).
    """
    digest = hashlib.sha256(str(Path(directory).resolve()).encode())
    for path in sorted(Path(directory).glob("*.py")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return "complete-" + digest.hexdigest()[:12]


COMPLETE_MARKER = CACHE_DIR / _marker_name()  # written by engine.warmup once every kernel is cached


class _State:
    """Which mode the kernels are in, and who is using interpreted kernels right now."""

    def __init__(self):
        self.deferred = False
        self.compiled = False  # numba dispatchers are bound (compiled mode, or after the switch)
        self.kernels: list = []  # the plain kernel functions, while deferred
        self.fallbacks: list[tuple[str, object]] = []  # (intrinsic name, Python fallback)
        self.users = 0
        self.condition = threading.Condition()


_state = _State()


def _numba():
    """Import numba with its cache directory set (the first import costs about 0.3 s).

    numba's NumPy support asks whether SciPy's BLAS is there when it first loads, and where
    SciPy is installed that import (scipy.linalg) costs 0.25 s here, a third of a warm
    start.  The kernels use no BLAS, so unless scipy.linalg is already loaded the question is
    answered "not installed" (a None entry in sys.modules), removed again at once.
    """
    import numba

    numba.config.CACHE_DIR = str(CACHE_DIR)
    if "numba.np.arraymath" not in sys.modules and "scipy.linalg" not in sys.modules:
        sys.modules["scipy.linalg"] = None
        try:
            import numba.np.arraymath  # noqa: F401  (decides numba's BLAS support once)
        finally:
            if sys.modules.get("scipy.linalg", 0) is None:
                del sys.modules["scipy.linalg"]
    return numba


def _njit(function):
    with_runtime = reference_counted() or getattr(function, "allocates_arrays", False)
    return _numba().njit(cache=True, nogil=True, error_model="numpy", _nrt=with_runtime)(function)


def defer_compilation() -> None:
    """Run the kernels as plain Python until `compile_kernels()`.  Only effective before the
    first kernel module is imported; afterwards the kernels stay as they are."""
    if not _state.kernels and not _state.compiled:
        _state.deferred = True


def kernels_compiled() -> bool:
    """True when calls go to numba's compiled kernels (always, unless deferred)."""
    return _state.compiled or not _state.deferred


def kernel(function):
    """Mark `function` as a kernel: compiled in nopython mode and cached on disk under
    CACHE_DIR, or left as plain Python while compilation is deferred."""
    if not _state.deferred:
        _state.compiled = True
        return _njit(function)
    _state.kernels.append(function)
    return function


def allocating_kernel(function):
    """`kernel` for a function that makes arrays (np.zeros, np.empty...) or returns one: it
    is compiled with numba's runtime, which frees them (the endgame-table builders).  A
    plain `kernel` may call it only if it returns no array."""
    function.allocates_arrays = True
    return kernel(function)


def native(name: str, fallback):
    """The numba intrinsic `name` (see `_intrinsics`), or its Python `fallback` while
    compilation is deferred; `fallback` must compute the same value."""
    if not _state.deferred:
        _state.compiled = True
        return _intrinsics()[name]
    _state.fallbacks.append((name, fallback))
    return fallback


@contextlib.contextmanager
def using_kernels():
    """Hold off the switch to compiled kernels while the block calls kernels (re-entrant)."""
    if kernels_compiled():
        yield
        return
    with _state.condition:
        _state.users += 1
    try:
        yield
    finally:
        with _state.condition:
            _state.users -= 1
            _state.condition.notify_all()


def uses_kernels(function):
    """Decorator: run `function` inside `using_kernels()` while the kernels are interpreted."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if kernels_compiled():
            return function(*args, **kwargs)
        with using_kernels():
            return function(*args, **kwargs)

    return wrapper


def compile_kernels() -> None:
    """Switch every deferred kernel to its cached numba dispatcher (idempotent).  Compiling
    (or loading from the cache) happens on each kernel's first call, as in compiled mode."""
    if kernels_compiled():
        return
    intrinsics = _intrinsics()
    # Keyed by id: the registered functions stay alive in _state, so their ids are unique.
    replacement = {id(function): _njit(function) for function in _state.kernels}
    replacement.update({id(function): intrinsics[name] for name, function in _state.fallbacks})
    with _state.condition:
        _state.condition.wait_for(lambda: _state.users == 0)
        for module in list(sys.modules.values()):
            if module is None or not getattr(module, "__name__", "").startswith(__package__ + "."):
                continue
            namespace = module.__dict__
            for name, value in list(namespace.items()):
                if id(value) in replacement:
                    namespace[name] = replacement[id(value)]
        _state.compiled = True


_INTRINSICS: dict = {}
_STACK_ARRAYS: dict[str, tuple[str, int]] = {}  # intrinsic name: (dtype name, length)


def stack_array(dtype: str, length: int):
    """A function of no argument, for kernels, that gives a 1-D scratch array of `length`
    items of `dtype` (a NumPy type name) with undefined contents.  Compiled, the array lives
    in the calling kernel's stack frame: no allocation and no reference counting (it has no
    MemInfo), gone when that kernel returns, so a kernel must never return or keep it.
    While compilation is deferred, a fresh `numpy.empty`."""
    import numpy as np

    name = f"stack_{dtype}_{length}"
    _STACK_ARRAYS[name] = (dtype, int(length))
    return native(name, lambda: np.empty(length, dtype=dtype))


def _stack_array_intrinsic(dtype: str, length: int):
    """The numba intrinsic behind `stack_array`: an alloca in the caller's entry block,
    wrapped as an array without a MemInfo."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import populate_array

    item_type = getattr(types, dtype)
    array_type = types.Array(item_type, 1, "C")

    @intrinsic
    def scratch(typingctx):
        def codegen(context, builder, signature, args):
            item = context.get_data_type(item_type)
            size = context.get_constant(types.intp, length)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
            array = context.make_array(array_type)(context, builder)
            populate_array(array, data=cgutils.alloca_once(builder, item, size=size), shape=[size],
                           strides=[itemsize], itemsize=itemsize, meminfo=None)
            return array._getvalue()

        return array_type(), codegen

    return scratch


def _intrinsics() -> dict:
    """The LLVM intrinsics the kernels use (and the scratch arrays of `stack_array`), built
    once numba is imported."""
    if not _INTRINSICS:
        _INTRINSICS.update(_bit_intrinsics())
    for name, (dtype, length) in _STACK_ARRAYS.items():
        if name not in _INTRINSICS:
            _INTRINSICS[name] = _stack_array_intrinsic(dtype, length)
    return _INTRINSICS


def _bit_intrinsics() -> dict:
    """popcount, atomic_load, trailing_zeros, leading_zeros, prefetch and add_rows_32."""
    _numba()
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
    from numba.extending import intrinsic

    @intrinsic
    def popcount(typingctx, bitboard):
        """Number of set bits of a uint64 (LLVM ctpop)."""
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
            return builder.call(function, [args[0]])

        return sig, codegen

    @intrinsic
    def atomic_load(typingctx, array, index):
        """array[index] read with an atomic (monotonic) load, never cached in a register."""
        sig = types.int64(array, index)

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array_value = context.make_array(array_type)(context, builder, args[0])
            pointer = cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]],
                                               wraparound=False)
            return builder.load_atomic(pointer, "monotonic", 8)

        return sig, codegen

    @intrinsic
    def prefetch(typingctx, array, index):
        """Ask the processor to bring array[index] into its caches (llvm.prefetch, for
        reading, keep in all levels); no effect on any value."""
        sig = types.void(array, index)

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            array_value = context.make_array(array_type)(context, builder, args[0])
            pointer = cgutils.get_item_pointer(context, builder, array_type, array_value, [args[1]],
                                               wraparound=False)
            bytes_pointer = ir.IntType(8).as_pointer()
            flag = ir.IntType(32)
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [bytes_pointer, flag, flag, flag]),
                "llvm.prefetch.p0")
            builder.call(function, [builder.bitcast(pointer, bytes_pointer), ir.Constant(flag, 0),
                                    ir.Constant(flag, 3), ir.Constant(flag, 1)])
            return context.get_dummy_value()

        return sig, codegen

    return dict(popcount=popcount, atomic_load=atomic_load, trailing_zeros=trailing_zeros,
                leading_zeros=leading_zeros, prefetch=prefetch, add_rows_32=_add_rows_intrinsic(32))


def _add_rows_intrinsic(width: int):
    """add_rows(matrix, rows, n, out): out[:width] += matrix[rows[i], :width] for i < n, in that
    order, each column summed by scalar float32 additions (no reassociation), with the
    `width` sums held in 8-wide vector registers across the rows.  matrix: float32[:, :]
    with unit column stride and at least `width` columns; rows: int64[:] of valid row
    indices; out: float32[:] of at least `width` items.  No bounds are checked."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    lanes = 8
    assert width % lanes == 0

    @intrinsic
    def add_rows(typingctx, matrix, rows, n, out):
        sig = types.void(matrix, rows, types.int64, out)

        def codegen(context, builder, signature, args):
            matrix_type, rows_type, _, out_type = signature.args
            matrix_value = context.make_array(matrix_type)(context, builder, args[0])
            rows_value = context.make_array(rows_type)(context, builder, args[1])
            out_value = context.make_array(out_type)(context, builder, args[3])
            count = args[2]
            word = ir.IntType(64)
            vector = ir.VectorType(ir.FloatType(), lanes)
            bytes_pointer = ir.IntType(8).as_pointer()
            row_stride = cgutils.unpack_tuple(builder, matrix_value.strides, 2)[0]
            out_vectors = builder.bitcast(out_value.data, vector.as_pointer())
            chunks = width // lanes
            start = [builder.load(builder.gep(out_vectors, [ir.Constant(word, k)]), align=4)
                     for k in range(chunks)]
            before = builder.basic_block
            test_block = builder.append_basic_block("rows.test")
            body_block = builder.append_basic_block("rows.body")
            done_block = builder.append_basic_block("rows.done")
            builder.branch(test_block)
            builder.position_at_end(test_block)
            index = builder.phi(word)
            index.add_incoming(ir.Constant(word, 0), before)
            sums = []
            for k in range(chunks):
                phi = builder.phi(vector)
                phi.add_incoming(start[k], before)
                sums.append(phi)
            builder.cbranch(builder.icmp_signed("<", index, count), body_block, done_block)
            builder.position_at_end(body_block)
            row = builder.load(builder.gep(rows_value.data, [index]))
            row_start = builder.gep(builder.bitcast(matrix_value.data, bytes_pointer),
                                    [builder.mul(row, row_stride)])
            row_vectors = builder.bitcast(row_start, vector.as_pointer())
            for k in range(chunks):
                item = builder.load(builder.gep(row_vectors, [ir.Constant(word, k)]), align=4)
                sums[k].add_incoming(builder.fadd(sums[k], item), body_block)
            index.add_incoming(builder.add(index, ir.Constant(word, 1)), body_block)
            builder.branch(test_block)
            builder.position_at_end(done_block)
            for k in range(chunks):
                builder.store(sums[k], builder.gep(out_vectors, [ir.Constant(word, k)]), align=4)
            return context.get_dummy_value()

        return sig, codegen

    return add_rows

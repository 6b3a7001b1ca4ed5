"""How kernels are compiled: one decorator, and kernels that can run as plain Python
until they are compiled.

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

The cache these kernels compile into is `engine.jit.cache`; the intrinsics they call are
`engine.jit.intrinsics`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading

from .cache import load_numba, reference_counted
from .intrinsics import intrinsics, register_stack_array

_ENGINE_PACKAGE = __name__.split(".")[0]  # the modules whose kernels compile_kernels rebinds


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


def _njit(function):
    with_runtime = reference_counted() or getattr(function, "allocates_arrays", False)
    return load_numba().njit(cache=True, nogil=True, error_model="numpy", _nrt=with_runtime)(function)


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
    if not _state.deferred or _state.compiled:  # compiled mode, or a module imported after the switch
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
    if not _state.deferred or _state.compiled:
        _state.compiled = True
        return intrinsics()[name]
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
    table = intrinsics()
    # Keyed by id: the registered functions stay alive in _state, so their ids are unique.
    replacement = {id(function): _njit(function) for function in _state.kernels}
    replacement.update({id(function): table[name] for name, function in _state.fallbacks})
    with _state.condition:
        _state.condition.wait_for(lambda: _state.users == 0)
        for module in list(sys.modules.values()):
            if module is None or not getattr(module, "__name__", "").startswith(_ENGINE_PACKAGE + "."):
                continue
            namespace = module.__dict__
            for name, value in list(namespace.items()):
                if id(value) in replacement:
                    namespace[name] = replacement[id(value)]
        _state.compiled = True


def stack_array(dtype: str, length: int):
    """A function of no argument, for kernels, that gives a 1-D scratch array of `length`
    items of `dtype` (a NumPy type name) with undefined contents.  Compiled, the array lives
    in the calling kernel's stack frame: no allocation and no reference counting (it has no
    MemInfo), gone when that kernel returns, so a kernel must never return or keep it.
    While compilation is deferred, a fresh `numpy.empty`."""
    import numpy as np

    return native(register_stack_array(dtype, length), lambda: np.empty(length, dtype=dtype))

"""The numba cache: where compiled kernels are kept, and the key that keeps them fresh.

numba keys each cached function to its own file's source only, so a kernel in one file
keeps stale machine code after an edit to a kernel it calls in another file.  The cache
directory here is therefore named after a hash of every engine source file (in every
subpackage) and data file, and the numba version: any edit to the engine starts a fresh
cache, and an unchanged engine always finds its cache.  Set ANTICHESS_CACHE_DIR to move the
cache root.  `load_numba()` imports numba with that cache directory set.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib import metadata
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parents[1]


def engine_sources(directory: Path = ENGINE_DIR) -> list[Path]:
    """The engine's Python sources and JSON data files under `directory`, every subpackage
    included, in a fixed order (the kernels freeze the data they load, e.g. eval_weights.json)."""
    paths = [*Path(directory).rglob("*.py"), *Path(directory).rglob("*.json")]
    return sorted((p for p in paths if "__pycache__" not in p.parts),
                  key=lambda p: p.relative_to(directory).as_posix())

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
    for path in engine_sources(directory):
        digest.update(path.relative_to(directory).as_posix().encode())
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
    for path in engine_sources(directory):
        stat = path.stat()
        digest.update(f"{path.relative_to(directory).as_posix()}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return "complete-" + digest.hexdigest()[:12]


COMPLETE_MARKER = CACHE_DIR / _marker_name()  # written by engine.precompile once every kernel is cached


def load_numba():
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

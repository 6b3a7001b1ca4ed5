"""numba set-up shared by every kernel module: one decorator and a source-keyed cache.

numba keys each cached function to its own file's source only, so a kernel in one file
keeps stale machine code after an edit to a kernel it calls in another file.  The cache
directory here is therefore named after a hash of every engine source file (and the
numba version): any edit to the engine starts a fresh cache, and an unchanged engine
always finds its cache.  Set ANTICHESS_CACHE_DIR to move the cache root.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

ENGINE_DIR = Path(__file__).resolve().parent


def source_hash(directory: Path = ENGINE_DIR) -> str:
    """A short hash of the engine's Python sources (in `directory`) and the numba version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(Path(directory).glob("*.py")):
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


CACHE_DIR = cache_root() / source_hash()
numba.config.CACHE_DIR = str(CACHE_DIR)


def kernel(function):
    """Compile `function` with numba in nopython mode, cached on disk under CACHE_DIR."""
    return numba.njit(cache=True, nogil=True)(function)


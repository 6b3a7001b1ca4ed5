#!/usr/bin/env python3
"""Where a search's time goes, kernel by kernel, with Linux `perf`.

    perf record -o /tmp/search.perf python3 tools/profile_search.py [--depth 12] [--positions 24]
    perf report -i /tmp/search.perf --no-children --sort sym

numba's machine code has no symbols that `perf` can see, so this script compiles the search
kernels afresh in its own process (into a temporary numba cache: the disk cache's code would
have no module to name it by), searches the first antichess book positions to a fixed depth,
and then writes `/tmp/perf-<pid>.map`, the file in which `perf report` looks up the names of
just-in-time code: the start and size of every function in the library of `search_root` (all
the kernels the search calls, each under its mangled name, e.g.
`_ZN6engine7network13network_score...`).  Compiling takes about a minute, and its samples
(in LLVM's library, not in the kernels) stay out of the kernels' share.  With `--dump` the
machine code of each function is also written to `/tmp/perf-code/<address>.bin`, for
`objdump -D -b binary -mi386:x86-64` when one instruction stands out in `perf script -F ip`.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=12, help="fixed depth (default 12)")
    parser.add_argument("--positions", type=int, default=24, help="book positions (default 24)")
    parser.add_argument("--dump", action="store_true", help="also write each function's code to /tmp/perf-code")
    args = parser.parse_args()
    os.environ["ANTICHESS_CACHE_DIR"] = tempfile.mkdtemp(prefix="antichess-profile-")

    from engine import Game, Limits, Searcher
    from engine.search.alphabeta import search_root
    from tournaments.openings import read_epd

    book = ROOT / "tournaments" / "books" / "antichess.epd"
    fens = [opening.fen for opening in read_epd(book.read_text(), "antichess")[:args.positions]]
    Searcher(hash_mb=1).search(Game("antichess", fens[0]), Limits(depth=2, proof=False))  # compile
    started = time.perf_counter()
    nodes = 0
    for fen in fens:
        nodes += Searcher(hash_mb=64).search(Game("antichess", fen),
                                             Limits(depth=args.depth, proof=False)).info.nodes
    elapsed = time.perf_counter() - started
    print(f"depth {args.depth}, {len(fens)} positions: {nodes:,} nodes, {elapsed:.1f} s")

    functions = []
    for compiled in search_root.overloads.values():
        library = compiled.library
        for function in library._final_module.functions:
            if not function.is_declaration:
                address = library.get_pointer_to_function(function.name)
                if address:
                    functions.append((address, function.name))
    functions.sort()
    code_dir = Path("/tmp/perf-code")
    if args.dump:
        code_dir.mkdir(exist_ok=True)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(functions):
            # A function's size is taken as the distance to the next one (the last: 64 KB).
            size = min(functions[i + 1][0] - address if i + 1 < len(functions) else 1 << 16, 1 << 20)
            out.write(f"{address:x} {size:x} {name}\n")
            if args.dump:
                (code_dir / f"{address:x}.bin").write_bytes(ctypes.string_at(address, size))
    print(f"{len(functions)} functions named in /tmp/perf-{os.getpid()}.map")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Compile every kernel once, so that later processes load them from the disk cache.

`warmup()` compiles in this process.  `compile_in_subprocess()` compiles in a worker
process (`python -m engine.precompile --worker`) while this process stays free: a GUI engine
keeps answering, playing with interpreted kernels meanwhile (see `engine.jit`).  One
worker, not several: the search alone calls nearly every kernel, so two workers (search,
rules) took 34 s where one took 23.5 s on this project's 2-core machine.  Both report progress as
`progress(done, total, name)` calls, one per kernel compiled, and mark the cache complete
(`engine.jit.cache.COMPLETE_MARKER`) when they finish, so a later start knows it only has to load.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

Progress = Callable[[int, int, str], None]

# The work: searching compiles the search kernels and the rules kernels they call; the rest
# of the facade compiles the rules kernels it calls directly.
SHARES = ("search", "rules")


def kernel_count() -> int:
    """How many kernels a full warm-up compiles (the `total` of its progress reports)."""
    import ast

    from .jit.cache import engine_sources

    count = 0
    for path in engine_sources():
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Name) and d.id == "kernel" for d in node.decorator_list):
                count += 1
    return count


def _exercise(share: str) -> None:
    """Call every kernel of one share, under every rule set."""
    from .rules.game import Game
    from .rules.rulesets import RULE_SETS
    from .search.searcher import Searcher

    searcher = Searcher(hash_mb=1)
    for name in RULE_SETS:
        game = Game(name)
        if share == "search":
            searcher.search(game, depth=2)
            searcher.search(game, movetime=0.05)  # a timed search also compiles the proof-number search
            if name == "antichess":
                _exercise_training_kernels(game)
            continue
        game.is_check()
        game.outcome(claim_draw=True)
        moves = game.legal_moves()
        game.perft(2)
        game.perft_divide(1)
        game.push(moves[0])
        game.is_legal("a1a1")
        game.is_legal("h8h1")
        game.pop()


def _exercise_training_kernels(game) -> None:
    """The evaluation's feature kernels and whole-score entry points, which only
    tools/train_eval.py and tools/train_network.py (and tests) call, so that the warm-up
    compiles every kernel (its progress
    reaches the kernel count)."""
    import numpy as np

    from .search.evaluation import FEATURE_COUNT, learned_score, losing_features
    from .search.network import MAX_ACTIVE, NETWORK, network_inputs, network_score
    from .search.static import losing_terms

    with game.kernel_rows(2) as (stack, mlist, idx, rules):
        moves_difference, forcing = losing_terms(stack, np.int64(idx), rules, mlist)
    position = game.position()
    losing_features(position, np.int64(moves_difference), forcing, np.zeros(FEATURE_COUNT, dtype=np.int64))
    learned_score(position, np.int64(moves_difference), forcing)
    network_inputs(position, np.zeros(MAX_ACTIVE, dtype=np.int64))
    network_score(position, NETWORK)


def _exercise_tables() -> None:
    """The endgame-table probe's kernels (allocating kernels, outside `kernel_count`, and the
    signatures of the rules kernels they call), on an empty folder: a process that finds
    tables would otherwise compile them at its first probe, on the clock."""
    import tempfile

    from .tablebase import Tablebase

    with tempfile.TemporaryDirectory() as folder:
        Tablebase("antichess", folder).exercise()


class _CompileCounter:
    """Counts the distinct kernels numba compiles (or loads) while it is installed."""

    def __init__(self, on_kernel: Callable[[str], None]):
        from numba.core import event

        self.seen: set[str] = set()
        self._on_kernel = on_kernel
        counter = self

        class Listener(event.Listener):
            def on_start(self, event_):
                pass

            def on_end(self, event_):
                function = event_.data["dispatcher"].py_func
                if function.__module__.startswith(__package__ + "."):
                    name = f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"
                    if name not in counter.seen:
                        counter.seen.add(name)
                        counter._on_kernel(name)

        self._listener = Listener()
        self._event = event
        event.register("numba:compile", self._listener)

    def close(self) -> None:
        self._event.unregister("numba:compile", self._listener)


def _mark_complete() -> None:
    from .jit.cache import COMPLETE_MARKER

    COMPLETE_MARKER.parent.mkdir(parents=True, exist_ok=True)
    temporary = COMPLETE_MARKER.with_name(f".complete.{os.getpid()}")
    temporary.write_text(f"{time.time()}\n")
    os.replace(temporary, COMPLETE_MARKER)


def cache_is_complete() -> bool:
    """True when a warm-up has filled this engine version's cache (loading is then quick)."""
    from .jit.cache import COMPLETE_MARKER

    return COMPLETE_MARKER.exists()


def warmup(progress: Progress | None = None) -> float:
    """Compile (or load) every kernel the facade calls, under every rule set, in this
    process, then the endgame-table probe's; report each kernel of `kernel_count` to
    `progress`; return the seconds taken."""
    from .jit.modes import compile_kernels

    started = time.perf_counter()
    compile_kernels()
    total = kernel_count()
    counter = _CompileCounter(lambda name: progress(len(counter.seen), total, name)) if progress else None
    try:
        for share in SHARES:
            _exercise(share)
    finally:
        if counter is not None:
            counter.close()
    _exercise_tables()
    _mark_complete()
    return time.perf_counter() - started


def compile_in_subprocess(progress: Progress | None = None,
                          on_start: Callable[[], None] | None = None) -> float:
    """Compile every kernel into the disk cache in a worker process (`python -m
    engine.precompile --worker`), calling `on_start()` once it runs and reporting each kernel to
    `progress`; return the seconds taken.  This process stays free meanwhile.  Raises
    RuntimeError with the worker's last error line if it fails."""
    from .jit.cache import CACHE_DIR

    started = time.perf_counter()
    environment = dict(os.environ, ANTICHESS_CACHE_DIR=str(CACHE_DIR.parent))
    package_root = str(Path(__file__).resolve().parents[1])  # the worker imports this engine
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root] + ([environment["PYTHONPATH"]] if environment.get("PYTHONPATH") else []))
    process = subprocess.Popen([sys.executable, "-m", "engine.precompile", "--worker"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment,
                               start_new_session=True)  # a GUI's Ctrl-C or kill of our group spares it
    if on_start is not None:
        on_start()
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)
    reader.start()
    for line in process.stdout:
        done, _, rest = line.strip().partition(" ")
        total, _, name = rest.partition(" ")
        if progress is not None and done.isdigit() and total.isdigit():
            progress(int(done), int(total), name)
    reader.join()
    if process.wait() != 0:
        last = errors[-1].strip() if errors else f"exit status {process.returncode}"
        raise RuntimeError(f"kernel compilation failed: {last}")
    return time.perf_counter() - started


def _worker() -> int:
    """The worker process: compile everything, print `done total name` per kernel.

    One worker at a time per cache (a lock file): a second engine starting meanwhile waits
    for the first one's worker and then finds the cache complete.  The worker finishes
    even when the engine that started it has quit (its progress lines then go nowhere), so
    the next start only loads.
    """
    import fcntl

    from .jit.cache import CACHE_DIR

    def report(done: int, total: int, name: str) -> None:
        try:
            print(done, total, name, flush=True)
        except (BrokenPipeError, OSError):
            pass  # the engine that started us is gone; finish the cache all the same

    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / "compile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not cache_is_complete():
            warmup(report)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        sys.exit(_worker())
    print("usage: python -m engine.precompile --worker", file=sys.stderr)
    sys.exit(2)

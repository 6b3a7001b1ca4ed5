"""The numba cache: a second fresh process loads every kernel without compiling, and any
source change selects a new cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from engine.jit.cache import ENGINE_DIR, source_hash

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json
import numba
from engine import warmup
from engine.rules import movegen
from engine.rules import bitboards
from engine.tablebase import valuation
progress = []
warmup(lambda done, total, name: progress.append((done, total)))
hits = misses = table_hits = 0
for module in (movegen, bitboards, valuation):
    for value in vars(module).values():
        if isinstance(value, numba.core.registry.CPUDispatcher):
            hits += sum(value.stats.cache_hits.values())
            misses += sum(value.stats.cache_misses.values())
            if module is valuation:
                table_hits += sum(value.stats.cache_hits.values())
from engine import Game
print(json.dumps({"hits": hits, "misses": misses, "table_hits": table_hits, "perft": Game("antichess").perft(4),
                  "progress": progress[-1] if progress else None}))
"""


def _run_probe(cache_dir: Path) -> dict:
    env = dict(os.environ, ANTICHESS_CACHE_DIR=str(cache_dir))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_cache_without_compiling(tmp_path):
    first = _run_probe(tmp_path)
    assert first["misses"] > 0  # the first process compiled into the empty cache
    done, total = first["progress"]
    assert done == total  # the warm-up compiles every kernel it counts
    second = _run_probe(tmp_path)
    assert second["misses"] == 0
    assert second["hits"] > 0
    # The endgame-table probe's kernels too: a game that reaches its tables does not
    # compile them on the clock.
    assert second["table_hits"] > 0
    assert second["perft"] == first["perft"] == 153299


def test_cache_is_keyed_to_every_engine_source_and_data_file(tmp_path):
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert source_hash(copy) == source_hash(ENGINE_DIR)
    data_files = sorted(copy.rglob("*.json"))
    assert data_files  # the learned evaluation's weights, frozen into the kernels
    sources = sorted(copy.rglob("*.py"))
    assert any(path.parent != copy for path in sources)  # subpackages count too
    for path in sources + data_files:
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        assert source_hash(copy) != source_hash(ENGINE_DIR), path.relative_to(copy)
        path.write_bytes(original)


COUNTS_PROBE = r"""
import json
from numba.core.runtime import rtsys
from engine import Game
from engine.jit.cache import reference_counted
from engine import Limits, Searcher
from engine.search.alphabeta import negamax
game = Game("antichess")
game.push("e2e3")
searcher = Searcher(4)
one = searcher.search(game, Limits(depth=6))
searcher.set_threads(2)
two = searcher.search(game, Limits(nodes=20000))
stats = rtsys.get_allocation_stats()
print(json.dumps({"counted": reference_counted(), "nrt": negamax.targetoptions.get("_nrt"),
                  "nodes": one.info.nodes, "move": two.best_move.uci(),
                  "alloc": stats.alloc, "free": stats.free, "mi_alloc": stats.mi_alloc, "mi_free": stats.mi_free}))
"""


def _run_counts_probe(**env_extra) -> dict:
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    env.pop("ANTICHESS_REFERENCE_COUNTS", None)
    env.update(env_extra)
    done = subprocess.run([sys.executable, "-c", COUNTS_PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_kernels_run_without_reference_counts_and_search_the_same_tree():
    """The kernels are compiled without numba's runtime (its atomic reference counts were a
    third of a search's time): a search with one thread and with two allocates nothing
    through it, and searches the tree it searches with numba's counts, which free every
    array they allocate."""
    plain = _run_counts_probe()
    assert plain["counted"] is False and plain["nrt"] is False
    assert plain["alloc"] == 0 and plain["mi_alloc"] == 0
    counted = _run_counts_probe(ANTICHESS_REFERENCE_COUNTS="1")
    assert counted["counted"] is True and counted["nrt"] is True
    assert counted["alloc"] > 100  # the runtime was there and counted the searches' arrays
    assert counted["alloc"] == counted["free"] and counted["mi_alloc"] == counted["mi_free"]
    assert counted["nodes"] == plain["nodes"]

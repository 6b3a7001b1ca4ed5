"""Building tables: one table from its dependencies on disk (`build_table`), every table
missing from a folder in dependency order with builder threads side by side (`build`),
and the whole-table check of a built table against its successors (`verify_table`).

Materials are built in layers of piece count, then pawn count: every capture leads into a
smaller table and every promotion into a table with fewer pawns, both built before, so
the tables of one layer are independent and are built by parallel threads (the kernels
release the GIL).  After the DTM tables, each table whose wins can outlast the fifty-move
rule gets its DTZ companion (engine.tablebase.dtz), again layer by layer.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from ..jit.modes import uses_kernels
from ..rules.bitboards import MAX_MOVES, POS_SIZE
from ..rules.rulesets import get_rule_set
from .dtz import dtz_codes, needs_dtz
from .fileformat import (
    CURSED, FORMAT_VERSION, default_directory, encode_table, read_header, read_table, table_path, table_variant,
    valid_table, write_table,
)
from .generate import Workspace, retrograde
from .indexing import GEO, MAX_PIECES, Material, Registry, closure, dependencies, materials
from .report import dtz_stats, table_stats
from .valuation import verify_codes


@uses_kernels
def build_table(variant: str, material: Material, directory,
                progress: Callable[[int], None] | None = None, chunk: int = 1 << 16,
                loaded: dict | None = None, workspace: Workspace | None = None, metric: str = "dtm") -> dict:
    """Build one table (its dependencies must be on disk) and write it; returns its header.
    `progress(n)` is called with the number of positions just scanned; `loaded` caches the
    codes of tables read (up to 3 pieces), `workspace` the working arrays of one thread.
    metric "dtz" builds the DTZ companion of a DTM table already on disk (`dtz_codes`;
    the companions of the tables it depends on must be built first) and writes it as `.actz`."""
    if metric not in ("dtm", "dtz"):
        raise ValueError(f"unknown metric {metric!r} (dtm or dtz)")
    ws = workspace if workspace is not None else Workspace()
    variant = table_variant(variant)
    started = time.perf_counter()
    deps = dependencies(material)
    registry = Registry(deps + [material])
    parts = []
    offset = 0
    for tid, dep in enumerate(deps + ([material] if metric == "dtz" else [])):
        codes = loaded.get(dep) if loaded is not None else None
        if codes is None:
            _, codes = read_table(table_path(directory, variant, dep))
            if loaded is not None and dep.pieces < MAX_PIECES:
                loaded[dep] = codes
        registry.tdesc[tid, 0] = offset
        offset += codes.shape[0]
        parts.append(codes)
    if metric == "dtm":
        buf = np.concatenate(parts) if parts else np.zeros(1, dtype=np.int16)
        del parts
        codes, timing = retrograde(variant, material, registry, buf, ws, progress, chunk, 0)
        stats = table_stats(codes, material.slot_size)
        distance = "plies to the end of the game"
    else:
        codes, timing = dtz_codes(variant, material, registry, parts, deps, directory, ws, progress, chunk)
        del parts
        stats = dtz_stats(codes, material.slot_size)
        distance = ("plies to the next capture or pawn move, or to the end of the game, with the fifty-move "
                    f"rule; wins it draws (and losses it saves) are stored as {CURSED} + that distance")
    header = {
        "format": FORMAT_VERSION, "variant": variant, "material": material.name, "metric": metric,
        "codes": list(material.codes), "pieces": material.pieces, "pawnful": material.pawnful,
        "size": material.size, "slot_size": material.slot_size, "distance": distance,
        "rounds": timing["rounds"], "passes": timing["passes"], "scan_seconds": round(timing["scan"], 3),
        "solve_seconds": round(timing["solve"], 3),
        "positions_per_second": int(material.size * timing["passes"] / timing["scan"]) if timing["scan"] else 0,
        "edges": timing["edges"], "stats": stats,
    }
    payload = encode_table(header, codes)
    header["build_seconds"] = round(time.perf_counter() - started, 3)
    header["file_bytes"] = write_table(table_path(directory, variant, material, metric), header, payload)
    return header


def build(variant: str, pieces: int = 3, directory=None,
          callback: Callable[[dict], None] | None = None, only=None, workers: int | None = None) -> list[dict]:
    """Build every table of 2..pieces pieces missing from `directory` (resumable); with
    `only` (material names), just those and the tables they depend on.

    Then each table whose wins can outlast the fifty-move rule (`needs_dtz`) gets its DTZ
    companion, when missing, in the same layer order (a companion reads the DTM tables and
    the companions of the tables it depends on).

    `callback(event)` receives dicts: {"event": "start", "total_positions", "tables",
    "pending"}, {"event": "progress", "positions"}, {"event": "table", "header", "skipped"}
    and, before the DTZ stage, {"event": "dtz", "total_positions", "pending"}.
    Returns the headers of the tables built now.
    """
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be 2 to {MAX_PIECES}")
    variant = table_variant(variant)
    directory = Path(directory) if directory is not None else default_directory()
    todo = materials(pieces) if only is None else closure(only)
    pending = [m for m in todo if not valid_table(table_path(directory, variant, m), variant, m)]
    if callback:
        callback({"event": "start", "tables": len(todo), "pending": len(pending),
                  "total_positions": sum(m.size for m in pending)})
    built = []
    loaded: dict = {}
    spare: list[Workspace] = []  # one per builder thread, reused from table to table
    lock = threading.Lock()
    workers = max(1, workers or os.cpu_count() or 1)
    report = (lambda n: callback({"event": "progress", "positions": n})) if callback else None
    layers: dict[tuple[int, int], list[Material]] = {}
    for material in todo:  # a layer's tables depend only on earlier layers
        layers.setdefault((material.pieces, material.pawns), []).append(material)
    for layer in sorted(layers):
        for material in layers[layer]:
            if material not in pending and callback:
                callback({"event": "table", "header": read_header(table_path(directory, variant, material)),
                          "skipped": True})
        work = [m for m in layers[layer] if m in pending]
        built += _build_all(variant, work, directory, workers, report, callback, loaded, spare, lock, "dtm")
    companions = [m for m in todo if needs_dtz(read_header(table_path(directory, variant, m)))
                  and not valid_table(table_path(directory, variant, m, "dtz"), variant, m, "dtz")]
    if callback:
        callback({"event": "dtz", "pending": len(companions), "total_positions": sum(m.size for m in companions)})
    for layer in sorted({(m.pieces, m.pawns) for m in companions}):  # a companion reads those of earlier layers
        work = [m for m in companions if (m.pieces, m.pawns) == layer]
        built += _build_all(variant, work, directory, workers, report, callback, loaded, spare, lock, "dtz")
    return built


def _build_all(variant, work, directory, workers, report, callback, loaded, spare, lock, metric) -> list[dict]:
    """Build the tables `work` (independent of each other) side by side: the kernels
    release the GIL.  `spare` holds the threads' reusable workspaces."""

    def one(material):
        with lock:
            workspace = spare.pop() if spare else Workspace()
        try:
            return build_table(variant, material, directory, report, loaded=loaded, workspace=workspace,
                               metric=metric)
        finally:
            with lock:
                spare.append(workspace)

    built = []
    with ThreadPoolExecutor(max_workers=min(workers, max(1, len(work)))) as pool:
        for header in pool.map(one, work):
            built.append(header)
            if callback:
                callback({"event": "table", "header": header, "skipped": False})
    return built


def verify_table(variant: str, material: Material, directory, limit: int = 20) -> list[int]:
    """Indexes (at most `limit`) of positions of a built table whose entry disagrees with its
    successors' entries (see `verify_codes`); an empty list for a consistent table."""
    variant = table_variant(variant)
    rules = get_rule_set(variant).to_array()
    tables = dependencies(material) + [material]
    registry = Registry(tables)
    parts, offset = [], 0
    for tid, table in enumerate(tables):
        _, codes = read_table(table_path(directory, variant, table))
        registry.tdesc[tid, 0] = offset
        offset += codes.shape[0]
        parts.append(codes)
    bad = np.zeros(limit, dtype=np.int64)
    wrong = int(verify_codes(np.int64(len(tables) - 1), rules, registry.tdesc, registry.keymap, GEO,
                             np.concatenate(parts), np.zeros((8, POS_SIZE), dtype=np.uint64),
                             np.zeros((8, MAX_MOVES), dtype=np.int32), np.zeros(64, dtype=np.int64), bad))
    return [int(i) for i in bad[:min(wrong, limit)]] + ([-1] if wrong > limit else [])


"""Keeping tables in memory for the probe and the search: one buffer of codes under a
memory bound (SEARCH_MEMORY), filled from disk in the foreground or by a background
loader thread, and the DTZ companions of the endings being played.

The kernels see the tables placed in the buffer through `TableStore.buf` and
`TableStore.keymap` (with `registry.tdesc` holding each table's offset in it).  A probe asks
for its tables with `prepare`; without waiting, the tables not yet read are left to the
loader thread, so a player's clock never waits for lzma.  A search asks for a snapshot of
the tables it can reach (`search_tables`, nearest first, as many as the bound holds); when
the buffer would outgrow the bound it is emptied and refilled, keeping the tables the
current position needs.  Reads are timed, and `unread_seconds` estimates how long a probe's
missing tables would take, for the caller to decide whether to wait.
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import numpy as np

from ..rules.bitboards import OCC, P_CASTLE
from .fileformat import read_table, table_path
from .indexing import KEY_SPACE, MAX_PIECES, Material, Registry, dependencies, materials, own_material

SEARCH_MEMORY = 1 << 30  # bytes of tables (int16 codes) a Tablebase holds for the search at most
SEARCH_TABLES = 24  # tables a search from one position asks for at most, nearest first
SECONDS_PER_ENTRY = 2.5e-8  # reading and placing a table, per entry (measured on a 4-piece probe: 20-40 ns)
SEARCH_FROM_PIECES = 6  # a search from more pieces asks for no tables (it seldom reaches them)
NOT_READ = "tables not read yet"  # a probe that would have to wait for the disk


class TableStore:
    """The tables of one rule set in `directory` held in memory: read on first use, placed
    one after another in the kernels' buffer `buf` (int16 codes) with their key map
    `keymap`, under the bound SEARCH_MEMORY; the lock guards the buffer, its key map and
    the tables' offsets."""

    def __init__(self, variant: str, directory: Path):
        self.variant = variant
        self.directory = directory
        self.registry = Registry(materials(MAX_PIECES))
        self.buf = np.zeros(1 << 20, dtype=np.int16)  # every table loaded so far, one after another
        self.keymap = np.full(KEY_SPACE, -1, dtype=np.int64)  # the tables in the buffer
        self.seconds_per_entry = SECONDS_PER_ENTRY  # the running estimate (see `_note_read`)
        self._tables: dict[int, np.ndarray] = {}  # read, not placed yet
        self._missing: set[int] = set()
        self._used = 0
        self._placed: set[int] = set()
        self._ready: set[Material] = set()
        self._lock = threading.RLock()  # the buffer, its key map and table offsets
        self._wanted: list[int] = []  # tables the background loader reads next, first first
        self._loader: threading.Thread | None = None
        self._reachable: dict[tuple, list[Material]] = {}  # by piece counts
        self._dtz: dict[Material, np.ndarray | None] = {}  # DTZ companions read (None: not on disk)
        self._dtz_reading: set[Material] = set()

    @property
    def entries_held(self) -> int:
        """How many codes the buffer holds (2 bytes each)."""
        return self._used

    def reading(self) -> bool:
        """Whether a background thread is still reading tables or DTZ companions."""
        with self._lock:
            return (self._loader is not None and self._loader.is_alive()) or bool(self._dtz_reading)

    def _table(self, tid: int) -> np.ndarray | None:
        table = self._tables.get(tid)
        if table is None and tid not in self._missing:
            material = self.registry.tables[tid]
            path = table_path(self.directory, self.variant, material)
            started = time.perf_counter()
            try:
                header, table = read_table(path)
            except (OSError, ValueError):
                self._missing.add(tid)
                return None
            self._tables[tid] = table
            self._note_read(table.shape[0], time.perf_counter() - started)
        return table

    def _note_read(self, entries: int, seconds: float) -> None:
        """Fold a table read into the running estimate of seconds per entry (reading and
        placing: the placing copy adds about a third to the read itself)."""
        if entries >= 1 << 16:  # small tables are all overhead
            self.seconds_per_entry = 0.7 * self.seconds_per_entry + 0.3 * 1.3 * seconds / entries

    def prepare(self, row: np.ndarray, wait: bool = True) -> str | None:
        """Load every table one or two plies from `row` into the kernels' buffer; an error
        text or None.  Without `wait`, tables not yet read from disk are left to the
        background thread and the answer is an error text (NOT_READ)."""
        pieces = sum(int(row[c * 8 + OCC]).bit_count() for c in (0, 1))
        if pieces > MAX_PIECES:
            return f"{pieces} pieces (tables hold at most {MAX_PIECES})"
        if int(row[P_CASTLE]):
            return "castling rights"
        material = own_material(row)
        if material is None or material in self._ready:  # a game over, or ready
            return None
        with self._lock:
            tids = [self.registry.tid[table] for table in [material] + dependencies(material)]
            unread = self._unread(tids)
            if unread and not wait:
                if not table_path(self.directory, self.variant, material).exists():
                    return f"table {material.name} not found in {self.directory / self.variant}"
                self._request(unread)
                return NOT_READ
            self._make_room(tids)
            for tid in tids:
                if not self._place(tid) and tid == tids[0]:
                    return f"table {material.name} not found in {self.directory / self.variant}"
            self._ready.add(material)
        return None

    def unread_seconds(self, row: np.ndarray) -> float:
        """About how long reading the tables a probe of `row` needs would take, its DTZ
        companion included (0 when they are all in memory): the entries to read times the
        seconds per entry of the reads so far (SECONDS_PER_ENTRY before the first; under
        load a read is slower, and the estimate follows)."""
        own = own_material(row)
        if own is None:
            return 0.0
        with self._lock:
            tids = self._unread([self.registry.tid[m] for m in [own] + dependencies(own)])
            entries = sum(self.registry.tables[t].size for t in tids)
            if own not in self._dtz and table_path(self.directory, self.variant, own, "dtz").exists():
                entries += own.size
            return self.seconds_per_entry * entries

    def _unread(self, tids: list[int]) -> list[int]:
        """Those of `tids` neither in the buffer nor read, nor known to be missing."""
        return [t for t in tids if t not in self._placed and t not in self._tables and t not in self._missing]

    def _make_room(self, tids: list[int]) -> None:
        """Empty the buffer, keeping those of `tids` already in it, when placing the others
        would take it past SEARCH_MEMORY.  Call with the lock held."""
        extra = sum(self.registry.tables[t].size for t in tids if t not in self._placed and t not in self._missing)
        if (self._used + extra) * 2 <= SEARCH_MEMORY:
            return
        kept = {}
        for tid in tids:
            if tid in self._placed:
                offset = self.registry.tdesc[tid, 0]
                kept[tid] = self.buf[offset:offset + self.registry.tables[tid].size].copy()
        self._forget()
        self._tables.update(kept)

    def _place(self, tid: int) -> bool:
        """Put table `tid` into the kernels' buffer (reading it if needed); False when it is
        not on disk (lookups into it then fail with INVALID).  Call with the lock held."""
        if tid in self._placed:
            return True
        if tid in self._missing:
            return False
        codes_of = self._table(tid)
        if codes_of is None:
            return False
        need = self._used + codes_of.shape[0]
        if need > self.buf.shape[0]:  # grow the shared buffer (doubling); searches keep the old one
            grown = np.zeros(max(need, min(2 * self.buf.shape[0], SEARCH_MEMORY // 2)), dtype=np.int16)
            grown[:self._used] = self.buf[:self._used]
            self.buf = grown
        self.buf[self._used:need] = codes_of
        self.registry.tdesc[tid, 0] = self._used
        self._used = need
        self.keymap[self.registry.tables[tid].key] = tid
        self._placed.add(tid)
        self._tables.pop(tid, None)  # the buffer holds it now
        return True

    def _forget(self) -> None:
        """Empty the buffer (a search holding the old one keeps its copy)."""
        self.buf = np.zeros(1 << 20, dtype=np.int16)
        self._used = 0
        self._placed.clear()
        self._ready.clear()
        self.keymap = np.full(KEY_SPACE, -1, dtype=np.int64)

    def reachable(self, row: np.ndarray) -> list[Material]:
        """The canonical materials of at most MAX_PIECES pieces that the game can reach from
        the position `row` by captures and at most two promotions, nearest first (fewest
        such changes; its own material first when it is small enough), at most
        SEARCH_TABLES of them; [] when the position has castling
        rights or more than SEARCH_FROM_PIECES pieces."""
        if int(row[P_CASTLE]) or sum(int(row[c * 8 + OCC]).bit_count() for c in (0, 1)) > SEARCH_FROM_PIECES:
            return []
        counts = [int(row[(c // 6) * 8 + c % 6]).bit_count() for c in range(12)]
        key = tuple(counts)
        cached = self._reachable.get(key)
        if cached is None:
            cached = self._reachable[key] = _reachable_materials(counts)
        return cached

    def search_tables(self, row: np.ndarray, wait: bool = False):
        """The (limit, tdesc, keymap, buf) a search from `row` probes below its root: the
        tables reachable from it that are ready, in a snapshot no later loading disturbs.
        Tables not read yet are read by a background thread (lzma), for later searches;
        `wait` reads them first.  limit[0] is MAX_PIECES, or 0 when no table is loaded."""
        wanted = []  # nearest first, as many as SEARCH_MEMORY holds
        room = SEARCH_MEMORY // 2
        reachable = self.reachable(row)
        own = own_material(row)
        if own is not None:  # what the root probe needs comes first, whatever the bound on the rest
            first = [own] + dependencies(own)
            reachable = first + [m for m in reachable if m not in first]
        for material in reachable:
            if material.size <= room:
                wanted.append(self.registry.tid[material])
                room -= material.size
        with self._lock:
            ready = [t for t in wanted if t in self._placed or t in self._tables or (wait and t not in self._missing)]
            self._make_room(ready)
            later = []
            started = time.perf_counter()
            for tid in wanted:
                if tid in self._placed or tid in self._missing:
                    continue
                if wait or (tid in self._tables and time.perf_counter() - started < 0.02):
                    self._place(tid)  # copies: a few milliseconds a table, so only so many a move
                elif tid not in self._tables:
                    later.append(tid)
            for tid in set(self._tables) - set(wanted):  # read for an earlier position: no longer needed
                del self._tables[tid]
            if later:
                self._request(later)
            limit = np.array([MAX_PIECES if self._placed else 0], dtype=np.int64)
            return limit, self.registry.tdesc.copy(), self.keymap.copy(), self.buf

    def _request(self, tids: list[int]) -> None:
        """Have the background thread read `tids` next (before what it was asked earlier).
        Call with the lock held."""
        self._wanted = (list(tids) + [t for t in self._wanted if t not in tids])[:2 * SEARCH_TABLES]
        if self._loader is None or not self._loader.is_alive():
            self._loader = threading.Thread(target=self._load_wanted, name="tablebase-loader", daemon=True)
            self._loader.start()

    def _load_wanted(self) -> None:
        """Background thread: read the wanted tables into memory (placing them is left to
        the next search, between searches)."""
        while True:
            with self._lock:
                if not self._wanted:
                    return
                tid = self._wanted.pop(0)
                if tid in self._placed or tid in self._tables or tid in self._missing:
                    continue
                path = table_path(self.directory, self.variant, self.registry.tables[tid])
            started = time.perf_counter()
            try:
                header, table = read_table(path)
            except (OSError, ValueError):
                with self._lock:
                    self._missing.add(tid)
                continue
            with self._lock:
                self._tables[tid] = table
                self._note_read(table.shape[0], time.perf_counter() - started)

    def dtz_table(self, material: Material, wait: bool) -> np.ndarray | None:
        """The DTZ companion of `material`'s table (None when it has none).  Without `wait`,
        one not read yet is read by a thread of its own and this call answers None."""
        with self._lock:
            if material in self._dtz:
                return self._dtz[material]
            if not wait:
                if material not in self._dtz_reading:
                    self._dtz_reading.add(material)
                    threading.Thread(target=self.dtz_table, args=(material, True), daemon=True,
                                     name="tablebase-dtz").start()
                return None
        try:
            _, codes = read_table(table_path(self.directory, self.variant, material, "dtz"))
        except (OSError, ValueError):
            codes = None
        with self._lock:
            if len(self._dtz) >= 8:  # a few endings at a time
                self._dtz.pop(next(iter(self._dtz)))
            self._dtz[material] = codes
            self._dtz_reading.discard(material)
        return codes


def _reachable_materials(counts: list[int]) -> list[Material]:
    """`TableStore.reachable` for the piece counts per code (colour * 6 + type)."""
    total = sum(counts)
    found: dict[Material, int] = {}
    for kept in itertools.product(*(range(n + 1) for n in counts)):
        size = sum(kept)
        if not 2 <= size <= MAX_PIECES:
            continue
        codes = tuple(c for c in range(12) for _ in range(kept[c]))
        options = {codes: 0}
        for promotions in (1, 2):
            for option in [o for o, p in options.items() if p == promotions - 1]:
                for i, code in enumerate(option):
                    if code % 6 == 0:
                        for t in range(1, 6):
                            options.setdefault(tuple(sorted(option[:i] + (code + t,) + option[i + 1:])), promotions)
        for option, promotions in options.items():
            if any(c < 6 for c in option) and any(c >= 6 for c in option):
                material = Material(option).canonical()
                changes = total - size + promotions
                if changes < found.get(material, 99):
                    found[material] = changes
    return sorted(found, key=lambda m: (found[m], -m.pieces, m.name))[:SEARCH_TABLES]

"""Lazy SMP: helper threads that search the same position as the main thread, sharing
only the transposition table (and so each other's results) with it.

Each helper runs its own iterative deepening on its own copies of the stack, move and
ordering arrays; helpers start at varied depths so they do not all search the same tree in
step, and stop when the main search ends or on a stop.  The main thread alone decides and
reports.
"""

from __future__ import annotations

import threading

import numpy as np

from .alphabeta import search_root
from .scores import INFINITY
from .state import CONTROL_CHECK_MASK, CONTROL_SIZE, CONTROL_STOP, STATE_STOPPED, ProbeTables, ThreadArrays
from .tt import TranspositionTable


class Helper:
    """One helper thread's arrays, reused from search to search."""

    def __init__(self):
        self.arrays = ThreadArrays()
        self.table_work = np.zeros(64, dtype=np.int64)

    def prepare(self, stack, mlist, history, excluded: list[int], tables: ProbeTables) -> None:
        """Copy the position (with its history rows) and the main thread's move history;
        probe the main thread's endgame tables (with scratch space of its own)."""
        self.tables = tables._replace(work=self.table_work)
        self.stack = stack.copy()
        self.mlist = mlist.copy()
        self.arrays.history[:] = history
        self.arrays.fit(stack.shape[0])
        self.arrays.state[:] = 0
        self.arrays.killers[:] = 0
        self.arrays.exclude(excluded)

    def run(self, tt: TranspositionTable, control, network, idx: int, rules, first_depth: int,
            max_depth: int) -> None:
        """Iterative deepening from `first_depth` until the main search ends or is stopped.
        (Keeping helpers a ply or two ahead of the main thread's depth instead was tried:
        the main thread then needed more nodes to reach a depth, not fewer.)"""
        bundle = self.arrays.bundle(tt, control, self.tables, network)
        depth = first_depth
        while depth <= max_depth and not control[CONTROL_STOP]:
            self.arrays.state[STATE_STOPPED] = 0
            search_root(self.stack, np.int64(idx), np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY),
                        rules, self.mlist, bundle)
            depth += 1


class Helpers:
    """The helper threads of one Searcher and their shared control array."""

    def __init__(self):
        self.control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        self.pool: list[Helper] = []
        self.active: list[Helper] = []
        self.threads: list[threading.Thread] = []

    def stop(self) -> None:
        """Ask the running helpers to return (thread-safe)."""
        self.control[CONTROL_STOP] = 1

    def start(self, count: int, check_mask: int, tt: TranspositionTable, network, stack, mlist, history,
              idx: int, rules, excluded: list[int], tables: ProbeTables, max_depth: int) -> None:
        """Start `count` helpers on copies of the search arrays."""
        self.control[:] = 0
        self.control[CONTROL_CHECK_MASK] = check_mask
        while len(self.pool) < count:
            self.pool.append(Helper())
        self.active = self.pool[:count]
        self.threads = []
        for number, helper in enumerate(self.active, 1):
            helper.prepare(stack, mlist, history, excluded, tables)
            thread = threading.Thread(target=helper.run, name=f"search-helper-{number}", daemon=True,
                                      args=(tt, self.control, network, idx, rules, 1 + number % 2, max_depth))
            thread.start()
            self.threads.append(thread)

    def join(self) -> None:
        """Stop the helpers and wait for them."""
        if self.threads:
            self.stop()
            for thread in self.threads:
                thread.join()
        self.threads = []
        self.active = []

    def total(self, field: int) -> int:
        """The sum of one state counter over the running helpers."""
        return sum(int(helper.arrays.state[field]) for helper in self.active)

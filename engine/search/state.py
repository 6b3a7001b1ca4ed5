"""The search kernels' state, in named bundles: what a search thread owns and what the
kernels read from it, allocated in one place.

`SearchArrays` is everything the alpha-beta kernels carry from node to node besides the
position stack: the transposition table, move-ordering tables, the principal variation,
counters, the stop flag, excluded root moves, the endgame tables and the network.  A new
search table is one more field here and one more line in `new_search_arrays`; the kernels
take the bundle whole (numba passes a named tuple's arrays as separate arguments, so it
costs nothing).

- state int64[STATE_SIZE]: counters the kernels write (nodes, seldepth, best root move...),
  and the depth of the running root iteration (STATE_ROOT_DEPTH).
- control int64[CONTROL_SIZE]: written by Python (stop flag, node limit, check mask).  The
  kernels read the stop flag with an atomic load (a plain load could be hoisted out of the
  loop) whenever the node count has no bit of control[CONTROL_CHECK_MASK] set: every 2048
  nodes compiled, every node interpreted.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..jit.modes import kernel, native
from ..rules.bitboards import MAX_MOVES
from .ordering import HISTORY_SHAPE
from .tt import TranspositionTable

MAX_PLY = 100  # plies from the root a search reaches at most (arrays are sized by it)

STATE_NODES, STATE_SELDEPTH, STATE_BEST_MOVE, STATE_ROOT_DONE, STATE_STOPPED, STATE_TBHITS, STATE_ROOT_DEPTH = range(7)
STATE_SIZE = 8
CONTROL_STOP, CONTROL_NODE_LIMIT, CONTROL_CHECK_MASK = range(3)
CONTROL_SIZE = 4
CHECK_INTERVAL = 2047  # control[CONTROL_CHECK_MASK] for compiled kernels
CORRECTION_BITS = 14
CORRECTION_SIZE = 1 << CORRECTION_BITS  # correction-history entries a side


class ProbeTables(NamedTuple):
    """The endgame tables as the search kernels probe them (engine.tablebase.indexing):
    limit int64[1] (positions of at most limit[0] pieces are probed; 0: none), the table
    descriptions, the material-key map, the square geometry, the codes of the tables in
    memory, and int64 scratch space of the probing thread's own."""

    limit: np.ndarray
    tdesc: np.ndarray
    keymap: np.ndarray
    geo: np.ndarray
    buf: np.ndarray
    work: np.ndarray


class SearchArrays(NamedTuple):
    """One search thread's arrays (the table is shared between threads).

    scores int32[rows, MAX_MOVES]: move-ordering scores by stack row; killers
    int32[MAX_PLY, 2]; history int32[4, 64, 64] (engine.search.ordering); correction int32[2, CORRECTION_SIZE]: the
    static score's learnt error by side to move and pawn structure; pv int32[MAX_PLY, MAX_PLY] and pv_length
    int64[MAX_PLY]: the principal variation of each ply; state and control (above);
    excluded int32[MAX_MOVES]: root moves not to search (0 = empty slot); tables: the
    ProbeTables; network: the evaluation network's weights (engine.search.network)."""

    scores: np.ndarray
    tt: TranspositionTable
    killers: np.ndarray
    history: np.ndarray
    correction: np.ndarray
    pv: np.ndarray
    pv_length: np.ndarray
    state: np.ndarray
    control: np.ndarray
    excluded: np.ndarray
    tables: ProbeTables
    network: np.ndarray


def own_cache_lines(size: int) -> np.ndarray:
    """A zeroed int64[size] on cache lines of its own: a search thread counts its nodes in
    it at every node, and a neighbour's writes to the same line would stall both threads."""
    line = 64 // 8
    buffer = np.zeros(size + 3 * line, dtype=np.int64)
    start = line + (-(buffer.ctypes.data // 8) % line)
    return buffer[start:start + size]


class ThreadArrays:
    """The arrays one search thread writes besides the shared table, reused from search to
    search; `bundle()` puts them with the shared parts into the kernels' SearchArrays."""

    def __init__(self):
        self.state = own_cache_lines(STATE_SIZE)
        self.killers = np.zeros((MAX_PLY, 2), dtype=np.int32)
        self.history = np.zeros(HISTORY_SHAPE, dtype=np.int32)
        self.correction = np.zeros((2, CORRECTION_SIZE), dtype=np.int32)
        self.pv = np.zeros((MAX_PLY, MAX_PLY), dtype=np.int32)
        self.pv_length = np.zeros(MAX_PLY, dtype=np.int64)
        self.scores = np.zeros((0, MAX_MOVES), dtype=np.int32)
        self.excluded = np.zeros(MAX_MOVES, dtype=np.int32)

    def fit(self, rows: int) -> None:
        """Grow the move-ordering scores to `rows` stack rows (the kernels index them by
        row, without bounds checks)."""
        if self.scores.shape[0] < rows:
            self.scores = np.zeros((rows, MAX_MOVES), dtype=np.int32)

    def exclude(self, codes: list[int]) -> None:
        """The root moves the next search must not search."""
        self.excluded[:] = 0
        self.excluded[:len(codes)] = codes

    def bundle(self, tt: TranspositionTable, control: np.ndarray, tables: ProbeTables,
               network: np.ndarray) -> SearchArrays:
        """These arrays with the shared ones, as the kernels take them."""
        return SearchArrays(self.scores, tt, self.killers, self.history, self.correction, self.pv, self.pv_length,
                            self.state, control, self.excluded, tables, network)


def no_tables(work: np.ndarray) -> ProbeTables:
    """The ProbeTables that probe nothing (the same types as real ones)."""
    from ..tablebase.indexing import GEO

    return ProbeTables(np.zeros(1, dtype=np.int64), np.zeros((1, 8), dtype=np.int64),
                       np.full(1, -1, dtype=np.int64), GEO, np.zeros(1, dtype=np.int16), work)


def _atomic_load(array, index):
    """array[index], read atomically (monotonic) and never kept in a register when compiled."""
    return array[index]


atomic_load = native("atomic_load", _atomic_load)


@kernel
def should_stop(state, control):
    """True once the search must return: stopped from outside (read every
    control[CONTROL_CHECK_MASK] + 1 nodes) or past its node limit; sets STATE_STOPPED."""
    if state[STATE_STOPPED]:
        return True
    nodes = state[STATE_NODES]
    if nodes & control[CONTROL_CHECK_MASK] == 0:
        if atomic_load(control, np.int64(CONTROL_STOP)) != 0:
            state[STATE_STOPPED] = 1
            return True
        limit = control[CONTROL_NODE_LIMIT]
        if limit > 0 and nodes >= limit:
            state[STATE_STOPPED] = 1
            return True
    return False

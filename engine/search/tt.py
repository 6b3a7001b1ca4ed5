"""The transposition table: its entry layout, named, and the only code that packs or
unpacks an entry.

The table is two arrays of the same power-of-two size: keys uint64 (the position's Zobrist
key) and data int64 (the packed entry; -1 where a probe finds nothing).  Slots come in
pairs: the first keeps the deepest entry, the second takes whatever the first does not, so
the many shallow quiescence entries cannot evict the deep ones.

An entry packs, from the lowest bit up:

    bits  0-19  move      the best or refuting move (engine.rules.bitboards move code)
    bits 20-35  score     the score + 32768, mates stored relative to the node (see below)
    bits 36-43  depth     the depth searched (forced quiescence nodes at depth 0)
    bits 44-45  bound     BOUND_EXACT, BOUND_LOWER or BOUND_UPPER

A mate score is stored as the distance from the node, not from the root: `store` adds the
node's ply to a winning mate score (subtracts it from a losing one) and `score` takes it
off again at the probing node's ply.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..jit.modes import kernel, native
from .scores import MATE_BOUND

BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 1, 2, 3

MOVE_MASK = 0xFFFFF  # bits 0-19
SCORE_SHIFT = 20
SCORE_MASK = 0xFFFF
SCORE_OFFSET = 32768
DEPTH_SHIFT = 36
DEPTH_MASK = 255
BOUND_SHIFT = 44
BOUND_MASK = 3
ENTRY_BYTES = 16  # key and data


class TranspositionTable(NamedTuple):
    """The table's two arrays (see the module docstring)."""

    keys: np.ndarray
    data: np.ndarray


class Entry(NamedTuple):
    """An entry unpacked, for Python code (the kernels use the field kernels below)."""

    move: int
    score: int  # as stored: mates relative to the node
    depth: int
    bound: int


def new_table(hash_mb: int) -> TranspositionTable:
    """An empty table of the largest power-of-two size in `hash_mb` MiB (at least 1024 slots)."""
    entries = 1 << max(10, (hash_mb * 1024 * 1024 // ENTRY_BYTES).bit_length() - 1)
    return TranspositionTable(np.zeros(entries, dtype=np.uint64), np.zeros(entries, dtype=np.int64))


def clear(table: TranspositionTable) -> None:
    """Empty every slot."""
    table.keys[:] = 0
    table.data[:] = 0


def hashfull(table: TranspositionTable) -> int:
    """Permille of the first thousand slots in use."""
    sample = table.keys[:1000]
    return int(np.count_nonzero(sample) * 1000 // len(sample))


def read(table: TranspositionTable, key) -> Entry | None:
    """The entry stored for `key` unpacked, or None."""
    entry = int(probe(table.keys, table.data, np.uint64(key)))
    if entry < 0:
        return None
    return Entry(entry & MOVE_MASK, ((entry >> SCORE_SHIFT) & SCORE_MASK) - SCORE_OFFSET,
                 (entry >> DEPTH_SHIFT) & DEPTH_MASK, (entry >> BOUND_SHIFT) & BOUND_MASK)


@kernel
def entry_move(entry):
    """The move packed in an entry."""
    return entry & MOVE_MASK


@kernel
def entry_depth(entry):
    """The search depth packed in an entry."""
    return (entry >> DEPTH_SHIFT) & DEPTH_MASK


@kernel
def entry_bound(entry):
    """The bound packed in an entry."""
    return (entry >> BOUND_SHIFT) & BOUND_MASK


@kernel
def entry_score(entry, ply):
    """The score packed in an entry, as seen from a node `ply` plies from the root."""
    score = ((entry >> SCORE_SHIFT) & SCORE_MASK) - SCORE_OFFSET
    if score > MATE_BOUND:
        score -= ply
    elif score < -MATE_BOUND:
        score += ply
    return score


@kernel
def pack(move, score, depth, bound):
    """An entry of these fields (score as stored; depth capped at 255)."""
    return ((move & MOVE_MASK) | ((score + SCORE_OFFSET) << SCORE_SHIFT) | (min(depth, DEPTH_MASK) << DEPTH_SHIFT)
            | (bound << BOUND_SHIFT))


def _no_prefetch(array, index):
    pass


_prefetch = native("prefetch", _no_prefetch)


@kernel
def slot_of(keys, key):
    """The first slot of the pair that holds `key`."""
    return np.int64(key & np.uint64(keys.shape[0] - 2))


@kernel
def prefetch(keys, data, key):
    """Start loading the pair of slots of `key` into the caches (a 64 MB table misses them
    on nearly every probe), so that the work done before the probe hides the wait."""
    slot = slot_of(keys, key)
    _prefetch(keys, slot)
    _prefetch(data, slot)


@kernel
def probe(keys, data, key):
    """The entry stored for `key`, or -1."""
    slot = slot_of(keys, key)
    if keys[slot] == key:
        return data[slot]
    if keys[slot + 1] == key:
        return data[slot + 1]
    return np.int64(-1)


@kernel
def store(keys, data, key, move, score, depth, bound, ply):
    """Store an entry for `key` found `ply` plies from the root, in its pair of slots: the
    first keeps the deepest entry, the second takes whatever the first does not.  A deeper
    entry for the same key is kept unless the new one is exact; a store without a move
    keeps the old entry's move."""
    slot = slot_of(keys, key)
    if keys[slot] != key and (keys[slot + 1] == key or entry_depth(data[slot]) > depth):
        slot += 1
    old = data[slot]
    if keys[slot] == key and old >= 0 and entry_depth(old) > depth and bound != BOUND_EXACT:
        return
    if score > MATE_BOUND:
        score += ply
    elif score < -MATE_BOUND:
        score -= ply
    if move == 0 and keys[slot] == key and old >= 0:
        move = entry_move(old)
    keys[slot] = key
    data[slot] = pack(move, score, depth, bound)

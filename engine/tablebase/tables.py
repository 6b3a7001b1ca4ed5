"""Endgame tables for the losing variants (antichess, suicide; giveaway uses antichess's),
built by retrograde analysis on the rules core's own kernels and probed from Python.

Layout.  A table holds every position of one material combination (2 to 4 pieces, each
side at least one; kings are ordinary pieces) with either side to move.  The pieces fill
fixed slots (their codes `color * 6 + type` in ascending order); slot 0's square is
symmetry-reduced: to the 10-square triangle a1-d1-d4 in pawnless tables (8 symmetries of
the square), to files a-d in tables with pawns (left-right mirror), every other slot takes
any of the 64 squares.  index = side_to_move * S + r0 * 64**(n-1) + sq1 * 64**(n-2) + ...
Indexes whose squares clash, or with a pawn on the first or last rank, are INVALID.
Colour symmetry: only one of a material and its colour-reversed twin is stored (the side
with more, then stronger, pieces is white); a position of the other is probed flipped
(colours swapped, board mirrored top to bottom, other side to move).  Positions are
indexed without an en-passant square or castling rights: a position right after a double
step with an en-passant capture possible is valued by a one-ply search over its
successors (in the compulsory-capture rule sets every successor is a capture, so it lies
in a smaller table), both while building and while probing.

Values.  Each entry is an int16 code for the side to move: 0 draw, d + 1 a win in d plies,
-(d + 1) a loss in d plies, INVALID for an impossible index.  The distance counts plies
to the end of the game by the rules (no pieces, no move, piece count), with best play:
the winner ends it as fast as possible, the loser as late as possible.  Draw rules that
need history or counters (repetition, 50 moves) are not applied.

Building.  Materials are built in order of piece count, then pawn count: every capture
leads into a smaller table and every promotion into a table with fewer pawns, both built
before.  For one table, a forward pass over all indexes (`_scan`) takes each position's
moves from `movegen.legal_moves`, marks positions without a move by `game_status`, values
the successors outside the table and lists the successors inside it.  A plain move (no
promotion, double step or other special kind) moves one piece, so its successor's index
is computed from the decoded squares; every other move is made with `make_move`.  The
successor lists are then turned into predecessor lists (a counting sort), and the values
spread backwards by distance, one ply per round (a loss at d-1 makes its predecessors
wins at d; a predecessor whose successors are all wins becomes a loss at one more than
the longest); positions waiting for a known later distance sit in per-distance buckets.
What stays open is a draw.

DTZ companions.  A table with a win longer than DTZ_FROM_PLIES plies (40 of the 714
antichess 4-piece-or-fewer tables) also gets `<material>.actz`: for each position the
plies to the next capture or pawn move (or the end of the game) under the fifty-move
rule, the winner heading for the next capture or pawn move, the loser putting it off.
It is built by the same forward pass with every capture and pawn move counted as one
ply out of the table (`_scan` with `zeroing`), solved once ignoring the rule and then
again reading each capture or pawn move's result from the companions below (a win the
rule draws counting as a draw), until the pawn moves inside the table settle; a
position whose allowed distance would pass 100 plies, or whose win only goes through
such positions, is stored as CURSED + the distance ignoring the rule (see `_dtz_codes`).
At the root, a win too long for the clock is played by the companion (engine.searcher).

Files.  `<dir>/<variant>/<material>.actb`: the magic `ACTB`, a 4-byte header length, a
JSON header (format version, rule set, material, piece slots, size, build seconds,
statistics), then the table's codes compressed with lzma (xz).  Format 2 (written now)
stores int8 codes when every code fits (else int16 little-endian), with each INVALID
entry replaced by the entry before it (the reader marks them again from the index
layout, `valid_mask`); format 1 (int16 codes as they are) is still read.  Each file is
written to a temporary name and moved into place, so a killed build keeps every
finished table and a new build starts at the first table missing.
"""

from __future__ import annotations

import itertools
import json
import lzma
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..rules import movegen
from ..rules.status import game_status
from ..jit.cache import cache_root
from ..jit.modes import kernel, uses_kernels
# Compiled on first build or probe, not by `antichess warmup`; they make arrays, so they are
# compiled with numba's runtime.
from ..jit.modes import allocating_kernel as table_kernel
from ..rules.bitboards import (
    CAPTURE_FLAG, MAX_MOVES, MOVE_NORMAL, NO_SQUARE, OCC, ONE, P_CASTLE, P_EP, P_SIDE, POS_SIZE, ZERO, count, lsb,
)
from ..rules.rulesets import get_rule_set

FORMAT_VERSION = 2  # 1: int16 codes, lzma preset 6; 2: int8/int16 codes, invalid entries filled (see encode_table)
READABLE_FORMATS = (1, 2)
LZMA_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
MAGIC = b"ACTB"
MAX_PIECES = 4
SEARCH_MEMORY = 1 << 30  # bytes of tables (int16 codes) a Tablebase holds for the search at most
SEARCH_TABLES = 24  # tables a search from one position asks for at most, nearest first
SECONDS_PER_ENTRY = 2.5e-8  # reading and placing a table, per entry (measured on a 4-piece probe: 20-40 ns)
FIFTY_MOVE_PLIES = 100  # plies without a capture or pawn move that draw (rule sets with draw rules)
CURSED = 1000  # DTZ companions: |code| >= CURSED marks a win the fifty-move rule draws (a loss it saves)
DTZ_FROM_PLIES = 98  # a table whose longest win is longer gets a DTZ companion (`needs_dtz`)
SEARCH_FROM_PIECES = 6  # a search from more pieces asks for no tables (it seldom reaches them)
NOT_READ = "tables not read yet"  # a probe that would have to wait for the disk
INVALID = -32768
INF = 32767
TYPE_LETTERS = "PNBRQK"  # piece types 0..5, as in engine.bitboards
KEY_SPACE = 13 ** MAX_PIECES
CHANGES_MATERIAL = CAPTURE_FLAG | (7 << 12)  # move bits: a capture, or a promotion type
KIND_BITS = 7 << 15
PLAIN = MOVE_NORMAL << 15
NOT_PLAIN = CHANGES_MATERIAL | KIND_BITS  # a plain quiet move has none of these bits but its kind
TABLE_VARIANTS = {"antichess": "antichess", "giveaway": "antichess", "suicide": "suicide"}

# ---------------------------------------------------------------------------------------
# Geometry: geo[0] triangle index of a square (-1 outside), geo[1] half-board index,
# geo[2 + s] the square under symmetry s (s = 1 is the left-right mirror), geo[10] the
# triangle's squares, geo[11] the half board's squares.


def _geometry() -> np.ndarray:
    geo = np.full((12, 64), -1, dtype=np.int64)
    triangle = [f + 8 * r for r in range(4) for f in range(r, 4)]
    half = [f + 8 * r for r in range(8) for f in range(4)]
    for i, square in enumerate(triangle):
        geo[0, square] = i
        geo[10, i] = square
    for i, square in enumerate(half):
        geo[1, square] = i
        geo[11, i] = square
    for s in range(8):
        for square in range(64):
            f, r = square & 7, square >> 3
            if s & 1:
                f = 7 - f
            if s & 2:
                r = 7 - r
            if s & 4:
                f, r = r, f
            geo[2 + s, square] = f + 8 * r
    return geo


GEO = _geometry()
GEO.setflags(write=False)
TRIANGLE_SIZE = 10
HALF_SIZE = 32


# ---------------------------------------------------------------------------------------
# Materials


@dataclass(frozen=True)
class Material:
    """A material combination: piece codes (color * 6 + type) in ascending order."""

    codes: tuple[int, ...]

    @property
    def pieces(self) -> int:
        return len(self.codes)

    @property
    def pawnful(self) -> bool:
        return any(code % 6 == 0 for code in self.codes)

    @property
    def pawns(self) -> int:
        return sum(code % 6 == 0 for code in self.codes)

    @property
    def slot_size(self) -> int:
        """S: positions for one side to move."""
        return (HALF_SIZE if self.pawnful else TRIANGLE_SIZE) * 64 ** (self.pieces - 1)

    @property
    def size(self) -> int:
        return 2 * self.slot_size

    @property
    def name(self) -> str:
        """'KQvN' style: white's letters, 'v', black's letters, strongest first."""
        def side(color):
            types = sorted((c % 6 for c in self.codes if c // 6 == color), reverse=True)
            return "".join(TYPE_LETTERS[t] for t in types)
        return side(0) + "v" + side(1)

    @property
    def key(self) -> int:
        return material_key(self.codes)

    def flipped(self) -> "Material":
        return Material(tuple(sorted((c + 6) % 12 for c in self.codes)))

    def canonical(self) -> "Material":
        return self if _canonical_rank(self) >= _canonical_rank(self.flipped()) else self.flipped()

    @classmethod
    def parse(cls, name: str) -> "Material":
        white, _, black = name.upper().partition("V")
        codes = [TYPE_LETTERS.index(c) for c in white] + [6 + TYPE_LETTERS.index(c) for c in black]
        return cls(tuple(sorted(codes)))


def _canonical_rank(material: Material):
    def side(color):
        types = sorted((c % 6 for c in material.codes if c // 6 == color), reverse=True)
        return (len(types), types)
    return side(0), side(1)


def material_key(codes) -> int:
    key = 0
    for code in sorted(codes, reverse=True):
        key = key * 13 + code + 1
    return key


def materials(max_pieces: int) -> list[Material]:
    """Every canonical material of 2..max_pieces pieces, in build order (pieces, then pawns)."""
    found = set()
    for n in range(2, max_pieces + 1):
        for white in range(1, n):
            for w in itertools.combinations_with_replacement(range(6), white):
                for b in itertools.combinations_with_replacement(range(6), n - white):
                    found.add(Material(tuple(sorted(list(w) + [6 + t for t in b]))).canonical())
    return sorted(found, key=lambda m: (m.pieces, m.pawns, m.name))


def dependencies(material: Material) -> list[Material]:
    """The canonical materials one move away (a capture, a promotion, or both), present in tables."""
    out = set()
    codes = list(material.codes)
    options = [codes]
    for i, code in enumerate(codes):
        if code % 6 == 0:
            for t in range(1, 6):
                options.append(codes[:i] + [code + t] + codes[i + 1:])
    for option in options:
        candidates = [option] + [option[:j] + option[j + 1:] for j in range(len(option))]
        for candidate in candidates:
            if candidate is codes:
                continue
            if len(candidate) < 2 or not any(c < 6 for c in candidate) or not any(c >= 6 for c in candidate):
                continue
            out.add(Material(tuple(sorted(candidate))).canonical())
    out.discard(material)
    return sorted(out, key=lambda m: (m.pieces, m.pawns, m.name))


# ---------------------------------------------------------------------------------------
# Kernels


@table_kernel
def _negate(code):
    """The code for the mover from the code of the position after its move."""
    if code > 0:
        return -(code + 1)
    if code < 0:
        return 1 - code
    return code


@table_kernel
def _preference(code):
    """Higher is better for the side to move: quick wins, then draws, then long losses."""
    if code > 0:
        return np.int64(100000) - code
    if code < 0:
        return np.int64(-100000) - code
    return np.int64(0)


@table_kernel
def _terminal_code(stack, r, rules, mlist):
    """INF when stack[r] goes on, else its code for the side to move (distance 0)."""
    status = game_status(stack, r, rules, mlist)
    if status < 0:
        return np.int64(INF)
    result = status % 3
    if result == 2:
        return np.int64(0)
    if result == np.int64(stack[r, P_SIDE]):
        return np.int64(1)
    return np.int64(-1)


@kernel  # the search kernels probe through it: compiled by the warm-up
def _locate(stack, r, tdesc, keymap, geo, work):
    """(table id, index) of the position stack[r] (no en-passant square), or (-1, -1).
    (Rows are indexed in place: a row view costs reference counting in the inner loop.)"""
    key = np.int64(0)
    flipped_key = np.int64(0)
    n = np.int64(0)
    for c in range(11, -1, -1):
        k = count(stack[r, (c // 6) * 8 + c % 6])
        n += k
        for _ in range(k):
            key = key * 13 + c + 1
        o = (c + 6) % 12  # the code whose colour-reversed code is c
        k = count(stack[r, (o // 6) * 8 + o % 6])
        for _ in range(k):
            flipped_key = flipped_key * 13 + c + 1
    if n < 2 or n > 4:
        return np.int64(-1), np.int64(-1)
    flip = 0
    tid = keymap[key]
    if tid < 0:
        tid = keymap[flipped_key]
        flip = 1
        if tid < 0:
            return np.int64(-1), np.int64(-1)
    return tid, _index_in(stack, r, tid, flip, tdesc, geo, work)


@kernel  # the search kernels probe through it: compiled by the warm-up
def table_code(stack, r, tdesc, keymap, geo, buf, work):
    """The code of stack[r] (both sides with pieces, no en-passant square, no castling
    right) in the tables loaded in `buf`, or INVALID when its table is not among them.
    (The search kernels probe through this.)"""
    tid, index = _locate(stack, r, tdesc, keymap, geo, work)
    if tid < 0 or index < 0:
        return np.int64(INVALID)
    return np.int64(buf[tdesc[tid, 0] + index])


@kernel  # the search kernels probe through it: compiled by the warm-up
def _index_in(stack, r, tid, flip, tdesc, geo, work):
    """The index of stack[r] in table `tid`, whose material it has (colours reversed if `flip`)."""
    n = tdesc[tid, 1]
    stm = np.int64(stack[r, P_SIDE])
    if flip:
        stm = 1 - stm
    # the squares in slot order (in the table's colour frame)
    k = 0
    while k < n:
        c = tdesc[tid, 4 + k]
        o = (c + 6) % 12 if flip else c
        bb = stack[r, (o // 6) * 8 + o % 6]
        while bb:
            square = lsb(bb)
            bb &= bb - ONE
            work[k] = square ^ 56 if flip else square
            k += 1
    return _squares_index(tid, stm, work, tdesc, geo)


@kernel  # the search kernels probe through it: compiled by the warm-up
def _squares_index(tid, stm, squares, tdesc, geo):
    """The index in table `tid` of the position with `stm` to move and the pieces on
    squares[0..n) in slot order (pieces of one code in ascending square order), before
    the symmetry that brings slot 0 into its triangle or half board."""
    n = tdesc[tid, 1]
    first = squares[0]
    f = first & 7
    rank = first >> 3
    sym = 0
    if tdesc[tid, 2]:
        if f > 3:
            sym = 1
        index = geo[1, geo[3 if sym else 2, first]]
    else:
        if f > 3:
            sym |= 1
            f = 7 - f
        if rank > 3:
            sym |= 2
            rank = 7 - rank
        if rank > f:
            sym |= 4
        index = geo[0, geo[2 + sym, first]]
    for k in range(1, n):
        index = index * 64 + geo[2 + sym, squares[k]]
    return stm * tdesc[tid, 3] + index


@table_kernel
def _decode(tid, index, tdesc, geo, row, squares):
    """Write the position of `index` in table `tid` into `row` and its squares, in slot
    order, into squares[0..n); False if the index is invalid."""
    n = tdesc[tid, 1]
    pawnful = tdesc[tid, 2]
    size = tdesc[tid, 3]
    for i in range(POS_SIZE):
        row[i] = ZERO
    stm = index // size
    rest = index % size
    occupied = ZERO
    for k in range(n - 1, -1, -1):
        if k == 0:
            square = geo[11 if pawnful else 10, rest]
        else:
            square = rest % 64
            rest //= 64
        bit = ONE << np.uint64(square)
        if occupied & bit:
            return False
        code = tdesc[tid, 4 + k]
        if code % 6 == 0 and (square < 8 or square >= 56):
            return False
        occupied |= bit
        squares[k] = square
        color = code // 6
        row[color * 8 + code % 6] |= bit
        row[color * 8 + OCC] |= bit
    row[P_SIDE] = np.uint64(stm)
    row[P_EP] = np.uint64(NO_SQUARE)
    return True


@table_kernel
def _plain_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current):
    """Code of stack[r] (no en-passant square) from the tables in `buf`.  Returns
    (code, index): index >= 0 means the position is in table `current` (code undefined);
    code INVALID with index -1: not in any table given."""
    if stack[r, OCC] == ZERO or stack[r, 8 + OCC] == ZERO:
        return _terminal_code(stack, r, rules, mlist), np.int64(-1)
    tid, index = _locate(stack, r, tdesc, keymap, geo, work)
    if tid < 0 or index < 0:
        return np.int64(INVALID), np.int64(-1)
    if tid == current:
        return np.int64(0), index
    return np.int64(buf[tdesc[tid, 0] + index]), np.int64(-1)


@table_kernel
def _successor_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current):
    """Like `_plain_value`, but a position with an en-passant square is valued by a
    one-ply search over its successors (which must lie outside table `current`)."""
    if np.int64(stack[r, P_EP]) == NO_SQUARE:
        return _plain_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current)
    terminal = _terminal_code(stack, r, rules, mlist)
    if terminal != INF:
        return terminal, np.int64(-1)
    n = movegen.legal_moves(stack, r, rules, mlist)
    best = np.int64(INVALID)
    for i in range(n):
        movegen.make_move(stack, r, r + 1, mlist[r, i], rules)
        code, index = _plain_value(stack, r + 1, rules, mlist, tdesc, keymap, geo, buf, work, current)
        if code == INVALID or index >= 0:
            return np.int64(INVALID), np.int64(-1)
        mine = _negate(code)
        if best == INVALID or _preference(mine) > _preference(best):
            best = mine
    return best, np.int64(-1)


@table_kernel
def _sort_groups(tid, squares, tdesc):
    """Put the squares of each run of equal codes of table `tid` in ascending order (the
    slot order `_index_in` uses), in place."""
    n = tdesc[tid, 1]
    for j in range(1, n):
        code = tdesc[tid, 4 + j]
        square = squares[j]
        i = j
        while i > 0 and tdesc[tid, 3 + i] == code and squares[i - 1] > square:
            squares[i] = squares[i - 1]
            i -= 1
        squares[i] = square


@table_kernel
def _moved_index(tid, stm, squares, origin, target, moved, tdesc, geo):
    """The index in table `tid`, with `stm` to move, of the position whose pieces stand on
    squares[0..n) (slot order) except that the piece on `origin` now stands on `target`:
    the successor of a plain quiet move, without making it."""
    n = tdesc[tid, 1]
    for j in range(n):
        moved[j] = target if squares[j] == origin else squares[j]
    _sort_groups(tid, moved, tdesc)
    return _squares_index(tid, stm, moved, tdesc, geo)


@table_kernel
def _scan(tid, lo, hi, rules, tdesc, keymap, geo, buf, stack, mlist, work, squares, moved, successors,
          st, dist, cnt, extwin, extloss, hasdraw, edges, state, zeroing):
    """Forward pass over indexes [lo, hi) of table `tid`: classify each position (st: 0
    open, 1 win, 2 loss, 3 draw, 4 invalid), value its successors outside the table, and
    append the index of each successor inside it to `edges` (so the successors of p
    follow those of p - 1: cnt[p] of them).  A position with no legal move (or a side
    without pieces) is valued by `game_status`; in the compulsory-capture rule sets a
    position with a legal move is never over.

    The moves come from `legal_moves`.  A move of kind MOVE_NORMAL moves one piece (and
    promotes it, and removes the piece on its target if it captures), so its successor's
    index is computed from the squares instead of making the move: a quiet one in this
    table (one digit changes, or `_moved_index`), any other in the table that
    `successors` names (see `_successor_slots`).  Every other move (double step, en
    passant, a capture that ends the game) is made with `make_move` and valued by
    `_successor_value`.  state[0] is the edge count, state[1] counts successors no table
    could value (an error).  Returns the index where it stopped: hi, or earlier when
    `edges` is nearly full.

    With `zeroing` set (the DTZ pass), every capture and pawn move counts as a move out of
    the table at distance 1 whatever its value's distance (a pawn move that stays in the
    table takes its value from this table's own DTM codes, held in `buf` at table `tid`'s
    offset), and only the other moves are edges: the solved distance is then the plies to
    the next capture or pawn move (or the end of the game)."""
    capacity = edges.shape[0]
    own = tdesc[tid, 0]
    slot_size = tdesc[tid, 3]
    n_slots = tdesc[tid, 1]
    region = 1 if tdesc[tid, 2] else 0  # geo row: slot 0's index, -1 off its triangle / half
    # a quiet move of the piece in slot k, alone with its code, changes digit k only (for
    # k = 0: if it stays on the triangle / half board, so the symmetry stays the identity):
    # the digit's place value, or 0 if the piece shares its code
    place = np.zeros(MAX_PIECES, dtype=np.int64)
    for k in range(n_slots):
        code = tdesc[tid, 4 + k]
        if (k == 0 or tdesc[tid, 3 + k] != code) and (k + 1 == n_slots or tdesc[tid, 5 + k] != code):
            place[k] = np.int64(1) << (6 * (n_slots - 1 - k))
    first = np.zeros(MAX_PIECES, dtype=np.int64)  # the first and last slot of each slot's code
    last = np.zeros(MAX_PIECES, dtype=np.int64)
    for k in range(n_slots):
        first[k] = k
        while first[k] > 0 and tdesc[tid, 3 + first[k]] == tdesc[tid, 4 + k]:
            first[k] -= 1
        last[k] = k
        while last[k] + 1 < n_slots and tdesc[tid, 5 + last[k]] == tdesc[tid, 4 + k]:
            last[k] += 1
    slot_of = np.zeros(64, dtype=np.int64)
    e = state[0]  # kept in a local: stores into `edges` could otherwise alias it
    for p in range(lo, hi):
        if e + MAX_MOVES > capacity:
            state[0] = e
            return p
        if not _decode(tid, np.int64(p), tdesc, geo, stack[0], squares):
            st[p] = 4
            continue
        n = movegen.legal_moves(stack, 0, rules, mlist)
        if n == 0:
            terminal = _terminal_code(stack, 0, rules, mlist)
            dist[p] = 0
            st[p] = 3 if terminal == 0 else (1 if terminal > 0 else 2)
            continue
        for k in range(n_slots):
            slot_of[squares[k]] = k
        after = 1 - p // slot_size  # the side to move after a move
        turned = p + (2 * after - 1) * slot_size  # p with the other side to move
        inside = 0
        for i in range(n):
            move = np.int64(mlist[0, i])
            origin = move & 63
            target = (move >> 6) & 63
            k = slot_of[origin]
            pawn_move = zeroing != 0 and tdesc[tid, 4 + k] % 6 == 0
            if (move & NOT_PLAIN) == PLAIN:
                delta = place[k]
                if delta and k:
                    edges[e] = turned + (target - origin) * delta
                elif delta and geo[region, target] >= 0:
                    edges[e] = turned + (geo[region, target] - geo[region, origin]) * delta
                elif first[k] > 0:  # slot 0 stays (so does the symmetry); re-sort the code's squares
                    for j in range(n_slots):
                        moved[j] = squares[j]
                    moved[k] = target
                    a = first[k]
                    for j in range(a + 1, last[k] + 1):
                        square = moved[j]
                        m = j
                        while m > a and moved[m - 1] > square:
                            moved[m] = moved[m - 1]
                            m -= 1
                        moved[m] = square
                    index = geo[region, squares[0]]
                    for j in range(1, n_slots):
                        index = index * 64 + moved[j]
                    edges[e] = after * slot_size + index
                else:
                    edges[e] = _moved_index(tid, after, squares, origin, target, moved, tdesc, geo)
                if not pawn_move:
                    e += 1
                    inside += 1
                    continue
            code = np.int64(INVALID)
            index = np.int64(-1)
            into = np.int64(-1)
            v = np.int64(MAX_PIECES)
            t = np.int64(0)
            if (move & NOT_PLAIN) == PLAIN:  # a pawn's quiet step in the DTZ pass: its index is in edges[e]
                code = np.int64(buf[own + edges[e]])
            elif (move & KIND_BITS) == PLAIN:
                v = slot_of[target] if move & CAPTURE_FLAG else MAX_PIECES
                t = (move >> 12) & 7
                into = successors[k, v, t, 0]
            if into >= 0:
                flip = successors[k, v, t, 1]
                for j in range(tdesc[into, 1]):
                    source = successors[k, v, t, 2 + j]
                    square = target if source == k else squares[source]
                    moved[j] = square ^ 56 if flip else square
                _sort_groups(into, moved, tdesc)
                code = np.int64(buf[tdesc[into, 0] + _squares_index(into, after ^ flip, moved, tdesc, geo)])
            else:
                movegen.make_move(stack, 0, 1, move, rules)
                if (move & CHANGES_MATERIAL) == 0 and np.int64(stack[1, P_EP]) == NO_SQUARE:
                    # a quiet move without promotion stays in this table, in its colour frame
                    code = np.int64(0)
                    index = _index_in(stack, np.int64(1), tid, np.int64(0), tdesc, geo, work)
                    if pawn_move:  # a double step: in the DTZ pass, valued from this table's DTM codes
                        code = np.int64(buf[own + index])
                        index = np.int64(-1)
                else:
                    code, index = _successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work, tid)
            if index >= 0:
                edges[e] = index
                e += 1
                inside += 1
                continue
            if code == INVALID:
                state[1] += 1
                continue
            mine = _negate(code)
            if zeroing != 0 and mine != 0:
                mine = np.int64(2) if mine > 0 else np.int64(-2)  # a capture or pawn move: distance 1
            if mine > 0:
                if mine - 1 < extwin[p]:
                    extwin[p] = mine - 1
            elif mine < 0:
                if -mine - 1 > extloss[p]:
                    extloss[p] = -mine - 1
            else:
                hasdraw[p] = 1
        cnt[p] = inside
    state[0] = e
    return hi


@table_kernel
def _predecessors(cnt, edges, nedges, offsets, preds):
    """Counting sort of the edges by successor: preds[offsets[q]:offsets[q+1]] lists q's
    predecessors.  The successors of p are the cnt[p] entries of `edges` after those of
    p - 1."""
    size = cnt.shape[0]
    for e in range(nedges):
        offsets[edges[e]] += 1
    for q in range(1, size):
        offsets[q] += offsets[q - 1]
    offsets[size] = nedges
    e = np.int64(0)
    for p in range(size):  # offsets[q] counts down from the end of q's list to its start
        for _ in range(cnt[p]):
            q = edges[e]
            e += 1
            offsets[q] -= 1
            preds[offsets[q]] = p


@table_kernel
def _solve(st, dist, cnt, extwin, extloss, hasdraw, offsets, preds, link, queue, codes):
    """Spread the values backwards by distance (see the module text); fill `codes`.
    Returns the number of rounds.  queue lists the positions in the order they are
    resolved (round d handles those resolved at d - 1); a position that will be won or
    lost at a known later distance through its successors outside the table waits in
    that distance's bucket (a linked list through `link`)."""
    size = st.shape[0]
    head = np.full(INF + 1, -1, dtype=np.int64)
    tail = np.int64(0)
    scheduled = np.int64(0)
    for p in range(size):
        s = st[p]
        if s == 1 or s == 2:
            queue[tail] = p
            tail += 1
        elif s == 0:
            later = np.int64(-1)
            if extwin[p] < INF:
                later = np.int64(extwin[p])
            elif cnt[p] == 0 and hasdraw[p] == 0:
                later = np.int64(extloss[p])
            if later >= 0:
                link[p] = head[later]
                head[later] = p
                if later > scheduled:
                    scheduled = later
    start = np.int64(0)
    d = np.int64(1)
    while True:
        end = tail
        for i in range(start, end):
            q = queue[i]
            lost = st[q] == 2
            for e in range(offsets[q], offsets[q + 1]):
                p = preds[e]
                if st[p] != 0:
                    continue
                if lost:
                    st[p] = 1
                    dist[p] = d
                    queue[tail] = p
                    tail += 1
                else:
                    cnt[p] -= 1
                    if cnt[p] == 0 and extwin[p] == INF and hasdraw[p] == 0:
                        last = max(d, np.int64(extloss[p]))
                        if last == d:
                            st[p] = 2
                            dist[p] = d
                            queue[tail] = p
                            tail += 1
                        else:
                            link[p] = head[last]
                            head[last] = p
                            if last > scheduled:
                                scheduled = last
        p = head[d]
        while p >= 0:
            if st[p] == 0:
                st[p] = 1 if extwin[p] == d else 2
                dist[p] = d
                queue[tail] = p
                tail += 1
            p = link[p]
        start = end
        if start == tail and d >= scheduled:
            break
        d += 1
    for p in range(size):
        s = st[p]
        if s == 1:
            codes[p] = dist[p] + 1
        elif s == 2:
            codes[p] = -(dist[p] + 1)
        elif s == 4:
            codes[p] = INVALID
        else:
            codes[p] = 0
    return d


@table_kernel
def _root_moves(stack, rules, mlist, tdesc, keymap, geo, buf, work, moves, codes):
    """Every legal move of stack[0] with the code, for the mover, of the position after it
    (INVALID when a successor is outside the loaded tables).  Returns the number of moves,
    or -1 when the game is over (then codes[0] holds the terminal code)."""
    terminal = _terminal_code(stack, 0, rules, mlist)
    if terminal != INF:
        codes[0] = terminal
        return np.int64(-1)
    n = movegen.legal_moves(stack, 0, rules, mlist)
    for i in range(n):
        moves[i] = mlist[0, i]
        movegen.make_move(stack, 0, 1, mlist[0, i], rules)
        code, index = _successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work, np.int64(-1))
        codes[i] = INVALID if code == INVALID else _negate(code)
    return np.int64(n)


@table_kernel
def _locate_many(rows, tdesc, keymap, geo, work, tids, indexes):
    for i in range(rows.shape[0]):
        tid, index = _locate(rows, np.int64(i), tdesc, keymap, geo, work)
        tids[i] = tid
        indexes[i] = index


@table_kernel
def _verify(tid, rules, tdesc, keymap, geo, buf, stack, mlist, work, bad):
    """Check every position of table `tid` (held in `buf` with its dependencies) against
    its successors: a win in d has a move to a loss in d-1 and none faster, a loss has only
    moves to wins and the slowest takes d-1, a draw has no winning move and a drawing one;
    a position without moves carries `game_status`'s value.  Returns the number of
    positions that break this; their indexes go into `bad` (as many as fit)."""
    offset = tdesc[tid, 0]
    size = 2 * tdesc[tid, 3]
    wrong = np.int64(0)
    squares = np.zeros(MAX_PIECES, dtype=np.int64)
    for p in range(size):
        stored = np.int64(buf[offset + p])
        if not _decode(tid, np.int64(p), tdesc, geo, stack[0], squares):
            if stored != INVALID:
                if wrong < bad.shape[0]:
                    bad[wrong] = p
                wrong += 1
            continue
        n = movegen.legal_moves(stack, 0, rules, mlist)
        if n == 0:
            best = _terminal_code(stack, 0, rules, mlist)
            if best != 0 and best != 1 and best != -1:
                best = INVALID
        else:
            best = np.int64(INVALID)
            for i in range(n):
                movegen.make_move(stack, 0, 1, mlist[0, i], rules)
                code, index = _successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work,
                                               np.int64(-1))
                if code == INVALID:
                    best = np.int64(INVALID)
                    break
                mine = _negate(code)
                if best == INVALID or _preference(mine) > _preference(best):
                    best = mine
        if best != stored:
            if wrong < bad.shape[0]:
                bad[wrong] = p
            wrong += 1
    return wrong


# ---------------------------------------------------------------------------------------
# Registry of tables for the kernels


class _Registry:
    """tdesc rows and the key map for a list of materials; buf holds their codes."""

    def __init__(self, tables: list[Material]):
        self.tables = list(tables)
        self.tdesc = np.zeros((max(1, len(tables)), 8), dtype=np.int64)
        self.keymap = np.full(KEY_SPACE, -1, dtype=np.int64)
        for tid, material in enumerate(tables):
            self.tdesc[tid, 1] = material.pieces
            self.tdesc[tid, 2] = int(material.pawnful)
            self.tdesc[tid, 3] = material.slot_size
            for k, code in enumerate(material.codes):
                self.tdesc[tid, 4 + k] = code
            self.keymap[material.key] = tid
        self.tid = {material: tid for tid, material in enumerate(tables)}


# ---------------------------------------------------------------------------------------
# Files


def default_directory() -> Path:
    """Where `antichess tablebase build` writes and the engine looks by default:
    $ANTICHESS_TABLEBASE_DIR, else a `tablebases` folder beside the numba cache."""
    explicit = os.environ.get("ANTICHESS_TABLEBASE_DIR")
    if explicit:
        return Path(explicit)
    if os.environ.get("ANTICHESS_CACHE_DIR"):
        return cache_root() / "tablebases"
    return cache_root().parent / "tablebases"


def table_variant(variant: str) -> str:
    """The rule set whose tables serve `variant`; ValueError for rule sets without tables."""
    name = get_rule_set(variant).name
    if name not in TABLE_VARIANTS:
        raise ValueError(f"no endgame tables for {name} (only {', '.join(TABLE_VARIANTS)})")
    return TABLE_VARIANTS[name]


def table_path(directory, variant: str, material: Material, metric: str = "dtm") -> Path:
    """The file of `material`'s table: `.actb` for the DTM table, `.actz` for its DTZ companion."""
    suffix = {"dtm": "actb", "dtz": "actz"}[metric]
    return Path(directory) / table_variant(variant) / f"{material.name}.{suffix}"


def needs_dtz(header: dict) -> bool:
    """Whether a DTM table (by its header) gets a DTZ companion: some win in it is longer
    than DTZ_FROM_PLIES, so a win played by DTM alone could meet the fifty-move rule even
    from a clock just reset."""
    return any((header["stats"][side]["longest_win"] or 0) > DTZ_FROM_PLIES for side in ("white", "black"))


def valid_mask(material: Material) -> np.ndarray:
    """A bool per index of `material`'s table: False where the index is INVALID (two
    pieces on one square, or a pawn on the first or last rank), as `_decode` decides."""
    first = GEO[11, :HALF_SIZE] if material.pawnful else GEO[10, :TRIANGLE_SIZE]
    n = material.pieces
    axes = [first] + [np.arange(64)] * (n - 1)
    shape = [len(a) for a in axes]
    grids = [a.reshape([-1 if j == k else 1 for j in range(n)]) for k, a in enumerate(axes)]
    valid = np.ones(shape, dtype=bool)
    for k, (code, grid) in enumerate(zip(material.codes, grids)):
        if code % 6 == 0:
            valid &= (grid >= 8) & (grid < 56)
        for j in range(k):
            valid &= grids[j] != grid
    return np.tile(valid.ravel(), 2)


@table_kernel
def _fill_invalid(codes, out):
    """out[i] = codes[i], an INVALID entry replaced by the last valid one before it (0 at
    the start); returns the largest magnitude of a valid code."""
    last = np.int16(0)
    largest = np.int64(0)
    for i in range(codes.shape[0]):
        code = codes[i]
        if code != INVALID:
            last = code
            if abs(np.int64(code)) > largest:
                largest = abs(np.int64(code))
        out[i] = last
    return largest


def encode_table(header: dict, codes: np.ndarray) -> bytes:
    """The compressed payload of a table (format 2): the codes as int8 when every valid
    code fits (else int16 little-endian), each INVALID entry replaced by the value before
    it (the reader restores them from `valid_mask`), compressed with lzma (xz container).
    Records the encoding and the compression seconds in `header`."""
    started = time.perf_counter()
    filled = np.empty(codes.shape[0], dtype=np.int16)
    small = int(_fill_invalid(codes, filled)) <= 127
    data = filled.astype(np.int8 if small else "<i2").tobytes()
    payload = lzma.compress(data, format=lzma.FORMAT_XZ, filters=LZMA_FILTERS)
    header["encoding"] = "int8" if small else "int16"
    header["compress_seconds"] = round(time.perf_counter() - started, 3)
    return payload


def write_table(path: Path, header: dict, payload: bytes) -> int:
    """Write a table file atomically (temporary file, fsync, then os.replace); returns its size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(header, sort_keys=True).encode()
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC + len(head).to_bytes(4, "little") + head + payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)  # mkstemp makes it private
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return path.stat().st_size


def read_header(path: Path) -> dict:
    """The JSON header of a table file; ValueError if it is not one."""
    with open(path, "rb") as handle:
        start = handle.read(8)
        if len(start) != 8 or start[:4] != MAGIC:
            raise ValueError(f"{path}: not an endgame table")
        length = int.from_bytes(start[4:], "little")
        return json.loads(handle.read(length))


def read_table(path: Path) -> tuple[dict, np.ndarray]:
    """(header, int16 codes) of a table file of format 1 or 2; ValueError for anything else."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path}: not an endgame table")
    length = int.from_bytes(data[4:8], "little")
    header = json.loads(data[8:8 + length])
    version = header.get("format")
    if version not in READABLE_FORMATS:
        raise ValueError(f"{path}: format {version}, this engine reads formats "
                         f"{', '.join(map(str, READABLE_FORMATS))}")
    raw = lzma.decompress(data[8 + length:])
    if version == 1:
        codes = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    else:
        encoding = header.get("encoding")
        if encoding not in ("int8", "int16"):
            raise ValueError(f"{path}: unknown encoding {encoding!r}")
        codes = np.frombuffer(raw, dtype=np.int8 if encoding == "int8" else "<i2").astype(np.int16)
    if codes.shape[0] != header["size"]:
        raise ValueError(f"{path}: {codes.shape[0]} entries, header says {header['size']}")
    if version != 1:
        codes[~valid_mask(Material(tuple(header["codes"])))] = INVALID
    return header, codes


def _valid_table(path: Path, variant: str, material: Material, metric: str = "dtm") -> bool:
    try:
        header = read_header(path)
    except (OSError, ValueError):
        return False
    return (header.get("format") in READABLE_FORMATS and header.get("variant") == variant
            and header.get("material") == material.name and header.get("metric", "dtm") == metric)


# ---------------------------------------------------------------------------------------
# Building


def table_stats(codes: np.ndarray, slot_size: int) -> dict:
    """Won/drawn/lost counts per side to move and the longest win (plies)."""
    out = {}
    for side, name in ((0, "white"), (1, "black")):
        part = codes[side * slot_size:(side + 1) * slot_size]
        valid = part[part != INVALID]
        wins = valid[valid > 0]
        out[name] = {
            "win": int(wins.size), "draw": int(np.count_nonzero(valid == 0)),
            "loss": int(np.count_nonzero(valid < 0)),
            "longest_win": int(wins.max() - 1) if wins.size else None,
        }
    return out


def _successor_slots(material: Material, registry: "_Registry") -> np.ndarray:
    """For `_scan`: entry [k, v, t] says where a move of the piece in slot k leads that
    takes the piece in slot v (v = MAX_PIECES: no capture) and promotes to type t (0:
    none): the table id (-1 when a side is left without pieces, the table is not in
    `registry`, or the move stays in this table), whether its colours are reversed (as
    `_locate` decides), and for each of its slots the slot of `material` whose piece
    fills it (the moving piece's slot standing for its target square)."""
    n = material.pieces
    out = np.full((MAX_PIECES, MAX_PIECES + 1, 6, 2 + MAX_PIECES), -1, dtype=np.int64)
    for k, v, t in itertools.product(range(n), range(MAX_PIECES + 1), range(6)):
        if v == k or (v < MAX_PIECES and (v >= n or material.codes[v] // 6 == material.codes[k] // 6)):
            continue
        if t and material.codes[k] % 6 != 0:
            continue
        if v == MAX_PIECES and not t:
            continue  # a quiet move stays in this table
        rest = [(code + t if slot == k else code, slot) for slot, code in enumerate(material.codes) if slot != v]
        if not any(code < 6 for code, _ in rest) or not any(code >= 6 for code, _ in rest):
            continue
        raw = Material(tuple(sorted(code for code, _ in rest)))
        canonical = raw.canonical()
        if canonical not in registry.tid:
            continue
        flip = canonical != raw
        order = sorted(((code + 6) % 12 if flip else code, slot) for code, slot in rest)
        assert tuple(code for code, _ in order) == canonical.codes
        out[k, v, t, 0] = registry.tid[canonical]
        out[k, v, t, 1] = int(flip)
        for j, (_, slot) in enumerate(order):
            out[k, v, t, 2 + j] = slot
    return out


class Workspace:
    """Arrays one builder thread reuses from table to table: a fresh table would otherwise
    map (and the kernel zero) about a gigabyte of new pages for each 4-piece table."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def array(self, name: str, n: int, dtype, fill=None, whole: bool = False) -> np.ndarray:
        """n entries (all it holds if `whole`) of the array `name`, grown when too short,
        set to `fill` unless None."""
        held = self._arrays.get(name)
        if held is None or held.dtype != np.dtype(dtype) or held.shape[0] < n:
            held = self._arrays[name] = np.empty(max(n, 1), dtype=dtype)
        out = held if whole else held[:n]
        if fill is not None:
            out.fill(fill)
        return out

    def keep(self, name: str, array: np.ndarray) -> None:
        """Hold `array` (a grown replacement) as `name`."""
        self._arrays[name] = array


@uses_kernels
def build_table(variant: str, material: Material, directory,
                progress: Callable[[int], None] | None = None, chunk: int = 1 << 16,
                loaded: dict | None = None, workspace: Workspace | None = None, metric: str = "dtm") -> dict:
    """Build one table (its dependencies must be on disk) and write it; returns its header.
    `progress(n)` is called with the number of positions just scanned; `loaded` caches the
    codes of tables read (up to 3 pieces), `workspace` the working arrays of one thread.
    metric "dtz" builds the DTZ companion of a DTM table already on disk (`_dtz_codes`;
    the companions of the tables it depends on must be built first) and writes it as `.actz`."""
    if metric not in ("dtm", "dtz"):
        raise ValueError(f"unknown metric {metric!r} (dtm or dtz)")
    ws = workspace if workspace is not None else Workspace()
    variant = table_variant(variant)
    started = time.perf_counter()
    deps = dependencies(material)
    registry = _Registry(deps + [material])
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
        codes, timing = _retrograde(variant, material, registry, buf, ws, progress, chunk, 0)
        stats = table_stats(codes, material.slot_size)
        distance = "plies to the end of the game"
    else:
        codes, timing = _dtz_codes(variant, material, registry, parts, deps, directory, ws, progress, chunk)
        del parts
        stats = _dtz_stats(codes, material.slot_size)
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


def _retrograde(variant, material, registry, buf, ws, progress, chunk, zeroing) -> tuple[np.ndarray, dict]:
    """One forward pass (`_scan`) and one backward solve (`_solve`) of `material`, the last
    table of `registry`, with the codes of the others in `buf`; (codes, timing)."""
    rules = get_rule_set(variant).to_array()
    current = np.int64(len(registry.tables) - 1)
    size = material.size
    st = ws.array("st", size, np.uint8, 0)
    dist = ws.array("dist", size, np.int16, 0)
    cnt = ws.array("cnt", size, np.int16, 0)
    extwin = ws.array("extwin", size, np.int16, INF)
    extloss = ws.array("extloss", size, np.int16, 0)
    hasdraw = ws.array("hasdraw", size, np.uint8, 0)
    stack = np.zeros((8, POS_SIZE), dtype=np.uint64)
    mlist = np.zeros((8, MAX_MOVES), dtype=np.int32)
    work = np.zeros(64, dtype=np.int64)
    squares = np.zeros(MAX_PIECES, dtype=np.int64)
    moved = np.zeros(MAX_PIECES, dtype=np.int64)
    successors = _successor_slots(material, registry)
    edges = ws.array("edges", max(4 * MAX_MOVES, min(size * 6, 1 << 27)), np.int32, whole=True)
    state = np.zeros(2, dtype=np.int64)
    scan_seconds = 0.0
    for lo in range(0, size, chunk):
        hi = min(size, lo + chunk)
        t0 = time.perf_counter()
        at = lo
        while at < hi:
            at = int(_scan(current, np.int64(at), np.int64(hi), rules, registry.tdesc, registry.keymap, GEO,
                           buf, stack, mlist, work, squares, moved, successors, st, dist, cnt, extwin, extloss,
                           hasdraw, edges, state, np.int64(zeroing)))
            if at < hi:  # the edge array is nearly full: grow it
                edges = np.concatenate([edges, np.empty(edges.shape[0] // 2, dtype=np.int32)])
                ws.keep("edges", edges)
        scan_seconds += time.perf_counter() - t0
        if progress is not None:
            progress(hi - lo)
    if state[1]:
        raise RuntimeError(f"{material.name}: {int(state[1])} successors outside the tables")
    t0 = time.perf_counter()
    nedges = int(state[0])
    offsets = ws.array("offsets", size + 1, np.int64, 0)
    preds = ws.array("preds", max(1, nedges), np.int32)
    _predecessors(cnt, edges, np.int64(nedges), offsets, preds)
    link = ws.array("link", size, np.int32)
    queue = ws.array("queue", size, np.int32)
    codes = np.empty(size, dtype=np.int16)
    rounds = int(_solve(st, dist, cnt, extwin, extloss, hasdraw, offsets, preds, link, queue, codes))
    return codes, {"scan": scan_seconds, "solve": time.perf_counter() - t0, "rounds": rounds, "edges": nedges,
                   "passes": 1}


def _classes(codes: np.ndarray) -> np.ndarray:
    """DTZ-companion codes as the fifty-move pass reads them: 2 a win the rule allows, -2 a
    loss it does not save, 0 a draw or a win it draws (a loss it saves), INVALID kept."""
    out = np.where((codes == 0) | (np.abs(codes.astype(np.int32)) >= CURSED), 0, 2 * np.sign(codes))
    out = out.astype(np.int16)
    out[codes == INVALID] = INVALID
    return out


def _dtz_codes(variant, material, registry, parts, deps, directory, ws, progress, chunk):
    """The DTZ companion's codes of `material` (`parts`: the DTM codes of `deps`, then its own).

    First the plain distance to zeroing: every capture and pawn move counts as one ply
    whatever comes after it (the values equal the DTM table's, which is checked).  Then the
    fifty-move rule: a position after a capture or pawn move is a win the rule allows only
    if its own plain distance to zeroing, through such wins, is at most 100 plies.  That
    pass reads each successor across a capture or pawn move as a win, a loss or (a win the
    rule draws, or a loss it saves) a draw, from the companions of the tables it depends on
    and, for pawn moves inside the table, from the previous pass over this table, repeated
    until nothing changes (a pawn move cannot be undone, so this ends).  The codes are
    those of that pass where its value is a win or loss within 100 plies; where it is not
    (the rule draws a win that ignoring it is one), `CURSED` + the plain distance, signed."""
    dtm = parts[-1]
    timing = {"scan": 0.0, "solve": 0.0, "rounds": 0, "edges": 0, "passes": 0}

    def run(buf):
        codes, spent = _retrograde(variant, material, registry, buf, ws, progress, chunk, 1)
        for key in ("scan", "solve"):
            timing[key] += spent[key]
        timing["rounds"] = max(timing["rounds"], spent["rounds"])
        timing["edges"] = spent["edges"]
        timing["passes"] += 1
        return codes

    plain = run(np.concatenate(parts))
    differ = int(np.count_nonzero(np.sign(plain) != np.sign(dtm)))
    if differ:
        raise RuntimeError(f"{material.name}: the DTZ pass values {differ} positions unlike the DTM table")
    classes = []
    for dep, codes in zip(deps, parts):
        companion = table_path(directory, variant, dep, "dtz")
        if needs_dtz(read_header(table_path(directory, variant, dep))):
            if not _valid_table(companion, variant, dep, "dtz"):
                raise RuntimeError(f"{material.name}: build the DTZ companion of {dep.name} first")
            codes = read_table(companion)[1]
        classes.append(_classes(codes))
    own = _classes(plain)
    for _ in range(64):
        ruled = run(np.concatenate(classes + [own]))
        allowed = np.abs(ruled.astype(np.int32)) - 1 <= FIFTY_MOVE_PLIES
        settled = np.where(allowed, ruled, 0).astype(np.int16)
        settled[plain == INVALID] = INVALID
        if np.any((np.sign(settled) != 0) & (np.sign(settled) != np.sign(plain))):
            raise RuntimeError(f"{material.name}: the fifty-move pass turns a value around")
        if not material.pawnful or np.array_equal(_classes(settled), own):
            break
        own = _classes(settled)
    else:
        raise RuntimeError(f"{material.name}: the fifty-move pass does not settle")
    magnitude = CURSED + np.abs(plain.astype(np.int32))
    codes = np.where(settled != 0, settled, np.sign(plain) * magnitude).astype(np.int16)
    codes[plain == INVALID] = INVALID
    return codes, timing


def _dtz_stats(codes: np.ndarray, slot_size: int) -> dict:
    """`table_stats` of a DTZ companion, wins the fifty-move rule draws counted apart
    ("cursed_win", "blessed_loss"); longest_win: the longest allowed distance to zeroing."""
    wide = codes.astype(np.int32)
    ruled = np.where(np.abs(wide) >= CURSED, 0, wide).astype(np.int16)
    ruled[codes == INVALID] = INVALID
    out = table_stats(ruled, slot_size)
    for side, name in ((0, "white"), (1, "black")):
        part = wide[side * slot_size:(side + 1) * slot_size]
        out[name]["cursed_win"] = int(np.count_nonzero(part >= CURSED))
        out[name]["blessed_loss"] = int(np.count_nonzero((part <= -CURSED) & (part != INVALID)))
        out[name]["draw"] -= out[name]["cursed_win"] + out[name]["blessed_loss"]
    return out


def closure(wanted) -> list[Material]:
    """`wanted` materials and everything they depend on, in build order."""
    out, todo = set(), [Material.parse(m).canonical() if isinstance(m, str) else m.canonical() for m in wanted]
    while todo:
        material = todo.pop()
        if material not in out:
            out.add(material)
            todo.extend(dependencies(material))
    return sorted(out, key=lambda m: (m.pieces, m.pawns, m.name))


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
    pending = [m for m in todo if not _valid_table(table_path(directory, variant, m), variant, m)]
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
                  and not _valid_table(table_path(directory, variant, m, "dtz"), variant, m, "dtz")]
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
    successors' entries (see `_verify`); an empty list for a consistent table."""
    variant = table_variant(variant)
    rules = get_rule_set(variant).to_array()
    tables = dependencies(material) + [material]
    registry = _Registry(tables)
    parts, offset = [], 0
    for tid, table in enumerate(tables):
        _, codes = read_table(table_path(directory, variant, table))
        registry.tdesc[tid, 0] = offset
        offset += codes.shape[0]
        parts.append(codes)
    bad = np.zeros(limit, dtype=np.int64)
    wrong = int(_verify(np.int64(len(tables) - 1), rules, registry.tdesc, registry.keymap, GEO,
                        np.concatenate(parts), np.zeros((8, POS_SIZE), dtype=np.uint64),
                        np.zeros((8, MAX_MOVES), dtype=np.int32), np.zeros(64, dtype=np.int64), bad))
    return [int(i) for i in bad[:min(wrong, limit)]] + ([-1] if wrong > limit else [])


# ---------------------------------------------------------------------------------------
# Probing


@dataclass
class ProbeResult:
    """value 'win'/'draw'/'loss' for the side to move, distance in plies (0 for draws),
    and the moves (UCI) that keep the value, best first (for a loss: every move, longest
    resistance first)."""

    value: str
    distance: int
    moves: list[str]
    codes: list[int]


class TablebaseError(ValueError):
    """The position is not in the tables (too many pieces, castling rights, missing file)."""


def _rank(code: int) -> int:
    """`_preference` in Python: higher is better for the side to move."""
    return 100000 - code if code > 0 else (-100000 - code if code < 0 else 0)


def _value_name(code: int) -> str:
    return "win" if code > 0 else ("loss" if code < 0 else "draw")


class Tablebase:
    """Tables of one rule set in `directory`, loaded on first use."""

    def __init__(self, variant: str, directory=None):
        self.variant = table_variant(variant)
        self.rules = get_rule_set(self.variant)
        self._rules_array = self.rules.to_array()
        self.directory = Path(directory) if directory is not None else default_directory()
        self.registry = _Registry(materials(MAX_PIECES))
        self._tables: dict[int, np.ndarray] = {}
        self._missing: set[int] = set()
        self._stack = np.zeros((8, POS_SIZE), dtype=np.uint64)
        self._mlist = np.zeros((8, MAX_MOVES), dtype=np.int32)
        self._work = np.zeros(64, dtype=np.int64)
        self._moves = np.zeros(MAX_MOVES, dtype=np.int32)
        self._codes = np.zeros(MAX_MOVES, dtype=np.int64)
        self._buf = np.zeros(1 << 20, dtype=np.int16)  # every table loaded so far, one after another
        self._used = 0
        self._placed: set[int] = set()
        self._ready: set[Material] = set()
        self._keymap = np.full(KEY_SPACE, -1, dtype=np.int64)  # the tables in the buffer
        self.hits = 0
        self._lock = threading.RLock()  # the buffer, its key map and table offsets
        self._wanted: list[int] = []  # tables the background loader reads next, first first
        self._loader: threading.Thread | None = None
        self._reachable: dict[tuple, list[Material]] = {}  # by piece counts
        self._dtz: dict[Material, np.ndarray | None] = {}  # DTZ companions read (None: not on disk)
        self._dtz_reading: set[Material] = set()
        self._seconds_per_entry = SECONDS_PER_ENTRY

    def available(self) -> list[str]:
        folder = self.directory / self.variant
        return sorted(p.stem for p in folder.glob("*.actb")) if folder.is_dir() else []

    def max_pieces(self) -> int:
        names = self.available()
        return max((len(n) - 1 for n in names), default=0)

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
            self._seconds_per_entry = 0.7 * self._seconds_per_entry + 0.3 * 1.3 * seconds / entries

    def _prepare(self, row: np.ndarray, wait: bool = True) -> str | None:
        """Load every table one or two plies from `row` into the kernels' buffer; an error
        text or None.  Without `wait`, tables not yet read from disk are left to the
        background thread and the answer is an error text (NOT_READ)."""
        pieces = sum(int(row[c * 8 + OCC]).bit_count() for c in (0, 1))
        if pieces > MAX_PIECES:
            return f"{pieces} pieces (tables hold at most {MAX_PIECES})"
        if int(row[P_CASTLE]):
            return "castling rights"
        material = _own_material(row)
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
        own = _own_material(row)
        if own is None:
            return 0.0
        with self._lock:
            tids = self._unread([self.registry.tid[m] for m in [own] + dependencies(own)])
            entries = sum(self.registry.tables[t].size for t in tids)
            if own not in self._dtz and table_path(self.directory, self.variant, own, "dtz").exists():
                entries += own.size
            return self._seconds_per_entry * entries

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
                kept[tid] = self._buf[offset:offset + self.registry.tables[tid].size].copy()
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
        if need > self._buf.shape[0]:  # grow the shared buffer (doubling); searches keep the old one
            grown = np.zeros(max(need, min(2 * self._buf.shape[0], SEARCH_MEMORY // 2)), dtype=np.int16)
            grown[:self._used] = self._buf[:self._used]
            self._buf = grown
        self._buf[self._used:need] = codes_of
        self.registry.tdesc[tid, 0] = self._used
        self._used = need
        self._keymap[self.registry.tables[tid].key] = tid
        self._placed.add(tid)
        self._tables.pop(tid, None)  # the buffer holds it now
        return True

    def _forget(self) -> None:
        """Empty the buffer (a search holding the old one keeps its copy)."""
        self._buf = np.zeros(1 << 20, dtype=np.int16)
        self._used = 0
        self._placed.clear()
        self._ready.clear()
        self._keymap = np.full(KEY_SPACE, -1, dtype=np.int64)

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
        own = _own_material(row)
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
            return limit, self.registry.tdesc.copy(), self._keymap.copy(), self._buf

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

    @uses_kernels
    def probe_row(self, row: np.ndarray, wait: bool = True) -> ProbeResult:
        """Probe a position row (engine.bitboards layout).  TablebaseError if not in the tables."""
        error = self._prepare(row, wait)
        if error:
            raise TablebaseError(error)
        self._stack[0] = row
        n = int(_root_moves(self._stack, self._rules_array, self._mlist, self.registry.tdesc,
                            self._keymap, GEO, self._buf, self._work, self._moves, self._codes))
        if n < 0:
            code = int(self._codes[0])
            self.hits += 1
            return ProbeResult(_value_name(code), abs(code) - 1 if code else 0, [], [])
        codes = [int(c) for c in self._codes[:n]]
        if any(c == INVALID for c in codes):
            raise TablebaseError("a successor's table is missing")
        from ..rules.moves import Move

        order = sorted(range(n), key=lambda i: -_rank(codes[i]))
        best = codes[order[0]]
        if best < 0:
            keep = order
        else:
            keep = [i for i in order if _value_name(codes[i]) == _value_name(best)]
        self.hits += 1
        return ProbeResult(_value_name(best), abs(best) - 1 if best else 0,
                           [Move(int(self._moves[i])).uci() for i in keep], [codes[i] for i in keep])

    def _dtz_table(self, material: Material, wait: bool) -> np.ndarray | None:
        """The DTZ companion of `material`'s table (None when it has none).  Without `wait`,
        one not read yet is read by a thread of its own and this call answers None."""
        with self._lock:
            if material in self._dtz:
                return self._dtz[material]
            if not wait:
                if material not in self._dtz_reading:
                    self._dtz_reading.add(material)
                    threading.Thread(target=self._dtz_table, args=(material, True), daemon=True,
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

    @uses_kernels
    def zeroing_plies(self, game, moves: list, wait: bool = True) -> dict | None:
        """For each of `moves` (engine Moves, legal in `game`'s position), keyed by UCI text:
        (drawn, plies).  plies: the plies to the next capture or pawn move when it is played
        and both sides then follow the DTZ companion (1 for a capture or pawn move itself);
        drawn: the position after it is a win the fifty-move rule draws, or a loss it saves
        (read from its table's companion; a table without one has none).  None when the
        position's own table has no companion (or, without `wait`, it is not read yet)."""
        own = _own_material(game.position())
        if own is None or self._dtz_table(own, wait) is None:
            return None
        out = {}
        for move in moves:
            zeroing = zeroing_move(game, move)
            game.push(move)
            row = game.position()
            game.pop()
            code = self._companion_code(row, wait)
            drawn = abs(code) >= CURSED
            distance = (abs(code) - CURSED if drawn else abs(code)) if code else 0
            out[move.uci()] = (drawn, 1 if zeroing else distance)
        return out

    def _companion_code(self, row: np.ndarray, wait: bool) -> int:
        """The DTZ-companion code of the position `row` (0 when its table has no companion,
        or it is over or outside the tables)."""
        material = _own_material(row)
        if material is None or int(row[P_EP]) != NO_SQUARE:
            return 0
        dtz = self._dtz_table(material, wait)
        if dtz is None:
            return 0
        tids, indexes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        _locate_many(row[None, :], self.registry.tdesc, self.registry.keymap, GEO, np.zeros(64, dtype=np.int64),
                     tids, indexes)
        code = int(dtz[indexes[0]]) if indexes[0] >= 0 else 0
        return 0 if code == INVALID else code

    def probe(self, game, wait: bool = True) -> ProbeResult:
        """Probe a `Game`'s current position; without `wait`, TablebaseError(NOT_READ) while
        the tables it needs are still being read in the background (a player's clock runs)."""
        if table_variant(game.variant) != self.variant:
            raise TablebaseError(f"tables are for {self.variant}, game is {game.variant}")
        return self.probe_row(game.position(), wait)

    def probe_fen(self, fen: str) -> ProbeResult:
        from ..rules.fen import parse_fen

        return self.probe_row(parse_fen(fen, self.rules))

def zeroing_move(game, move) -> bool:
    """Whether `move` (legal in `game`) resets the halfmove clock: a capture or a pawn move."""
    return move.is_capture or game.piece_at(move.from_square) in ("P", "p")


def _own_material(row: np.ndarray) -> Material | None:
    """The canonical material of the position `row` when a table can hold it, else None."""
    codes = [c for c in range(12) for _ in range(int(row[(c // 6) * 8 + c % 6]).bit_count())]
    if not 2 <= len(codes) <= MAX_PIECES or not any(c < 6 for c in codes) or not any(c >= 6 for c in codes):
        return None
    return Material(tuple(codes)).canonical()


def _reachable_materials(counts: list[int]) -> list[Material]:
    """`Tablebase.reachable` for the piece counts per code (colour * 6 + type)."""
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


_OPEN: dict[tuple[str, str], tuple[Tablebase | None, float]] = {}
_RECHECK_SECONDS = 10.0  # how long "no tables in this folder" is believed


def open_tablebase(variant: str, directory=None) -> Tablebase | None:
    """A shared Tablebase for `variant` in `directory` (default folder when None), or None
    when the rule set has no tables or the folder holds none (checked again after a while)."""
    try:
        name = table_variant(variant)
    except ValueError:
        return None
    folder = Path(directory) if directory else default_directory()
    key = (name, str(folder))
    tb, checked = _OPEN.get(key, (None, 0.0))
    if tb is None and time.monotonic() - checked > _RECHECK_SECONDS:
        folder_of_tables = folder / name
        if folder_of_tables.is_dir() and any(folder_of_tables.glob("*.actb")):
            tb = Tablebase(name, folder)
        _OPEN[key] = (tb, time.monotonic())
    return tb


def decode_position(variant: str, material: Material, index: int) -> np.ndarray | None:
    """The position row of `index` in `material`'s table, or None for an invalid index."""
    registry = _Registry([material])
    row = np.zeros(POS_SIZE, dtype=np.uint64)
    squares = np.zeros(MAX_PIECES, dtype=np.int64)
    return row if _decode(np.int64(0), np.int64(index), registry.tdesc, GEO, row, squares) else None


def stats_markdown(variant: str, directory=None) -> str:
    """A Markdown table of every table in `directory`: won/drawn/lost per side to move,
    longest win, build seconds and file size (from the file headers)."""
    variant = table_variant(variant)
    directory = Path(directory) if directory is not None else default_directory()
    rows = []
    for material in materials(MAX_PIECES):
        path = table_path(directory, variant, material)
        if not path.exists():
            continue
        header = read_header(path)
        w, b = header["stats"]["white"], header["stats"]["black"]
        longest = max((x["longest_win"] or 0) for x in (w, b))
        header["file_bytes"] = path.stat().st_size
        rows.append((header, f"| {material.name} | {w['win']} / {w['draw']} / {w['loss']} | "
                             f"{b['win']} / {b['draw']} / {b['loss']} | {longest} | "
                             f"{header['build_seconds']:.2f} | {path.stat().st_size} |"))
    lines = [f"{variant}: {len(rows)} tables",
             "",
             "| material | white to move: won / drawn / lost | black to move: won / drawn / lost "
             "| longest win (plies) | build s | bytes |",
             "|---|---|---|---|---|---|"]
    lines += [row for _, row in rows]
    by_count: dict[int, list] = {}
    for header, _ in rows:
        by_count.setdefault(header["pieces"], []).append(header)
    lines.append("")
    for pieces, headers in sorted(by_count.items()):
        seconds = sum(h["build_seconds"] for h in headers)
        size = sum(h["file_bytes"] for h in headers)
        positions = sum(h["size"] for h in headers)
        scan = sum(h["scan_seconds"] for h in headers)
        lines.append(f"- {pieces} pieces: {len(headers)} tables, {positions} indexes, built in {seconds:.1f} s "
                     f"(generator {int(positions / scan) if scan else 0} positions/s), {size} bytes on disk")
    companions = []
    for material in materials(MAX_PIECES):
        path = table_path(directory, variant, material, "dtz")
        if path.exists():
            header = read_header(path)
            companions.append((material, header, path.stat().st_size))
    if companions:
        lines += ["", f"DTZ companions (fifty-move rule): {len(companions)}, "
                      f"built in {sum(h['build_seconds'] for _, h, _ in companions):.1f} s, "
                      f"{sum(b for _, _, b in companions)} bytes on disk", "",
                  "| material | white to move: won / drawn / lost | white: wins drawn by the rule / losses saved "
                  "| black to move: won / drawn / lost | black: wins drawn by the rule / losses saved "
                  "| longest allowed distance to zeroing (plies) | passes | bytes |",
                  "|---|---|---|---|---|---|---|---|"]
        for material, header, size in companions:
            w, b = header["stats"]["white"], header["stats"]["black"]
            longest = max((x["longest_win"] or 0) for x in (w, b))
            lines.append(f"| {material.name} | {w['win']} / {w['draw']} / {w['loss']} | {w['cursed_win']} / "
                         f"{w['blessed_loss']} | {b['win']} / {b['draw']} / {b['loss']} | {b['cursed_win']} / "
                         f"{b['blessed_loss']} | {longest} | {header['passes']} | {size} |")
    return "\n".join(lines)

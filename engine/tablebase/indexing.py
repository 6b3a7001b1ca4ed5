"""The index layout of the endgame tables: materials, the board geometry, and the
kernels that take a position to its (table, index) and an index back to its position.

A table holds every position of one material combination (2 to MAX_PIECES pieces, each
side at least one; kings are ordinary pieces) with either side to move.  The pieces fill
fixed slots (their codes `color * 6 + type` in ascending order); slot 0's square is
symmetry-reduced: to the 10-square triangle a1-d1-d4 in pawnless tables (8 symmetries of
the square), to files a-d in tables with pawns (left-right mirror), every other slot takes
any of the 64 squares.  index = side_to_move * S + r0 * 64**(n-1) + sq1 * 64**(n-2) + ...
Indexes whose squares clash, or with a pawn on the first or last rank, are INVALID.
Colour symmetry: only one of a material and its colour-reversed twin is stored (the side
with more, then stronger, pieces is white); a position of the other is probed flipped
(colours swapped, board mirrored top to bottom, other side to move).  Positions are
indexed without an en-passant square or castling rights (engine.tablebase.valuation values
a position with one by searching its successors).

The kernels see a list of tables as `tdesc` (a row per table: offset of its codes in the
buffer, piece count, pawnful, S, then its piece codes) and `keymap` (material key to table
id), both made by `Registry`.  The search kernels probe through `table_code`, and this
module imports nothing else of engine.tablebase.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..jit.modes import allocating_kernel, kernel
from ..rules.bitboards import NO_SQUARE, OCC, ONE, P_EP, P_SIDE, POS_SIZE, ZERO, count, lsb

MAX_PIECES = 4
INVALID = -32768  # the code of an index that is no position
TYPE_LETTERS = "PNBRQK"  # piece types 0..5, as in engine.rules.bitboards
KEY_SPACE = 13 ** MAX_PIECES


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
        """The material a name like 'KQvK' or 'RvK' gives (white's pieces, 'v', black's,
        in any order and case); ValueError, naming the problem, for anything else."""
        text = name.strip()
        if text.upper().count("V") != 1:
            raise ValueError(f"{name!r} is no material: write white's pieces, 'v', black's pieces (e.g. KQvK)")
        white, _, black = text.upper().partition("V")
        if not white or not black:
            raise ValueError(f"{name!r} is no material: each side needs at least one piece (e.g. KQvK)")
        for letter in white + black:
            if letter not in TYPE_LETTERS:
                raise ValueError(f"{name!r} is no material: unknown piece letter {letter!r} (one of {TYPE_LETTERS})")
        if len(white) + len(black) > MAX_PIECES:
            raise ValueError(f"{name!r} has {len(white) + len(black)} pieces: the tables go up to {MAX_PIECES}")
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


def closure(wanted) -> list[Material]:
    """`wanted` materials and everything they depend on, in build order."""
    out, todo = set(), [Material.parse(m).canonical() if isinstance(m, str) else m.canonical() for m in wanted]
    while todo:
        material = todo.pop()
        if material not in out:
            out.add(material)
            todo.extend(dependencies(material))
    return sorted(out, key=lambda m: (m.pieces, m.pawns, m.name))


def own_material(row: np.ndarray) -> Material | None:
    """The canonical material of the position `row` when a table can hold it, else None."""
    codes = [c for c in range(12) for _ in range(int(row[(c // 6) * 8 + c % 6]).bit_count())]
    if not 2 <= len(codes) <= MAX_PIECES or not any(c < 6 for c in codes) or not any(c >= 6 for c in codes):
        return None
    return Material(tuple(codes)).canonical()


# ---------------------------------------------------------------------------------------
# Kernels: position to index and back


@kernel  # the search kernels probe through it: compiled by the warm-up
def locate(stack, r, tdesc, keymap, geo, work):
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
    return tid, index_in(stack, r, tid, flip, tdesc, geo, work)


@kernel  # the search kernels probe through it: compiled by the warm-up
def table_code(stack, r, tdesc, keymap, geo, buf, work):
    """The code of stack[r] (both sides with pieces, no en-passant square, no castling
    right) in the tables loaded in `buf`, or INVALID when its table is not among them.
    (The search kernels probe through this.)"""
    tid, index = locate(stack, r, tdesc, keymap, geo, work)
    if tid < 0 or index < 0:
        return np.int64(INVALID)
    return np.int64(buf[tdesc[tid, 0] + index])


@kernel  # the search kernels probe through it: compiled by the warm-up
def index_in(stack, r, tid, flip, tdesc, geo, work):
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
    return squares_index(tid, stm, work, tdesc, geo)


@kernel  # the search kernels probe through it: compiled by the warm-up
def squares_index(tid, stm, squares, tdesc, geo):
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


@allocating_kernel
def decode(tid, index, tdesc, geo, row, squares):
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


@allocating_kernel
def locate_many(rows, tdesc, keymap, geo, work, tids, indexes):
    """`locate` for each row of `rows`: table ids into `tids`, indexes into `indexes`."""
    for i in range(rows.shape[0]):
        tid, index = locate(rows, np.int64(i), tdesc, keymap, geo, work)
        tids[i] = tid
        indexes[i] = index


# ---------------------------------------------------------------------------------------
# The kernels' view of a list of tables


class Registry:
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


def valid_mask(material: Material) -> np.ndarray:
    """A bool per index of `material`'s table: False where the index is INVALID (two
    pieces on one square, or a pawn on the first or last rank), as `decode` decides."""
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


def decode_position(variant: str, material: Material, index: int) -> np.ndarray | None:
    """The position row of `index` in `material`'s table, or None for an invalid index
    (the layout is the same under every rule set: `variant` does not change it)."""
    registry = Registry([material])
    row = np.zeros(POS_SIZE, dtype=np.uint64)
    squares = np.zeros(MAX_PIECES, dtype=np.int64)
    return row if decode(np.int64(0), np.int64(index), registry.tdesc, GEO, row, squares) else None

"""Board geometry, the position and move layouts, and the bit intrinsics.

Squares are numbered a1 = 0, b1 = 1, ..., h8 = 63.  A bitboard is a uint64 with bit s set
for square s.  Every table here is a small NumPy array built once at import; numba freezes
them into the compiled code (all together well under the 1 MB limit for cacheable globals).

Bitboard arithmetic must stay in uint64: in numba, `bb - 1` with a Python int makes an
int64, so the constants ONE, ZERO, ... are used instead.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel, native

ZERO = np.uint64(0)
ONE = np.uint64(1)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
H8_CORNER = np.uint64(1 << 63)  # the highest square, h8

# Piece types.  A piece's bitboard lives at position index color * 8 + type; index
# color * 8 + OCC holds all that color's pieces.
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, ANTIKING, OCC = range(8)
WHITE, BLACK = 0, 1
PIECE_LETTERS = "pnbrqka"

# Position layout: one uint64 row per position.
P_SIDE = 16  # side to move, 0 white / 1 black
P_EP = 17  # en-passant target square, NO_SQUARE when none
P_CASTLE = 18  # bits: 1 white short, 2 white long, 4 black short, 8 black long
P_LEAP = 19  # bits: 1 white king, 2 white anti-king, 4 black king, 8 black anti-king
P_HALFMOVE = 20  # plies since the last capture or pawn move
P_PLY = 21  # plies played since the rule set's start position
P_KEY = 22  # Zobrist key
POS_SIZE = 24
NO_SQUARE = 64

CASTLE_WHITE_SHORT, CASTLE_WHITE_LONG, CASTLE_BLACK_SHORT, CASTLE_BLACK_LONG = 1, 2, 4, 8

# Move layout (int32): from | to << 6 | promotion type << 12 | kind << 15 | capture << 18.
MOVE_NORMAL, MOVE_DOUBLE, MOVE_EN_PASSANT, MOVE_CASTLE, MOVE_PASS = range(5)
CAPTURE_FLAG = 1 << 18
PASS_MOVE = MOVE_PASS << 15
MAX_MOVES = 320


# ---------------------------------------------------------------------------------------
# Intrinsics


def _trailing_zeros(bitboard):
    """Number of zero bits below the lowest set bit (Python stand-in for LLVM cttz)."""
    value = int(bitboard)
    return np.uint64((value & -value).bit_length() - 1)


def _leading_zeros(bitboard):
    """Number of zero bits above the highest set bit (Python stand-in for LLVM ctlz)."""
    return np.uint64(64 - int(bitboard).bit_length())


def _popcount(bitboard):
    """Number of set bits of a uint64 (Python stand-in for LLVM ctpop)."""
    return np.uint64(int(bitboard).bit_count())


trailing_zeros = native("trailing_zeros", _trailing_zeros)
leading_zeros = native("leading_zeros", _leading_zeros)
popcount = native("popcount", _popcount)


@kernel
def lsb(bitboard):
    """Index of the lowest set bit (bitboard must be non-zero)."""
    return np.int64(trailing_zeros(bitboard))


@kernel
def msb(bitboard):
    """Index of the highest set bit (bitboard must be non-zero)."""
    return np.int64(63 - leading_zeros(bitboard))


@kernel
def count(bitboard):
    """Number of set bits, as int64."""
    return np.int64(popcount(bitboard))


# ---------------------------------------------------------------------------------------
# Tables


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _leaper_table(offsets) -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        file, rank = square & 7, square >> 3
        bits = 0
        for df, dr in offsets:
            if _on_board(file + df, rank + dr):
                bits |= 1 << (file + df + 8 * (rank + dr))
        table[square] = bits
    return table


KNIGHT_ATTACKS = _leaper_table([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = _leaper_table([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])

# PAWN_DIAGONAL[c, s]: the two squares diagonally forward of a pawn of color c on s
# (its captures; a Berolina pawn's quiet moves).  PAWN_FORWARD[c, s]: the square ahead.
PAWN_DIAGONAL = np.stack(
    [_leaper_table([(-1, 1), (1, 1)]), _leaper_table([(-1, -1), (1, -1)])]
)
PAWN_FORWARD = np.stack([_leaper_table([(0, 1)]), _leaper_table([(0, -1)])])

# Ray directions.  0-3 run towards higher square numbers (first blocker = lowest bit),
# 4-7 towards lower ones (first blocker = highest bit).
_DIRECTIONS = [(0, 1), (1, 1), (1, 0), (-1, 1), (0, -1), (-1, -1), (-1, 0), (1, -1)]
RAYS = np.zeros((8, 64), dtype=np.uint64)
for _d, (_df, _dr) in enumerate(_DIRECTIONS):
    for _square in range(64):
        _f, _r, _bits = (_square & 7) + _df, (_square >> 3) + _dr, 0
        while _on_board(_f, _r):
            _bits |= 1 << (_f + 8 * _r)
            _f, _r = _f + _df, _r + _dr
        RAYS[_d, _square] = _bits

# BETWEEN[a, b]: squares strictly between a and b on a shared line (0 if none);
# LINE[a, b]: the whole line through a and b, both included (0 if none).
BETWEEN = np.zeros((64, 64), dtype=np.uint64)
LINE = np.zeros((64, 64), dtype=np.uint64)
for _d in range(8):
    _opposite = (_d + 4) % 8
    for _a in range(64):
        _ray = int(RAYS[_d, _a])
        for _b in range(64):
            if _ray >> _b & 1:
                BETWEEN[_a, _b] = _ray & ~int(RAYS[_d, _b]) & ~(1 << _b)
                LINE[_a, _b] = _ray | int(RAYS[_opposite, _a]) | (1 << _a)

# CASTLE_KEEP[s]: the castling rights that survive a move from or to square s.
CASTLE_KEEP = np.full(64, 15, dtype=np.uint64)
CASTLE_KEEP[4] = 15 & ~(CASTLE_WHITE_SHORT | CASTLE_WHITE_LONG)
CASTLE_KEEP[7] = 15 & ~CASTLE_WHITE_SHORT
CASTLE_KEEP[0] = 15 & ~CASTLE_WHITE_LONG
CASTLE_KEEP[60] = 15 & ~(CASTLE_BLACK_SHORT | CASTLE_BLACK_LONG)
CASTLE_KEEP[63] = 15 & ~CASTLE_BLACK_SHORT
CASTLE_KEEP[56] = 15 & ~CASTLE_BLACK_LONG

RANK_1 = np.uint64(0xFF)
RANK_8 = np.uint64(0xFF << 56)
RANK_2 = np.uint64(0xFF << 8)
RANK_7 = np.uint64(0xFF << 48)
DARK_SQUARES = np.uint64(0xAA55AA55AA55AA55)

# Zobrist keys from a fixed seed, so keys are the same in every process.
_rng = np.random.default_rng(0x6170)
ZOBRIST_PIECE = _rng.integers(0, 2**64 - 1, size=(16, 64), dtype=np.uint64, endpoint=True)
ZOBRIST_SIDE = np.uint64(_rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))
ZOBRIST_CASTLE = _rng.integers(0, 2**64 - 1, size=16, dtype=np.uint64, endpoint=True)
ZOBRIST_LEAP = _rng.integers(0, 2**64 - 1, size=16, dtype=np.uint64, endpoint=True)
ZOBRIST_EP = _rng.integers(0, 2**64 - 1, size=65, dtype=np.uint64, endpoint=True)
ZOBRIST_CASTLE[0] = 0
ZOBRIST_LEAP[0] = 0
ZOBRIST_EP[NO_SQUARE] = 0

for _table in (KNIGHT_ATTACKS, KING_ATTACKS, PAWN_DIAGONAL, PAWN_FORWARD, RAYS, BETWEEN, LINE, CASTLE_KEEP,
               ZOBRIST_PIECE, ZOBRIST_CASTLE, ZOBRIST_LEAP, ZOBRIST_EP):
    _table.setflags(write=False)


# ---------------------------------------------------------------------------------------
# Slider attacks by rays and bit scans.


@kernel
def rook_attacks(square, occupied):
    """Squares a rook on `square` attacks, given the occupied squares.

    Branch-free: the scan of each ray's blockers also sees the far corner (h8 for rays
    towards higher squares, a1 for the others), whose ray in that direction is empty, so a
    ray without blockers loses nothing."""
    north = RAYS[0, square]
    north ^= RAYS[0, lsb((north & occupied) | H8_CORNER)]
    east = RAYS[2, square]
    east ^= RAYS[2, lsb((east & occupied) | H8_CORNER)]
    south = RAYS[4, square]
    south ^= RAYS[4, msb((south & occupied) | ONE)]
    west = RAYS[6, square]
    west ^= RAYS[6, msb((west & occupied) | ONE)]
    return north | east | south | west


@kernel
def bishop_attacks(square, occupied):
    """Squares a bishop on `square` attacks, given the occupied squares (branch-free, as
    `rook_attacks`)."""
    north_east = RAYS[1, square]
    north_east ^= RAYS[1, lsb((north_east & occupied) | H8_CORNER)]
    north_west = RAYS[3, square]
    north_west ^= RAYS[3, lsb((north_west & occupied) | H8_CORNER)]
    south_west = RAYS[5, square]
    south_west ^= RAYS[5, msb((south_west & occupied) | ONE)]
    south_east = RAYS[7, square]
    south_east ^= RAYS[7, msb((south_east & occupied) | ONE)]
    return north_east | north_west | south_west | south_east

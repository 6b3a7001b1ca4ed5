"""Attacks: which pieces attack a square, which squares a side attacks, and whether a
side's royal king is in check or its anti-king in anti-check.

Arguments as in engine.rules.movegen: `pos` a position row, `rules` the rule record.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel
from .bitboards import (
    ANTIKING, BISHOP, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, OCC, ONE,
    P_SIDE, PAWN, PAWN_DIAGONAL, PAWN_FORWARD, QUEEN, ROOK, ZERO,
    bishop_attacks, lsb, rook_attacks,
)
from .rulesets import (
    R_ANTI_KINGS, R_BEROLINA, R_ROYAL_KING,
)


@kernel
def piece_type_at(pos, color, square):
    """Type of `color`'s piece on `square`, or -1 if it has none there."""
    bit = ONE << np.uint64(square)
    base = color * 8
    for piece in range(7):
        if pos[base + piece] & bit:
            return piece
    return -1


@kernel
def pawn_attackers(pos, square, by, berolina):
    """Pawns of color `by` that attack `square` (diagonally, or straight ahead if Berolina)."""
    if berolina:
        return PAWN_FORWARD[1 - by, square] & pos[by * 8 + PAWN]
    return PAWN_DIAGONAL[1 - by, square] & pos[by * 8 + PAWN]


@kernel
def king_attackers(pos, square, by, occupied, rules):
    """Pieces of color `by` giving check to a king on `square` (anti-kings never do)."""
    base = by * 8
    attackers = KNIGHT_ATTACKS[square] & pos[base + KNIGHT]
    attackers |= KING_ATTACKS[square] & pos[base + KING]
    attackers |= bishop_attacks(square, occupied) & (pos[base + BISHOP] | pos[base + QUEEN])
    attackers |= rook_attacks(square, occupied) & (pos[base + ROOK] | pos[base + QUEEN])
    attackers |= pawn_attackers(pos, square, by, rules[R_BEROLINA])
    return attackers


@kernel
def antiking_attackers(pos, square, by, occupied, rules):
    """Pieces of color `by` attacking an anti-king on `square` (kings and anti-kings never do)."""
    base = by * 8
    attackers = KNIGHT_ATTACKS[square] & pos[base + KNIGHT]
    attackers |= bishop_attacks(square, occupied) & (pos[base + BISHOP] | pos[base + QUEEN])
    attackers |= rook_attacks(square, occupied) & (pos[base + ROOK] | pos[base + QUEEN])
    attackers |= pawn_attackers(pos, square, by, rules[R_BEROLINA])
    return attackers


@kernel
def check_state(pos, rules):
    """Bit 1: the side to move is in check; bit 2: its anti-king is in anti-check."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    occupied = pos[OCC] | pos[8 + OCC]
    state = 0
    if rules[R_ROYAL_KING] and pos[us * 8 + KING]:
        if king_attackers(pos, lsb(pos[us * 8 + KING]), them, occupied, rules):
            state |= 1
    if rules[R_ANTI_KINGS] and pos[us * 8 + ANTIKING]:
        if antiking_attackers(pos, lsb(pos[us * 8 + ANTIKING]), them, occupied, rules) == ZERO:
            state |= 2
    return state


@kernel
def side_is_safe(pos, side, rules):
    """True if `side`'s king is not attacked and its anti-king (if any) is attacked."""
    other = 1 - side
    occupied = pos[OCC] | pos[8 + OCC]
    if rules[R_ROYAL_KING] and pos[side * 8 + KING]:
        if king_attackers(pos, lsb(pos[side * 8 + KING]), other, occupied, rules):
            return False
    if rules[R_ANTI_KINGS] and pos[side * 8 + ANTIKING]:
        if antiking_attackers(pos, lsb(pos[side * 8 + ANTIKING]), other, occupied, rules) == ZERO:
            return False
    return True


@kernel
def piece_attacks(pos, color, occupied):
    """Every square a knight, bishop, rook, queen or king of `color` attacks (pawns and
    anti-kings left out)."""
    base = color * 8
    attacked = ZERO
    pieces = pos[base + KNIGHT]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= KNIGHT_ATTACKS[square]
    pieces = pos[base + BISHOP] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= bishop_attacks(square, occupied)
    pieces = pos[base + ROOK] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= rook_attacks(square, occupied)
    pieces = pos[base + KING]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= KING_ATTACKS[square]
    return attacked


@kernel
def pawn_attacks(pos, color, berolina):
    """Every square a pawn of `color` attacks (diagonally, Berolina pawns straight ahead)."""
    attacked = ZERO
    pawns = pos[color * 8 + PAWN]
    while pawns:
        square = lsb(pawns)
        pawns &= pawns - ONE
        if berolina:
            attacked |= PAWN_FORWARD[color, square]
        else:
            attacked |= PAWN_DIAGONAL[color, square]
    return attacked


@kernel
def attacked_squares(pos, color, occupied, berolina):
    """Every square a piece of `color` attacks (pawns diagonally, Berolina pawns straight
    ahead; anti-kings left out)."""
    return piece_attacks(pos, color, occupied) | pawn_attacks(pos, color, berolina)

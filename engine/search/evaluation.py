"""The learned evaluation of quiet antichess positions: features and weights.

A position is scored, for the side to move, as the dot product of integer weights
(centipawns, from `eval_weights.json`, fitted by `tools/train_eval.py`) with these features:

- `material_P` ... `material_K`: our pieces of each type minus theirs;
- `pst_<piece>_<square>`: a piece-square table per piece type, squares seen from the piece's
  own side (rank 1 = its back rank) and mirrored onto files a-d, +1 for each of our pieces
  there, -1 for each of theirs;
- `reach`: squares our knights and sliders attack that hold none of our pieces, minus theirs;
- `moves`: our legal moves minus theirs (theirs counted after a pass);
- `forcing`: 1 when, after a pass, they would have to capture;
- `tempo`: 1.

Each feature has two weights, one for the opening and one for the endgame: the score is
(n * opening + (32 - n) * endgame) // 32 with n the number of pieces on the board (at most
32), so a piece or a square can be worth one thing early and another late.  A weights file
entry is a pair [opening, endgame], or one number for both.

Two sets of weights, chosen by the rule set's `learned_evaluation` field: `eval_weights.json`
where every pseudo-legal move is legal (no royal king, no anti-kings: antichess, giveaway,
suicide, hackerrank), and `eval_weights_losers.json` for losers (compulsory capture with a
royal king, mated or stalemated side wins), with its legal moves counted by generation; the
search keeps its hand-written terms for the other rule sets.  The weights files are part
of the engine's source hash (engine.jit), so new weights never meet stale compiled code.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..jit.modes import kernel
from ..rules.bitboards import (
    BISHOP, KING, KING_ATTACKS, KNIGHT, OCC, ONE, P_SIDE, PAWN, QUEEN, ROOK, KNIGHT_ATTACKS,
    ZERO, bishop_attacks, count, lsb, rook_attacks,
)

ENGINE_WEIGHTS_PATH = Path(__file__).resolve().parent / "eval_weights.json"
LOSERS_WEIGHTS_PATH = Path(__file__).resolve().parent / "eval_weights_losers.json"
WEIGHTS_PATHS = {"antichess": ENGINE_WEIGHTS_PATH, "losers": LOSERS_WEIGHTS_PATH}
PIECE_NAMES = "PNBRQK"
SQUARES = 32  # a-d files of each rank, from the piece's own side

MATERIAL = 0
PST = MATERIAL + 6
REACH = PST + 6 * SQUARES
MOVES = REACH + 1
FORCING = MOVES + 1
TEMPO = FORCING + 1
FEATURE_COUNT = TEMPO + 1

FEATURE_NAMES = (
    [f"material_{piece}" for piece in PIECE_NAMES]
    + [f"pst_{piece}_{'abcd'[square % 4]}{square // 4 + 1}" for piece in PIECE_NAMES for square in range(SQUARES)]
    + ["reach", "moves", "forcing", "tempo"]
)


PHASE_PIECES = 32  # the opening weights apply in full with this many pieces on the board


def load_weights(path=ENGINE_WEIGHTS_PATH) -> np.ndarray:
    """The weights file's values as int64[2, FEATURE_COUNT]: row 0 the opening weights, row
    1 the endgame weights, in FEATURE_NAMES order (a missing name weighs 0)."""
    weights = json.loads(path.read_text())["weights"]
    table = np.zeros((2, FEATURE_COUNT), dtype=np.int64)
    for index, name in enumerate(FEATURE_NAMES):
        value = weights.get(name, 0.0)
        opening, endgame = value if isinstance(value, list) else (value, value)
        table[0, index], table[1, index] = round(opening), round(endgame)
    return table


WEIGHTS = load_weights()
WEIGHTS.setflags(write=False)
LOSERS_WEIGHTS = load_weights(LOSERS_WEIGHTS_PATH)
LOSERS_WEIGHTS.setflags(write=False)


@kernel
def relative_square(square, color):
    """0..31: `square` seen from `color`'s side, mirrored onto files a-d."""
    if color == 1:
        square ^= 56
    file = square & 7
    if file > 3:
        file = 7 - file
    return (square >> 3) * 4 + file


@kernel
def reach(pos, color, occupied):
    """Squares `color`'s knights and sliders attack that hold none of its own pieces."""
    return reach_and_attacks(pos, color, occupied)[0]


@kernel
def reach_and_attacks(pos, color, occupied):
    """(`reach(pos, color, occupied)`, every square `color`'s knights, sliders and king attack
    (`attacks.piece_attacks`)) in one pass over the pieces."""
    base = color * 8
    not_own = ~pos[base + OCC]
    total = 0
    attacked = ZERO
    pieces = pos[base + KNIGHT]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacks = KNIGHT_ATTACKS[square]
        total += count(attacks & not_own)
        attacked |= attacks
    pieces = pos[base + BISHOP] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacks = bishop_attacks(square, occupied)
        total += count(attacks & not_own)
        attacked |= attacks
    pieces = pos[base + ROOK] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacks = rook_attacks(square, occupied)
        total += count(attacks & not_own)
        attacked |= attacks
    pieces = pos[base + KING]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= KING_ATTACKS[square]
    return total, attacked


@kernel
def losing_features(pos, moves_difference, forcing, out):
    """Write the feature vector of `pos` (side to move's view) into `out` (FEATURE_COUNT)."""
    out[:] = 0
    us = np.int64(pos[P_SIDE])
    occupied = pos[OCC] | pos[8 + OCC]
    for color in range(2):
        sign = 1 if color == us else -1
        for piece in range(PAWN, KING + 1):
            pieces = pos[color * 8 + piece]
            while pieces:
                square = lsb(pieces)
                pieces &= pieces - ONE
                out[MATERIAL + piece] += sign
                out[PST + piece * SQUARES + relative_square(square, color)] += sign
    out[REACH] = reach(pos, us, occupied) - reach(pos, 1 - us, occupied)
    out[MOVES] = moves_difference
    out[FORCING] = 1 if forcing else 0
    out[TEMPO] = 1


@kernel
def phase(pos):
    """Pieces on the board, at most PHASE_PIECES: the opening weights' share, in 32nds."""
    return min(count(pos[OCC] | pos[8 + OCC]), PHASE_PIECES)


@kernel
def learned_score(pos, moves_difference, forcing):
    """The learned evaluation: the opening and endgame weights . losing_features(pos, ...),
    blended by `phase`, without building the vector."""
    us = np.int64(pos[P_SIDE])
    occupied = pos[OCC] | pos[8 + OCC]
    return learned_score_with_reach(pos, moves_difference, forcing,
                                    reach(pos, us, occupied) - reach(pos, 1 - us, occupied))


@kernel
def learned_score_with_reach(pos, moves_difference, forcing, reach_difference):
    """`learned_score` given its reach difference (`reach` of the side to move minus the
    other side's)."""
    return weighted_score(pos, WEIGHTS, moves_difference, forcing, reach_difference)


@kernel
def losers_score(pos, moves_difference, forcing):
    """The learned losers evaluation (`LOSERS_WEIGHTS`) of a quiet losers position, given its
    legal-move difference (generated: the king is royal) and forcing term."""
    us = np.int64(pos[P_SIDE])
    occupied = pos[OCC] | pos[8 + OCC]
    return weighted_score(pos, LOSERS_WEIGHTS, moves_difference, forcing,
                          reach(pos, us, occupied) - reach(pos, 1 - us, occupied))


@kernel
def weighted_score(pos, weights, moves_difference, forcing, reach_difference):
    """The weights table `weights` (int64[2, FEATURE_COUNT]) . losing_features(pos, ...),
    the opening and endgame sums blended by `phase`."""
    us = np.int64(pos[P_SIDE])
    opening = np.int64(0)
    endgame = np.int64(0)
    for color in range(2):
        sign = 1 if color == us else -1
        for piece in range(PAWN, KING + 1):
            pieces = pos[color * 8 + piece]
            while pieces:
                square = lsb(pieces)
                pieces &= pieces - ONE
                table = PST + piece * SQUARES + relative_square(square, color)
                opening += sign * (weights[0, MATERIAL + piece] + weights[0, table])
                endgame += sign * (weights[1, MATERIAL + piece] + weights[1, table])
    opening += weights[0, REACH] * reach_difference + weights[0, MOVES] * moves_difference + weights[0, TEMPO]
    endgame += weights[1, REACH] * reach_difference + weights[1, MOVES] * moves_difference + weights[1, TEMPO]
    if forcing:
        opening += weights[0, FORCING]
        endgame += weights[1, FORCING]
    pieces_on_board = phase(pos)
    return (pieces_on_board * opening + (PHASE_PIECES - pieces_on_board) * endgame) // PHASE_PIECES

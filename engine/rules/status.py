"""Game status and perft: whether the game in a position is over and how, repetitions on
the position stack, and the perft count.

Arguments as in engine.rules.movegen.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel, native
from .attacks import check_state
from .bitboards import BISHOP, DARK_SQUARES, KNIGHT, OCC, P_HALFMOVE, P_KEY, P_PLY, P_SIDE, PAWN, QUEEN, ROOK, ZERO, count
from .movegen import gen_legal, legal_moves, make_move, opponent_can_move_after_pass
from .rulesets import (
    INSUFFICIENT_KINDS, LOSS, PASS, PIECE_COUNT, R_ANTICHECKMATE_VALUE, R_CHECKMATE_VALUE, R_EXTINCTION_COUNT,
    R_DRAW_RULES, R_EXTINCTION_PREVAILS, R_EXTINCTION_REASON, R_INSUFFICIENT_MATERIAL, R_PLY_LIMIT, R_STALEMATE_VALUE,
    REASON_INDEX, WIN,
)

ONGOING = -1
RESULT_WHITE, RESULT_BLACK, RESULT_DRAW = 0, 1, 2
_CHECKMATE = REASON_INDEX["checkmate"]
_ANTI_CHECKMATE = REASON_INDEX["anti-checkmate"]
_STALEMATE = REASON_INDEX["stalemate"]
_STALEMATE_COUNT = REASON_INDEX["stalemate by piece count"]
_PLY_LIMIT = REASON_INDEX["ply limit"]
_BOTH_STUCK = REASON_INDEX["both sides without a move"]


@kernel
def _result_for(side, value):
    """The result code when `value` (WIN/LOSS/DRAW) applies to `side`."""
    if value == WIN:
        return side
    if value == LOSS:
        return 1 - side
    return RESULT_DRAW


_FIDE_INSUFFICIENT = INSUFFICIENT_KINDS.index("fide")  # values of rules[R_INSUFFICIENT_MATERIAL]
_OPPOSITE_BISHOPS = INSUFFICIENT_KINDS.index("opposite-bishops")


@kernel
def _one_colour(squares):
    """True if the squares in `squares` are all dark or all light (or there are none)."""
    return (squares & DARK_SQUARES) == ZERO or (squares & ~DARK_SQUARES) == ZERO


@kernel
def insufficient_material(pos, rules):
    """True when the rule set's insufficient-material draw (python-chess's definitions) holds.

    "opposite-bishops" (the antichess family): only bishops are left, each side has some,
    each side's on one square colour and the two colours differ, so no capture can ever
    happen.  "fide": no pawns, rooks or queens, and at most one minor piece or only bishops
    all on one square colour.  A draw rule: the caller checks `draw_rules` and the rule
    endings first.
    """
    kind = rules[R_INSUFFICIENT_MATERIAL]
    white = pos[OCC]
    black = pos[8 + OCC]
    bishops = pos[BISHOP] | pos[8 + BISHOP]
    if kind == _OPPOSITE_BISHOPS:
        if white == ZERO or black == ZERO or (white | black) != bishops:
            return False
        if not (_one_colour(white) and _one_colour(black)):
            return False
        return ((white & DARK_SQUARES) != ZERO) != ((black & DARK_SQUARES) != ZERO)
    if kind != _FIDE_INSUFFICIENT:
        return False
    heavy = pos[PAWN] | pos[8 + PAWN] | pos[ROOK] | pos[8 + ROOK] | pos[QUEEN] | pos[8 + QUEEN]
    if heavy != ZERO:
        return False
    knights = pos[KNIGHT] | pos[8 + KNIGHT]
    if count(knights | bishops) <= 1:
        return True
    return knights == ZERO and _one_colour(bishops)


FIFTY_MOVE_PLIES = 100  # a halfmove clock this high draws the game by the fifty-move rule


@kernel
def drawn_by_rule(pos, rules):
    """True when a draw rule that needs no history ends the game at `pos` (in rule sets
    with draw rules): the fifty-move rule, taken as automatic as the match runners take it,
    or insufficient material.  The rule endings (no move, no pieces) come first; the caller
    checks them."""
    if not rules[R_DRAW_RULES]:
        return False
    return np.int64(pos[P_HALFMOVE]) >= FIFTY_MOVE_PLIES or insufficient_material(pos, rules)


@kernel
def game_status(stack, idx, rules, mlist):
    """ONGOING, or reason * 3 + result (0 white wins, 1 black wins, 2 draw) for stack[idx].

    Draw rules that depend on history or counters are left to the caller.
    """
    pos = stack[idx]
    side = np.int64(pos[P_SIDE])
    other = 1 - side
    extinction = rules[R_EXTINCTION_COUNT]
    own_pieces = count(pos[side * 8 + OCC])
    other_pieces = count(pos[other * 8 + OCC])
    side_extinct = extinction >= 0 and own_pieces <= extinction
    other_extinct = extinction >= 0 and other_pieces <= extinction

    n = gen_legal(stack, idx, rules, mlist)
    checks = check_state(pos, rules)
    mated = n == 0 and checks != 0
    mate = ONGOING
    if mated:
        if checks & 1:
            mate = _CHECKMATE * 3 + _result_for(side, rules[R_CHECKMATE_VALUE])
        else:
            mate = _ANTI_CHECKMATE * 3 + _result_for(side, rules[R_ANTICHECKMATE_VALUE])
    if side_extinct or other_extinct:
        if mated and not rules[R_EXTINCTION_PREVAILS]:
            return mate
        winner = side if side_extinct else other
        return rules[R_EXTINCTION_REASON] * 3 + winner
    if mated:
        return mate
    if n == 0:
        value = rules[R_STALEMATE_VALUE]
        if value == PIECE_COUNT:
            if own_pieces == other_pieces:
                return _STALEMATE_COUNT * 3 + RESULT_DRAW
            return _STALEMATE_COUNT * 3 + (side if own_pieces < other_pieces else other)
        if value == PASS:
            if not opponent_can_move_after_pass(stack, idx, rules, mlist):
                return _BOTH_STUCK * 3 + RESULT_DRAW
        else:
            return _STALEMATE * 3 + _result_for(side, value)
    limit = rules[R_PLY_LIMIT]
    if limit > 0 and np.int64(pos[P_PLY]) >= limit:
        if own_pieces == other_pieces:
            return _PLY_LIMIT * 3 + RESULT_DRAW
        return _PLY_LIMIT * 3 + (side if own_pieces < other_pieces else other)
    return ONGOING


def _atomic_load(array, index):
    """array[index], read atomically (monotonic) and never kept in a register when compiled."""
    return array[index]


atomic_load = native("atomic_load", _atomic_load)


@kernel
def perft(stack, idx, depth, rules, mlist, stop):
    """Number of leaf nodes `depth` (>= 1) plies below stack[idx]; the last ply is counted in bulk.

    `stop` is int64[1]: another thread writes stop[0] = 1 to end the count early.  Every
    interior node reads it (atomically, so a compiled loop cannot keep it in a register)
    and returns 0 at once when it is set; a stopped count is therefore short, and the
    caller, which set the flag, must not report it (see `Game.perft`).
    """
    n = legal_moves(stack, idx, rules, mlist)
    if depth <= 1:
        return np.int64(n)
    if atomic_load(stop, np.int64(0)) != 0:
        return np.int64(0)
    total = np.int64(0)
    child = idx + 1
    for i in range(n):
        make_move(stack, idx, child, mlist[idx, i], rules)
        total += perft(stack, child, depth - 1, rules, mlist, stop)
    return total


@kernel
def is_repetition(stack, idx, first_row):
    """True if stack[idx] repeats a position on rows first_row..idx-1 within the move clock."""
    key = stack[idx, P_KEY]
    limit = idx - np.int64(stack[idx, P_HALFMOVE])
    if limit < first_row:
        limit = first_row
    i = idx - 2
    while i >= limit:
        if stack[i, P_KEY] == key:
            return True
        i -= 2
    return False

"""Move ordering: the order in which a node's moves are searched.

The transposition table's move first, then captures by most valuable victim and least
valuable attacker corrected by their own history, promotions, offers (under compulsory
capture a move to a square the opponent attacks forces the reply), the two killers of the
ply, and the rest by history.  `record_history` (every cut-off) and `record_cutoff` (a quiet
one's killers too) keep the killers and histories up to date.

The history table is int32[4, 64, 64] by side and origin and target square: tables 0 and 1
(White, Black) score quiet moves, tables 2 and 3 (CAPTURES + side) captures.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel
from ..rules.bitboards import CAPTURE_FLAG, OCC, ONE, P_SIDE, ZERO
from ..rules.attacks import attacked_squares, piece_type_at
from ..rules.rulesets import R_BEROLINA, R_MUST_CAPTURE

MVV = np.array([1, 3, 3, 5, 9, 10, 0], dtype=np.int64)  # victim values: pawn .. king, anti-king
MVV.setflags(write=False)
TT_MOVE_SCORE = 1000000
CAPTURE_SCORE = 100000
PROMOTION_SCORE = 95000
OFFER_SCORE = 92000
FIRST_KILLER_SCORE = 90000
SECOND_KILLER_SCORE = 89000  # offers and the first killer score above
HISTORY_LIMIT = 8192  # history entries stay within +-this (gravity)
HISTORY_BONUS_LIMIT = 2048  # the most a cutoff moves an entry
HISTORY_SHAPE = (4, 64, 64)  # quiet moves by side, then captures by side (module docstring)
CAPTURES = 2  # the first capture table
MVV_LVA_WEIGHT = 32  # a capture scores this times (10 x victim value - attacker) ...
CAPTURE_HISTORY_DIVISOR = 4  # ... plus its history entry divided by this

@kernel
def attacked_by(pos, color, rules):
    """Every square a piece of `color` attacks (anti-kings left out)."""
    return attacked_squares(pos, color, pos[OCC] | pos[8 + OCC], rules[R_BEROLINA])


@kernel
def order_moves(stack, idx, mlist, scores, n, tt_move, killers, history, ply, rules):
    """Score the `n` moves of mlist[idx] for ordering into scores[idx]."""
    pos = stack[idx]
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    offers = ZERO
    if rules[R_MUST_CAPTURE]:
        offers = attacked_by(pos, them, rules)
    for i in range(n):
        move = np.int64(mlist[idx, i])
        if move == tt_move:
            scores[idx, i] = TT_MOVE_SCORE
            continue
        origin = move & 63
        target = (move >> 6) & 63
        value = 0
        if move & CAPTURE_FLAG:
            victim = piece_type_at(pos, them, target)
            attacker = piece_type_at(pos, us, origin)
            value = (CAPTURE_SCORE + MVV_LVA_WEIGHT * (10 * (MVV[victim] if victim >= 0 else 1) - attacker)
                     + history[CAPTURES + us, origin, target] // CAPTURE_HISTORY_DIVISOR)
        elif (move >> 12) & 7:
            value = PROMOTION_SCORE + ((move >> 12) & 7)
        elif offers & (ONE << np.uint64(target)):
            value = OFFER_SCORE + history[us, origin, target] // 64  # an offer forces the reply
        elif move == killers[ply, 0]:
            value = FIRST_KILLER_SCORE
        elif move == killers[ply, 1]:
            value = SECOND_KILLER_SCORE
        else:
            value = history[us, origin, target]
        scores[idx, i] = value


@kernel
def pick(mlist, scores, idx, start, n):
    """Swap the best-scored move of [start, n) to `start` and return it."""
    best = start
    for i in range(start + 1, n):
        if scores[idx, i] > scores[idx, best]:
            best = i
    if best != start:
        move = mlist[idx, best]
        mlist[idx, best] = mlist[idx, start]
        mlist[idx, start] = move
        value = scores[idx, best]
        scores[idx, best] = scores[idx, start]
        scores[idx, start] = value
    return np.int64(mlist[idx, start])


@kernel
def history_update(history, us, origin, target, bonus):
    """Move a history entry by `bonus`, pulled back towards zero in proportion to its size
    (gravity), so that it stays within +-HISTORY_LIMIT."""
    old = history[us, origin, target]
    history[us, origin, target] = old + bonus - old * abs(bonus) // HISTORY_LIMIT


@kernel
def history_bonus(depth):
    """What a cut-off at `depth` moves a history entry: 8 x depth squared, at most
    HISTORY_BONUS_LIMIT."""
    return min(8 * depth * depth, HISTORY_BONUS_LIMIT)


@kernel
def record_history(stack, idx, mlist, i, move, depth, history):
    """The i-th move searched at stack[idx] cut off: its entry (quiet or capture table)
    rises by `history_bonus(depth)`, and the moves ordered before it (searched, or passed
    over by late-move pruning) fall by as much in their own tables, since they did not;
    after a capture's cut-off only the captures before it fall.  Each entry moves less the
    larger it already is (gravity)."""
    us = np.int64(stack[idx, P_SIDE])
    capture = (move & CAPTURE_FLAG) != 0
    bonus = history_bonus(depth)
    history_update(history, CAPTURES + us if capture else us, move & 63, (move >> 6) & 63, bonus)
    for j in range(i):
        earlier = np.int64(mlist[idx, j])
        if earlier & CAPTURE_FLAG:
            history_update(history, CAPTURES + us, earlier & 63, (earlier >> 6) & 63, -bonus)
        elif not capture:
            history_update(history, us, earlier & 63, (earlier >> 6) & 63, -bonus)


@kernel
def record_cutoff(stack, idx, mlist, i, move, depth, ply, killers, history):
    """A quiet move, the i-th searched at stack[idx], cut off: it becomes the ply's first
    killer and the histories move as `record_history` says."""
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    record_history(stack, idx, mlist, i, move, depth, history)

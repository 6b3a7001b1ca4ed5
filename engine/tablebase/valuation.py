"""Valuing a position by the table codes of its successors: the kernels the builder, the
whole-table check and the probe share.

Codes.  Each table entry is an int16 code for the side to move: 0 draw, d + 1 a win in d
plies, -(d + 1) a loss in d plies, INVALID for an impossible index.  The distance counts
plies to the end of the game by the rules (no pieces, no move, piece count), with best
play: the winner ends it as fast as possible, the loser as late as possible (`preference`
orders the codes so).  Draw rules that need history or counters (repetition, 50 moves) are
not applied (engine.tablebase.dtz adds the fifty-move rule in companion tables).

A position that the index layout does not hold (an en-passant square, right after a double
step) is valued by a one-ply search over its successors (`successor_value`): in the
compulsory-capture rule sets every successor is a capture, so it lies in a smaller table.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import allocating_kernel
from ..rules import movegen
from ..rules.bitboards import NO_SQUARE, OCC, P_EP, P_SIDE, ZERO
from ..rules.status import game_status
from .indexing import INVALID, MAX_PIECES, decode, locate

INF = 32767  # terminal_code: the game goes on; the builder: no distance known yet


@allocating_kernel
def negate(code):
    """The code for the mover from the code of the position after its move."""
    if code > 0:
        return -(code + 1)
    if code < 0:
        return 1 - code
    return code


@allocating_kernel
def preference(code):
    """Higher is better for the side to move: quick wins, then draws, then long losses.
    The one order of codes, for the kernels here and for the probe's order of moves
    (engine.tablebase.probing calls this kernel from Python)."""
    if code > 0:
        return np.int64(100000) - code
    if code < 0:
        return np.int64(-100000) - code
    return np.int64(0)


@allocating_kernel
def terminal_code(stack, r, rules, mlist):
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


@allocating_kernel
def _plain_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current):
    """Code of stack[r] (no en-passant square) from the tables in `buf`.  Returns
    (code, index): index >= 0 means the position is in table `current` (code undefined);
    code INVALID with index -1: not in any table given."""
    if stack[r, OCC] == ZERO or stack[r, 8 + OCC] == ZERO:
        return terminal_code(stack, r, rules, mlist), np.int64(-1)
    tid, index = locate(stack, r, tdesc, keymap, geo, work)
    if tid < 0 or index < 0:
        return np.int64(INVALID), np.int64(-1)
    if tid == current:
        return np.int64(0), index
    return np.int64(buf[tdesc[tid, 0] + index]), np.int64(-1)


@allocating_kernel
def successor_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current):
    """Like `_plain_value`, but a position with an en-passant square is valued by a
    one-ply search over its successors (which must lie outside table `current`)."""
    if np.int64(stack[r, P_EP]) == NO_SQUARE:
        return _plain_value(stack, r, rules, mlist, tdesc, keymap, geo, buf, work, current)
    terminal = terminal_code(stack, r, rules, mlist)
    if terminal != INF:
        return terminal, np.int64(-1)
    n = movegen.legal_moves(stack, r, rules, mlist)
    best = np.int64(INVALID)
    for i in range(n):
        movegen.make_move(stack, r, r + 1, mlist[r, i], rules)
        code, index = _plain_value(stack, r + 1, rules, mlist, tdesc, keymap, geo, buf, work, current)
        if code == INVALID or index >= 0:
            return np.int64(INVALID), np.int64(-1)
        mine = negate(code)
        if best == INVALID or preference(mine) > preference(best):
            best = mine
    return best, np.int64(-1)


@allocating_kernel
def root_moves(stack, rules, mlist, tdesc, keymap, geo, buf, work, moves, codes):
    """Every legal move of stack[0] with the code, for the mover, of the position after it
    (INVALID when a successor is outside the loaded tables).  Returns the number of moves,
    or -1 when the game is over (then codes[0] holds the terminal code)."""
    terminal = terminal_code(stack, 0, rules, mlist)
    if terminal != INF:
        codes[0] = terminal
        return np.int64(-1)
    n = movegen.legal_moves(stack, 0, rules, mlist)
    for i in range(n):
        moves[i] = mlist[0, i]
        movegen.make_move(stack, 0, 1, mlist[0, i], rules)
        code, index = successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work, np.int64(-1))
        codes[i] = INVALID if code == INVALID else negate(code)
    return np.int64(n)


@allocating_kernel
def verify_codes(tid, rules, tdesc, keymap, geo, buf, stack, mlist, work, bad):
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
        if not decode(tid, np.int64(p), tdesc, geo, stack[0], squares):
            if stored != INVALID:
                if wrong < bad.shape[0]:
                    bad[wrong] = p
                wrong += 1
            continue
        n = movegen.legal_moves(stack, 0, rules, mlist)
        if n == 0:
            best = terminal_code(stack, 0, rules, mlist)
            if best != 0 and best != 1 and best != -1:
                best = INVALID
        else:
            best = np.int64(INVALID)
            for i in range(n):
                movegen.make_move(stack, 0, 1, mlist[0, i], rules)
                code, index = successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work,
                                               np.int64(-1))
                if code == INVALID:
                    best = np.int64(INVALID)
                    break
                mine = negate(code)
                if best == INVALID or preference(mine) > preference(best):
                    best = mine
        if best != stored:
            if wrong < bad.shape[0]:
                bad[wrong] = p
            wrong += 1
    return wrong


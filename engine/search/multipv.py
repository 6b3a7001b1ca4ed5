"""MultiPV: one depth that ranks the best few root moves, each with an exact score and
its principal variation, in a single pass over the root moves."""

from __future__ import annotations

import numpy as np

from ..rules.bitboards import CAPTURE_FLAG
from ..rules.movegen import make_move
from .alphabeta import negamax
from .scores import INFINITY, MATE_BOUND
from .state import STATE_ROOT_DEPTH, STATE_SELDEPTH, STATE_STOPPED, SearchArrays

ASPIRATION_WINDOW = 25  # centipawns either side of the expected score
NOT_QUIET = CAPTURE_FLAG | (7 << 12)  # captures and promotions (engine.rules.bitboards move layout)


def lines_iteration(arrays: SearchArrays, stack, idx, depth, rules, mlist, order: list[int], lines: int,
                    history: list[list[tuple[int, list[int]]]]) -> list[tuple[int, list[int]]] | None:
    """One MultiPV depth in a single pass over the root moves: the best `lines` moves get
    exact scores and PVs, every other move is only shown to score no more than the
    `lines`-th best (a null-window search at that score, re-searched when it fails high).
    A move that was a line two depths before, scoring above the bound then, skips the
    null-window test: its exact search starts around that score (the best line of the last
    depth: around its score there, which is stable across depths where the others swing).

    From depth 5 a floor (the lower `lines`-th score of the last two depths, less a
    margin) bounds the pass: a move scoring at or below it is not searched exactly; when
    fewer than `lines` moves beat it, the pass is repeated with the floor lowered (moves
    already shown to score below the new floor are not searched again).  `history` holds
    each finished depth's lines and gets this one's.  `order` (root move codes, best
    first) is reordered for the next depth: the lines in rank order, then the other moves
    by their bounds.  Returns the lines as (score, PV codes) best first, or None when the
    search was stopped.
    """
    state = arrays.state
    child = np.int64(idx + 1)
    ply = np.int64(1)
    inner = np.int64(depth - 1)
    window = ASPIRATION_WINDOW

    def search(alpha: int, beta: int, reduction: int = 0) -> int:
        return -int(negamax(stack, child, np.int64(inner - reduction), np.int64(-beta), np.int64(-alpha), ply,
                            rules, mlist, arrays))

    state[STATE_SELDEPTH] = 0
    state[STATE_STOPPED] = 0
    state[STATE_ROOT_DEPTH] = depth  # as search_root records it, for the double singular extension
    # Losing-chess scores swing between odd and even depths: the aspiration bounds come
    # from the last two depths (the floor from the lower of their `lines`-th scores).
    recent = [top for top in history[-2:] if len(top) == min(lines, len(order))]
    floor = -INFINITY
    if depth >= 5 and len(recent) == 2 and all(abs(top[-1][0]) < MATE_BOUND for top in recent):
        floor = min(top[-1][0] for top in recent) - window
    previous = {pv[0]: score for score, pv in (history[-2] if len(history) >= 2 else [])}
    if history and history[-1]:
        previous[history[-1][0][1][0]] = history[-1][0][0]
    upper: dict[int, int] = {}  # fail-soft upper bounds of moves that did not beat the floor
    while True:
        top: list[tuple[int, list[int]]] = []
        bounds: dict[int, int] = {}
        for number, code in enumerate(order):
            bound = floor if len(top) < lines else max(floor, top[-1][0])
            if upper.get(code, INFINITY) <= bound:
                bounds[code] = upper[code]  # shown not to beat a higher floor on the last pass
                continue
            make_move(stack, np.int64(idx), child, np.int32(code), rules)
            value = bound + 1
            if len(top) >= lines and depth >= 3 and number >= lines + 2 and not code & NOT_QUIET:
                value = search(bound, bound + 1, 1 if number < lines + 8 else 2)  # a late quiet move
            guess = previous.get(code)
            if guess is not None and guess <= bound:
                guess = None
            if value > bound and guess is None and (len(top) >= lines or bound == floor > -INFINITY):
                value = guess = search(bound, bound + 1)  # a move that was not a line: test it first
            if value > bound and not state[STATE_STOPPED]:
                value = exact(state, search, bound, guess)
            if state[STATE_STOPPED]:
                return None
            bounds[code] = value
            if value <= bound:
                upper[code] = value
            else:
                pv = [code] + [int(c) for c in arrays.pv[1, 1:int(arrays.pv_length[1])] if c]
                top.append((value, pv))
                top.sort(key=lambda line: -line[0])  # stable: ties keep the search order
                del top[lines:]
        ranked = [pv[0] for _, pv in top]
        rest = sorted((code for code in order if code not in ranked), key=lambda code: -bounds[code])
        order[:] = ranked + rest
        if len(top) == min(lines, len(order)) or floor <= -INFINITY:
            history.append(top)
            return top
        floor = max(-INFINITY, floor - window)  # too few moves beat the floor: lower it
        window *= 3


def exact(state, search, bound: int, guess: int | None) -> int:
    """The exact score of a root move known or expected to beat `bound` (else a value <=
    bound): an aspiration window around `guess` (its score as a line two depths before,
    the last depth's score for the last best line, or its null-window test's fail-soft
    value; None: the window is open above `bound`), widened until it holds: after a
    fail-high the window starts at the old upper end."""
    window = ASPIRATION_WINDOW
    low, high = bound, INFINITY
    if guess is not None and abs(guess) < MATE_BOUND:
        low, high = max(bound, guess - window), guess + window
    while True:
        value = search(low, high)
        if state[STATE_STOPPED]:
            return value
        if value <= low and low > bound:
            low = max(bound, value - 2 * window)
        elif value >= high and high < INFINITY:
            low = max(low, high - 1)
            high = min(INFINITY, value + 2 * window)
        else:
            return value
        window *= 3

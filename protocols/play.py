"""Choosing the move to play: the Searcher at full strength (with MultiPV lines and UCI
`go searchmoves` root subsets, both done by the Searcher), or weaker (Skill Level).

Weaker play is built only from public engine calls: every candidate
root move is played on a copy of the game and the resulting position searched to a fixed
depth with `Searcher.search`; the scores decide.  Runs in a worker thread; `stopped` is an
Event the adapter sets when the GUI says `stop`.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from dataclasses import dataclass
from typing import Callable

from engine import is_scaled_mate, scaled_mate_moves, scaled_score

SKILL_FULL = 20


@dataclass
class Choice:
    """The move chosen (None when the game is over), a ponder move and the last info."""

    best_move: object
    ponder: object
    info: object


def skill_depth(skill: int) -> int:
    """Search depth below each root move at a Skill Level below full strength (1 to 4)."""
    return 1 + max(0, skill) // 5


def skill_margin(skill: int) -> int:
    """How many centipawns below the best a move may be and still be picked (200 to 10)."""
    return 10 * (SKILL_FULL - skill)


def think(game, limits, searcher, *, skill: int = SKILL_FULL, searchmoves=None, multipv: int = 1,
          on_info: Callable | None = None, stopped: threading.Event | None = None,
          rng: random.Random | None = None) -> Choice:
    """The move to play in `game` (unchanged) within `limits`; at full strength the best
    `multipv` root moves are each reported to `on_info` (SearchInfo.multipv 1, 2, ...)."""
    legal = game.legal_moves()
    if not legal:
        return Choice(None, None, None)
    moves = legal
    if searchmoves:
        wanted = {m for m in searchmoves}
        moves = [m for m in legal if m in wanted] or legal
    if skill >= SKILL_FULL:
        if len(moves) != len(legal) or multipv > 1:
            limits = dataclasses.replace(limits, root_moves=moves if len(moves) != len(legal) else None,
                                         multipv=max(1, multipv))
        result = searcher.search(game, limits, on_info=on_info)
        return Choice(result.best_move, result.ponder, result.info)
    return _root_choice(game, moves, limits, searcher, skill, on_info, stopped, rng or random.Random())


def _root_choice(game, moves, limits, searcher, skill, on_info, stopped, rng) -> Choice:
    from engine import Limits, SearchInfo

    started = time.perf_counter()
    soft, hard = searcher.budget(game, limits)
    deadline = None if hard is None else started + hard
    if len(moves) == 1 and not limits.infinite:
        only = _root_info(SearchInfo, 1, 0, 0, time.perf_counter() - started, moves[0])
        if on_info is not None:
            on_info(only)  # a GUI analysing this position still gets a score and a pv
        return Choice(moves[0], None, only)
    weak = skill < SKILL_FULL
    max_depth = skill_depth(skill) if weak else (limits.depth or 64)
    if weak and limits.depth:
        max_depth = min(max_depth, limits.depth)
    scored: list[tuple[object, int]] = []
    reported = False
    nodes = 0
    depth = max_depth if weak else 1
    board = game.copy()
    mover = game.turn
    while depth <= max_depth:
        this_round = []
        for move in moves:
            if (stopped is not None and stopped.is_set()) or (deadline and time.perf_counter() > deadline):
                break
            board.push(move)
            try:
                outcome = board.outcome()
                if outcome is not None:
                    # the game ends with this move: a draw, or a mate in 1 for the winner
                    value = 0 if outcome.winner is None else scaled_score(0, 1 if outcome.winner == mover else -1)
                else:
                    if weak:  # a shallow fixed depth: no clock, so no extra stages that spend one
                        child_limits = Limits(depth=depth, nodes=limits.nodes)
                    else:
                        left = None if deadline is None else max(0.001, deadline - time.perf_counter())
                        child_limits = Limits(depth=depth, movetime=left, nodes=limits.nodes, overhead=0.0)
                    result = searcher.search(board, child_limits)
                    if result.info is None:
                        continue
                    nodes += result.info.nodes
                    value = -scaled_score(result.info.score, result.info.mate)
            finally:
                board.pop()
            this_round.append((move, value))
        if len(this_round) == len(moves) or not scored:
            scored = this_round or scored
        if len(this_round) < len(moves):
            break
        best_value = max(v for _, v in scored)
        if on_info is not None:
            best_move = max(scored, key=lambda pair: pair[1])[0]
            on_info(_root_info(SearchInfo, depth + 1, best_value, nodes, time.perf_counter() - started, best_move))
            reported = True
        if soft is not None and time.perf_counter() - started > 0.55 * soft and not limits.infinite:
            break
        depth += 1
    if not scored:
        fallback = _root_info(SearchInfo, 1, 0, nodes, time.perf_counter() - started, moves[0])
        if on_info is not None:
            on_info(fallback)
        return Choice(moves[0], None, fallback)
    best_value = max(v for _, v in scored)
    margin = skill_margin(skill) if weak else 0
    if is_scaled_mate(best_value):
        margin = 0  # never give away a forced result by chance
    candidates = [m for m, v in scored if v >= best_value - margin]
    choice = rng.choice(candidates) if weak else candidates[0]
    while limits.infinite and stopped is not None and not stopped.is_set():
        stopped.wait(0.01)  # "go infinite" answers only after stop
    final = _root_info(SearchInfo, min(depth, max_depth) + 1, dict(scored)[choice], nodes,
                       time.perf_counter() - started, choice)
    if on_info is not None and not reported:
        on_info(final)  # the clock ran out inside the first round: report what was scored
    return Choice(choice, None, final)


def _root_info(info_class, depth, value, nodes, elapsed, move):
    """A one-move SearchInfo for a root value on the `scaled_score` scale."""
    mate = scaled_mate_moves(value)
    return info_class(depth=depth, seldepth=depth, score=max(-30000, min(30000, value)), mate=mate,
                      nodes=nodes, time=elapsed, pv=[move], hashfull=0)

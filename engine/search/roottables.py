"""The endgame tables at the root: the tables' own move when they hold the position (a
quickest win, a draw kept, a longest loss, with the fifty-move rule respected), and the
tables the kernels may probe below the root.
"""

from __future__ import annotations

import time

import numpy as np

from .. import tablebase
from ..rules.moves import Move
from .limits import Limits, SearchInfo, SearchResult
from .scores import mate_in_plies, mated_in_plies
from .state import ProbeTables, no_tables

TABLE_PIECES = 4  # the root asks the tables only with at most this many pieces
# The root probe reads its tables on the clock only when the estimate is at most this share
# of it: under load (four engines on two cores) a read took 2-4x the estimate, and the
# search after it still needs its own budget.
WAIT_SHARE = 0.1


class RootTables:
    """Which tables a Searcher uses (`path`: None the default folder, "" none) and the
    scratch space the probing kernels of its main thread use."""

    def __init__(self):
        self.path: str | None = None
        self.work = np.zeros(64, dtype=np.int64)
        self.none = no_tables(self.work)

    def probing(self, game, limits: Limits) -> ProbeTables:
        """The kernels' ProbeTables: the tables reachable from the position that are in
        memory (more are read in the background for later moves), or none for a depth- or
        node-bounded search (a fixed workload) or without tables."""
        if self.path == "" or limits.depth is not None or limits.nodes is not None:
            return self.none
        tb = tablebase.open_tablebase(game.variant, self.path)
        if tb is None:
            return self.none
        limit, tdesc, keymap, buf = tb.search_tables(game.position())
        if not limit[0]:
            return self.none
        return ProbeTables(limit, tdesc, keymap, tablebase.GEO, buf, self.work)

    def result(self, game, limits: Limits, started: float, hashfull: int) -> SearchResult | None:
        """The tables' best move when they hold the position, as a one-line info with
        tbhits; else None."""
        if self.path == "" or limits.root_moves or (limits.multipv or 1) > 1:
            return None
        if limits.depth is not None or limits.nodes is not None:
            return None  # a fixed workload (go depth/nodes, bench), as for the proof stage
        if game.piece_count("white") + game.piece_count("black") > TABLE_PIECES:
            return None
        tb = tablebase.open_tablebase(game.variant, self.path)
        if tb is None:
            return None
        try:
            wait = can_wait_for_tables(tb, game, limits)
            probe = tb.probe(game, wait=wait)
        except tablebase.TablebaseError:
            return None
        if not probe.moves:
            return None
        legal = {m.uci(): m for m in game.legal_moves()}
        move = fifty_move_choice(tb, game, probe, legal, wait) or legal[probe.moves[0]]
        plies = abs(probe.codes[probe.moves.index(move.uci())]) - 1 if probe.value != "draw" else 0
        mate = None if probe.value == "draw" else (1 if probe.value == "win" else -1) * ((plies + 1) // 2)
        score = 0 if mate is None else (mate_in_plies(plies) if mate > 0 else mated_in_plies(plies))
        info = SearchInfo(depth=1, seldepth=1, score=score, mate=mate, nodes=0,
                          time=time.perf_counter() - started, pv=[move], hashfull=hashfull, tbhits=1)
        return SearchResult(move, None, info)


def fifty_move_choice(tb, game, probe, legal: dict, wait: bool) -> Move | None:
    """The move the fifty-move rule asks for instead of the tables' first (None: that one).

    The DTM tables ignore the rule.  A win whose distance fits in what is left of the
    clock is played by DTM (it ends the game in time, and stays within the clock all the
    way).  A longer one follows the DTZ companion: among the winning moves, those that
    keep a win the rule allows come first (a capture or pawn move into such a win, or a
    move whose next capture or pawn move comes in time), then the fewest plies to the
    next capture or pawn move, then the quickest win.  Without a companion, the quickest
    winning move that resets the clock comes first (there are finitely many: each takes
    a piece or moves a pawn).  A lost position prefers, longest loss first, the moves
    after which the rule saves it: into a loss the companion marks saved, or with the
    opponent's next capture or pawn move beyond the clock."""
    if not game.rules.draw_rules or probe.value == "draw":
        return None
    clock = game.halfmove_clock
    limit = tablebase.FIFTY_MOVE_PLIES
    if probe.distance + clock <= limit - 2:
        return None  # the game ends before the rule could draw it
    moves = [legal[text] for text in probe.moves]  # a win: quickest first; a loss: longest first
    outcomes = tb.zeroing_plies(game, moves, wait)
    if probe.value == "win":
        if outcomes is None:
            return next((move for move in moves if resets_clock(game, move)), None)

        def rank(i):
            drawn, plies = outcomes[moves[i].uci()]
            return (drawn or (plies > 1 and clock + plies > limit), plies, probe.codes[i])

        return moves[min(range(len(moves)), key=rank)]
    if outcomes is None:
        return None
    return next((move for move in moves if outcomes[move.uci()][0]
                 or (outcomes[move.uci()][1] > 1 and clock + outcomes[move.uci()][1] > limit)), None)


def can_wait_for_tables(tb, game, limits: Limits) -> bool:
    """Whether the root probe may read its tables from disk now: in analysis, or when
    reading them takes at most WAIT_SHARE of the clock (every later move of the ending is
    then answered at once); otherwise the background thread reads them and this move is
    searched."""
    if limits.infinite:
        return True
    clock = limits.movetime if limits.movetime is not None else (
        limits.wtime if game.turn == "white" else limits.btime)
    return clock is not None and tb.unread_seconds(game.position()) <= WAIT_SHARE * max(0.0, clock - limits.overhead)


def resets_clock(game, move: Move) -> bool:
    """True when `move` resets the halfmove clock or forces the reply to: a capture, a
    pawn move, or a move after which every reply captures (compulsory capture)."""
    if tablebase.zeroing_move(game, move):
        return True
    game.push(move)
    try:
        replies = game.legal_moves()
        return bool(replies) and all(reply.is_capture for reply in replies)
    finally:
        game.pop()

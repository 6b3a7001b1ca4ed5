"""Time management: how long to think about a move, and when an iteration was unstable
enough to let the next one start later."""

from __future__ import annotations

from .limits import Limits

UNSTABLE_FROM_DEPTH = 6  # from this depth on, a new best move or ...
UNSTABLE_DROP = 40  # ... a score falling by more than this many centipawns from one depth to the next
UNSTABLE_FACTOR = 2.0  # lets the next iteration start this much later
SOFT_SHARE = 0.6  # an iteration starts only while less than this share of the soft limit is spent


def unstable_iteration(previous: tuple[object, int] | None, best_move, score: int, depth: int) -> bool:
    """Whether the iteration just finished at `depth` (UNSTABLE_FROM_DEPTH or more) changed
    the best move of `previous` (the last iteration's best move and score) or dropped its
    score by more than UNSTABLE_DROP: then the next iteration may start later
    (UNSTABLE_FACTOR)."""
    if previous is None or depth < UNSTABLE_FROM_DEPTH:
        return False
    return best_move != previous[0] or score < previous[1] - UNSTABLE_DROP


def budget(game, limits: Limits) -> tuple[float | None, float | None]:
    """(soft, hard) time limits in seconds for the move to play in `game`; None when
    unbounded.  The hard limit stops the search; past the soft one no new iteration starts.

    A depth or node limit bounds the search by itself: the proof-number stage is skipped
    then, so `go depth N` costs what a depth-N search costs.
    """
    if limits.infinite:
        return None, None
    if limits.movetime is not None:
        hard = max(0.005, limits.movetime - limits.overhead)
        return hard, hard
    clock = limits.wtime if game.turn == "white" else limits.btime
    if clock is None:
        return None, None
    increment = limits.winc if game.turn == "white" else limits.binc
    left = max(0.0, clock - limits.overhead)
    # Losing-chess games are short (40-80 plies): plan for fewer moves than in chess.
    if limits.movestogo:
        moves = limits.movestogo
    elif game.rules.must_capture:
        # The opening decides these games: more time while the board is still full.
        pieces = game.piece_count("white") + game.piece_count("black")
        moves = 8 if pieces >= 24 else 12
    else:
        moves = 30
    target = left / max(1, moves) + 0.75 * increment
    hard = min(left * 0.4, target * 3)
    if left < 1.0:
        hard = min(hard, left / 8)  # a nearly empty clock: Python's own overheads count
    soft = min(target, hard)
    return max(0.002, soft), max(0.005, hard)

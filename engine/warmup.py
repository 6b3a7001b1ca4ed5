"""Compile every kernel once, so that later processes load them from the disk cache."""

from __future__ import annotations

import time


def warmup() -> float:
    """Exercise every kernel the facade calls, under every rule set; return the seconds taken."""
    from .game import Game
    from .rules import RULE_SETS

    started = time.perf_counter()
    for name in RULE_SETS:
        game = Game(name)
        game.is_check()
        game.outcome(claim_draw=True)
        moves = game.legal_moves()
        game.perft(2)
        game.perft_divide(1)
        game.push(moves[0])
        game.is_legal("a1a1")
        game.is_legal("h8h1")
        game.pop()
        game.search(depth=2)
        game.search(movetime=0.05)  # a timed search also compiles the proof-number search
    return time.perf_counter() - started

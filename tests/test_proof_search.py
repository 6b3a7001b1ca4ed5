"""Proof-number search: proofs, disproofs, and the root veto of moves that lose by force."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine import Game, Limits, Searcher
from engine.search.proof import DISPROVEN, PROVEN

ROOT = Path(__file__).resolve().parents[1]


def test_proves_a_forced_win_and_names_the_winning_moves():
    # White's rook steps onto the b-file or the eighth rank and must be taken: white wins.
    game = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 0 1")
    status, children = Searcher().prove(game, "white", 10_000)
    assert status == PROVEN
    winning = {move.uci() for move, proof, _ in children if proof == 0}
    # The search stops at the first proof: at least one of the two winning moves is proven.
    assert winning and winning <= {"a1b1", "a1a8"}
    assert game.fen() == "1r6/8/8/8/8/8/8/R7 w - - 0 1"


def test_disproves_a_win_for_the_losing_side():
    game = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 0 1")
    status, _ = Searcher().prove(game, "black", 10_000)
    assert status == DISPROVEN


def test_a_draw_is_not_a_win():
    # Suicide: white's a3 pawn is blocked by black's a4 pawn; white has no move and the
    # piece counts are equal: a draw, which is not a win for white.
    game = Game("suicide", "8/8/8/8/p7/P7/8/8 w - - 0 1")
    status, _ = Searcher().prove(game, "white", 10_000)
    assert status == DISPROVEN  # equal pieces, no move: a draw, not a win


def test_the_fifty_move_rule_and_dead_bishops_are_not_wins():
    # The rook's sacrifice wins unless the clock reaches 100 plies first.
    in_time = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 98 80")
    assert Searcher().prove(in_time, "white", 10_000)[0] == PROVEN
    too_late = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 99 80")
    assert Searcher().prove(too_late, "white", 10_000)[0] == DISPROVEN
    # Black wins after the forced Bxd2 only where the bishops can still meet.
    alive = Game("antichess", "8/8/8/8/3b4/8/3p4/2B5 w - - 0 30")
    assert Searcher().prove(alive, "black", 10_000)[0] == PROVEN
    dead = Game("antichess", "8/8/8/8/4b3/8/3p4/2B5 w - - 0 30")
    assert Searcher().prove(dead, "black", 10_000)[0] == DISPROVEN


def test_search_plays_the_proven_win():
    game = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 0 1")
    result = Searcher().search(game, Limits(movetime=0.3))
    assert result.best_move.uci() in {"a1b1", "a1a8"}


def test_root_veto_excludes_a_move_that_loses_by_force():
    # White: rook a1 and pawn h2; black: rook b8.  Ra1-b1?? or Ra8 loses the rook and keeps
    # the pawn... every white move is analysed; whichever the proof search marks as losing
    # by force must not be chosen.
    game = Game("antichess", "1r6/8/8/8/8/8/7P/R7 w - - 0 1")
    searcher = Searcher()
    status, children = searcher.prove(game, "black", 200_000)
    losing = {move.uci() for move, proof, _ in children if proof == 0}
    result = searcher.search(game, Limits(movetime=0.5))
    if len(losing) < len(game.legal_moves()):
        assert result.best_move.uci() not in losing


def test_bench_signature_is_deterministic():
    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-m", "antichess", "bench", "--depth", "3"], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    first, second = run(), run()
    assert first[1].startswith("Nodes searched  : ")
    assert first[1] == second[1]
    assert int(first[1].split(":")[1]) > 1000


def test_move_counter_agrees_with_the_generator():
    """search.count_moves_and_captures (used by the evaluation and at quiet leaves) equals the
    legal move count, and the capture count, that it replaces."""
    import random

    from engine.search.static import count_moves_and_captures

    rng = random.Random(5)
    checked_captures = 0
    for variant in ("antichess", "giveaway", "suicide", "hackerrank"):
        for _ in range(15):
            game = Game(variant)
            for _ in range(rng.randrange(0, 60)):
                moves = game.legal_moves()
                if not moves:
                    break
                game.push(rng.choice(moves))
            if game.outcome() is None:
                legal = game.legal_moves()
                moves, captures = count_moves_and_captures(game.position(), game.rules_array)
                assert moves == len(legal), game.fen()
                assert captures == sum(1 for move in legal if move.is_capture), game.fen()
                checked_captures += captures > 0
    assert checked_captures > 5  # the sample must contain positions with captures

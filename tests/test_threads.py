"""Lazy SMP: a search with helper threads sharing the transposition table returns legal
moves and consistent scores in every rule set, obeys stop in every thread, and is set with
UCI `Threads` or CECP `cores`."""

from __future__ import annotations

import os
import threading
import time

import pytest

from engine import Game, Limits, Searcher
from engine import BENCH_POSITIONS
from engine.search.scores import MATE
from protocols.transcript import EngineDriver, run_transcript


def _helpers_alive() -> int:
    return sum(thread.name.startswith("search-helper") for thread in threading.enumerate())


@pytest.mark.parametrize("variant,fen", BENCH_POSITIONS, ids=[f"{v}-{i}" for i, (v, _) in enumerate(BENCH_POSITIONS)])
def test_two_threads_return_a_legal_move_and_pv_in_every_rule_set(variant, fen):
    searcher = Searcher(hash_mb=8)
    searcher.set_threads(2)
    game = Game(variant, fen)
    result = searcher.search(game, Limits(depth=5, proof=False))
    assert not game.move_stack  # the game is left as it was
    assert game.is_legal(result.best_move)
    replay = game.copy()
    for move in result.info.pv:
        replay.push(move)  # raises on an illegal PV move
    assert -MATE < result.info.score < MATE
    assert result.info.nodes >= int(searcher.state[0]) > 0  # the helper's nodes are counted too
    assert _helpers_alive() == 0
    single = Searcher(hash_mb=8).search(Game(variant, fen), Limits(depth=5, proof=False))
    assert abs(result.info.score - single.info.score) < 400 or (result.info.mate and single.info.mate)


def test_two_threads_find_the_same_forced_win():
    # mit-antichess: Qxb7 mates at once; the result must not depend on the thread count.
    fen = "k7/1p6/1K6/8/8/8/8/7Q w - - 0 1"
    for threads in (1, 2, 3):
        searcher = Searcher(hash_mb=4)
        searcher.set_threads(threads)
        result = searcher.search(Game("mit-antichess", fen), Limits(depth=4))
        assert result.best_move.uci() == "h1b7" and result.info.mate == 1, threads


def test_every_thread_stops_on_stop():
    searcher = Searcher(hash_mb=16)
    searcher.set_threads(2)
    game = Game("antichess")
    game.push("e2e3")
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=searcher.search(game, Limits(infinite=True, proof=False))),
                              daemon=True)
    worker.start()
    try:
        time.sleep(0.5)
        assert _helpers_alive() == 1
    finally:
        asked = time.perf_counter()
        searcher.stop()  # a failed check must not leave an infinite search running
        worker.join(5)
    assert not worker.is_alive() and time.perf_counter() - asked < 1.0
    assert _helpers_alive() == 0
    assert game.is_legal(outcome["result"].best_move)


def test_one_thread_keeps_the_node_signature():
    game = Game("antichess", "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6")
    plain = Searcher(hash_mb=16).search(game, Limits(depth=6, proof=False))
    searcher = Searcher(hash_mb=16)
    searcher.set_threads(2)
    searcher.set_threads(1)
    again = searcher.search(game, Limits(depth=6, proof=False))
    assert (again.info.nodes, again.best_move, again.info.score) == (plain.info.nodes, plain.best_move, plain.info.score)


def test_uci_threads_option():
    with EngineDriver.in_process("uci") as engine:
        engine.send("setoption name Threads value 2", "setoption name UCI_Variant value losers",
                    "position startpos moves e2e4", "go depth 5")
        best = engine.expect_prefix("bestmove", timeout=30).split()[1]
        game = Game("losers")
        game.push("e2e4")
        assert game.is_legal(best)
        engine.send("go infinite")
        time.sleep(0.3)
        engine.send("stop", "isready")
        engine.expect("readyok", timeout=5)
        assert sum(line.startswith("bestmove") for line in engine.output) == 2
    out = run_transcript("uci", ["setoption name Threads value 0", f"setoption name Threads value {os.cpu_count() + 1}"])
    assert out == [f"info string error: option Threads value 0 is out of range 1..{os.cpu_count()}",
                   f"info string error: option Threads value {os.cpu_count() + 1} is out of range 1..{os.cpu_count()}"]


def test_cecp_cores():
    out = run_transcript("xboard", ["new", "variant suicide", "cores 2", "cores 0", "cores many", "sd 4", "go"])
    assert out[0] == "Error (bad cores, want an integer >= 1): cores 0"
    assert out[1] == "Error (bad cores, want an integer >= 1): cores many"
    move = out[2].split()[1]
    assert out[2].startswith("move ") and Game("suicide").is_legal(move)

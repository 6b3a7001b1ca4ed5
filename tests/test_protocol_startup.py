"""Start-up: the protocol is chosen by the first line; `uciok` and `feature done=0` come
before numba loads; the first move follows soon after.  Generous bounds here (the targets,
0.15 s for uciok and 1 s for a first bestmove, are measured and reported in
docs/protocols.md); the numba cache is warm (tests/conftest.py)."""

from __future__ import annotations

import time

from engine import Game
from protocols.auto import choose
from protocols.transcript import EngineDriver


def test_first_line_chooses_the_protocol():
    assert choose("xboard") == "xboard"
    assert choose("uci") == "uci"
    assert choose("isready") == "uci"
    assert choose("xboard extra") == "xboard"


def test_uciok_at_once_then_readyok_and_a_first_bestmove():
    started = time.monotonic()
    engine = EngineDriver.subprocess(["antichess"])
    engine.send("uci")
    engine.expect("uciok", timeout=10)
    uciok = time.monotonic() - started
    engine.send("isready")
    engine.expect("readyok", timeout=30)
    engine.send("position startpos", "go movetime 100")
    best = engine.expect_prefix("bestmove", timeout=30)
    first_move = time.monotonic() - started
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    assert Game("chess").is_legal(best.split()[1])
    assert uciok < 1.0, uciok  # measured about 0.05 s
    assert first_move < 5.0, first_move  # measured about 0.8 s


def test_a_first_go_without_isready_still_answers():
    started = time.monotonic()
    engine = EngineDriver.subprocess(["antichess", "uci"])
    engine.send("position startpos moves e2e4", "go movetime 100")
    best = engine.expect_prefix("bestmove", timeout=30)
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    game = Game("chess")
    game.push("e2e4")
    assert game.is_legal(best.split()[1])
    assert time.monotonic() - started < 5.0


def test_cecp_sends_done_0_at_once_and_done_1_when_loaded():
    started = time.monotonic()
    engine = EngineDriver.subprocess(["antichess"])
    engine.send("xboard", "protover 2")
    engine.expect("feature done=0", timeout=10)
    first = time.monotonic() - started
    engine.expect("feature done=1", timeout=30)
    assert engine.output.index("feature done=0") == 0
    engine.send("new", "st 0.1", "go")
    move = engine.expect_prefix("move ", timeout=30)
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    assert Game("chess").is_legal(move.split()[1])
    assert first < 1.0, first


def test_end_of_input_before_any_command_exits_cleanly():
    engine = EngineDriver.subprocess(["antichess"])
    assert engine.close(timeout=10) == 0
    assert engine.output == []

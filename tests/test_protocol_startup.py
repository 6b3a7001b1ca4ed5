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


def wait_for_file(path, timeout: float) -> bool:
    """True once `path` exists, False after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.2)
    return False


def test_first_start_on_an_empty_cache_plays_at_once_and_compiles_in_the_background(tmp_path):
    """An empty kernel cache: `readyok` and a legal `bestmove` within its time budget come at
    once (interpreted kernels), the GUI is told about the compilation, which runs in a
    worker process; the engine then plays compiled, and the next start only loads."""
    import os

    env = dict(os.environ, ANTICHESS_CACHE_DIR=str(tmp_path))
    engine = EngineDriver.subprocess(["antichess", "uci"], env=env)
    started = time.monotonic()
    engine.send("uci", "isready")
    engine.expect("readyok", timeout=10)
    ready = time.monotonic() - started
    engine.wait_for(lambda line: line.startswith("info string compiling the engine's kernels"), timeout=10)
    engine.send("setoption name UCI_Variant value antichess", "position startpos moves e2e3")
    sent = time.monotonic()
    engine.send("go movetime 100")
    best = engine.expect_prefix("bestmove", timeout=10)
    answered = time.monotonic() - sent
    game = Game("antichess")
    game.push("e2e3")
    assert game.is_legal(best.split()[1])
    assert ready < 2.0, ready  # measured about 0.1 s
    assert answered < 1.0, answered  # movetime 100 ms: kept while compiling (measured about 0.2 s)

    # An interpreted analysis still running when the worker finishes: the switch to the
    # compiled kernels waits for it, and `isready` meanwhile is answered at once.
    from engine.jit.cache import COMPLETE_MARKER, source_hash

    mark = engine.mark()
    engine.send("go infinite")
    assert wait_for_file(tmp_path / source_hash() / COMPLETE_MARKER.name, timeout=300)
    time.sleep(0.5)
    engine.send("isready")
    engine.expect("readyok", timeout=3, start=mark)
    engine.send("stop")
    best = engine.expect_prefix("bestmove", timeout=10, start=mark)
    assert game.is_legal(best.split()[1])
    engine.expect_prefix("info string kernels compiled in", timeout=120, start=mark)
    mark = engine.mark()
    engine.send("isready")
    engine.expect("readyok", timeout=30, start=mark)
    engine.send("go depth 6")
    best = engine.expect_prefix("bestmove", timeout=60, start=mark)
    assert game.is_legal(best.split()[1])
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    assert [path.name for path in tmp_path.glob("*/complete*")] == [COMPLETE_MARKER.name]

    second = EngineDriver.subprocess(["antichess", "uci"], env=env)
    second.send("uci", "isready")
    second.expect("readyok", timeout=30)
    second.send("quit")
    assert second.close(timeout=10) == 0
    assert not any("compiling" in line for line in second.output), second.output


def test_a_quit_during_the_first_compilation_still_completes_the_cache(tmp_path):
    """The worker outlives an engine that quits early, so the next start finds the cache."""
    import os

    env = dict(os.environ, ANTICHESS_CACHE_DIR=str(tmp_path))
    engine = EngineDriver.subprocess(["antichess", "xboard"], env=env)
    engine.send("xboard", "protover 2")
    engine.expect("feature done=1", timeout=10)  # at once, not after the compilation
    engine.expect_prefix("# compiling the engine's kernels", timeout=10)
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    from engine.jit.cache import COMPLETE_MARKER, source_hash

    assert wait_for_file(tmp_path / source_hash() / COMPLETE_MARKER.name, timeout=300)

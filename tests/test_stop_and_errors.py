"""Every error names the input it got (UCI, CECP, the command
line), and a perft stops at once on `stop`, `quit` or Ctrl-C, after which the engine answers
the next command at once."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import Game
from engine import PerftStopped, StopFlag
from protocols.transcript import EngineDriver, run_transcript

ROOT = Path(__file__).resolve().parents[1]
LONG_PERFT = 9  # chess from the start: minutes of counting, never finished in a test


# -- errors name their input ---------------------------------------------------------------

def test_uci_position_error_names_the_move_it_got():
    out = run_transcript("uci", ["position startpos moves e2e4 e7e5 zzzz", "position startpos moves e2e4 e7e5 e1e1",
                                 "position fen 8/8/8/8/8/8/8/8 w - - 0 1", "position startpos",
                                 "go depth 1 searchmoves e2e4 zz9"])
    assert out[0] == "info string error: move 'zzzz' in position: not a move: 'zzzz'; position unchanged"
    assert out[1] == ("info string error: move 'e1e1' in position: passing is allowed only without a legal move; "
                      "position unchanged")
    assert out[2].startswith("info string error: invalid FEN '8/8/8/8/8/8/8/8 w - - 0 1' for chess:")
    assert "'zz9'" in out[3] and "searchmoves" in out[3]
    assert not any("0000" in line.split() for line in out)  # no null move (a word, not "nps 10000")


def test_uci_king_square_twice_is_still_a_pass():
    out = run_transcript("uci", ["setoption name UCI_Variant value mit-antichess",
                                 "position fen k7/8/8/8/8/7p/5q1P/7K w - - 0 1 moves h1h1", "d"])
    assert out == ["info string variant mit-antichess fen k7/8/8/8/8/7p/5q1P/7K b - - 1 1"]


def test_cecp_errors_name_their_input():
    out = run_transcript("xboard", ["new", "force", "usermove zzzz", "option Hash=lots", "option Hash=0",
                                     "setboard 8/8/8/8/8/8/8/8 w - - 0 1", "ping 1"])
    assert out == ["Illegal move (not a move): zzzz",
                   "Error (option value 'lots' is not an integer): option Hash=lots",
                   "Error (option value 0 out of range 1..1024): option Hash=0",
                   "tellusererror Illegal position '8/8/8/8/8/8/8/8 w - - 0 1': white must have exactly one king, has 0",
                   "pong 1"]


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "antichess", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, **kwargs)


@pytest.mark.parametrize("args,fragment", [
    (("perft", "--depth", "1", "--moves", "e2e4", "e7e5", "zzzz"), "move 'zzzz' after e2e4 e7e5: not a move: 'zzzz'"),
    (("perft", "--depth", "1", "--moves", "e2e4", "e2e4"), "move 'e2e4' after e2e4: no piece on e2"),
    (("perft", "--depth", "1", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"), "invalid FEN '8/8/8/8/8/8/8/8 w - - 0 1'"),
    (("perft", "--depth", "deep"), "got 'deep'"),
    (("perft", "--depth", "31"), "got 31"),
    (("perft", "--variant", "atomic", "--depth", "1"), "'atomic'"),
])
def test_cli_errors_name_their_input(args, fragment):
    done = _cli(*args)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("antichess: error:") and fragment in done.stderr, done.stderr


def test_cli_perft_after_moves():
    done = _cli("perft", "--variant", "antichess", "--depth", "2", "--moves", "e2e3", "b7b5")
    assert done.returncode == 0, done.stderr
    game = Game("antichess")
    game.push("e2e3")
    game.push("b7b5")
    assert done.stdout.splitlines() == [f"Nodes searched: {game.perft(2)}"]


# -- perft stops at once ------------------------------------------------------------------

def test_game_perft_stops_within_a_fraction_of_a_second():
    game = Game("chess")
    fen = game.fen()
    stop = StopFlag()
    outcome = {}

    def work():
        try:
            outcome["nodes"] = game.perft(LONG_PERFT, stop)
        except PerftStopped:
            outcome["stopped"] = time.perf_counter()

    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(0.5)
    asked = time.perf_counter()
    stop.set()
    worker.join(5)
    assert not worker.is_alive() and "stopped" in outcome
    assert outcome["stopped"] - asked < 1.0  # target 0.1 s; measured far below
    assert game.fen() == fen and game.perft(3) == 8902  # unchanged, and counts again
    stop.clear()
    assert len(game.perft_divide(2, stop)) == 20


def test_a_set_flag_stops_before_counting():
    stop = StopFlag()
    stop.set()
    with pytest.raises(PerftStopped):
        Game("antichess").perft(3, stop)
    with pytest.raises(PerftStopped):
        Game("antichess").perft_divide(3, stop)


def test_uci_go_perft_stops_on_stop_and_isready_answers_at_once():
    with EngineDriver.in_process("uci") as engine:
        engine.send("isready")
        engine.expect("readyok", timeout=60)
        engine.send("position startpos", f"go perft {LONG_PERFT}")
        time.sleep(0.5)
        mark = engine.mark()
        asked = time.perf_counter()
        engine.send("stop")
        engine.expect(f"info string perft {LONG_PERFT} stopped", timeout=5, start=mark)
        stopped = time.perf_counter() - asked
        engine.send("isready")
        engine.expect("readyok", timeout=5, start=mark)
        ready = time.perf_counter() - asked
        assert stopped < 1.0 and ready < 1.0, (stopped, ready)
        assert not any(line.startswith("Nodes searched") for line in engine.output)
        engine.send("go perft 2")
        engine.expect("Nodes searched: 400", timeout=10)


def test_uci_quit_during_perft_exits_at_once():
    engine = EngineDriver.subprocess(["antichess", "uci"])
    engine.send("uci", "isready")
    engine.expect("readyok", timeout=120)
    engine.send("position startpos", f"go perft {LONG_PERFT}")
    time.sleep(0.5)
    asked = time.perf_counter()
    engine.send("quit")
    assert engine.close(timeout=20) == 0
    assert time.perf_counter() - asked < 5.0  # the process exit itself included
    assert engine.output[-1] == f"info string perft {LONG_PERFT} stopped"


@pytest.mark.parametrize("command", [
    ["perft", "--depth", str(LONG_PERFT)],
    ["bench", "--depth", "20"],  # depth 20 on the first position alone would take many minutes
], ids=["perft", "bench"])
def test_cli_long_commands_stop_on_ctrl_c(command):
    process = subprocess.Popen([sys.executable, "-m", "antichess", *command], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)  # imports and kernel loading, then counting or searching
    asked = time.perf_counter()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert time.perf_counter() - asked < 5.0  # the interpreter's exit included
    assert process.returncode == 130 and out == ""
    assert err == "antichess: interrupted\n"


def test_uci_ctrl_c_stops_the_running_command_and_the_engine_answers_at_once():
    engine = EngineDriver.subprocess(["antichess", "uci"])
    engine.send("uci", "isready")
    engine.expect("readyok", timeout=120)
    engine.send("position startpos", f"go perft {LONG_PERFT}")
    time.sleep(0.5)
    mark = engine.mark()
    asked = time.perf_counter()
    engine.process.send_signal(signal.SIGINT)
    engine.expect(f"info string perft {LONG_PERFT} stopped", timeout=5, start=mark)
    engine.send("isready")
    engine.expect("readyok", timeout=5, start=mark)
    assert time.perf_counter() - asked < 1.0
    engine.send("go infinite")
    time.sleep(0.5)
    mark = engine.mark()
    engine.process.send_signal(signal.SIGINT)
    engine.expect_prefix("bestmove ", timeout=5, start=mark)
    engine.send("isready")
    engine.expect("readyok", timeout=5, start=mark)
    time.sleep(0.2)
    engine.process.send_signal(signal.SIGINT)  # nothing running: Ctrl-C ends the engine
    assert engine.process.wait(20) == 130

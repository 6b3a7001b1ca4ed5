"""What the tournament adapters send for a move request (an `engine.Limits` with the mover and
the forfeit deadline) and how they read an engine's scores (through engine's score
functions), against two tiny scripted engines that record every line they get."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine import Limits, scaled_score
from tournaments.engines import MoveRequest, engine_config, open_engine

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

UCI_SCRIPT = """
import sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Recorder")
        print("uciok")
    elif words[0] == "isready":
        print("readyok")
    elif words[0] == "go":
        print("info depth 6 score cp 35")
        print("info depth 7 score " + sys.argv[2])
        print("bestmove a7a6")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""

CECP_SCRIPT = """
import sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    words = line.split()
    if not words:
        continue
    if words[0] == "protover":
        print("feature ping=1 setboard=1 usermove=1 time=1 done=1")
    elif words[0] == "ping":
        print("pong " + words[1])
    elif words[0] == "go":
        print("7 " + sys.argv[2] + " 10 1000 a7a6")
        print("move a7a6")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


def scripted(tmp_path: Path, protocol: str, score: str, tc: str = "10+0.1"):
    """A started scripted engine (`score`: what it reports at depth 7) and its input log."""
    script = tmp_path / f"{protocol}.py"
    script.write_text(UCI_SCRIPT if protocol == "uci" else CECP_SCRIPT)
    log = tmp_path / f"{protocol}.log"
    config = engine_config([("cmd", f"{sys.executable} {script} {log}"), ("arg", score),
                            ("proto", protocol), ("tc", tc)])
    engine = open_engine(config)
    engine.start()
    engine.new_game("chess", START, True)
    return engine, log


def sent(log: Path, prefix: str) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize("score, scaled", [("mate 3", 99997), ("mate -2", -99998), ("cp -120", -120),
                                           ("mate 0", 35)])  # mate 0 is no score: the last one stands
def test_uci_clocks_by_colour_and_scores_on_one_scale(tmp_path, score, scaled):
    engine, log = scripted(tmp_path, "uci", score)
    try:
        request = MoveRequest(Limits(wtime=9.5, btime=8.25, winc=0.1, binc=0.1), mover="black", deadline=8.3)
        reply = engine.play(["e2e4"], request)
        assert sent(log, "go") == ["go wtime 9500 btime 8250 winc 100 binc 100"]
        assert (reply.text, reply.depth, reply.score) == ("a7a6", 7, scaled)
        if score.startswith("mate") and score != "mate 0":
            kind, value = score.split()
            assert reply.score == scaled_score(0, int(value))
        engine.play(["e2e4", "a7a6", "e2e3"], MoveRequest(Limits(movetime=0.25, depth=3, nodes=5000), "black"))
        assert sent(log, "go")[1] == "go movetime 250 depth 3 nodes 5000"
        engine.play(["e2e4", "a7a6", "e2e3", "a6a5", "d2d3"],
                    MoveRequest(Limits(wtime=1.0, btime=2.0, movestogo=7), mover="black"))
        assert sent(log, "go")[2] == "go wtime 1000 btime 2000 movestogo 7"
        engine.play(["e2e4", "a7a6", "e2e3", "a6a5", "d2d3", "a5a4", "d3d4"], MoveRequest(Limits(), "black"))
        assert sent(log, "go")[3] == "go infinite"
    finally:
        engine.quit()


@pytest.mark.parametrize("score, scaled", [("100003", 99997), ("-100002", -99998), ("-100000", -100000),
                                           ("123456789", 99001), ("-45", -45)])
def test_cecp_clocks_of_the_mover_and_scores_on_one_scale(tmp_path, score, scaled):
    engine, log = scripted(tmp_path, "xboard", score)
    try:
        request = MoveRequest(Limits(wtime=9.5, btime=8.25, winc=0.1, binc=0.1), mover="black", deadline=8.3)
        reply = engine.play(["e2e4"], request)
        assert sent(log, "time") == ["time 825"] and sent(log, "otim") == ["otim 950"]
        assert (reply.text, reply.depth, reply.score) == ("a7a6", 7, scaled)
    finally:
        engine.quit()


def test_a_move_past_the_deadline_is_a_time_forfeit(tmp_path):
    from tournaments.engines import EngineFailure

    script = tmp_path / "silent.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    w = line.split()\n"
                      "    if w and w[0] == 'uci': print('uciok', flush=True)\n"
                      "    if w and w[0] == 'isready': print('readyok', flush=True)\n")
    engine = open_engine(engine_config([("cmd", f"{sys.executable} {script}"), ("tc", "1+0")]))
    engine.start()
    engine.new_game("chess", START, True)
    try:
        with pytest.raises(EngineFailure) as failure:
            engine.play([], MoveRequest(Limits(wtime=0.1, btime=0.1), mover="white", deadline=0.2))
        assert failure.value.kind == "time"
    finally:
        engine.kill()

"""Fuzz: thousands of random and malformed lines to each protocol, in-process and through a
real process.  Nothing may crash (no `internal error` line, the process stays up), and
afterwards the engine still answers `isready` / `ping` and plays a legal move."""

from __future__ import annotations

import random

import pytest

from engine import Game
from protocols.transcript import EngineDriver

UCI_WORDS = ["uci", "isready", "ucinewgame", "position", "go", "stop", "ponderhit", "setoption", "debug", "d",
             "register", "startpos", "fen", "moves", "name", "value", "UCI_Variant", "Hash", "Skill", "Level",
             "Move", "Overhead", "Clear", "Ponder", "wtime", "btime", "winc", "binc", "movestogo", "movetime",
             "depth", "nodes", "mate", "infinite", "ponder", "perft", "searchmoves", "true", "false"]
CECP_WORDS = ["new", "variant", "force", "go", "playother", "level", "st", "sd", "nps", "time", "otim",
              "usermove", "?", "ping", "result", "setboard", "undo", "remove", "post", "nopost", "hard", "easy",
              "option", "lift", "put", "hover", "white", "black", "draw", "hint", "bk", "random", "computer",
              "accepted", "rejected", "name", "rating", "ics", "memory", "cores", "protover", "xboard", "."]
VARIANTS = ["chess", "standard", "normal", "antichess", "giveaway", "suicide", "losers", "mit-antichess",
            "antiking-antichess", "antiking1", "antiking2", "hackerrank", "atomic", "", "CHESS"]
NUMBERS = ["-1", "0", "1", "2", "3", "17", "250", "100000", "99999999999999999999", "1.5", "-0.5", "0:30",
           "5:xx", "nan", "inf", "1e400", "x", "", "0x10"]
FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "k7/8/8/8/8/7p/5q1P/7K w - - 0 1",
        "8/8/8/8/8/8/1p6/2B5 w - - 0 1", "rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"]
SQUARES = [f + r for f in "abcdefghz" for r in "123456789"]


def random_move(rng: random.Random) -> str:
    """A move-like string: often well formed, sometimes not."""
    choice = rng.random()
    if choice < 0.1:
        return rng.choice(["0000", "@@@@", "e1e1", "pass", "e2-e4", "e7e8q", "e7e8k", "e7e8x", "a7a8Q"])
    return rng.choice(SQUARES) + rng.choice(SQUARES) + (rng.choice("qrbnkx") if choice > 0.9 else "")


def mutated_fen(rng: random.Random) -> str:
    fen = list(rng.choice(FENS))
    for _ in range(rng.randrange(0, 4)):
        position = rng.randrange(len(fen))
        fen[position] = rng.choice("/12345678kqrbnpaKQRBNPA- wbx")
    return "".join(fen)


def random_line(rng: random.Random, words: list[str]) -> bytes | str:
    kind = rng.random()
    if kind < 0.05:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))).replace(b"\n", b"")
    if kind < 0.1:
        return "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(0, 60)))
    if kind < 0.12:
        return " " * rng.randrange(5) + "\t"
    if kind < 0.13:
        return "x" * rng.randrange(1000, 20000)
    parts = [rng.choice(words)]
    for _ in range(rng.randrange(0, 6)):
        pick = rng.random()
        if pick < 0.3:
            parts.append(rng.choice(NUMBERS))
        elif pick < 0.45:
            parts.append(rng.choice(VARIANTS))
        elif pick < 0.65:
            parts.append(random_move(rng))
        elif pick < 0.75:
            parts.append(mutated_fen(rng))
        else:
            parts.append(rng.choice(words))
    return " ".join(parts)


def uci_lines(rng: random.Random, count: int) -> list:
    lines = []
    for _ in range(count):
        line = random_line(rng, UCI_WORDS)
        if isinstance(line, str) and line.startswith("go") and "perft" in line:
            line = "go perft " + rng.choice(["0", "1", "2", "x", "-1", "31"])  # no hour-long perft
        lines.append(line)
    return lines


def cecp_lines(rng: random.Random, count: int) -> list:
    return [random_line(rng, CECP_WORDS) for _ in range(count)]


def check_uci_alive(engine: EngineDriver) -> None:
    engine.send("stop", "fuzz-done")  # a unique line: the answer to it follows every fuzz line's
    engine.expect("info string unknown command: fuzz-done", timeout=60)
    mark = engine.mark()
    engine.send("isready")
    engine.expect("readyok", timeout=30, start=mark)
    engine.send("setoption name Skill Level value 20", "setoption name UCI_Variant value antichess",
                "position startpos moves e2e3", "go depth 3")
    best = engine.wait_for(lambda line: line.startswith("bestmove"), timeout=30, start=mark)
    game = Game("antichess")
    game.push("e2e3")
    assert game.is_legal(best.split()[1]), best


def check_cecp_alive(engine: EngineDriver) -> None:
    engine.send("force", "ping 424242")  # a unique ping: its pong follows every fuzz line's answer
    engine.expect("pong 424242", timeout=60)
    mark = engine.mark()
    engine.send("new", "variant suicide", "nps 0", "st 0.3", "sd 3", "option SkillLevel=20", "usermove e2e3")
    move = engine.expect_prefix("move ", timeout=30, start=mark)
    game = Game("suicide")
    game.push("e2e3")
    assert game.is_legal(move.split()[1]), move


def no_crash(output: list[str]) -> None:
    crashes = [line for line in output if "internal error" in line or "Traceback" in line]
    assert crashes == []


@pytest.mark.parametrize("seed", [1, 2])
def test_uci_survives_random_lines_in_process(seed):
    rng = random.Random(seed)
    with EngineDriver.in_process("uci") as engine:
        engine.send("uci", *uci_lines(rng, 2500))
        check_uci_alive(engine)
        no_crash(engine.output)


@pytest.mark.parametrize("seed", [1, 2])
def test_cecp_survives_random_lines_in_process(seed):
    rng = random.Random(seed)
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", *cecp_lines(rng, 2500))
        check_cecp_alive(engine)
        no_crash(engine.output)


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_a_real_process_survives_binary_garbage_and_random_lines(protocol):
    rng = random.Random(7)
    engine = EngineDriver.subprocess(["antichess"])
    first = "uci" if protocol == "uci" else "xboard"
    engine.send(first)
    lines = uci_lines(rng, 1000) if protocol == "uci" else ["protover 2", *cecp_lines(rng, 1000)]
    for line in lines:
        engine.send(line)
    engine.send(bytes(range(256)).replace(b"\n", b""), b"\xff\xfe\x00" * 1000, "\x1b[2J")
    (check_uci_alive if protocol == "uci" else check_cecp_alive)(engine)
    engine.send("quit")
    assert engine.close(timeout=30) == 0
    no_crash(engine.output)
    assert engine.process.stderr.read() == b""


def test_garbage_first_line_falls_back_to_uci():
    engine = EngineDriver.subprocess(["antichess"])
    engine.send(b"\x00\xff\xfe garbage", "isready")
    engine.expect("readyok", timeout=30)
    assert engine.output[0] == "info string unknown command: ?? garbage"
    engine.send("quit")
    assert engine.close(timeout=10) == 0

"""UCI adapter: transcripts (input lines -> exact output lines), in-process and through the
installed `antichess` command, plus the asynchronous commands (stop, ponderhit, isready
while thinking) and the options."""

from __future__ import annotations

import os
import re

import pytest

from engine import Game
from engine import get_rule_set
from protocols.host import UCI_VARIANT_NAMES
from protocols.transcript import EngineDriver, run_transcript

ANTICHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"

HANDSHAKE = [
    "id name antichess-engine 0.1",
    "id author the antichess-engine developers",
    "option name UCI_Variant type combo default chess " + " ".join(f"var {v}" for v in UCI_VARIANT_NAMES),
    "option name Hash type spin default 16 min 1 max 1024",
    f"option name Threads type spin default 1 min 1 max {os.cpu_count()}",
    "option name Clear Hash type button",
    "option name Ponder type check default false",
    "option name Move Overhead type spin default 30 min 0 max 5000",
    "option name Skill Level type spin default 20 min 0 max 20",
    "option name MultiPV type spin default 1 min 1 max 64",
    "option name TablebasePath type string default <empty>",
    "uciok",
]

INFO_RE = re.compile(r"^info depth (\d+) seldepth (\d+) multipv 1 score (cp|mate) (-?\d+) nodes (\d+) "
                     r"nps (\d+) hashfull (\d+) time (\d+)( pv( [a-h1-8qrbnk0]{4,5})+)?$")


def without_search_info(lines: list[str]) -> list[str]:
    """Drop `info depth ...` lines and the ponder move of `bestmove` (both depend on the
    search and the clock), after checking that they are well formed."""
    kept = []
    for line in lines:
        if line.startswith("info depth"):
            assert INFO_RE.match(line), line
        elif line.startswith("bestmove "):
            assert re.match(r"^bestmove (\S+)( ponder \S+)?$", line), line
            kept.append(" ".join(line.split()[:2]))
        else:
            kept.append(line)
    return kept


# Each transcript: input lines, and the exact output expected (search info lines removed).
TRANSCRIPTS = {
    "handshake": (["uci", "isready"], HANDSHAKE + ["readyok"]),
    "variant survives ucinewgame": (
        ["uci", "setoption name UCI_Variant value antichess", "ucinewgame", "isready", "position startpos", "d"],
        HANDSHAKE + ["readyok", f"info string variant antichess fen {ANTICHESS_START}"]),
    "startpos is the rule set's start": (
        ["setoption name uci_variant value HACKERRANK", "position startpos", "d",
         "setoption name UCI_Variant value antiking-antichess", "position startpos moves e2e4", "d"],
        ["info string variant hackerrank fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1",
         "info string variant antiking-antichess fen rnbqkbnr/pppppppp/3A4/8/4P3/3a4/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]),
    "standard and normal are chess": (
        ["setoption name UCI_Variant value antichess", "setoption name UCI_Variant value standard", "position startpos", "d",
         "setoption name UCI_Variant value normal", "d"],
        ["info string variant chess fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"] * 2),
    "perft divide": (
        ["setoption name UCI_Variant value antichess", "position startpos moves e2e3 b7b5", "go perft 2"],
        # After 1.e3 b5 White must capture: Bxb5; Black then has 8 legal replies... counted by Game.
        None),
    "forced capture is the only move": (
        ["setoption name UCI_Variant value antichess", "position startpos moves e2e3 b7b5", "go depth 3"],
        ["bestmove f1b5"]),
    "pass": (
        ["setoption name UCI_Variant value mit-antichess", "position fen k7/8/8/8/8/7p/5q1P/7K w - - 0 1", "go depth 2"],
        ["bestmove 0000"]),
    "game over": (
        ["setoption name UCI_Variant value antichess", "position fen 8/8/8/8/8/8/1p6/2B5 w - - 0 1 moves c1b2", "go depth 2"],
        ["bestmove (none)"]),
    "passes in position": (
        ["setoption name UCI_Variant value mit-antichess",
         "position fen k7/8/8/8/8/7p/5q1P/7K w - - 0 1 moves 0000", "d",
         "position fen k7/8/8/8/8/7p/5q1P/7K w - - 0 1 moves h1h1 f2h2", "d"],
        ["info string variant mit-antichess fen k7/8/8/8/8/7p/5q1P/7K b - - 1 1",
         "info string variant mit-antichess fen k7/8/8/8/8/7p/7q/7K w - - 0 2"]),
    "bad input": (
        ["setoption name Hash value 0", "setoption name Hash value lots", "setoption name Skill Level value 21",
         "setoption name Move Overhead value -1", "setoption name Ponder value maybe", "setoption name Foo value 1",
         "setoption name UCI_Variant value atomic", "setoption", "setoption name",
         "position startpos moves e2e4 e7e5", "position startpos moves e2e4 e2e4", "position startpos moves e2e4 zz",
         "position fen 8/8 w - - 0 1", "position bogus", "position", "d",
         "go perft 31", "go perft", "hello world", "debug maybe", "\x00\x01garbage\xff"],
        ["info string error: option Hash value 0 is out of range 1..1024",
         "info string error: option Hash needs an integer value, got 'lots'",
         "info string error: option Skill Level value 21 is out of range 0..20",
         "info string error: option Move Overhead value -1 is out of range 0..5000",
         "info string error: option Ponder takes true or false, got 'maybe'",
         "info string error: no such option: Foo",
         "info string error: UCI_Variant 'atomic' is not one of: " + ", ".join(UCI_VARIANT_NAMES),
         "info string error: setoption needs 'name <id> [value <x>]'",
         "info string error: setoption needs an option name",
         "info string error: move 'e2e4' in position: no piece on e2; position unchanged",
         "info string error: move 'zz' in position: not a move: 'zz'; position unchanged",
         "info string error: invalid FEN '8/8 w - - 0 1' for chess: the board needs 8 ranks separated by '/', got 2",
         "info string error: position needs 'startpos' or 'fen <FEN>', got 'bogus'",
         "info string error: position needs startpos or fen",
         "info string variant chess fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
         "info string error: go perft depth must be between 0 and 30, got 31",
         "info string error: go perft needs a depth, got None",
         "info string unknown command: hello world",
         "info string error: debug takes on or off, got 'maybe'",
         "info string unknown command: garbage?"]),
    "bad go tokens are ignored, the search still answers": (
        ["setoption name UCI_Variant value antichess", "position startpos moves e2e3 b7b5",
         "go depth x movetime -5 sideways wtime 100"],
        ["info string error: go depth needs an integer, got 'x'; ignored",
         "info string error: go movetime -5 is out of range; ignored",
         "info string error: go: unknown token 'sideways'; ignored",
         "bestmove f1b5"]),
}


def _perft_divide_lines(variant, fen, moves, depth):
    game = Game(variant, fen)
    for move in moves:
        game.push(move)
    rows = sorted(game.perft_divide(depth), key=lambda pair: pair[0].uci())
    return [f"{m.uci()}: {n}" for m, n in rows] + ["", f"Nodes searched: {sum(n for _, n in rows)}"]


def expected(name):
    lines, want = TRANSCRIPTS[name]
    if name == "perft divide":
        want = _perft_divide_lines("antichess", None, ["e2e3", "b7b5"], 2)
    return lines, want


@pytest.mark.parametrize("name", list(TRANSCRIPTS))
def test_transcript_in_process(name):
    lines, want = expected(name)
    assert without_search_info(run_transcript("uci", lines)) == want


@pytest.mark.parametrize("command", [["antichess", "uci"], ["antichess"]])
def test_transcripts_through_the_command(command):
    """The same transcripts through the installed command (forced and auto-detected UCI)."""
    for name in ("handshake", "perft divide", "bad input", "game over", "pass"):
        lines, want = expected(name)
        if command == ["antichess"] and lines[0] != "uci":
            lines = ["uci", *lines]
            want = HANDSHAKE + want
        driver = EngineDriver.subprocess(command)
        for line in lines:
            driver.send(line)
        assert driver.close(timeout=30) == 0
        assert without_search_info(driver.output) == want, name


def test_perft_divide_matches_the_rules_core_total():
    out = run_transcript("uci", ["setoption name UCI_Variant value antichess", "position startpos", "go perft 3"])
    assert out[-1] == "Nodes searched: 8067"
    assert len(out) == 20 + 2


def test_info_lines_carry_a_legal_pv_and_every_field():
    out = run_transcript("uci", ["setoption name UCI_Variant value giveaway", "position startpos moves e2e4",
                                 "go depth 4"])
    infos = [line for line in out if line.startswith("info depth")]
    assert [int(INFO_RE.match(line).group(1)) for line in infos] == [1, 2, 3, 4]
    for line in infos:
        game = Game("giveaway")
        game.push("e2e4")
        for move in line.split(" pv ")[1].split():
            game.push(move)  # raises if the PV holds an illegal move
    best = out[-1].split()
    assert best[0] == "bestmove"
    assert Game("giveaway").copy().is_legal("e2e4")
    game = Game("giveaway")
    game.push("e2e4")
    assert game.is_legal(best[1])


def test_mate_scores_are_reported_as_mate():
    # mit-antichess: after White's forced pass Black must take h2, leaving White a bare king.
    out = run_transcript("uci", ["setoption name UCI_Variant value mit-antichess",
                                 "position fen k7/8/8/8/8/7p/5q1P/7K w - - 0 1", "go depth 3"])
    assert any(" score mate 1 " in line for line in out)


def test_every_rule_set_searches_from_its_start():
    for name in UCI_VARIANT_NAMES:
        out = run_transcript("uci", [f"setoption name UCI_Variant value {name}", "position startpos", "go depth 2"])
        move = out[-1].split()[1]
        assert Game(get_rule_set(name).name).is_legal(move), (name, out[-1])


# -- asynchronous behaviour ----------------------------------------------------------------

def _legal_after(variant, moves, answer):
    game = Game(variant)
    for move in moves:
        game.push(move)
    return game.is_legal(answer)


def test_infinite_search_answers_isready_and_stops_on_stop():
    with EngineDriver.in_process("uci") as engine:
        engine.send("position startpos moves e2e4", "go infinite")
        engine.send("isready")
        engine.expect("readyok", timeout=5)
        assert not any(line.startswith("bestmove") for line in engine.output)
        engine.send("stop")
        best = engine.expect_prefix("bestmove", timeout=5)
        assert _legal_after("chess", ["e2e4"], best.split()[1])


def test_go_infinite_in_a_finished_game_waits_for_stop():
    with EngineDriver.in_process("uci") as engine:
        engine.send("setoption name UCI_Variant value antichess",
                    "position fen 8/8/8/8/8/8/1p6/2B5 w - - 0 1 moves c1b2", "go infinite", "isready")
        engine.expect("readyok")
        assert "bestmove (none)" not in engine.output
        engine.send("stop")
        engine.expect("bestmove (none)")


def test_ponder_then_ponderhit_plays_under_the_clock():
    with EngineDriver.in_process("uci") as engine:
        engine.send("setoption name Ponder value true", "position startpos moves e2e4 e7e5",
                    "go ponder wtime 2000 btime 2000", "isready")
        engine.expect("readyok")
        assert not any(line.startswith("bestmove") for line in engine.output)
        engine.send("ponderhit")
        best = engine.expect_prefix("bestmove", timeout=5)
        assert _legal_after("chess", ["e2e4", "e7e5"], best.split()[1])
        assert sum(line.startswith("bestmove") for line in engine.output) == 1


def test_ponder_then_stop_answers_once():
    with EngineDriver.in_process("uci") as engine:
        engine.send("position startpos", "go ponder wtime 1000 btime 1000", "stop")
        engine.expect_prefix("bestmove", timeout=5)
        engine.send("isready")
        engine.expect("readyok")
        assert sum(line.startswith("bestmove") for line in engine.output) == 1


def test_quit_while_thinking_still_answers_the_go():
    engine = EngineDriver.subprocess(["antichess", "uci"])
    engine.send("uci", "position startpos", "go infinite", "quit")
    assert engine.close(timeout=20) == 0
    assert engine.output[-1].startswith("bestmove ")


def test_go_while_thinking_answers_both():
    with EngineDriver.in_process("uci") as engine:
        engine.send("position startpos", "go infinite", "go depth 2")
        engine.wait_for(lambda line: sum(x.startswith("bestmove") for x in engine.output) >= 2, timeout=10)


def test_movetime_is_respected():
    import time

    with EngineDriver.in_process("uci") as engine:
        engine.send("isready")
        engine.expect("readyok", timeout=30)
        started = time.monotonic()
        engine.send("position startpos", "go movetime 300")
        engine.expect_prefix("bestmove", timeout=5)
        assert time.monotonic() - started < 2.0


def test_skill_level_zero_plays_legal_varied_moves():
    moves = set()
    for _ in range(8):
        out = run_transcript("uci", ["setoption name Skill Level value 0", "position startpos", "go movetime 500"])
        best = out[-1].split()[1]
        assert Game("chess").is_legal(best)
        infos = [line for line in out if line.startswith("info depth")]
        assert all(int(INFO_RE.match(line).group(1)) <= 2 for line in infos)  # weak: shallow search
        moves.add(best)
    assert len(moves) >= 2  # 8 draws among the near-best of 20 moves: not one fixed answer


def test_skill_level_never_misses_a_forced_win():
    # mit-antichess, White to move: Qxb7 is checkmate; any other move lets the game go on.
    out = run_transcript("uci", ["setoption name UCI_Variant value mit-antichess", "setoption name Skill Level value 0",
                                 "position fen k7/1p6/1K6/8/8/8/8/7Q w - - 0 1", "go movetime 500"])
    game = Game("mit-antichess", "k7/1p6/1K6/8/8/8/8/7Q w - - 0 1")
    game.push(out[-1].split()[1])
    assert game.outcome() is not None and game.outcome().winner == "white"


def test_searchmoves_restricts_the_answer():
    out = run_transcript("uci", ["position startpos", "go depth 3 searchmoves a2a3 h2h3"])
    assert out[-1].split()[1] in ("a2a3", "h2h3")
    out = run_transcript("uci", ["position startpos", "go depth 3 searchmoves g1f3"])
    assert out[-1].split()[1] == "g1f3"


def test_hash_and_clear_hash_while_idle_and_thinking():
    """UCI says a GUI sends `setoption` only while the engine waits; one sent during a search
    is applied once the search has answered, so `go infinite` still waits for `stop` and a
    timed search keeps its time and answers."""
    import time

    from engine import Searcher

    with EngineDriver.in_process("uci") as engine:
        engine.send("setoption name Hash value 1", "isready")
        engine.expect("readyok")
        searcher = engine.adapter.searcher
        assert searcher.tt.keys.size == Searcher(hash_mb=1).tt.keys.size
        mark = engine.mark()
        engine.send("position startpos", "go infinite", "setoption name Hash value 8", "isready")
        engine.expect("readyok", start=mark)
        time.sleep(0.5)
        assert not any(line.startswith("bestmove") for line in engine.output[mark:])  # infinite: only after stop
        assert searcher.tt.keys.size == Searcher(hash_mb=1).tt.keys.size
        engine.send("stop", "isready")
        engine.expect_prefix("bestmove", timeout=5, start=mark)
        engine.expect("readyok", start=engine.output.index("readyok", mark) + 1)
        assert searcher.tt.keys.size == Searcher(hash_mb=8).tt.keys.size
        mark = engine.mark()
        started = time.monotonic()
        engine.send("go movetime 1000", "setoption name Clear Hash")
        best = engine.expect_prefix("bestmove", timeout=10, start=mark)
        assert time.monotonic() - started > 0.8  # not cut short
        assert Game("chess").is_legal(best.split()[1])
        engine.send("setoption name Clear Hash", "go depth 3")
        engine.wait_for(lambda line: sum(x.startswith("bestmove") for x in engine.output) >= 3)
        assert not any("error" in line for line in engine.output)


def test_multipv_in_every_rule_set():
    for name in UCI_VARIANT_NAMES:
        out = run_transcript("uci", [f"setoption name UCI_Variant value {name}", "setoption name MultiPV value 3",
                                     "position startpos", "go depth 3"])
        infos = [line for line in out if line.startswith("info depth")]
        assert [(int(line.split()[2]), int(line.split()[6])) for line in infos] == \
            [(depth, k) for depth in (1, 2, 3) for k in (1, 2, 3)], (name, infos)
        last = infos[-3:]
        firsts = [line.split(" pv ")[1].split()[0] for line in last]
        game = Game(get_rule_set(name).name)
        assert len(set(firsts)) == 3 and all(game.is_legal(move) for move in firsts), (name, last)
        scores = [int(INFO_MULTIPV_RE.match(line).group(2)) for line in last if " score cp " in line]
        assert scores == sorted(scores, reverse=True), (name, last)
        assert out[-1] == f"bestmove {firsts[0]}" or out[-1].startswith(f"bestmove {firsts[0]} ")


INFO_MULTIPV_RE = re.compile(r"^info depth \d+ seldepth \d+ multipv (\d+) score cp (-?\d+) ")


def test_multipv_one_is_the_default_search():
    plain = run_transcript("uci", ["position startpos moves e2e4", "go depth 5"])
    one = run_transcript("uci", ["setoption name MultiPV value 1", "position startpos moves e2e4", "go depth 5"])
    strip = re.compile(r" nps \d+| time \d+")
    assert [strip.sub("", line) for line in plain] == [strip.sub("", line) for line in one]
    out = run_transcript("uci", ["setoption name MultiPV value 0", "setoption name MultiPV value 65"])
    assert out == ["info string error: option MultiPV value 0 is out of range 1..64",
                   "info string error: option MultiPV value 65 is out of range 1..64"]

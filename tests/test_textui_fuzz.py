"""Random command lines: the TextUI never raises, answers "Input error" exactly where the spec
says (checked against the spec's rules, written out here independently), leaves the game
alone when it does, and a real process gives the same answers without a traceback."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest

from engine import RULE_SETS, get_rule_set
from test_textui_helpers import ROOT, prepare_folder
from textui.player import ComputerPlayer
from textui.session import TextUI

ARITY = {"StartNewGame": (4, 5), "SaveGame": (1,), "LoadGame": (1,), "GetNextMove": (0,),
         "MakeNextMove": (0,), "MakeMove": (2,), "PrintBoard": (0,), "IsLegalMove": (1,), "LegalMove": (1,),
         "PrintAllMoves": (0,), "GetTime": (1,), "ShowBoard": (0,), "QuitGame": (0,)}
WIN_LINES = {"White Player has won", "Black Player has won", "Draw"}
FIXED_ANSWERS = {"New game started", "Game saved", "Game loaded", "Corrupt file", "Human turn",
                 "Please specify human move", "First GetNextMove", "Illegal move", "legal", "illegal",
                 "unlimited", "Exiting game", "Input error"} | WIN_LINES
VARIANT_NAMES = {name for rules in RULE_SETS.values() for name in (rules.name, *rules.aliases)}
MOVE = re.compile(r"[a-h][1-8]-[a-h][1-8]")
TIME = re.compile(r"[0-9]{1,4000}")

PLAYERS = ["human", "computer", "Human", "COMPUTER", "robot", "0", "humans"]
TIMES = ["0", "1", "5", "100", "1000", "60000", "007", "-1", "+5", "1.5", "1e3", "abc", "\u0663",
         "9" * 4000, "9" * 4001, "18446744073709551617"]
VARIANTS = ["mit-antichess", "antiking-antichess", "chess", "standard", "antichess", "hackerrank",
            "crazyhouse", "MIT-ANTICHESS", "antiking1"]
MOVES = ["e2e4", "e2-e9", "E2-E4", "e2-e4q", "e7-e8n", "e7-e8k", "-", "e2--e4", "a1-a1", "e2-e4-", "\u00e92-e4"]
COLOURS = ["white", "black", "White", "red", "", "WHITE"]
LOADABLE = ["sample_game.xml", "bare_king.xml", "stalemate_pass.xml", "double_stalemate.xml",
            "checkmate_prevails.xml", "en_passant.xml", "castling.xml", "pass_then_mate.xml", "saved1.xml",
            "saved2.xml"]
BROKEN = ["two_kings.xml", "truncated.xml", "entity_bomb.xml", "external_entity.xml", "not_xml.txt",
          "wrong_value.xml", "missing.xml", ".", "no_folder/x.xml"]
WRITABLE = ["saved1.xml", "saved2.xml"]
UNWRITABLE = [".", "no_folder/x.xml"]
JUNK_SPACE = [" ", "\t", "  ", "\x0b", "\x0c", "\u00a0", "\u2003", "\r"]


def random_square(rng: random.Random) -> str:
    """A random square name."""
    return rng.choice("abcdefgh") + rng.choice("12345678")


def random_line(rng: random.Random, ui: TextUI, humans_only: bool) -> str:
    """A command line: mostly well-formed commands with arguments from the pools above."""
    roll = rng.random()
    if roll < 0.08:
        return "".join(rng.choice("abcdefghXYZ-019 \t\u00e9\u2603") for _ in range(rng.randrange(0, 20)))
    if roll < 0.12:
        return rng.choice(["", " ", "\t", "startnewgame human 0 human 0", "Quit", "printboard", "Print Board",
                           "StartNewGame\u00a0human 0 human 0", "MakeMove\te2-e4\t5"])
    if roll < 0.35 and ui.game is not None and ui.over is None:
        moves = [m.course() for m in ui.game.legal_moves() if not m.is_pass]
        if moves:
            return f"MakeMove {rng.choice(moves)} {rng.choice(['0', '5', '100', '2000'])}"
    name = rng.choice(list(ARITY))
    if name == "StartNewGame" and rng.random() < 0.7:
        players = ["human"] if humans_only else ["human", "computer"]
        args = [rng.choice(players), rng.choice(["0", "0", "100000", "3000", "1", "9" * 4000]),
                rng.choice(players), rng.choice(["0", "100000", "3000", "8" * 3999])]
        if rng.random() < 0.4:
            args.append(rng.choice(VARIANTS[:6]))
    else:
        count = rng.choice(ARITY[name]) if rng.random() < 0.75 else rng.randrange(0, 7)
        args = [random_argument(name, rng, humans_only) for _ in range(count)]
    spaces = [rng.choice(JUNK_SPACE) if rng.random() < 0.1 else " " for _ in range(len(args) + 2)]
    return spaces[0] + name + "".join(space + arg for space, arg in zip(spaces[1:], args)) + spaces[-1]


def random_argument(name: str, rng: random.Random, humans_only: bool) -> str:
    """A random argument suited (or not) to command `name`."""
    if name in ("SaveGame", "LoadGame"):
        return rng.choice(LOADABLE + BROKEN + (WRITABLE if name == "SaveGame" else []))
    if name == "GetTime":
        return rng.choice(COLOURS + ["human"])
    if name == "StartNewGame":
        pool = [p for p in PLAYERS if not (humans_only and p == "computer")]
        return rng.choice(pool + TIMES + VARIANTS)
    if name in ("MakeMove", "IsLegalMove", "LegalMove"):
        if rng.random() < 0.6:
            return random_square(rng) + "-" + random_square(rng)
        return rng.choice(MOVES + TIMES)
    return rng.choice(MOVES + TIMES + COLOURS)


def move_is_well_formed(text: str, variant: str) -> bool:
    """The spec's move format; rule sets that promote to more than a queen add a piece letter."""
    if MOVE.fullmatch(text):
        return True
    promotion = get_rule_set(variant).promotion
    return len(promotion) > 1 and len(text) == 6 and MOVE.fullmatch(text[:5]) is not None and text[5] in promotion


def spec_says_input_error(tokens: list[str], started: bool, over: bool, show_board: bool,
                          variant: str | None) -> bool:
    """True when the spec makes this command line "Input error"."""
    name, args = tokens[0], tokens[1:]
    if name not in ARITY or (name == "ShowBoard" and not show_board):
        return True
    if not started and name not in ("StartNewGame", "LoadGame"):
        return True
    if over and name not in ("StartNewGame", "LoadGame", "QuitGame"):
        return True
    if len(args) not in ARITY[name]:
        return True
    if name == "StartNewGame":
        return (args[0] not in ("human", "computer") or args[2] not in ("human", "computer")
                or not TIME.fullmatch(args[1]) or not TIME.fullmatch(args[3])
                or (len(args) == 5 and args[4] not in VARIANT_NAMES))
    if name == "MakeMove":
        return not move_is_well_formed(args[0], variant) or not TIME.fullmatch(args[1])
    if name in ("IsLegalMove", "LegalMove"):
        return not move_is_well_formed(args[0], variant)
    if name == "GetTime":
        return args[0] not in ("white", "black")
    if name == "SaveGame":
        return args[0] in UNWRITABLE
    return False


def answer_shape_ok(name: str, lines: list[str]) -> bool:
    """Every printed line is one of the fixed answers, a move, a clock, or board/XML text."""
    for line in lines:
        if line in FIXED_ANSWERS or MOVE.fullmatch(line) or re.fullmatch(r"-?[0-9]+", line):
            continue
        if name == "PrintBoard" and line.lstrip(" ").startswith("<"):
            continue
        if name == "PrintAllMoves" and re.fullmatch(r"[a-h][1-8]-[a-h][1-8][nbrqk]", line):
            continue
        if name == "MakeMove" and re.fullmatch(r"[a-h][1-8]-[a-h][1-8][nbrqk]", line):
            continue
        if name == "ShowBoard":
            continue
        return False
    return True


def state(ui: TextUI):
    """What the game looks like, to check that an Input error changed nothing."""
    return (ui.game.fen() if ui.game is not None else None, len(ui.history), dict(ui.clocks), ui.over,
            ui.players, ui.pending)


def fuzz(seed: int, lines: int, humans_only: bool, show_board: bool) -> list[tuple[str, list[str]]]:
    """Run `lines` random command lines in-process with the oracle; return (line, answer) pairs."""
    rng = random.Random(seed)
    computer = ComputerPlayer(untimed_budget=0.003, max_budget=0.003)
    ui = TextUI(show_board=show_board, computer=computer)
    started = over = False
    log = []
    for _ in range(lines):
        line = random_line(rng, ui, humans_only)
        tokens = line.split()
        before = state(ui)
        variant = ui.game.variant if ui.game is not None else None
        answer = ui.execute(line)  # must not raise
        log.append((line, answer))
        if not tokens:
            assert answer == [], repr(line)
            continue
        expected_error = spec_says_input_error(tokens, started, over, show_board, variant)
        if expected_error:
            assert answer == ["Input error"], (line, answer)
            assert state(ui) == before, line
        else:
            assert answer != ["Input error"], (line, answer)
        assert answer_shape_ok(tokens[0], answer), (line, answer)
        if answer and answer[0] in ("New game started", "Game loaded"):
            started, over = True, False
        if any(text in WIN_LINES for text in answer):
            over = True
        if answer == ["Exiting game"]:
            assert ui.finished
            ui = TextUI(show_board=show_board, computer=computer)
            started = over = False
            log.append(("<restart>", []))
    return log


@pytest.mark.parametrize("seed", range(6))
def test_random_command_lines_follow_the_spec(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(prepare_folder(tmp_path))
    log = fuzz(seed, 1500, humans_only=seed % 2 == 0, show_board=seed % 3 == 0)
    commands = {line.split()[0] for line, _ in log if line.split()}
    assert {"StartNewGame", "MakeMove", "LoadGame", "SaveGame"} <= commands
    assert sum(1 for _, answer in log if answer and answer[0] == "Game loaded") > 3


def test_a_real_process_answers_random_lines_like_the_in_process_session(tmp_path, monkeypatch):
    folder = prepare_folder(tmp_path)
    monkeypatch.chdir(folder)
    log = fuzz(99, 400, humans_only=True, show_board=True)
    for saved in WRITABLE:
        if (folder / saved).exists():
            (folder / saved).unlink()
    raw_lines = [b"\xff\xfe junk", b"LoadGame \xff.xml", b"MakeMove e2-e4 \xc3\x28"]
    script = b"".join(raw + b"\n" for raw in raw_lines)
    expected = ["Input error", "Corrupt file", "Input error"]  # before a game; no such file
    segment = []
    for line, answer in log:
        if line == "<restart>":
            break  # a QuitGame ends the process: compare up to there
        segment.append(line)
        expected += answer
    script += "".join(line + "\n" for line in segment).encode("utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "textui", "-s"], input=script, cwd=folder, env=env,
                          capture_output=True, timeout=300)
    assert done.returncode == 0
    assert done.stderr == b""
    assert b"Traceback" not in done.stdout
    assert done.stdout.decode("utf-8").split("\n")[:-1] == expected

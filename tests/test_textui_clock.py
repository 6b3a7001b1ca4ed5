"""Clocks and the computer player: what GetNextMove charges, that it stays inside the clock,
that its moves are legal and its passes silent, and that every other command of a real
`python -m textui` process answers within 10 s."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

import pytest

from test_textui_helpers import ROOT, prepare_folder
from textui.player import ComputerPlayer
from textui.session import TextUI, WIN_LINES

MOVE = re.compile(r"[a-h][1-8]-[a-h][1-8]")


def fake_timer(*readings: float):
    """A timer returning `readings` in turn, and failing if read once more."""
    values = iter(readings)

    def timer() -> float:
        return next(values)

    return timer


def test_get_next_move_charges_the_measured_time_once():
    ui = TextUI(computer=ComputerPlayer(max_budget=0.05), timer=fake_timer(10.0, 10.2505))
    ui.execute("StartNewGame computer 60000 human 0")
    move = ui.execute("GetNextMove")
    assert MOVE.fullmatch(move[0])
    assert ui.execute("GetTime white") == ["59749"]  # 250.5 ms, rounded up
    assert ui.execute("GetNextMove") == move  # the same move, and the timer is not read again
    assert ui.execute("GetTime white") == ["59749"]
    assert ui.execute("MakeNextMove") == move
    assert ui.execute("GetTime white") == ["59749"]
    assert ui.history[-1].time == 59749  # the mover's remaining time after the move


def test_a_computer_whose_thinking_uses_up_its_clock_loses():
    ui = TextUI(timer=fake_timer(0.0, 2.0))  # exactly the 2000 ms it had: 0 left loses
    ui.execute("StartNewGame computer 2000 human 0")
    assert ui.execute("GetNextMove") == ["Black Player has won"]
    assert ui.execute("MakeNextMove") == ["Input error"]
    assert ui.over.description == "timeExpired"


def test_untimed_computer_is_never_charged():
    ui = TextUI(computer=ComputerPlayer(untimed_budget=0.05), timer=fake_timer(0.0, 99.0))
    ui.execute("StartNewGame human 0 computer 0")
    ui.execute("MakeMove e2-e4 5")
    assert MOVE.fullmatch(ui.execute("GetNextMove")[0])
    assert ui.execute("GetTime black") == ["unlimited"]


@pytest.mark.parametrize("remaining,expected", [
    (None, ("movetime", 1.0)), (60000, ("movetime", 1.5)), (10**9, ("movetime", 5.0)),
    (1000, ("movetime", 0.025)), (999, ("depth", 1)), (1, ("depth", 1)),
])
def test_the_search_budget_comes_from_the_clock(remaining, expected):
    limits = ComputerPlayer().limits(remaining)
    field, value = expected
    assert getattr(limits, field) == pytest.approx(value)
    if field == "movetime":
        assert limits.overhead == 0.0 and limits.depth is None


def test_a_clock_too_long_for_a_float_is_still_budgeted():
    huge = "9" * 4000
    ui = TextUI(computer=ComputerPlayer(max_budget=0.02))
    ui.execute(f"StartNewGame computer {huge} human 0")
    assert MOVE.fullmatch(ui.execute("GetNextMove")[0])
    remaining = ui.execute("GetTime white")[0]
    assert len(remaining) == 4000 and int(remaining) < int(huge)


@pytest.mark.parametrize("clock", [300, 1500, 8000, 30000])
def test_get_next_move_stays_well_inside_the_clock(clock):
    ui = TextUI()
    ui.execute(f"StartNewGame computer {clock} computer {clock}")
    for _ in range(4):
        side = ui.game.turn
        before = ui.clocks[side]
        started = time.perf_counter()
        answer = ui.execute("GetNextMove")
        wall_ms = (time.perf_counter() - started) * 1000
        assert wall_ms < before / 4 + 50, (clock, wall_ms, before)
        if answer in ([WIN_LINES["white"]], [WIN_LINES["black"]]):
            pytest.fail(f"ran out of time with {before} ms left")
        charged = before - ui.clocks[side]
        assert 1 <= charged <= wall_ms + 1
        assert ui.execute("MakeNextMove") == answer


def test_computer_games_play_legal_moves_and_never_print_a_pass():
    for variant, clock in (("mit-antichess", 1500), ("antiking-antichess", 1500), ("mit-antichess", 0)):
        ui = TextUI(computer=ComputerPlayer(untimed_budget=0.01))
        ui.execute(f"StartNewGame computer {clock} computer {clock} {variant}")
        for _ in range(300):
            legal = ui.execute("PrintAllMoves")
            answer = ui.execute("GetNextMove")
            if ui.over is not None:
                assert answer[0] in WIN_LINES.values()
                break
            assert answer[0] in legal
            played = ui.execute("MakeNextMove")
            assert played[0] == answer[0]
            assert all(line in WIN_LINES.values() for line in played[1:])
            if ui.over is not None:
                break
            assert ui.game.legal_moves() and not ui.game.legal_moves()[0].is_pass  # passes made at once


def test_computer_player_passes_when_it_has_no_move(tmp_path):
    ui = TextUI()
    ui.execute("StartNewGame computer 0 human 0")
    ui.execute(f"LoadGame {prepare_folder(tmp_path) / 'stalemate_pass.xml'}")
    assert ui.game.turn == "black"  # White (the computer) passed silently on loading
    assert ui.execute("GetNextMove") == ["Human turn"]
    assert ui.execute("MakeMove e7-e6 10") == ["e7-e6"]
    assert ui.execute("GetNextMove") == ["Human turn"]  # and again


def _read_lines(process: subprocess.Popen, count: int, deadline: float) -> list[str]:
    lines = []
    buffer = b""
    fd = process.stdout.fileno()
    while len(lines) < count:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no answer in time; got {lines!r}"
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        assert chunk, f"the process ended early; got {lines!r}"
        buffer += chunk
        while b"\n" in buffer and len(lines) < count:
            line, buffer = buffer.split(b"\n", 1)
            lines.append(line.decode())
    assert buffer == b""
    return lines


def test_every_command_but_get_next_move_answers_within_ten_seconds(tmp_path, monkeypatch):
    folder = prepare_folder(tmp_path)
    script = [
        "StartNewGame human 60000 human 60000", "ShowBoard", "PrintAllMoves", "IsLegalMove e2-e4",
        "MakeMove e2-e4 100", "LegalMove d7-d5", "MakeMove d7-d5 100", "GetTime white", "PrintBoard",
        "SaveGame saved.xml", "LoadGame entity_bomb.xml", "LoadGame truncated.xml", "LoadGame sample_game.xml",
        "LoadGame saved.xml", "GetNextMove", "MakeNextMove", "StartNewGame human 0 computer 3000",
        "MakeMove e2-e4 1", "GetNextMove", "MakeMove a2-a3 5", "MakeNextMove", "GetTime black",
        "StartNewGame human 0 human 0 antiking-antichess", "PrintAllMoves", "Nonsense", "QuitGame",
    ]
    reference = TextUI(show_board=True)
    monkeypatch.chdir(folder)
    expected_counts = [len(reference.execute(line)) for line in script]
    (folder / "saved.xml").unlink()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "textui", "-s"], cwd=folder, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = True
        for line, count in zip(script, expected_counts):
            sent = time.monotonic()
            process.stdin.write((line + "\n").encode())
            if count == 0:  # a command that prints nothing: time it together with the next one
                continue
            process.stdin.flush()
            since = started if first else sent  # the first answer waits for the engine to load
            first = False
            answer = _read_lines(process, count, since + (300.0 if line == "GetNextMove" else 10.0))
            elapsed = time.monotonic() - since
            if line != "GetNextMove":
                assert elapsed < 10.0, (line, elapsed)
            if line == "GetTime black" and answer != ["Input error"]:
                assert 0 < int(answer[0]) < 3000
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        assert process.stderr.read() == b""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

"""Golden transcripts of the TextUI (tests/data/textui/transcripts): exact output per command,
run in-process and, for a selection, as a real `python -m textui` / `antichess textui` process."""

from __future__ import annotations

import pytest

from test_textui_helpers import TRANSCRIPTS, lines_match, prepare_folder, read_transcript, run_textui
from textui.session import TextUI

TRANSCRIPT_PATHS = sorted(TRANSCRIPTS.glob("*.txt"))
AS_SUBPROCESS = ["before_a_game", "staff_sample_game", "save_load", "computer", "stalemate_pass",
                 "argument_errors"]


def test_every_command_has_a_transcript():
    commands = {step.command.split()[0] for path in TRANSCRIPT_PATHS
                for step in read_transcript(path).steps if step.command.split()}
    assert {"StartNewGame", "SaveGame", "LoadGame", "GetNextMove", "MakeNextMove", "MakeMove",
            "PrintBoard", "IsLegalMove", "LegalMove", "PrintAllMoves", "GetTime", "ShowBoard",
            "QuitGame"} <= commands


@pytest.mark.parametrize("path", TRANSCRIPT_PATHS, ids=lambda path: path.stem)
def test_transcript_in_process(path, tmp_path, monkeypatch):
    transcript = read_transcript(path)
    monkeypatch.chdir(prepare_folder(tmp_path))
    ui = TextUI(show_board="-s" in transcript.args)
    for number, step in enumerate(transcript.steps, 1):
        if ui.finished:  # the process has exited: nothing more is read or printed
            assert not step.expected, f"{path.name}: output expected after QuitGame"
            continue
        actual = ui.execute(step.command)
        assert lines_match(step.expected, actual), (
            f"{path.name}, input {number} {step.command!r}:\nexpected {step.expected}\nactual   {actual}")


@pytest.mark.parametrize("name", AS_SUBPROCESS)
def test_transcript_as_subprocess(name, tmp_path):
    transcript = read_transcript(TRANSCRIPTS / f"{name}.txt")
    done = run_textui([step.command for step in transcript.steps], prepare_folder(tmp_path), transcript.args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    expected = [line for step in transcript.steps for line in step.expected]
    assert done.stdout.endswith("\n")
    assert lines_match(expected, done.stdout.split("\n")[:-1]), done.stdout


def test_antichess_textui_command_runs_the_same_session(tmp_path):
    transcript = read_transcript(TRANSCRIPTS / "show_board.txt")
    done = run_textui([step.command for step in transcript.steps], prepare_folder(tmp_path), ["textui", "-s"],
                      module=["-m", "antichess"])
    assert done.returncode == 0, done.stderr
    assert lines_match([line for step in transcript.steps for line in step.expected], done.stdout.split("\n")[:-1])


def test_unknown_flag_is_a_usage_error(tmp_path):
    done = run_textui(["StartNewGame human 0 human 0"], tmp_path, ["-x"])
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("usage:")

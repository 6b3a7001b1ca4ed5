"""Helpers shared by the TextUI tests (no tests here): transcripts, fixtures, a subprocess runner."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "textui"
TRANSCRIPTS = DATA / "transcripts"
FILES = DATA / "files"
SAMPLE_GAME = DATA / "sample_game.xml"  # the course staff's sample game (a copy, see its header)
SCHEMA = ROOT / "engine" / "coursefile" / "schema" / "antichess.xsd"  # the project's game-file schema


@dataclass
class Step:
    """One input line and the lines it must print (`~ regex` lines match by pattern)."""

    command: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Transcript:
    """A golden transcript: command-line flags and the steps, in order."""

    name: str
    args: list[str]
    steps: list[Step]


def read_transcript(path: Path) -> Transcript:
    """Parse a transcript: `# args: ...` and `#` comments, `> input`, then expected lines."""
    args: list[str] = []
    steps: list[Step] = []
    for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
        if line.startswith("#"):
            if line.startswith("# args:"):
                args = line[len("# args:"):].split()
            continue
        if line == ">" or line.startswith("> "):
            steps.append(Step(line[2:]))
        else:
            assert steps, f"{path.name}: output before the first input line"
            steps[-1].expected.append(line)
    return Transcript(path.stem, args, steps)


def line_matches(expected: str, actual: str) -> bool:
    """An expected line matches literally, or as a full regex when it starts with `~ `."""
    if expected.startswith("~ "):
        return re.fullmatch(expected[2:], actual) is not None
    return expected == actual


def lines_match(expected: list[str], actual: list[str]) -> bool:
    """True if `actual` has as many lines as `expected` and each matches."""
    return len(expected) == len(actual) and all(line_matches(e, a) for e, a in zip(expected, actual))


def prepare_folder(folder: Path) -> Path:
    """Copy the game-file fixtures and the staff sample game into `folder`."""
    for source in FILES.iterdir():
        shutil.copy(source, folder / source.name)
    shutil.copy(SAMPLE_GAME, folder / "sample_game.xml")
    return folder


def run_textui(lines: list[str], cwd: Path, args: list[str] = (), timeout: float = 120,
               module: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run `python -m textui` (or `module`) as a subprocess on `lines`; returns the result."""
    command = [sys.executable, *(module or ["-m", "textui"]), *args]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run(command, input="".join(line + "\n" for line in lines), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)

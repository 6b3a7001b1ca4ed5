"""The `antichess` command line: perft output format and one-line errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "antichess", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_perft_prints_nodes_searched():
    done = run("perft", "--variant", "antichess", "--depth", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Nodes searched: 8067"]


def test_perft_divide_lists_each_root_move_then_total():
    done = run("perft", "--variant", "chess", "--depth", "2", "--divide")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "Nodes searched: 400"
    divide = [line for line in lines[:-1] if line]
    assert len(divide) == 20
    assert all(line.endswith(": 20") for line in divide)
    assert "e2e4: 20" in divide


def test_perft_from_fen_and_alias():
    done = run("perft", "--variant", "standard", "--depth", "1", "--fen",
               "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    assert done.stdout.splitlines() == ["Nodes searched: 48"]


@pytest.mark.parametrize("args,fragment", [
    (("perft", "--variant", "crazyhouse", "--depth", "2"), "unknown rule set"),
    (("perft", "--variant", "chess", "--depth", "two"), "depth must be an integer"),
    (("perft", "--variant", "chess", "--depth", "31"), "between 0 and 30"),
    (("perft", "--variant", "chess", "--depth", "-1"), "between 0 and 30"),
    (("perft", "--variant", "chess", "--depth", "2", "--fen", "8/8/8 w - -"), "invalid FEN"),
    (("perft", "--variant", "chess", "--depth", "2", "--fen", "4k3/8/8/8/8/8/8/3KK2R w - - 0 1"),
     "exactly one king"),
    (("perft", "--variant", "chess", "--depth", "2", "--fen", "4k2R/8/8/8/8/8/8/4K3 w - - 0 1"),
     "side not to move"),
    (("perft", "--variant", "chess", "--depth", "2", "--fen", "4k3/8/8/8/8/8/8/3AK3 w - - 0 1"),
     "anti-kings exist only"),
    (("perft", "--variant", "chess", "--depth", "2", "--fen", "\x01\xff garbage"), "invalid FEN"),
    (("perft", "--depth"), "expected one argument"),
    (("perft", "--variant", "chess"), "required"),
    (("frobnicate",), "invalid choice"),
])
def test_bad_input_is_one_line_on_stderr(args, fragment):
    done = run(*args)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("antichess: error:") and fragment in lines[0]
    assert "Traceback" not in done.stderr


def test_console_script_is_installed():
    assert shutil.which("antichess"), "install the project (pip install .) to get the antichess command"
    done = subprocess.run(["antichess", "perft", "--variant", "hackerrank", "--depth", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines() == ["Nodes searched: 144"]

"""The `antichess` command line: perft output format and one-line errors."""

from __future__ import annotations

import re
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


def test_perft_reports_its_time_and_speed_on_stderr():
    done = run("perft", "--variant", "antichess", "--depth", "3")
    assert done.stdout.splitlines() == ["Nodes searched: 8067"]
    assert re.fullmatch(r"perft 3: 8067 nodes in \d+\.\d{3} s \(\d+ nodes/s\)", done.stderr.strip())


def test_perft_divide_streams_each_line_as_it_is_counted():
    """The first root move's count arrives while the rest are still being counted (chess to
    depth 7 takes far longer than its first move's share), and Ctrl-C then ends it."""
    import signal

    process = subprocess.Popen([sys.executable, "-m", "antichess", "perft", "--variant", "chess", "--depth", "7",
                                "--divide"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        assert first == "a2a3: 106743106\n"
        assert process.poll() is None
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    assert process.returncode == 130


def test_version_and_help_say_what_the_program_is():
    done = run("--version")
    assert done.returncode == 0 and re.fullmatch(r"antichess \S+", done.stdout.strip())
    help_text = " ".join(run("--help").stdout.split())
    assert "With no COMMAND the program is the engine" in help_text


@pytest.mark.parametrize("material, fragment", [
    ("KXvK", "unknown piece letter 'X'"),
    ("KQQQvK", "has 5 pieces"),
    ("KQK", "write white's pieces, 'v', black's pieces"),
    ("vK", "each side needs at least one piece"),
])
def test_tablebase_build_refuses_bad_material_before_any_work(tmp_path, material, fragment):
    done = run("tablebase", "build", "--only", material, "--dir", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.startswith("antichess: error: --only: ") and fragment in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not any(tmp_path.rglob("*.actb"))


def test_tablebase_build_only_with_nothing_is_an_error(tmp_path):
    done = run("tablebase", "build", "--only", "--dir", str(tmp_path))
    assert done.returncode == 1 and "--only needs at least one material" in done.stderr


def test_tablebase_probe_of_a_missing_table_says_how_to_build_it(tmp_path):
    done = run("tablebase", "probe", "--dir", str(tmp_path), "8/8/8/8/8/8/8/R6k w - - 0 1")
    assert done.returncode == 1
    assert "no RvK table" in done.stdout
    assert f"antichess tablebase build --variant antichess --only RvK --dir {tmp_path}" in done.stdout


def test_tablebase_stats_of_an_empty_folder_says_so(tmp_path):
    done = run("tablebase", "stats", "--dir", str(tmp_path))
    assert done.returncode == 0
    assert done.stdout.startswith("no antichess tables in ") and "|" not in done.stdout

"""What a first run of `antichess tournament` meets: an engine that cannot be used (missing,
an unknown option, a rule set it does not play) is one error line before any pair is
scheduled, with no Dask unless `-cluster` asks for it; Ctrl-C ends the run at once with
status 130 and one line; a fast control survives the default time margin; and an engine
option that defines variants (Fairy-Stockfish's `VariantPath`) is applied before the
engine's variant list is checked.

Most tests use a small scripted UCI engine (python-chess plays the first legal antichess
move) written to a temporary folder, so they need no outside program."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tournaments import cli
from tournaments.engines import engine_config, open_engine

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "tests" / "data" / "tournaments" / "broken_engine.py"
RUNNER = [sys.executable, "-m", "antichess", "tournament"]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
INTERRUPTED = "interrupted; run the same command again to resume\n"

# A UCI engine that plays the first legal antichess move (in UCI order).  Arguments:
#   late=S     answer S seconds after the movetime (or at once without one)
#   marker=F   write F when the first `go` arrives
#   hang=1     never answer `go`
# It knows the option VariantPath: every `[name:template]` header of that file adds `name`
# to its UCI_Variant list, as Fairy-Stockfish does; it prints the list again on `uci`.
MOVER = r'''
import sys, time
import chess.variant

args = dict(a.split("=", 1) for a in sys.argv[1:])
late = float(args.get("late", "0"))
variants = ["chess", "antichess"]
board = chess.variant.AntichessBoard()
marked = False


def out(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        out("id name Mover")
        out("option name VariantPath type string default <empty>")
        out("option name UCI_Variant type combo default chess" + "".join(" var " + v for v in variants))
        out("uciok")
    elif words[0] == "setoption" and " value " in line:
        name, value = line[len("setoption name "):].split(" value ", 1)
        if name.strip() == "VariantPath":
            for row in open(value.strip()):
                if row.startswith("["):
                    variants.append(row.strip()[1:-1].split(":")[0])
    elif words[0] == "isready":
        out("readyok")
    elif words[0] == "position":
        fen = " ".join(words[2:8])
        board = chess.variant.AntichessBoard(fen)
        if "moves" in words:
            for move in words[words.index("moves") + 1:]:
                board.push_uci(move)
    elif words[0] == "go":
        if "marker" in args and not marked:
            open(args["marker"], "w").write("go")
            marked = True
        if args.get("hang"):
            continue
        budget = int(words[words.index("movetime") + 1]) / 1000 if "movetime" in words else 0.0
        time.sleep(budget + late)
        out("bestmove " + sorted(m.uci() for m in board.legal_moves)[0])
    elif words[0] == "quit":
        break
'''


@pytest.fixture
def mover(tmp_path) -> str:
    """The scripted engine's command (append key=value arguments)."""
    script = tmp_path / "mover.py"
    script.write_text(MOVER)
    return f"{sys.executable} {script}"


def _games(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


# -- an engine that cannot be used -----------------------------------------------------------

UNUSABLE = {
    "missing": (["cmd=/nonexistent/engine"], "b: cannot start '/nonexistent/engine'"),
    "option": ([f"cmd={sys.executable} {BROKEN} illegal", "option.NoSuchOption=1"],
               "b has no option 'NoSuchOption'"),
    "variant": ([f"cmd={sys.executable} {BROKEN} illegal", "variantmap=antichess:nosuchvariant"],
                "b does not support variant nosuchvariant"),
}


@pytest.mark.parametrize("case,cluster", [("missing", []), ("option", []), ("variant", []),
                                          ("missing", ["-cluster", "local"])])
def test_an_unusable_engine_is_one_error_line_and_no_game(tmp_path, case, cluster):
    keys, message = UNUSABLE[case]
    db = tmp_path / "t.sqlite"
    result = subprocess.run(
        RUNNER + ["-engine", "name=a", f"cmd={sys.executable} {BROKEN} illegal",
                  "-engine", "name=b", *keys, "-each", "tc=1", "-variant", "antichess",
                  "-games", "2", "-rounds", "3", "-concurrency", "2", "-db", str(db), *cluster],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("antichess: error: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr   # no Dask logs, no task dump
    assert result.stdout == "" and _games(db) == 0


def test_the_engines_are_checked_before_any_pair_is_scheduled(monkeypatch, capsys):
    import tournaments.tournament as tournament

    scheduled = []
    monkeypatch.setattr(tournament, "run_job", lambda job, *a, **k: scheduled.append(job) or [])
    code = cli.main(["-engine", "name=a", f"cmd={sys.executable} {BROKEN} illegal",
                     "-engine", "name=b", f"cmd={sys.executable} {BROKEN} illegal", "option.Nope=1",
                     "-each", "tc=1", "-variant", "antichess", "-games", "2"])
    err = capsys.readouterr().err
    assert code == 1 and err == "antichess: error: b has no option 'Nope'\n"
    assert scheduled == []


def test_without_cluster_no_dask_is_started(monkeypatch, capsys, mover):
    import tournaments.tournament as tournament

    def no_dask(*args, **kwargs):
        raise AssertionError("a Dask cluster was started without -cluster")

    monkeypatch.setattr(tournament, "_DaskExecutor", no_dask)
    assert cli.main(["-engine", "name=a", f"cmd={mover}", "-engine", "name=b", f"cmd={mover}",
                     "-each", "depth=1", "-variant", "antichess", "-games", "2", "-maxmoves", "3"]) == 0
    assert "Score of a vs b" in capsys.readouterr().out


# -- Ctrl-C ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cluster", [[], ["-cluster", "local"]])
def test_ctrl_c_exits_at_once_with_status_130_and_one_line(tmp_path, mover, cluster):
    marker = tmp_path / "thinking"
    proc = subprocess.Popen(
        RUNNER + ["-engine", "name=a", f"cmd={mover} hang=1 marker={marker}",
                  "-engine", "name=b", f"cmd={mover} hang=1", "-each", "tc=60",
                  "-variant", "antichess", "-games", "2", "-rounds", "4", "-concurrency", "2",
                  "-db", str(tmp_path / "c.sqlite"), *cluster],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), "no engine was asked for a move"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert err == INTERRUPTED, err
    assert took < 10, f"{took:.1f} s from Ctrl-C to exit"
    assert _games(tmp_path / "c.sqlite") == 0


# -- the default time margin -------------------------------------------------------------------

def test_default_time_margin():
    assert engine_config([("cmd", "x"), ("st", "0.05")]).timemargin == 100
    assert engine_config([("cmd", "x"), ("st", "0.05"), ("timemargin", "0")]).timemargin == 0


def test_a_fast_fixed_time_survives_the_default_margin(mover, capsys):
    # The engine answers 30 ms after its 50 ms, like a real engine whose reply crosses a pipe
    # on a busy machine; with no margin every game was lost on time at the first move.
    code = cli.main(["-engine", "name=a", f"cmd={mover} late=0.03", "-engine", "name=b",
                     f"cmd={mover} late=0.03", "-each", "st=0.05", "-variant", "antichess",
                     "-games", "2", "-maxmoves", "4"])
    out = capsys.readouterr().out
    assert code == 0
    assert "loses on time" not in out and "Terminations: adjudication 2" in out, out


# -- an option that defines variants -----------------------------------------------------------

def test_an_option_is_applied_before_the_variant_list_is_checked(tmp_path, mover):
    ini = tmp_path / "variants.ini"
    ini.write_text("[myanti:antichess]\n")
    config = engine_config([("name", "m"), ("cmd", mover), ("depth", "1"),
                            ("option.VariantPath", str(ini)), ("variantmap", "antichess:myanti")])
    engine = open_engine(config)
    try:
        engine.start()
        engine.new_game("antichess", START, True)   # myanti exists once VariantPath is set
    finally:
        engine.quit()


def test_a_tournament_in_a_variant_defined_by_an_option(tmp_path, mover, capsys):
    ini = tmp_path / "variants.ini"
    ini.write_text("[myanti:antichess]\n")
    code = cli.main(["-engine", "name=a", f"cmd={mover}", "-engine", "name=b", f"cmd={mover}",
                     "-each", "depth=1", f"option.VariantPath={ini}", "variantmap=antichess:myanti",
                     "-variant", "antichess", "-games", "2", "-maxmoves", "3"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Score of a vs b: " in captured.out


@pytest.mark.parametrize("proto", ["uci", "xboard"])
def test_fairy_stockfish_variant_path(require_program, tmp_path, capsys, proto):
    fsf = require_program("fairy-stockfish")
    ini = tmp_path / "variants.ini"
    ini.write_text("[myanti:antichess]\n")
    code = cli.main(["-engine", "name=A", f"cmd={fsf}", "-engine", "name=B", f"cmd={fsf}",
                     "-each", f"proto={proto}", "depth=1", f"option.VariantPath={ini}",
                     "variantmap=antichess:myanti", "-variant", "antichess", "-games", "2",
                     "-maxmoves", "20"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Score of A vs B: " in captured.out and "Forfeits" in captured.out
    assert "illegal" not in captured.out and "abandoned" not in captured.out

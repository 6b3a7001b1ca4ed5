"""Short matches between real engine processes: our engine, Sjeng and Fairy-Stockfish
(Debian packages `sjeng`, `fairy-stockfish`, in /usr/games, found on PATH), a deliberately broken
engine, a killed and resumed tournament, an SPRT that stops a match, and a two-worker Dask
cluster on loopback.  Time controls are tiny; each test plays a few games."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import chess.variant
import pytest

from tournaments import cli

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "tournaments"
BROKEN = DATA / "broken_engine.py"
BOOK = DATA / "antichess_4ply.epd"
OURS = f"{sys.executable} -m antichess"
BOARDS = {"antichess": chess.variant.AntichessBoard, "giveaway": chess.variant.GiveawayBoard,
          "suicide": chess.variant.SuicideBoard, "chess": chess.Board}


# The Debian engines, found on PATH (.ci/run adds /usr/games): a test that needs a missing one
# is skipped, or fails under CI=true (see `require_program` in conftest.py).
@pytest.fixture(scope="session")
def sjeng(require_program) -> str:
    return require_program("sjeng")


@pytest.fixture(scope="session")
def fsf(require_program) -> str:
    return require_program("fairy-stockfish")


def _games(db: Path) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(row) for row in conn.execute("SELECT * FROM games ORDER BY pair, slot")]


def _run(argv: list[str], capsys) -> str:
    code = cli.main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def _check_pgn_with_python_chess(game: dict, variant: str) -> None:
    """python-chess reads the PGN, replays every move, and agrees with a board result."""
    parsed = chess.pgn.read_game(io.StringIO(game["pgn"]))
    assert parsed is not None and not parsed.errors, parsed.errors if parsed else None
    assert parsed.headers["Variant"] == variant and parsed.headers["SetUp"] == "1"
    assert parsed.headers["Termination"] == game["termination"]
    board = parsed.board()
    assert type(board) is BOARDS[variant]
    plies = 0
    for move in parsed.mainline_moves():
        assert board.is_legal(move)
        board.push(move)
        plies += 1
    assert plies == game["plies"] == int(parsed.headers["PlyCount"])
    assert parsed.headers["Result"] == game["result"]
    if game["termination"] == "normal" and "resigns" not in game["reason"]:
        assert board.is_game_over(claim_draw=True)
        assert board.result(claim_draw=True) == game["result"]


def _match(tmp_path, capsys, engines: list[list[str]], variant: str, pairs: int = 1,
           extra: list[str] = ()) -> tuple[str, list[dict]]:
    db = tmp_path / "match.sqlite"
    argv = []
    for engine in engines:
        argv += ["-engine", *engine]
    argv += ["-variant", variant, "-games", "2", "-rounds", str(pairs), "-srand", "5",
             "-openings", f"file={BOOK}", "format=epd", "order=random", "-repeat",
             "-db", str(db), "-pgnout", str(tmp_path / "games.pgn"), "-recover", *extra]
    out = _run(argv, capsys)
    return out, _games(db)


@pytest.mark.parametrize("variant,sjeng_name", [("giveaway", "giveaway"), ("antichess", "suicide")])
def test_ours_against_sjeng(sjeng, tmp_path, capsys, variant, sjeng_name):
    out, games = _match(tmp_path, capsys, [
        ["name=ours", f"cmd={OURS}", "proto=uci", "tc=3+0.05", "timemargin=200"],
        ["name=Sjeng", f"cmd={sjeng}", "proto=xboard", "tc=3+0.05", "timemargin=1500",
         f"variantmap={variant}:{sjeng_name}"],
    ], variant, extra=["-cluster", "local" if variant == "giveaway" else "threads"])
    assert len(games) == 2 and {g["slot"] for g in games} == {0, 1}
    assert "Score of ours vs Sjeng:" in out and "Elo difference (pentanomial, 95%)" in out
    for game in games:
        assert not (game["loser_forfeit"] and game[game["loser_forfeit"]] == "ours"), game["reason"]
        _check_pgn_with_python_chess(game, variant)
    pgn_games = []
    with open(tmp_path / "games.pgn") as handle:
        while (g := chess.pgn.read_game(handle)) is not None:
            pgn_games.append(g)
    assert len(pgn_games) == 2


def test_ours_against_fairy_stockfish_in_antichess(fsf, tmp_path, capsys):
    out, games = _match(tmp_path, capsys, [
        ["name=ours", f"cmd={OURS}", "tc=3+0.05", "timemargin=200"],
        ["name=FSF", f"cmd={fsf}", "option.Hash=16", "tc=3+0.05", "timemargin=200"],
    ], "antichess", extra=["-cluster", "threads"])
    assert len(games) == 2
    for game in games:
        assert not (game["loser_forfeit"] and game[game["loser_forfeit"]] == "ours"), game["reason"]
        _check_pgn_with_python_chess(game, "antichess")


def test_ours_selfplay_in_rule_sets_no_other_runner_knows(tmp_path, capsys):
    for variant in ("mit-antichess", "antiking-antichess"):
        db = tmp_path / f"{variant}.sqlite"
        out = _run(["-engine", "name=uci", f"cmd={OURS}", "proto=uci",
                    "-engine", "name=cecp", f"cmd={OURS}", "proto=xboard",
                    "-each", "st=0.03", "timemargin=300", "-variant", variant, "-games", "2",
                    "-db", str(db), "-cluster", "threads"], capsys)
        games = _games(db)
        assert len(games) == 2 and "Score of uci vs cecp:" in out
        for game in games:
            assert game["forfeit"] is None, game["reason"]
            assert f'[Variant "{variant}"]' in game["pgn"]
            assert game["termination"] in ("normal", "adjudication")


def test_broken_engines_forfeit_and_the_tournament_finishes(fsf, tmp_path, capsys):
    modes = {"illegal": ("illegal move", "illegal", "makes an illegal move: e2e5"),
             "crash": ("abandoned", "crash", "exited with status 3"),
             "hang": ("time forfeit", "time", "loses on time"),
             "garbage": ("rules infraction", "garbage", "sends garbage: 'banana'"),
             "stall": ("stalled connection", "stall", "connection stalls")}
    argv = ["-tournament", "gauntlet", "-engine", "name=FSF", f"cmd={fsf}", "depth=1"]
    for mode in modes:
        argv += ["-engine", f"name={mode}", f"cmd={sys.executable} {BROKEN} {mode}", "tc=0.5",
                 "tscale=0.1"]
    db = tmp_path / "broken.sqlite"
    out = _run(argv + ["-variant", "antichess", "-games", "2", "-recover", "-concurrency", "2",
                       "-cluster", "threads", "-db", str(db), "-pgnout", str(tmp_path / "b.pgn")], capsys)
    games = _games(db)
    assert len(games) == 2 * len(modes)
    for game in games:
        loser = game[game["loser_forfeit"]]
        termination, kind, text = modes[loser]
        assert (game["termination"], game["forfeit"]) == (termination, kind)
        assert text in game["reason"] and text in game["pgn"]
        assert f'[Termination "{termination}"]' in game["pgn"]
        assert game["result"] == ("0-1" if game["white"] == loser else "1-0")
    assert "FSF" in out and "Forfeits" in out


def test_a_crash_without_recover_stops_and_resumes(fsf, tmp_path, capsys):
    db = tmp_path / "stop.sqlite"
    argv = ["-engine", "name=FSF", f"cmd={fsf}", "depth=1",
            "-engine", "name=crash", f"cmd={sys.executable} {BROKEN} crash", "tc=1",
            "-variant", "antichess", "-games", "2", "-rounds", "3", "-cluster", "threads",
            "-db", str(db)]
    out = _run(argv, capsys)
    stored = len(_games(db))
    assert "-recover is off: stopping" in out and stored in (2, 4)  # a pair already running may finish
    out = _run(argv + ["-recover"], capsys)   # a different run setting, the same tournament
    assert f"Resuming: {stored} of 6 games" in out and len(_games(db)) == 6


def test_killed_tournament_resumes_without_losing_or_repeating_games(fsf, tmp_path):
    db, pgn = tmp_path / "kill.sqlite", tmp_path / "kill.pgn"
    argv = [sys.executable, "-m", "antichess", "tournament",
            "-engine", "name=A", f"cmd={fsf}", "depth=4", "-engine", "name=B", f"cmd={fsf}", "depth=3",
            "-variant", "antichess", "-games", "2", "-rounds", "8", "-srand", "11",
            "-openings", f"file={BOOK}", "order=random", "-cluster", "threads",
            "-db", str(db), "-pgnout", str(pgn)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        before: list[dict] = []
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            if db.exists():
                try:
                    before = _games(db)
                except sqlite3.Error:
                    continue
                if len(before) >= 4:
                    break
        assert proc.poll() is None, "the tournament finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)   # the tournament and its engines
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    before = _games(db)
    assert 0 < len(before) < 16
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert f"Resuming: {len(before)} of 16 games already played" in done.stdout
    after = _games(db)
    assert sorted((g["pair"], g["slot"]) for g in after) == [(p, s) for p in range(8) for s in (0, 1)]
    old = {(g["pair"], g["slot"]): g["pgn"] for g in before}
    assert all(g["pgn"] == old[g["pair"], g["slot"]] for g in after if (g["pair"], g["slot"]) in old)
    rounds = []
    with open(pgn) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            rounds.append((game.headers["Round"], game.headers["White"]))
    assert len(rounds) == 16 and len(set(rounds)) == 16


@pytest.mark.parametrize("cluster", ["threads", "local"])
def test_a_decided_sprt_cancels_the_rest(fsf, tmp_path, capsys, cluster):
    """The decision cancels the running and queued pairs and the run ends normally with its
    report, on threads and on the Dask LocalCluster (whose waits raise on cancelled tasks)."""
    db = tmp_path / "sprt.sqlite"
    out = _run(["-engine", "name=FSF", f"cmd={fsf}", "depth=1",
                "-engine", "name=crash", f"cmd={sys.executable} {BROKEN} crash", "tc=1",
                "-variant", "antichess", "-games", "2", "-rounds", "100", "-recover",
                "-sprt", "elo0=0", "elo1=200", "alpha=0.05", "beta=0.05", "-concurrency", "2",
                "-cluster", cluster, "-db", str(db)], capsys)
    games = _games(db)
    assert "SPRT: H1 accepted; cancelling the remaining games" in out
    assert "Elo difference (pentanomial, 95%)" in out
    assert 4 <= len(games) < 30
    # every pair is WW for FSF; the LLR crosses log(19) = 2.944 with the n-th pair
    from tournaments.stats import llr_logistic
    pairs = len(games) // 2
    assert llr_logistic([0, 0, 0, 0, pairs], 0, 200) >= 2.944


def test_two_worker_dask_cluster_on_loopback(fsf, tmp_path, capsys):
    import distributed  # in the test extra
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    try:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        argv = ["-engine", "name=A", f"cmd={fsf}", "depth=3", "-engine", "name=B", f"cmd={fsf}", "depth=2",
                "-variant", "antichess", "-games", "2", "-rounds", "3", "-srand", "3",
                "-openings", f"file={BOOK}", "-db"]
        remote = _run(argv + [str(tmp_path / "dask.sqlite"), "-cluster", address], capsys)
        with distributed.Client(address) as client:
            tasks = client.run_on_scheduler(
                lambda dask_scheduler: sum(1 for key in dask_scheduler.task_prefixes if "_dask_task" in key
                                           or "pair" in key))
        assert tasks >= 1
    finally:
        cluster.close()
    local = _run(argv + [str(tmp_path / "threads.sqlite"), "-cluster", "threads"], capsys)
    assert len(_games(tmp_path / "dask.sqlite")) == 6

    def shape(text):
        return [line.split(":")[0] for line in text.splitlines()
                if line.startswith(("Score of", "Elo difference", "Pairs", "Rank"))]
    assert shape(remote) == shape(local) and len(shape(remote)) == 5


def test_report_prints_the_table_and_writes_a_png(tmp_path, capsys):
    import matplotlib  # noqa: F401  (in the test extra)
    from tournaments.referee import GameRecord
    from tournaments.store import Store

    db = tmp_path / "r.sqlite"
    with Store(str(db)) as store:
        store.bind({"engines": [{"name": "A"}, {"name": "B"}], "variant": "antichess",
                    "kind": "round-robin", "sprt": [0, 10, 0.05, 0.05]}, 1)
        # pairs for A: WW, WL, LD  -> pentanomial [0, 1, 1, 0, 1]
        results = [("1-0", "0-1"), ("1-0", "1-0"), ("0-1", "1/2-1/2")]
        for pair, (first, second) in enumerate(results):
            records = []
            for slot, result in enumerate((first, second)):
                white, black = ("A", "B") if slot == 0 else ("B", "A")
                records.append(GameRecord(white, black, "antichess", "f", [], result, "normal", "r",
                                          None, None, f"[Round \"{pair}.{slot}\"]\n\n{result}\n\n", 0, 0.0,
                                          pair=pair, slot=slot, engine_a="A", engine_b="B"))
            store.add_games(records)
    png = tmp_path / "elo.png"
    assert cli.main(["report", str(db), "--png", str(png), "--pgn", str(tmp_path / "all.pgn")]) == 0
    out = capsys.readouterr().out
    # A: W W (pair 0: A white wins, B white loses), W L, L D -> 3 wins, 2 losses, 1 draw
    assert "Score of A vs B: 3 - 2 - 1 [0.583] 6" in out
    assert "Pairs [LL, LD, DD+WL, WD, WW]: [0, 1, 1, 0, 1]" in out
    assert "SPRT: llr" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert (tmp_path / "all.pgn").read_text().count("[Round") == 6

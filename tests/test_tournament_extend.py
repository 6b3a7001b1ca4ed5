"""A stored tournament run again with more games (-rounds, -games) is extended: the games
already played are kept and counted, on the same openings, and only the new ones are
played.  Fewer games than are stored, or other settings, are refused in one line."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from tournaments import cli

DATA = Path(__file__).resolve().parent / "data" / "tournaments"
BROKEN = DATA / "broken_engine.py"
BOOK = DATA / "antichess_4ply.epd"


def _argv(db: Path, games: int, rounds: int, *extra: str) -> list[str]:
    # White's first move is always illegal (e2e5): every game ends at once.
    return ["-engine", "name=a", f"cmd={sys.executable} {BROKEN} illegal",
            "-engine", "name=b", f"cmd={sys.executable} {BROKEN} illegal",
            "-each", "tc=1", "-variant", "antichess", "-games", str(games), "-rounds", str(rounds),
            "-openings", f"file={BOOK}", "order=random", "-srand", "3", "-db", str(db), *extra]


def _stored(db: Path) -> dict:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT pair, slot, opening, pgn, seq FROM games").fetchall()
    return {(pair, slot): (opening, pgn, seq) for pair, slot, opening, pgn, seq in rows}


def test_more_rounds_extend_a_finished_match(tmp_path, capsys):
    db = tmp_path / "m.sqlite"
    assert cli.main(_argv(db, 2, 2)) == 0
    capsys.readouterr()
    before = _stored(db)
    assert sorted(before) == [(0, 0), (0, 1), (1, 0), (1, 1)]

    assert cli.main(_argv(db, 2, 3)) == 0
    out = capsys.readouterr().out
    assert "Resuming: 4 of 6 games already played" in out
    assert "Finished game 3.1" in out and "Finished game 3.2" in out
    assert "Finished game 1.1" not in out and "Finished game 2.1" not in out
    assert "Score of a vs b: 3 - 3 - 0 [0.500] 6" in out   # the stored games count
    after = _stored(db)
    assert sorted(after) == [(p, s) for p in range(3) for s in (0, 1)]
    assert all(after[key] == before[key] for key in before)   # kept as they were

    # the new pair's opening is the one a 3-round match would have had from the start
    fresh = tmp_path / "fresh.sqlite"
    assert cli.main(_argv(fresh, 2, 3)) == 0
    capsys.readouterr()
    assert {k: v[0] for k, v in _stored(fresh).items()} == {k: v[0] for k, v in after.items()}

    # the same command again plays nothing; more games per round extend it too
    assert cli.main(_argv(db, 2, 3)) == 0
    assert "Finished game" not in capsys.readouterr().out
    assert cli.main(_argv(db, 4, 2)) == 0
    out = capsys.readouterr().out
    assert "Resuming: 6 of 8 games already played" in out and "Finished game 4.1" in out


def test_an_odd_total_grows_into_a_whole_pair(tmp_path, capsys):
    db = tmp_path / "odd.sqlite"
    assert cli.main(_argv(db, 1, 3)) == 0    # a pair and a single game
    capsys.readouterr()
    assert sorted(_stored(db)) == [(0, 0), (0, 1), (1, 0)]
    assert cli.main(_argv(db, 1, 4)) == 0
    out = capsys.readouterr().out
    assert "Resuming: 3 of 4 games already played" in out and "Finished game 2.2" in out
    assert sorted(_stored(db)) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_fewer_games_or_other_settings_are_refused(tmp_path, capsys):
    db = tmp_path / "f.sqlite"
    assert cli.main(_argv(db, 2, 2)) == 0
    capsys.readouterr()
    assert cli.main(_argv(db, 2, 1)) == 1
    err = capsys.readouterr().err
    assert err.startswith("antichess: error: ") and err.count("\n") == 1
    assert "holds 4 games per encounter" in err
    assert cli.main(_argv(db, 2, 3, "-maxmoves", "50")) == 1
    err = capsys.readouterr().err
    assert "holds a different tournament (differs in: referee)" in err and err.count("\n") == 1
    assert len(_stored(db)) == 4

"""The statistics and files of a finished tournament: a pentanomial interval from too little
data is wide, not a point; the Elo plot has whole-game ticks and draws no infinity as
1000; an SPRT run also plots its LLR; the report's files honour the umask; and
`antichess tournament report DB | head` ends quietly."""

from __future__ import annotations

import math
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments import cli
from tournaments.report import format_progress, summarize
from tournaments.stats import SprtSettings, pentanomial_elo, trinomial_elo

ROOT = Path(__file__).resolve().parent.parent


def _game(pair: int, slot: int, result: str) -> dict:
    white, black = ("A", "B") if slot == 0 else ("B", "A")
    return {"pair": pair, "slot": slot, "white": white, "black": black, "result": result,
            "termination": "normal", "loser_forfeit": None, "forfeit": None,
            "engine_a": "A", "engine_b": "B", "pgn": f'[Round "{pair + 1}.{slot + 1}"]\n\n{result}\n\n'}


def _match(results: list[tuple[str, str]]) -> list[dict]:
    games = []
    for pair, (first, second) in enumerate(results):
        games += [_game(pair, 0, first), _game(pair, 1, second)]
    return games


SPLIT = ("1-0", "1-0")   # each engine wins with White: A scores 1 of 2
WW = ("1-0", "0-1")      # A wins both


# -- the interval ----------------------------------------------------------------------------

def test_one_split_pair_has_no_point_interval():
    summary = summarize(_match([SPLIT]), ["A", "B"])
    line = format_progress(summary, 2, 2)
    assert "Elo +0.0 [+0.0, +0.0]" not in line
    est = summary.pentanomial
    assert est.elo == 0 and est.low < 0 < est.high
    assert math.isinf(est.low) and math.isinf(est.high)   # one pair says nothing of the spread
    assert "Elo +0.0 [-inf, +inf]" in line


def test_pairs_all_in_one_class_give_a_wide_interval():
    # Ten pairs all split 1-1: the observed variance is 0, which is no evidence that it is.
    # The interval uses the counts with half a pair added to each class (Jeffreys):
    # [.5, .5, 10.5, .5, .5] / 12.5, variance 0.3125 / 12.5 = 0.025, se = sqrt(0.025 / 10)
    # = 0.05, score 0.5 -/+ 1.96 * 0.05 -> Elo -/+ 69.2.
    est = pentanomial_elo([0, 0, 10, 0, 0])
    assert est.elo == 0 and est.stderr == pytest.approx(0.05)
    assert est.high == pytest.approx(-400 * math.log10(1 / (0.5 + 1.959964 * 0.05) - 1), abs=1e-2)
    assert est.low == pytest.approx(-est.high) and 60 < est.high < 80
    tri = trinomial_elo(10, 10, 0)
    assert est.high < tri.high                      # still narrower than the trinomial one
    # all pairs won: +inf, but the lower end is finite and the LOS below 100%
    ww = pentanomial_elo([0, 0, 0, 0, 3])
    assert ww.elo == math.inf and ww.high == math.inf and math.isfinite(ww.low) and ww.los < 1
    # as soon as the pairs differ the Fishtest formulas apply unchanged
    assert pentanomial_elo([0, 1, 1, 1, 1]).low == pytest.approx(-106.71, abs=0.01)


# -- the plot ----------------------------------------------------------------------------------

@pytest.fixture
def figures(monkeypatch):
    """The matplotlib figures write_png saves, captured as they are saved."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    saved = []
    original = Figure.savefig

    def savefig(self, *args, **kwargs):
        saved.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return saved


def _elo_axes(fig):
    return next(ax for ax in fig.axes if "Elo" in ax.get_ylabel())


@pytest.mark.parametrize("pairs", [1, 2, 3])
def test_the_plot_has_whole_game_ticks(tmp_path, figures, pairs):
    from tournaments.report import write_png

    write_png(summarize(_match([("0-1", "1-0"), WW, SPLIT][:pairs]), ["A", "B"]), str(tmp_path / "e.png"))
    ax = _elo_axes(figures[-1])
    low, high = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_the_plot_draws_no_infinity_at_1000(tmp_path, figures):
    from tournaments.report import write_png

    # A wins the first pair (Elo +inf), then pairs split and lost: finite, within +-400
    summary = summarize(_match([WW, SPLIT, ("0-1", "1-0"), SPLIT]), ["A", "B"])
    assert math.isinf(summary.history[0][1])
    write_png(summary, str(tmp_path / "elo.png"))
    ax = _elo_axes(figures[-1])
    bottom, top = ax.get_ylim()
    assert top < 1000 and bottom > -1000, (bottom, top)
    for line in ax.get_lines():
        assert not any(abs(y) == 1000 for y in line.get_ydata() if math.isfinite(y))


def test_an_sprt_run_plots_its_llr(tmp_path, figures):
    from tournaments.report import write_png

    sprt = SprtSettings(0, 10)
    games = _match([WW, SPLIT, ("0-1", "1-0"), WW])
    summary = summarize(games, ["A", "B"], sprt)
    write_png(summary, str(tmp_path / "sprt.png"))
    fig = figures[-1]
    llr_axes = [ax for ax in fig.axes if "LLR" in ax.get_ylabel()]
    assert len(llr_axes) == 1
    ax = llr_axes[0]
    expected = [sprt.llr(p) for p in ([0, 0, 0, 0, 1], [0, 0, 1, 0, 1], [1, 0, 1, 0, 1], [1, 0, 1, 0, 2])]
    ys = [list(line.get_ydata()) for line in ax.get_lines()]
    assert any(len(y) == 4 and y == pytest.approx(expected) for y in ys), ys
    flat = {round(float(y[0]), 6) for y in ys if len(set(y)) == 1}
    assert round(sprt.lower, 6) in flat and round(sprt.upper, 6) in flat   # the bounds


# -- the report's files and its output ---------------------------------------------------------

def _database(path: Path, sprt=True) -> None:
    from tournaments.referee import GameRecord
    from tournaments.store import Store

    with Store(str(path)) as store:
        store.bind({"engines": [{"name": "A"}, {"name": "B"}], "variant": "antichess",
                    "kind": "round-robin", "sprt": [0, 10, 0.05, 0.05] if sprt else None}, 1)
        for game in _match([WW, SPLIT, ("0-1", "1-0")] * 4):
            store.add_games([GameRecord(game["white"], game["black"], "antichess", "f", [],
                                        game["result"], "normal", "r", None, None, game["pgn"], 0,
                                        0.0, pair=game["pair"], slot=game["slot"],
                                        engine_a="A", engine_b="B")])


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_report_files_honour_the_umask(tmp_path, capsys, umask, mode):
    pytest.importorskip("matplotlib")
    db = tmp_path / "r.sqlite"
    _database(db)
    old = os.umask(umask)
    try:
        assert cli.main(["report", str(db), "--png", str(tmp_path / "r.png"),
                         "--pgn", str(tmp_path / "r.pgn")]) == 0
    finally:
        os.umask(old)
    capsys.readouterr()
    for name in ("r.png", "r.pgn"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode, name
    assert not [p for p in tmp_path.iterdir() if p.name not in ("r.sqlite", "r.png", "r.pgn")
                and not p.name.startswith("r.sqlite-")]   # no temporary file left behind


def test_report_into_a_closed_pipe_exits_quietly(tmp_path):
    pytest.importorskip("matplotlib")
    db = tmp_path / "p.sqlite"
    _database(db)
    proc = subprocess.Popen([sys.executable, "-m", "antichess", "tournament", "report", str(db),
                             "--png", str(tmp_path / "p.png"), "--pgn", str(tmp_path / "p.pgn")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    proc.stdout.close()   # like `| head` that has already read its lines
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert err == "", err
    assert proc.returncode == 0
    # the files asked for are written all the same
    assert (tmp_path / "p.png").stat().st_size > 5000
    assert (tmp_path / "p.pgn").read_text().count("[Round") == 24

"""The terminal progress bar of `antichess tournament`: its text (score and pentanomial Elo
so far), and that without a terminal on stderr the line-based output is exactly as before
and nothing is written to stderr."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from tournaments import cli
from tournaments.report import format_bar, summarize
from tournaments.stats import SprtSettings

BROKEN = Path(__file__).resolve().parent / "data" / "tournaments" / "broken_engine.py"


def _game(pair: int, slot: int, white: str, black: str, result: str) -> dict:
    return {"pair": pair, "slot": slot, "white": white, "black": black, "result": result,
            "termination": "normal", "loser_forfeit": None, "forfeit": None,
            "engine_a": "A", "engine_b": "B"}


def _match(results: list[tuple[str, str]]) -> list[dict]:
    """Stored games of pairs A-B: slot 0 has A as White, slot 1 has B as White."""
    games = []
    for pair, (first, second) in enumerate(results):
        games += [_game(pair, 0, "A", "B", first), _game(pair, 1, "B", "A", second)]
    return games


# A's pairs: WW, WL, DW, LL = pentanomial [1, 0, 1, 1, 1], 4.5 points of 8.  Worked by hand:
# mu = (0 + 1/2 + 3/4 + 1) / 4 = 0.5625, var = 0.546875 / 4, se = sqrt(var / 4) = 0.18488,
# Elo = -400 log10(1/0.5625 - 1) = +43.7, interval the Elo of 0.5625 -/+ 1.96 se:
# 0.20015 -> -240.7 and 0.92485 -> +436.1.
PAIRS = [("1-0", "0-1"), ("1-0", "1-0"), ("1/2-1/2", "0-1"), ("0-1", "1-0")]


def test_the_bar_shows_the_score_and_the_pentanomial_elo_so_far():
    summary = summarize(_match(PAIRS), ["A", "B"])
    assert summary.head.penta == [1, 0, 1, 1, 1]
    assert format_bar(summary) == ("A vs B", "score 4.5/8, Elo +43.7 [-240.7, +436.1]")


def test_the_bar_shows_the_llr_under_an_sprt():
    sprt = SprtSettings(0, 10)
    summary = summarize(_match(PAIRS), ["A", "B"], sprt)
    label, text = format_bar(summary)
    assert text == f"score 4.5/8, Elo +43.7 [-240.7, +436.1], LLR {sprt.llr([1, 0, 1, 1, 1]):.2f}"


def test_the_bar_before_the_first_complete_pair_and_with_more_engines():
    assert format_bar(summarize([], ["A", "B"])) == ("A vs B", "score 0/0, Elo n/a")
    assert format_bar(summarize(_match(PAIRS)[:1], ["A", "B"])) == ("A vs B", "score 1/1, Elo n/a")
    games = _match(PAIRS) + [dict(_game(9, 0, "C", "A", "1-0"), engine_a="C", engine_b="A")]
    assert format_bar(summarize(games, ["A", "B", "C"])) == ("tournament", "leader A 4.5/9")
    assert format_bar(summarize([], ["A", "B", "C"])) == ("tournament", "")


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


ARGV = ["-engine", "name=a", f"cmd={sys.executable} {BROKEN} illegal",
        "-engine", "name=b", f"cmd={sys.executable} {BROKEN} illegal",
        "-each", "tc=1", "-variant", "antichess", "-games", "2", "-rounds", "2",
        "-cluster", "threads", "-concurrency", "1"]
ILLEGAL = "0-1 {White makes an illegal move: e2e5 (not a legal move)}"
LINES = [f"Finished game 1.1 (a vs b): {ILLEGAL}",
         f"Finished game 1.2 (b vs a): {ILLEGAL}",
         "Games 2/4: a vs b 1 - 1 - 0 [0.500], Elo +0.0 [-inf, +inf], LOS 50.0%",
         f"Finished game 2.1 (a vs b): {ILLEGAL}",
         f"Finished game 2.2 (b vs a): {ILLEGAL}",
         "Games 4/4: a vs b 2 - 2 - 0 [0.500], Elo +0.0 [-323.0, +323.0], LOS 50.0%",
         "Score of a vs b: 2 - 2 - 0 [0.500] 4"]


def test_without_a_terminal_the_lines_are_unchanged_and_stderr_stays_empty(capsys, monkeypatch):
    # Every game is lost at once by White's illegal first move, so the run is quick and
    # its output is known line by line.
    assert cli.main(ARGV) == 0
    plain = capsys.readouterr()
    assert plain.err == ""
    assert plain.out.splitlines()[:len(LINES)] == LINES

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(ARGV) == 0
    with_bar = capsys.readouterr()
    assert with_bar.out == plain.out  # the bar changes nothing on stdout
    bar = terminal.getvalue()
    assert "a vs b: 0/4 games" in bar and "score 0/0, Elo n/a" in bar
    # every pair split 1-1: too little data for a spread, so a wide interval (stats.JEFFREYS)
    assert "a vs b: 2/4 games" in bar and "score 1/2, Elo +0.0 [-inf, +inf]" in bar
    assert bar.rstrip("\n").endswith("score 2/4, Elo +0.0 [-323.0, +323.0]")
    assert "a vs b: 4/4 games" in bar.rsplit("\r", 1)[-1]


def test_debug_traces_on_stderr_turn_the_bar_off(capsys, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert cli.main(ARGV + ["-debug"]) == 0
    assert "games |" not in terminal.getvalue() and "a > uci" in terminal.getvalue()

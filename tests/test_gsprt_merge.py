"""Several runs of one GSPRT read as one test, pair by pair (tools/gsprt_merge.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tournaments.stats import SprtSettings, llr_logistic

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("gsprt_merge", ROOT / "tools" / "gsprt_merge.py")
gsprt_merge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gsprt_merge)


def game(round_tag: str, white: str, black: str, result: str) -> str:
    """One game as the runner's -pgnout writes it (headers and a result; moves do not matter)."""
    return (f'[Round "{round_tag}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Variant "antichess"]\n\n1. e3 {result}\n\n')


def test_pairs_are_matched_by_round_and_counted_when_their_second_game_ends(tmp_path):
    # Pairs 1 and 2 interleave; pair 2 finishes first.  Pair 3 lacks its second game.
    run = tmp_path / "run.pgn"
    run.write_text(game("1", "new", "base", "1-0") + game("2", "base", "new", "1/2-1/2")
                   + game("2", "new", "base", "0-1") + game("1", "base", "new", "1-0")
                   + game("3", "new", "base", "1-0"))
    assert gsprt_merge.run_pairs(run, "new") == [(0.5, 0.0), (1.0, 0.0)]
    assert gsprt_merge.run_pairs(run, "base") == [(0.5, 1.0), (0.0, 1.0)]


def test_games_of_other_engines_and_unfinished_games_are_left_out(tmp_path):
    run = tmp_path / "run.pgn"
    run.write_text(game("1", "new", "base", "1-0") + game("1", "base", "new", "*")
                   + game("1", "other", "base", "0-1") + game("1", "base", "new", "0-1"))
    assert gsprt_merge.run_pairs(run, "new") == [(1.0, 1.0)]


def test_runs_are_read_one_after_the_other_and_the_first_bound_stops_the_test(tmp_path):
    sprt = SprtSettings(0.0, 25.0, 0.1, 0.1)
    # A first run of level pairs, then a run the candidate wins every game of.
    level = "".join(game(str(r), "new", "base", "1-0") + game(str(r), "base", "new", "1-0") for r in range(1, 21))
    winning = "".join(game(str(r), "new", "base", "1-0") + game(str(r), "base", "new", "0-1") for r in range(1, 41))
    first, second = tmp_path / "a.pgn", tmp_path / "b.pgn"
    first.write_text(level)
    second.write_text(winning)
    pairs = gsprt_merge.run_pairs(first, "new") + gsprt_merge.run_pairs(second, "new")
    assert pairs == [(1.0, 0.0)] * 20 + [(1.0, 1.0)] * 40
    count, verdict = gsprt_merge.first_decision(pairs, sprt)
    assert verdict == "H1"
    # The first pair count at which the LLR of [LL, LD, DD+WL, WD, WW] = [0, 0, 20, 0, k] reaches
    # the upper bound, computed from the counts directly.
    expected = next(20 + k for k in range(1, 41) if llr_logistic([0, 0, 20, 0, k], 0.0, 25.0) >= sprt.upper)
    assert count == expected
    assert 20 < count < 60
    # A run of level pairs alone decides nothing at 20 pairs.
    assert gsprt_merge.first_decision(pairs[:20], sprt) is None


def test_the_command_prints_each_run_and_both_together(tmp_path, capsys):
    run = tmp_path / "run.pgn"
    run.write_text(game("1", "new", "base", "1-0") + game("1", "base", "new", "0-1")
                   + game("2", "new", "base", "1/2-1/2") + game("2", "base", "new", "1-0"))
    assert gsprt_merge.main([str(run), str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{run}: 4 games, 2-1-1,") and "pairs [0, 1, 0, 0, 1]" in out[0]
    assert out[2].startswith("all runs: 8 games, 4-2-2,") and "pairs [0, 2, 0, 0, 2]" in out[2]
    assert out[3] == "no decision"

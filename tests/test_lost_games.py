"""The match-analysis tool (tools/lost_games.py): turning points of lost games, and pace."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("lost_games", ROOT / "tools" / "lost_games.py")
lost_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lost_games)

# Two games in the form `antichess tournament -pgnout` writes (score/depth time per move).
# In the first "ours" is White and loses; in the second, from a position with Black to
# move, "ours" is Black and wins.
MATCH = """[White "ours"]
[Black "them"]
[Result "0-1"]
[Variant "antichess"]

1. e3 {+0.10/12 1.00s} b5 {+0.30/14 0.50s} 2. Bxb5 {-0.20/11 0.80s} c6 {+2.50/15 0.40s}
3. Bxc6 {-1.00/10 0.60s} Nxc6 {+M5/16 0.20s} 0-1

[White "them"]
[Black "ours"]
[Result "0-1"]
[Variant "antichess"]
[FEN "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1"]
[SetUp "1"]

1... e6 {+0.50/13 2.00s} 2. a3 {-0.40/9 0.10s} 0-1
"""


def test_lost_game_rows_find_the_opponents_turning_point(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    rows = lost_games.lost_game_rows(str(path), "ours", 2.0)
    assert len(rows) == 1
    row = rows[0]
    assert row["plies"] == 6 and row["turn"] == 4 and row["ours_before"] == -0.20
    assert row["their_win"] == 6


def test_pace_groups_each_sides_moves_by_its_own_move_number(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    table = lost_games.pace(str(path), "ours", groups=2)
    (our_time, our_depth), later = table["us"]
    assert abs(our_time - (1.00 + 0.80 + 0.60 + 2.00) / 4) < 1e-9  # Black's moves in game 2 count
    assert our_depth == 11.5  # median of 12, 11, 10, 13
    their_time, their_depth = table["them"][0]
    assert abs(their_time - (0.50 + 0.40 + 0.20 + 0.10) / 4) < 1e-9 and their_depth == 14.5
    assert later[0] != later[0]  # no moves in the second group: NaN


def test_first_scores_pair_each_sides_first_judgment_with_our_result(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    table = lost_games.first_scores(str(path), "ours")
    assert table["lost"] == [(0.30, 0.10)]  # game 1: their b5 +0.30, our e3 +0.10
    assert table["won"] == [(-0.40, 0.50)]  # game 2: we move first (e6 +0.50), then their a3
    assert table["drawn"] == []
    assert lost_games.value_of(lost_games.SCORE.match("-M5/16")) == -1000.0
    assert lost_games.value_of(None) is None


# One opening (Black to move) played twice, colours swapped: "ours" loses both; the
# opponent, Black and so moving first in the first game, scores it +1.20 for the side to move.
PAIR = """[White "ours"]
[Black "them"]
[Result "0-1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR b - - 0 1"]
[SetUp "1"]

1... e5 {+1.20/12 0.50s} 2. Bg5 {+0.10/11 0.80s} 0-1

[White "them"]
[Black "ours"]
[Result "1-0"]
[FEN "rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR b - - 0 1"]
[SetUp "1"]

1... e5 {-0.90/13 0.40s} 2. Bg5 {-0.30/9 0.70s} 1-0
"""


def test_opening_pairs_group_each_pair_by_the_opponents_first_judgment(tmp_path):
    path = tmp_path / "pairs.pgn"
    path.write_text(PAIR + "\n" + MATCH)  # MATCH's games have no partner: left out
    assert lost_games.opening_pairs(str(path), "ours", 1.0) == {"to move": {"LL": 1}, "other side": {}, "level": {}}
    assert lost_games.opening_pairs(str(path), "ours", 1.5) == {"to move": {}, "other side": {}, "level": {"LL": 1}}


def test_agreement_sets_our_score_beside_the_opponents_next_one(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    # Game 1: e3 +0.10 / b5 +0.30, Bxb5 -0.20 / c6 +2.50, Bxc6 -1.00 / a mate score (left
    # out); game 2: e6 +0.50 / a3 -0.40.
    assert lost_games.agreement(str(path), "ours", first_ply=1) == {0: [-0.30, -2.50, 0.40]}
    assert lost_games.agreement(str(path), "ours", first_ply=3, last_ply=3) == {0: [-2.50]}
    assert lost_games.agreement(str(path), "ours") == {}  # no move from ply 8 on


def test_scored_results_pair_each_score_with_the_movers_result(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    pairs = lost_games.scored_results(str(path), "ours", first_ply=1)
    # Game 1 (ours White, lost): e3 +0.10, Bxb5 -0.20, Bxc6 -1.00; theirs b5 +0.30, c6 +2.50
    # (the mate score left out).  Game 2 (ours Black, won): e6 +0.50; theirs a3 -0.40.
    assert pairs["us"] == [(10.0, 0.0), (-20.0, 0.0), (-100.0, 0.0), (50.0, 1.0)]
    assert pairs["them"] == [(30.0, 1.0), (250.0, 1.0), (-40.0, 0.0)]
    assert lost_games.scored_results(str(path), "ours", first_ply=3, last_ply=4)["them"] == [(250.0, 1.0)]


def test_fitted_scale_recovers_the_scale_the_results_follow():
    # Expected results that follow sigmoid(score / 150) exactly: the cross-entropy is least there.
    pairs = [(s, 1.0 / (1.0 + 2.718281828459045 ** (-s / 150.0))) for s in range(-600, 601, 50)]
    assert abs(lost_games.fitted_scale(pairs) - 150.0) < 0.5
    doubled = [(2.0 * s, points) for s, points in pairs]
    assert abs(lost_games.fitted_scale(doubled) - 300.0) < 1.0
    scale = lost_games.fitted_scale(pairs)
    assert lost_games.logistic_loss(pairs, scale) < lost_games.logistic_loss(pairs, 120.0)
    assert lost_games.logistic_loss(pairs, scale) < lost_games.logistic_loss(pairs, 190.0)


def test_calibrated_turns_compare_the_sides_by_win_chance(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    scales = {"us": 100.0, "them": 300.0}
    # Game 1: our Bxc6 -1.00 at ply 5 is a win chance of 0.27 at 100 cp a unit (31 pieces
    # before it: Bxb5 took a pawn); their c6 +2.50 at ply 4 only 0.70 at 300, their mate at
    # ply 6 (30 pieces before it) 1.
    assert lost_games.calibrated_turns(str(path), "ours", scales, 0.7) == [
        {"theirs": 6, "their_pieces": 30, "ours": 5, "our_pieces": 31}]
    assert lost_games.calibrated_turns(str(path), "ours", scales, 0.75) == [
        {"theirs": 6, "their_pieces": 30, "ours": None, "our_pieces": None}]
    # With both sides on one scale of 100 the opponent's +2.50 (0.92) comes first.
    assert lost_games.calibrated_turns(str(path), "ours", {"us": 100.0, "them": 100.0}, 0.7)[0]["theirs"] == 4


def test_the_logistic_fit_bears_scores_far_beyond_its_smallest_scale():
    # Scores of 90 pawns at the smallest scale (10 cp a unit) are 900 logistic units.
    pairs = [(9000.0, 1.0), (-9000.0, 0.0), (50.0, 0.0), (-50.0, 1.0)]
    assert lost_games.logistic_loss(pairs, 10.0) > 0.0
    assert 10.0 <= lost_games.fitted_scale(pairs) <= 5000.0
    assert lost_games.sigmoid(-1000.0) == 0.0 and lost_games.sigmoid(1000.0) == 1.0


_spec_turning = importlib.util.spec_from_file_location("turning_points", ROOT / "tools" / "turning_points.py")
turning_points = importlib.util.module_from_spec(_spec_turning)
_spec_turning.loader.exec_module(turning_points)


def test_turning_positions_give_the_position_before_our_last_move_ahead_of_the_turn(tmp_path):
    path = tmp_path / "match.pgn"
    path.write_text(MATCH)
    found = list(turning_points.turning_positions(str(path), "ours", 2.0))
    assert len(found) == 1  # the game ours won has no turning point
    board, move, ply = found[0]
    assert ply == 4  # the opponent's +2.50 after 2... c6
    assert move.uci() == "f1b5"  # our last move before it, 2. Bxb5
    assert board.fen().startswith("rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w")
    assert board.uci_variant == "antichess"

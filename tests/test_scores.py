"""Scores as the protocols show them: every proven result is a mate with the right distance,
in the search, the proof stage and the endgame tables, and each surface writes it its way."""

from __future__ import annotations

import pytest

from engine import Game, Limits, Searcher, cecp_score, pgn_score, scaled_from_cecp, scaled_from_uci, scaled_score, uci_score
from engine.search.scores import MATE, mate_in_plies, mate_moves, mated_in_plies


@pytest.mark.parametrize("plies, moves", [(1, 1), (2, 1), (3, 2), (4, 2), (9, 5)])
def test_wins_count_the_moves_of_the_side_to_move(plies, moves):
    assert mate_moves(mate_in_plies(plies)) == moves


@pytest.mark.parametrize("plies, moves", [(1, -1), (2, -1), (3, -2), (4, -2), (10, -5)])
def test_losses_count_the_moves_of_the_side_to_move(plies, moves):
    """A losing-chess side can lose on its own move (forced to take the last piece): one
    ply to the end is mated in one move, never 'mate 0'."""
    assert mate_moves(mated_in_plies(plies)) == moves


def test_no_mate_below_the_bound():
    assert mate_moves(MATE - 1001) is None and mate_moves(0) is None


def test_each_surface_writes_mates_its_way():
    assert uci_score(120, None) == "cp 120" and uci_score(MATE - 3, 2) == "mate 2"
    assert uci_score(3 - MATE, -2) == "mate -2"
    assert cecp_score(-45, None) == -45 and cecp_score(0, 3) == 100003 and cecp_score(0, -3) == -100003
    assert scaled_score(0, 3) == 99997 and scaled_score(0, -3) == -99997
    assert scaled_from_uci("mate", 3) == 99997 and scaled_from_uci("cp", -20) == -20
    assert scaled_from_cecp(100003) == 99997 and scaled_from_cecp(-100003) == -99997
    assert pgn_score(99997) == "+M3" and pgn_score(-99997) == "-M3" and pgn_score(125) == "+1.25"


def test_a_win_the_proof_stage_finds_is_a_mate_with_its_distance():
    """Antichess, white to move: Rc7 forces Kxc7, after which white has no pieces and wins.
    The proof-number stage proves it; the report is mate 1, not centipawns."""
    game = Game("antichess", "1k6/8/8/8/8/8/8/2R5 w - - 0 1")
    result = Searcher(hash_mb=1).search(game, Limits(movetime=0.3))
    assert result.best_move.uci() == "c1c7"
    assert result.info.mate == 1
    assert result.info.uci_score() == "mate 1"
    assert result.info.cecp_score() == 100001


def test_a_longer_proven_win_reports_a_distance_the_search_agrees_with():
    """A proof-stage mate distance is a bound reached by following the proof tree: a
    fixed-depth alpha-beta search (no proof stage) of the same position finds a mate no
    longer than it."""
    game = Game("antichess", "8/8/8/8/8/2k5/8/R7 w - - 0 1")
    proven = Searcher(hash_mb=4).search(game, Limits(movetime=1.0))
    assert proven.info.mate is not None and proven.info.mate > 0
    searched = Searcher(hash_mb=4).search(game, Limits(depth=2 * proven.info.mate + 1, proof=False))
    assert searched.info.mate is not None and 0 < searched.info.mate <= proven.info.mate

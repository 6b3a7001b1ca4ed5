"""The learned evaluation (engine.search.evaluation): its score is the weights' dot product with its
features, the features mean what their names say, and the weights file is part of the
kernel cache key."""

from __future__ import annotations

import random

import chess
import pytest
import numpy as np

from engine import Game
from engine.search.evaluation import (
    FEATURE_COUNT, FEATURE_NAMES, MATERIAL, PHASE_PIECES, PST, REACH, SQUARES, WEIGHTS,
    learned_score, losing_features, reach, reach_and_attacks,
)
from engine.rules.bitboards import OCC
from engine.rules.attacks import piece_attacks


def _random_positions(count: int, seed: int = 7, variant: str = "antichess", keep=None) -> list[Game]:
    """`count` positions after 0 to 49 random moves of `variant` games (the game stops early
    when it ends), only those `keep(game)` accepts when it is given."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = Game(variant)
        for _ in range(rng.randrange(0, 50)):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            game.push(rng.choice(moves))
        if keep is None or keep(game):
            positions.append(game)
    return positions


def test_score_is_the_weights_dot_the_features_blended_by_phase():
    out = np.zeros(FEATURE_COUNT, dtype=np.int64)
    rng = random.Random(3)
    for game in _random_positions(300):
        moves, forcing = rng.randrange(-20, 21), rng.random() < 0.5
        losing_features(game.position(), np.int64(moves), forcing, out)
        pieces = min(PHASE_PIECES, sum(1 for square in range(64) if game.piece_at(square)))
        expected = (pieces * int(WEIGHTS[0] @ out) + (PHASE_PIECES - pieces) * int(WEIGHTS[1] @ out)) // PHASE_PIECES
        assert learned_score(game.position(), np.int64(moves), forcing) == expected, game.fen()


def test_features_count_material_and_squares_from_each_side():
    game = Game("antichess", "4k3/8/8/8/8/8/P6P/RN2K3 w - - 0 1")
    out = np.zeros(FEATURE_COUNT, dtype=np.int64)
    losing_features(game.position(), np.int64(0), False, out)
    names = dict(zip(FEATURE_NAMES, out))
    assert names["material_P"] == 2 and names["material_R"] == 1 and names["material_N"] == 1
    assert names["material_K"] == 0  # one king each
    assert names["pst_P_a2"] == 2  # a2 and h2 mirror onto the same square
    assert names["pst_K_d1"] == 0  # Ke1 (mirrored to d1) and Ke8 (d1 from Black's side) cancel
    assert names["pst_R_a1"] == 1 and names["pst_N_b1"] == 1
    assert names["reach"] == 3  # Nb1: a3, c3, d2; Ra1 sees only its own a2 and b1; Black has none
    assert names["tempo"] == 1
    assert out[MATERIAL:PST].sum() == 4 == out[PST:REACH].sum()
    assert len(FEATURE_NAMES) == FEATURE_COUNT == REACH + 4
    assert SQUARES == 32


def test_weights_file_entries_are_pairs_or_one_number_for_both_phases(tmp_path):
    from engine.search.evaluation import load_weights

    path = tmp_path / "weights.json"
    path.write_text('{"weights": {"material_P": [-30.4, -10.6], "reach": 2, "unknown": 5}}')
    table = load_weights(path)
    assert table.shape == (2, FEATURE_COUNT)
    index = FEATURE_NAMES.index("material_P")
    assert (table[0, index], table[1, index]) == (-30, -11)
    reach = FEATURE_NAMES.index("reach")
    assert (table[0, reach], table[1, reach]) == (2, 2)
    assert np.count_nonzero(table) == 4  # names the evaluation does not know are ignored


def test_reach_and_attacks_counts_and_collects_what_python_chess_sees():
    """The one pass the search's static score makes per side: reach is the squares each
    knight, bishop, rook and queen attacks that hold none of its side's pieces, counted per
    piece (python-chess's attacks), and the attacked squares are `movegen.piece_attacks`."""
    checked = 0
    for game in _random_positions(200, seed=12):
        row = game.position()
        board = chess.Board(game.fen())
        occupied = row[OCC] | row[8 + OCC]
        for color in range(2):
            side = chess.WHITE if color == 0 else chess.BLACK
            expected = sum(len(board.attacks(square) & ~board.occupied_co[side])
                           for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
                           for square in board.pieces(piece, side))
            got_reach, got_attacks = reach_and_attacks(row, np.int64(color), occupied)
            assert got_reach == expected == reach(row, np.int64(color), occupied), game.fen()
            assert got_attacks == piece_attacks(row, np.int64(color), occupied), game.fen()
            checked += got_reach > 0
    assert checked > 100


def _quiet_losers_position(game: Game) -> bool:
    """A losers game not over, whose side to move has a choice of moves, none a capture, and is
    not in check (python-chess's chess moves: losers moves are those, captures when any)."""
    if game.outcome() is not None:
        return False
    board = chess.Board(game.fen())
    moves = list(board.legal_moves)
    return len(moves) > 1 and not board.is_check() and not any(board.is_capture(move) for move in moves)


def test_losers_quiet_nodes_are_scored_by_the_losers_weights_with_python_chess_mobility():
    """Losers has weights of its own (the king is royal, so its legal moves are generated):
    the search's static score of a quiet losers node, without the network (test_network adds
    it), is LOSERS_WEIGHTS . losing_features, with the mobility terms python-chess's
    LosersBoard counts (its legal moves minus the opponent's after a null move; forcing when
    all of those are captures).  python-chess has no losers
    board: its legal moves are chess's, only the captures when there is one."""
    from engine.search.evaluation import LOSERS_WEIGHTS
    from engine.search.network import no_network
    from engine.search.state import MAX_PLY
    from engine.search.static import evaluate_losing

    assert np.count_nonzero(LOSERS_WEIGHTS) > 100  # the shipped losers weights are loaded
    out = np.zeros(FEATURE_COUNT, dtype=np.int64)
    forcing_seen = 0
    for game in _random_positions(60, seed=21, variant="losers", keep=_quiet_losers_position):
        board = chess.Board(game.fen())
        ours = board.legal_moves.count()  # quiet: no capture among them
        board.push(chess.Move.null())
        replies = list(board.legal_moves)
        captures = [move for move in replies if board.is_capture(move)]
        forcing = bool(captures)
        if captures:
            replies = captures
        forcing_seen += forcing
        losing_features(game.position(), np.int64(ours - len(replies)), forcing, out)
        pieces = min(PHASE_PIECES, sum(1 for square in range(64) if game.piece_at(square)))
        expected = (pieces * int(LOSERS_WEIGHTS[0] @ out)
                    + (PHASE_PIECES - pieces) * int(LOSERS_WEIGHTS[1] @ out)) // PHASE_PIECES
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            assert evaluate_losing(stack, np.int64(idx), rules, mlist, np.int64(ours), no_network()) == expected, game.fen()
    assert forcing_seen > 0


def test_only_antichess_like_and_losers_rule_sets_use_learned_weights():
    from engine import RuleError, get_rule_set

    learned = {name: get_rule_set(name).learned_evaluation
               for name in ("antichess", "giveaway", "suicide", "hackerrank", "losers", "mit-antichess",
                            "antiking-antichess", "chess", "antiking1", "antiking2")}
    assert learned == {"antichess": "antichess", "giveaway": "antichess", "suicide": "antichess",
                       "hackerrank": "antichess", "losers": "losers", "mit-antichess": "",
                       "antiking-antichess": "", "chess": "", "antiking1": "", "antiking2": ""}
    for name, table in (("chess", "losers"), ("losers", "antichess"), ("antiking-antichess", "losers"),
                        ("mit-antichess", "other")):
        with pytest.raises(RuleError):
            get_rule_set(name).derive("custom", learned_evaluation=table)

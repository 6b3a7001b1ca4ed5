"""Move list against move list: our rules core against python-chess's boards.

Thousands of positions from seeded random playouts.  At every position the two sets of
legal moves must be equal, the Zobrist key kept incrementally must equal the key of the
same position rebuilt from our own FEN, and at the end of each game the outcomes must agree.
"""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest

from engine import Game

BOARDS = {
    "chess": chess.Board,
    "antichess": chess.variant.AntichessBoard,
    "giveaway": chess.variant.GiveawayBoard,
    "suicide": chess.variant.SuicideBoard,
}

# Mid-game starting points besides the start position: castling both ways, en passant,
# promotions (to king in the losing variants), pins and checks in chess.
EXTRA_STARTS = {
    "chess": [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ],
    "antichess": [
        "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6",
        "8/1P6/8/8/8/8/6p1/8 w - - 0 1",
        "8/p7/8/1P6/8/8/8/8 b - - 0 1",
    ],
    "giveaway": [
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    ],
    "suicide": [
        "8/1P6/8/8/8/8/6p1/8 w - - 0 1",
        "2k5/8/8/8/8/8/8/4K2R w - - 0 1",
    ],
}

GAMES_PER_VARIANT = 40
MAX_PLIES = 160


def _python_chess_moves(board: chess.Board) -> set[str]:
    return {move.uci() for move in board.legal_moves}


def _python_chess_winner(board: chess.Board):
    outcome = board.outcome()
    if outcome is None:
        return "ongoing"
    return {chess.WHITE: "white", chess.BLACK: "black", None: None}[outcome.winner]


def _our_winner(game: Game):
    outcome = game.outcome()
    return "ongoing" if outcome is None else outcome.winner


@pytest.mark.parametrize("variant", list(BOARDS))
def test_random_playouts_match_python_chess(variant):
    rng = random.Random(f"differential-{variant}")
    starts = [Game(variant).fen(), *EXTRA_STARTS[variant]]
    positions = 0
    for game_number in range(GAMES_PER_VARIANT):
        start = starts[game_number % len(starts)]
        board = BOARDS[variant](start)
        game = Game(variant, start)
        for _ in range(MAX_PLIES):
            theirs = _python_chess_moves(board)
            ours = {move.uci() for move in game.legal_moves()}
            assert ours == theirs, f"{variant} {board.fen()}: only ours {ours - theirs}, only theirs {theirs - ours}"
            rebuilt = Game(variant, game.fen())
            assert rebuilt.key == game.key, f"incremental Zobrist key differs at {game.fen()}"
            assert rebuilt.fen() == game.fen()
            positions += 1
            if board.is_game_over():
                break
            move = rng.choice(sorted(theirs))
            board.push_uci(move)
            game.push(move)
        assert _our_winner(game) == _python_chess_winner(board), f"{variant} outcome at {board.fen()}"
    assert positions > 1000


@pytest.mark.parametrize("variant", list(BOARDS))
def test_fen_matches_python_chess(variant):
    """Our FEN equals python-chess's X-FEN style output (en passant only when capturable)."""
    rng = random.Random(f"fen-{variant}")
    for _ in range(10):
        board = BOARDS[variant]()
        game = Game(variant)
        for _ in range(40):
            moves = sorted(m.uci() for m in board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            board.push_uci(move)
            game.push(move)
            expected = board.fen(en_passant="xfen")
            if variant in ("antichess", "suicide"):
                parts = expected.split()
                parts[2] = "-"
                expected = " ".join(parts)
            assert game.fen() == expected

"""What a python-chess user expects of `Game`: SAN in and out (checked against python-chess's
own SAN, an independent implementation), PGN that python-chess reads back, a board drawing,
a useful repr, errors for what is no square, plain-word FEN errors."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import chess.variant
import pytest

import engine
from engine import FenError, Game, IllegalMoveError, InvalidMoveError

BOARDS = {"chess": chess.Board, "antichess": chess.variant.AntichessBoard,
          "giveaway": chess.variant.GiveawayBoard, "suicide": chess.variant.SuicideBoard}


def _random_games(variant: str, count: int, seed: int):
    """(our game, python-chess board) pairs after random legal plies, with every SAN compared."""
    rng = random.Random(seed)
    for _ in range(count):
        game = Game(variant)
        board = BOARDS[variant]()
        for _ in range(rng.randrange(10, 80)):
            moves = game.legal_moves()
            if not moves or board.is_game_over():
                break
            yield game, board
            move = rng.choice(moves)
            reference = chess.Move.from_uci(move.uci())
            assert game.san(move) == board.san(reference), (game.fen(), move.uci())
            game.push(move)
            board.push(reference)


@pytest.mark.parametrize("variant", sorted(BOARDS))
def test_san_matches_python_chess_in_random_games(variant):
    positions = sum(1 for _ in _random_games(variant, 12, seed=len(variant)))
    assert positions > 200


@pytest.mark.parametrize("variant", sorted(BOARDS))
def test_every_legal_move_reads_back_from_its_san(variant):
    checked = 0
    for game, board in _random_games(variant, 6, seed=7):
        for move in game.legal_moves():
            text = game.san(move)
            assert game.parse_move(text) == move, (game.fen(), text)
            checked += 1
    assert checked > 1000


def test_push_takes_san_and_lenient_forms():
    game = Game("chess")
    for text in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "0-0"):
        game.push(text)
    assert game.fen().startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b")
    game = Game("chess", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert game.push("a8Q+").uci() == "a7a8q"  # no '=', a check mark: still the move
    game = Game("chess", "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert game.parse_move("Rad1").uci() == "a1d1"
    assert game.parse_move("Ra1d1").uci() == "a1d1"  # redundant disambiguation


def test_san_errors_name_the_problem_and_leave_the_game_alone():
    game = Game("chess", "4k3/8/8/8/8/8/8/RN2KN1R w - - 0 1")
    fen = game.fen()
    with pytest.raises(IllegalMoveError, match="ambiguous: Nbd2, Nfd2"):
        game.push("Nd2")
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        game.push("Nf3")
    with pytest.raises(InvalidMoveError):
        game.push("hello")
    with pytest.raises(InvalidMoveError, match="not a move"):
        game.push("e1e1")  # squares, not SAN: the same square twice is no move
    with pytest.raises(IllegalMoveError):
        game.push("O-O")  # no castling rights in this FEN
    antichess = Game("antichess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2")
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        antichess.push("Nf3")  # exd5 is compulsory
    assert game.fen() == fen


def test_king_promotion_and_pass_in_san():
    game = Game("antichess", "8/P7/8/8/8/8/8/k7 w - - 0 1")
    assert "a8=K" in {game.san(move) for move in game.legal_moves()}
    stuck = Game("mit-antichess", "8/8/8/8/8/p7/P7/k6K w - - 0 1")
    moves = stuck.legal_moves()
    if len(moves) == 1 and moves[0].is_pass:
        assert stuck.san(moves[0]) == "--"
        assert stuck.parse_move("--") == moves[0]


@pytest.mark.parametrize("variant", ["chess", "antichess", "losers", "suicide"])
def test_pgn_is_read_back_by_python_chess(variant):
    rng = random.Random(3)
    game = Game(variant)
    while game.outcome() is None and len(game.move_stack) < 120:
        game.push(rng.choice(game.legal_moves()))
    text = game.pgn({"White": "ours", "Event": "test"})
    parsed = chess.pgn.read_game(io.StringIO(text))
    assert parsed.headers["White"] == "ours" and parsed.headers["Event"] == "test"
    assert parsed.headers.get("Variant", "chess") == variant
    assert [move.uci() for move in parsed.mainline_moves()] == [move.uci() for move in game.move_stack]
    if game.outcome() is not None:
        assert parsed.headers["Result"] == game.outcome().result


def test_pgn_of_a_game_from_a_position_carries_its_fen():
    game = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 0 1")
    game.push("Ra8")
    text = game.pgn()
    assert '[FEN "1r6/8/8/8/8/8/8/R7 w - - 0 1"]' in text and '[SetUp "1"]' in text
    assert "1. Ra8" in text


def test_board_drawing_and_repr():
    game = Game("antichess")
    drawing = str(game).splitlines()
    assert drawing[0] == "8 r n b q k b n r"
    assert drawing[-1] == "  a b c d e f g h"
    assert repr(game) == "Game('antichess', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1')"


@pytest.mark.parametrize("square", [64, -1, 1.5, True, None])
def test_piece_at_refuses_what_is_no_square(square):
    with pytest.raises(ValueError):
        Game("chess").piece_at(square)


def test_fen_errors_are_plain_words():
    with pytest.raises(FenError, match="^no pieces on the board$"):
        Game("antichess", "8/8/8/8/8/8/8/8 w - - 0 1")


def test_the_facade_lists_game_and_every_public_method_has_a_docstring():
    assert "Game" in dir(engine) and "Searcher" in dir(engine)
    for name in dir(Game):
        if name.startswith("_"):
            continue
        member = getattr(Game, name)
        doc = getattr(member, "__doc__", None) or getattr(getattr(member, "fget", None), "__doc__", None)
        assert doc and doc.strip(), f"Game.{name} has no docstring"

"""The Game facade: moves in every notation, push/pop, errors that change nothing, outcomes."""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest

from engine import FenError, Game, IllegalMoveError, InvalidMoveError, Move


def test_push_and_pop_restore_everything():
    game = Game("chess")
    start = (game.fen(), game.key, [m.uci() for m in game.legal_moves()])
    for move in ("e2e4", "d7d5", "e4d5", "g8f6"):
        game.push(move)
    assert game.fen() == "rnbqkb1r/ppp1pppp/5n2/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3"
    for _ in range(4):
        game.pop()
    assert (game.fen(), game.key, [m.uci() for m in game.legal_moves()]) == start
    with pytest.raises(IndexError):
        game.pop()


def test_move_notations():
    game = Game("chess")
    assert game.push("e2-e4") == game.pop()
    move = game.parse_move("g1f3")
    assert isinstance(move, Move) and move.uci() == "g1f3" and move.course() == "g1-f3"
    assert not move.is_capture and not move.is_pass
    promo = Game("chess", "8/4P2k/8/8/8/8/8/K7 w - - 0 1")
    assert promo.parse_move("e7e8n").promotion == "n"
    assert promo.parse_move("e7-e8").promotion == "q"  # course notation: queen
    with pytest.raises(IllegalMoveError, match="promotion piece missing"):
        promo.parse_move("e7e8")
    assert promo.parse_move("e7e8n").course() == "e7-e8n"


@pytest.mark.parametrize("text", ["", "e9", "e2e9", "i2i4", "e2e4x", "e2e2", "e2--e4", "\x00", "e2e4qq", "Xe4"])
def test_malformed_moves_raise_invalid_move_error(text):
    game = Game("chess")
    with pytest.raises(InvalidMoveError):
        game.parse_move(text)
    assert not game.is_legal(text)


def test_a_square_alone_is_san_for_a_pawn_move():
    """'e4' is SAN for a pawn move: legal at the start; 'e2' is well-formed SAN but no pawn
    can move there (an illegal move, not a malformed one)."""
    game = Game("chess")
    assert game.parse_move("e4").uci() == "e2e4"
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        game.parse_move("e2")


def test_illegal_moves_say_why_and_change_nothing():
    game = Game("antichess")
    for move in ("e2e4", "d7d5"):
        game.push(move)
    fen = game.fen()
    with pytest.raises(IllegalMoveError) as error:
        game.push("a2a3")
    assert error.value.reason == "forced capture"
    with pytest.raises(IllegalMoveError, match="no piece"):
        game.push("a3a4")
    with pytest.raises(IllegalMoveError, match="not your piece"):
        game.push("a7a6")
    assert game.fen() == fen and len(game.move_stack) == 2

    chess_game = Game("chess", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError, match="in check"):
        chess_game.push("e1d2")
    with pytest.raises(IllegalMoveError, match="passing"):
        chess_game.push("0000")


def test_invalid_fen_leaves_the_game_unchanged():
    game = Game("mit-antichess")
    game.push("e2e4")
    fen = game.fen()
    for bad in ("", "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
                "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
                "Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):
        with pytest.raises(FenError):
            game.set_fen(bad)
        assert game.fen() == fen and len(game.move_stack) == 1


def test_castling_rights_without_king_or_rook_are_dropped():
    game = Game("chess", "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1")
    assert game.fen().split()[2] == "-"
    # Suicide ignores castling rights altogether; giveaway keeps them.
    assert Game("suicide", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").fen().split()[2] == "-"
    assert Game("giveaway", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").fen().split()[2] == "KQkq"


def test_hackerrank_move_numbers_count_from_black():
    game = Game("hackerrank")
    game.push("b8c6")
    assert game.fen().endswith(" w - - 1 2")
    game.push("g1f3")
    assert game.fen().endswith(" b - - 2 2")
    assert game.ply == 2


def test_antiking1_leap_rights_live_in_the_castling_field():
    game = Game("antiking1")
    game.push("c1e2")  # the king's leap
    assert game.fen().split()[2] == "Aka"


def test_outcome_draw_rules():
    game = Game("chess")
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for move in shuffle * 2:
        game.push(move)
    assert game.outcome() is None
    assert game.outcome(claim_draw=True).reason == "threefold repetition"
    for move in shuffle * 2:
        game.push(move)
    assert game.outcome().reason == "fivefold repetition"
    assert game.outcome().result == "1/2-1/2"

    assert Game("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80").outcome(claim_draw=True).reason == "fifty-move rule"
    assert Game("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80").outcome() is None
    assert Game("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 150 80").outcome().reason == "seventy-five-move rule"
    assert Game("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1").outcome().reason == "insufficient material"
    assert Game("chess", "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1").outcome().reason == "insufficient material"
    assert Game("chess", "4kb2/8/8/8/8/8/8/3BK3 w - - 0 1").outcome() is None
    # Antichess: bishops on opposite colours can never meet.
    assert Game("antichess", "5b2/8/8/8/8/8/8/3B4 w - - 0 1").outcome().reason == "insufficient material"
    assert Game("antichess", "5b2/8/8/8/8/8/8/2B5 w - - 0 1").outcome() is None
    # No draw rules in the course rule sets.
    mit = Game("mit-antichess", "4k3/7p/8/8/8/8/P7/4K3 w - - 150 80")
    assert mit.outcome() is None


def test_copy_is_independent():
    game = Game("giveaway")
    game.push("e2e3")
    twin = game.copy()
    twin.push("b7b5")
    assert len(game.move_stack) == 1 and len(twin.move_stack) == 2
    assert twin.start_fen == game.start_fen


@pytest.mark.parametrize("depth", [-1, 31, "3", 2.0, True, None])
def test_perft_depth_out_of_range(depth):
    with pytest.raises(ValueError):
        Game("chess").perft(depth)


def test_long_games_grow_the_position_stack():
    game = Game("chess")
    rng = random.Random(1)
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(400):
        game.push(shuffle[i % 4])
    assert len(game.move_stack) == 400
    assert game.perft(3) == 8902
    for _ in range(400):
        game.pop()
    assert game.fen() == Game("chess").fen()
    game.push(rng.choice(game.legal_moves()))


def test_perft_divide_sums_to_perft():
    game = Game("antiking-antichess")
    divide = game.perft_divide(3)
    assert sum(nodes for _, nodes in divide) == game.perft(3)
    assert {m for m, _ in divide} == set(game.legal_moves())


def test_a_wrong_promotion_piece_is_named_as_such():
    game = Game("hackerrank", "8/8/8/8/8/8/p7/7K b - - 0 1")
    with pytest.raises(IllegalMoveError, match="promotion piece not allowed"):
        game.push("a2a1q")
    mit = Game("mit-antichess", "7k/p3P3/8/8/8/8/1P6/K7 w - - 0 1")
    with pytest.raises(IllegalMoveError, match="promotion piece not allowed"):
        mit.push("e7e8n")


@pytest.mark.parametrize("variant", ["chess", "antichess"])
def test_insufficient_material_agrees_with_python_chess(variant):
    # Random sparse positions of minor pieces (and now and then a pawn), judged by
    # python-chess (the reference) and by the rule kernel behind Game.outcome.
    board_class = chess.Board if variant == "chess" else chess.variant.AntichessBoard
    rng = random.Random(7)
    seen = {True: 0, False: 0}
    for _ in range(600):
        board = board_class(None)
        squares = rng.sample([s for s in chess.SQUARES if chess.square_rank(s) not in (0, 7)], 6)
        if variant == "chess":
            board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice([chess.BISHOP, chess.BISHOP, chess.BISHOP, chess.KNIGHT, chess.PAWN])
            board.set_piece_at(squares.pop(), chess.Piece(kind, rng.choice([chess.WHITE, chess.BLACK])))
        if not board.is_valid():
            continue
        expected = board.is_insufficient_material()
        outcome = Game(variant, board.fen()).outcome()
        if outcome is not None and outcome.reason != "insufficient material":
            continue  # a rule ending (no move, no pieces) comes first
        assert (outcome is not None) == expected, board.fen()
        seen[expected] += 1
    assert seen[True] >= 20 and seen[False] >= 20

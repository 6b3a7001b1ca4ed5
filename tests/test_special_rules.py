"""Hand-built positions for the rules no outside engine implements.

Every count below was worked out by hand, move by move, in the comment above it; the
engine is not the source of any number here.  FEN letters A/a are anti-kings; in
antiking1 the castling field holds the leap rights (K/A white king/anti-king, k/a black).
"""

from __future__ import annotations

import pytest

from engine import Game


def _moves(game: Game) -> set[str]:
    return {move.uci() for move in game.legal_moves()}


# --------------------------------------------------------------------------------------
# mit-antichess


def test_mit_getting_out_of_check_overrides_forced_capture():
    # White Ke1 Ra2; black Kh8 Re8 Pa7. White is in check from e8.  Rxa7 captures but
    # leaves the king in check, so it is illegal and no capture is forced.  Legal: Kd1,
    # Kd2, Kf1, Kf2 (e2 is on the rook's file) and the block Re2: 5.
    # Depth 2: after each king move black has no capture and 18 moves (rook: e7-e1 = 7
    # and a8, b8, c8, d8, f8, g8 = 6; pawn a6, a5; king g8, g7, h7); after Re2 black must
    # capture, and Rxe2 is its only capture: 1.  4 * 18 + 1 = 73.
    game = Game("mit-antichess", "4r2k/p7/8/8/8/8/R7/4K3 w - - 0 1")
    assert game.is_check()
    assert _moves(game) == {"e1d1", "e1d2", "e1f1", "e1f2", "a2e2"}
    assert game.perft(2) == 73
    game.push("a2-e2")
    assert _moves(game) == {"e8e2"}


def test_mit_a_capture_that_ends_check_is_compulsory():
    # White Ke1 Ra8; black Kh7 Re8 Pb7, white in check.  Rxe8 ends the check with a
    # capture, so it is forced: the king's escapes are not legal.  Depth 1 = 1.
    # After Rxe8 black (Kh7, Pb7) has no capture; the king may not go to g8 or h8 (rook
    # on e8), so Kg7, Kg6, Kh6, and b6, b5: 5.
    game = Game("mit-antichess", "R3r3/1p5k/8/8/8/8/8/4K3 w - - 0 1")
    assert _moves(game) == {"a8e8"}
    assert game.perft(2) == 5


def test_mit_checkmate_prevails_over_bare_king():
    # White Kg6 Rb1; black Kh8 Nb8.  Rxb8 is the only capture, hence the only move; it
    # mates (g8 rook, g7 and h7 king) and leaves black a bare king.  Checkmate prevails:
    # white wins.  Depth 2 = 0: the game is over.
    game = Game("mit-antichess", "1n5k/8/6K1/8/8/8/8/1R6 w - - 0 1")
    assert _moves(game) == {"b1b8"}
    assert game.perft(2) == 0
    game.push("b1-b8")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "checkmate")


def test_mit_bare_king_wins():
    # Black has only its king (h8) against white Kf6 Ra1: black has won; no moves remain.
    game = Game("mit-antichess", "7k/8/5K2/8/8/8/8/R7 b - - 0 1")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("black", "bare king")
    assert game.legal_moves() == []


def test_mit_side_without_a_move_passes():
    # Black Ka8 Ph7 to move; white Kc7 Pb6 Ph6.  a7 (pawn b6), b7 and b8 (king c7) are
    # attacked, the h-pawn is blocked, black is not in check: its only move is the pass.
    # Depth 2: white (no capture available) plays Kc8, Kd8, Kd7, Kd6, Kc6 (b7 and b8
    # touch the black king) and b7: 6.
    game = Game("mit-antichess", "k7/2K4p/1P5P/8/8/8/8/8 b - - 0 1")
    assert [m.uci() for m in game.legal_moves()] == ["0000"]
    assert game.outcome() is None
    assert game.perft(1) == 1
    assert game.perft(2) == 6
    game.push("0000")
    assert game.turn == "white"
    assert game.fen() == "k7/2K4p/1P5P/8/8/8/8/8 w - - 1 2"


def test_mit_both_sides_without_a_move_is_a_draw():
    # White Kh1 Pg2 Pa7 Pb6, black Ka8 Pb7 Pg3 Ph2.  Every pawn is blocked head-on with
    # no diagonal target; Kh1's g1 is attacked by h2 and h2 is guarded by g3; Ka8's b8 is
    # attacked by a7 and a7 is guarded by b6.  Neither side is in check or can move.
    fen = "k7/Pp6/1P6/8/8/6p1/6Pp/7K w - - 0 1"
    for side_fen in (fen, fen.replace(" w ", " b ")):
        game = Game("mit-antichess", side_fen)
        assert game.legal_moves() == []
        outcome = game.outcome()
        assert (outcome.winner, outcome.reason) == (None, "both sides without a move")


def test_mit_promotion_is_to_queen_only_and_course_notation_has_no_suffix():
    # White Ka1 Pb2 Pe7, black Kh8 Pa7.  No captures.  White: Ka2, Kb1, b3, b4, e8=Q: 5.
    # Depth 2: after e8=Q+ black has Kg7, Kh7 (g8 is attacked): 2; after each of the 4
    # other moves black has Kg8, Kg7, Kh7, a6, a5: 5.  4 * 5 + 2 = 22.
    game = Game("mit-antichess", "7k/p3P3/8/8/8/8/1P6/K7 w - - 0 1")
    assert _moves(game) == {"a1a2", "a1b1", "b2b3", "b2b4", "e7e8q"}
    assert game.perft(2) == 22
    move = game.push("e7-e8")
    assert move.course() == "e7-e8" and move.uci() == "e7e8q"
    assert game.piece_at("e8") == "Q"
    # In chess the same position has four promotions: 4 + 4 = 8 moves.
    assert Game("chess", "7k/p3P3/8/8/8/8/1P6/K7 w - - 0 1").perft(1) == 8


def test_mit_en_passant_counts_as_a_capture():
    # Black has just played d7-d5.  White Ke1 Pe5, black Ke8 Pd5 Ph7: exd6 e.p. is the
    # only capture, so it is forced.  After it black (Ke8 Ph7) has no capture; e7 is
    # attacked by the d6 pawn: Kd8, Kd7, Kf7, Kf8, h6, h5: 6.
    game = Game("mit-antichess", "4k3/7p/8/3pP3/8/8/8/4K3 w - d6 0 2")
    assert _moves(game) == {"e5d6"}
    assert game.perft(2) == 6


def test_mit_castling():
    # White Ke1 Ra1 Rh1, black Ke8 Pd7; nothing can be captured.  King: d1 d2 e2 f1 f2
    # and both castlings (7); Ra1: a2-a8 (7) b1 c1 d1 (3); Rh1: h2-h8 (7) g1 f1 (2): 26.
    game = Game("mit-antichess", "4k3/3p4/8/8/8/8/8/R3K2R w KQ - 0 1")
    moves = _moves(game)
    assert len(moves) == 26
    assert {"e1g1", "e1c1"} <= moves
    game.push("e1-g1")
    assert game.piece_at("f1") == "R" and game.piece_at("g1") == "K"


# --------------------------------------------------------------------------------------
# antiking-antichess


def test_antiking_antichess_anti_check_must_be_ended():
    # White Ka1 Ad4 Pa2 Ph2, black Kh8 Re8 Pa7 ag3 (four pieces each).  White's anti-king
    # on d4 is attacked by no black piece (anti-check).  Only the rook attacks squares
    # next to it: e3, e4, e5.  No pawn or king move ends the anti-check: 3 moves.
    # Depth 2: black's anti-king on g3 stays attacked by h2 and cannot move (no other
    # square next to it is attacked by white); black has no capture (anti-kings cannot
    # be taken).  King: g8 g7 h7 (3); pawn a6 a5 (2); rook along rank 8: a8-d8, f8, g8
    # (6) and down the e-file until the anti-king: 2 (A on e5), 3 (e4), 4 (e3).
    # (6 + 2 + 5) + (6 + 3 + 5) + (6 + 4 + 5) = 42.
    game = Game("antiking-antichess", "4r2k/p7/8/8/3A4/6a1/P6P/K7 w - - 0 1")
    assert game.is_anticheck() and not game.is_check()
    assert _moves(game) == {"d4e3", "d4e4", "d4e5"}
    assert game.perft(2) == 42


def test_antiking_antichess_friendly_capture_is_compulsory_and_three_pieces_win():
    # White Ka1 Ad4 Nc3 Ph2, black Kh8 Rc8 Rd8 ag3.  The anti-king may capture its own
    # knight (c3 is attacked by the c8 rook), which is the only capture, so it is forced.
    # White then has king, anti-king and one piece left: white wins.
    game = Game("antiking-antichess", "2rr3k/8/8/8/3A4/2N3a1/7P/K7 w - - 0 1")
    assert _moves(game) == {"d4c3"}
    assert game.perft(2) == 0
    game.push("d4c3")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "three pieces left")


def test_antiking_antichess_loss_of_pieces_prevails_over_checkmate():
    # White Kg6 Rb1 Ae4 Pg2, black Kh8 Nb8 Pd5 ah3.  Rxb8 is the only capture.  It mates
    # (g8 by the rook, g7 h7 by the king; the anti-king on h3 cannot interpose) and
    # leaves black king, anti-king and one pawn: the loss of pieces prevails, black wins.
    game = Game("antiking-antichess", "1n5k/8/6K1/3p4/4A3/7a/6P1/1R6 w - - 0 1")
    assert _moves(game) == {"b1b8"}
    game.push("b1b8")
    assert game.is_check()
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("black", "three pieces left")
    # The same capture in mit-antichess (no anti-kings, black keeps more): checkmate.
    mit = Game("mit-antichess", "1n5k/8/6K1/8/8/8/8/1R6 w - - 0 1")
    mit.push("b1b8")
    assert mit.outcome().reason == "checkmate"


def test_antiking_antichess_anti_checkmate_loses():
    # White Ka3 Ah1 Pb2 Pc2, black Kh8 ad3 Pa7 Pb7, white to move.  No black piece
    # attacks g1, g2 or h2, and no white move can open a line: anti-checkmate.
    game = Game("antiking-antichess", "7k/pp6/8/8/8/K2a4/1PP5/7A w - - 0 1")
    assert game.legal_moves() == []
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("black", "anti-checkmate")


def test_anti_kings_are_never_captured_and_kings_ignore_them():
    # antiking2 start: white's d2 pawn is blocked by black's anti-king on d3 and the c2
    # and e2 pawns may not take it.  White: 16 pawn moves - 2 (d-pawn) + 4 knight moves +
    # the anti-king to c6 or e6 (attacked by black pawns b7, d7, f7): 20.
    game = Game("antiking2")
    moves = _moves(game)
    assert len(moves) == 20
    assert not {"d2d3", "d2d4", "c2d3", "e2d3"} & moves
    assert {"d6c6", "d6e6"} <= moves
    # White Kc4 Pe4 Aa1, black Ke8 ad5 Re1 (d5 attacked by the e4 pawn, a1 by the rook).
    # The anti-king next to the white king gives no check, the king may step next to it
    # (c5, d4) but may not take it.
    game = Game("antiking2", "4k3/8/8/3a4/2K1P3/8/8/A3r3 w - - 0 1")
    assert not game.is_check()
    moves = _moves(game)
    assert {"c4c5", "c4d4"} <= moves and "c4d5" not in moves


# --------------------------------------------------------------------------------------
# antiking1: Berolina pawns and the king's leap


def test_antiking1_start_position():
    # Pawns (Berolina: one square diagonally forward): a3 b4; b3 a4 c4; c3 b4 d4; d3 c4
    # e4; e3 d4 f4; f3 e4 g4; f2 g3; f1 e2 g2 = 14.  Knights c2 b4 d4, d2 c4 e4 = 4.
    # Bd1-e2, Re1-e2 = 2.  The king's leap c1-e2 = 1.  Queen, Ra2, Bb2 and the anti-king
    # (surrounded by black pieces it may not take) have no move.  21.
    game = Game("antiking1")
    assert game.fen() == "2prbkqA/2p1nnbr/2pppppp/8/8/PPPPPP2/RBNN1P2/aQKBRP2 w KAka - 0 1"
    moves = _moves(game)
    assert len(moves) == 21
    assert "c1e2" in moves
    assert {"a3b4", "f1e2", "f1g2", "f2g3"} <= moves and "e3e4" not in moves


def test_antiking1_berolina_pawns():
    # White Ka1 Ae4 Pd4, black Kh8 ad5 Pe5, no leap rights.  The pawn moves diagonally
    # to c5 (e5 is occupied) and captures straight ahead, but d5 holds an anti-king.
    # Black's e5 pawn attacks only e4, so the white anti-king cannot move (and may not
    # take its own pawn).  White: d4-c5, Ka2, Kb1, Kb2: 4.
    # Depth 2: after c5 black's anti-king is no longer attacked (c5 attacks c6) and
    # its only remedy is Ad5-c6: 1.  After each king move: Kg8 Kg7 Kh7 and e5-f4: 4.
    # 1 + 3 * 4 = 13.
    game = Game("antiking1", "7k/8/8/3ap3/3PA3/8/8/K7 w - - 0 1")
    assert _moves(game) == {"d4c5", "a1a2", "a1b1", "a1b2"}
    assert game.perft(2) == 13
    game.push("d4c5")
    assert game.is_anticheck()
    assert _moves(game) == {"d5c6"}


def test_antiking1_king_leap_escapes_check_once():
    # White Ke1 (may leap) Aa5 Ph3, black Kh8 Re8 ah4 Pa6; white in check on the e-file.
    # Steps d1 d2 f1 f2 and leaps c2 d3 f3 g2: 8.  Depth 2: black has the rook's 7 + 6
    # moves, Kg8 Kg7 Kh7 and a6-b5 (its anti-king cannot move): 17 each.  8 * 17 = 136.
    game = Game("antiking1", "4r2k/8/p7/A7/7a/7P/8/4K3 w K - 0 1")
    assert _moves(game) == {"e1d1", "e1d2", "e1f1", "e1f2", "e1c2", "e1d3", "e1f3", "e1g2"}
    assert game.perft(2) == 136
    game.push("e1d3")
    assert game.fen().split()[2] == "-"
    # Without the leap right only the four steps remain.
    assert Game("antiking1", "4r2k/8/p7/A7/7a/7P/8/4K3 w - - 0 1").perft(1) == 4


# --------------------------------------------------------------------------------------
# hackerrank


def test_hackerrank_start_black_first_no_double_step():
    # Black (player 1) moves first: 8 single pawn steps + 4 knight moves = 12; white
    # answers with the same 12 (no contact yet): 144.
    game = Game("hackerrank")
    assert game.turn == "black"
    assert game.perft(1) == 12 and game.perft(2) == 144
    assert "e7e5" not in _moves(game)


def test_hackerrank_pawn_on_last_row_stays_a_pawn():
    # Black pawn a2 steps to a1 and stays a pawn; then white Kh1 has g1 g2 h2: 3.
    game = Game("hackerrank", "8/8/8/8/8/8/p7/7K b - - 0 1")
    assert _moves(game) == {"a2a1"}
    assert game.perft(2) == 3
    game.push("a2a1")
    assert game.piece_at("a1") == "p"


def test_hackerrank_ply_limit_then_fewer_pieces_wins():
    # Ply 99 (white to move, fullmove 51 when black moves first): white plays, the
    # 100th ply ends the game; white has 1 piece, black 2: white wins.
    game = Game("hackerrank", "8/8/8/8/8/8/pp6/7K w - - 0 51")
    assert game.ply == 99
    assert game.perft(1) == 3 and game.perft(2) == 0
    game.push("h1g1")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "ply limit")


def test_hackerrank_no_move_fewer_pieces_wins():
    # White Pa2 is blocked by black Pa3 and has no capture; black also has Ph7.  White
    # cannot move: fewer pieces (1 against 2) wins.
    game = Game("hackerrank", "8/7p/8/8/8/p7/P7/8 w - - 0 10")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "stalemate by piece count")


# --------------------------------------------------------------------------------------
# losing variants' ends that python-chess does not name the same way


@pytest.mark.parametrize("variant,winner,reason", [
    ("antichess", "white", "stalemate"),
    ("giveaway", "white", "stalemate"),
    ("suicide", "white", "stalemate by piece count"),
])
def test_losing_variants_stalemate(variant, winner, reason):
    # White pawn a4 blocked by black pawn a5, black also has h7: white cannot move.
    # antichess/giveaway: the side without a move wins; suicide: fewer pieces (1 vs 2) wins.
    game = Game(variant, "8/7p/8/p7/P7/8/8/8 w - - 0 1")
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == (winner, reason)


def test_losers_checkmated_side_wins():
    # Fool's mate in losers: white is mated, and in losers the mated side wins.
    game = Game("losers")
    for move in ("f2f3", "e7e5", "g2g4", "d8h4"):
        game.push(move)
    outcome = game.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "checkmate")

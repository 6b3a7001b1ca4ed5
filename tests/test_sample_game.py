"""The course's staff sample game, replayed under mit-antichess."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from engine import Game

SAMPLE_GAME = Path(__file__).resolve().parent / "data" / "textui" / "sample_game.xml"
PIECE_LETTERS = {"king": "k", "queen": "q", "rook": "r", "bishop": "b", "knight": "n", "pawn": "p"}


def test_staff_sample_game_replays_and_white_wins():
    root = ET.parse(SAMPLE_GAME).getroot()
    game = Game("mit-antichess")
    for element in root.find("moveHistory"):
        assert element.get("side") == game.turn
        move = element.get("value")
        assert game.is_legal(move), f"{move} is not legal in {game.fen()}"
        game.push(move)

    expected = {}
    for square in root.find("pieces"):
        letter = PIECE_LETTERS[square.get("piece")]
        expected[square.get("id")] = letter.upper() if square.get("side") == "white" else letter
    actual = {f"{f}{r}": game.piece_at(f"{f}{r}") for f in "abcdefgh" for r in "12345678"}
    assert {s: p for s, p in actual.items() if p} == expected

    game_over = root.find("gameOver")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == game_over.get("winner") == "white"
    assert outcome.reason == game_over.get("description") == "checkmate"

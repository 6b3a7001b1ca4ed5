"""The errors the rules core raises for bad moves and stopped counts (FEN errors are
`engine.rules.fen.FenError`)."""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """A move string that is not a move in any notation the engine reads."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow here; `reason` says why."""

    def __init__(self, move_text: str, reason: str):
        super().__init__(f"illegal move {move_text} ({reason})")
        self.move_text = move_text
        self.reason = reason


class PerftStopped(Exception):
    """A perft was stopped through its StopFlag before it finished; no count is known."""

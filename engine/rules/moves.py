"""`Move`: a move as the kernels encode it, with its UCI and course notations.

Numba-free and free of `Game`, so the search (`engine.search.searcher`) can return moves without
importing the game facade that calls it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bitboards import CAPTURE_FLAG, MOVE_EN_PASSANT, MOVE_PASS, PASS_MOVE, PIECE_LETTERS
from .notation import square_name


@dataclass(frozen=True)
class Move:
    """A move as the kernels encode it; compare and hash by value.

    `uci()` gives UCI notation (`e2e4`, `e7e8q`, `0000` for a pass), `course()` the MIT
    course notation (`e2-e4`; a queen promotion has no suffix).
    """

    code: int

    @classmethod
    def null(cls) -> "Move":
        """The pass: the side to move gives up its turn (only when the rules make it)."""
        return cls(PASS_MOVE)

    @property
    def is_pass(self) -> bool:
        return (self.code >> 15) & 7 == MOVE_PASS

    @property
    def from_square(self) -> int:
        return self.code & 63

    @property
    def to_square(self) -> int:
        return (self.code >> 6) & 63

    @property
    def promotion(self) -> str | None:
        """Promotion piece letter ('q', 'r', 'b', 'n', 'k') or None."""
        piece = (self.code >> 12) & 7
        return PIECE_LETTERS[piece] if piece else None

    @property
    def is_capture(self) -> bool:
        return bool(self.code & CAPTURE_FLAG)

    @property
    def is_en_passant(self) -> bool:
        return (self.code >> 15) & 7 == MOVE_EN_PASSANT

    def uci(self) -> str:
        if self.is_pass:
            return "0000"
        return square_name(self.from_square) + square_name(self.to_square) + (self.promotion or "")

    def course(self) -> str:
        if self.is_pass:
            return "pass"
        suffix = self.promotion if self.promotion not in (None, "q") else ""
        return f"{square_name(self.from_square)}-{square_name(self.to_square)}{suffix}"

    def __str__(self) -> str:
        return self.uci()

    def __repr__(self) -> str:
        return f"Move({self.uci()!r})"

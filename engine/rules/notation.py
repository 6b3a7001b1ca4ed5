"""Board notation shared by the engine and its adapters (square names, the FEN placement
field), with no numba or numpy import."""

from __future__ import annotations

from collections.abc import Mapping


def placement_field(pieces: Mapping[int, str]) -> str:
    """The FEN piece-placement field for {square (a1 = 0, h8 = 63): letter}; rank 8 first."""
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for file in range(8):
            letter = pieces.get(file + 8 * rank)
            if letter is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += letter
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def square_name(square: int) -> str:
    """'a1' for 0 ... 'h8' for 63."""
    return "abcdefgh"[square & 7] + str((square >> 3) + 1)


def parse_square(text: str) -> int:
    """0 for 'a1' ... 63 for 'h8'; ValueError for anything else."""
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        raise ValueError(f"not a square: {text!r}")
    return "abcdefgh".index(text[0]) + 8 * (int(text[1]) - 1)

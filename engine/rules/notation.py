"""Board notation shared by the engine and its adapters, with no numba or numpy import."""

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

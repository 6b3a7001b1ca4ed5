"""ShowBoard's ASCII picture of the position."""

from __future__ import annotations

FILES = "abcdefgh"


def clock_text(remaining_ms: int | None) -> str:
    """A clock as ShowBoard writes it: `123456 ms` or `unlimited`."""
    return "unlimited" if remaining_ms is None else f"{remaining_ms} ms"


def render(game, players: dict[str, str], clocks: dict[str, int | None]) -> list[str]:
    """The board with White at the bottom, then the side to move and both clocks.

    Uppercase letters are White's pieces, lowercase Black's (FEN letters; `A`/`a` are
    anti-kings), `.` an empty square.
    """
    border = "  +-----------------+"
    files = "    " + " ".join(FILES)
    lines = [files, border]
    for rank in "87654321":
        cells = [game.piece_at(file + rank) or "." for file in FILES]
        lines.append(f"{rank} | {' '.join(cells)} | {rank}")
    lines += [border, files]
    lines.append(f"{game.turn.capitalize()} to move")
    for side in ("white", "black"):
        lines.append(f"{side.capitalize()} ({players[side]}): {clock_text(clocks[side])}")
    return lines

"""SAN and PGN for refereed games: the engine's own writers (`Game.san`, `PgnGame`,
`render_pgn`), named here for the referee and the opening reader.

Every game the referee records carries the tags Variant, FEN and SetUp (always, so that
the start position and rule set are never guessed) and Termination (PGN standard section
9.8.1 values plus cutechess's "illegal move" and "stalled connection"); the reason of the
result is the last comment of the movetext.  Moves are SAN as the engine writes it: a pass
is `--` (python-chess's null move), `#` marks a move that ends the game with a winner.
"""

from __future__ import annotations

from engine import PgnGame, render_pgn

__all__ = ["PgnGame", "render", "san"]


def san(game, move) -> str:
    """SAN of a legal `move` (engine.Move) in `game` (engine.Game), before it is played."""
    return game.san(move)


def render(pgn: PgnGame, width: int = 79) -> str:
    """The game as PGN text (tags, blank line, wrapped movetext, blank line)."""
    return render_pgn(pgn, width)

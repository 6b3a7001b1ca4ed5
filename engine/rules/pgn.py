"""PGN: a game's record as text that python-chess, lichess and the GUIs read.

`render_pgn` writes tags, a blank line, movetext wrapped at 79 columns (move numbers from the
start position's fullmove number, `N...` after a comment or when Black moves first, `{}`
comments) and the result.  `game_pgn` makes the record of a `Game`: the Seven Tag Roster,
then Variant (the rule set's name, which python-chess's `chess.variant.find_variant`
reads for the lichess rule sets; none for chess), FEN and SetUp when the game did not start from the rule
set's start position, and the moves in SAN (engine.rules.san).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field


@dataclass
class PgnGame:
    """What a PGN record holds: tags in order, SAN moves with optional comments, result."""

    tags: list[tuple[str, str]]
    start_fen: str
    sans: list[str] = field(default_factory=list)
    comments: list[str | None] = field(default_factory=list)
    result: str = "*"
    final_comment: str | None = None


def _escape(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")").replace("{", "(").replace("\n", " ") + "}"


def render_pgn(pgn: PgnGame, width: int = 79) -> str:
    """The game as PGN text (tags, blank line, wrapped movetext, blank line)."""
    lines = [f'[{name} "{_escape(value)}"]' for name, value in pgn.tags]
    fields = pgn.start_fen.split()
    black_first = len(fields) > 1 and fields[1] == "b"
    try:
        number = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        number = 1
    tokens: list[str] = []
    white_turn = not black_first
    need_number = True
    comments = list(pgn.comments) + [None] * (len(pgn.sans) - len(pgn.comments))
    for san_text, comment in zip(pgn.sans, comments):
        if white_turn:
            tokens.append(f"{number}.")
        elif need_number:
            tokens.append(f"{number}...")
        tokens.append(san_text)
        need_number = False
        if comment:
            tokens.append(_comment(comment))
            need_number = True
        if not white_turn:
            number += 1
        white_turn = not white_turn
    if pgn.final_comment:
        tokens.append(_comment(pgn.final_comment))
    tokens.append(pgn.result)
    text_lines, current = [], ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            text_lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    if current:
        text_lines.append(current)
    return "\n".join(lines) + "\n\n" + "\n".join(text_lines) + "\n\n"


def game_pgn(game, headers: dict[str, str] | None = None) -> str:
    """The PGN of `game` (an engine Game) from its start position to now.  `headers`
    adds tags or replaces the defaults (Event "?", Site "?", today's Date, Round "?",
    White "?", Black "?", Result from the game's outcome, or "*" while it goes on)."""
    from .san import san

    replay = type(game)(game.rules, game.start_fen)
    sans = []
    for move in game.move_stack:
        sans.append(san(replay, move))
        replay.push(move)
    outcome = game.outcome(claim_draw=True)
    result = outcome.result if outcome is not None else "*"
    tags = {"Event": "?", "Site": "?", "Date": datetime.date.today().strftime("%Y.%m.%d"), "Round": "?",
            "White": "?", "Black": "?", "Result": result}
    if game.variant != "chess":
        tags["Variant"] = game.variant
    if game.start_fen != type(game)(game.rules).start_fen:
        tags["FEN"] = game.start_fen
        tags["SetUp"] = "1"
    if outcome is not None:
        tags["Termination"] = "normal"
    tags.update(headers or {})
    record = PgnGame(list(tags.items()), game.start_fen, sans, [None] * len(sans), tags["Result"],
                     f"{outcome.reason}" if outcome is not None else None)
    return render_pgn(record)

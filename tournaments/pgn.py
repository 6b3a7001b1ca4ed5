"""SAN and PGN for games refereed with `engine.Game`, readable by python-chess.

Moves are written in Standard Algebraic Notation computed from our own legal-move list
(disambiguation, captures, promotions `=Q`, castling `O-O`, `+`/`#` where the rule set has
check); a pass is `--` (python-chess's null move).  Every game carries the tags Variant,
FEN and SetUp (always, so that the start position and rule set are never guessed) and
Termination (PGN standard section 9.8.1 values plus cutechess's "illegal move" and
"stalled connection"); the reason of the result is the last comment of the movetext.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FILES = "abcdefgh"


def _square(square: int) -> str:
    return FILES[square & 7] + str((square >> 3) + 1)


def san(game, move) -> str:
    """SAN of a legal `move` (engine.Move) in `game` (engine.Game), before it is played."""
    if move.is_pass:
        return "--"
    piece = (game.piece_at(move.from_square) or "?").upper()
    origin, target = move.from_square, move.to_square
    if piece == "K" and abs((origin & 7) - (target & 7)) == 2 and (origin >> 3) == (target >> 3):
        text = "O-O" if (target & 7) > (origin & 7) else "O-O-O"
    elif piece == "P":
        text = ""
        if move.is_capture or (origin & 7) != (target & 7):
            text = FILES[origin & 7] + "x"
        text += _square(target)
        if move.promotion:
            text += "=" + move.promotion.upper()
    else:
        rivals = [other for other in game.legal_moves()
                  if other != move and not other.is_pass and other.to_square == target
                  and other.from_square != origin
                  and (game.piece_at(other.from_square) or "").upper() == piece]
        hint = ""
        if rivals:
            same_file = any((o.from_square & 7) == (origin & 7) for o in rivals)
            same_rank = any((o.from_square >> 3) == (origin >> 3) for o in rivals)
            if not same_file:
                hint = FILES[origin & 7]
            elif not same_rank:
                hint = str((origin >> 3) + 1)
            else:
                hint = _square(origin)
        text = piece + hint + ("x" if move.is_capture else "") + _square(target)
        if move.promotion:
            text += "=" + move.promotion.upper()
    game.push(move)
    try:
        if game.is_check():
            outcome = game.outcome()
            text += "#" if outcome is not None and outcome.reason == "checkmate" else "+"
    finally:
        game.pop()
    return text


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


def render(pgn: PgnGame, width: int = 79) -> str:
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
    for san_text, comment in zip(pgn.sans, pgn.comments):
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

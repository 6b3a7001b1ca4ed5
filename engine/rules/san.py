"""Standard Algebraic Notation: writing a legal move in SAN, and reading SAN back.

Written from the game's own legal-move list: disambiguation by file, then rank, then
square, as PGN (section 8.2.3) asks; `x` for captures; promotions `=Q` (and `=K` where the
rule set promotes to a king); castling `O-O` / `O-O-O`; `#` for a move that ends the game
with a winner (checkmate, and the losing rule sets' wins, as python-chess and lichess write
them), else `+` for a check in rule sets with a royal king; a pass is `--` (python-chess's
null move).  Anti-kings are `A`.

Reading accepts what people and programs write: check and annotation marks (`+ # ! ?`)
ignored, `0-0` for `O-O`, a missing `x`, a promotion without `=`, a lowercase promotion
letter, and a redundant disambiguation.  `parse_san` raises ValueError for text that is
no legal move in SAN, naming the reason (no such move, ambiguous).
"""

from __future__ import annotations

import re

from .errors import IllegalMoveError, InvalidMoveError
from .notation import square_name

PASS_SAN = "--"
_SAN = re.compile(r"^(?P<piece>[NBRQKA])?(?P<file>[a-h])?(?P<rank>[1-8])?(?P<capture>x)?"
                  r"(?P<target>[a-h][1-8])(?:=?(?P<promotion>[NBRQKnbrqk]))?$")


def _castle_side(game, move) -> str | None:
    """'O-O' or 'O-O-O' when `move` is castling, else None."""
    origin, target = move.from_square, move.to_square
    piece = (game.piece_at(origin) or "").upper()
    if piece == "K" and (origin >> 3) == (target >> 3) and abs((origin & 7) - (target & 7)) == 2:
        return "O-O" if (target & 7) > (origin & 7) else "O-O-O"
    return None


def san(game, move) -> str:
    """The SAN of `move`, legal in `game` now (the game is left as it was)."""
    if move.is_pass:
        return PASS_SAN
    origin, target = move.from_square, move.to_square
    piece = (game.piece_at(origin) or "?").upper()
    castle = _castle_side(game, move)
    if castle is not None:
        text = castle
    elif piece == "P":
        text = ""
        if move.is_capture or (origin & 7) != (target & 7):
            text = "abcdefgh"[origin & 7] + "x"
        text += square_name(target)
    else:
        rivals = [other for other in game.legal_moves()
                  if not other.is_pass and other.to_square == target and other.from_square != origin
                  and (game.piece_at(other.from_square) or "").upper() == piece]
        hint = ""
        if rivals:
            if not any((other.from_square & 7) == (origin & 7) for other in rivals):
                hint = "abcdefgh"[origin & 7]
            elif not any((other.from_square >> 3) == (origin >> 3) for other in rivals):
                hint = str((origin >> 3) + 1)
            else:
                hint = square_name(origin)
        text = piece + hint + ("x" if move.is_capture else "") + square_name(target)
    if move.promotion:
        text += "=" + move.promotion.upper()
    game.push(move)
    try:
        outcome = game.outcome()
        if outcome is not None and outcome.winner is not None:
            text += "#"  # the move ends the game with a winner (mate, or a losing-chess win)
        elif game.rules.royal_king and game.is_check():
            text += "+"
    finally:
        game.pop()
    return text


def parse_san(game, text: str):
    """The legal Move that the SAN `text` names in `game` now; ValueError if none or
    several do."""
    clean = text.strip().rstrip("+#!?")
    legal = game.legal_moves()
    if clean in (PASS_SAN, "Z0", "0000", "@@@@"):
        for move in legal:
            if move.is_pass:
                return move
        raise IllegalMoveError(text, "passing is allowed only without a legal move")
    if clean.replace("0", "O") in ("O-O", "O-O-O"):
        wanted = clean.replace("0", "O")
        for move in legal:
            if not move.is_pass and _castle_side(game, move) == wanted:
                return move
        raise IllegalMoveError(text, "castling is not legal here")
    found = _SAN.match(clean)
    if found is None:
        raise InvalidMoveError(f"not a move: {text!r}")
    piece = found["piece"] or "P"
    target = found["target"]
    promotion = (found["promotion"] or "").lower() or None
    if promotion is not None and piece != "P":
        raise InvalidMoveError(f"only a pawn promotes: {text!r}")
    matches = []
    for move in legal:
        if move.is_pass or square_name(move.to_square) != target:
            continue
        if (game.piece_at(move.from_square) or "").upper() != piece or _castle_side(game, move) is not None:
            continue
        origin = square_name(move.from_square)
        if found["file"] and origin[0] != found["file"]:
            continue
        if found["rank"] and origin[1] != found["rank"]:
            continue
        if move.promotion != promotion:
            continue
        matches.append(move)
    if not matches:
        if promotion is None and piece == "P" and any(
                not m.is_pass and m.promotion and square_name(m.to_square) == target for m in legal):
            raise IllegalMoveError(text, "promotion piece missing")
        raise IllegalMoveError(text, "not a legal move")
    if len(matches) > 1:
        raise IllegalMoveError(text, "ambiguous: " + ", ".join(sorted(san(game, m) for m in matches)))
    return matches[0]

"""FEN in and out, with the validation that keeps impossible positions out of the kernels.

Anti-kings are `A` (white) and `a` (black).  In rule sets with the king's leap (antiking1,
which has no castling) the castling field carries the leap rights instead: `K`/`A` = the
white king/anti-king has not moved and may still leap, `k`/`a` the same for black.
The fullmove number counts from the rule set's first mover (black in hackerrank).
"""

from __future__ import annotations

import numpy as np

from .bitboards import (
    ANTIKING, BLACK, KING, NO_SQUARE, OCC, P_CASTLE, P_EP, P_HALFMOVE, P_KEY, P_LEAP, P_PLY,
    P_SIDE, PAWN, PAWN_DIAGONAL, PIECE_LETTERS, POS_SIZE, ROOK, WHITE,
)
from .attacks import antiking_attackers, king_attackers
from .movegen import compute_key
from .notation import parse_square, placement_field, square_name
from .rulesets import RuleSet

_CASTLE_LETTERS = {"K": 1, "Q": 2, "k": 4, "q": 8}
_LEAP_LETTERS = {"K": 1, "A": 2, "k": 4, "a": 8}


class FenError(ValueError):
    """A FEN is malformed or describes a position impossible under the rule set."""


def _bits(bitboard) -> list[int]:
    value = int(bitboard)
    return [s for s in range(64) if value >> s & 1]


def parse_fen(fen: str, rules: RuleSet) -> np.ndarray:
    """The position row (uint64[POS_SIZE]) for `fen` under `rules`; FenError if invalid.

    Halfmove clock and fullmove number may be omitted (0 and 1).  Castling rights whose
    king or rook is not on its home square are dropped, as python-chess does; rights are
    ignored altogether in rule sets without castling.
    """
    if not isinstance(fen, str):
        raise FenError("a FEN must be text")
    fields = fen.split()
    if len(fields) not in (4, 5, 6):
        raise FenError(f"a FEN has 4 to 6 fields, got {len(fields)}: {fen!r}")
    board, side, castling, ep = fields[:4]
    halfmove_text = fields[4] if len(fields) > 4 else "0"
    fullmove_text = fields[5] if len(fields) > 5 else "1"

    pos = np.zeros(POS_SIZE, dtype=np.uint64)
    ranks = board.split("/")
    if len(ranks) != 8:
        raise FenError(f"the board needs 8 ranks separated by '/', got {len(ranks)}")
    letters = PIECE_LETTERS if rules.anti_kings else PIECE_LETTERS[:6]
    for row, rank_text in enumerate(ranks):
        rank = 7 - row
        file = 0
        previous_digit = False
        for char in rank_text:
            if char in "12345678":
                if previous_digit:
                    raise FenError(f"two digits in a row in rank {rank + 1}: {rank_text!r}")
                file += int(char)
                previous_digit = True
                continue
            previous_digit = False
            lower = char.lower()
            if lower not in letters:
                hint = " (anti-kings exist only in the anti-king rule sets)" if lower == "a" else ""
                raise FenError(f"unknown piece letter {char!r}{hint}")
            if file > 7:
                raise FenError(f"rank {rank + 1} ({rank_text!r}) has more than 8 squares")
            color = WHITE if char.isupper() else BLACK
            bit = np.uint64(1 << (file + 8 * rank))
            pos[color * 8 + letters.index(lower)] |= bit
            pos[color * 8 + OCC] |= bit
            file += 1
        if file != 8:
            raise FenError(f"rank {rank + 1} ({rank_text!r}) does not describe 8 squares")

    if side not in ("w", "b"):
        raise FenError(f"side to move is 'w' or 'b', got {side!r}")
    us = WHITE if side == "w" else BLACK
    them = 1 - us
    pos[P_SIDE] = us

    table = _LEAP_LETTERS if rules.king_leap else _CASTLE_LETTERS
    rights = 0
    if castling != "-":
        for char in castling:
            if char not in table:
                raise FenError(f"invalid castling field {castling!r}")
            if rights & table[char]:
                raise FenError(f"castling field {castling!r} repeats {char!r}")
            rights |= table[char]
    if rules.king_leap:
        leap = 0
        for color in (WHITE, BLACK):
            for piece, bit in ((KING, 1), (ANTIKING, 2)):
                bit <<= 2 * color
                if rights & bit and pos[color * 8 + piece]:
                    leap |= bit
        pos[P_LEAP] = leap
    elif rules.castling:
        castle = 0
        for color in (WHITE, BLACK):
            home = 56 * color
            king_home = bool(int(pos[color * 8 + KING]) >> (home + 4) & 1)
            rooks = int(pos[color * 8 + ROOK])
            if king_home and rooks >> (home + 7) & 1:
                castle |= rights & (1 << (2 * color))
            if king_home and rooks >> home & 1:
                castle |= rights & (2 << (2 * color))
        pos[P_CASTLE] = castle

    pos[P_EP] = NO_SQUARE
    if ep != "-":
        try:
            ep_square = parse_square(ep)
        except ValueError:
            raise FenError(f"invalid en-passant field {ep!r}") from None
        expected_rank = 5 if us == WHITE else 2
        pushed = ep_square - 8 if us == WHITE else ep_square + 8
        behind = ep_square + 8 if us == WHITE else ep_square - 8
        occupied = int(pos[OCC]) | int(pos[8 + OCC])
        if (ep_square >> 3 != expected_rank or not int(pos[them * 8 + PAWN]) >> pushed & 1
                or occupied >> ep_square & 1 or occupied >> behind & 1):
            raise FenError(f"en-passant square {ep} does not follow a double pawn step")
        if rules.en_passant and int(PAWN_DIAGONAL[them, ep_square]) & int(pos[us * 8 + PAWN]):
            pos[P_EP] = ep_square

    try:
        halfmove = int(halfmove_text)
        fullmove = int(fullmove_text)
    except ValueError:
        raise FenError("halfmove clock and fullmove number must be integers") from None
    if halfmove < 0 or fullmove < 1 or halfmove > 10**6 or fullmove > 10**6:
        raise FenError("halfmove clock must be >= 0 and fullmove number >= 1 (and sane)")
    pos[P_HALFMOVE] = halfmove
    first_black = 1 if rules.first_mover == "black" else 0
    pos[P_PLY] = max(0, 2 * (fullmove - 1) + us - first_black)

    _validate(pos, rules, us)
    pos[P_KEY] = compute_key(pos)
    return pos


def _validate(pos, rules: RuleSet, us: int) -> None:
    them = 1 - us
    names = ("white", "black")
    for color in (WHITE, BLACK):
        kings = len(_bits(pos[color * 8 + KING]))
        if rules.royal_king and kings != 1:
            raise FenError(f"{names[color]} must have exactly one king, has {kings}")
        if rules.anti_kings:
            anti = len(_bits(pos[color * 8 + ANTIKING]))
            if anti != 1:
                raise FenError(f"{names[color]} must have exactly one anti-king, has {anti}")
        pawns = int(pos[color * 8 + PAWN])
        last_rank = 0xFF << 56 if color == WHITE else 0xFF
        first_rank = 0xFF if color == WHITE else 0xFF << 56
        if rules.promotion and pawns & last_rank:
            raise FenError(f"{names[color]} has a pawn on its promotion rank")
        if not rules.berolina and pawns & first_rank:
            raise FenError(f"{names[color]} has a pawn on its own first rank")
    if sum(len(_bits(pos[c * 8 + OCC])) for c in (WHITE, BLACK)) > 64:
        raise FenError("too many pieces")
    if rules.extinction_count >= 0 and all(
            len(_bits(pos[c * 8 + OCC])) <= rules.extinction_count for c in (WHITE, BLACK)):
        if rules.extinction_count == 0:
            raise FenError("no pieces on the board")
        raise FenError(f"both sides have {rules.extinction_count} piece{'s' if rules.extinction_count > 1 else ''}"
                       f" or fewer, so the game ended before this position ({rules.extinction_reason})")
    rules_array = rules.to_array()
    occupied = pos[OCC] | pos[8 + OCC]
    if rules.royal_king:
        their_king = _bits(pos[them * 8 + KING])[0]
        if king_attackers(pos, np.int64(their_king), np.int64(us), occupied, rules_array):
            raise FenError(f"the side not to move ({names[them]}) is in check")
        our_king = _bits(pos[us * 8 + KING])[0]
        checkers = king_attackers(pos, np.int64(our_king), np.int64(them), occupied, rules_array)
        if len(_bits(checkers)) > 2:
            raise FenError(f"{names[us]} is in check from more than two pieces")
    if rules.anti_kings:
        their_anti = _bits(pos[them * 8 + ANTIKING])[0]
        if not antiking_attackers(pos, np.int64(their_anti), np.int64(us), occupied, rules_array):
            raise FenError(f"the side not to move ({names[them]}) has its anti-king in anti-check")


def format_fen(pos: np.ndarray, rules: RuleSet) -> str:
    """The FEN of a position row under `rules` (inverse of `parse_fen`)."""
    pieces = {}
    for color in (WHITE, BLACK):
        for piece, letter in enumerate(PIECE_LETTERS):
            for square in _bits(pos[color * 8 + piece]):
                pieces[square] = letter.upper() if color == WHITE else letter
    us = int(pos[P_SIDE])
    if rules.king_leap:
        rights = int(pos[P_LEAP])
        castling = "".join(c for c, bit in _LEAP_LETTERS.items() if rights & bit)
    else:
        rights = int(pos[P_CASTLE])
        castling = "".join(c for c, bit in _CASTLE_LETTERS.items() if rights & bit)
    ep = int(pos[P_EP])
    first_black = 1 if rules.first_mover == "black" else 0
    fullmove = (int(pos[P_PLY]) + first_black) // 2 + 1
    return " ".join([
        placement_field(pieces),
        "w" if us == WHITE else "b",
        castling or "-",
        square_name(ep) if ep != NO_SQUARE else "-",
        str(int(pos[P_HALFMOVE])),
        str(fullmove),
    ])

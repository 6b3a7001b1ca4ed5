"""`Game`: the Python facade over the rules kernels: a game under one rule set."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .attacks import check_state
from .movegen import gen_legal, legal_moves, make_move
from .status import FIFTY_MOVE_PLIES, game_status, insufficient_material, perft
from .bitboards import MAX_MOVES, OCC, P_HALFMOVE, P_KEY, P_PLY, P_SIDE, PIECE_LETTERS, POS_SIZE
from .notation import parse_square, square_name
from .pgn import game_pgn
from .san import parse_san, san
from ..jit.modes import uses_kernels
from .fen import format_fen, parse_fen
from .errors import IllegalMoveError, InvalidMoveError, PerftStopped
from .moves import Move
from .rulesets import R_MUST_CAPTURE, REASONS, RuleSet, get_rule_set

MAX_PERFT_DEPTH = 30
_SQUARE_PAIR = re.compile(r"^[a-h][1-8]-?[a-h][1-8]")  # UCI or course notation, not SAN
_HEADROOM = MAX_PERFT_DEPTH + 4


class StopFlag:
    """A stop request a kernel can read: one int64 that `set()` (any thread, or a signal
    handler) turns to 1 and the perft kernel reads atomically at every interior node."""

    def __init__(self):
        self.array = np.zeros(1, dtype=np.int64)

    def set(self) -> None:
        """Ask the count to stop (safe from any thread or a signal handler)."""
        self.array[0] = 1

    def clear(self) -> None:
        """Take the request back, for the next count."""
        self.array[0] = 0

    def is_set(self) -> bool:
        """True once `set()` was called (and not cleared)."""
        return bool(self.array[0])


@dataclass(frozen=True)
class Outcome:
    """How a game ended: `winner` is 'white', 'black' or None (draw); `reason` a REASONS name."""

    winner: str | None
    reason: str

    @property
    def result(self) -> str:
        """'1-0', '0-1' or '1/2-1/2'."""
        return {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[self.winner]


class KernelRows(NamedTuple):
    """What `Game.kernel_rows` lends: the position stack (uint64[rows, POS_SIZE]), the
    move buffer (int32[rows, MAX_MOVES]), the index of the current position's row, and the
    rule record (int64[R_SIZE])."""

    stack: np.ndarray
    mlist: np.ndarray
    row: int
    rules: np.ndarray


class Game:
    """A game under one rule set: position, history, legal moves, outcome and perft.

    Moves may be given as `Move` objects or as text in UCI (`e2e4`, `e7e8q`), course
    (`e2-e4`), SAN (`e4`, `Nf6`, `exd5`, `e8=Q`, `O-O`) or pass (`0000`, `@@@@`, `--`)
    notation.  Every method leaves the game unchanged when it raises.  `str(game)` draws
    the board; `san(move)` and `pgn()` write SAN and PGN.
    """

    def __init__(self, variant: str | RuleSet = "chess", fen: str | None = None):
        self.rules = get_rule_set(variant)
        self._rules_array = self.rules.to_array()
        relaxed = self._rules_array.copy()
        relaxed[R_MUST_CAPTURE] = 0
        relaxed.setflags(write=False)
        self._relaxed_rules = relaxed
        self._stack = np.zeros((64 + _HEADROOM, POS_SIZE), dtype=np.uint64)
        self._mlist = np.zeros((64 + _HEADROOM, MAX_MOVES), dtype=np.int32)
        self._moves: list[Move] = []
        self._legal: list[Move] | None = None
        self.set_fen(fen if fen is not None else self.rules.start_fen)

    # -- position ----------------------------------------------------------------------

    @property
    def variant(self) -> str:
        """The canonical name of the rule set."""
        return self.rules.name

    @uses_kernels
    def set_fen(self, fen: str) -> None:
        """Start from `fen` with an empty history; FenError (game unchanged) if invalid."""
        row = parse_fen(fen, self.rules)
        self._stack[0] = row
        self._moves = []
        self._legal = None
        self._start_fen = format_fen(row, self.rules)

    def reset(self) -> None:
        """Back to the rule set's start position."""
        self.set_fen(self.rules.start_fen)

    def fen(self) -> str:
        """FEN of the current position (anti-kings `A`/`a`; see engine.rules.fen)."""
        return format_fen(self._row(), self.rules)

    @property
    def start_fen(self) -> str:
        """FEN of the position the history starts from."""
        return self._start_fen

    @property
    def turn(self) -> str:
        """'white' or 'black': the side to move."""
        return "black" if int(self._row()[P_SIDE]) else "white"

    @property
    def ply(self) -> int:
        """Plies played since the rule set's start position (from the FEN's move number)."""
        return int(self._row()[P_PLY])

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture or pawn move (the fifty-move rule's count)."""
        return int(self._row()[P_HALFMOVE])

    @property
    def key(self) -> int:
        """Zobrist key of the current position."""
        return int(self._row()[P_KEY])

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed since the start position, oldest first (a copy)."""
        return list(self._moves)

    def piece_at(self, square: int | str) -> str | None:
        """FEN letter of the piece on `square` (0-63 or 'e4'), or None if empty; ValueError
        for anything that is no square."""
        if isinstance(square, str):
            square = parse_square(square)
        elif isinstance(square, bool) or not isinstance(square, (int, np.integer)) or not 0 <= square < 64:
            raise ValueError(f"not a square: {square!r} (0-63 or a name like 'e4')")
        row = self._row()
        for color in (0, 1):
            for piece, letter in enumerate(PIECE_LETTERS):
                if int(row[color * 8 + piece]) >> square & 1:
                    return letter.upper() if color == 0 else letter
        return None

    def piece_count(self, color: str) -> int:
        """Number of pieces `color` ('white' or 'black') has on the board."""
        return int(self._row()[(0 if color == "white" else 1) * 8 + OCC]).bit_count()

    @uses_kernels
    def is_check(self) -> bool:
        """True if the side to move's royal king is attacked."""
        return bool(check_state(self._row(), self._rules_array) & 1)

    @uses_kernels
    def is_anticheck(self) -> bool:
        """True if the side to move's anti-king is attacked by no enemy piece."""
        return bool(check_state(self._row(), self._rules_array) & 2)

    def copy(self) -> "Game":
        """An independent game with the same rule set, start position and history."""
        twin = Game(self.rules, self._start_fen)
        for move in self._moves:
            twin.push(move)
        return twin

    # -- moves -------------------------------------------------------------------------

    @uses_kernels
    def legal_moves(self) -> list[Move]:
        """Every move the side to move may play (the pass alone when it must pass;
        none when the game is over by rule)."""
        if self._legal is None:
            idx = np.int64(len(self._moves))
            n = legal_moves(self._stack, idx, self._rules_array, self._mlist)
            self._legal = [Move(int(code)) for code in self._mlist[idx, :n]]
        return list(self._legal)

    def is_legal(self, move: Move | str) -> bool:
        """True if `move` (a Move or move text) is legal now; never raises."""
        try:
            self.parse_move(move)
        except ValueError:
            return False
        return True

    @uses_kernels
    def parse_move(self, move: Move | str) -> Move:
        """The legal Move meant by `move`.

        Raises InvalidMoveError for text that is no move, IllegalMoveError (with a reason)
        for a move the rules forbid here.
        """
        legal = self.legal_moves()
        if isinstance(move, Move):
            if move in legal:
                return move
            raise IllegalMoveError(move.uci(), self._illegal_reason(move.from_square, move.to_square, move.is_pass))
        text = str(move).strip()
        try:
            origin, target, promotion, is_pass = _parse_move_text(text)
        except InvalidMoveError:
            if _SQUARE_PAIR.match(text):
                raise  # written as squares (e1e1, e2-e2): no move in that notation
            return parse_san(self, text)  # not UCI or course notation: SAN, or no move at all
        if is_pass:
            for candidate in legal:
                if candidate.is_pass:
                    return candidate
            raise IllegalMoveError(text, self._illegal_reason(0, 0, True))
        matches = [m for m in legal if not m.is_pass and m.from_square == origin and m.to_square == target]
        if promotion is not None:
            by_squares = matches
            matches = [m for m in matches if m.promotion == promotion]
            if by_squares and not matches:
                raise IllegalMoveError(text, "promotion piece not allowed")
        elif len({m.promotion for m in matches}) > 1:
            queen = [m for m in matches if m.promotion == "q"]
            if "-" in text and queen:
                matches = queen
            else:
                raise IllegalMoveError(text, "promotion piece missing")
        if not matches:
            raise IllegalMoveError(text, self._illegal_reason(origin, target, False))
        return matches[0]

    def _illegal_reason(self, origin: int, target: int, is_pass: bool) -> str:
        if self.outcome() is not None:
            return "game over"
        if is_pass:
            return "passing is allowed only without a legal move"
        idx = np.int64(len(self._moves))
        self._ensure_capacity(3)
        n = gen_legal(self._stack, idx, self._relaxed_rules, self._mlist)
        relaxed = self._mlist[idx, :n]
        if any((code & 63) == origin and (code >> 6) & 63 == target for code in relaxed):
            return "forced capture"
        if self.piece_at(origin) is None:
            return "no piece on " + square_name(origin)
        letter = self.piece_at(origin)
        if (letter.isupper()) != (self.turn == "white"):
            return "not your piece"
        if self.is_check():
            return "in check"
        return "not a legal move"

    @uses_kernels
    def push(self, move: Move | str) -> Move:
        """Play `move` (validated; see parse_move) and return it as a Move."""
        legal_move = self.parse_move(move)
        idx = len(self._moves)
        self._ensure_capacity(3)
        make_move(self._stack, np.int64(idx), np.int64(idx + 1),
                          np.int32(legal_move.code), self._rules_array)
        self._moves.append(legal_move)
        self._legal = None
        return legal_move

    def pop(self) -> Move:
        """Take back the last move and return it; IndexError if there is none."""
        if not self._moves:
            raise IndexError("no move to take back")
        self._legal = None
        return self._moves.pop()

    # -- results -----------------------------------------------------------------------

    @uses_kernels
    def outcome(self, claim_draw: bool = False) -> Outcome | None:
        """How the game has ended, or None while it goes on.

        Rule endings (mate, extinction, stalemate, passes, ply limit) come first; then, in
        rule sets with draw rules, insufficient material (its definition is a rule field), the 75-move
        rule and fivefold repetition; with `claim_draw` also the 50-move rule and
        threefold repetition.
        """
        idx = np.int64(len(self._moves))
        self._ensure_capacity(3)
        status = int(game_status(self._stack, idx, self._rules_array, self._mlist))
        self._legal = None  # game_status reuses the move buffer of this row
        if status >= 0:
            reason, result = divmod(status, 3)
            return Outcome(("white", "black", None)[result], REASONS[reason])
        if not self.rules.draw_rules:
            return None
        if self._insufficient_material():
            return Outcome(None, "insufficient material")
        if self.halfmove_clock >= 150:
            return Outcome(None, "seventy-five-move rule")
        repetitions = self._repetitions()
        if repetitions >= 5:
            return Outcome(None, "fivefold repetition")
        if claim_draw:
            if self.halfmove_clock >= FIFTY_MOVE_PLIES:
                return Outcome(None, "fifty-move rule")
            if repetitions >= 3:
                return Outcome(None, "threefold repetition")
        return None

    def is_game_over(self, claim_draw: bool = False) -> bool:
        """True when `outcome(claim_draw)` is not None."""
        return self.outcome(claim_draw) is not None

    def _repetitions(self) -> int:
        """How many times the current position has occurred since the last irreversible move."""
        idx = len(self._moves)
        key = self._stack[idx, P_KEY]
        lookback = min(idx, self.halfmove_clock)
        seen = 1
        for back in range(2, lookback + 1, 2):
            if self._stack[idx - back, P_KEY] == key:
                seen += 1
        return seen

    def _insufficient_material(self) -> bool:
        """The rule set's insufficient-material draw (python-chess's definitions)."""
        return bool(insufficient_material(self._row(), self._rules_array))

    # -- perft -------------------------------------------------------------------------

    @uses_kernels
    def perft(self, depth: int, stop: StopFlag | None = None) -> int:
        """Leaf nodes `depth` plies below the current position (0 <= depth <= 30).

        `stop`: a StopFlag another thread (or a signal handler) may set to end the count
        within a few microseconds; a stopped count raises PerftStopped (game unchanged).
        """
        depth = _check_depth(depth)
        flag = stop.array if stop is not None else np.zeros(1, dtype=np.int64)
        if flag[0]:
            raise PerftStopped()
        if depth == 0:
            return 1
        idx = len(self._moves)
        self._ensure_capacity(depth + 3)
        nodes = perft(self._stack, np.int64(idx), np.int64(depth), self._rules_array, self._mlist, flag)
        self._legal = None
        if flag[0]:
            raise PerftStopped()
        return int(nodes)

    @uses_kernels
    def perft_divide(self, depth: int, stop: StopFlag | None = None) -> list[tuple[Move, int]]:
        """(root move, leaf nodes below it) for every legal move, for depth >= 1; `stop` as
        for `perft`."""
        depth = _check_depth(depth)
        if depth == 0:
            raise ValueError("divide needs depth >= 1")
        result = []
        for move in self.legal_moves():
            self.push(move)
            try:
                result.append((move, self.perft(depth - 1, stop)))
            finally:
                self.pop()
        return result

    # -- notation ------------------------------------------------------------------------

    def san(self, move: Move | str) -> str:
        """The SAN of `move` (a Move or move text, legal now), e.g. 'Nf3', 'exd5', 'e8=Q',
        'O-O', 'Qh5#'; a pass is '--'."""
        return san(self, self.parse_move(move))

    def push_san(self, text: str) -> Move:
        """Play a move given in SAN (push accepts SAN too) and return it."""
        return self.push(parse_san(self, text))

    def pgn(self, headers: dict[str, str] | None = None) -> str:
        """The game as PGN: the Seven Tag Roster (with `headers` added or replacing the
        defaults), Variant for every rule set but chess, FEN and SetUp when the game did not
        start from the rule set's start position, the moves in SAN and the result."""
        return game_pgn(self, headers)

    def board_text(self) -> str:
        """The board as eight lines of FEN letters, rank 8 first, '.' for an empty square,
        with file and rank labels."""
        lines = []
        for rank in range(7, -1, -1):
            cells = [self.piece_at(rank * 8 + file) or "." for file in range(8)]
            lines.append(f"{rank + 1} " + " ".join(cells))
        lines.append("  a b c d e f g h")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.board_text()

    def __repr__(self) -> str:
        return f"Game({self.variant!r}, {self.fen()!r})"

    # -- for kernels -------------------------------------------------------------------

    def position(self) -> np.ndarray:
        """A copy of the current position as the kernels see it: one uint64 row in the
        layout of engine.rules.bitboards (piece bitboards, side, en passant, castling,
        clocks, key)."""
        return self._row().copy()

    @property
    def rules_array(self) -> np.ndarray:
        """The rule set as the kernels read it (RuleSet.to_array()); read-only."""
        return self._rules_array

    @contextlib.contextmanager
    def kernel_rows(self, rows_ahead: int) -> Iterator[KernelRows]:
        """Lend the game's own position stack and move buffer to kernels that search from
        the current position, with at least `rows_ahead` free rows past it.

        Inside the block the kernels may write every row after `KernelRows.row` (the
        positions they reach) and the move buffer of the current row; the rows up to the
        current one (the game's history) must stay as they are.  The game forgets its
        cached legal moves when the block ends, so nothing it reports afterwards depends
        on what the kernels wrote.  No game method may be called inside the block."""
        self._ensure_capacity(rows_ahead)
        try:
            yield KernelRows(self._stack, self._mlist, len(self._moves), self._rules_array)
        finally:
            self._legal = None

    # -- internals ---------------------------------------------------------------------

    def _row(self) -> np.ndarray:
        return self._stack[len(self._moves)]

    def _ensure_capacity(self, rows_ahead: int) -> None:
        needed = len(self._moves) + rows_ahead + 1
        if needed > self._stack.shape[0]:
            size = max(needed + _HEADROOM, 2 * self._stack.shape[0])
            stack = np.zeros((size, POS_SIZE), dtype=np.uint64)
            stack[: self._stack.shape[0]] = self._stack
            self._stack = stack
            self._mlist = np.zeros((size, MAX_MOVES), dtype=np.int32)
            self._legal = None


def _check_depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise ValueError(f"depth must be an integer, got {depth!r}")
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"depth must be between 0 and {MAX_PERFT_DEPTH}, got {depth}")
    return int(depth)


def _parse_move_text(text: str) -> tuple[int, int, str | None, bool]:
    """(origin, target, promotion letter or None, is_pass) for UCI, course or pass text."""
    if text in ("0000", "@@@@", "pass", "null"):
        return 0, 0, None, True
    body = text
    if len(body) >= 5 and body[2] == "-":
        body = body[:2] + body[3:]
    if len(body) not in (4, 5):
        raise InvalidMoveError(f"not a move: {text!r}")
    try:
        origin = parse_square(body[:2])
        target = parse_square(body[2:4])
    except ValueError:
        raise InvalidMoveError(f"not a move: {text!r}") from None
    promotion = None
    if len(body) == 5:
        promotion = body[4].lower()
        if promotion not in "nbrqk" or body[4] not in "nbrqkNBRQK":
            raise InvalidMoveError(f"not a promotion piece in {text!r}")
    if origin == target:
        raise InvalidMoveError(f"not a move: {text!r}")
    return origin, target, promotion, False

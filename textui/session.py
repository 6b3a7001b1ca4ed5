"""`TextUI`: the MIT 6.170 TextUI commands on one engine Game, with clocks and game files.

`TextUI.execute(line)` runs one command line and returns the lines to print.  The rules
all come from the engine (legal moves, passes, game ends); this module only keeps the
players, the clocks and the recorded move history, and formats answers.  Exact strings
and behaviours follow the project's decisions ("TextUI"); docs/textui.md is the reference.
"""

from __future__ import annotations

import math
import re
import time
from typing import Callable

from engine import RULE_SETS

from engine import coursefile as gamefile

from . import board
from .player import ComputerPlayer

DEFAULT_VARIANT = "mit-antichess"
PLAYER_TYPES = ("human", "computer")
SIDES = ("white", "black")
WIN_LINES = {"white": "White Player has won", "black": "Black Player has won", None: "Draw"}
INPUT_ERROR = "Input error"

_MOVE = re.compile(r"[a-h][1-8]-[a-h][1-8]")
_TIME = re.compile(r"[0-9]{1,4000}")  # whole milliseconds; longer numbers are refused
_VARIANT_NAMES = {name for rules in RULE_SETS.values() for name in (rules.name, *rules.aliases)}
_ALWAYS = ("StartNewGame", "LoadGame")  # accepted before any game
_AFTER_END = ("StartNewGame", "LoadGame", "QuitGame")  # accepted once a game has ended


def _other(side: str) -> str:
    return "black" if side == "white" else "white"


class TextUI:
    """One TextUI session: at most one game at a time, driven by command lines.

    `show_board` enables ShowBoard (the `-s` flag).  `computer` chooses the computer's
    moves; `timer` (seconds, monotonic) measures its thinking time for its clock.
    """

    def __init__(self, show_board: bool = False, computer: ComputerPlayer | None = None,
                 timer: Callable[[], float] = time.perf_counter, explain: Callable[[str], None] | None = None):
        self.show_board = show_board
        self.explain = explain  # told why a file is corrupt (standard output says only `Corrupt file`)
        self.computer = computer if computer is not None else ComputerPlayer()
        self.timer = timer
        self.finished = False  # set by QuitGame
        self.game = None  # engine.Game, once a game is started or loaded
        self.players: dict[str, str] | None = None
        self.initial: dict[str, int | None] = {"white": None, "black": None}
        self.clocks: dict[str, int | None] = {"white": None, "black": None}
        self.history: list[gamefile.HistoryEntry] = []
        self.over: gamefile.GameOver | None = None
        self.pending = None  # the computer's move found by GetNextMove this turn
        self._commands: dict[str, tuple[Callable[[list[str]], list[str]], int | tuple[int, ...]]] = {
            "StartNewGame": (self._start_new_game, (4, 5)),
            "SaveGame": (self._save_game, 1),
            "LoadGame": (self._load_game, 1),
            "GetNextMove": (self._get_next_move, 0),
            "MakeNextMove": (self._make_next_move, 0),
            "MakeMove": (self._make_move, 2),
            "PrintBoard": (self._print_board, 0),
            "IsLegalMove": (self._is_legal_move, 1),
            "LegalMove": (self._is_legal_move, 1),
            "PrintAllMoves": (self._print_all_moves, 0),
            "GetTime": (self._get_time, 1),
            "ShowBoard": (self._show_board, 0),
            "QuitGame": (self._quit_game, 0),
        }

    # -- dispatch --------------------------------------------------------------------------

    def execute(self, line: str) -> list[str]:
        """Run one command line; return the lines it prints (none for a blank line)."""
        tokens = line.split()
        if not tokens:
            return []
        name, args = tokens[0], tokens[1:]
        entry = self._commands.get(name)
        if entry is None or (name == "ShowBoard" and not self.show_board):
            return [INPUT_ERROR]
        if self.game is None and name not in _ALWAYS:
            return [INPUT_ERROR]
        if self.over is not None and name not in _AFTER_END:
            return [INPUT_ERROR]
        handler, arity = entry
        if len(args) not in (arity if isinstance(arity, tuple) else (arity,)):
            return [INPUT_ERROR]
        return handler(args)

    # -- helpers ---------------------------------------------------------------------------

    def timing(self) -> gamefile.Timing | None:
        """The clocks as saved: timed only when both players are timed."""
        if self.initial["white"] is None or self.initial["black"] is None:
            return None
        return gamefile.Timing(self.initial["white"], self.initial["black"], self.clocks["white"], self.clocks["black"])

    def _move_text(self, text: str) -> str | None:
        """`text` as a move string (`e2-e4`), or None if malformed.  In rule sets that offer a
        choice of promotion piece, a sixth letter names it (`e7-e8n`; `q` is the default)."""
        if _MOVE.fullmatch(text):
            return text
        promotion = self.game.rules.promotion
        if len(promotion) > 1 and len(text) == 6 and _MOVE.fullmatch(text[:5]) and text[5] in promotion:
            return text[:5] if text[5] == "q" else text
        return None

    def _legal_move(self, text: str):
        """The legal move written `text`, or None."""
        for move in self.game.legal_moves():
            if not move.is_pass and move.course() == text:
                return move
        return None

    def _play(self, move, side: str) -> list[str]:
        """Play `move` for `side`, record it, and report how the game goes on."""
        self.game.push(move)
        promotion = None if move.promotion in (None, "q") else gamefile.PIECE_NAMES[move.promotion]
        self.history.append(gamefile.HistoryEntry(side, move.course()[:5], self.clocks[side], promotion))
        self.pending = None
        return [move.course()] + self._settle()

    def _settle(self) -> list[str]:
        """After a move or a load: the win line if the game is over, else make any pass the
        side to move is forced to (silently, as the course passes)."""
        for _ in range(3):
            outcome = self.game.outcome()
            if outcome is not None:
                self.over = gamefile.GameOver(outcome.winner, gamefile.describe(outcome))
                return [WIN_LINES[outcome.winner]]
            legal = self.game.legal_moves()
            if len(legal) == 1 and legal[0].is_pass:
                self.game.push(legal[0])
                continue
            break
        return []

    def _lose_on_time(self, side: str) -> list[str]:
        winner = _other(side)
        self.over = gamefile.GameOver(winner, "timeExpired")
        self.pending = None
        return [WIN_LINES[winner]]

    # -- commands --------------------------------------------------------------------------

    def _start_new_game(self, args: list[str]) -> list[str]:
        """StartNewGame [player] [time] [player] [time] [rule set]."""
        from engine import Game

        white, white_time, black, black_time = args[:4]
        variant = args[4] if len(args) == 5 else DEFAULT_VARIANT
        if white not in PLAYER_TYPES or black not in PLAYER_TYPES or variant not in _VARIANT_NAMES:
            return [INPUT_ERROR]
        if not _TIME.fullmatch(white_time) or not _TIME.fullmatch(black_time):
            return [INPUT_ERROR]
        times = [int(white_time), int(black_time)]
        self.game = Game(variant)
        self.players = {"white": white, "black": black}
        self.initial = {side: (ms if ms > 0 else None) for side, ms in zip(SIDES, times)}
        self.clocks = dict(self.initial)
        self.history = []
        self.over = None
        self.pending = None
        self.computer.new_game()
        return ["New game started"]

    def _save_game(self, args: list[str]) -> list[str]:
        """SaveGame [filename]: the game file, written atomically."""
        text = gamefile.dump(self.game, self.history, self.timing(), self.over)
        try:
            gamefile.write_atomic(args[0], text)
        except (OSError, ValueError):
            return [INPUT_ERROR]
        return ["Game saved"]

    def _load_game(self, args: list[str]) -> list[str]:
        """LoadGame [filename]: replace the game by the file's, or `Corrupt file` and no change."""
        try:
            saved = gamefile.load(gamefile.read_file(args[0]))
        except (gamefile.CorruptFile, ValueError) as error:
            if self.explain is not None:
                self.explain(f"{args[0]}: {error}")
            return ["Corrupt file"]
        self.game = saved.game
        if self.players is None:
            self.players = {"white": "human", "black": "human"}
        if saved.timing is None:
            self.initial = {"white": None, "black": None}
            self.clocks = {"white": None, "black": None}
        else:
            self.initial = {"white": saved.timing.init_white, "black": saved.timing.init_black}
            self.clocks = {"white": saved.timing.current_white, "black": saved.timing.current_black}
        self.history = list(saved.history)
        self.over = saved.over
        self.pending = None
        self.computer.new_game()
        if self.over is not None:
            return ["Game loaded", WIN_LINES[self.over.winner]]
        return ["Game loaded"] + self._settle()

    def _get_next_move(self, args: list[str]) -> list[str]:
        """GetNextMove: the computer's move, found once per turn and charged to its clock."""
        side = self.game.turn
        if self.players[side] == "human":
            return ["Human turn"]
        if self.pending is None:
            started = self.timer()
            move = self.computer.choose(self.game, self.clocks[side])
            spent = math.ceil((self.timer() - started) * 1000)
            if self.clocks[side] is not None:
                self.clocks[side] -= spent
                if self.clocks[side] <= 0:
                    return self._lose_on_time(side)
            self.pending = move
        return [self.pending.course()]

    def _make_next_move(self, args: list[str]) -> list[str]:
        """MakeNextMove: play the move GetNextMove found."""
        side = self.game.turn
        if self.players[side] == "human":
            return ["Please specify human move"]
        if self.pending is None:
            return ["First GetNextMove"]
        return self._play(self.pending, side)

    def _make_move(self, args: list[str]) -> list[str]:
        """MakeMove [move] [time]: a human's move and the milliseconds it took."""
        text = self._move_text(args[0])
        if text is None or not _TIME.fullmatch(args[1]):
            return [INPUT_ERROR]
        spent = int(args[1])
        side = self.game.turn
        if self.players[side] == "computer":
            return []
        move = self._legal_move(text)
        if move is None:
            return ["Illegal move"]
        if self.clocks[side] is not None:
            self.clocks[side] -= spent
            if self.clocks[side] <= 0:
                return self._lose_on_time(side)
        return self._play(move, side)

    def _print_board(self, args: list[str]) -> list[str]:
        """PrintBoard: the document SaveGame would write."""
        return gamefile.dump(self.game, self.history, self.timing(), self.over).rstrip("\n").split("\n")

    def _is_legal_move(self, args: list[str]) -> list[str]:
        """IsLegalMove / LegalMove [move]: `legal` or `illegal`."""
        text = self._move_text(args[0])
        if text is None:
            return [INPUT_ERROR]
        return ["legal" if self._legal_move(text) is not None else "illegal"]

    def _print_all_moves(self, args: list[str]) -> list[str]:
        """PrintAllMoves: every legal move, sorted as strings."""
        return sorted(move.course() for move in self.game.legal_moves() if not move.is_pass)

    def _get_time(self, args: list[str]) -> list[str]:
        """GetTime white|black: remaining milliseconds or `unlimited`."""
        if args[0] not in SIDES:
            return [INPUT_ERROR]
        remaining = self.clocks[args[0]]
        return ["unlimited" if remaining is None else str(remaining)]

    def _show_board(self, args: list[str]) -> list[str]:
        """ShowBoard (only with -s): the ASCII board."""
        return board.render(self.game, self.players, self.clocks)

    def _quit_game(self, args: list[str]) -> list[str]:
        """QuitGame: say goodbye; the loop then ends."""
        self.finished = True
        return ["Exiting game"]

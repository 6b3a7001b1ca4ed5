"""CECP adapter: the Chess Engine Communication Protocol (xboard protocol 2).

    antichess xboard       # or `antichess` and a first line `xboard`

Lines in, `engine` calls, lines out; no rules of its own.  On `protover 2` the engine
sends `feature done=0` at once, its features, then `feature done=1` once the kernels are
loaded.  Rule sets XBoard does not know are described to it with `setup` and `piece`
(Betza) lines; `lift SQUARE` is answered with a `highlight` of the piece's legal targets.
A pass is `move @@@@`; a pass from the GUI arrives as `@@@@` or as a `setboard` whose side
to move flipped.  Illegal or malformed moves get `Illegal move (reason): MOVE`, other bad
input `Error (reason): command`; neither changes anything.  In hackerrank, where Black
moves first, the GUI is shown the board turned round (see `View`).
"""

from __future__ import annotations

import re
from typing import Callable

from engine import cecp_score, placement_field

from .host import ENGINE_NAME, Adapter, Job, canonical_variant, cecp_sigint, run_stdio
from .options import THREADS_MAX, THREADS_MIN, OptionError
from .play import think
from .uci import legal_prefix

CECP_VARIANTS = ("normal", "antichess", "giveaway", "suicide", "losers", "mit-antichess",
                 "antiking-antichess", "antiking1", "antiking2", "hackerrank")

# XBoard's piece-to-char tables: P N B R Q, XBoard's fairy pieces, the king last.  The
# anti-king takes the slot of XBoard's "Man" (a commoner, which moves like a king).
_LOSING_TABLE = "(PNBRQ................Kpnbrq................k)"
_ANTIKING_TABLE = "(PNBRQ.....AKpnbrq.....ak)"
_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
_ANTIKING_START = "rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR"

# What `variant NAME` answers for the rule sets XBoard does not know.  XBoard takes the
# parent's rules for everything the engine does not say (see docs/protocols.md).
SETUP = {
    "antichess": ([f"setup {_LOSING_TABLE} 8x8+0_giveaway {_START} w - - 0 1"]),
    # XBoard starts every game with White, so it is shown hackerrank turned round (View):
    # HackerRank's player 1 (the engine's Black, moving first) is White on XBoard's board.
    "hackerrank": [f"setup {_LOSING_TABLE} 8x8+0_giveaway {_START} w - - 0 1",
                   "piece P& fmWfcF"],  # no double step (and so no en passant)
    "mit-antichess": [f"setup (PNBRQKpnbrqk) 8x8+0_fairy {_START} w KQkq - 0 1"],
    "antiking-antichess": [f"setup {_ANTIKING_TABLE} 8x8+0_fairy {_ANTIKING_START} w KQkq - 0 1",
                           "piece A& K"],
    "antiking2": [f"setup {_ANTIKING_TABLE} 8x8+0_fairy {_ANTIKING_START} w KQkq - 0 1",
                  "piece A& K"],
    "antiking1": [f"setup {_ANTIKING_TABLE} 8x8+0_fairy 2prbkqA/2p1nnbr/2pppppp/8/8/PPPPPP2/RBNN1P2/aQKBRP2 w - - 0 1",
                  "piece P& mfFcfW",  # Berolina pawn: moves diagonally forward, captures straight ahead
                  "piece K& KimN",  # a king that has not moved may leap like a knight to an empty square
                  "piece A& KimN"],
}

MOVE_RE = re.compile(r"^([a-h][1-8]-?[a-h][1-8][nbrqkNBRQK]?|@@@@|0000)$")

# Commands accepted and ignored: they tell the engine things it has no use for.
_IGNORED = {"xboard", "accepted", "rejected", "random", "computer", "name", "rating", "ics",
            "memory", "pause", "resume", "draw", "hint", "bk", "put", "hover", "easy",
            "hard", "setscore"}


def post_line(info, pv_text: list[str]) -> str:
    """A SearchInfo as CECP thinking output: ply score time(cs) nodes seldepth nps tbhits, tab, pv."""
    return (f"{info.depth} {cecp_score(info.score, info.mate)} {int(info.time * 100)} {info.nodes} "
            f"{max(info.seldepth, info.depth)} {info.nps} {getattr(info, 'tbhits', 0)}\t{' '.join(pv_text)}")


def highlight_fen(targets: dict[int, str]) -> str:
    """A board-part FEN with colour letters on `targets` (square -> letter), as `highlight` takes."""
    return placement_field(targets)


def _board_fields(fen: str) -> tuple[str, str]:
    parts = fen.split()
    return (parts[0] if parts else "", parts[1] if len(parts) > 1 else "")


def _castling_field(fen: str) -> str:
    parts = fen.split()
    return parts[2] if len(parts) > 2 else "-"


class View:
    """How the GUI sees the engine's board.  Identity, except in hackerrank, where Black
    moves first and XBoard (which always starts with White) is shown the board turned
    round: ranks mirrored, colours swapped.  Only notation is translated: squares, FENs,
    highlights and result strings."""

    def __init__(self, turned: bool = False):
        self.turned = turned

    def square(self, name: str) -> str:
        """A square name between the two views (the mapping is its own inverse)."""
        return name[0] + str(9 - int(name[1])) if self.turned else name

    def move(self, text: str) -> str:
        """A coordinate move between the two views; passes and malformed text unchanged."""
        if not self.turned or not re.match(r"^[a-h][1-8]-?[a-h][1-8]", text):
            return text
        body = text.replace("-", "", 1) if len(text) > 4 and text[2] == "-" else text
        return self.square(body[:2]) + self.square(body[2:4]) + body[4:]

    def fen(self, fen: str) -> str:
        """A FEN between the two views: ranks reversed, colours and side to move swapped."""
        if not self.turned:
            return fen
        parts = fen.split()
        if not parts:
            return fen
        parts[0] = "/".join(reversed(parts[0].split("/"))).swapcase()
        if len(parts) > 1:
            parts[1] = {"w": "b", "b": "w"}.get(parts[1], parts[1])
        if len(parts) > 2 and parts[2] != "-":
            parts[2] = parts[2].swapcase()
        if len(parts) > 3 and re.match(r"^[a-h][1-8]$", parts[3]):
            parts[3] = self.square(parts[3])
        return " ".join(parts)

    def side(self, side: str) -> str:
        """'white' or 'black' between the two views."""
        return {"white": "black", "black": "white"}[side] if self.turned else side

    def result(self, outcome) -> str:
        """`1-0 {reason}` for an Outcome, the winner named in the GUI's colours."""
        result = outcome.result
        if self.turned:
            result = {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
        return f"{result} {{{outcome.reason}}}"

    def board_part(self, board: str) -> str:
        """A board-part FEN (highlight) from the engine's view to the GUI's."""
        return "/".join(reversed(board.split("/"))) if self.turned else board


class CecpAdapter(Adapter):
    """The CECP state machine: position, who plays which side, clocks, options
    (`self.options`), one search at a time."""

    def __init__(self, write: Callable[[str], None]):
        super().__init__(write)
        self.variant = "chess"
        self._game = None
        self.force = False
        self.gui_side = "black"  # the side the engine plays, as the GUI names it (see engine_side)
        self.result_received = False
        self.mps, self.base, self.inc = 0, None, 0.0
        self.st = None
        self.sd = None
        self.nps = None
        self.time_cs = None
        self.otim_cs = None
        self.post = False
        self.protover = 1
        self.view = View()
        self.analyzing = False  # analyze mode: an infinite search of the current position
        self.excluded: set[int] = set()  # root moves left out (`exclude`), cleared when the position changes
        self._analysis = None  # (last SearchInfo or None, root moves searched) of the running analysis
        self._tablebase_folder: str | None = None  # the table folder last named (report_tablebases)

    # -- helpers -----------------------------------------------------------------------

    @property
    def engine_side(self) -> str:
        """The side the engine plays, in the engine's colours.  CECP names sides as the GUI
        sees them (`new`: the engine plays Black), so the side is kept in the GUI's colours
        (`gui_side`) and read through the view: in hackerrank, shown turned round, the GUI's
        Black is the engine's White (player 2), whatever the order of `new` and `variant`."""
        return self.view.side(self.gui_side)

    @engine_side.setter
    def engine_side(self, side: str) -> None:
        self.gui_side = self.view.side(side)

    def report_error(self, message: str) -> None:
        """Bad input or failure: `Error (reason): ...`."""
        self.send(f"Error ({message})")

    def report_progress(self, message: str) -> None:
        """What the engine is busy with (compiling its kernels): a `#` line, which XBoard
        shows in its debug log only."""
        self.send(f"# {message}")

    def report_tablebases(self, path: str | None, tables: int, summary: str) -> None:
        """TablebasePath or `egtpath` was set: what the folder holds as a `#` line (XBoard's
        debug log; python-chess ignores it), and, when a folder other than the last one
        named holds no table, as `telluser` too (an XBoard message box: XBoard sends
        `egtpath` before every game, so the same folder is not shown again)."""
        self.send(f"# {summary}")
        if tables == 0 and path != self._tablebase_folder:
            self.send(f"telluser {summary}")
        self._tablebase_folder = path

    def error(self, kind: str, command: str) -> None:
        """The spec's error line: `Error (kind): command`."""
        self.send(f"Error ({kind}): {command[:200]}")

    @property
    def game(self):
        """The current game (the rule set's start on first use)."""
        if self._game is None:
            from engine import Game

            self._game = Game(self.variant)
        return self._game

    def _discard(self) -> None:
        self.stop_job(discard=True)

    # -- dispatch ----------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """React to one CECP command."""
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        handler = getattr(self, "cmd_" + command, None) if command.isidentifier() else None
        special = {"?": self.cmd_movenow, "protover": self.cmd_protover, ".": self.cmd_status}
        handler = special.get(command, handler)
        if handler is not None:
            handler(rest, line)
        elif command in _IGNORED:
            return
        elif MOVE_RE.match(line):
            self.cmd_usermove(line, line)
        else:
            self.error("unknown command", line)

    def cmd_protover(self, rest: str, line: str) -> None:
        """Features: `done=0` at once, the rest, then `done=1` when the engine has loaded."""
        self.protover = 2
        self.send("feature done=0")
        self.loader.start()
        self.send("feature ping=1 setboard=1 usermove=1 time=1 draw=0 sigint=0 reuse=1 analyze=1 "
                  "colors=0 san=0 nps=1 playother=1 highlight=1 debug=1 pause=0 ics=0 name=0 "
                  "memory=0 smp=1 exclude=1 setscore=0")
        self.send(f'feature myname="{ENGINE_NAME}"')
        self.send(f'feature variants="{",".join(CECP_VARIANTS)}"')
        for line in self.options.cecp_features():
            self.send(line)
        self.engine_ready()
        self.send("feature done=1")

    def cmd_quit(self, rest: str, line: str) -> None:
        """Stop and exit."""
        self.quit()

    def cmd_cores(self, rest: str, line: str) -> None:
        """`cores N` (feature smp=1): search with N threads, at most the machine's cores."""
        try:
            number = int(rest)
            if number < 1:
                raise ValueError
        except ValueError:
            self.error("bad cores, want an integer >= 1", line)
            return
        self.options.set("Threads", str(max(THREADS_MIN, min(THREADS_MAX, number))))

    def cmd_ping(self, rest: str, line: str) -> None:
        """`pong N`: every earlier command has been dealt with."""
        self.send(f"pong {rest}".rstrip())

    def cmd_post(self, rest: str, line: str) -> None:
        """Thinking output on."""
        self.post = True

    def cmd_nopost(self, rest: str, line: str) -> None:
        """Thinking output off."""
        self.post = False

    # -- game set-up -------------------------------------------------------------------

    def cmd_new(self, rest: str, line: str) -> None:
        """Standard chess from the start; the engine plays the GUI's Black (in hackerrank,
        which `variant` then shows turned round, player 2); no depth limit."""
        self._discard()
        if not self.engine_ready():
            return
        self.variant = "chess"
        self._game = None
        self.view = View()
        self.force = False
        self.gui_side = "black"
        self.result_received = False
        self.sd = None
        self.searcher.new_game()
        self._position_changed()

    def cmd_variant(self, rest: str, line: str) -> None:
        """Switch rule set (start position); describe it to XBoard if XBoard does not know it."""
        name = rest.strip().lower()
        variant = canonical_variant(name) if name else None
        if variant is None:
            self.error("unsupported variant", line)
            return
        self._discard()
        if not self.engine_ready():
            return
        self.variant = variant
        self._game = None
        self.view = View(turned=variant == "hackerrank")
        for setup in SETUP.get(variant, []):
            self.send(setup)
        self._position_changed()

    def cmd_setboard(self, rest: str, line: str) -> None:
        """Set the position; a flipped side to move on the same board is the opponent's pass."""
        if not self.engine_ready():
            return
        if self._setboard(rest, line):
            self._position_changed()

    def _setboard(self, rest: str, line: str) -> bool:
        """The work of `setboard`: True when the position may have changed (not after a
        pass, which `_after_opponent_move` handles)."""
        from engine import FenError, Game

        self._discard()
        rest = self.view.fen(rest)
        board, side = _board_fields(rest)
        current_board, current_side = _board_fields(self.game.fen())
        if board == current_board and side and side != current_side and \
                any(m.is_pass for m in self.game.legal_moves()):
            self.game.push("0000")
            self._after_opponent_move()
            return False
        # A FEN's castling field is authoritative where it can spell the rule set's rights
        # (python-chess sends lichess antichess as `variant giveaway` and a FEN with "-");
        # antiking1's leap rights cannot be spelled, so there the engine's own rights stand.
        rights = _castling_field(rest)
        start_rights = _castling_field(self.game.rules.start_fen)
        spelled = set(start_rights) <= set("KQkq-")
        if board == current_board and side == current_side and \
                (not spelled or rights == _castling_field(self.game.fen())):
            return True  # the position we have, with its history
        start_board, start_side = _board_fields(self.game.rules.start_fen)
        if board == start_board and side == start_side and (not spelled or rights == start_rights):
            self._game = Game(self.variant)  # the start, with the rights the GUI's FEN may lack
            return True
        try:
            self._game = Game(self.variant, rest)
        except (FenError, ValueError) as error:
            self.send(f"tellusererror Illegal position {line.partition(' ')[2].strip()[:120]!r}: {error}")
        return True

    def cmd_force(self, rest: str, line: str) -> None:
        """Play neither side: only record moves."""
        self._discard()
        self.force = True

    def cmd_go(self, rest: str, line: str) -> None:
        """Play the side to move, starting now."""
        if not self.engine_ready():
            return
        self._discard()
        self.analyzing = False
        self.force = False
        self.result_received = False
        self.engine_side = self.game.turn
        self._think()

    def cmd_playother(self, rest: str, line: str) -> None:
        """Play the side not to move."""
        if not self.engine_ready():
            return
        self._discard()
        self.force = False
        self.result_received = False
        self.engine_side = "black" if self.game.turn == "white" else "white"

    def cmd_white(self, rest: str, line: str) -> None:
        """Protocol 1: the engine plays Black (White is on move)."""
        self._discard()
        self.gui_side = "black"

    def cmd_black(self, rest: str, line: str) -> None:
        """Protocol 1: the engine plays White (Black is on move)."""
        self._discard()
        self.gui_side = "white"

    def cmd_result(self, rest: str, line: str) -> None:
        """The game is over: stop and wait for `new`."""
        self._discard()
        self.result_received = True
        self.force = True

    def cmd_undo(self, rest: str, line: str) -> None:
        """Take back one ply."""
        self._take_back(1, line)

    def cmd_remove(self, rest: str, line: str) -> None:
        """Take back two plies (the user's move and the engine's)."""
        self._take_back(2, line)

    def _take_back(self, plies: int, line: str) -> None:
        if not self.engine_ready():
            return
        if len(self.game.move_stack) < plies:
            self.error("no move to take back", line)
            return
        self._discard()
        for _ in range(plies):
            self.game.pop()
        self.result_received = False
        self._position_changed()

    # -- time and limits ---------------------------------------------------------------

    def cmd_level(self, rest: str, line: str) -> None:
        """`level MPS BASE INC`: BASE in minutes or min:sec, INC in seconds."""
        parts = rest.split()
        try:
            if len(parts) != 3:
                raise ValueError
            mps = int(parts[0])
            minutes, _, seconds = parts[1].partition(":")
            base = float(minutes) * 60 + (float(seconds) if seconds else 0.0)
            inc = float(parts[2])
            if mps < 0 or not abs(base) < 1e7 or not abs(inc) < 1e6:
                raise ValueError
            # python-chess writes an overdrawn clock as e.g. "-1:59": an empty clock.
            base, inc = max(0.0, base), max(0.0, inc)
        except ValueError:
            self.error("bad level, want MPS BASE INC", line)
            return
        self.mps, self.base, self.inc = mps, base, inc
        self.st = None

    def cmd_st(self, rest: str, line: str) -> None:
        """`st SECONDS`: a fixed time per move."""
        try:
            value = float(rest)
            if not 0 < value < 1e6:
                raise ValueError
        except ValueError:
            self.error("bad st, want seconds > 0", line)
            return
        self.st = value

    def cmd_sd(self, rest: str, line: str) -> None:
        """`sd DEPTH`: search at most that many plies."""
        try:
            value = int(rest)
            if not 1 <= value <= 1000:
                raise ValueError
        except ValueError:
            self.error("bad sd, want a depth >= 1", line)
            return
        self.sd = value

    def cmd_nps(self, rest: str, line: str) -> None:
        """`nps N`: count time in nodes, N per second (0 turns it off)."""
        try:
            value = int(rest)
            if value < 0:
                raise ValueError
        except ValueError:
            self.error("bad nps, want an integer >= 0", line)
            return
        self.nps = value or None

    def cmd_time(self, rest: str, line: str) -> None:
        """`time N`: the engine's clock in centiseconds."""
        value = self._centiseconds(rest, line)
        if value is not None:
            self.time_cs = value

    def cmd_otim(self, rest: str, line: str) -> None:
        """`otim N`: the opponent's clock in centiseconds."""
        value = self._centiseconds(rest, line)
        if value is not None:
            self.otim_cs = value

    def _centiseconds(self, rest: str, line: str) -> int | None:
        try:
            value = int(rest)
            if abs(value) > 10**10:
                raise ValueError
        except ValueError:
            self.error("bad time, want centiseconds", line)
            return None
        return max(0, value)

    def cmd_egtpath(self, rest: str, line: str) -> None:
        """`egtpath TYPE PATH` (feature egt): the folder of the engine's own endgame tables
        (TYPE antichess or suicide; both read the same folder, one subfolder per rule set)."""
        kind, _, path = rest.strip().partition(" ")
        if kind.lower() not in ("antichess", "suicide", "giveaway"):
            self.error("unknown table type", line)
            return
        self.options.set("TablebasePath", path, cecp=True)

    def cmd_option(self, rest: str, line: str) -> None:
        """`option NAME=VALUE` for the options announced in the features (protocols.options;
        names compared without case, spaces and underscores, so `Move Overhead` is
        `MoveOverhead`)."""
        name, _, value = rest.partition("=")
        option = self.options.find_cecp(name)
        if option is None:
            self.error("unknown option", line)
            return
        try:
            self.options.set(option, value, cecp=True)
        except OptionError as error:
            self.error(error.cecp_text(), line)

    def change_when_idle(self, change) -> None:
        """An option that needs an idle engine (Hash, ClearHash): applied after the running
        search has played its move; a running analysis restarts with it."""
        if self.job is not None and self.job.kind == "analyze":
            self._discard()
            change()
            self._analyze()
            return
        super().change_when_idle(change)

    def restart_analysis(self) -> None:
        """MultiPV changed: a running analysis starts again with the new number of lines."""
        if self.analyzing:
            self._analyze()

    def _limits(self):
        from engine import Limits

        overhead = self.options["Move Overhead"] / 1000
        game = self.game
        limits = Limits(depth=self.sd, overhead=overhead)
        if self.st is not None:
            limits.movetime = self.st
        else:
            clock = self.time_cs / 100 if self.time_cs is not None else self.base
            if clock is None:
                limits.movetime = 2.0  # no time control given at all
            else:
                other = self.otim_cs / 100 if self.otim_cs is not None else clock
                mine_white = self.engine_side == "white"
                limits.wtime, limits.btime = (clock, other) if mine_white else (other, clock)
                limits.winc = limits.binc = self.inc
                if self.mps:
                    limits.movestogo = self.mps - (game.ply // 2) % self.mps
        if self.nps:
            soft, _ = self.searcher.budget(game, limits)
            budget = self.st if self.st is not None else (soft or 1.0)
            return Limits(depth=self.sd, nodes=max(1, int(self.nps * budget)), overhead=overhead)
        return limits

    # -- moves -------------------------------------------------------------------------

    def cmd_usermove(self, rest: str, line: str) -> None:
        """The opponent's (or a forced-mode) move: checked, played, maybe answered."""
        if not self.engine_ready():
            return
        text = rest.strip()
        if not text or " " in text:
            self.send(f"Illegal move (not a move): {text[:40]}")
            return
        outcome = self.game.outcome()
        if outcome is not None:
            self.send(f"Illegal move (game over): {text[:40]}")
            return
        mine = self.view.move(text)
        if not self.game.rules.promotion and re.match(r"^[a-h][1-8][a-h][1-8][qrbnk]$", mine.lower()):
            mine = mine[:4]  # XBoard adds a promotion piece on the last rank even where there is none
        try:
            move = self.game.parse_move(mine)
        except ValueError as error:
            reason = getattr(error, "reason", None) or "not a move"
            self.send(f"Illegal move ({reason}): {text[:40]}")
            return
        if self.job is not None:
            self._discard()
        self.game.push(move)
        self._after_opponent_move()

    def _after_opponent_move(self) -> None:
        self.excluded.clear()
        if self.analyzing:
            self._analyze()  # analyze mode: the GUI moves for both sides; analyse the new position
            return
        outcome = self.game.outcome()
        if outcome is not None:
            self.send(self.view.result(outcome))
            return
        if not self.force and not self.result_received and self.game.turn == self.engine_side:
            self._think()

    # -- analysis ----------------------------------------------------------------------

    def _position_changed(self) -> None:
        """The board changed (new, variant, setboard, undo): forget the excluded moves and
        analyse the new position if in analyze mode."""
        self.excluded.clear()
        if self.analyzing:
            self._analyze()

    def cmd_analyze(self, rest: str, line: str) -> None:
        """Analyze mode: search the current position until the board changes or `exit`."""
        if not self.engine_ready():
            return
        self.analyzing = True
        self._analyze()

    def cmd_exit(self, rest: str, line: str) -> None:
        """Leave analyze mode."""
        if self.analyzing:
            self.analyzing = False
            self._discard()

    def cmd_status(self, rest: str, line: str) -> None:
        """`.` in analyze mode: `stat01: time nodes depth moves-left moves-total` of the
        analysis (time in centiseconds; moves left 0: the last depth was finished)."""
        if not self.analyzing or self._analysis is None:
            return
        info, total = self._analysis
        if info is None:
            self.send(f"stat01: 0 0 0 {total} {total}")
        else:
            self.send(f"stat01: {int(info.time * 100)} {info.nodes} {info.depth} 0 {total}")

    def cmd_exclude(self, rest: str, line: str) -> None:
        """`exclude MOVE` / `exclude all`: leave root moves out of the search (XBoard 4.9)."""
        self._exclusion(rest, line, exclude=True)

    def cmd_include(self, rest: str, line: str) -> None:
        """`include MOVE` / `include all`: search excluded root moves again."""
        self._exclusion(rest, line, exclude=False)

    def _exclusion(self, rest: str, line: str, exclude: bool) -> None:
        if not self.engine_ready():
            return
        text = rest.strip()
        if text == "all":
            codes = {move.code for move in self.game.legal_moves()}
        else:
            mine = self.view.move(text)
            if not self.game.rules.promotion and re.match(r"^[a-h][1-8][a-h][1-8][qrbnk]$", mine.lower()):
                mine = mine[:4]
            try:
                codes = {self.game.parse_move(mine).code}
            except ValueError as error:
                reason = getattr(error, "reason", None) or "not a move"
                self.send(f"Illegal move ({reason}): {text[:40]}")
                return
        before = set(self.excluded)
        if exclude:
            self.excluded |= codes
        else:
            self.excluded -= codes
        if self.analyzing and self.excluded != before:
            self._analyze()

    def _root_moves(self):
        """The legal moves not excluded (all of them when none is)."""
        return [move for move in self.game.legal_moves() if move.code not in self.excluded]

    def _analyze(self) -> None:
        """(Re)start the analysis of the current position: an infinite search, every
        iteration's line(s) shown as thinking output, no move played."""
        from engine import Game, Limits

        self._discard()
        self._analysis = None
        if self.game.outcome() is not None:
            return
        roots = self._root_moves()
        self._analysis = (None, len(roots))
        if not roots:
            return  # every move excluded: nothing to analyse until one is included
        game = self.game.copy()
        searcher = self.searcher
        multipv = self.options["MultiPV"]
        searchmoves = roots if self.excluded else None
        limits = Limits(infinite=True, overhead=self.options["Move Overhead"] / 1000)
        pv_board = Game(game.rules, game.fen())
        view = self.view
        total = len(roots)
        job: Job

        def on_info(info) -> None:
            if job.discarded:
                return
            self._analysis = (info, total)
            pv = legal_prefix(pv_board, info.pv)
            self.send(post_line(info, ["@@@@" if m.is_pass else view.move(m.uci()) for m in pv]))

        def run(current: Job):
            return think(game, limits, searcher, searchmoves=searchmoves, multipv=multipv, on_info=on_info,
                         stopped=current.stop_requested)

        job = Job("analyze", run)
        self.start_job(job)

    def cmd_movenow(self, rest: str, line: str) -> None:
        """`?`: move now with the best move found so far."""
        if self.job is not None and self.job.kind == "search":
            self.stop_job(discard=False)

    def cmd_lift(self, rest: str, line: str) -> None:
        """`lift SQUARE`: highlight the piece's legal targets (yellow, red for captures)."""
        if not self.engine_ready():
            return
        square = rest.strip().lower()
        if not re.match(r"^[a-h][1-8]$", square):
            self.error("bad square", line)
            return
        square = self.view.square(square)
        origin = (int(square[1]) - 1) * 8 + (ord(square[0]) - ord("a"))
        targets = {}
        if self.game.outcome() is None:
            for move in self.game.legal_moves():
                if not move.is_pass and move.from_square == origin:
                    targets[move.to_square] = "R" if move.is_capture else "Y"
        self.send(f"highlight {self.view.board_part(highlight_fen(targets))}")

    # -- thinking ----------------------------------------------------------------------

    def _think(self) -> None:
        outcome = self.game.outcome()
        if outcome is not None:
            self.send(self.view.result(outcome))
            return
        limits = self._limits()
        game = self.game.copy()
        searcher = self.searcher
        skill = self.options["Skill Level"]
        position_key = (self.game.key, len(self.game.move_stack))
        view = self.view
        from engine import Game

        pv_board = Game(game.rules, game.fen())  # legality of PV moves needs no history
        job: Job

        def on_info(info) -> None:
            if job.discarded or not self.post:
                return
            pv = legal_prefix(pv_board, info.pv)
            self.send(post_line(info, ["@@@@" if m.is_pass else view.move(m.uci()) for m in pv]))

        searchmoves = self._root_moves() if self.excluded else None
        multipv = self.options["MultiPV"]

        def run(current: Job):
            return think(game, limits, searcher, skill=skill, searchmoves=searchmoves, multipv=multipv,
                         on_info=on_info, stopped=current.stop_requested)

        job = Job("search", run, {"key": position_key})
        self.start_job(job)

    def job_finished(self, job: Job) -> None:
        """Play the search's move and announce a result the move brings about."""
        if job.error is not None:
            self.report_error(f"search failed: {type(job.error).__name__}: {job.error}")
            return
        if job.kind == "analyze":
            return  # analysis plays no move
        if job.data["key"] != (self.game.key, len(self.game.move_stack)):
            return  # the position changed under the search
        choice = job.result
        if choice is None or choice.best_move is None:
            outcome = self.game.outcome()
            if outcome is not None:
                self.send(self.view.result(outcome))
            return
        move = self.game.push(choice.best_move)
        self.send("move @@@@" if move.is_pass else f"move {self.view.move(move.uci())}")
        outcome = self.game.outcome(claim_draw=True)
        if outcome is not None:
            self.send(self.view.result(outcome))


def stdio_adapter(write: Callable[[str], None]) -> CecpAdapter:
    """The adapter for standard input and output: SIGINT is ignored on a pipe (XBoard sends
    it) and stops the search or ends the engine on a terminal (`protocols.host.cecp_sigint`)."""
    adapter = CecpAdapter(write)
    cecp_sigint(adapter)
    return adapter


def main() -> int:
    """`antichess xboard`: speak CECP on standard input and output."""
    try:
        return run_stdio(stdio_adapter)
    except KeyboardInterrupt:  # Ctrl-C on a terminal with nothing to stop
        return 130

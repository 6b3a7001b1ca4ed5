"""UCI adapter: the Universal Chess Interface (2006 text) with the `UCI_Variant` extension.

    antichess uci          # or `antichess` and a first line `uci`

Lines in, `engine` calls, lines out; no rules of its own.  `uci` is answered before numba
is imported; the engine's kernels load in the background and `isready` waits for them.
Searches run in a worker thread (see `protocols.host`), so `stop`, `ponderhit`, `isready`
and `quit` are answered while the engine thinks.  Every `go` gets exactly one `bestmove`:
`0000` for a pass, `(none)` when the game is over.  Bad input gets one `info string ...`
line and changes nothing.
"""

from __future__ import annotations

import re
from typing import Callable

from engine import uci_score

from .host import ENGINE_AUTHOR, ENGINE_NAME, Adapter, Job, canonical_variant, run_stdio, stop_on_sigint
from .options import OptionError
from .play import think

GO_INT_TOKENS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate", "perft")
GO_FLAGS = ("infinite", "ponder")
GO_KEYWORDS = GO_INT_TOKENS + GO_FLAGS + ("searchmoves",)


def format_info(info, pv_text: list[str]) -> str:
    """A SearchInfo as a UCI `info` line (time in ms, score from the side to move)."""
    line = (f"info depth {info.depth} seldepth {max(info.seldepth, info.depth)} multipv {info.multipv} "
            f"score {uci_score(info.score, info.mate)} "
            f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} time {int(info.time * 1000)}")
    if getattr(info, "tbhits", 0):
        line += f" tbhits {info.tbhits}"
    if pv_text:
        line += " pv " + " ".join(pv_text)
    return line


SQUARE_RE = re.compile(r"^[a-h][1-8]$")


def pass_alias(text: str) -> str:
    """Fairy-Stockfish writes a pass as the king's square twice (`e1e1`): `0000` for that,
    any other text unchanged (so an error names the move as the GUI sent it)."""
    if len(text) == 4 and text[:2] == text[2:] and SQUARE_RE.match(text[:2]):
        return "0000"
    return text


def legal_prefix(game, moves) -> list:
    """The longest prefix of `moves` that is legal from `game`'s position (left unchanged)."""
    played = []
    for move in moves:
        if not game.is_legal(move):
            break
        game.push(move)
        played.append(move)
    for _ in played:
        game.pop()
    return played


class UciAdapter(Adapter):
    """The UCI state machine: current rule set, position and options (`self.options`); one
    search at a time."""

    def __init__(self, write: Callable[[str], None]):
        super().__init__(write)
        self.variant = "chess"
        self._game = None
        self._position_key: tuple | None = None  # (variant, FEN or None) of the last `position`
        self._position_moves: list[str] = []  # and its moves, to extend instead of replaying
        self.debug = False

    # -- helpers -----------------------------------------------------------------------

    def report_error(self, message: str) -> None:
        """Bad input or failure: one `info string` line."""
        self.send(f"info string error: {message}")

    def report_progress(self, message: str) -> None:
        """What the engine is busy with (compiling its kernels): one `info string` line."""
        self.send(f"info string {message}")

    def report_tablebases(self, path: str | None, tables: int, summary: str) -> None:
        """TablebasePath was set: what the folder holds, as an `info string` line."""
        self.send(f"info string {summary}")

    @property
    def game(self):
        """The current position (created from the rule set's start on first use)."""
        if self._game is None:
            from engine import Game

            self._game = Game(self.variant)
            self._position_key, self._position_moves = None, []
        return self._game

    # -- dispatch ----------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """React to one UCI command."""
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        handler = {
            "uci": self.cmd_uci, "isready": self.cmd_isready, "setoption": self.cmd_setoption,
            "ucinewgame": self.cmd_ucinewgame, "position": self.cmd_position, "go": self.cmd_go,
            "stop": self.cmd_stop, "ponderhit": self.cmd_ponderhit, "quit": self.cmd_quit,
            "debug": self.cmd_debug, "register": self.cmd_register, "d": self.cmd_display,
        }.get(command)
        if handler is None:
            self.send(f"info string unknown command: {line[:200]}")
            return
        handler(rest)

    def cmd_uci(self, rest: str) -> None:
        """Identify, list the options, `uciok`; then start loading the engine."""
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for line in self.options.uci_lines():
            self.send(line)
        self.send("uciok")
        self.loader.start()

    def cmd_isready(self, rest: str) -> None:
        """`readyok` once the engine is loaded (at once while searching)."""
        self.engine_ready()
        self.send("readyok")

    def cmd_debug(self, rest: str) -> None:
        """`debug on|off`: accepted; the engine has no extra debug output."""
        if rest not in ("on", "off"):
            self.report_error(f"debug takes on or off, got {rest[:80]!r}")
            return
        self.debug = rest == "on"

    def cmd_register(self, rest: str) -> None:
        """No registration is needed."""

    def cmd_display(self, rest: str) -> None:
        """`d`: the rule set and the position's FEN, as an info string."""
        if not self.engine_ready():
            return
        self.send(f"info string variant {self.variant} fen {self.game.fen()}")

    def cmd_quit(self, rest: str) -> None:
        """Stop thinking (the pending bestmove is still sent) and exit."""
        self.quit()

    def quit(self) -> None:
        """`quit` (or end of input): a running search still answers its `go`, a perft says
        it was stopped (both stopped at once; at end of input a perft is finished first)."""
        self.stop_job(discard=False)
        super().quit()

    # -- options -----------------------------------------------------------------------

    def cmd_setoption(self, rest: str) -> None:
        """`setoption name <id> [value <x>]` for the options of protocols.options; ids
        case-insensitive, values checked there."""
        tokens = rest.split()
        if not tokens or tokens[0].lower() != "name":
            self.report_error("setoption needs 'name <id> [value <x>]'")
            return
        lowered = [t.lower() for t in tokens]
        split = lowered.index("value", 1) if "value" in lowered[1:] else len(tokens)
        name, value = " ".join(tokens[1:split]), " ".join(tokens[split + 1:]) if split < len(tokens) else None
        if not name:
            self.report_error("setoption needs an option name")
            return
        option = self.options.find_uci(name)
        if option is None:
            self.report_error(f"no such option: {name[:80]}")
            return
        try:
            self.options.set(option, value)
        except OptionError as error:
            self.report_error(error.uci_text())

    def set_variant(self, name: str) -> None:
        """UCI_Variant: play the rule set `name` (one of UCI_VARIANT_NAMES) from now on."""
        variant = canonical_variant(name)
        if variant != self.variant:
            self.variant = variant
            self._game = None  # the new rule set's start position until `position` says otherwise

    # -- position ----------------------------------------------------------------------

    def cmd_ucinewgame(self, rest: str) -> None:
        """Forget the hash table and go back to the start position; the variant stays."""
        if not self.engine_ready():
            return
        self.stop_job(discard=False)
        self.searcher.new_game()
        self._game = None

    def cmd_position(self, rest: str) -> None:
        """`position startpos|fen <FEN> [moves ...]`, all or nothing."""
        if not self.engine_ready():
            return
        from engine import FenError, Game

        tokens = rest.split()
        if not tokens:
            self.report_error("position needs startpos or fen")
            return
        if "moves" in tokens:
            split = tokens.index("moves")
            setup, moves = tokens[:split], tokens[split + 1:]
        else:
            setup, moves = tokens, []
        if setup == ["startpos"]:
            fen = None
        elif len(setup) >= 2 and setup[0] == "fen":
            fen = " ".join(setup[1:])
        else:
            self.report_error(f"position needs 'startpos' or 'fen <FEN>', got {' '.join(setup)[:120]!r}")
            return
        key = (self.variant, fen)
        done = self._position_moves
        if self._game is not None and self._position_key == key and moves[:len(done)] == done \
                and not self._game_lent():
            game, todo = self._game, moves[len(done):]  # the GUI repeats the game so far: extend it
        else:
            try:
                game = Game(self.variant, fen)
            except (FenError, ValueError) as error:
                self.report_error(f"invalid FEN {(fen or 'startpos')[:120]!r} for {self.variant}: {error}")
                return
            todo = moves
        played = 0
        for text in todo:
            try:
                game.push(pass_alias(text))
            except ValueError as error:
                for _ in range(played):
                    game.pop()
                reason = getattr(error, "reason", None) or str(error)
                self.report_error(f"move {text[:20]!r} in position: {reason}; position unchanged")
                return
            played += 1
        self._game = game
        self._position_key, self._position_moves = key, moves

    def _game_lent(self) -> bool:
        """True while a search job works on the current game object itself."""
        return self.job is not None and self.job.data.get("game") is self._game

    # -- search ------------------------------------------------------------------------

    def cmd_go(self, rest: str) -> None:
        """Start a search (or perft) on the current position in a worker thread."""
        if not self.engine_ready():
            return
        params = self._parse_go(rest.split())
        if params is None:
            return
        if self.job is not None:
            self.stop_job(discard=False)  # a go while thinking: finish the old search first
        if "perft" in params:
            self._start_perft(params["perft"])
            return
        from engine import Limits

        ms = 0.001
        limits = Limits(
            depth=params.get("depth"), nodes=params.get("nodes"),
            movetime=params["movetime"] * ms if "movetime" in params else None,
            wtime=params["wtime"] * ms if "wtime" in params else None,
            btime=params["btime"] * ms if "btime" in params else None,
            winc=params.get("winc", 0) * ms, binc=params.get("binc", 0) * ms,
            movestogo=params.get("movestogo") or None, infinite="infinite" in params,
            overhead=self.options["Move Overhead"] * ms)
        if "mate" in params and not limits.depth:
            limits.depth = max(1, 2 * params["mate"] - 1)
        searchmoves = self._parse_searchmoves(params.get("searchmoves", []))
        self._start_search(limits, searchmoves, ponder="ponder" in params)

    def _parse_go(self, tokens: list[str]) -> dict | None:
        params: dict = {}
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token in GO_FLAGS:
                params[token] = True
                i += 1
            elif token == "searchmoves":
                i += 1
                moves = []
                while i < len(tokens) and tokens[i] not in GO_KEYWORDS:
                    moves.append(tokens[i])
                    i += 1
                params["searchmoves"] = moves
            elif token in GO_INT_TOKENS:
                value = tokens[i + 1] if i + 1 < len(tokens) else None
                try:
                    number = int(value)
                except (TypeError, ValueError):
                    if token == "perft":
                        self.report_error(f"go perft needs a depth, got {value!r}")
                        return None
                    self.report_error(f"go {token} needs an integer, got {value!r}; ignored")
                    i += 2 if value is not None and value not in GO_KEYWORDS else 1
                    continue
                if token in ("wtime", "btime"):
                    number = max(0, number)  # a flagged clock may be reported negative
                elif number < 0 or (number == 0 and token in ("depth", "nodes", "mate")):
                    self.report_error(f"go {token} {number} is out of range; ignored")
                    i += 2
                    continue
                params[token] = number
                i += 2
            else:
                self.report_error(f"go: unknown token {token[:40]!r}; ignored")
                i += 1
        return params

    def _parse_searchmoves(self, texts: list[str]) -> list:
        moves = []
        for text in texts:
            try:
                moves.append(self.game.parse_move(pass_alias(text)))
            except ValueError as error:
                reason = getattr(error, "reason", None) or "not a legal move here"
                self.report_error(f"searchmoves: {text[:20]!r}: {reason}; ignored")
        return moves

    def _start_search(self, limits, searchmoves, ponder: bool) -> None:
        from engine import Game, Limits

        # The search works on the game object itself (with its history, for repetitions);
        # `position` builds a new one rather than change it while the search runs.
        game = self.game
        skill = self.options["Skill Level"]
        multipv = self.options["MultiPV"]
        searcher = self.searcher
        run_limits = Limits(infinite=True, overhead=limits.overhead) if ponder else limits
        job: Job

        def on_info(info) -> None:
            if job.discarded:
                return
            pv = legal_prefix(pv_board, info.pv)
            self.send(format_info(info, [m.uci() for m in pv]))

        def run(current: Job):
            if not game.legal_moves():
                if run_limits.infinite:
                    current.stop_requested.wait()  # infinite and ponder answer only after stop
                return None
            return think(game, run_limits, searcher, skill=skill, searchmoves=searchmoves, multipv=multipv,
                         on_info=on_info, stopped=current.stop_requested)

        pv_board = Game(game.rules, game.fen())  # legality of PV moves needs no history
        job = Job("search", run, {"limits": limits, "searchmoves": searchmoves, "ponder": ponder,
                                  "board": pv_board, "game": game})
        self.start_job(job)

    def _start_perft(self, depth: int) -> None:
        if not 0 <= depth <= 30:
            self.report_error(f"go perft depth must be between 0 and 30, got {depth}")
            return
        from engine import StopFlag

        game = self.game.copy()
        stop = StopFlag()

        def run(current: Job):
            if depth == 0:
                return [], 1
            rows = sorted(game.perft_divide(depth, stop), key=lambda pair: pair[0].uci())
            return rows, sum(nodes for _, nodes in rows)

        self.start_job(Job("perft", run, {"stop": stop, "depth": depth}))

    def cmd_stop(self, rest: str) -> None:
        """Stop thinking now: a search answers with its best move so far, a perft with
        `info string perft N stopped` (no counts)."""
        if self.job is not None:
            self.stop_job(discard=False)

    def cmd_ponderhit(self, rest: str) -> None:
        """The opponent played the expected move: go on thinking under the `go ponder` limits."""
        job = self.job
        if job is None or not job.data.get("ponder"):
            self.report_error("ponderhit without go ponder; ignored")
            return
        self.stop_job(discard=True)
        self._start_search(job.data["limits"], job.data["searchmoves"], ponder=False)

    def job_finished(self, job: Job) -> None:
        """Print a search's bestmove or a perft's counts."""
        from engine import PerftStopped

        if isinstance(job.error, PerftStopped):
            self.send(f"info string perft {job.data['depth']} stopped")
            return
        if job.error is not None:
            self.report_error(f"{job.kind} failed: {type(job.error).__name__}: {job.error}")
            if job.kind == "search":
                self.send("bestmove (none)")
            return
        if job.kind == "perft":
            rows, total = job.result
            for move, nodes in rows:
                self.send(f"{move.uci()}: {nodes}")
            self.send("")
            self.send(f"Nodes searched: {total}")
            return
        choice = job.result
        if choice is None or choice.best_move is None:
            self.send("bestmove (none)")
            return
        line = f"bestmove {choice.best_move.uci()}"
        if choice.ponder is not None and legal_prefix(job.data["board"], [choice.best_move, choice.ponder])[1:]:
            line += f" ponder {choice.ponder.uci()}"
        self.send(line)


def stdio_adapter(write: Callable[[str], None]) -> UciAdapter:
    """The adapter for standard input and output: Ctrl-C stops what it is doing."""
    adapter = UciAdapter(write)
    stop_on_sigint(adapter)
    return adapter


def main() -> int:
    """`antichess uci`: speak UCI on standard input and output."""
    try:
        return run_stdio(stdio_adapter)
    except KeyboardInterrupt:  # Ctrl-C with nothing to stop
        return 130

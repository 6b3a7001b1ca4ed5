"""Engine processes: configuration, and the UCI and CECP (xboard) adapters the referee drives.

An adapter only carries messages: it never decides whether a move is legal or how a game
ended (that is the referee's job, with `engine.Game`).  Every wait has a deadline; a process
that dies, stops answering, or prints a move that is not a move raises `EngineFailure` with
the kind of failure, which the referee turns into a forfeit.
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from engine import scaled_from_cecp, scaled_from_uci

from .timecontrol import TimeControl

if TYPE_CHECKING:
    from engine import Limits

# Protocol timeouts in seconds, as cutechess-cli uses them (chessengine.h), scaled by tscale.
STARTUP_TIMEOUT = 35.0
PING_TIMEOUT = 15.0
QUIT_TIMEOUT = 5.0
UNTIMED_MOVE_TIMEOUT = 60.0  # a move with no clock (depth/nodes/inf) that takes longer stalls
MAX_LINE = 1 << 16
# How far (ms) a move may overrun its time before it is lost on time, when `timemargin=` is
# not given: the time a reply spends in the pipe and waiting for a busy machine's scheduler.
# cutechess-cli's default is 0, with which a first run at `st=0.05` could lose every game on
# time at its first move.
DEFAULT_TIMEMARGIN = 100
INTERRUPT_POLL = 0.1  # seconds between two looks at a tournament's stop request while waiting

MOVE_RE = re.compile(r"^(?:[a-h][1-8][a-h][1-8][qrbnka]?|0000|@@@@)$")
_CHESS_NAMES = ("chess", "standard", "normal")


class EngineFailure(Exception):
    """An engine broke the protocol.  `kind` is one of: crash, stall, time, garbage, illegal,
    setup (a configuration the engine cannot play, e.g. an unsupported variant), or stopped
    (the tournament asked to stop while the engine was being waited for: nobody's fault)."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail

    def __reduce__(self):
        # Pickled as its two arguments, so that a worker process's failure (a process pool's
        # task) reaches the parent whole, with its kind and detail.
        return type(self), (self.kind, self.detail)


class ConfigError(ValueError):
    """An engine or tournament setting that cannot be used."""


@dataclass(frozen=True)
class EngineConfig:
    """Everything needed to start and drive one engine (cutechess `-engine` keys)."""

    name: str
    cmd: tuple[str, ...]
    proto: str = "uci"
    dir: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    tc: TimeControl | None = None
    depth: int | None = None
    nodes: int | None = None
    timemargin: int = DEFAULT_TIMEMARGIN  # milliseconds
    variantmap: tuple[tuple[str, str], ...] = ()
    restart: bool = False  # restart the process before every game
    tscale: float = 1.0
    stderr: str | None = None
    stfactor: float = 10.0  # xboard sub-second st: sudden-death clock of stfactor * st
    debug: bool = False  # print every protocol line on stderr

    def engine_variant(self, variant: str) -> str:
        """The name this engine knows `variant` by (through `variantmap`)."""
        return dict(self.variantmap).get(variant, variant)

    def time_control(self) -> TimeControl:
        """The engine's time control (infinite when only depth/nodes are set)."""
        return self.tc if self.tc is not None else TimeControl(infinite=True)

    def describe(self) -> dict:
        """A JSON-able description (identity of the engine in a stored tournament)."""
        return {
            "name": self.name, "cmd": list(self.cmd), "proto": self.proto, "dir": self.dir,
            "options": [list(o) for o in self.options],
            "tc": self.tc.pgn_tag() if self.tc else None, "depth": self.depth,
            "nodes": self.nodes, "timemargin": self.timemargin,
            "variantmap": [list(v) for v in self.variantmap], "restart": self.restart,
        }


def parse_bool(text: str) -> bool:
    """on/off, true/false, yes/no, 1/0."""
    low = text.lower()
    if low in ("on", "true", "yes", "1"):
        return True
    if low in ("off", "false", "no", "0"):
        return False
    raise ConfigError(f"expected on or off, got {text!r}")


def engine_config(pairs: list[tuple[str, str]]) -> EngineConfig:
    """Build an EngineConfig from cutechess-style `key=value` pairs (`-each` merged in first).

    Keys: name cmd arg dir proto option.NAME tc st depth nodes timemargin variantmap restart
    tscale stderr stfactor.  Later keys override earlier ones; `arg` and `option.*` and
    `variantmap` accumulate.
    """
    values: dict = {}
    args: list[str] = []
    options: dict[str, str] = {}
    vmap: dict[str, str] = {}
    for key, value in pairs:
        if key.startswith("option."):
            name = key[len("option."):]
            if not name:
                raise ConfigError("empty option name")
            options[name] = value
        elif key == "arg":
            args.append(value)
        elif key == "variantmap":
            for item in value.split(","):
                ours, sep, theirs = item.partition(":")
                if not sep or not ours or not theirs:
                    raise ConfigError(f"variantmap wants OURS:THEIRS[,...], got {value!r}")
                vmap[ours.strip()] = theirs.strip()
        elif key in ("tc", "st"):
            values.pop("st" if key == "tc" else "tc", None)  # the later one wins
            values[key] = value
        elif key in ("name", "cmd", "dir", "proto", "depth", "nodes", "timemargin",
                     "restart", "tscale", "stderr", "stfactor"):
            values[key] = value
        elif key in ("ponder", "trust", "whitepov", "book", "bookdepth", "conf", "initstr"):
            raise ConfigError(f"engine key {key!r} is not supported")
        else:
            raise ConfigError(f"unknown engine key {key!r}")
    if "cmd" not in values or not values["cmd"].strip():
        raise ConfigError("an engine needs cmd=")
    try:
        cmd = tuple(shlex.split(values["cmd"])) + tuple(args)
    except ValueError as error:
        raise ConfigError(f"bad cmd: {error}") from None
    proto = values.get("proto", "uci")
    if proto not in ("uci", "xboard"):
        raise ConfigError(f"proto must be uci or xboard, got {proto!r}")
    tc = None
    if "tc" in values:
        tc = TimeControl.parse(values["tc"])
    if "st" in values:
        try:
            tc = TimeControl.fixed(float(values["st"]))
        except ValueError as error:
            raise ConfigError(str(error)) from None

    def integer(key, low=0):
        if key not in values:
            return None
        try:
            number = int(values[key])
        except ValueError:
            raise ConfigError(f"{key} must be an integer, got {values[key]!r}") from None
        if number < low:
            raise ConfigError(f"{key} must be at least {low}")
        return number

    def number(key, default):
        if key not in values:
            return default
        try:
            value = float(values[key])
        except ValueError:
            raise ConfigError(f"{key} must be a number, got {values[key]!r}") from None
        if not value > 0:
            raise ConfigError(f"{key} must be positive")
        return value

    depth, nodes = integer("depth", 1), integer("nodes", 1)
    if tc is None and depth is None and nodes is None:
        raise ConfigError(f"engine {values.get('name', cmd[0])!r} has no time control "
                          "(tc=, st=, depth= or nodes=)")
    return EngineConfig(
        name=values.get("name") or os.path.basename(cmd[0]),
        cmd=cmd, proto=proto, dir=values.get("dir"),
        options=tuple(options.items()), tc=tc, depth=depth, nodes=nodes,
        timemargin=DEFAULT_TIMEMARGIN if "timemargin" not in values else integer("timemargin"),
        variantmap=tuple(vmap.items()),
        restart=parse_bool(values["restart"]) if "restart" in values else False,
        tscale=number("tscale", 1.0), stderr=values.get("stderr"),
        stfactor=number("stfactor", 10.0),
    )


@dataclass
class MoveReply:
    """An engine's answer to `go`: the move text, how long it took, and its last report."""

    text: str | None
    elapsed: float
    score: int | None = None  # engine's point of view, on engine.scaled_score's scale (mates +-(100000 - moves))
    last_score: int | None = None  # the last score reported, a lower or upper bound too (UCI)
    depth: int | None = None
    resigned: bool = False
    claims: list[str] = field(default_factory=list)


@dataclass
class MoveRequest:
    """What the referee tells the engine about this move: the time control as an
    `engine.Limits` (the clocks `wtime`/`btime` and increments by colour, `movestogo`,
    `movetime` for a fixed time per move, `depth`, `nodes`; seconds, None: no such bound),
    the colour the engine plays, and how long the referee waits before a forfeit."""

    limits: Limits
    mover: str = "white"
    deadline: float | None = None  # seconds the referee will wait before a forfeit (None: untimed)

    def clocks(self) -> tuple[float | None, float | None, float, float]:
        """(own time, opponent's time, own increment, opponent's increment), the mover's first."""
        limits = self.limits
        if self.mover == "black":
            return limits.btime, limits.wtime, limits.binc, limits.winc
        return limits.wtime, limits.btime, limits.winc, limits.binc


class EngineProcess:
    """A running engine: a child process, a reader thread, and line I/O with deadlines."""

    protocol = "?"

    def __init__(self, config: EngineConfig, interrupted: Callable[[], bool] | None = None):
        self.config = config
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._dead = False
        self.display_name = config.name
        self._stderr = None
        self.trace = _stderr_trace if config.debug else None  # callable(name, '>'/'<', line)
        # Asked while waiting for a line (every INTERRUPT_POLL s): True ends the wait with
        # EngineFailure("stopped"), so that a stopped tournament need not wait for a move.
        self.interrupted = interrupted

    # -- process -----------------------------------------------------------------------

    def _spawn(self) -> None:
        cwd = self.config.dir or None
        if cwd is not None and not os.path.isdir(cwd):
            raise EngineFailure("setup", f"working directory {cwd!r} does not exist")
        stderr = subprocess.DEVNULL
        if self.config.stderr:
            self._stderr = open(self.config.stderr, "ab")
            stderr = self._stderr
        try:
            # A process group of its own: Ctrl-C in the terminal interrupts the tournament,
            # which stops its engines itself, and no engine dies of the signal mid-game.
            self.proc = subprocess.Popen(
                list(self.config.cmd), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr, bufsize=0, process_group=0,
            )
        except OSError as error:
            raise EngineFailure("setup", f"cannot start {self.config.cmd[0]!r}: {error.strerror or error}") from None
        reader = threading.Thread(target=self._read, args=(self.proc.stdout, self._lines),
                                  name=f"engine-reader-{self.config.name}", daemon=True)
        reader.start()

    @staticmethod
    def _read(stream, lines: queue.Queue) -> None:
        try:
            while True:
                raw = stream.readline(MAX_LINE)
                if not raw:
                    break
                lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        lines.put(None)

    def send(self, line: str) -> None:
        """Write one command line; a closed pipe means the engine has gone."""
        if self.proc is None or self._dead:
            raise EngineFailure("crash", "the engine is not running")
        if self.trace is not None:
            self.trace(self.config.name, ">", line)
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._dead = True
            raise EngineFailure("crash", self._exit_text()) from None

    def _exit_text(self) -> str:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        if code is None:
            return "disconnected"
        if code < 0:
            try:
                return f"crashed ({signal.Signals(-code).name})"
            except ValueError:
                return f"crashed (signal {-code})"
        return f"exited with status {code}"

    def _move_deadline(self, started: float, request: MoveRequest) -> float:
        """When an engine thinking on a move is declared out of time (or stalled, untimed)."""
        return started + (request.deadline if request.deadline is not None
                          else UNTIMED_MOVE_TIMEOUT * self.config.tscale)

    def _read_move_line(self, hard: float, waiting_for: str, request: MoveRequest) -> tuple[float, str]:
        """The next line while waiting for a move; silence until `hard` is a time loss or stall."""
        try:
            return self.readline(hard, waiting_for)
        except EngineFailure as failure:
            if failure.kind == "stall":
                self._abandon_search()
                raise EngineFailure("time" if request.deadline is not None else "stall",
                                    "no move in time" if request.deadline is not None
                                    else f"no move within {UNTIMED_MOVE_TIMEOUT * self.config.tscale:g} s") from None
            raise

    def _abandon_search(self) -> None:
        """Stop an engine that did not answer in time (each protocol says how)."""
        raise NotImplementedError

    def readline(self, deadline: float, waiting_for: str) -> tuple[float, str]:
        """Next (timestamp, line) before `deadline` (time.monotonic()); raises on EOF/timeout."""
        while True:
            remaining = deadline - time.monotonic()
            if self.interrupted is not None:
                remaining = min(remaining, INTERRUPT_POLL)
            try:
                item = self._lines.get(timeout=max(0.0, remaining)) if remaining > 0 else self._lines.get_nowait()
            except queue.Empty:
                if self.interrupted is not None and self.interrupted():
                    raise EngineFailure("stopped", "the tournament is stopping") from None
                if time.monotonic() < deadline:
                    continue
                raise EngineFailure("stall", f"no {waiting_for}") from None
            if item is None:
                self._dead = True
                self._lines.put(None)
                raise EngineFailure("crash", self._exit_text())
            if self.trace is not None:
                self.trace(self.config.name, "<", item[1])
            return item

    def drain(self) -> None:
        """Throw away every line already received."""
        while True:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._lines.put(None)
                return

    @property
    def alive(self) -> bool:
        """True while the process runs and its output is open."""
        return self.proc is not None and not self._dead and self.proc.poll() is None

    def timeout(self, seconds: float) -> float:
        """A protocol timeout scaled by the engine's tscale, as an absolute deadline."""
        return time.monotonic() + seconds * self.config.tscale

    def kill(self) -> None:
        """End the process at once."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self._close()

    def _close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._dead = True

    def quit(self) -> None:
        """Ask the engine to quit, then make sure it has."""
        if self.proc is None:
            return
        if self.alive:
            try:
                self.send("quit")
            except EngineFailure:
                pass
            try:
                self.proc.wait(timeout=QUIT_TIMEOUT * self.config.tscale)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    # -- protocol interface (per adapter) --------------------------------------------------

    def start(self) -> None:
        """Start the process and complete the handshake."""
        raise NotImplementedError

    def new_game(self, variant: str, start_fen: str, standard_start: bool) -> None:
        """Prepare for a game of `variant` (our name) from `start_fen`."""
        raise NotImplementedError

    def play(self, moves: list[str], request: MoveRequest) -> MoveReply:
        """Ask for a move after `moves` (UCI notation, from the start FEN)."""
        raise NotImplementedError

    def end_game(self, result: str, comment: str) -> None:
        """Tell the engine the game is over."""

    def sync(self) -> None:
        """Wait until the engine has processed everything sent (ping/isready)."""
        raise NotImplementedError


def _stderr_trace(name: str, direction: str, line: str) -> None:
    import sys

    print(f"{name} {direction} {line}", file=sys.stderr, flush=True)


class UciEngine(EngineProcess):
    """A UCI engine."""

    protocol = "uci"

    def __init__(self, config: EngineConfig, interrupted: Callable[[], bool] | None = None):
        super().__init__(config, interrupted)
        self.option_types: dict[str, tuple[str, list[str]]] = {}
        self._fen = None
        self._reread = False  # the option list was read again after the options were set

    def start(self) -> None:
        """Start the process, `uci` -> `uciok`, set the configured options, `isready`."""
        self._spawn()
        self._read_options()
        for name, value in self.config.options:
            if name.lower() not in {key.lower() for key in self.option_types}:
                raise EngineFailure("setup", f"{self.config.name} has no option {name!r}")
            self.send(f"setoption name {name} value {value}")
        self.sync()

    def _read_options(self) -> None:
        """`uci`, then the engine's name and options up to `uciok`."""
        self.send("uci")
        deadline = self.timeout(STARTUP_TIMEOUT)
        while True:
            _, line = self.readline(deadline, "uciok")
            if line.startswith("id name "):
                self.display_name = line[8:].strip()
            elif line.startswith("option name "):
                self._parse_option(line)
            elif line.strip() == "uciok":
                break

    def _parse_option(self, line: str) -> None:
        rest = line[len("option name "):]
        name, _, tail = rest.partition(" type ")
        tokens = tail.split()
        kind = tokens[0] if tokens else ""
        choices = [tokens[i + 1] for i, tok in enumerate(tokens[:-1]) if tok == "var"]
        self.option_types[name.strip()] = (kind, choices)

    def sync(self) -> None:
        """`isready` -> `readyok`, discarding anything before it (e.g. a late bestmove)."""
        self.send("isready")
        deadline = self.timeout(PING_TIMEOUT)
        while True:
            _, line = self.readline(deadline, "readyok")
            if line.strip() == "readyok":
                return
            if line.startswith("option name "):  # an engine may announce changed options
                self._parse_option(line)

    def _variant_value(self, variant: str) -> str | None:
        """The UCI_Variant value for `variant` (None: chess, and no value to set)."""
        name = self.config.engine_variant(variant)
        variant_option = self.option_types.get("UCI_Variant")
        if name in _CHESS_NAMES:
            if variant_option is None:
                return None
            return next((c for c in variant_option[1] if c in _CHESS_NAMES), None)
        if variant_option is None or name not in variant_option[1]:
            raise EngineFailure("setup", f"{self.config.name} does not support variant {name}")
        return name

    def check_variant(self, variant: str) -> str | None:
        """The UCI_Variant value for `variant`; EngineFailure("setup") if the engine lacks it.

        An option may define variants (Fairy-Stockfish's VariantPath), and engines announce
        the new list only when asked: when the variant is missing and options were set, the
        option list is read again (`uci`) before the variant is refused."""
        try:
            return self._variant_value(variant)
        except EngineFailure:
            if not self.config.options or self._reread:
                raise
        self._reread = True
        self._read_options()
        return self._variant_value(variant)

    def new_game(self, variant: str, start_fen: str, standard_start: bool) -> None:
        """Set UCI_Variant (through the name map), `ucinewgame`, `isready`."""
        value = self.check_variant(variant)
        if value is not None:
            self.send(f"setoption name UCI_Variant value {value}")
        self._fen = start_fen
        self.send("ucinewgame")
        self.sync()

    def play(self, moves: list[str], request: MoveRequest) -> MoveReply:
        """`position fen ... moves ...`, `go ...`, then wait for `bestmove`."""
        position = f"position fen {self._fen}"
        if moves:
            position += " moves " + " ".join(moves)
        self.send(position)
        limits = request.limits
        go = ["go"]
        if limits.movetime is not None:
            go += ["movetime", str(max(1, int(limits.movetime * 1000)))]
        elif request.clocks()[0] is not None:
            wt, bt, wi, bi = limits.wtime, limits.btime, limits.winc, limits.binc
            go += ["wtime", str(max(1, int(wt * 1000))), "btime", str(max(1, int(bt * 1000)))]
            if wi or bi:
                go += ["winc", str(int(wi * 1000)), "binc", str(int(bi * 1000))]
            if limits.movestogo:
                go += ["movestogo", str(limits.movestogo)]
        if limits.depth is not None:
            go += ["depth", str(limits.depth)]
        if limits.nodes is not None:
            go += ["nodes", str(limits.nodes)]
        if len(go) == 1:
            go.append("infinite")
        self.send(" ".join(go))
        started = time.monotonic()
        reply = MoveReply(None, 0.0)
        hard = self._move_deadline(started, request)
        while True:
            stamp, line = self._read_move_line(hard, "bestmove", request)
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "info":
                self._parse_info(tokens, reply)
            elif tokens[0] == "bestmove":
                reply.elapsed = stamp - started
                if len(tokens) < 2:
                    raise EngineFailure("garbage", f"empty bestmove line {line!r}")
                reply.text = tokens[1]
                return reply

    @staticmethod
    def _parse_info(tokens: list[str], reply: MoveReply) -> None:
        try:
            if "depth" in tokens:
                reply.depth = int(tokens[tokens.index("depth") + 1])
            if "score" in tokens:
                i = tokens.index("score")
                kind, value = tokens[i + 1], int(tokens[i + 2])
                scaled = scaled_from_uci(kind, value)
                if scaled is None:
                    return
                reply.last_score = scaled
                if i + 3 < len(tokens) and tokens[i + 3] in ("lowerbound", "upperbound"):
                    return
                reply.score = scaled
        except (ValueError, IndexError):
            pass

    def _abandon_search(self) -> None:
        try:
            self.send("stop")
        except EngineFailure:
            pass


_POST_RE = re.compile(r"^\s*(\d+)[.!?]?\s+(-?\d+)\s+(\d+)\s+(\d+)(?:\s|$)")


class XboardEngine(EngineProcess):
    """A CECP (xboard protocol 2) engine."""

    protocol = "xboard"
    _ACCEPT = {"ping", "setboard", "usermove", "time", "done", "myname", "variants", "sigint",
               "sigterm", "reuse", "analyze", "debug", "name", "nps", "option", "memory", "smp",
               "egt", "draw", "playother", "pause", "ics", "highlight", "exclude", "setscore"}

    def __init__(self, config: EngineConfig, interrupted: Callable[[], bool] | None = None):
        super().__init__(config, interrupted)
        self._reread = False  # the features were read again after the options were set
        self.features: dict[str, str] = {}
        self._ping = 0
        self._sent = 0  # how many moves of the game the engine knows
        self._playing = False
        self._fen = None

    def start(self) -> None:
        """`xboard`, `protover 2`, read the features up to `done=1`, set options, ping."""
        self._spawn()
        self.send("xboard")
        self._read_features()
        if "myname" in self.features:
            self.display_name = self.features["myname"]
        for name, value in self.config.options:
            self.send(f"option {name}={value}")
        self.sync()

    def _read_features(self) -> None:
        """`protover 2`, then the features up to `done=1` (none in 2 s: protocol 1)."""
        self.send("protover 2")
        deadline = self.timeout(2.0)
        done = False
        while not done:
            try:
                _, line = self.readline(deadline, "feature done=1")
            except EngineFailure as failure:
                if failure.kind == "stall" and not self.features:
                    break  # protocol version 1: no features
                raise
            if line.startswith("feature "):
                said = self._take_features(line)
                if said == "0":
                    deadline = self.timeout(STARTUP_TIMEOUT)
                done = said not in (None, "0")

    def _take_features(self, line: str) -> str | None:
        """Record and answer a `feature` line; returns its `done` value, if any."""
        done = None
        for key, value in _parse_features(line[8:]):
            self.features[key] = value
            if key == "done":
                done = value
                continue
            verdict = "accepted" if key in self._ACCEPT else "rejected"
            if key in ("san", "colors") and value == "0":
                verdict = "accepted"
            self.send(f"{verdict} {key}")
        return done

    def _has(self, feature: str, default: str = "0") -> bool:
        return self.features.get(feature, default) == "1"

    def sync(self) -> None:
        """`ping N` -> `pong N` (when the engine has ping=1)."""
        if not self._has("ping"):
            return
        self._ping += 1
        self.send(f"ping {self._ping}")
        deadline = self.timeout(PING_TIMEOUT)
        while True:
            _, line = self.readline(deadline, f"pong {self._ping}")
            if line.strip() == f"pong {self._ping}":
                return
            if line.startswith("feature "):  # features may change at any time
                self._take_features(line)

    def _variant_name(self, variant: str) -> str:
        """The CECP name for `variant`; EngineFailure("setup") if the engine does not offer it."""
        name = self.config.engine_variant(variant)
        xb_name = "normal" if name in _CHESS_NAMES else name
        offered = self.features.get("variants")
        if offered is not None and xb_name not in [v.strip() for v in offered.split(",")]:
            raise EngineFailure("setup", f"{self.config.name} does not support variant {xb_name}")
        return xb_name

    def check_variant(self, variant: str) -> str:
        """The CECP name for `variant`; EngineFailure("setup") if the engine lacks it.

        An option may define variants (Fairy-Stockfish's VariantPath): when the variant is not
        offered and options were set, the features are read again (`protover 2`) before the
        variant is refused."""
        try:
            return self._variant_name(variant)
        except EngineFailure:
            if not self.config.options or self._reread:
                raise
        self._reread = True
        try:
            self._read_features()
        except EngineFailure as failure:
            if failure.kind != "stall":
                raise
        self.sync()
        return self._variant_name(variant)

    def new_game(self, variant: str, start_fen: str, standard_start: bool) -> None:
        """`new`, `variant` (mapped), `force`, `setboard` if needed, the time control, ping."""
        name = self.config.engine_variant(variant)
        xb_name = self.check_variant(variant)
        self.send("new")
        if xb_name != "normal":
            self.send(f"variant {xb_name}")
        self.send("force")
        self._fen = start_fen
        if not standard_start or name != variant:
            if not self._has("setboard"):
                raise EngineFailure("setup", f"{self.config.name} cannot set up a position (setboard=0)")
            self.send(f"setboard {start_fen}")
        self._send_time_control()
        self.send("post")
        self.send("easy")
        self._sent = 0
        self._playing = False
        self.sync()

    def _send_time_control(self) -> None:
        tc = self.config.time_control()
        if tc.is_fixed:
            if float(tc.per_move).is_integer():
                self.send(f"st {int(tc.per_move)}")
            else:
                self.send(f"level 0 {_minsec(tc.per_move * self.config.stfactor)} 0")
        elif tc.infinite:
            self.send("level 0 999 0")
        else:
            self.send(f"level {tc.moves} {_minsec(tc.base)} {tc.increment:g}")
        if self.config.depth is not None:
            self.send(f"sd {self.config.depth}")
        if self.config.nodes is not None:
            if not self._has("nps"):
                raise EngineFailure("setup", f"{self.config.name} cannot limit nodes (nps=0)")
            self.send(f"nps {self.config.nodes}")
            if tc.infinite:
                self.send("st 1")

    def _move_command(self, move: str) -> str:
        text = "@@@@" if move == "0000" else move
        return f"usermove {text}" if self._has("usermove") else text

    def _send_clocks(self, request: MoveRequest) -> None:
        if not self._has("time", "1"):
            return
        movetime = request.limits.movetime
        own, opp, _, _ = request.clocks()
        if movetime is not None and not float(movetime).is_integer():
            own = opp = movetime * self.config.stfactor
        elif own is None:
            return
        self.send(f"time {max(1, int(own * 100))}")
        self.send(f"otim {max(1, int(opp * 100))}")

    def play(self, moves: list[str], request: MoveRequest) -> MoveReply:
        """Send the moves the engine has not seen, with the clocks, and wait for `move`."""
        new = moves[self._sent:]
        if not self._playing:
            for move in new:
                self.send(self._move_command(move))
            self._send_clocks(request)
            self.send("go")
            self._playing = True
        else:
            if len(new) != 1:
                raise EngineFailure("setup", "internal: xboard engine out of step with the game")
            self._send_clocks(request)
            self.send(self._move_command(new[0]))
        self._sent = len(moves)
        started = time.monotonic()
        reply = MoveReply(None, 0.0)
        hard = self._move_deadline(started, request)
        while True:
            stamp, line = self._read_move_line(hard, "move", request)
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            tokens = text.split()
            if tokens[0] == "move" and len(tokens) >= 2:
                reply.elapsed = stamp - started
                reply.text = tokens[1]
                self._sent += 1
                return reply
            if tokens[0] == "move":
                raise EngineFailure("garbage", f"empty move line {line!r}")
            if tokens[0] == "resign":
                reply.elapsed = stamp - started
                reply.resigned = True
                return reply
            if text.startswith("Illegal move"):
                raise EngineFailure("illegal", f"rejected a legal move: {text}")
            if tokens[0] in ("1-0", "0-1", "1/2-1/2"):
                reply.claims.append(text)
                continue
            match = _POST_RE.match(text)
            if match:
                reply.depth = int(match.group(1))
                reply.score = scaled_from_cecp(int(match.group(2)))  # a mate is +-(100000 + moves)
            elif MOVE_RE.match(tokens[0]) and len(tokens) == 1 and not self._has("usermove"):
                pass  # a protocol-1 style bare move echo is not a move announcement

    def _abandon_search(self) -> None:
        try:
            self.send("force")
        except EngineFailure:
            pass
        self._playing = False

    def end_game(self, result: str, comment: str) -> None:
        """`result RESULT {comment}`, then `force`."""
        if not self.alive:
            return
        try:
            self.send(f"result {result} {{{comment}}}")
            self.send("force")
        except EngineFailure:
            pass
        self._playing = False


def _minsec(seconds: float) -> str:
    """Seconds as CECP `level` base: minutes, or `min:sec` (seconds may be fractional)."""
    minutes, rest = divmod(seconds, 60.0)
    if rest == 0:
        return str(int(minutes))
    rest_text = f"{rest:.3f}".rstrip("0").rstrip(".")
    if rest < 10:
        rest_text = "0" + rest_text
    return f"{int(minutes)}:{rest_text}"


def _parse_features(text: str) -> list[tuple[str, str]]:
    """`key=value key="quoted value"` pairs of a feature line."""
    pairs = []
    for match in re.finditer(r'([A-Za-z_]+)=("([^"]*)"|\S+)', text):
        value = match.group(3) if match.group(3) is not None else match.group(2)
        pairs.append((match.group(1), value))
    return pairs


def open_engine(config: EngineConfig, interrupted: Callable[[], bool] | None = None) -> EngineProcess:
    """An adapter (not yet started) for the config's protocol; `interrupted` (optional) is
    asked while waiting for the engine, and True ends the wait (EngineFailure "stopped")."""
    return (UciEngine if config.proto == "uci" else XboardEngine)(config, interrupted)


def check_engine(config: EngineConfig, variant: str,
                 interrupted: Callable[[], bool] | None = None) -> str | None:
    """Start the engine, complete the handshake, set its options and check that it plays
    `variant` (options first: one may define variants); then quit it.  Returns None, or
    the reason it cannot be used (one line, naming the engine)."""
    engine = open_engine(config, interrupted)
    try:
        engine.start()
        engine.check_variant(variant)
    except EngineFailure as failure:
        if failure.kind == "stopped":
            engine.kill()
            return None
        if failure.kind == "setup":
            named = failure.detail.startswith(config.name + " ")
            return failure.detail if named else f"{config.name}: {failure.detail}"
        if failure.kind == "crash":
            return f"{config.name}: the engine {failure.detail} during the handshake"
        return f"{config.name}: no answer during the handshake ({failure.detail})"
    finally:
        engine.quit()
    return None


def with_defaults(config: EngineConfig, **changes) -> EngineConfig:
    """A copy of `config` with fields replaced."""
    return replace(config, **changes)

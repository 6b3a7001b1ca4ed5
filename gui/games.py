"""One game as the server holds it (`Room`) and the set of games (`Lobby`).

A room owns an engine `Game`, the two players (human or computer, a level for each
computer), the clocks, the seat tokens, the recorded history for the course file and the
pause and end state.  Every rule decision (legal moves, passes, outcomes, notation) is the
engine's; a room only orders them in time.  Rooms are driven from one asyncio event loop:
nothing here is thread-safe, and computer searches run elsewhere on a copy of the game
(see gui.players).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from engine import RULE_SETS, Game, get_rule_set

SIDES = ("white", "black")
PLAYER_KINDS = ("human", "computer")
LEVELS = {  # level -> (depth, seconds a move): docs/gui.md lists them
    1: (1, 0.05),
    2: (2, 0.1),
    3: (None, 0.3),
    4: (None, 1.0),
    5: (None, 3.0),
}
MAX_MINUTES = 600
PROMOTION_NAMES = {"n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king"}
RESULT_TEXT = {"white": "White wins", "black": "Black wins", None: "Draw"}


class RequestError(ValueError):
    """A request that cannot be done: one message, nothing changed.  `status` is the HTTP
    status the server answers with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def other(side: str) -> str:
    return "black" if side == "white" else "white"


@dataclass
class Settings:
    """What a new game is made of (the New Game dialog), checked."""

    variant: str = "mit-antichess"
    players: dict = field(default_factory=lambda: {"white": "human", "black": "computer"})
    levels: dict = field(default_factory=lambda: {"white": 2, "black": 2})
    clocks_ms: dict = field(default_factory=lambda: {"white": None, "black": None})
    mine: tuple = SIDES  # the human seats the creator takes; the others stay free for a second browser

    @classmethod
    def parse(cls, data: dict) -> "Settings":
        if not isinstance(data, dict):
            raise RequestError("the game settings must be a JSON object")
        variant = data.get("variant", "mit-antichess")
        if data.get("antikings") in (True, "1", "true", "on") and variant == "mit-antichess":
            variant = "antiking-antichess"
        if not isinstance(variant, str):
            raise RequestError("unknown variant")
        try:
            variant = get_rule_set(variant).name
        except Exception:
            raise RequestError(f"unknown variant {variant!r}; one of: {', '.join(RULE_SETS)}") from None
        players, levels, clocks = {}, {}, {}
        for side in SIDES:
            kind = data.get(side, "human")
            if kind not in PLAYER_KINDS:
                raise RequestError(f"{side} must be human or computer")
            players[side] = kind
            levels[side] = _number(data.get(f"{side}_level", data.get("level", 2)), f"{side} level", 1, 5, int)
            minutes = data.get(f"{side}_minutes", data.get("minutes", 0))
            minutes = _number(minutes, f"{side} minutes", 0, MAX_MINUTES, float)
            clocks[side] = round(minutes * 60000) if minutes > 0 else None
        mine = data.get("mine", list(SIDES))
        if not isinstance(mine, list) or any(side not in SIDES for side in mine):
            raise RequestError("mine must be a list of sides")
        return cls(variant, players, levels, clocks, tuple(side for side in SIDES if side in mine))


def _number(value, name: str, low, high, kind):
    if isinstance(value, bool):
        raise RequestError(f"{name} must be a number")
    try:
        number = kind(float(value)) if kind is int else kind(value)
    except (TypeError, ValueError):
        raise RequestError(f"{name} must be a number") from None
    if not low <= number <= high or number != number:
        raise RequestError(f"{name} must be between {low} and {high}")
    return number


@dataclass
class Ending:
    """How the game ended: winner ('white', 'black' or None), the engine's reason or
    'time' / 'ended', and the course file's gameEnd value (None: written without one)."""

    winner: str | None
    reason: str
    description: str | None

    def text(self) -> str:
        if self.reason == "ended":
            return "Game ended"
        return f"{RESULT_TEXT[self.winner]} ({self.reason})"


class Room:
    """One game: position, players, clocks, seats, history, pause and end."""

    def __init__(self, room_id: str, settings: Settings, clock=time.monotonic):
        self.id = room_id
        self.clock = clock
        self.owner = secrets.token_urlsafe(18)
        self.tokens = {side: secrets.token_urlsafe(18) if settings.players[side] == "human" else None
                       for side in SIDES}
        self.claimed = {side: side in settings.mine for side in SIDES}
        self.viewers = 0
        self.ever_viewed = False
        self.idle_paused = False  # paused because no page shows a game with a computer player
        self.start(settings)

    # -- a new game or a loaded one ---------------------------------------------------------

    def start(self, settings: Settings, game: Game | None = None, settle: bool = True) -> None:
        self.settings = settings
        self.players = dict(settings.players)
        self.levels = dict(settings.levels)
        self.game = game if game is not None else Game(settings.variant)
        self.initial = dict(settings.clocks_ms)
        self.clocks = dict(settings.clocks_ms)
        self.history: list[tuple[str, str, int | None, str | None]] = []  # the course file's moves
        self.plies: list[dict] = []  # what the page lists: {side, move, pass}
        self.ending: Ending | None = None
        self.paused = False
        self.notice = ""
        self.last_move: list[str] | None = None
        self.turn_started = self.clock()
        self.version = getattr(self, "version", 0) + 1
        if settle:
            self.settle()

    # -- clocks ------------------------------------------------------------------------------

    def running_side(self) -> str | None:
        if self.ending is not None or self.paused:
            return None
        return self.game.turn

    def clock_left(self, side: str) -> int | None:
        """Milliseconds left on `side`'s clock now (None: untimed)."""
        left = self.clocks[side]
        if left is None:
            return None
        if self.running_side() == side:
            left -= int((self.clock() - self.turn_started) * 1000)
        return left

    def _charge(self) -> None:
        """Stop the running clock: what it spent comes off its time."""
        side = self.running_side()
        if side is not None and self.clocks[side] is not None:
            self.clocks[side] = self.clock_left(side)
        self.turn_started = self.clock()

    def check_flag(self) -> bool:
        """End the game if the running clock has run out; True when it did."""
        side = self.running_side()
        if side is None or self.clocks[side] is None or self.clock_left(side) > 0:
            return False
        self.clocks[side] = 0
        self.ending = Ending(other(side), "time", "timeExpired")
        self.notice = f"{side.capitalize()}'s time has run out"
        self.version += 1
        return True

    def flag_delay(self) -> float | None:
        """Seconds until the running clock runs out (None: no clock runs)."""
        side = self.running_side()
        if side is None or self.clocks[side] is None:
            return None
        return max(0.0, self.clock_left(side) / 1000)

    # -- seats -------------------------------------------------------------------------------

    def seats_of(self, tokens) -> list[str]:
        """The sides whose secret is among `tokens` (compared in constant time)."""
        found = []
        for side in SIDES:
            secret = self.tokens[side]
            if secret is not None and any(isinstance(t, str) and secrets.compare_digest(t, secret) for t in tokens):
                found.append(side)
        return found

    def controls(self, tokens) -> bool:
        """Whether `tokens` may pause, end or load this game (the creator or a seated player)."""
        owner = any(isinstance(t, str) and secrets.compare_digest(t, self.owner) for t in tokens)
        return owner or bool(self.seats_of(tokens))

    def take_free_seat(self) -> str | None:
        """A human seat nobody has taken, now taken; None when there is none (a spectator)."""
        for side in SIDES:
            if self.tokens[side] is not None and not self.claimed[side]:
                self.claimed[side] = True
                return side
        return None

    # -- moves -------------------------------------------------------------------------------

    def play(self, text: str, tokens) -> None:
        """Play the human move `text` for the seat whose token is among `tokens`."""
        if not isinstance(text, str) or not text or len(text) > 16:
            raise RequestError("no move given")
        if self.ending is not None:
            raise RequestError("the game is over")
        if self.paused:
            raise RequestError("the game is paused")
        side = self.game.turn
        if self.players[side] != "human":
            raise RequestError(f"it is the computer's turn ({side})", 409)
        if side not in self.seats_of(tokens):
            raise RequestError(f"only the {side} player may move now", 403)
        if self.check_flag():
            raise RequestError("time has run out", 409)
        move = self._legal(text)
        if move is None:
            raise RequestError(f"illegal move: {text}")
        self.push(move)

    def _legal(self, text: str):
        try:
            move = self.game.parse_move(text.strip())
        except Exception:
            return None
        return move if self.game.is_legal(move) and not move.is_pass else None

    def push(self, move) -> None:
        """Play the legal `move` for the side to move: clock, record, then settle."""
        side = self.game.turn
        self._charge()
        self.game.push(move)
        promotion = None if move.promotion in (None, "q") else PROMOTION_NAMES.get(move.promotion, move.promotion)
        self.history.append((side, move.course()[:5], self.clocks[side], promotion))
        self.plies.append({"side": side, "move": move.course(), "pass": False})
        self.last_move = [move.uci()[:2], move.uci()[2:4]]
        self.notice = ""
        self.version += 1
        self.settle()

    def settle(self) -> None:
        """After a move, a start or a load: end the game if the rules say so, and play the
        pass of a side that has no move (course rules), with a notice."""
        for _ in range(3):
            if self.ending is not None:
                return
            outcome = self.game.outcome()
            if outcome is not None:
                self.ending = Ending(outcome.winner, outcome.reason, None)
                self.version += 1
                return
            legal = self.game.legal_moves()
            if len(legal) == 1 and legal[0].is_pass:
                side = self.game.turn
                self.game.push(legal[0])
                self.plies.append({"side": side, "move": "pass", "pass": True})
                self.notice = f"{side.capitalize()} has no legal move and passes"
                self.version += 1
                continue
            return

    def end(self) -> None:
        """End Game: stop the game where it stands, with no winner."""
        if self.ending is None:
            self._charge()
            self.ending = Ending(None, "ended", None)
            self.version += 1

    def set_paused(self, paused: bool) -> None:
        if self.ending is not None or paused == self.paused:
            return
        self._charge()
        self.paused = paused
        self.idle_paused = False
        self.version += 1

    def computer_to_move(self) -> bool:
        return self.ending is None and not self.paused and self.players[self.game.turn] == "computer"

    # -- what the page shows ------------------------------------------------------------------

    def legal_moves(self) -> list[str]:
        if self.ending is not None or self.paused:
            return []
        return [move.uci() for move in self.game.legal_moves() if not move.is_pass]

    def status(self) -> str:
        if self.ending is not None:
            return self.ending.text()
        if self.paused:
            return "Paused"
        side = self.game.turn
        who = "computer" if self.players[side] == "computer" else "human"
        return f"{side.capitalize()} to move ({who})"

    def state(self) -> dict:
        """Everything a page shows, as JSON-ready data (no secrets)."""
        board = {}
        for file in "abcdefgh":
            for rank in "12345678":
                letter = self.game.piece_at(file + rank)
                if letter is not None:
                    board[file + rank] = letter
        ending = None
        if self.ending is not None:
            ending = {"winner": self.ending.winner, "reason": self.ending.reason, "text": self.ending.text()}
        seats = {}
        for side in SIDES:
            if self.players[side] == "computer":
                seats[side] = "computer"
            else:
                seats[side] = "taken" if self.claimed[side] else "free"
        return {
            "id": self.id, "version": self.version, "variant": self.game.variant,
            "promotion": self.game.rules.promotion, "players": self.players, "levels": self.levels,
            "board": board, "fen": self.game.fen(), "turn": self.game.turn, "legal": self.legal_moves(),
            "history": self.plies, "last_move": self.last_move, "notice": self.notice,
            "clocks": {side: self.clock_left(side) for side in SIDES}, "running": self.running_side(),
            "paused": self.paused, "over": ending, "status": self.status(), "seats": seats,
        }

    # -- files -------------------------------------------------------------------------------

    def course_xml(self) -> str:
        """The game as a course XML file (the TextUI's writer)."""
        from engine import coursefile

        history = [coursefile.HistoryEntry(side, value, left, promotion)
                   for side, value, left, promotion in self.history]
        timing = None
        if self.initial["white"] is not None and self.initial["black"] is not None:
            timing = coursefile.Timing(self.initial["white"], self.initial["black"],
                                       max(0, self.clock_left("white")), max(0, self.clock_left("black")))
        over = None
        if self.ending is not None and self.ending.reason == "time":
            over = coursefile.GameOver(self.ending.winner, "timeExpired")
        elif self.ending is not None and self.ending.reason != "ended":
            over = coursefile.GameOver(self.ending.winner, coursefile.describe(self.game.outcome()))
        return coursefile.dump(self.game, history, timing, over)

    def pgn(self) -> str:
        result = "*"
        if self.ending is not None and self.ending.reason != "ended":
            result = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[self.ending.winner]
        headers = {"Event": "antichess gui game", "Site": "antichess gui",
                   "White": self._player_name("white"), "Black": self._player_name("black"), "Result": result}
        text = self.game.pgn(headers)
        if result != "*" and text.rstrip().endswith("*"):
            text = text.rstrip()[:-1] + result + "\n"
        return text

    def _player_name(self, side: str) -> str:
        if self.players[side] == "computer":
            return f"antichess engine, level {self.levels[side]}"
        return "human"

    def load(self, data: bytes) -> None:
        """Replace the game by the course file `data`; the players keep their seats and
        kinds.  A file that is not a valid game raises RequestError and changes nothing."""
        from engine import coursefile

        if len(data) > coursefile.MAX_FILE_BYTES:
            raise RequestError("Not a valid antichess game file: the file is too large", 413)
        try:
            saved = coursefile.load(data)
        except coursefile.CorruptFile as error:
            raise RequestError(f"Not a valid antichess game file: {error}") from None
        except Exception as error:  # a reader bug must not take the game down
            raise RequestError(f"Not a valid antichess game file: {type(error).__name__}") from None
        timing = saved.timing
        clocks = {"white": None, "black": None}
        initial = {"white": None, "black": None}
        if timing is not None:
            clocks = {"white": timing.current_white, "black": timing.current_black}
            initial = {"white": timing.init_white, "black": timing.init_black}
        settings = Settings(saved.game.variant, dict(self.players), dict(self.levels), initial, self.settings.mine)
        self.start(settings, saved.game, settle=False)
        self.clocks = clocks
        self.history = [(e.side, e.value, e.time, e.promotion) for e in saved.history]
        self.plies = self._plies_of(saved)
        if saved.over is not None and self.ending is None:
            if saved.over.description == "timeExpired":
                self.ending = Ending(saved.over.winner, "time", "timeExpired")
        if self.plies:
            last = next((p for p in reversed(self.plies) if not p["pass"]), None)
            if last is not None:
                self.last_move = [last["move"][:2], last["move"][3:5]]
        self.notice = "Game loaded"
        self.version += 1
        self.settle()

    @staticmethod
    def _plies_of(saved) -> list[dict]:
        if saved.replayed:
            plies, replay = [], Game(saved.game.variant)
            for move in saved.game.move_stack:
                side = replay.turn
                replay.push(move)
                plies.append({"side": side, "move": move.course(), "pass": move.is_pass})
            return plies
        return [{"side": e.side, "move": e.value, "pass": False} for e in saved.history]


class Lobby:
    """The games of one server, by id.  At most `limit` are kept: past it, the oldest game
    no page shows is forgotten."""

    def __init__(self, limit: int = 500, clock=time.monotonic):
        self.rooms: dict[str, Room] = {}
        self.limit = limit
        self.clock = clock

    def create(self, settings: Settings) -> Room:
        if len(self.rooms) >= self.limit:
            for room_id, room in list(self.rooms.items()):
                if room.viewers == 0:
                    del self.rooms[room_id]
                    break
            else:
                raise RequestError("too many games on this server", 503)
        room_id = secrets.token_urlsafe(6)
        room = Room(room_id, settings, self.clock)
        self.rooms[room_id] = room
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RequestError("no such game", 404)
        return room

"""The referee: plays one game between two engine processes, checking every move with
`engine.Game`, and one colour-swapped pair of games on one opening.

Results come from the board (`Game.outcome`), from the referee's own adjudication
settings, or from a forfeit; never from an engine's claim.  A forfeit is decided when an
engine crashes or closes its output, stalls (no answer to isready/ping within the
protocol timeout), runs out of time (move later than its clock plus its time margin),
prints something that is not a move ("garbage"), or plays a move the rules do not allow.
After a forfeit the engine is killed and started afresh for the next game.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from typing import Callable

from engine import pgn_score

from .engines import (
    MOVE_RE, ConfigError, EngineConfig, EngineFailure, EngineProcess, MoveRequest, open_engine,
)
from .pgn import PgnGame, render, san
from .timecontrol import Clock

# PGN Termination values (PGN standard 9.8.1, plus the two cutechess adds).
TERMINATION = {
    None: "normal", "time": "time forfeit", "illegal": "illegal move", "crash": "abandoned",
    "stall": "stalled connection", "garbage": "rules infraction", "adjudication": "adjudication",
    "resign": "normal",
}
DEFAULT_MAXMOVES_NO_DRAW_RULES = 200
DEFAULT_REPETITION_NO_DRAW_RULES = 3


@dataclass(frozen=True)
class DrawAdjudication:
    """cutechess `-draw`: from move `movenumber`, a draw when both engines' last `movecount`
    scores are within `score` centipawns of zero."""

    movenumber: int
    movecount: int
    score: int


@dataclass(frozen=True)
class ResignAdjudication:
    """cutechess `-resign`: a loss for an engine whose last `movecount` scores are all at or
    below -`score` (with `twosided`, the opponent's must also be at or above +`score`)."""

    movecount: int
    score: int
    twosided: bool = False


@dataclass(frozen=True)
class RefereeSettings:
    """The referee's own rules: adjudication and the caps for rule sets without draw rules.

    `maxmoves` (full moves, 0: none) and `repetition` (a draw the N-th time a position
    recurs, 0: off) default, when None, to 200 and 3 for rule sets whose `draw_rules` is
    false (mit-antichess, antiking-antichess, hackerrank) and to off for the others, whose
    own fifty-move and repetition rules apply (as claimed draws).
    """

    maxmoves: int | None = None
    repetition: int | None = None
    draw: DrawAdjudication | None = None
    resign: ResignAdjudication | None = None

    def effective(self, draw_rules: bool) -> tuple[int, int]:
        """(maxmoves, repetition) in force for a rule set."""
        maxmoves = self.maxmoves
        repetition = self.repetition
        if maxmoves is None:
            maxmoves = 0 if draw_rules else DEFAULT_MAXMOVES_NO_DRAW_RULES
        if repetition is None:
            repetition = 0 if draw_rules else DEFAULT_REPETITION_NO_DRAW_RULES
        return maxmoves, repetition


@dataclass(frozen=True)
class Opening:
    """A start position and moves to play from it before the engines take over."""

    fen: str | None = None  # None: the rule set's start position
    moves: tuple[str, ...] = ()
    index: int = -1
    name: str = ""


@dataclass
class GameRecord:
    """A finished game as the store and the reports need it."""

    white: str
    black: str
    variant: str
    start_fen: str
    moves: list[str]
    result: str
    termination: str
    reason: str
    forfeit: str | None  # failure kind of a forfeited game
    loser_forfeit: str | None  # 'white'/'black' who forfeited
    pgn: str
    plies: int
    duration: float
    pair: int = -1
    slot: int = -1
    round: int = 0
    engine_a: str = ""
    engine_b: str = ""
    opening: int = -1
    claims: list[str] = field(default_factory=list)

    def score_for(self, name: str) -> float:
        """Points of engine `name` in this game (1, 0.5 or 0)."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if (name == self.white) == white_won else 0.0


class Seat:
    """One engine of a pair: its config and (re)started process."""

    def __init__(self, config: EngineConfig, interrupted: Callable[[], bool] | None = None):
        self.config = config
        self.proc: EngineProcess | None = None
        self.broken = False
        self.games = 0
        self.interrupted = interrupted  # the tournament's stop request, asked while waiting

    def ready(self) -> EngineProcess:
        """The running process, started (or restarted) if needed."""
        if self.proc is not None and (self.broken or not self.proc.alive or
                                      (self.config.restart and self.games > 0) or
                                      (self.proc.protocol == "xboard" and self.games > 0 and
                                       getattr(self.proc, "features", {}).get("reuse", "1") == "0")):
            self.proc.quit() if not self.broken else self.proc.kill()
            self.proc = None
        if self.proc is None:
            self.broken = False
            proc = open_engine(self.config, self.interrupted)
            self.proc = proc
            proc.start()
        return self.proc

    def close(self) -> None:
        """Quit the process."""
        if self.proc is not None:
            if self.broken:
                self.proc.kill()
            else:
                self.proc.quit()
            self.proc = None


def _colour(side: str) -> str:
    return side.capitalize()


def _other(side: str) -> str:
    return "black" if side == "white" else "white"


def _position_key(fen: str) -> str:
    return " ".join(fen.split()[:4])


def _score_text(score: int | None, depth: int | None, elapsed: float) -> str:
    """A move's PGN comment as cutechess writes it: score (engine.scaled_score scale)/depth time."""
    head = "" if score is None else pgn_score(score)
    if head and depth is not None:
        head += f"/{depth}"
    return f"{head} {elapsed:.3f}s".strip()


def play_game(white: Seat, black: Seat, variant: str, opening: Opening,
              settings: RefereeSettings, tags: dict | None = None,
              should_stop: Callable[[], bool] | None = None) -> GameRecord | None:
    """Play one game; None if `should_stop` asked to abandon it (nothing is recorded)."""
    from engine import Game, IllegalMoveError, InvalidMoveError, Limits

    started = time.monotonic()
    game = Game(variant, opening.fen)
    for move in opening.moves:
        game.push(move)
    rules = game.rules
    start_fen = game.start_fen
    seats = {"white": white, "black": black}
    names = {"white": white.config.name, "black": black.config.name}
    comments: list[str | None] = []
    replay = Game(variant, opening.fen)  # SAN of the opening moves
    pgn_moves: list[str] = []
    for move in opening.moves:
        parsed = replay.parse_move(move)
        pgn_moves.append(san(replay, parsed))
        comments.append(None)
        replay.push(parsed)
    if opening.moves:
        comments[-1] = "book"
    uci_moves = [m.uci() for m in game.move_stack]
    clocks = {side: Clock(seats[side].config.time_control()) for side in seats}
    maxmoves, repetition = settings.effective(rules.draw_rules)
    positions: dict[str, int] = {_position_key(game.fen()): 1}
    scores: dict[str, list[int | None]] = {"white": [], "black": []}
    claims: list[str] = []
    result = termination = reason = None
    forfeit = loser_forfeit = None

    def lose(side: str, kind: str, text: str) -> None:
        nonlocal result, termination, reason, forfeit, loser_forfeit
        result = "0-1" if side == "white" else "1-0"
        termination = TERMINATION[kind]
        reason = text
        if kind not in ("adjudication", "resign"):
            forfeit, loser_forfeit = kind, side
            seats[side].broken = True

    def failure_text(side: str, failure: EngineFailure) -> str:
        who = _colour(side)
        if failure.kind == "time":
            return f"{who} loses on time"
        if failure.kind == "crash":
            return f"{who}'s engine {failure.detail}"
        if failure.kind == "stall":
            return f"{who}'s connection stalls ({failure.detail})"
        if failure.kind == "garbage":
            return f"{who} sends garbage: {failure.detail}"
        if failure.kind == "illegal":
            return f"{who} {failure.detail}"
        return f"{who}: {failure.detail}"

    # start both engines and set up the game
    for side in ("white", "black"):
        try:
            proc = seats[side].ready()
            proc.new_game(variant, start_fen, opening.fen is None)
        except EngineFailure as failure:
            if failure.kind in ("setup", "stopped"):
                seats[side].broken = True
            if failure.kind == "setup":
                raise ConfigError(f"{names[side]}: {failure.detail}") from None
            if failure.kind == "stopped":
                return None
            lose(side, failure.kind, failure_text(side, failure))
            break
    for side in seats:
        seats[side].games += 1

    while result is None:
        outcome = game.outcome(claim_draw=rules.draw_rules)
        if outcome is not None:
            result = outcome.result
            termination = "normal"
            reason = (f"{_colour(outcome.winner)} wins ({outcome.reason})" if outcome.winner
                      else f"Draw ({outcome.reason})")
            break
        if repetition and positions.get(_position_key(game.fen()), 0) >= repetition:
            result, termination = "1/2-1/2", "adjudication"
            reason = f"Draw by adjudication: {repetition}-fold repetition"
            break
        engine_plies = len(game.move_stack) - len(opening.moves)
        if maxmoves and engine_plies >= 2 * maxmoves:
            result, termination = "1/2-1/2", "adjudication"
            reason = f"Draw by adjudication: move cap ({maxmoves} moves)"
            break
        if should_stop is not None and should_stop():
            return None
        side = game.turn
        seat, clock, opp_clock = seats[side], clocks[side], clocks[_other(side)]
        config = seat.config
        margin = config.timemargin / 1000.0
        budget = clock.budget()
        own_time = max(0.0, clock.remaining) if not clock.tc.is_fixed and clock.timed else None
        opp_time = max(0.0, opp_clock.remaining) if not opp_clock.tc.is_fixed and opp_clock.timed else None
        if own_time is not None and opp_time is None:
            opp_time = own_time
        times, incs = (own_time, opp_time), (clock.tc.increment, opp_clock.tc.increment)
        if side == "black":
            times, incs = times[::-1], incs[::-1]
        limits = Limits(wtime=times[0], btime=times[1], winc=incs[0], binc=incs[1],
                        movestogo=clock.moves_to_go(), movetime=clock.tc.per_move,
                        depth=config.depth, nodes=config.nodes)
        request = MoveRequest(limits, mover=side, deadline=None if budget is None else budget + margin)
        try:
            reply = seat.proc.play(uci_moves, request)
        except EngineFailure as failure:
            if failure.kind == "stopped":  # abandoned mid-move: killed, nothing recorded
                seat.broken = True
                return None
            lose(side, failure.kind, failure_text(side, failure))
            break
        claims.extend(f"{_colour(side)}: {claim}" for claim in reply.claims)
        if reply.resigned:
            lose(side, "resign", f"{_colour(side)} resigns")
            break
        if clock.is_flagged(reply.elapsed, margin):
            lose(side, "time", f"{_colour(side)} loses on time")
            break
        text = (reply.text or "").strip()
        if not MOVE_RE.match(text):
            lose(side, "garbage", f"{_colour(side)} sends garbage: {text[:40]!r}")
            break
        if text == "@@@@":
            text = "0000"
        try:
            move = game.parse_move(text)
        except InvalidMoveError:
            lose(side, "garbage", f"{_colour(side)} sends garbage: {text[:40]!r}")
            break
        except IllegalMoveError as error:
            if (text[:2] == text[2:4] and any(m.is_pass for m in game.legal_moves())):
                move = next(m for m in game.legal_moves() if m.is_pass)  # Fairy-Stockfish's pass
            else:
                lose(side, "illegal", f"{_colour(side)} makes an illegal move: {text} ({error.reason})")
                break
        pgn_moves.append(san(game, move))
        game.push(move)
        uci_moves.append(move.uci())
        clock.punch(reply.elapsed)
        comments.append(_score_text(reply.score, reply.depth, reply.elapsed))
        scores[side].append(reply.score)
        key = _position_key(game.fen())
        positions[key] = positions.get(key, 0) + 1
        verdict = _adjudicate(settings, scores, side, game)
        if verdict is not None:
            kind, loser, text_reason = verdict
            if loser is None:
                result, termination, reason = "1/2-1/2", "adjudication", text_reason
            else:
                lose(loser, "adjudication", text_reason)

    for side in ("white", "black"):
        seat = seats[side]
        if seat.proc is not None and not seat.broken:
            seat.proc.end_game(result, reason)
    now = _dt.datetime.now()
    tag_values = dict(tags or {})
    tag_list = [
        ("Event", tag_values.get("Event", "?")), ("Site", tag_values.get("Site", "?")),
        ("Date", now.strftime("%Y.%m.%d")), ("Round", tag_values.get("Round", "?")),
        ("White", names["white"]), ("Black", names["black"]), ("Result", result),
        ("Variant", variant), ("FEN", start_fen), ("SetUp", "1"),
        ("TimeControl", _tc_tag(white.config, black.config)),
        ("Termination", termination), ("PlyCount", str(len(game.move_stack))),
        ("Time", now.strftime("%H:%M:%S")),
    ]
    if opening.name:
        tag_list.append(("Opening", opening.name))
    record_pgn = render(PgnGame(tag_list, start_fen, pgn_moves, comments, result, reason))
    return GameRecord(
        white=names["white"], black=names["black"], variant=variant, start_fen=start_fen,
        moves=uci_moves, result=result, termination=termination, reason=reason,
        forfeit=forfeit, loser_forfeit=loser_forfeit, pgn=record_pgn,
        plies=len(game.move_stack), duration=time.monotonic() - started, claims=claims,
    )


def _tc_tag(white: EngineConfig, black: EngineConfig) -> str:
    def one(config: EngineConfig) -> str:
        text = config.time_control().pgn_tag()
        if config.depth:
            text += f" depth {config.depth}"
        if config.nodes:
            text += f" nodes {config.nodes}"
        return text
    a, b = one(white), one(black)
    return a if a == b else f"{a} : {b}"


def _adjudicate(settings: RefereeSettings, scores: dict, mover: str, game) -> tuple | None:
    """Score-based adjudication after `mover`'s move: (kind, loser or None, reason)."""
    resign = settings.resign
    if resign is not None and resign.movecount > 0:
        last = scores[mover][-resign.movecount:]
        if len(last) == resign.movecount and all(s is not None and s <= -resign.score for s in last):
            other = scores[_other(mover)][-resign.movecount:]
            if not resign.twosided or (len(other) == resign.movecount and
                                       all(s is not None and s >= resign.score for s in other)):
                return ("adjudication", mover,
                        f"{_colour(mover)} loses by adjudication (score at most "
                        f"-{resign.score} cp for {resign.movecount} moves)")
    draw = settings.draw
    if draw is not None and draw.movecount > 0:
        fullmove = int(game.fen().split()[5]) if len(game.fen().split()) > 5 else 1
        if fullmove >= draw.movenumber:
            ok = True
            for side in ("white", "black"):
                last = scores[side][-draw.movecount:]
                if len(last) < draw.movecount or not all(s is not None and abs(s) <= draw.score for s in last):
                    ok = False
            if ok:
                return ("adjudication", None,
                        f"Draw by adjudication (scores within {draw.score} cp for "
                        f"{draw.movecount} moves)")
    return None


def play_pair(configs: tuple[EngineConfig, EngineConfig], variant: str, opening: Opening,
              settings: RefereeSettings, slots: tuple[int, ...] = (0, 1),
              tags: dict | None = None,
              should_stop: Callable[[], bool] | None = None,
              on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play the colour-swapped pair on one opening: slot 0 has configs[0] as White, slot 1
    configs[1].  Only the slots listed are played (a resumed pair plays what is missing).
    Engines are started for the pair and always stopped at the end."""
    seats = (Seat(configs[0], should_stop), Seat(configs[1], should_stop))
    records: list[GameRecord] = []
    try:
        for slot in slots:
            white, black = (seats[0], seats[1]) if slot == 0 else (seats[1], seats[0])
            record = play_game(white, black, variant, opening, settings, tags, should_stop)
            if record is None:
                break
            record.slot = slot
            record.opening = opening.index
            records.append(record)
            if on_game is not None:
                on_game(record)
    finally:
        for seat in seats:
            seat.close()
    return records

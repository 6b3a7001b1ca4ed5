"""Time controls and clocks, as cutechess-cli understands them.

``tc=`` is ``[MOVES/]TIME[+INC]`` with TIME in seconds or ``MIN:SEC`` and INC in seconds:
``40/60`` (40 moves in 60 s, repeating), ``10+0.1`` (sudden death with 0.1 s increment),
``40/1:30+0.5``, ``inf``.  ``st=`` is a fixed time per move in seconds.  A move is lost on
time when it takes longer than the time left (or ``st``) plus the engine's ``timemargin``
(milliseconds), exactly as cutechess decides it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class TimeControlError(ValueError):
    """A time control string that cannot be read."""


def _parse_seconds(text: str) -> float:
    """Seconds from `S`, `S.s` or `M:S`."""
    try:
        if ":" in text:
            minutes, _, seconds = text.partition(":")
            value = int(minutes) * 60 + float(seconds)
        else:
            value = float(text)
    except ValueError:
        raise TimeControlError(f"bad time {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise TimeControlError(f"bad time {text!r}")
    return value


@dataclass(frozen=True)
class TimeControl:
    """One side's time control: `base` seconds per session of `moves` moves (0: whole game),
    `increment` seconds per move, or a fixed `per_move` time, or `infinite`."""

    base: float = 0.0
    increment: float = 0.0
    moves: int = 0
    per_move: float | None = None
    infinite: bool = False

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """Read a cutechess `tc=` value."""
        text = text.strip()
        if text in ("inf", "infinite"):
            return cls(infinite=True)
        moves = 0
        if "/" in text:
            head, _, text = text.partition("/")
            try:
                moves = int(head)
            except ValueError:
                raise TimeControlError(f"bad moves per session {head!r}") from None
            if moves <= 0:
                raise TimeControlError("moves per session must be positive")
        inc = 0.0
        if "+" in text:
            text, _, inc_text = text.partition("+")
            inc = _parse_seconds(inc_text)
        base = _parse_seconds(text)
        if base <= 0 and inc <= 0:
            raise TimeControlError("a time control needs some time")
        return cls(base=base, increment=inc, moves=moves)

    @classmethod
    def fixed(cls, seconds: float) -> "TimeControl":
        """A fixed time per move (cutechess `st=`)."""
        if not math.isfinite(seconds) or seconds <= 0:
            raise TimeControlError("st must be a positive number of seconds")
        return cls(per_move=seconds)

    @property
    def is_fixed(self) -> bool:
        """True for a fixed time per move."""
        return self.per_move is not None

    def pgn_tag(self) -> str:
        """The PGN TimeControl tag value ('40/60', '10+0.1', '-', ...)."""
        if self.infinite:
            return "-"
        if self.per_move is not None:
            return f"{_fmt(self.per_move)}/move"
        text = _fmt(self.base)
        if self.increment:
            text += "+" + _fmt(self.increment)
        if self.moves:
            text = f"{self.moves}/{text}"
        return text

    def __str__(self) -> str:
        return self.pgn_tag()


def _fmt(seconds: float) -> str:
    return f"{seconds:g}"


class Clock:
    """One side's clock during a game."""

    def __init__(self, tc: TimeControl):
        self.tc = tc
        self.remaining = tc.base if not tc.is_fixed else tc.per_move
        self.moves_made = 0

    @property
    def timed(self) -> bool:
        """False when the side has no time limit at all."""
        return not self.tc.infinite

    def budget(self) -> float | None:
        """Seconds this move may take before the margin (None: unlimited)."""
        if self.tc.infinite:
            return None
        if self.tc.is_fixed:
            return self.tc.per_move
        return self.remaining

    def moves_to_go(self) -> int | None:
        """Moves left to the next time control (None for sudden death)."""
        if self.tc.moves:
            return self.tc.moves - self.moves_made % self.tc.moves
        return None

    def is_flagged(self, elapsed: float, margin: float) -> bool:
        """Would a move that took `elapsed` seconds lose on time?"""
        budget = self.budget()
        return budget is not None and elapsed > budget + margin

    def punch(self, elapsed: float) -> None:
        """Charge a finished move: subtract its time, add the increment and new sessions."""
        self.moves_made += 1
        if self.tc.infinite or self.tc.is_fixed:
            return
        self.remaining -= elapsed
        self.remaining += self.tc.increment
        if self.tc.moves and self.moves_made % self.tc.moves == 0:
            self.remaining += self.tc.base

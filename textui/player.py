"""The computer player: picks a move with the engine's searcher inside a budget taken from
its clock, so that it never thinks past the time it has."""

from __future__ import annotations

from dataclasses import dataclass

UNTIMED_BUDGET = 1.0  # seconds per move when the computer's clock is unlimited
MAX_BUDGET = 5.0  # seconds: no single move gets more, however long the clock
MOVES_TO_GO = 40  # a timed move gets the remaining time divided by this
SHALLOW_BELOW = 1.0  # seconds left: below this, a one-ply search, no timed search at all


@dataclass
class ComputerPlayer:
    """Chooses moves for the computer side; keeps the searcher (and its hash table) across moves."""

    untimed_budget: float = UNTIMED_BUDGET
    max_budget: float = MAX_BUDGET

    def __post_init__(self) -> None:
        self._searcher = None

    def new_game(self) -> None:
        """Forget what the searcher learnt in an earlier game."""
        if self._searcher is not None:
            self._searcher.new_game()

    def limits(self, remaining_ms: int | None):
        """The engine search limits for a move with `remaining_ms` on the clock (None: untimed).

        Timed: a 40th of the time left, at most `max_budget`; with under a second left, a
        one-ply search (about a millisecond), so the budget stays well inside the clock.
        """
        from engine import Limits

        if remaining_ms is None:
            return Limits(movetime=self.untimed_budget, overhead=0.0)
        seconds = min(remaining_ms, 10**9) / 1000.0  # clocks may be longer than a float holds
        if seconds < SHALLOW_BELOW:
            return Limits(depth=1)
        return Limits(movetime=min(seconds / MOVES_TO_GO, self.max_budget), overhead=0.0)

    def choose(self, game, remaining_ms: int | None):
        """The move to play in `game` (an engine Game with at least one legal move)."""
        from engine import Searcher

        legal = game.legal_moves()
        if len(legal) == 1:
            return legal[0]
        if self._searcher is None:
            self._searcher = Searcher()
        result = self._searcher.search(game, self.limits(remaining_ms))
        return result.best_move if result.best_move in legal else legal[0]

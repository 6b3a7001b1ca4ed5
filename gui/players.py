"""Computer players: the engine's search for one room, run off the event loop.

A `ComputerPlayer` belongs to one room.  `start()` searches a copy of the room's game in a
worker thread (the search releases the GIL) and hands the move back to the event loop,
where it is played only if the room has not changed meanwhile (a new game, a load, a
pause, End Game all change its version).  `stop()` stops the running search at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

from engine import Limits, Searcher

from .games import LEVELS, Room

HASH_MB = 4


def limits_for(level: int, side: str, left_ms: int | None) -> Limits:
    """The engine limits of a computer at `level` whose clock shows `left_ms` (None:
    untimed): the level's depth and time a move, and never more than a 25th of the clock."""
    depth, seconds = LEVELS[level]
    if left_ms is not None:
        seconds = min(seconds, max(0.01, left_ms / 1000 / 25))
    return Limits(depth=depth, movetime=seconds, overhead=0.005)


class ComputerPlayer:
    """The search of one room's computer side(s)."""

    def __init__(self, room: Room, executor: concurrent.futures.Executor):
        self.room = room
        self.executor = executor
        self.searcher: Searcher | None = None
        self.future: asyncio.Future | None = None
        self.version = None

    @property
    def busy(self) -> bool:
        return self.future is not None and not self.future.done()

    def start(self, loop: asyncio.AbstractEventLoop, on_move) -> bool:
        """Search if the room waits for a computer move and no search runs; `on_move(room)`
        is called on the loop after a move was played.  True when a search started."""
        room = self.room
        if not room.computer_to_move() or self.busy:
            return False
        if self.searcher is None:
            self.searcher = Searcher(hash_mb=HASH_MB)
        side = room.game.turn
        limits = limits_for(room.levels[side], side, room.clock_left(side))
        version = room.version
        game = room.game.copy()
        searcher = self.searcher

        def search():
            if room.version != version:  # stopped before it started
                return None
            return searcher.search(game, limits).best_move

        self.version = version
        self.future = loop.run_in_executor(self.executor, search)

        def done(future):
            if future.cancelled() or future.exception() is not None:
                return
            move = future.result()
            if move is None or room.version != version or not room.computer_to_move():
                on_move(room, played=False)
                return
            if room.check_flag():
                on_move(room, played=True)
                return
            room.push(move)
            on_move(room, played=True)

        self.future.add_done_callback(done)
        return True

    def stop(self) -> None:
        """Stop the running search now; its move, when it comes, is dropped."""
        if self.searcher is not None and self.busy:
            self.searcher.stop()

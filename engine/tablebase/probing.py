"""Probing the tables: the value, distance and best moves of a position (`Tablebase`,
`ProbeResult`), the fifty-move rule's view from the DTZ companions (`zeroing_plies`), and
the shared Tablebase per folder that the search opens (`open_tablebase`).

The codes come from the tables a `TableStore` (engine.tablebase.residency) holds in
memory; every legal move of the position is valued by the kernel `root_moves`
(engine.tablebase.valuation) and the moves are ordered by `preference`, the order the
builder itself uses.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..jit.modes import uses_kernels
from ..rules.bitboards import MAX_MOVES, NO_SQUARE, P_EP, POS_SIZE
from ..rules.rulesets import get_rule_set
from .fileformat import CURSED, default_directory, table_variant
from .indexing import GEO, INVALID, Material, locate_many, own_material
from .residency import TableStore
from .valuation import preference, root_moves


@dataclass
class ProbeResult:
    """value 'win'/'draw'/'loss' for the side to move, distance in plies (0 for draws),
    and the moves (UCI) that keep the value, best first (for a loss: every move, longest
    resistance first)."""

    value: str
    distance: int
    moves: list[str]
    codes: list[int]


class TablebaseError(ValueError):
    """The position is not in the tables (too many pieces, castling rights, missing file)."""


def value_name(code: int) -> str:
    """'win', 'draw' or 'loss': the value of a code for the side to move."""
    return "win" if code > 0 else ("loss" if code < 0 else "draw")


class Tablebase:
    """Tables of one rule set in `directory`, loaded on first use (`store` holds them)."""

    def __init__(self, variant: str, directory=None):
        self.variant = table_variant(variant)
        self.rules = get_rule_set(self.variant)
        self._rules_array = self.rules.to_array()
        self.directory = Path(directory) if directory is not None else default_directory()
        self.store = TableStore(self.variant, self.directory)
        self.registry = self.store.registry
        self._stack = np.zeros((8, POS_SIZE), dtype=np.uint64)
        self._mlist = np.zeros((8, MAX_MOVES), dtype=np.int32)
        self._work = np.zeros(64, dtype=np.int64)
        self._moves = np.zeros(MAX_MOVES, dtype=np.int32)
        self._codes = np.zeros(MAX_MOVES, dtype=np.int64)
        self.hits = 0

    def available(self) -> list[str]:
        """The materials (names) of the DTM tables in the folder."""
        folder = self.directory / self.variant
        return sorted(p.stem for p in folder.glob("*.actb")) if folder.is_dir() else []

    def max_pieces(self) -> int:
        """The most pieces of a table in the folder (0 when it holds none)."""
        names = self.available()
        return max((len(n) - 1 for n in names), default=0)


    def reachable(self, row: np.ndarray) -> list[Material]:
        """The materials a search from `row` asks for (`TableStore.reachable`)."""
        return self.store.reachable(row)

    def search_tables(self, row: np.ndarray, wait: bool = False):
        """The (limit, tdesc, keymap, buf) a search from `row` probes below its root
        (`TableStore.search_tables`)."""
        return self.store.search_tables(row, wait)

    def unread_seconds(self, row: np.ndarray) -> float:
        """About how long reading what a probe of `row` needs would take (`TableStore.unread_seconds`)."""
        return self.store.unread_seconds(row)

    @uses_kernels
    def probe_row(self, row: np.ndarray, wait: bool = True) -> ProbeResult:
        """Probe a position row (engine.rules.bitboards layout).  TablebaseError if not in the tables."""
        error = self.store.prepare(row, wait)
        if error:
            raise TablebaseError(error)
        n = self._root_codes(row)
        if n < 0:
            code = int(self._codes[0])
            self.hits += 1
            return ProbeResult(value_name(code), abs(code) - 1 if code else 0, [], [])
        codes = [int(c) for c in self._codes[:n]]
        if any(c == INVALID for c in codes):
            raise TablebaseError("a successor's table is missing")
        from ..rules.moves import Move

        order = sorted(range(n), key=lambda i: -preference(codes[i]))
        best = codes[order[0]]
        if best < 0:
            keep = order
        else:
            keep = [i for i in order if value_name(codes[i]) == value_name(best)]
        self.hits += 1
        return ProbeResult(value_name(best), abs(best) - 1 if best else 0,
                           [Move(int(self._moves[i])).uci() for i in keep], [codes[i] for i in keep])

    @uses_kernels
    def zeroing_plies(self, game, moves: list, wait: bool = True) -> dict | None:
        """For each of `moves` (engine Moves, legal in `game`'s position), keyed by UCI text:
        (drawn, plies).  plies: the plies to the next capture or pawn move when it is played
        and both sides then follow the DTZ companion (1 for a capture or pawn move itself);
        drawn: the position after it is a win the fifty-move rule draws, or a loss it saves
        (read from its table's companion; a table without one has none).  None when the
        position's own table has no companion (or, without `wait`, it is not read yet)."""
        own = own_material(game.position())
        if own is None or self.store.dtz_table(own, wait) is None:
            return None
        out = {}
        for move in moves:
            zeroing = zeroing_move(game, move)
            game.push(move)
            row = game.position()
            game.pop()
            code = self._companion_code(row, wait)
            drawn = abs(code) >= CURSED
            distance = (abs(code) - CURSED if drawn else abs(code)) if code else 0
            out[move.uci()] = (drawn, 1 if zeroing else distance)
        return out

    def _companion_code(self, row: np.ndarray, wait: bool) -> int:
        """The DTZ-companion code of the position `row` (0 when its table has no companion,
        or it is over or outside the tables)."""
        material = own_material(row)
        if material is None or int(row[P_EP]) != NO_SQUARE:
            return 0
        dtz = self.store.dtz_table(material, wait)
        if dtz is None:
            return 0
        index = self._index(row)
        code = int(dtz[index]) if index >= 0 else 0
        return 0 if code == INVALID else code

    def _root_codes(self, row: np.ndarray) -> int:
        """`root_moves` on `row`: its legal moves and their codes into self._moves and
        self._codes; returns their count (negative: the position's own code is self._codes[0])."""
        self._stack[0] = row
        return int(root_moves(self._stack, self._rules_array, self._mlist, self.registry.tdesc,
                              self.store.keymap, GEO, self.store.buf, self._work, self._moves, self._codes))

    def _index(self, row: np.ndarray) -> int:
        """The index of `row` in its table (negative when no table holds it)."""
        tids, indexes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        locate_many(row[None, :], self.registry.tdesc, self.registry.keymap, GEO, np.zeros(64, dtype=np.int64),
                    tids, indexes)
        return int(indexes[0])

    @uses_kernels
    def exercise(self) -> None:
        """Call the kernels of a probe once, on a 3-piece position whose tables need not be
        there (missing ones only make the codes INVALID), so that they are compiled, or loaded
        from the disk cache, before a clock runs: the engine's warm-up calls this.  Otherwise
        the first probe of a process on a cold cache compiles them on the clock (about 17 s
        here)."""
        from ..rules.fen import parse_fen

        row = parse_fen("8/8/8/8/8/8/1p6/KN6 w - - 0 1", self.rules)
        self._root_codes(row)
        self._index(row)
        preference(int(self._codes[0]))

    def probe(self, game, wait: bool = True) -> ProbeResult:
        """Probe a `Game`'s current position; without `wait`, TablebaseError(NOT_READ) while
        the tables it needs are still being read in the background (a player's clock runs)."""
        if table_variant(game.variant) != self.variant:
            raise TablebaseError(f"tables are for {self.variant}, game is {game.variant}")
        return self.probe_row(game.position(), wait)

    def probe_fen(self, fen: str) -> ProbeResult:
        """Probe the position of a FEN under the tables' rule set."""
        from ..rules.fen import parse_fen

        return self.probe_row(parse_fen(fen, self.rules))


def zeroing_move(game, move) -> bool:
    """Whether `move` (legal in `game`) resets the halfmove clock: a capture or a pawn move."""
    return move.is_capture or game.piece_at(move.from_square) in ("P", "p")


OPENED: dict[tuple[str, str], tuple[Tablebase | None, float]] = {}  # open_tablebase's: (rule set, folder)
_RECHECK_SECONDS = 10.0  # how long "no tables in this folder" is believed


def open_tablebase(variant: str, directory=None) -> Tablebase | None:
    """A shared Tablebase for `variant` in `directory` (default folder when None), or None
    when the rule set has no tables or the folder holds none (checked again after a while)."""
    try:
        name = table_variant(variant)
    except ValueError:
        return None
    folder = Path(directory) if directory else default_directory()
    key = (name, str(folder))
    tb, checked = OPENED.get(key, (None, 0.0))
    if tb is None and time.monotonic() - checked > _RECHECK_SECONDS:
        folder_of_tables = folder / name
        if folder_of_tables.is_dir() and any(folder_of_tables.glob("*.actb")):
            tb = Tablebase(name, folder)
        OPENED[key] = (tb, time.monotonic())
    return tb

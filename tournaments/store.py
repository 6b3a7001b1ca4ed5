"""The results store: one SQLite file per tournament.

Tables: `meta` (the tournament's identity as JSON, its seed, the PGN output state) and
`games`, keyed by (pair, slot), so a game can be stored once only.  The two games of a
pair are written in one transaction: a killed tournament leaves only whole, committed pairs
behind, and resuming plays exactly the pairs that are missing.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

from .referee import GameRecord

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    pair INTEGER NOT NULL,
    slot INTEGER NOT NULL CHECK (slot IN (0, 1)),
    round INTEGER NOT NULL,
    engine_a TEXT NOT NULL,
    engine_b TEXT NOT NULL,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    opening INTEGER NOT NULL,
    result TEXT NOT NULL CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
    termination TEXT NOT NULL,
    reason TEXT NOT NULL,
    forfeit TEXT,
    loser_forfeit TEXT,
    plies INTEGER NOT NULL,
    duration REAL NOT NULL,
    finished REAL NOT NULL,
    seq INTEGER NOT NULL,
    pgn TEXT NOT NULL,
    pgn_written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (pair, slot)
);
"""


_SIZE_KEYS = ("games", "rounds")  # how many games: never part of a tournament's identity


class StoreError(Exception):
    """The database cannot be used for this tournament."""


class Store:
    """An open results database."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path}: {error}") from None

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- meta ----------------------------------------------------------------------------

    def get_meta(self, key: str):
        """A stored JSON value, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, key: str, value) -> None:
        """Store a JSON value."""
        with self._transaction():
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                            (key, json.dumps(value, sort_keys=True)))

    def bind(self, identity: dict, seed: int, games: int | None = None) -> int:
        """Bind the store to a tournament: a new store records `identity` and `seed`; an
        existing one must hold the same identity, and its stored seed is returned.

        The number of games (`games` per encounter, recorded as meta `games`) is not part of
        the identity: the same tournament may be run again with more games, which extends it.
        Stores written before that rule kept `games` and `rounds` in the identity; they are
        ignored there."""
        stored = self.get_meta("identity")
        if stored is None:
            with self._transaction():
                for key, value in (("identity", identity), ("seed", seed),
                                   ("schema", SCHEMA_VERSION), ("created", time.time())):
                    self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                    (key, json.dumps(value, sort_keys=True)))
        else:
            current = json.loads(json.dumps(identity, sort_keys=True))
            stored = {k: v for k, v in stored.items() if k not in _SIZE_KEYS}
            current = {k: v for k, v in current.items() if k not in _SIZE_KEYS}
            if stored != current:
                differ = sorted(k for k in set(stored) | set(current) if stored.get(k) != current.get(k))
                raise StoreError(f"{self.path} holds a different tournament (differs in: {', '.join(differ)})")
            seed = int(self.get_meta("seed"))
        if games is not None:
            self.set_meta("games", games)
        return seed

    # -- games ---------------------------------------------------------------------------

    class _Tx:
        def __init__(self, db):
            self.db = db

        def __enter__(self):
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, kind, value, tb):
            if kind is None:
                self.db.execute("COMMIT")
            else:
                self.db.execute("ROLLBACK")

    def _transaction(self):
        return Store._Tx(self.db)

    def add_games(self, records: list[GameRecord]) -> None:
        """Store the games of one pair atomically (all or none); a duplicate is an error."""
        with self._transaction():
            seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM games").fetchone()[0]
            for record in records:
                seq += 1
                self.db.execute(
                    "INSERT INTO games (pair, slot, round, engine_a, engine_b, white, black, opening,"
                    " result, termination, reason, forfeit, loser_forfeit, plies, duration, finished,"
                    " seq, pgn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.pair, record.slot, record.round, record.engine_a, record.engine_b,
                     record.white, record.black, record.opening, record.result, record.termination,
                     record.reason, record.forfeit, record.loser_forfeit, record.plies,
                     record.duration, time.time(), seq, record.pgn))

    def done_slots(self) -> dict[int, set[int]]:
        """{pair index: slots stored}."""
        done: dict[int, set[int]] = {}
        for pair, slot in self.db.execute("SELECT pair, slot FROM games"):
            done.setdefault(pair, set()).add(slot)
        return done

    def games(self) -> list[dict]:
        """Every stored game as a dict, in the order they were stored."""
        cursor = self.db.execute("SELECT * FROM games ORDER BY seq")
        names = [c[0] for c in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    # -- PGN output ------------------------------------------------------------------------

    def unwritten_pgn(self) -> list[tuple[int, int, str]]:
        """(pair, slot, pgn) of stored games not yet appended to the PGN file, in order."""
        return list(self.db.execute(
            "SELECT pair, slot, pgn FROM games WHERE pgn_written = 0 ORDER BY seq"))

    def mark_written(self, pair: int, slot: int) -> None:
        """Record that a game's PGN has reached the PGN file."""
        with self._transaction():
            self.db.execute("UPDATE games SET pgn_written = 1 WHERE pair = ? AND slot = ?", (pair, slot))


def append_pgn(store: Store, path: str) -> int:
    """Append every stored game missing from the PGN file at `path`; returns how many.

    The file is only ever appended to (whole games, flushed and synced), never rewritten.
    A game that reached the file just before a kill, but was not yet marked, is recognised
    by the file's tail and not written twice.
    """
    pending = store.unwritten_pgn()
    count = 0
    for pair, slot, text in pending:
        data = text.encode()
        if _file_ends_with(path, data):
            store.mark_written(pair, slot)
            continue
        with open(path, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        store.mark_written(pair, slot)
        count += 1
    return count


def _file_ends_with(path: str, data: bytes) -> bool:
    try:
        size = os.path.getsize(path)
    except OSError:
        return False
    if size < len(data):
        return False
    with open(path, "rb") as handle:
        handle.seek(size - len(data))
        return handle.read() == data

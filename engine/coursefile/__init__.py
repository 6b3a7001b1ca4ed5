"""The MIT 6.170 course's game files: XML after the course schema (schema/antichess.xsd,
with `antiking` added to its piece names), read with a hardened parser and written
atomically.  Every program that saves or loads the course's games (the TextUI, the board in
the browser) uses this one reader and writer.

`gamefile` reads and writes a file (`load`, `dump`, `read_file`, `write_atomic`, the
`CorruptFile` error and the records `SavedGame`, `HistoryEntry`, `Timing`, `GameOver`);
`safexml` is the hardened XML parser it reads with (no DTD, no entities).
"""

from .gamefile import (
    COURSE_RULESETS, GAME_ENDS, MAX_FILE_BYTES, PIECE_LETTERS, PIECE_NAMES, CorruptFile, GameOver, HistoryEntry, SavedGame, Timing,
    check_schema, describe, dump, load, read_file, ruleset_name, variant_for, write_atomic,
)

SCHEMA_PATH = __import__("pathlib").Path(__file__).resolve().parent / "schema" / "antichess.xsd"

__all__ = [
    "COURSE_RULESETS", "GAME_ENDS", "MAX_FILE_BYTES", "PIECE_LETTERS", "PIECE_NAMES", "CorruptFile", "GameOver", "HistoryEntry", "SavedGame", "Timing",
    "SCHEMA_PATH", "check_schema", "describe", "dump", "load", "read_file", "ruleset_name", "variant_for",
    "write_atomic",
]

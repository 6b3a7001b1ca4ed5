"""The DTZ companion of a DTM table: plies to the next capture or pawn move under the
fifty-move rule.

A table with a win longer than DTZ_FROM_PLIES plies (40 of the 714 antichess
4-piece-or-fewer tables) also gets `<material>.actz`: for each position the plies to the
next capture or pawn move (or the end of the game) under the fifty-move rule, the winner
heading for the next capture or pawn move, the loser putting it off.  It is built by the
same forward pass as the DTM table (engine.tablebase.generate) with every capture and pawn
move counted as one ply out of the table (`zeroing`), solved once ignoring the rule and
then again reading each capture or pawn move's result from the companions below (a win the
rule draws counting as a draw), until the pawn moves inside the table settle; a position
whose allowed distance would pass FIFTY_MOVE_PLIES plies, or whose win only goes through
such positions, is stored as CURSED + the distance ignoring the rule (see `dtz_codes`).
At the root, a win too long for the clock is played by the companion (engine.search).
"""

from __future__ import annotations

import numpy as np

from .fileformat import CURSED, FIFTY_MOVE_PLIES, read_header, read_table, table_path, valid_table
from .generate import retrograde
from .indexing import INVALID

DTZ_FROM_PLIES = 98  # a table whose longest win is longer gets a DTZ companion (`needs_dtz`)


def needs_dtz(header: dict) -> bool:
    """Whether a DTM table (by its header) gets a DTZ companion: some win in it is longer
    than DTZ_FROM_PLIES, so a win played by DTM alone could meet the fifty-move rule even
    from a clock just reset."""
    return any((header["stats"][side]["longest_win"] or 0) > DTZ_FROM_PLIES for side in ("white", "black"))


def _classes(codes: np.ndarray) -> np.ndarray:
    """DTZ-companion codes as the fifty-move pass reads them: 2 a win the rule allows, -2 a
    loss it does not save, 0 a draw or a win it draws (a loss it saves), INVALID kept."""
    out = np.where((codes == 0) | (np.abs(codes.astype(np.int32)) >= CURSED), 0, 2 * np.sign(codes))
    out = out.astype(np.int16)
    out[codes == INVALID] = INVALID
    return out


def dtz_codes(variant, material, registry, parts, deps, directory, ws, progress, chunk):
    """The DTZ companion's codes of `material` (`parts`: the DTM codes of `deps`, then its own).

    First the plain distance to zeroing: every capture and pawn move counts as one ply
    whatever comes after it (the values equal the DTM table's, which is checked).  Then the
    fifty-move rule: a position after a capture or pawn move is a win the rule allows only
    if its own plain distance to zeroing, through such wins, is at most FIFTY_MOVE_PLIES.  That
    pass reads each successor across a capture or pawn move as a win, a loss or (a win the
    rule draws, or a loss it saves) a draw, from the companions of the tables it depends on
    and, for pawn moves inside the table, from the previous pass over this table, repeated
    until nothing changes (a pawn move cannot be undone, so this ends).  The codes are
    those of that pass where its value is a win or loss within 100 plies; where it is not
    (the rule draws a win that ignoring it is one), `CURSED` + the plain distance, signed."""
    dtm = parts[-1]
    timing = {"scan": 0.0, "solve": 0.0, "rounds": 0, "edges": 0, "passes": 0}

    def run(buf):
        codes, spent = retrograde(variant, material, registry, buf, ws, progress, chunk, 1)
        for key in ("scan", "solve"):
            timing[key] += spent[key]
        timing["rounds"] = max(timing["rounds"], spent["rounds"])
        timing["edges"] = spent["edges"]
        timing["passes"] += 1
        return codes

    plain = run(np.concatenate(parts))
    differ = int(np.count_nonzero(np.sign(plain) != np.sign(dtm)))
    if differ:
        raise RuntimeError(f"{material.name}: the DTZ pass values {differ} positions unlike the DTM table")
    classes = []
    for dep, codes in zip(deps, parts):
        companion = table_path(directory, variant, dep, "dtz")
        if needs_dtz(read_header(table_path(directory, variant, dep))):
            if not valid_table(companion, variant, dep, "dtz"):
                raise RuntimeError(f"{material.name}: build the DTZ companion of {dep.name} first")
            codes = read_table(companion)[1]
        classes.append(_classes(codes))
    own = _classes(plain)
    for _ in range(64):
        ruled = run(np.concatenate(classes + [own]))
        allowed = np.abs(ruled.astype(np.int32)) - 1 <= FIFTY_MOVE_PLIES
        settled = np.where(allowed, ruled, 0).astype(np.int16)
        settled[plain == INVALID] = INVALID
        if np.any((np.sign(settled) != 0) & (np.sign(settled) != np.sign(plain))):
            raise RuntimeError(f"{material.name}: the fifty-move pass turns a value around")
        if not material.pawnful or np.array_equal(_classes(settled), own):
            break
        own = _classes(settled)
    else:
        raise RuntimeError(f"{material.name}: the fifty-move pass does not settle")
    magnitude = CURSED + np.abs(plain.astype(np.int32))
    codes = np.where(settled != 0, settled, np.sign(plain) * magnitude).astype(np.int16)
    codes[plain == INVALID] = INVALID
    return codes, timing


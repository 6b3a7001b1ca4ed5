"""Scores: the search's internal scale and the one place that writes it for each surface.

Inside the search a score is centipawns for the side to move; a forced win in `p` plies is
`MATE - p`, a forced loss `p - MATE`, and every score beyond `MATE_BOUND` is such a mate.
Outside, a score is a `SearchInfo` pair (`score`, `mate`): `mate` is the number of moves to
mate (positive when the side to move mates, negative when it is mated) or None.

- UCI: `score cp N` or `score mate N` (`uci_score`).
- CECP thinking output: centipawns, a mate as 100000 + N or -100000 - N (`cecp_score`,
  the convention XBoard and Fairy-Stockfish share).
- One scale for comparing and adjudicating (a tournament referee, a root chooser):
  centipawns, a mate in N moves as +-(SCALE_MATE - N) (`scaled_score`, and the readers
  `scaled_from_uci` and `scaled_from_cecp` of other engines' output).
- PGN comments as cutechess writes them: `+1.25`, `-M3` (`pgn_score`).
"""

from __future__ import annotations

MATE = 30000  # a mate at the root (0 plies); mates in p plies score MATE - p
MATE_BOUND = MATE - 1000  # scores beyond this are mates
INFINITY = 32000  # above every score: the open window
SCALE_MATE = 100_000  # `scaled_score`: a mate in N moves is +-(SCALE_MATE - N)
CECP_MATE = 100_000  # CECP: a mate in N moves is +-(CECP_MATE + N)


def mate_in_plies(plies: int) -> int:
    """The score of a forced win `plies` plies from the node scored (plies >= 0)."""
    return MATE - plies


def mated_in_plies(plies: int) -> int:
    """The score of a forced loss `plies` plies from the node scored."""
    return plies - MATE


def is_mate(score: int) -> bool:
    """True for a score that is a forced win or loss."""
    return abs(score) > MATE_BOUND


def mate_moves(score: int) -> int | None:
    """Moves to mate of an internal score, counted as moves of the side to move until the
    game ends: positive when the side to move wins, negative when it loses, (p + 1) // 2
    for an end p plies away either way (in the losing rule sets a side can lose on its own
    move: forced to take the last piece), None when the score is no mate."""
    if score > MATE_BOUND:
        return (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return -((MATE + score + 1) // 2)
    return None


def uci_score(score: int, mate: int | None) -> str:
    """The UCI `score` field of a SearchInfo's (score, mate): 'cp N' or 'mate N'."""
    return f"mate {mate}" if mate else f"cp {score}"


def cecp_score(score: int, mate: int | None) -> int:
    """The score of CECP thinking output: centipawns, or +-(100000 + moves) for a mate."""
    if mate:
        return CECP_MATE + mate if mate > 0 else -CECP_MATE + mate
    return score


def scaled_score(score: int, mate: int | None) -> int:
    """A SearchInfo's (score, mate) on one comparable scale: centipawns, or a mate in N
    moves as SCALE_MATE - N (mated: -(SCALE_MATE - N))."""
    if mate:
        return SCALE_MATE - mate if mate > 0 else -SCALE_MATE - mate
    return score


def is_scaled_mate(value: int) -> bool:
    """True for a `scaled_score` value that is a mate."""
    return abs(value) >= SCALE_MATE - 1000


def scaled_mate_moves(value: int) -> int | None:
    """The moves to mate of a `scaled_score` value (sign as in SearchInfo.mate), or None."""
    if not is_scaled_mate(value):
        return None
    return max(1, SCALE_MATE - abs(value)) * (1 if value > 0 else -1)


def scaled_from_uci(kind: str, value: int) -> int | None:
    """A UCI `score cp N` / `score mate N` read from an engine, on the scaled scale."""
    if kind == "cp":
        return value
    if kind == "mate":
        return scaled_score(0, value) if value else None
    return None


def scaled_from_cecp(value: int) -> int:
    """A CECP thinking-output score read from an engine, on the scaled scale (mates beyond
    999 moves count as 999)."""
    if abs(value) >= CECP_MATE:
        moves = min(abs(value) - CECP_MATE, 999)
        return (SCALE_MATE - moves) * (1 if value > 0 else -1)
    return value


def pgn_score(value: int) -> str:
    """A `scaled_score` value as cutechess writes it in PGN comments: '+1.25' or '-M3'."""
    moves = scaled_mate_moves(value)
    if moves is not None:
        return f"{'+' if moves > 0 else '-'}M{abs(moves)}"
    return f"{value / 100:+.2f}"

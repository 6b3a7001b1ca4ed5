#!/usr/bin/env python3
"""Read several runs of one GSPRT as one test, pair by pair.

    python3 tools/gsprt_merge.py RUN1.pgn [RUN2.pgn ...] [--name new] [--elo0 0] [--elo1 25]
                                 [--alpha 0.1] [--beta 0.1]

A test that reaches its cap undecided may go on with a new `-srand` (docs/search.md, "How
changes are tested"); the runs then count as one sequential test.  Each PGN is one run of
the runner (`-pgnout`), whose two games of a colour-swapped pair share a `Round` tag.  A
pair counts when its second game is written, so the pairs of each run are taken in the
order they finished, and the runs one after the other.  The script prints, for the engine
`--name`, the games, W-L-D, the pentanomial Elo with its 95% interval and the LLR after
all the pairs, and the pair at which the LLR first reached a bound (the test stops there:
the figures up to that pair are printed too).  A pair with a game missing (a run stopped
between its two games) is left out.  Statistics from tournaments.stats.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tournaments.report import game_points  # noqa: E402
from tournaments.stats import SprtSettings, format_elo, pair_class, pentanomial_elo  # noqa: E402


def header_points(headers, name: str) -> float | None:
    """`name`'s points in a game from its PGN headers; None when it did not play or has no result."""
    game = {"result": headers.get("Result", "*"), "white": headers.get("White"), "black": headers.get("Black")}
    if name not in (game["white"], game["black"]) or game["result"] not in ("1-0", "0-1", "1/2-1/2"):
        return None
    return game_points(game, name)


def run_pairs(path: Path, name: str) -> list[tuple[float, float]]:
    """`name`'s points in each finished pair of a run, in the order the pairs finished."""
    pending: dict[str, float] = {}
    pairs = []
    with open(path, encoding="utf-8") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            points = header_points(headers, name)
            if points is None:
                continue
            round_tag = headers.get("Round", "?")
            if round_tag in pending:
                pairs.append((pending.pop(round_tag), points))
            else:
                pending[round_tag] = points
    return pairs


def describe(pairs: list[tuple[float, float]], sprt: SprtSettings) -> str:
    """Games, W-L-D, Elo [95%], pentanomial and LLR of these pairs."""
    penta = [0] * 5
    wins = losses = draws = 0
    for first, second in pairs:
        penta[pair_class(first, second)] += 1
        for points in (first, second):
            wins += points == 1.0
            losses += points == 0.0
            draws += points == 0.5
    est = pentanomial_elo(penta)
    elo = f"{format_elo(est.elo)} [{format_elo(est.low)}, {format_elo(est.high)}]" if est else "-"
    return (f"{2 * len(pairs)} games, {wins}-{losses}-{draws}, {elo}, pairs {penta}, "
            f"LLR {sprt.llr(penta):+.2f} [{sprt.lower:+.2f}, {sprt.upper:+.2f}]")


def first_decision(pairs: list[tuple[float, float]], sprt: SprtSettings) -> tuple[int, str] | None:
    """(pairs played, 'H0' or 'H1') where the LLR first reached a bound, or None."""
    penta = [0] * 5
    for count, (first, second) in enumerate(pairs, 1):
        penta[pair_class(first, second)] += 1
        decision = sprt.decision(sprt.llr(penta))
        if decision is not None:
            return count, decision
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", type=Path, nargs="+", help="the runs' PGN files, in the order they were played")
    parser.add_argument("--name", default="new", help="the candidate's engine name (default new)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=25.0)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.1)
    args = parser.parse_args(argv)
    sprt = SprtSettings(args.elo0, args.elo1, args.alpha, args.beta)
    pairs = []
    for path in args.pgn:
        run = run_pairs(path, args.name)
        print(f"{path}: {describe(run, sprt)}")
        pairs.extend(run)
    print(f"all runs: {describe(pairs, sprt)}")
    decision = first_decision(pairs, sprt)
    if decision is None:
        print("no decision")
    else:
        count, verdict = decision
        print(f"{verdict} at {2 * count} games: {describe(pairs[:count], sprt)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Tree size: nodes and time to a fixed depth, and depth reached in a fixed time, on the
first positions of the project's antichess book.

    python3 benchmarks/tree_size.py [--depth 10] [--seconds 1.0] [--positions 24] [--hash 64]

Each position is searched from a fresh `Searcher` (empty hash table, empty history) with the
proof-number stage off, so only alpha-beta nodes count.  The node count to `--depth` does not
depend on the machine's load and is how search changes are compared (docs/experiments.md
lists the figures each change gave); the time to
depth and the mean depth reached in `--seconds` a position do depend on it.  Positions where
the engine answers at once (a single legal move) are left out of the mean depth.  Run it from
a git worktree of another commit to compare two versions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Game, Limits, Searcher  # noqa: E402
from tournaments.openings import read_epd  # noqa: E402

BOOK = ROOT / "tournaments" / "books" / "antichess.epd"


def book_positions(count: int) -> list[str]:
    """The FENs of the first `count` positions of the antichess book."""
    return [opening.fen for opening in read_epd(BOOK.read_text(), "antichess")[:count]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10, help="fixed depth (default 10)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time a position for the depth-reached pass (0 skips it)")
    parser.add_argument("--positions", type=int, default=24, help="book positions (default 24)")
    parser.add_argument("--hash", type=int, default=64, help="hash table MiB (default 64)")
    args = parser.parse_args()
    fens = book_positions(args.positions)

    nodes = 0
    started = time.perf_counter()
    for fen in fens:
        result = Searcher(hash_mb=args.hash).search(Game("antichess", fen),
                                                    Limits(depth=args.depth, proof=False))
        nodes += result.info.nodes
    elapsed = time.perf_counter() - started
    print(f"depth {args.depth}, {len(fens)} positions: {nodes:,} nodes, {elapsed:.1f} s")

    if args.seconds > 0:
        depths = []
        for fen in fens:
            game = Game("antichess", fen)
            if len(game.legal_moves()) < 2:
                continue
            result = Searcher(hash_mb=args.hash).search(game, Limits(movetime=args.seconds, proof=False))
            depths.append(result.info.depth)
        mean = sum(depths) / len(depths) if depths else 0.0
        print(f"depth reached in {args.seconds:g} s: mean {mean:.2f} over {len(depths)} positions {depths}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

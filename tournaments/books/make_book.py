#!/usr/bin/env python3
"""Make a balanced opening book (EPD) for one rule set with the project's own engine.

Method: play PLIES uniformly random legal moves from the start position (seeded), drop
duplicates and finished games, search the position with an `engine.Searcher` to a fixed
depth, and keep it only when the score is within THRESHOLD centipawns of zero, no mate is
found, and a shallower search (depth - 2) agrees within THRESHOLD as well.  With
`--referee PATH` a second, independent UCI engine that plays the rule set (e.g.
Fairy-Stockfish, `UCI_Variant`) must also score the position within THRESHOLD, without a
mate, after `--referee-nodes` nodes, so that the book is balanced by more than one judge.
With `--exclude FILE` (repeatable; EPD, FEN or gzipped FEN lines, `#` lines skipped) no
position of those files is kept, so that a check book shares none with a main book.
The EPD starts with a `#` header recording the exact command, so the book can be made again.

    python3 tournaments/books/make_book.py --variant antichess --count 100 \
        --plies 6 --depth 8 --threshold 100 --seed 1 --out tournaments/books/antichess.epd
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import sys
import time


def balanced(game, depth: int, threshold: int) -> tuple[bool, int | None]:
    """(kept?, score) for the position of `game` under the two searches (one hash table)."""
    from engine import Searcher

    searcher = Searcher()
    deep = searcher.search(game, depth=depth)
    if deep.info is None or deep.info.mate is not None or abs(deep.info.score) > threshold:
        return False, None if deep.info is None else deep.info.score
    shallow = searcher.search(game, depth=max(1, depth - 2))
    if shallow.info is None or shallow.info.mate is not None or abs(shallow.info.score) > threshold:
        return False, deep.info.score
    return True, deep.info.score


class Referee:
    """A UCI engine judging positions of one rule set (`tournaments.judge.FixedNodeJudge`):
    `score(fen)` is its centipawns for the side to move after a fixed number of nodes, or
    None for a mate score or no score."""

    def __init__(self, command: str, variant: str, nodes: int) -> None:
        from tournaments.judge import FixedNodeJudge

        self.judge = FixedNodeJudge(command, variant, nodes)

    def score(self, fen: str) -> int | None:
        from engine import scaled_mate_moves

        score = self.judge.score(fen)
        return None if score is None or scaled_mate_moves(score) is not None else score

    def close(self) -> None:
        self.judge.close()


def excluded_positions(paths: list[str]) -> set[str]:
    """The positions (board, side, castling, en passant) of EPD or FEN files, `.gz` read as gzip."""
    positions: set[str] = set()
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 4 and not line.startswith("#"):
                    positions.add(" ".join(fields[:4]))
    return positions


def make(variant: str, count: int, plies: int, depth: int, threshold: int, seed: int,
         max_tries: int = 100000, referee: Referee | None = None,
         exclude: set[str] | None = None) -> tuple[list[tuple[str, int]], int]:
    """([(EPD line, score)], positions tried); with a `referee`, it must agree as well; no
    position of `exclude` (first four FEN fields) is kept."""
    from engine import Game

    rng = random.Random(seed)
    seen: set[str] = set(exclude or ())
    kept: list[tuple[str, int]] = []
    tries = 0
    while len(kept) < count and tries < max_tries:
        game = Game(variant)
        for _ in range(plies):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            game.push(rng.choice(moves))
        if len(game.move_stack) < plies or game.outcome() is not None:
            continue
        epd = " ".join(game.fen().split()[:4])
        if epd in seen:
            continue
        seen.add(epd)
        tries += 1
        ok, score = balanced(game, depth, threshold)
        if ok and referee is not None:
            judged = referee.score(game.fen())
            ok = judged is not None and abs(judged) <= threshold
        if ok:
            kept.append((f'{epd} id "{variant}-{len(kept) + 1:03d}"; c0 "score {score:+d} cp at depth {depth}";', score))
    return kept, tries


def main(argv: list[str] | None = None) -> int:
    """Command line: write the book atomically to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--plies", type=int, default=6)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--threshold", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--referee", help="a UCI engine (path) that must also score each position within THRESHOLD")
    parser.add_argument("--referee-nodes", type=int, default=1000000)
    parser.add_argument("--exclude", action="append", default=[], metavar="FILE",
                        help="keep no position of this EPD/FEN file (repeatable; .gz read as gzip)")
    args = parser.parse_args(argv)
    started = time.time()
    try:
        exclude = excluded_positions(args.exclude)
    except (OSError, UnicodeDecodeError) as error:
        print(f"make_book.py: cannot read an --exclude file: {error}", file=sys.stderr)
        return 2
    referee = Referee(args.referee, args.variant, args.referee_nodes) if args.referee else None
    try:
        kept, tries = make(args.variant, args.count, args.plies, args.depth, args.threshold, args.seed,
                           referee=referee, exclude=exclude)
    finally:
        if referee is not None:
            referee.close()
    judges = f"an engine.Searcher at depth {args.depth} and {args.depth - 2}"
    made_by = (f"# Made by: python3 tournaments/books/make_book.py --variant {args.variant} --count {args.count} "
               f"--plies {args.plies} --depth {args.depth} --threshold {args.threshold} --seed {args.seed}")
    if referee is not None:
        name = os.path.basename(args.referee)
        judges += f" and {name} at {args.referee_nodes} nodes"
        made_by += f" --referee PATH/{name} --referee-nodes {args.referee_nodes}"
    for path in args.exclude:
        made_by += f" --exclude {os.path.basename(path) if os.path.isabs(path) else path}"
    header = [
        f"# {args.variant} opening book: {len(kept)} positions after {args.plies} random plies,",
        f"# kept when {judges} score within +-{args.threshold} cp with no mate",
        f"# ({len(kept)} kept of {tries} distinct positions searched, {time.time() - started:.0f} s).",
        made_by + " --out FILE",
        "# For tools that do not skip '#' lines (cutechess-cli): grep -v '^#' FILE > book.epd",
    ]
    text = "\n".join(header + [line for line, _ in kept]) + "\n"
    from tournaments.report import write_atomically

    write_atomically(args.out, lambda out: out.write(text))
    print(f"{len(kept)} of {tries} positions kept -> {args.out}")
    return 0 if len(kept) == args.count else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main())

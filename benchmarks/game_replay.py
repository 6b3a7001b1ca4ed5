#!/usr/bin/env python3
"""Game replay: nodes and time to a fixed depth over every position of whole games, with one
`Searcher` a game, so the hash table, killers and history carry from move to move as in play.

    python3 benchmarks/game_replay.py GAMES.pgn [--games 4] [--depth 11] [--hash 64] [--every 1]

`benchmarks/tree_size.py` searches each position from an empty table; this one measures what
the table keeps between the searches of a game (its replacement policy, its ageing), which a
fresh table per position cannot show.  The games are those of a PGN file with a `Variant` tag
of a rule set the engine knows (antichess when there is none), each replayed from its `FEN`
tag; `--every 2` searches every other position (one side's moves).  The node count does not
depend on the machine's load; run it from a git worktree of another commit to compare two
versions on the same file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Game, Limits, Searcher  # noqa: E402


def read_games(pgn_path: Path, games: int) -> list[tuple[str, str, list[str]]]:
    """(rule set, start FEN, UCI moves) of the first `games` games of the file."""
    result = []
    with open(pgn_path, encoding="utf-8") as handle:
        while len(result) < games:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            variant = game.headers.get("Variant", "antichess").lower()
            fen = game.headers.get("FEN")
            moves = [move.uci() for move in game.mainline_moves()]
            result.append((variant, fen, moves))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", type=Path)
    parser.add_argument("--games", type=int, default=4, help="games from the start of the file (default 4)")
    parser.add_argument("--depth", type=int, default=11, help="fixed depth (default 11)")
    parser.add_argument("--hash", type=int, default=64, help="hash table MiB (default 64)")
    parser.add_argument("--every", type=int, default=1, help="search every n-th position (default 1)")
    args = parser.parse_args()

    nodes = searches = 0
    started = time.perf_counter()
    for variant, fen, moves in read_games(args.pgn, args.games):
        game = Game(variant, fen) if fen else Game(variant)
        searcher = Searcher(hash_mb=args.hash)
        for ply, uci in enumerate(moves):
            if ply % args.every == 0 and len(game.legal_moves()) > 1:
                result = searcher.search(game, Limits(depth=args.depth, proof=False))
                nodes += result.info.nodes
                searches += 1
            game.push(uci)
    elapsed = time.perf_counter() - started
    print(f"depth {args.depth}, {searches} searches, hash {args.hash} MiB: {nodes:,} nodes, {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The decisions that lost games: our last move before the opponent's score first reached a
threshold, searched again at game speed and at length by our engine and by the opponent.

    python3 tools/turning_points.py MATCH.pgn --reference PATH [--us NAME] [--threshold 2.0]
                                    [--short 0.5] [--long 8] [--limit N]

For each game `us` lost, the position before our last move ahead of the opponent's first
score of at least `--threshold` pawns (as `tools/lost_games.py` finds that ply) is searched by
our engine (this checkout, over UCI) for `--short` and `--long` seconds and by the engine at
`--reference` (a UCI engine that knows the game's variant, e.g. Fairy-Stockfish) for `--long`
seconds, each from a new game with a 64 MiB table. One line a position (move played, each
search's move, score in centipawns for the side to move and depth), then the counts: how
often the reference would have played another move, how often our longer search does and
agrees with it, and the median scores and depths. Positions with a single legal move are
listed but left out of the counts. It answers whether a lost decision was one of time (the
longer search finds the reference's move) or of judgment (it does not).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lost_games import our_result, read_games, turning_point  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MATE_CAP = 1000  # centipawns a mate score counts as in the medians


def turning_positions(path: str, us: str, threshold: float):
    """(board before our move, our move, the opponent's ply) for each game `us` lost."""
    for game in read_games(path):
        if our_result(game, us) != "L":
            continue
        turn = turning_point(game, us, threshold)
        if turn is not None and turn[1] is not None:
            ply, ours, _ = turn
            yield ours.parent.board(), ours.move, ply


def searched(engine, board, seconds):
    """(move, centipawns for the side to move, depth) of a fresh search of `board`."""
    info = engine.analyse(board, chess.engine.Limit(time=seconds), game=object())
    score = info["score"].pov(board.turn).score(mate_score=100000)
    move = info["pv"][0] if info.get("pv") else None
    return move, max(-MATE_CAP, min(MATE_CAP, score)), info.get("depth", 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn")
    parser.add_argument("--reference", required=True, help="the opponent's UCI engine")
    parser.add_argument("--us", default="ours", help="our engine's name in the PGN")
    parser.add_argument("--threshold", type=float, default=2.0, help="the opponent's score, in pawns")
    parser.add_argument("--short", type=float, default=0.5, help="seconds of our game-speed search")
    parser.add_argument("--long", type=float, default=8.0, help="seconds of the longer searches")
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions (0: all)")
    args = parser.parse_args()

    ours = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "antichess", "uci"], cwd=str(ROOT))
    reference = chess.engine.SimpleEngine.popen_uci([args.reference])
    rows = []
    try:
        for engine in (ours, reference):
            engine.configure({"Hash": 64})
        for number, (board, played, ply) in enumerate(turning_positions(args.pgn, args.us, args.threshold)):
            if args.limit and number >= args.limit:
                break
            short = searched(ours, board, args.short)
            long = searched(ours, board, args.long)
            theirs = searched(reference, board, args.long)
            choice = board.legal_moves.count() > 1
            san = lambda move: board.san(move) if move else "-"  # noqa: E731
            print(f"ply {ply:3d}, {len(board.piece_map()):2d} pieces, played {san(played):6s} | "
                  f"ours {args.short:g} s {san(short[0]):6s} {short[1]:+5d} d{short[2]:<2d} | "
                  f"ours {args.long:g} s {san(long[0]):6s} {long[1]:+5d} d{long[2]:<2d} | "
                  f"reference {args.long:g} s {san(theirs[0]):6s} {theirs[1]:+5d} d{theirs[2]}"
                  + ("" if choice else " (one legal move)"), flush=True)
            if choice:
                rows.append((played, short, long, theirs))
    finally:
        ours.quit()
        reference.quit()
    if not rows:
        print("no position with a choice")
        return 0
    other = sum(theirs[0] != played for played, _, _, theirs in rows)
    ours_other = sum(long[0] != played for played, _, long, _ in rows)
    found = sum(long[0] != played and long[0] == theirs[0] for played, _, long, theirs in rows)
    print(f"{len(rows)} positions with a choice: the reference plays another move in {other}; "
          f"our {args.long:g} s search in {ours_other}, the reference's in {found}")
    print(f"our move agrees with the reference's: {sum(s[0] == t[0] for _, s, _, t in rows)} "
          f"at {args.short:g} s, {sum(g[0] == t[0] for _, _, g, t in rows)} at {args.long:g} s")
    for name, index in (("score", 1), ("depth", 2)):
        medians = [statistics.median(row[k][index] for row in rows) for k in (1, 2, 3)]
        print(f"median {name}: ours {args.short:g} s {medians[0]:g}, ours {args.long:g} s {medians[1]:g}, "
              f"reference {args.long:g} s {medians[2]:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

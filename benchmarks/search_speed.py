#!/usr/bin/env python3
"""Search speed: our nodes per second against Sjeng's on the same antichess positions.

    python3 benchmarks/search_speed.py [--seconds 5] [--rounds 3]

Each engine searches each position for a fixed time, one after the other, single thread;
nodes per second is the engine's own report (Sjeng prints `NPS: N` after each search; ours
is the Searcher's info, proof search off so only alpha-beta nodes count).  The ratio is taken
inside each round and the median over rounds reported.  Middlegame positions are used
because Sjeng answers book positions without searching.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

POSITIONS = [
    "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6",
    "r1bqkb1r/p1pppppp/1p6/8/8/1P6/P1PPPPPP/RN1QKBNR w - - 0 5",
    "rn1qkbnr/p1pppppp/8/8/8/4P3/PPPP1PPP/RNB1K1NR b - - 0 5",
]


def sjeng_nps(path: str, fen: str, seconds: float) -> float:
    process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, bufsize=1)
    commands = ["xboard", "new", "force", "variant suicide", f"setboard {fen}",
                f"st {max(1, round(seconds))}", "post", "go"]
    process.stdin.write("\n".join(commands) + "\n")
    process.stdin.flush()
    nps = None
    deadline = time.time() + seconds * 4 + 10
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("NPS:"):
            nps = float(line.split()[1])
        if line.startswith("move "):
            break
    process.stdin.write("quit\n")
    process.stdin.flush()
    process.wait(timeout=10)
    if nps is None:
        raise RuntimeError("sjeng printed no NPS line")
    return nps


def our_nps(fen: str, seconds: float) -> float:
    from engine import Game, Limits, Searcher

    result = Searcher(hash_mb=64).search(Game("antichess", fen), Limits(movetime=seconds, proof=False))
    return result.info.nps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from engine import Game, Searcher

    Searcher().search(Game("antichess"), depth=2)  # load the kernels before timing
    sjeng = shutil.which("sjeng", path="/usr/games:/usr/bin:/usr/local/bin")
    if not sjeng:
        print("sjeng not installed (Debian package sjeng): nothing to compare with", file=sys.stderr)
    ratios: list[float] = []
    ours_all: list[float] = []
    theirs_all: list[float] = []
    for round_number in range(args.rounds):
        for fen in POSITIONS:
            ours = our_nps(fen, args.seconds)
            ours_all.append(ours)
            line = f"round {round_number + 1} ours {ours / 1000:8.0f} k nps"
            if sjeng:
                theirs = sjeng_nps(sjeng, fen, args.seconds)
                theirs_all.append(theirs)
                ratios.append(ours / theirs)
                line += f"   sjeng {theirs / 1000:8.0f} k nps   ratio {ours / theirs:5.2f}"
            print(line + f"   {fen}", flush=True)
    print(f"median: ours {statistics.median(ours_all) / 1000:.0f} k nps", end="")
    if ratios:
        print(f", sjeng {statistics.median(theirs_all) / 1000:.0f} k nps, ratio {statistics.median(ratios):.2f}x")
    else:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

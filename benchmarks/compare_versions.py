#!/usr/bin/env python3
"""Two versions of the engine side by side: the same search and perft work, the same node
counts, and the speed ratio of this checkout to another one.

    python3 benchmarks/compare_versions.py --base eabc93b [--rounds 5] [--depth 7]
    python3 benchmarks/compare_versions.py --base-dir /path/to/other/checkout

`--base REV` makes a git worktree of REV in a temporary folder (removed afterwards).  Each
round runs, in a fresh process per version and one version after the other (the order
alternates from round to round, so machine noise hits both alike): the bench (every
`antichess bench` position to `--depth`, proof stage off) and perft on three positions.
Every process loads its kernels from its own warm cache before the clock starts (a
warm-up process per version runs first).  The node counts must be equal (the same tree,
the same perft); the report gives each version's nodes per second per round and the
median ratio this / base.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PERFT = [  # (rule set, FEN, depth)
    ("antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 5),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("losers", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
]

# Runs inside the checkout under test: only names both layouts have (engine.Game, engine.bench).
PROBE = r"""
import json, sys, time
from engine import Game
from engine.bench import run_bench
depth, perft = json.loads(sys.argv[1])
Game("antichess").perft(2)  # load the rules kernels before any clock starts
run_bench(1, report=lambda line: None)  # and the search kernels
nodes, seconds = run_bench(depth, report=lambda line: None)
leaves, perft_seconds = 0, 0.0
for variant, fen, plies in perft:
    game = Game(variant, fen)
    started = time.perf_counter()
    leaves += game.perft(plies)
    perft_seconds += time.perf_counter() - started
print(json.dumps({"nodes": nodes, "seconds": seconds, "leaves": leaves, "perft_seconds": perft_seconds}))
"""


def run(checkout: Path, depth: int) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps([depth, PERFT])], cwd=checkout,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--base", help="git revision to compare against (a temporary worktree)")
    group.add_argument("--base-dir", type=Path, help="another checkout to compare against")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--depth", type=int, default=7, help="bench depth (default 7, as `antichess bench`)")
    args = parser.parse_args()

    scratch = None
    if args.base:
        scratch = Path(tempfile.mkdtemp(prefix="antichess-base-"))
        base = scratch / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.base], cwd=ROOT, check=True,
                       capture_output=True)
    else:
        base = args.base_dir.resolve()
    try:
        versions = {"this": ROOT, "base": base}
        for name, checkout in versions.items():
            run(checkout, 1)  # compile into (or load) each version's own cache
        results: dict[str, list[dict]] = {name: [] for name in versions}
        for number in range(args.rounds):
            order = list(versions) if number % 2 == 0 else list(reversed(versions))
            for name in order:
                results[name].append(run(versions[name], args.depth))
            this, other = results["this"][-1], results["base"][-1]
            print(f"round {number + 1}: bench {this['nodes'] / this['seconds']:,.0f} vs {other['nodes'] / other['seconds']:,.0f}"
                  f" nodes/s, perft {this['leaves'] / this['perft_seconds']:,.0f} vs "
                  f"{other['leaves'] / other['perft_seconds']:,.0f} leaves/s", flush=True)
        for key in ("nodes", "leaves"):
            counts = {name: {run_[key] for run_ in runs} for name, runs in results.items()}
            same = counts["this"] == counts["base"] and len(counts["this"]) == 1
            print(f"{key}: this {sorted(counts['this'])}, base {sorted(counts['base'])}: {'equal' if same else 'DIFFERENT'}")
        bench = statistics.median(t["nodes"] / t["seconds"] / (b["nodes"] / b["seconds"])
                                  for t, b in zip(results["this"], results["base"]))
        perft = statistics.median(t["leaves"] / t["perft_seconds"] / (b["leaves"] / b["perft_seconds"])
                                  for t, b in zip(results["this"], results["base"]))
        print(f"median speed ratio this/base: bench {bench:.3f}, perft {perft:.3f}")
    finally:
        if scratch is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

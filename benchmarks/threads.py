#!/usr/bin/env python3
"""Threads and MultiPV: what a second search thread buys, and what extra lines cost.

    python3 benchmarks/threads.py [--threads 2] [--seconds 3] [--depth 10] [--rounds 3]

1. Nodes per second: each antichess position searched for `--seconds` with 1 thread and
   with `--threads` threads (Lazy SMP: helpers share the transposition table); the nps
   counts every thread's nodes.  Target: >= 1.8x with 2 threads.  "ceiling": the same
   searches in `--threads` independent single-threaded processes at once against one
   alone: the most that many threads can gain on this machine (shared caches, memory,
   clock), with nothing shared between the searches.
2. Time to depth: each position searched to `--depth` with 1 and with `--threads` threads,
   a fresh hash table each time; the ratio of the summed times.  Target: >= 1.3x.  Also the
   main thread's node count to that depth, alone and with helpers: the same gain as it would
   be with a free core per thread (wall-clock times on a busy machine are not).
3. MultiPV: each position searched to `--multipv-depth` with MultiPV 1 and MultiPV 4,
   single thread; the ratio of the summed times.  Target: <= 2.5x.  "multipv-nodes": the
   ratio of the node counts, which the machine's load does not move.

Proof search off, so only alpha-beta counts.  Each figure is the median over `--rounds`
rounds.  On a machine with fewer free cores than threads the thread figures mean nothing:
the script prints the core count it sees.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1",
    "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6",
    "r1bqkb1r/p1pppppp/1p6/8/8/1P6/P1PPPPPP/RN1QKBNR w - - 0 5",
    "rn1qkbnr/p1pppppp/8/8/8/4P3/PPPP1PPP/RNB1K1NR b - - 0 5",
    "rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2",
]


def _search(fen: str, threads: int, **limits) -> tuple[int, float, int]:
    """(nodes of every thread, seconds, nodes of the main thread alone)."""
    from engine import Game, Limits, Searcher
    from engine.search.state import STATE_NODES

    searcher = Searcher(hash_mb=64)
    searcher.set_threads(threads)
    game = Game("antichess", fen)
    started = time.perf_counter()
    result = searcher.search(game, Limits(proof=False, **limits))
    return result.info.nodes, time.perf_counter() - started, int(searcher.state[STATE_NODES])


def nps_ratio(threads: int, seconds: float) -> tuple[float, float, float]:
    rates = {}
    for count in (1, threads):
        nodes = elapsed = 0
        for fen in POSITIONS:
            n, t, _ = _search(fen, count, movetime=seconds, overhead=0.0)
            nodes, elapsed = nodes + n, elapsed + t
        rates[count] = nodes / elapsed
    return rates[1], rates[threads], rates[threads] / rates[1]


def _process_rate(seconds: float, barrier, results) -> None:
    """One process of `ceiling_ratio`: load the kernels, wait for the others, then search
    every position for `seconds` with one thread; put its nodes per second in `results`."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from engine import Game, Limits, Searcher

    Searcher(hash_mb=1).search(Game("antichess"), Limits(depth=3))
    barrier.wait()
    nodes = elapsed = 0
    for fen in POSITIONS:
        n, t, _ = _search(fen, 1, movetime=seconds, overhead=0.0)
        nodes, elapsed = nodes + n, elapsed + t
    results.put(nodes / elapsed)


def ceiling_ratio(threads: int, seconds: float) -> tuple[float, float, float]:
    """Nodes per second of one single-threaded search process alone, and of `threads` such
    processes at once (summed): what `threads` search threads could gain at best on this
    machine, with nothing shared between them."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    rates = {}
    for count in (1, threads):
        barrier, results = context.Barrier(count), context.Queue()
        processes = [context.Process(target=_process_rate, args=(seconds, barrier, results)) for _ in range(count)]
        for process in processes:
            process.start()
        rates[count] = sum(results.get() for _ in processes)
        for process in processes:
            process.join()
    return rates[1], rates[threads], rates[threads] / rates[1]


def depth_ratio(threads: int, depth: int) -> tuple[float, float, float]:
    times = {}
    for count in (1, threads):
        times[count] = sum(_search(fen, count, depth=depth)[1] for fen in POSITIONS)
    return times[1], times[threads], times[1] / times[threads]


def main_nodes_ratio(threads: int, depth: int) -> tuple[float, float, float]:
    """Nodes the main thread searches to reach `depth`, alone and with helpers: the
    time-to-depth gain where every thread has a core of its own (a loaded machine slows
    the threads' clocks, not these counts, though a starved helper helps less)."""
    nodes = {}
    for count in (1, threads):
        nodes[count] = sum(_search(fen, count, depth=depth)[2] for fen in POSITIONS)
    return nodes[1], nodes[threads], nodes[1] / nodes[threads]


def multipv_ratio(depth: int, lines: int = 4) -> tuple[float, float, float]:
    times = {}
    for count in (1, lines):
        times[count] = sum(_search(fen, 1, depth=depth, multipv=count)[1] for fen in POSITIONS)
    return times[1], times[lines], times[lines] / times[1]


def multipv_nodes_ratio(depth: int, lines: int = 4) -> tuple[float, float, float]:
    """The nodes of the MultiPV test: the same comparison without the machine's load (one
    thread, so the counts repeat exactly)."""
    nodes = {}
    for count in (1, lines):
        nodes[count] = sum(_search(fen, 1, depth=depth, multipv=count)[0] for fen in POSITIONS)
    return nodes[1], nodes[lines], nodes[lines] / nodes[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="search time per position for nps")
    parser.add_argument("--depth", type=int, default=10, help="depth for the time-to-depth test")
    parser.add_argument("--multipv-depth", type=int, default=9, help="depth for the MultiPV test")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip", nargs="*", default=[], choices=["nps", "ceiling", "depth", "main-nodes", "multipv", "multipv-nodes"])
    args = parser.parse_args()

    from engine import Game, Limits, Searcher

    Searcher(hash_mb=1).search(Game("antichess"), Limits(depth=3))  # load the kernels before timing
    print(f"cores seen: {os.cpu_count()}; threads compared: 1 vs {args.threads}; {args.rounds} rounds")
    tests = [("nps", lambda: nps_ratio(args.threads, args.seconds), "nps {0:,.0f} -> {1:,.0f}: {2:.2f}x"),
             ("ceiling", lambda: ceiling_ratio(args.threads, args.seconds),
              f"{args.threads} independent one-thread processes: " + "nps {0:,.0f} -> {1:,.0f}: {2:.2f}x"),
             ("depth", lambda: depth_ratio(args.threads, args.depth),
              f"time to depth {args.depth}: " + "{0:.2f} s -> {1:.2f} s: {2:.2f}x faster"),
             ("main-nodes", lambda: main_nodes_ratio(args.threads, args.depth),
              f"main-thread nodes to depth {args.depth}: " + "{0:,.0f} -> {1:,.0f}: {2:.2f}x fewer"),
             ("multipv", lambda: multipv_ratio(args.multipv_depth),
              f"MultiPV 4 vs 1 to depth {args.multipv_depth}: " + "{0:.2f} s -> {1:.2f} s: {2:.2f}x the time"),
             ("multipv-nodes", lambda: multipv_nodes_ratio(args.multipv_depth),
              f"MultiPV 4 vs 1 to depth {args.multipv_depth}: " + "{0:,.0f} -> {1:,.0f} nodes: {2:.2f}x")]
    for name, run, text in tests:
        if name in args.skip:
            continue
        rounds = [run() for _ in range(args.rounds)]
        for figures in rounds:
            print(f"  {name} round: " + text.format(*figures), flush=True)
        median = tuple(statistics.median(r[i] for r in rounds) for i in range(3))
        print(f"{name} (median): " + text.format(*median), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

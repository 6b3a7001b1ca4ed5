#!/usr/bin/env python3
"""Search selectivity: time to depth, nodes per second and effective branching factor of our
engine and another UCI engine on the same fixed antichess positions.

    python3 benchmarks/selectivity.py --opponent PATH [--seconds 2] [--hash 64]
    (for example --opponent PATH/fairy-stockfish-c19b5f6c, a current master build, or
     --opponent /usr/games/fairy-stockfish)

Both engines speak UCI, one thread, the same hash size, `UCI_Variant antichess`, a fresh
`ucinewgame` per position, and search each position for `--seconds` (`go movetime`).  From
their `info depth D ... nodes N ... time T` lines the script prints, per position, the
deepest depth each reached, the time each took to reach every depth both reached, nodes per
second, and the effective branching factor (EBF): the geometric mean of
nodes(d) / nodes(d - 1) over the last four completed depths.  A deeper search at the same
node rate, or a smaller EBF, is more selective pruning: this measures the depth gap rather
than guessing at it.  The opponent is only ever run by this script (never by a test).
Positions: the start, 1.e3, two positions of the project's antichess book (balanced by its
own search) and two middlegames; positions with a quick forced win (1.e3 b5, for one) are
left out, since our root proof-number search answers those at depth 1 (so are positions with
one legal move).  Our times and node counts include that proof stage (up to 30 % of the
move's time in compulsory-capture rule sets), which flattens our EBF at the first depths.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
    ("1.e3", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1"),
    ("book 001", "rnbqkbnr/1ppp1ppp/4p3/p7/P7/7N/1PPPPPPP/RNBQKB1R w - - 0 1"),
    ("book 004", "rnb1kbnr/1pqppp1p/p5p1/8/8/8/PPPPPPPP/R1BQKBNR w - - 0 1"),
    ("middlegame A", "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6"),
    ("middlegame B", "r1bqkb1r/p1pppppp/1p6/8/8/1P6/P1PPPPPP/RN1QKBNR w - - 0 5"),
]


class UciEngine:
    """A UCI engine process driven line by line."""

    def __init__(self, command: list[str], hash_mb: int):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=ROOT)
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name UCI_Variant value antichess", f"setoption name Hash value {hash_mb}",
                  "setoption name Threads value 1", "isready")
        self.wait_for("readyok")

    def send(self, *lines: str) -> None:
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def wait_for(self, prefix: str, timeout: float = 120.0) -> list[str]:
        """Lines read until one starting with `prefix` (included)."""
        lines = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"engine exited while waiting for {prefix!r}")
            line = line.strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise TimeoutError(prefix)

    def search(self, fen: str, seconds: float) -> dict[int, tuple[int, float]]:
        """{depth: (nodes, seconds)} of the last info line of each completed depth."""
        self.send("ucinewgame", f"position fen {fen}", "isready")
        self.wait_for("readyok")
        self.send(f"go movetime {int(seconds * 1000)}")
        depths: dict[int, tuple[int, float]] = {}
        for line in self.wait_for("bestmove", timeout=seconds * 5 + 30):
            tokens = line.split()
            if tokens[:1] != ["info"] or "depth" not in tokens or "nodes" not in tokens:
                continue
            if "upperbound" in tokens or "lowerbound" in tokens or "currmove" in tokens:
                continue
            fields = {tokens[i]: tokens[i + 1] for i in range(len(tokens) - 1) if tokens[i] in
                      ("depth", "nodes", "time", "multipv")}
            if fields.get("multipv", "1") != "1" or "time" not in fields:
                continue
            depths[int(fields["depth"])] = (int(fields["nodes"]), int(fields["time"]) / 1000)
        return depths

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def ebf(depths: dict[int, tuple[int, float]]) -> float | None:
    """Geometric mean of nodes(d) / nodes(d - 1) over the last four depths reached."""
    ordered = sorted(depths)
    ratios = [depths[d][0] / depths[d - 1][0] for d in ordered[-4:] if d - 1 in depths and depths[d - 1][0]]
    if not ratios:
        return None
    return math.exp(sum(math.log(r) for r in ratios if r > 0) / len(ratios))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", required=True, help="path of the other UCI engine")
    parser.add_argument("--ours", default=f"{sys.executable} -m antichess",
                        help="command of our engine (default: this Python, -m antichess)")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--hash", type=int, default=64)
    args = parser.parse_args()
    # Compile our kernels first: on an empty cache the engine would search interpreted.
    subprocess.run(args.ours.split() + ["warmup"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    engines = {"ours": UciEngine(args.ours.split() + ["uci"], args.hash),
               "opponent": UciEngine([args.opponent], args.hash)}
    summary = {name: {"depth": [], "nps": [], "ebf": []} for name in engines}
    try:
        for label, fen in POSITIONS:
            results = {name: engine.search(fen, args.seconds) for name, engine in engines.items()}
            print(f"\n{label}: {fen}")
            for name, depths in results.items():
                if not depths:
                    print(f"  {name:8} no info lines")
                    continue
                deepest = max(depths)
                nodes, seconds = depths[deepest]
                nps = nodes / seconds if seconds else 0.0
                factor = ebf(depths)
                summary[name]["depth"].append(deepest)
                summary[name]["nps"].append(nps)
                if factor:
                    summary[name]["ebf"].append(factor)
                print(f"  {name:8} depth {deepest:2}  nodes {nodes:10}  {nps / 1000:7.0f} k nps  "
                      f"EBF {factor:5.2f}" if factor else f"  {name:8} depth {deepest:2}")
            common = sorted(set(results["ours"]) & set(results["opponent"]))
            if common:
                print("  time to depth (s): " + "  ".join(
                    f"d{d} {results['ours'][d][1]:.2f}/{results['opponent'][d][1]:.2f}" for d in common[-6:])
                    + "  (ours/opponent)")
    finally:
        for engine in engines.values():
            engine.close()
    print("\nmean over positions:")
    for name, figures in summary.items():
        if figures["depth"]:
            print(f"  {name:8} depth {sum(figures['depth']) / len(figures['depth']):5.1f}  "
                  f"{sum(figures['nps']) / len(figures['nps']) / 1000:7.0f} k nps  "
                  f"EBF {sum(figures['ebf']) / max(1, len(figures['ebf'])):5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Perft speed: our numba rules core against Sjeng, Fairy-Stockfish and python-chess.

    python3 benchmarks/perft_speed.py [--rounds 3] [--quick]

Single thread, leaves per second, last ply counted in bulk (all tools do this).  Each
round runs every tool once on every position, back to back, so machine noise hits them
alike; the ratio (ours / theirs) is taken inside each round and the median over rounds
is reported.  Tools that are not installed are skipped (Debian puts sjeng and
fairy-stockfish in /usr/games).  Process start-up is excluded for the engines: the clock
runs from sending the perft command to reading its answer; ours excludes compilation.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GAMES_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"])

# (rule set, position name, FEN, depth for the C engines and ours, depth for python-chess)
POSITIONS = [
    ("chess", "startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 4),
    ("chess", "kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 3),
    ("antichess", "startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 6, 4),
    ("antichess", "fenA", "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6", 8, 5),
]
QUICK_DEPTH_CUT = 1

SJENG_VARIANT = {"chess": "normal", "antichess": "suicide"}  # no castling rights: same moves
FSF_VARIANT = {"chess": "chess", "antichess": "antichess"}


class _EngineProcess:
    """An engine run as a child process, spoken to line by line."""

    def __init__(self, path: str):
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def _send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self._send("quit")
        self.process.wait(timeout=10)


class Sjeng(_EngineProcess):
    """Sjeng 11.2 over its xboard interface: `perft N` answers `Raw nodes for depth N: X`."""

    name = "sjeng"

    def __init__(self, path: str):
        super().__init__(path)
        self._send("xboard")

    def perft(self, variant: str, fen: str, depth: int) -> tuple[int, float]:
        for line in ("new", "force", f"variant {SJENG_VARIANT[variant]}", f"setboard {fen}"):
            self._send(line)
        self._send("ping 1")
        while "pong 1" not in self.process.stdout.readline():
            pass
        started = time.perf_counter()
        self._send(f"perft {depth}")
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("sjeng exited")
            if line.startswith("Raw nodes for depth"):
                return int(line.split(":")[1]), time.perf_counter() - started


class FairyStockfish(_EngineProcess):
    """Fairy-Stockfish over UCI: `go perft N` answers `Nodes searched: X`."""

    name = "fairy-stockfish"

    def __init__(self, path: str):
        super().__init__(path)
        self._send("uci")
        self._wait("uciok")
        self._send("setoption name Threads value 1")

    def _wait(self, prefix: str) -> str:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("fairy-stockfish exited")
            if line.startswith(prefix):
                return line

    def perft(self, variant: str, fen: str, depth: int) -> tuple[int, float]:
        self._send(f"setoption name UCI_Variant value {FSF_VARIANT[variant]}")
        self._send(f"position fen {fen}")
        self._send("isready")
        self._wait("readyok")
        started = time.perf_counter()
        self._send(f"go perft {depth}")
        nodes = int(self._wait("Nodes searched").split(":")[1])
        return nodes, time.perf_counter() - started


class Ours:
    name = "ours"

    def __init__(self):
        from engine import Game

        self.Game = Game
        Game("chess").perft(3)  # load or compile the kernels before timing

    def perft(self, variant: str, fen: str, depth: int) -> tuple[int, float]:
        game = self.Game(variant, fen)
        started = time.perf_counter()
        nodes = game.perft(depth)
        return nodes, time.perf_counter() - started

    def close(self) -> None:
        pass


class PythonChess:
    name = "python-chess"

    def __init__(self):
        import chess
        import chess.variant

        self.boards = {"chess": chess.Board, "antichess": chess.variant.AntichessBoard}

    def _count(self, board, depth: int) -> int:
        if depth == 1:
            return board.legal_moves.count()
        total = 0
        for move in list(board.legal_moves):
            board.push(move)
            total += self._count(board, depth - 1)
            board.pop()
        return total

    def perft(self, variant: str, fen: str, depth: int) -> tuple[int, float]:
        board = self.boards[variant](fen)
        started = time.perf_counter()
        nodes = self._count(board, depth)
        return nodes, time.perf_counter() - started

    def close(self) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one ply less everywhere (a smoke run)")
    args = parser.parse_args()

    tools = [Ours()]
    for cls, command in ((Sjeng, "sjeng"), (FairyStockfish, "fairy-stockfish")):
        path = shutil.which(command, path=GAMES_PATH)
        if path:
            tools.append(cls(path))
        else:
            print(f"# {command} not found: skipped", file=sys.stderr)
    tools.append(PythonChess())

    cut = QUICK_DEPTH_CUT if args.quick else 0
    speeds: dict[tuple[str, str, str], list[float]] = {}
    ratios: dict[tuple[str, str, str], list[float]] = {}
    counts: dict[tuple[str, str, str], int] = {}
    for round_number in range(args.rounds):
        for variant, position, fen, depth, slow_depth in POSITIONS:
            round_speed = {}
            for tool in tools:
                d = (slow_depth if tool.name == "python-chess" else depth) - cut
                nodes, seconds = tool.perft(variant, fen, d)
                key = (tool.name, variant, position)
                if counts.setdefault(key, nodes) != nodes:
                    raise SystemExit(f"{tool.name} gave {nodes} then {counts[key]} for {variant} {position}")
                round_speed[tool.name] = nodes / seconds
                speeds.setdefault(key, []).append(nodes / seconds)
            for name, speed in round_speed.items():
                if name != "ours":
                    ratios.setdefault(("ours", name, f"{variant} {position}"), []).append(round_speed["ours"] / speed)
        print(f"# round {round_number + 1} of {args.rounds} done", file=sys.stderr)
    for tool in tools:
        tool.close()

    ours_counts = {(v, p): n for (t, v, p), n in counts.items() if t == "ours"}
    print(f"{'tool':16} {'rule set':10} {'position':9} {'leaves':>12} {'leaves/s (median)':>18}")
    for (name, variant, position), values in speeds.items():
        print(f"{name:16} {variant:10} {position:9} {counts[(name, variant, position)]:>12} "
              f"{statistics.median(values) / 1e6:>16.2f} M")
    print()
    print("ratio = our leaves/s over theirs, median of per-round ratios")
    for (_, other, label), values in ratios.items():
        print(f"ours / {other:16} {label:20} {statistics.median(values):8.2f}x")
    for (name, variant, position), nodes in counts.items():
        if name in ("sjeng", "fairy-stockfish") and ours_counts[(variant, position)] != nodes:
            print(f"WARNING: {name} counted {nodes} leaves for {variant} {position}, we counted "
                  f"{ours_counts[(variant, position)]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

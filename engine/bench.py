"""`antichess bench`: a fixed search workload whose node count is the search's signature.

The total node count changes only when the search's behaviour changes (like Stockfish's
`bench`); nodes per second measure speed.  Depth-limited, single thread, no proof search,
a fresh hash table per position, so the count is the same on every machine.
"""

from __future__ import annotations

import threading
import time

# (rule set, FEN) pairs: openings, middlegames and endgames of the families the search knows.
BENCH_POSITIONS = [
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
    ("antichess", "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6"),
    ("antichess", "r1bqkb1r/p1pppppp/1p6/8/8/1P6/P1PPPPPP/RN1QKBNR w - - 0 5"),
    ("antichess", "8/p7/8/1P6/8/2n5/8/8 w - - 0 30"),
    ("giveaway", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("suicide", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1"),
    ("losers", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("mit-antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("mit-antichess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("antiking-antichess", "rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("antiking1", "2prbkqA/2p1nnbr/2pppppp/8/8/PPPPPP2/RBNN1P2/aQKBRP2 w KAka - 0 1"),
    ("antiking2", "rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("hackerrank", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"),
]
DEFAULT_DEPTH = 7


class BenchStopped(Exception):
    """The bench was stopped (its StopFlag set) before it finished."""


def _stop_when_flagged(searcher, stop, done: threading.Event) -> None:
    """Stop `searcher` within a few milliseconds of `stop` being set, until `done`."""
    while not done.wait(0.005):
        if stop.is_set():
            searcher.stop()
            return


def run_bench(depth: int = DEFAULT_DEPTH, report=print, stop=None) -> tuple[int, float]:
    """Search every bench position to `depth`; report a line each; return (nodes, seconds).

    `stop` (an engine.StopFlag), when given and set from another thread or a signal
    handler, ends the running search within milliseconds and raises BenchStopped."""
    from .rules.game import Game
    from .search.limits import Limits
    from .search.searcher import Searcher

    total_nodes = 0
    total_time = 0.0
    for number, (variant, fen) in enumerate(BENCH_POSITIONS, 1):
        if stop is not None and stop.is_set():
            raise BenchStopped
        game = Game(variant, fen)
        searcher = Searcher(hash_mb=16)
        done = threading.Event()
        if stop is not None:
            threading.Thread(target=_stop_when_flagged, args=(searcher, stop, done), daemon=True).start()
        started = time.perf_counter()
        try:
            result = searcher.search(game, Limits(depth=depth, proof=False))
        finally:
            done.set()
        elapsed = time.perf_counter() - started
        if stop is not None and stop.is_set():
            raise BenchStopped
        nodes = result.info.nodes if result.info else 0
        total_nodes += nodes
        total_time += elapsed
        best = result.best_move.uci() if result.best_move else "(none)"
        report(f"position {number:2} {variant:18} nodes {nodes:10} bestmove {best}")
    return total_nodes, total_time

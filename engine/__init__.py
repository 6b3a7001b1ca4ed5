"""The rules core and search: ten chess and losing-chess rule sets on one numba bitboard
generator.  This module is the facade: every other package uses the names below and
nothing else of `engine`::

    from engine import Game, Limits, Searcher
    game = Game("antichess")
    game.push("e2e3")
    [m.uci() for m in game.legal_moves()]
    Searcher().search(game, Limits(depth=6)).best_move

Importing `engine` alone does not load numba (the names that need it are loaded on first
use), so protocol adapters can answer a GUI before the JIT is ready.  A program that must
answer at once calls `defer_compilation()` first: the kernels then run as plain Python
(slow but immediate) until `compile_kernels()` switches them to numba.

The names, by what they are for:

- rules: `Game` (position, history, legal moves, outcome, perft), `Move`, `Outcome`,
  `KernelRows`, the errors `FenError`, `IllegalMoveError`, `InvalidMoveError`, perft's
  `StopFlag`, `PerftStopped` and `MAX_PERFT_DEPTH`; the rule records `RULE_SETS`,
  `RuleSet`, `RuleError`, `get_rule_set`, `rule_set_names`; notation `placement_field`,
  `parse_square`, `square_name`; PGN records `PgnGame` and `render_pgn` (a game's own is
  `Game.pgn()`).
- search: `Searcher`, `Limits`, `SearchInfo`, `SearchResult`; scores as each surface
  writes them: `uci_score`, `cecp_score`, `scaled_score`, `scaled_from_uci`,
  `scaled_from_cecp`, `scaled_mate_moves`, `is_scaled_mate`, `pgn_score`, `SCALE_MATE`.
- the course's XML game files: `coursefile` (the package: `load`, `dump`, `CorruptFile`...).
- endgame tables: `tablebase` (the package: building, probing, statistics), and its
  `open_tablebase`, `Tablebase`, `TablebaseError`, `ProbeResult`.
- compiling: `compile_kernels`, `defer_compilation`, `kernels_compiled`, `warmup`,
  `compile_in_subprocess`, `cache_is_complete`, `kernel_count`, `CACHE_DIR`,
  `source_hash`; the benchmark `run_bench`, `BenchStopped`, `BENCH_POSITIONS`.

The layers, each importing only those before it: `jit` (numba plumbing), `rules`,
`coursefile`, `tablebase` (the search kernels use only `tablebase.indexing`), `search`,
then `precompile` (the warm-up) and `bench` (see docs/engine.md).
"""

from .jit.cache import CACHE_DIR, source_hash
from .jit.modes import compile_kernels, defer_compilation, kernels_compiled
from .rules.notation import parse_square, placement_field, square_name
from .rules.rulesets import RULE_SETS, RuleError, RuleSet, get_rule_set, rule_set_names
from .search.scores import (
    SCALE_MATE, cecp_score, is_scaled_mate, pgn_score, scaled_from_cecp, scaled_from_uci, scaled_mate_moves,
    scaled_score, uci_score,
)

_LAZY = {
    "Game": "rules.game", "Outcome": "rules.game", "KernelRows": "rules.game", "IllegalMoveError": "rules.errors",
    "InvalidMoveError": "rules.errors", "StopFlag": "rules.game", "PerftStopped": "rules.errors",
    "MAX_PERFT_DEPTH": "rules.game", "Move": "rules.moves", "FenError": "rules.fen",
    "PgnGame": "rules.pgn", "render_pgn": "rules.pgn",
    "Searcher": "search.searcher", "Limits": "search.limits", "SearchInfo": "search.limits",
    "SearchResult": "search.limits",
    "coursefile": None,
    "tablebase": None, "open_tablebase": "tablebase", "Tablebase": "tablebase", "TablebaseError": "tablebase",
    "ProbeResult": "tablebase",
    "warmup": "precompile", "compile_in_subprocess": "precompile", "cache_is_complete": "precompile",
    "kernel_count": "precompile",
    "run_bench": "bench", "BenchStopped": "bench", "BENCH_POSITIONS": "bench",
}

__all__ = [
    "CACHE_DIR", "source_hash", "compile_kernels", "defer_compilation", "kernels_compiled",
    "parse_square", "placement_field", "square_name",
    "RULE_SETS", "RuleError", "RuleSet", "get_rule_set", "rule_set_names",
    "SCALE_MATE", "cecp_score", "is_scaled_mate", "pgn_score", "scaled_from_cecp", "scaled_from_uci",
    "scaled_mate_moves", "scaled_score", "uci_score",
    *_LAZY,
]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        if _LAZY[name] is None:
            return importlib.import_module(f".{name}", __name__)
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))

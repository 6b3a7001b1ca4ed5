"""The rules core: ten chess and losing-chess rule sets on one numba bitboard generator.

Other packages use only this facade::

    from engine import Game
    game = Game("antichess")
    game.push("e2e3")
    [m.uci() for m in game.legal_moves()]

`Game`, `Move` and `Outcome` live in `engine.game`, which loads numba; importing
`engine` alone does not, so protocol adapters can answer a GUI before the JIT is ready.
A program that must answer at once calls `defer_compilation()` first: the kernels then run
as plain Python (slow but immediate) until `compile_kernels()` switches them to numba.
"""

from .jit.modes import compile_kernels, defer_compilation, kernels_compiled
from .rules.rulesets import RULE_SETS, RuleError, RuleSet, get_rule_set, rule_set_names

__all__ = [
    "Game", "Move", "Outcome", "FenError", "IllegalMoveError", "InvalidMoveError",
    "Searcher", "Limits", "SearchInfo", "SearchResult",
    "RULE_SETS", "RuleError", "RuleSet", "get_rule_set", "rule_set_names",
    "compile_kernels", "defer_compilation", "kernels_compiled",
]

_LAZY = {
    "Game": "rules.game", "Move": "rules.game", "Outcome": "rules.game", "IllegalMoveError": "rules.game",
    "InvalidMoveError": "rules.game", "FenError": "rules.fen", "Searcher": "search.searcher", "Limits": "search.searcher",
    "SearchInfo": "search.searcher", "SearchResult": "search.searcher",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")

"""The kernels run as plain Python while compilation is deferred (engine.jit), and agree
with the compiled ones: the same legal moves, perft counts, outcomes and FENs in every rule
set, the same network scores; an interpreted search keeps to its time; the switch to
compiled kernels keeps games."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from engine import Game
from engine import RULE_SETS

ROOT = Path(__file__).resolve().parents[1]

# Runs in a fresh process: defers compilation, then answers with interpreted kernels.
PROBE = r"""
import json, sys, time
import engine
engine.defer_compilation()
from engine import Game, Limits, Searcher, kernels_compiled
given = json.loads(sys.stdin.read())
cases = given["cases"]
import numpy as np
from engine.search.network import network_score
network_scores = [[int(network_score(Game(variant, fen).position(), np.array(network, dtype=np.int16)))
                   for variant, fen in cases if variant == "antichess"] for network in given["networks"]]
answers = []
for variant, fen in cases:
    game = Game(variant, fen)
    answers.append({
        "moves": sorted(move.uci() for move in game.legal_moves()),
        "perft2": game.perft(2),
        "outcome": None if game.outcome() is None else [game.outcome().winner, game.outcome().reason],
        "check": game.is_check(),
        "fen": game.fen(),
    })
started = time.perf_counter()
game = Game("antichess")
result = Searcher(hash_mb=1).search(game, Limits(movetime=0.2))
elapsed = time.perf_counter() - started
numba_loaded = "numba" in sys.modules
interpreted = not kernels_compiled()
engine.compile_kernels()
compiled_after = kernels_compiled()
import numba
before = "engine.tablebase.generate" in sys.modules
from engine.tablebase import generate  # the table builder: first imported after the switch
dispatchers = [value for value in vars(generate).values() if isinstance(value, numba.core.registry.CPUDispatcher)
               and value.py_func.__module__ == generate.__name__]
plain = [value for value in vars(generate).values() if getattr(value, "allocates_arrays", False)
         and not isinstance(value, numba.core.registry.CPUDispatcher)]
late_compiled = not before and len(dispatchers) >= 3 and not plain
print(json.dumps({"late_compiled": late_compiled, "answers": answers, "network_scores": network_scores, "search_move": result.best_move.uci(), "search_seconds": elapsed,
                  "numba_loaded": numba_loaded, "interpreted": interpreted, "compiled_after": compiled_after,
                  "perft3_after_switch": game.perft(3)}))
"""


def _positions() -> list[tuple[str, str]]:
    """Start positions and positions along seeded random games, in every rule set."""
    rng = random.Random(6170)
    cases = []
    for variant in RULE_SETS:
        game = Game(variant)
        cases.append((variant, game.fen()))
        for _ in range(4):
            for _ in range(rng.randrange(4, 30)):
                moves = game.legal_moves()
                if not moves or game.outcome() is not None:
                    break
                game.push(rng.choice(moves))
            cases.append((variant, game.fen()))
    return cases


def _networks() -> list:
    """16-bit networks of the two widths summed in vector registers and one other, with
    first-layer sums large enough to saturate."""
    import numpy as np
    from engine.search.network import NETWORK_ROWS, PADDING, ROW_B1, ROW_W2, quantize

    networks = []
    for hidden in (32, 64, 48):
        weights = (np.random.default_rng(hidden).standard_normal((NETWORK_ROWS, hidden)) * 0.2).astype(np.float32)
        weights[:ROW_B1 + 1] *= 30.0
        weights[ROW_W2] *= 300.0
        weights[PADDING] = 0.0
        networks.append(quantize(weights))
    return networks


def test_interpreted_kernels_agree_with_compiled_ones():
    from engine.search.network import network_score

    cases = _positions()
    networks = _networks()
    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", PROBE],
                          input=json.dumps({"cases": cases, "networks": [network.tolist() for network in networks]}),
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert not report["numba_loaded"]  # deferred: the engine ran without importing numba
    assert report["interpreted"] and report["compiled_after"]
    assert report["late_compiled"]  # a kernel module imported after the switch is compiled
    assert len(report["answers"]) == len(cases)
    for (variant, fen), answer in zip(cases, report["answers"]):
        game = Game(variant, fen)
        outcome = game.outcome()
        assert answer["moves"] == sorted(move.uci() for move in game.legal_moves()), (variant, fen)
        assert answer["perft2"] == game.perft(2), (variant, fen)
        assert answer["outcome"] == (None if outcome is None else [outcome.winner, outcome.reason])
        assert answer["check"] == game.is_check(), (variant, fen)
        assert answer["fen"] == game.fen()
    for network, scores in zip(networks, report["network_scores"]):  # the interpreted sums saturate alike
        assert scores == [network_score(Game(variant, fen).position(), network) for variant, fen in cases
                          if variant == "antichess"]
        assert len(set(scores)) >= 4
    assert Game("antichess").is_legal(report["search_move"])
    assert report["search_seconds"] < 1.0, report["search_seconds"]  # movetime 0.2, stop obeyed
    assert report["perft3_after_switch"] == Game("antichess").perft(3)

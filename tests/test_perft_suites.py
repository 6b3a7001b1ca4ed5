"""Perft suites in tests/data/perft_<rule set>.txt, each count from outside tools.

Every count was produced by independent tools (python-chess, Fairy-Stockfish/pyffish,
Sjeng) as recorded on its line; `tools/perft_reference.py --check FILE` recomputes them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Game

DATA = Path(__file__).resolve().parent / "data"


def load_suite(path: Path) -> list[tuple[str, str, int, int, str]]:
    """(id, fen, depth, nodes, sources) for every perft line of a suite file."""
    cases = []
    name = fen = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if keyword == "id":
            name, fen = rest.strip(), None
        elif keyword == "fen":
            fen = rest.strip()
        elif keyword == "perft":
            fields = rest.split()
            assert name and fen and len(fields) == 3, f"{path.name}:{number}: malformed perft line"
            cases.append((name, fen, int(fields[0]), int(fields[1]), fields[2]))
        else:
            raise AssertionError(f"{path.name}:{number}: unknown keyword {keyword!r}")
    return cases


SUITES = sorted(DATA.glob("perft_*.txt"))
CASES = [
    pytest.param(path.stem.removeprefix("perft_"), *case, id=f"{path.stem.removeprefix('perft_')}-{case[0]}-d{case[2]}")
    for path in SUITES
    for case in load_suite(path)
]


def test_every_outside_checked_rule_set_has_a_suite():
    names = {path.stem.removeprefix("perft_") for path in SUITES}
    assert {"chess", "antichess", "giveaway", "suicide", "losers"} <= names


@pytest.mark.parametrize("variant,name,fen,depth,nodes,sources", CASES)
def test_perft_matches_reference(variant, name, fen, depth, nodes, sources):
    tools = set(sources.split(","))
    assert tools <= {"python-chess", "fairy-stockfish", "pyffish", "sjeng"}
    if variant != "mit-antichess":  # the only file with a single source, said in its header
        families = {"fairy-stockfish" if tool == "pyffish" else tool for tool in tools}
        assert len(families) >= 2, "a count needs two independent tools"
    assert Game(variant, fen).perft(depth) == nodes


DEEP_CASES = [
    pytest.param(path.stem.removeprefix("perft_"), *case, id=f"deep-{path.stem.removeprefix('perft_')}-{case[0]}-d{case[2]}")
    for path in sorted((DATA / "deep").glob("perft_*.txt"))
    for case in load_suite(path)
]


@pytest.mark.slow
@pytest.mark.parametrize("variant,name,fen,depth,nodes,sources", DEEP_CASES)
def test_deep_perft_matches_reference(variant, name, fen, depth, nodes, sources):
    assert len(set(sources.split(","))) >= 2
    assert Game(variant, fen).perft(depth) == nodes

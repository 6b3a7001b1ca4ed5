"""Endgame tables (engine.tablebase): built here, checked against an independent reference.

The reference is written separately from the engine: python-chess's AntichessBoard /
SuicideBoard generate the moves, and a plain retrograde solver over the explicit game
graph (by distance rounds) gives each position's value and distance in plies.  The
default run builds every 2- and 3-piece antichess table; the `slow` marker adds both rule
sets' complete 2-piece reference check and all 2- and 3-piece suicide tables.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import chess
import chess.variant
import numpy as np
import pytest

from engine import Game, tablebase
from engine.fen import format_fen
from engine.rules import get_rule_set

BOARDS = {"antichess": chess.variant.AntichessBoard, "suicide": chess.variant.SuicideBoard}
SOME_THREE = ["KPvK", "NvBP", "QRvK", "KvKN", "BBvK"]
LETTERS = "PNBRQK"


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    """Every 2- and 3-piece antichess table (about 40 s of CPU)."""
    directory = tmp_path_factory.mktemp("tablebases")
    built = tablebase.build("antichess", 3, directory)
    assert len(built) == len(tablebase.materials(3))
    return directory


# ---------------------------------------------------------------------------------------
# The reference: python-chess moves, retrograde by distance rounds


def _terminal(board) -> int | None:
    """Code of a finished position for the side to move (1 win, -1 loss, 0 draw), else None."""
    if board.is_variant_end() or not any(board.legal_moves):
        if board.is_variant_win():
            return 1
        if board.is_variant_loss():
            return -1
        return 0
    return None


def reference_solve(variant: str, fens) -> dict[str, int]:
    """Codes (0 draw, d+1 win in d plies, -(d+1) loss in d) of every position reachable from
    `fens`, keyed by EPD."""
    board_class = BOARDS[variant]
    ids: dict[str, int] = {}
    children: list[list[int]] = []
    codes: list[int | None] = []
    todo = []
    for fen in fens:
        todo.append(board_class(fen))
    while todo:
        board = todo.pop()
        key = board.epd()
        if key in ids:
            continue
        ids[key] = len(children)
        children.append([])
        codes.append(_terminal(board))
        if codes[-1] is not None:
            continue
        kids = []
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            kids.append(child)
        children[-1] = kids  # boards for now, ids below
        todo.extend(kids)
    for i, kids in enumerate(children):
        children[i] = [ids[kid.epd()] for kid in kids]
    # retrograde by distance: a position lost in d-1 makes its open parents wins in d; a
    # position won in d-1 uncounts one child of each open parent, whose last child makes it
    # a loss in d (every child a win, the slowest in d-1)
    parents: list[list[int]] = [[] for _ in children]
    for i, kids in enumerate(children):
        for k in kids:
            parents[k].append(i)
    left = [len(kids) for kids in children]
    frontier = [i for i, code in enumerate(codes) if code is not None and code != 0]
    d = 1
    while frontier:
        following = []
        for q in frontier:
            for p in parents[q]:
                if codes[p] is not None:
                    continue
                if codes[q] < 0:
                    codes[p] = d + 1
                    following.append(p)
                else:
                    left[p] -= 1
                    if left[p] == 0:
                        codes[p] = -(d + 1)
                        following.append(p)
        frontier = following
        d += 1
    return {key: (codes[i] if codes[i] is not None else 0) for key, i in ids.items()}


def all_positions(material: str):
    """FENs of every legal placement of `material` ('KvN': white letters v black letters),
    either side to move."""
    white, black = material.split("v")
    pieces = [c for c in white] + [c.lower() for c in black]
    for squares in _placements(len(pieces)):
        board = chess.Board(None)
        ok = True
        for piece, square in zip(pieces, squares):
            if piece in "Pp" and chess.square_rank(square) in (0, 7):
                ok = False
                break
            board.set_piece_at(square, chess.Piece.from_symbol(piece))
        if not ok:
            continue
        for turn in (chess.WHITE, chess.BLACK):
            board.turn = turn
            yield board.fen()


def _placements(n):
    if n == 2:
        for a in range(64):
            for b in range(64):
                if a != b:
                    yield (a, b)
    else:
        raise ValueError(n)


def _code(result: tablebase.ProbeResult) -> int:
    return {"win": result.distance + 1, "loss": -(result.distance + 1), "draw": 0}[result.value]


# ---------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("material", ["KvK", "NvB", "BvB"])
def test_two_pieces_agree_with_reference(tables, material):
    tb = tablebase.Tablebase("antichess", tables)
    fens = list(all_positions(material))
    reference = reference_solve("antichess", fens)
    wrong = []
    for fen in fens:
        expected = reference[chess.variant.AntichessBoard(fen).epd()]
        got = _code(tb.probe_fen(fen))
        if got != expected:
            wrong.append((fen, expected, got))
    assert not wrong[:5], f"{len(wrong)} of {len(fens)} positions differ"


@pytest.mark.slow
@pytest.mark.parametrize("material", ["KvP", "PvP"])
def test_pawn_endings_agree_with_reference(tables, material):
    test_two_pieces_agree_with_reference(tables, material)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["antichess", "suicide"])
def test_every_two_piece_position_agrees_with_reference(tmp_path, variant):
    tablebase.build(variant, 2, tmp_path)
    tb = tablebase.Tablebase(variant, tmp_path)
    fens = [fen for material in tablebase.materials(2) for fen in all_positions(material.name)]
    reference = reference_solve(variant, fens)
    board_class = BOARDS[variant]
    wrong = [fen for fen in fens if _code(tb.probe_fen(fen)) != reference[board_class(fen).epd()]]
    assert not wrong, f"{variant}: {len(wrong)} of {len(fens)} differ, e.g. {wrong[:3]}"


def _random_positions(material: tablebase.Material, count: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        index = rng.randrange(material.size)
        row = tablebase.decode_position("antichess", material, index)
        if row is not None:
            out.append(format_fen(row, get_rule_set("antichess")))
    return out


def _check_against_python_chess(variant, tb, fens):
    """Each position's value and distance equal the best over its python-chess successors,
    each valued by the tables (finished positions by python-chess itself)."""
    board_class = BOARDS[variant]
    for fen in fens:
        board = board_class(fen)
        got = _code(tb.probe_fen(fen))
        terminal = _terminal(board)
        if terminal is not None:
            assert got == terminal, fen
            continue
        best = None
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            code = _terminal(child)
            if code is None:
                code = _code(tb.probe_fen(child.fen()))
            mine = -(code + 1) if code > 0 else (1 - code if code < 0 else 0)
            rank = (100000 - mine) if mine > 0 else ((-100000 - mine) if mine < 0 else 0)
            if best is None or rank > best[0]:
                best = (rank, mine)
        assert got == best[1], fen


def test_random_three_piece_positions_agree_with_python_chess(tables):
    """2,000 random 3-piece positions: 100 from each of 20 random tables, and SOME_THREE."""
    tb = tablebase.Tablebase("antichess", tables)
    rng = random.Random(15)
    three = [m for m in tablebase.materials(3) if m.pieces == 3]
    chosen = rng.sample(three, 20) + [tablebase.Material.parse(name).canonical() for name in SOME_THREE]
    for material in chosen:
        _check_against_python_chess("antichess", tb, _random_positions(material, 100, rng.randrange(1 << 30)))


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["antichess", "suicide"])
def test_all_three_piece_tables(tmp_path, variant):
    built = tablebase.build(variant, 3, tmp_path)
    assert len(built) == len(tablebase.materials(3))
    tb = tablebase.Tablebase(variant, tmp_path)
    rng = random.Random(7)
    three = [m for m in tablebase.materials(3) if m.pieces == 3]
    fens = []
    for material in rng.sample(three, 40):
        fens += _random_positions(material, 100, rng.randrange(1 << 30))
    _check_against_python_chess(variant, tb, fens)
    for material in tablebase.materials(3):
        assert tablebase.verify_table(variant, material, tmp_path) == [], material.name


def test_whole_table_invariants(tables):
    for material in tablebase.closure(SOME_THREE):
        assert tablebase.verify_table("antichess", material, tables) == [], material.name


def test_en_passant_position_is_searched(tables):
    # right after e2e4 black must capture en passant (the tables index no en-passant square:
    # the position is valued by searching its successors), and then white has no pieces left
    tb = tablebase.Tablebase("antichess", tables)
    fen = "8/8/8/8/3pP3/8/8/8 b - e3 0 1"
    assert {m.uci() for m in Game("antichess", fen).legal_moves()} == {"d4e3"}
    result = tb.probe_fen(fen)
    assert (result.value, result.distance, result.moves) == ("loss", 1, ["d4e3"])
    assert _code(result) == reference_solve("antichess", [fen])[chess.variant.AntichessBoard(fen).epd()]


def test_probe_moves_keep_the_value(tables):
    tb = tablebase.Tablebase("antichess", tables)
    result = tb.probe_fen("8/8/8/8/8/8/1k6/K7 w - - 0 1")  # K v K, adjacent: white must capture
    assert result.value == "loss" and result.moves == ["a1b2"] and result.distance == 1
    result = tb.probe_fen("8/8/8/8/8/8/8/K5k1 w - - 0 1")
    assert result.value in ("win", "draw", "loss")
    for code in result.codes:
        assert tablebase._value_name(code) == result.value
    with pytest.raises(tablebase.TablebaseError):
        tb.probe_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")


def test_files_header_atomic_and_resume(tables, tmp_path):
    header = tablebase.read_header(tablebase.table_path(tables, "antichess", tablebase.Material.parse("KvK")))
    assert header["format"] == tablebase.FORMAT_VERSION and header["variant"] == "antichess"
    assert header["material"] == "KvK"
    assert not list((tables / "antichess").glob("*.tmp"))
    events = []
    tablebase.build("antichess", 2, tmp_path, callback=events.append)
    first = [e for e in events if e["event"] == "table" and not e["skipped"]]
    assert len(first) == len(tablebase.materials(2))
    victim = tablebase.table_path(tmp_path, "antichess", tablebase.Material.parse("QvR"))
    victim.unlink()
    events.clear()
    built = tablebase.build("antichess", 2, tmp_path, callback=events.append)
    assert [h["material"] for h in built] == ["QvR"]
    assert sum(e["positions"] for e in events if e["event"] == "progress") == tablebase.Material.parse("QvR").size


def test_colour_reversed_material_probes_flipped(tables):
    tb = tablebase.Tablebase("antichess", tables)
    # P v K is stored as K v P with colours reversed
    a = tb.probe_fen("8/8/8/8/8/8/4P3/k7 w - - 0 1")
    b = tb.probe_fen("K7/4p3/8/8/8/8/8/8 b - - 0 1")
    assert (a.value, a.distance) == (b.value, b.distance)
    assert [m[0] + str(9 - int(m[1])) + m[2] + str(9 - int(m[3])) + m[4:] for m in a.moves] == b.moves


def test_cli_probe(tables):
    fens = ["8/8/8/8/8/8/1k6/K7 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "8/8/8/8/8/8/4P3/k7 w - - 0 1"]
    done = subprocess.run([sys.executable, "-m", "antichess", "tablebase", "probe", "--variant", "antichess",
                           "--dir", str(tables)], input="\n".join(fens) + "\n", capture_output=True, text=True,
                          timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode != 0 and len(lines) == 3, done.stderr
    assert lines[0] == "value loss distance 1 moves a1b2"
    assert lines[1].startswith("error")
    assert lines[2].startswith("value ")


def test_search_plays_table_move(tables):
    from engine.searcher import Limits, Searcher

    game = Game("antichess", "8/8/8/8/8/8/4P3/k7 w - - 0 1")
    tb = tablebase.Tablebase("antichess", tables)
    expected = tb.probe(game)
    searcher = Searcher(hash_mb=1)
    searcher.tablebase_path = str(tables)
    infos = []
    result = searcher.search(game, Limits(movetime=0.2), infos.append)
    assert result.best_move.uci() == expected.moves[0]
    assert infos and infos[-1].tbhits >= 1

"""Endgame tables (engine.tablebase): built here, checked against an independent reference.

The reference is written separately from the engine: python-chess's AntichessBoard /
SuicideBoard generate the moves, and a plain retrograde solver over the explicit game
graph (by distance rounds) gives each position's value and distance in plies.  The
default run builds every 2- and 3-piece antichess table; the `slow` marker adds both rule
sets' complete 2-piece reference check and all 2- and 3-piece suicide tables.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import random
import subprocess
import sys
import time

import chess
import chess.variant
import numpy as np
import pytest

from engine import Game, tablebase
from engine.rules.fen import format_fen
from engine.rules.rulesets import get_rule_set
from engine.tablebase import dtz as dtz_module, probing as probing_module, residency as residency_module

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


# sha256 (first 16 hex digits) of each table's int16 codes (little-endian, INVALID included)
# as the first generator (format 1: edge lists, full sweeps per round; commit 567dc73)
# wrote them; the current generator must give the same codes.
ANTICHESS_FORMAT_1_HASHES = {
    "BvB": "57cc393a527b0cc1", "BvN": "438f7f9d6c3c4b01", "KvB": "d923de6c3c045541",
    "KvK": "58fbe86c1aef57d1", "KvN": "a6ebaf0bf2d96a6a", "KvQ": "ef0725b156ebe532",
    "KvR": "ee23027219b3fb15", "NvN": "f2428140b083d2f0", "QvB": "260dce6f83eef4ae",
    "QvN": "644e01e30365a362", "QvQ": "8d6e6a450d1d2507", "QvR": "c458d5bc157cd978",
    "RvB": "0c138f860c76cf75", "RvN": "04e3c3af63f184b0", "RvR": "035baba046810830",
    "BvP": "99bcfd45126bedfb", "KvP": "ce56282598b0d8c5", "NvP": "12684613c457d1fa",
    "QvP": "20ab4c380aa233f0", "RvP": "25d7503c9fb924fe", "PvP": "63a42573cb25d443",
    "BBvB": "2c66d062977e2b88", "BBvK": "813de22f8942f0e7", "BBvN": "8ac546ada7128616",
    "BBvQ": "cce8003446db3f9b", "BBvR": "2cfb43219236db66", "BNvB": "ca79792ee77b735b",
    "BNvK": "64795e53fe9ece77", "BNvN": "b470313a87f30369", "BNvQ": "20f5a1c9212e115a",
    "BNvR": "b7d8df0dff8216ef", "KBvB": "ff62df95e65413f6", "KBvK": "d60d11b9e688ce54",
    "KBvN": "56fdd75dd3152a18", "KBvQ": "bc99bcdb9129115d", "KBvR": "93d88102a9a44462",
    "KKvB": "99ac09ac121bd857", "KKvK": "26f0cf6ecbf24141", "KKvN": "fadc4b8bfa7ad673",
    "KKvQ": "efe656580b189514", "KKvR": "c16d05287e65bfbd", "KNvB": "523d27c63309e971",
    "KNvK": "3178372ee0660946", "KNvN": "727314ace6fec158", "KNvQ": "84ec5025f13000d9",
    "KNvR": "b9773be193bf67f1", "KQvB": "030e17111d7c9574", "KQvK": "edec9e40e8510cd1",
    "KQvN": "1ea3c97a85cadf09", "KQvQ": "36488b35d0ebbb62", "KQvR": "f0aea726f119eda2",
    "KRvB": "817a7498e613d42c", "KRvK": "f3aea9228c09c62c", "KRvN": "5d053a9b13897cf0",
    "KRvQ": "05101d547364dfee", "KRvR": "8711afa17fc58c5f", "NNvB": "dfae95fe53a74f19",
    "NNvK": "1dd47d5b16706454", "NNvN": "b1fced5fd425775e", "NNvQ": "6b4cd08bcf6497f2",
    "NNvR": "f748e8e1a443b901", "QBvB": "4abf9972ab2591a0", "QBvK": "16f3d29ed71ec3bf",
    "QBvN": "9268691f2adc5345", "QBvQ": "4339faf26c15e4b4", "QBvR": "ce65b1e67c65790d",
    "QNvB": "15f2c641b8091e5f", "QNvK": "306cc9abf5005c24", "QNvN": "7a6e91a956f7ac9e",
    "QNvQ": "947b78a8056a038a", "QNvR": "c0d8f366f1bc2544", "QQvB": "f55c24c28e3218dc",
    "QQvK": "b5e5d36be55e5783", "QQvN": "825566050b2e7636", "QQvQ": "83ca4204881e9865",
    "QQvR": "7f0dcf78064ffd72", "QRvB": "bfd8fed386eae460", "QRvK": "12d08f2d28f18659",
    "QRvN": "463fd6d895039ab6", "QRvQ": "561aa7ac3e4a28ac", "QRvR": "bfca957bb0b5cd15",
    "RBvB": "5a7177b92c5bc0bd", "RBvK": "92d3f3fcf839b33c", "RBvN": "da8d78cc23e9c17f",
    "RBvQ": "243bcc52a92c7fba", "RBvR": "0b0021cfa077d784", "RNvB": "2e59cb1dc439b847",
    "RNvK": "b19adcf59e9e4bab", "RNvN": "1485a0eeb29258de", "RNvQ": "7743641702dcf102",
    "RNvR": "8597517659ef678f", "RRvB": "475348471e6843a6", "RRvK": "8e1c06773fee8ac9",
    "RRvN": "77849aea1b389b3f", "RRvQ": "d34a59160ccf65b0", "RRvR": "762509afe945483d",
    "BBvP": "ff6ed68d3528d1a3", "BNvP": "a8926ba725d413a2", "BPvB": "6ed0bc553dab18c8",
    "BPvK": "3e5155d80386aeeb", "BPvN": "93648d492f47179f", "BPvQ": "b046be65131b0204",
    "BPvR": "6273171829d2f119", "KBvP": "37d2f565b8306431", "KKvP": "68fdbeded8f2acf5",
    "KNvP": "44ec6261010f3760", "KPvB": "160a728dfac7dbea", "KPvK": "1497af7d4e738f7d",
    "KPvN": "78942532344f89c7", "KPvQ": "a61597faa170547d", "KPvR": "8ef734eaff873139",
    "KQvP": "5bdbefc2768cd0b4", "KRvP": "62adecd332fc18dc", "NNvP": "7e4ed1a42589be91",
    "NPvB": "a53f6c0eb38664b6", "NPvK": "8dbf97ebddbbe79a", "NPvN": "25d1d553053edd45",
    "NPvQ": "e265cd09c6cd79d7", "NPvR": "168fd020b51792e7", "QBvP": "7ef618e788105749",
    "QNvP": "bda6f8a9c346d9d6", "QPvB": "e67a0c63e05126d9", "QPvK": "bf8bc9a2b10c6301",
    "QPvN": "2c88b37f9b62b204", "QPvQ": "dc9fba6c9d818d83", "QPvR": "a2c1ccf8050a0da1",
    "QQvP": "5f3cfb2bd096b377", "QRvP": "e40737f524de4103", "RBvP": "6d0c97585f1929e2",
    "RNvP": "fcc3c4c7ceba44a0", "RPvB": "f2c6eecb91d7811e", "RPvK": "7f8f37460ad661b2",
    "RPvN": "44fb4382dda481ac", "RPvQ": "16e1e564f1cff8cc", "RPvR": "a5dae2ff299b4ff8",
    "RRvP": "140b8b2cd5dd1115", "BPvP": "bf960e5dc1b991d7", "KPvP": "db67697b99210f5b",
    "NPvP": "f3f93a81f7605c25", "PPvB": "bbd151be8708526b", "PPvK": "e088b9489891cd81",
    "PPvN": "8bf6bf01dd393d15", "PPvQ": "e8b1fb2153dd6b0a", "PPvR": "09fb530b00be2efa",
    "QPvP": "baec96c1bf62cc29", "RPvP": "be7f334e167d9915", "PPvP": "2bcbcb5ebddf002d",
}

SUICIDE_FORMAT_1_HASHES = {
    "BvB": "57cc393a527b0cc1", "BvN": "438f7f9d6c3c4b01", "KvB": "d923de6c3c045541",
    "KvK": "58fbe86c1aef57d1", "KvN": "a6ebaf0bf2d96a6a", "KvQ": "ef0725b156ebe532",
    "KvR": "ee23027219b3fb15", "NvN": "f2428140b083d2f0", "QvB": "260dce6f83eef4ae",
    "QvN": "644e01e30365a362", "QvQ": "8d6e6a450d1d2507", "QvR": "c458d5bc157cd978",
    "RvB": "0c138f860c76cf75", "RvN": "04e3c3af63f184b0", "RvR": "035baba046810830",
    "BvP": "111a39b4d3cc6821", "KvP": "96e7fcf204dcaf62", "NvP": "5479e0aaeff2d16d",
    "QvP": "0b1492d2fecb3de7", "RvP": "4d801f89ae99b583", "PvP": "969174721a4fad87",
    "BBvB": "2c66d062977e2b88", "BBvK": "813de22f8942f0e7", "BBvN": "8ac546ada7128616",
    "BBvQ": "cce8003446db3f9b", "BBvR": "2cfb43219236db66", "BNvB": "ca79792ee77b735b",
    "BNvK": "64795e53fe9ece77", "BNvN": "b470313a87f30369", "BNvQ": "20f5a1c9212e115a",
    "BNvR": "b7d8df0dff8216ef", "KBvB": "ff62df95e65413f6", "KBvK": "d60d11b9e688ce54",
    "KBvN": "56fdd75dd3152a18", "KBvQ": "bc99bcdb9129115d", "KBvR": "93d88102a9a44462",
    "KKvB": "99ac09ac121bd857", "KKvK": "26f0cf6ecbf24141", "KKvN": "fadc4b8bfa7ad673",
    "KKvQ": "efe656580b189514", "KKvR": "c16d05287e65bfbd", "KNvB": "523d27c63309e971",
    "KNvK": "3178372ee0660946", "KNvN": "727314ace6fec158", "KNvQ": "84ec5025f13000d9",
    "KNvR": "b9773be193bf67f1", "KQvB": "030e17111d7c9574", "KQvK": "edec9e40e8510cd1",
    "KQvN": "1ea3c97a85cadf09", "KQvQ": "36488b35d0ebbb62", "KQvR": "f0aea726f119eda2",
    "KRvB": "817a7498e613d42c", "KRvK": "f3aea9228c09c62c", "KRvN": "5d053a9b13897cf0",
    "KRvQ": "05101d547364dfee", "KRvR": "8711afa17fc58c5f", "NNvB": "dfae95fe53a74f19",
    "NNvK": "1dd47d5b16706454", "NNvN": "b1fced5fd425775e", "NNvQ": "6b4cd08bcf6497f2",
    "NNvR": "f748e8e1a443b901", "QBvB": "4abf9972ab2591a0", "QBvK": "16f3d29ed71ec3bf",
    "QBvN": "9268691f2adc5345", "QBvQ": "4339faf26c15e4b4", "QBvR": "ce65b1e67c65790d",
    "QNvB": "15f2c641b8091e5f", "QNvK": "306cc9abf5005c24", "QNvN": "7a6e91a956f7ac9e",
    "QNvQ": "947b78a8056a038a", "QNvR": "c0d8f366f1bc2544", "QQvB": "f55c24c28e3218dc",
    "QQvK": "b5e5d36be55e5783", "QQvN": "825566050b2e7636", "QQvQ": "83ca4204881e9865",
    "QQvR": "7f0dcf78064ffd72", "QRvB": "bfd8fed386eae460", "QRvK": "12d08f2d28f18659",
    "QRvN": "463fd6d895039ab6", "QRvQ": "561aa7ac3e4a28ac", "QRvR": "bfca957bb0b5cd15",
    "RBvB": "5a7177b92c5bc0bd", "RBvK": "92d3f3fcf839b33c", "RBvN": "da8d78cc23e9c17f",
    "RBvQ": "243bcc52a92c7fba", "RBvR": "0b0021cfa077d784", "RNvB": "2e59cb1dc439b847",
    "RNvK": "b19adcf59e9e4bab", "RNvN": "1485a0eeb29258de", "RNvQ": "7743641702dcf102",
    "RNvR": "8597517659ef678f", "RRvB": "475348471e6843a6", "RRvK": "8e1c06773fee8ac9",
    "RRvN": "77849aea1b389b3f", "RRvQ": "d34a59160ccf65b0", "RRvR": "762509afe945483d",
    "BBvP": "0fc3ac719fd3d662", "BNvP": "63621b5762b349cb", "BPvB": "d7cd33ca7426dcc8",
    "BPvK": "2d5983fc522011bf", "BPvN": "2e907068d6781490", "BPvQ": "c28693e953e1dcc5",
    "BPvR": "48bdfcecdb9b4715", "KBvP": "c55f80a864c0f383", "KKvP": "68fdbeded8f2acf5",
    "KNvP": "c66cef3c483f6315", "KPvB": "b8d8ff8409b04577", "KPvK": "47894b16614a27ec",
    "KPvN": "5354bb105ef1e36d", "KPvQ": "ced4b422f5dbee60", "KPvR": "6cd5532ac8894770",
    "KQvP": "5bdbefc2768cd0b4", "KRvP": "62adecd332fc18dc", "NNvP": "2657cdd5980214c7",
    "NPvB": "915a32cc630518a7", "NPvK": "6bb0c1d0992a1392", "NPvN": "00d248edc9a5d224",
    "NPvQ": "1ec09b75eb056204", "NPvR": "b767a0883fc3a4ff", "QBvP": "4d635c470fd59083",
    "QNvP": "bba008aa7acc2edf", "QPvB": "214fa8afd4df2be4", "QPvK": "6071136b551cd3ef",
    "QPvN": "10c885a9256c6549", "QPvQ": "71eacdaa6818facc", "QPvR": "39e8abcf2c5e5008",
    "QQvP": "5f3cfb2bd096b377", "QRvP": "e40737f524de4103", "RBvP": "8bc2b646f7e4368d",
    "RNvP": "d4b37644a47c96c1", "RPvB": "41615bf21d4021d8", "RPvK": "e9e0956918c4c4f3",
    "RPvN": "575c0c75878c52d5", "RPvQ": "47b1905c0d4c3b66", "RPvR": "2233c26cafb7b79c",
    "RRvP": "140b8b2cd5dd1115", "BPvP": "608a155d67d46652", "KPvP": "4a553f7379155805",
    "NPvP": "7660b36361530ccd", "PPvB": "b7af744b4ed318d4", "PPvK": "f48e9894701acd0d",
    "PPvN": "900083ffd2811d89", "PPvQ": "9fbd95cd54d4ff79", "PPvR": "d95034b09c553132",
    "QPvP": "730a9075d6a6d399", "RPvP": "048074ae187f6315", "PPvP": "6f2751f6e4bb06ea",
}


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


def _wait_for_reading(tb, seconds: float = 60) -> None:
    """Until `tb`'s background threads have read every table and DTZ companion they were
    asked for (or `seconds`)."""
    deadline = time.monotonic() + seconds
    while tb.store.reading() and time.monotonic() < deadline:
        time.sleep(0.02)


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


@pytest.mark.slow
def test_four_piece_tables_agree_with_python_chess(tables, tmp_path):
    """4-piece tables (one pawnless, one with a pawn, and every 4-piece table they need,
    built on the default run's 3-piece ones): 2,000 random positions of each agree with
    the best over their python-chess successors, and every entry of the two passes the
    whole-table invariant check."""
    import shutil

    for path in (tables / "antichess").glob("*.actb"):
        (tmp_path / "antichess").mkdir(exist_ok=True)
        shutil.copy(path, tmp_path / "antichess" / path.name)
    wanted = [tablebase.Material.parse(name).canonical() for name in ("KRvKN", "NPvB")]
    tablebase.build("antichess", 4, tmp_path, only=[m.name for m in wanted])
    tb = tablebase.Tablebase("antichess", tmp_path)
    for seed, material in enumerate(wanted):
        _check_against_python_chess("antichess", tb, _random_positions(material, 2000, seed))
        assert tablebase.verify_table("antichess", material, tmp_path) == [], material.name


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
        assert tablebase.value_name(code) == result.value
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
    from engine.search.searcher import Limits, Searcher

    game = Game("antichess", "8/8/8/8/8/8/4P3/k7 w - - 0 1")
    tb = tablebase.Tablebase("antichess", tables)
    expected = tb.probe(game)
    searcher = Searcher(hash_mb=1)
    searcher.tablebase_path = str(tables)
    fresh = tablebase.Tablebase("antichess", tables)
    with pytest.raises(tablebase.TablebaseError, match=tablebase.NOT_READ):
        fresh.probe(game, wait=False)  # a player's probe does not wait for the disk
    _wait_for_reading(fresh)
    assert fresh.probe(game, wait=False) == expected
    first = searcher.search(game, Limits(movetime=0.2))  # never waits for the disk: asks for the tables
    assert first.best_move in game.legal_moves()
    _wait_for_reading(tablebase.open_tablebase("antichess", str(tables)))
    infos = []
    result = searcher.search(game, Limits(movetime=0.2), infos.append)
    assert result.best_move.uci() == expected.moves[0]
    assert infos and infos[-1].tbhits >= 1


def _codes_hash(codes: np.ndarray) -> str:
    return hashlib.sha256(codes.astype("<i2").tobytes()).hexdigest()[:16]


def _differing_from_format_1(directory, variant: str, expected: dict) -> list[str]:
    differ = []
    for material in tablebase.materials(3):
        _, codes = tablebase.read_table(tablebase.table_path(directory, variant, material))
        if _codes_hash(codes) != expected[material.name]:
            differ.append(material.name)
    return differ


def test_tables_equal_the_first_generators(tables):
    """Every 2- and 3-piece antichess table equals the first generator's, entry for entry."""
    assert len(ANTICHESS_FORMAT_1_HASHES) == len(tablebase.materials(3))
    assert _differing_from_format_1(tables, "antichess", ANTICHESS_FORMAT_1_HASHES) == []


@pytest.mark.slow
def test_suicide_tables_equal_the_first_generators(tmp_path):
    tablebase.build("suicide", 3, tmp_path)
    assert _differing_from_format_1(tmp_path, "suicide", SUICIDE_FORMAT_1_HASHES) == []


def test_format_2_file_and_format_1_still_read(tables, tmp_path):
    """Format 2 stores int8 codes with INVALID entries filled in (restored on reading);
    a format-1 file (int16 codes, lzma) is still read, and counts as built when resuming;
    an unknown format is refused with a message naming it."""
    material = tablebase.Material.parse("KPvK").canonical()
    path = tablebase.table_path(tables, "antichess", material)
    header, codes = tablebase.read_table(path)
    assert header["format"] == 2 and header["encoding"] == "int8"
    invalid = codes == tablebase.INVALID
    assert invalid.any() and np.array_equal(~invalid, tablebase.valid_mask(material))
    old = dict(header, format=1)
    old.pop("encoding")
    head = json.dumps(old).encode()
    v1 = tablebase.table_path(tmp_path, "antichess", material)
    v1.parent.mkdir(parents=True)
    v1.write_bytes(tablebase.MAGIC + len(head).to_bytes(4, "little") + head
                   + lzma.compress(codes.astype("<i2").tobytes()))
    again, read = tablebase.read_table(v1)
    assert again["format"] == 1 and np.array_equal(read, codes)
    assert tablebase.valid_table(v1, "antichess", material)
    head = json.dumps(dict(header, format=99)).encode()
    v1.write_bytes(tablebase.MAGIC + len(head).to_bytes(4, "little") + head)
    with pytest.raises(ValueError, match="format 99"):
        tablebase.read_table(v1)


def _capture_only_four_piece_positions(count: int, seed: int) -> list[str]:
    """Random 4-piece antichess positions (no en-passant square) in which the side to move
    must capture: every move leads into a 3-piece table."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        material = rng.choice([tablebase.Material.parse(n) for n in ("KRvKN", "QvRB", "NPvBP", "KBvQP", "RvNNP")])
        row = tablebase.decode_position("antichess", material, rng.randrange(material.size))
        if row is None:
            continue
        game = Game("antichess", format_fen(row, get_rule_set("antichess")))
        moves = game.legal_moves()
        if moves and game.outcome() is None and all(m.is_capture for m in moves):
            out.append(game.fen())
    return out


def test_search_tree_probes_agree_with_the_probe_api(tables):
    """A one-ply search from a 4-piece position whose moves all capture gets each reply's
    value from the tables inside the kernel: its score must be the best of the values the
    probe API gives for the positions after each move (a win or loss in d plies as a mate
    score, a draw as 0), with a table hit for each move that leaves both sides pieces."""
    from engine.search.alphabeta import search_root
    from engine.search.scores import INFINITY, MATE
    from engine.search.searcher import SEARCH_ROWS, Limits, Searcher
    from engine.search.state import STATE_TBHITS

    tb = tablebase.Tablebase("antichess", tables)
    checked = {"win": 0, "draw": 0, "loss": 0}
    for fen in _capture_only_four_piece_positions(60, seed=5):
        game = Game("antichess", fen)
        expected = -INFINITY
        hits = 0  # children with pieces on both sides (the others are over: no table needed)
        for move in game.legal_moves():
            game.push(move)
            child = tb.probe(game)
            hits += game.piece_count("white") > 0 and game.piece_count("black") > 0
            game.pop()
            d = 1 + child.distance
            value = {"loss": MATE - d, "draw": 0, "win": d - MATE}[child.value]
            expected = max(expected, value)
        searcher = Searcher(hash_mb=1)
        searcher.tablebase_path = str(tables)
        tablebase.open_tablebase("antichess", str(tables)).search_tables(game.position(), wait=True)
        probing = searcher.root_tables.probing(game, Limits(movetime=1.0))
        assert probing.limit[0] == tablebase.MAX_PIECES
        with game.kernel_rows(SEARCH_ROWS) as (stack, mlist, idx, rules):
            arrays = searcher.kernel_arrays(stack.shape[0], rules)._replace(tables=probing)
            searcher.state[:] = 0
            score = int(search_root(stack, np.int64(idx), np.int64(1), np.int64(-INFINITY), np.int64(INFINITY),
                                    rules, mlist, arrays))
        assert score == expected, fen
        assert hits <= searcher.state[STATE_TBHITS] <= 2 * hits, fen  # a re-search probes again
        checked["win" if score > 0 else "loss" if score < 0 else "draw"] += 1
    assert min(checked.values()) > 0, checked  # the sample holds wins, draws and losses


def test_timed_search_probes_in_the_tree_and_reports_tbhits(tables):
    """With only 3-piece tables, a 4-piece position is searched (no root probe) and the
    tables, read by a background thread after the first search asked for them, answer
    inside the tree (tbhits in the info); a depth-bounded search (a fixed workload) and a
    search told to use no tables probe nothing."""
    from engine.search.searcher import Limits, Searcher

    fen = "8/2p5/8/3k4/8/8/8/R3N3 w - - 0 1"
    searcher = Searcher(hash_mb=4)
    searcher.tablebase_path = str(tables)
    searcher.search(Game("antichess", fen), Limits(movetime=0.05))  # asks for the tables
    _wait_for_reading(tablebase.open_tablebase("antichess", str(tables)))  # the background thread reads them
    infos = []
    result = searcher.search(Game("antichess", fen), Limits(movetime=1.0, proof=False), infos.append)
    assert result.best_move is not None and max(info.tbhits for info in infos) > 0
    bounded = searcher.search(Game("antichess", fen), Limits(depth=6))
    assert bounded.info.tbhits == 0
    searcher.tablebase_path = ""
    assert searcher.search(Game("antichess", fen), Limits(movetime=0.2)).info.tbhits == 0


def test_tables_reachable_from_a_position_nearest_first(tables, monkeypatch):
    """The search asks for the tables of materials the game can reach by captures and
    promotions, those one change away first, colour-reversed twins as one table."""
    assert len(tablebase.Tablebase("antichess", tables).reachable(
        Game("antichess", "8/2p5/8/3k4/8/8/8/R3N3 w - - 0 1").position())) == tablebase.SEARCH_TABLES
    monkeypatch.setattr(residency_module, "SEARCH_TABLES", 64)
    tb = tablebase.Tablebase("antichess", tables)
    game = Game("antichess", "8/2p5/8/3k4/8/8/8/R3N3 w - - 0 1")  # RN against KP
    reached = tb.reachable(game.position())
    assert reached[0] == tablebase.Material.parse("RNvKP").canonical()  # its own table first
    reached = reached[1:]
    one_change = {tablebase.Material.parse(n).canonical() for n in
                  ["RvKP", "NvKP", "RNvK", "RNvP", "RNvKN", "RNvKB", "RNvKR", "RNvKQ", "RNvKK"]}
    assert set(reached[:len(one_change)]) == one_change
    assert len(set(reached)) == len(reached) and all(m.pieces <= tablebase.MAX_PIECES for m in reached)
    two_changes = {tablebase.Material.parse(n).canonical() for n in ["RvK", "NvP", "RvQ", "QvRN"]}
    assert two_changes <= set(reached[len(one_change):])
    castling = Game("giveaway", "r3k3/8/8/8/8/8/8/4K3 w q - 0 1")
    assert tb.reachable(castling.position()) == []


def test_probes_within_a_small_memory_bound(tables, monkeypatch):
    """With room for only a few tables the buffer is emptied and refilled as materials
    change, and every probe still answers as without the bound (the tables a probe needs
    are never dropped half-way)."""
    free = tablebase.Tablebase("antichess", tables)
    monkeypatch.setattr(residency_module, "SEARCH_MEMORY", 6 * 2 * tablebase.Material.parse("KPvK").size)
    bounded = tablebase.Tablebase("antichess", tables)
    rng = random.Random(11)
    names = ["KPvK", "NvBP", "QRvK", "KvKN", "BBvK", "PvPP", "RvQP", "KNvP", "QvKB", "PPvK"]
    for _ in range(4):
        for name in rng.sample(names, len(names)):
            for fen in _random_positions(tablebase.Material.parse(name).canonical(), 5, rng.randrange(1000)):
                game = Game("antichess", fen)
                if game.outcome() is None:
                    assert bounded.probe(game) == free.probe(game), fen
    assert bounded.store.entries_held * 2 <= residency_module.SEARCH_MEMORY
    # the search's snapshot keeps to the bound too
    row = Game("antichess", "8/2p5/8/3k4/8/8/8/R3N3 w - - 0 1").position()
    limit, tdesc, keymap, buf = bounded.search_tables(row, wait=True)
    assert limit[0] == tablebase.MAX_PIECES and bounded.store.entries_held * 2 <= residency_module.SEARCH_MEMORY


def _search_when_read(searcher, game, tables):
    """A timed search once the background thread has read the tables the position needs
    (the first search asks for them and does not wait)."""
    from engine.search.searcher import Limits

    searcher.search(game, Limits(movetime=0.05))
    _wait_for_reading(tablebase.open_tablebase("antichess", str(tables)))
    return searcher.search(game, Limits(movetime=0.1))


def test_root_tables_kept_beyond_the_search_bound(tables, monkeypatch):
    """The tables the root probe needs (its own and those one move away) are read and kept
    even when the search asks for fewer tables than that (a bound of 3 here): the second
    timed search plays from the tables (a first version dropped them again at every search,
    and won 4-piece positions were drawn by repetition)."""
    from engine.search.searcher import Searcher

    monkeypatch.setattr(residency_module, "SEARCH_TABLES", 3)
    monkeypatch.setattr(probing_module, "OPENED", {})
    game = Game("antichess", "8/8/8/8/8/8/4P3/k7 w - - 0 1")
    expected = tablebase.Tablebase("antichess", tables).probe(game)
    searcher = Searcher(hash_mb=1)
    searcher.tablebase_path = str(tables)
    result = _search_when_read(searcher, game, tables)
    assert result.best_move.uci() == expected.moves[0] and result.info.tbhits == 1


def test_a_table_win_resets_the_clock_before_the_fifty_move_rule(tables):
    """The tables count plies to the end of the game and know no fifty-move rule: when the
    quickest win would meet it, the engine plays the quickest winning move that resets the
    clock (a capture, a pawn move, or a move every reply to which captures) instead; with a
    fresh clock, the quickest win."""
    from engine.search.searcher import Searcher

    tb = tablebase.Tablebase("antichess", tables)
    searcher = Searcher(hash_mb=1)
    searcher.tablebase_path = str(tables)
    found = 0
    fens = _random_positions(tablebase.Material.parse("KPvN").canonical(), 300, seed=3)
    fens += _random_positions(tablebase.Material.parse("BPvN").canonical(), 300, seed=4)
    for fen in fens:
        game = Game("antichess", fen)
        if game.outcome() is not None:
            continue
        probe = tb.probe(game)
        moves = {m.uci(): m for m in game.legal_moves()}

        def zeroing(text):
            if moves[text].is_capture or game.piece_at(moves[text].from_square) in ("P", "p"):
                return True
            game.push(moves[text])
            replies = game.legal_moves()
            forced = bool(replies) and all(reply.is_capture for reply in replies)
            game.pop()
            return forced

        if probe.value != "win" or zeroing(probe.moves[0]) or not any(zeroing(t) for t in probe.moves):
            continue
        fresh = _search_when_read(searcher, game, tables)
        assert fresh.best_move.uci() == probe.moves[0]
        late = Game("antichess", fen.replace(" 0 1", " 97 60"))
        played = _search_when_read(searcher, late, tables).best_move.uci()
        assert played == next(t for t in probe.moves if zeroing(t))
        found += 1
        if found == 5:
            break
    assert found == 5


# ---------------------------------------------------------------------------------------
# DTZ companions: plies to the next capture or pawn move


DTZ_MATERIALS = ["KPvN", "BPvN", "NPvK"]


@pytest.fixture(scope="module")
def dtz_tables(tables, tmp_path_factory):
    """A copy of the 2- and 3-piece tables with DTZ companions of DTZ_MATERIALS (built
    directly: no 3-piece win is long enough for `build` to give them one)."""
    import shutil

    directory = tmp_path_factory.mktemp("dtz")
    shutil.copytree(tables / "antichess", directory / "antichess")
    for name in DTZ_MATERIALS:
        header = tablebase.build_table("antichess", tablebase.Material.parse(name).canonical(), directory,
                                       metric="dtz")
        assert header["metric"] == "dtz" and (directory / "antichess" / f"{header['material']}.actz").exists()
    return directory


def _plies(code: int) -> int:
    return abs(code) - 1 if code else 0


def _index_in_table(tb, board):
    game = Game("antichess", board.fen())
    tids, indexes = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    tablebase.locate_many(game.position()[None, :], tb.registry.tdesc, tb.registry.keymap, tablebase.GEO,
                           np.zeros(64, dtype=np.int64), tids, indexes)
    return tb.registry.tables[int(tids[0])], int(indexes[0])


def _check_companion(directory, names, limit, count):
    """Random positions of each material's companion, checked with python-chess's moves
    against the definition under a fifty-move rule of `limit` plies.  Each move leads to a
    capture or pawn move (one ply) or to a position of the same table (one ply more than
    its distance); its result counts for the mover as a win or loss the rule allows only
    when the position after it is one (a table without companion has no others), else as
    a draw.  A win the rule allows is the fewest plies over the moves into such wins, and
    at most `limit`; a loss the rule allows has only moves into such wins, the most plies
    over them, at most `limit`; any other position is 0 when the DTM table draws it, else
    the DTM table's sign with a magnitude of at least CURSED.  Returns how many were checked."""
    tb = tablebase.Tablebase("antichess", directory)
    companions, dtms = {}, {}

    def lookup(board):
        material, index = _index_in_table(tb, board)
        if material not in dtms:
            dtms[material] = tablebase.read_table(tablebase.table_path(directory, "antichess", material))[1]
            path = tablebase.table_path(directory, "antichess", material, "dtz")
            companions[material] = tablebase.read_table(path)[1] if path.exists() else None
        dtm = int(dtms[material][index])
        companion = companions[material]
        return dtm, (int(companion[index]) if companion is not None else None)

    checked = 0
    for name in names:
        material = tablebase.Material.parse(name).canonical()
        for fen in _random_positions(material, count, seed=11):
            board = chess.variant.AntichessBoard(fen)
            dtm, code = lookup(board)
            assert code is not None
            if _terminal(board) is not None:
                assert code == _terminal(board), fen
                continue
            options = []  # (result for the mover under the rule: 1, -1, 0; plies)
            for move in board.legal_moves:
                zeroing = board.is_capture(move) or board.piece_type_at(move.from_square) == chess.PAWN
                board.push(move)
                terminal = _terminal(board)
                if terminal is not None:
                    options.append((-terminal, 1))
                elif board.has_legal_en_passant():
                    child = _code(tb.probe_fen(board.fen()))  # a double step: searched, never drawn by the rule
                    options.append((-int(np.sign(child)), 1))
                else:
                    child_dtm, child = lookup(board)
                    if child is None:
                        child = child_dtm  # no companion: every win within the rule
                    ruled = 0 if abs(child) >= tablebase.CURSED else -int(np.sign(child))
                    options.append((ruled, 1 if zeroing else abs(child) - 1 + 1))
                board.pop()
            wins = [plies for result, plies in options if result > 0]
            if wins and min(wins) <= limit:
                assert code == min(wins) + 1, fen
            elif all(result < 0 for result, _ in options) and max(p for _, p in options) <= limit:
                assert code == -(max(p for _, p in options) + 1), fen
            elif dtm == 0:
                assert code == 0, fen
            else:
                assert np.sign(code) == np.sign(dtm) and abs(code) >= tablebase.CURSED, fen
            checked += 1
    return checked


def test_dtz_companion_agrees_with_its_definition(dtz_tables):
    """The companions of DTZ_MATERIALS, against `_check_companion` (100-ply rule: no
    3-piece win is drawn by it), and their values against the DTM tables'."""
    for name in DTZ_MATERIALS:
        material = tablebase.Material.parse(name).canonical()
        _, dtz = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material, "dtz"))
        _, dtm = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material))
        assert np.array_equal(np.sign(dtz), np.sign(dtm))
    assert _check_companion(dtz_tables, DTZ_MATERIALS, 100, 400) > 1000


def test_dtz_companion_under_a_short_fifty_move_rule(tmp_path, monkeypatch):
    """With the rule shortened to 12 plies, `build` gives companions to every table with a
    win longer than 10 plies; wins the rule draws and losses it saves appear, pass from
    table to table across captures and pawn moves, and every sampled position of the
    companions agrees with `_check_companion`."""
    monkeypatch.setattr(dtz_module, "FIFTY_MOVE_PLIES", 12)  # what the DTZ solver reads
    monkeypatch.setattr(dtz_module, "DTZ_FROM_PLIES", 10)
    built = tablebase.build("antichess", 3, tmp_path, only=["BPvN", "KPvN"])
    headers = {h["material"]: h for h in built if h["metric"] == "dtz"}
    assert {"BPvN", "KPvN"} <= set(headers)
    cursed = sum(h["stats"][side]["cursed_win"] + h["stats"][side]["blessed_loss"]
                 for h in headers.values() for side in ("white", "black"))
    assert cursed > 0
    assert _check_companion(tmp_path, sorted(headers), 12, 150) > 100


def _play_out(tb, fen: str, choose_win) -> tuple[str, int]:
    """Play a won position to its end, the winner by `choose_win(game, probe, legal)`, the
    loser by the move that puts the next capture or pawn move furthest off (then the
    longest loss); returns (result for the winner, the highest halfmove clock seen)."""
    game = Game("antichess", fen)
    winner = game.turn
    highest = game.halfmove_clock
    while game.outcome() is None and game.halfmove_clock < 100:
        probe = tb.probe(game)
        legal = {m.uci(): m for m in game.legal_moves()}
        if game.turn == winner:
            assert probe.value == "win"
            move = choose_win(game, probe, legal)
        else:
            zeroing = tb.zeroing_plies(game, [legal[t] for t in probe.moves])
            if zeroing is None:  # a table without companion (its wins all fit in the rule)
                move = legal[probe.moves[0]]
            else:
                move = legal[max(probe.moves, key=lambda t: zeroing[t][::-1])]
        game.push(move)
        highest = max(highest, game.halfmove_clock)
    outcome = game.outcome()
    if outcome is None:
        return "fifty-move draw", highest
    return ("win" if outcome.winner == winner else "not won"), highest


def test_long_wins_follow_the_dtz_companion_within_the_fifty_move_rule(dtz_tables):
    """From won positions whose quickest win would outlast the clock (distance + clock
    over 98 plies) but whose DTZ fits in it, the engine's choice wins against the most
    stubborn defence before the fifty-move rule, every time; quickest-win play (DTM only)
    runs into the rule from some of the same positions."""
    from engine.search.roottables import fifty_move_choice

    tb = tablebase.Tablebase("antichess", dtz_tables)
    material = tablebase.Material.parse("NPvK").canonical()
    _, dtz = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material, "dtz"))
    _, dtm = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material))
    wide_dtm, wide_dtz = dtm.astype(np.int32), dtz.astype(np.int32)
    long_wins = np.flatnonzero((wide_dtm > 0) & (wide_dtm - wide_dtz >= 20))  # quickest win 20 plies past DTZ
    rng = random.Random(5)
    engine_choice = lambda game, probe, legal: (fifty_move_choice(tb, game, probe, legal, True)  # noqa: E731
                                                or legal[probe.moves[0]])
    quickest = lambda game, probe, legal: legal[probe.moves[0]]  # noqa: E731
    played = drawn_by_dtm = 0
    for index in rng.sample(list(long_wins), 30):
        row = tablebase.decode_position("antichess", material, int(index))
        clock = 100 - _plies(int(dtz[index]))  # just enough clock left for the DTZ path
        fen = format_fen(row, get_rule_set("antichess")).replace(" 0 1", f" {clock} 80")
        if Game("antichess", fen).outcome() is not None:
            continue
        result, highest = _play_out(tb, fen, engine_choice)
        assert result == "win" and highest < 100, fen
        drawn_by_dtm += _play_out(tb, fen, quickest)[0] != "win"
        played += 1
    assert played >= 25
    assert drawn_by_dtm > 0


def test_search_plays_the_dtz_move_late_in_the_clock(dtz_tables, monkeypatch):
    """Through a timed search: a long win late in the clock is played by the companion
    (the winning move with the fewest plies to a capture or pawn move); early in the
    clock, the quickest win."""
    from engine.search.searcher import Searcher

    monkeypatch.setattr(probing_module, "OPENED", {})
    tb = tablebase.Tablebase("antichess", dtz_tables)
    searcher = Searcher(hash_mb=1)
    searcher.tablebase_path = str(dtz_tables)
    material = tablebase.Material.parse("NPvK").canonical()
    _, dtm = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material))
    _, dtz = tablebase.read_table(tablebase.table_path(dtz_tables, "antichess", material, "dtz"))
    wide_dtm, wide_dtz = dtm.astype(np.int32), dtz.astype(np.int32)
    found = 0
    for index in np.flatnonzero((wide_dtm > 0) & (wide_dtm - wide_dtz >= 20))[::37]:
        fen = format_fen(tablebase.decode_position("antichess", material, int(index)), get_rule_set("antichess"))
        game = Game("antichess", fen)
        probe = tb.probe(game)
        legal = {m.uci(): m for m in game.legal_moves()}
        zeroing = {t: plies for t, (_, plies) in tb.zeroing_plies(game, [legal[t] for t in probe.moves]).items()}
        fastest = min(zeroing.values())
        if zeroing[probe.moves[0]] == fastest:
            continue  # the quickest win is also the quickest to a capture or pawn move
        assert _search_when_read(searcher, game, dtz_tables).best_move.uci() == probe.moves[0]
        late = Game("antichess", fen.replace(" 0 1", " 80 60"))
        played = _search_when_read(searcher, late, dtz_tables).best_move.uci()
        assert zeroing[played] == fastest and played in probe.moves
        found += 1
        if found == 3:
            break
    assert found == 3


def test_build_adds_dtz_companions_to_long_wins_only(tmp_path, monkeypatch):
    """`build` gives a DTZ companion to each table with a win longer than DTZ_FROM_PLIES,
    and to no other; a second build has nothing left to do."""
    monkeypatch.setattr(dtz_module, "DTZ_FROM_PLIES", 20)
    built = tablebase.build("antichess", 3, tmp_path, only=["KPvN"])
    dtz = {h["material"] for h in built if h["metric"] == "dtz"}
    long = {h["material"] for h in built if h["metric"] == "dtm" and tablebase.needs_dtz(h)}
    assert dtz == long and dtz and len(dtz) < len(built) - len(dtz)
    for name in dtz:
        assert (tmp_path / "antichess" / f"{name}.actz").exists()
    assert tablebase.build("antichess", 3, tmp_path, only=["KPvN"]) == []


def test_unread_estimate_counts_the_companion_and_follows_the_reads(dtz_tables):
    """The root probe's wait estimate counts every table still to read, the DTZ companion
    included, at the running seconds per entry, which the reads themselves update."""
    tb = tablebase.Tablebase("antichess", dtz_tables)
    material = tablebase.Material.parse("NPvK").canonical()
    game = Game("antichess", "8/8/8/8/8/2P5/8/1k3N2 w - - 0 1")
    assert tablebase.own_material(game.position()) == material
    tables = [material] + tablebase.dependencies(material)
    entries = sum(m.size for m in tables) + material.size  # the companion too
    assert tb.unread_seconds(game.position()) == pytest.approx(tablebase.SECONDS_PER_ENTRY * entries)
    tb.probe(game)
    assert tb.store.seconds_per_entry != tablebase.SECONDS_PER_ENTRY  # the reads measured
    assert tb.unread_seconds(game.position()) == pytest.approx(tb.store.seconds_per_entry * material.size)
    tb.zeroing_plies(game, game.legal_moves())
    assert tb.unread_seconds(game.position()) == 0

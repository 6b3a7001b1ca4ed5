#!/usr/bin/env python3
"""Endgame tables in play: won 4-piece positions must be won, drawn ones never lost.

    python3 benchmarks/tablebase_play.py --opponent PATH [--dir DIR] [--won 50] [--drawn 50]
        [--tc 10+0.1] [--concurrency 2] [--seed 2026] [--pgnout FILE]

Positions come from the 4-piece antichess tables in DIR (default: the engine's table
folder; build them first with `antichess tablebase build --variant antichess --pieces 4`):

- won: the longest win of each table (side to move wins; the first such index) among the
  wins the fifty-move rule allows (a table's DTZ companion marks the others: they are
  draws against the best defence), the `--won` tables with the longest of these, each
  once: our engine moves first;
- drawn: `--drawn` tables drawn at random (seeded), in each a random drawn position in
  which the side to move has at least one losing move (a draw that can be thrown away);
  our engine plays the side to move in the first half and the other side in the second.

Each game is refereed by the project's own rules core (tournaments.referee.play_game,
the fifty-move rule and repetition as in any antichess game), one thread and 64 MB hash per
engine, our engine with the tables (`TablebasePath`), the opponent (any UCI antichess
engine, for example a Fairy-Stockfish build) without.  The script prints one line per game
and a summary; its exit status is 0 only when every won position was won and no drawn one
was lost.  The opponent is only ever run by this script, never by a test.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import Game, tablebase  # noqa: E402
from engine.rules.fen import format_fen  # noqa: E402
from engine.rules.rulesets import get_rule_set  # noqa: E402
from tournaments.engines import engine_config  # noqa: E402
from tournaments.referee import Opening, RefereeSettings, Seat, play_game  # noqa: E402

VARIANT = "antichess"


def _fen(material: tablebase.Material, index: int) -> str | None:
    row = tablebase.decode_position(VARIANT, material, int(index))
    return None if row is None else format_fen(row, get_rule_set(VARIANT))


def _four_piece(directory: Path) -> list[tablebase.Material]:
    return [m for m in tablebase.materials(4) if m.pieces == 4
            and tablebase.table_path(directory, VARIANT, m).exists()]


def _winnable(directory: Path, material: tablebase.Material, codes: np.ndarray) -> np.ndarray:
    """`codes` with every win the fifty-move rule draws (by the table's DTZ companion, when
    it has one) set to 0: such a position cannot be won against the best defence."""
    companion = tablebase.table_path(directory, VARIANT, material, "dtz")
    if not companion.exists():
        return codes
    _, dtz = tablebase.read_table(companion)
    return np.where((codes > 0) & (dtz.astype(np.int32) >= tablebase.CURSED), 0, codes)


def won_positions(directory: Path, count: int) -> list[tuple[str, str, int]]:
    """(material, FEN, distance) of the `count` longest table wins that the fifty-move
    rule allows, one per table."""
    candidates = []  # (longest allowed win, material, its index when already read)
    for material in _four_piece(directory):
        header = tablebase.read_header(tablebase.table_path(directory, VARIANT, material))
        longest = max(header["stats"][side]["longest_win"] for side in ("white", "black"))
        index = None
        if tablebase.table_path(directory, VARIANT, material, "dtz").exists():
            _, codes = tablebase.read_table(tablebase.table_path(directory, VARIANT, material))
            index = int(np.argmax(_winnable(directory, material, codes)))
            longest = int(codes[index]) - 1
        candidates.append((longest, material, index))
    candidates.sort(key=lambda item: (-item[0], item[1].name))
    chosen = []
    for longest, material, index in candidates:
        if len(chosen) == count:
            break
        if index is None:  # no companion: every win is allowed
            _, codes = tablebase.read_table(tablebase.table_path(directory, VARIANT, material))
            index = int(np.argmax(codes))  # the largest code: the longest win for the side to move
            longest = int(codes[index]) - 1
        fen = _fen(material, index)
        if fen is None or Game(VARIANT, fen).outcome() is not None:
            continue
        chosen.append((material.name, fen, longest))
    return chosen


def drawn_positions(directory: Path, count: int, seed: int) -> list[tuple[str, str, int]]:
    """(material, FEN, 0) of `count` drawn positions with a losing move, one per table."""
    rng = random.Random(seed)
    tables = _four_piece(directory)
    rng.shuffle(tables)
    tb = tablebase.Tablebase(VARIANT, directory)
    chosen = []
    for material in tables:
        if len(chosen) == count:
            break
        header, codes = tablebase.read_table(tablebase.table_path(directory, VARIANT, material))
        draws = np.flatnonzero(codes == 0)
        for index in rng.sample(list(draws), min(200, len(draws))) if len(draws) else []:
            fen = _fen(material, index)
            if fen is None:
                continue
            game = Game(VARIANT, fen)
            if game.outcome() is not None:
                continue
            probe = tb.probe(game)
            if probe.value == "draw" and len(probe.moves) < len(game.legal_moves()):
                chosen.append((material.name, fen, 0))
                break
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", required=True, help="a UCI antichess engine")
    parser.add_argument("--dir", default=None, help="table folder (default: the engine's)")
    parser.add_argument("--won", type=int, default=50)
    parser.add_argument("--drawn", type=int, default=50)
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--pgnout", default=None)
    args = parser.parse_args(argv)
    directory = Path(args.dir) if args.dir else tablebase.default_directory()

    started = time.monotonic()
    won = won_positions(directory, args.won)
    drawn = drawn_positions(directory, args.drawn, args.seed)
    print(f"positions: {len(won)} won (longest wins {won[0][2] if won else 0}..{won[-1][2] if won else 0} "
          f"plies), {len(drawn)} drawn, chosen in {time.monotonic() - started:.1f} s", flush=True)

    ours = engine_config([("name", "ours"), ("cmd", sys.executable), ("arg", "-m"), ("arg", "antichess"),
                          ("arg", "uci"), ("dir", str(ROOT)), ("option.Hash", "64"),
                          ("option.TablebasePath", str(directory)), ("tc", args.tc), ("timemargin", "300")])
    theirs = engine_config([("name", "opponent"), ("cmd", args.opponent), ("option.Hash", "64"),
                            ("option.Threads", "1"), ("tc", args.tc), ("timemargin", "300")])
    jobs = [("won", material, fen, distance, True) for material, fen, distance in won]
    jobs += [("drawn", material, fen, 0, i < len(drawn) // 2) for i, (material, fen, _) in enumerate(drawn)]

    def play(job):
        kind, material, fen, distance, we_move = job
        game = Game(VARIANT, fen)
        our_side = game.turn if we_move else ("black" if game.turn == "white" else "white")
        seats = {our_side: Seat(ours), ("black" if our_side == "white" else "white"): Seat(theirs)}
        try:
            record = play_game(seats["white"], seats["black"], VARIANT, Opening(fen=fen), RefereeSettings())
        finally:
            for seat in seats.values():
                seat.close()
        score = record.score_for("ours")
        return kind, material, fen, distance, our_side, record, score

    results = {"won": [0, 0, 0], "drawn": [0, 0, 0]}  # wins, draws, losses for us
    pgn = []
    with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
        for kind, material, fen, distance, our_side, record, score in pool.map(play, jobs):
            slot = 0 if score == 1 else (1 if score == 0.5 else 2)
            results[kind][slot] += 1
            print(f"{kind:5} {material:6} {'WDL'[slot]} us={our_side:5} table distance {distance:3} "
                  f"plies {record.plies:3} {record.result:7} {record.termination}: {record.reason}  [{fen}]",
                  flush=True)
            pgn.append(record.pgn)
    if args.pgnout:
        Path(args.pgnout).write_text("\n".join(pgn))
    w, d, l = results["won"]
    print(f"won positions:   {w} won, {d} drawn, {l} lost (of {len(won)}; target: all won)")
    w2, d2, l2 = results["drawn"]
    print(f"drawn positions: {w2} won, {d2} drawn, {l2} lost (of {len(drawn)}; target: none lost)")
    print(f"total time {time.monotonic() - started:.0f} s")
    return 0 if w == len(won) and l2 == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Where the games against another engine were lost: the ply at which the opponent's own
score first reached a threshold, our score just before, the ply of its first announced win
(a mate score) and ours.

    python3 tools/lost_games.py MATCH.pgn [--us NAME] [--threshold 2.0] [--pace | --first | --openings | --agreement | --calibrated P]

`--pace` prints instead, over every game of the match, each side's mean time a move and
median reported depth by groups of five of its own moves. `--first` prints, for the games we
won, drew and lost, each side's first reported score of the game (its judgment of the
opening position): whether the opponent's first look already predicts the result.
`--openings` pairs the two games played from each opening (colours swapped) and counts the
pairs by our two results (LL, LD, DD, LW, DW, WW) and by how the opponent judged the opening
where it moved first: the side to move better by at least half the threshold, the other side,
or level; with our score in each group. `--agreement` sets our score at each of our moves
of plies 8-40 beside the opponent's score of its reply (turned to our side's view), grouped
by our score rounded to a pawn: how the two engines' judgments of the same positions compare.
`--calibrated P` compares the two sides on one scale, the win chance, instead of in pawns:
it fits each side's own logistic scale to the results (the centipawns per logistic unit with
which sigmoid(score / scale) best predicts, by cross-entropy, how the game ended for the side
that moved, a draw counting half), then finds in each lost game the ply at which the
opponent's win chance by its own score first reached P and the ply at which ours first fell
to 1 - P. Two engines' pawns are not the same size: a side whose scores spread wider reaches a
fixed pawn threshold sooner without seeing anything sooner.

Reads the PGN that `antichess tournament -pgnout` writes (each move's comment is
`score/depth time`, scores in pawns for the side that moved, `M` for a forced win).
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys

import chess.pgn

SCORE = re.compile(r"([+-]?)(M?)([\d.]+)/(\d+)")
TIME = re.compile(r"([\d.]+)s")
PACE_GROUP = 5  # own moves a group
POINTS = {"W": 1.0, "D": 0.5, "L": 0.0}  # a result letter's points


def read_games(path: str):
    """Every game of the PGN file at `path`, in order."""
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            yield game


def scored_moves(game, us: str):
    """(ply from 1, whether `us` made the move, node, SCORE match or None) for each move of
    `game`'s main line; the side of a move follows from the side to move at the start."""
    ours_first = (game.board().turn == chess.WHITE) == (game.headers.get("White") == us)
    for ply, node in enumerate(game.mainline(), 1):
        yield ply, (ply % 2 == 1) == ours_first, node, SCORE.match(node.comment.strip())


def pace(path: str, us: str, groups: int = 5) -> dict[str, list[tuple[float, float]]]:
    """{"us": ..., "them": ...}: for each of the first `groups` groups of PACE_GROUP own
    moves, (mean seconds a move, median reported depth) over every game of the PGN."""
    samples = {side: [[] for _ in range(groups)] for side in ("us", "them")}
    for game in read_games(path):
        for ply, ours, node, score in scored_moves(game, us):
            group = (ply - 1) // 2 // PACE_GROUP
            spent = TIME.search(node.comment)
            if group < groups and score and spent:
                samples["us" if ours else "them"][group].append((float(spent.group(1)), int(score.group(4))))
    nan = float("nan")
    return {side: [(statistics.fmean(t for t, _ in group) if group else nan,
                    statistics.median(d for _, d in group) if group else nan) for group in groups_of_side]
            for side, groups_of_side in samples.items()}


def our_result(game, us: str) -> str | None:
    """"W", "D" or "L": how the game ended for `us`; None for an unfinished game."""
    result = game.headers.get("Result")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    return "D" if result == "1/2-1/2" else "W" if (result == "1-0") == (game.headers.get("White") == us) else "L"


def value_of(match) -> float | None:
    """The score of a SCORE match in pawns for the side that moved, a forced win or loss as
    +-1000; None without a score."""
    if not match:
        return None
    mate = match.group(2) == "M"
    return (-1 if match.group(1) == "-" else 1) * (1000.0 if mate else float(match.group(3)))


def first_scores(path: str, us: str) -> dict[str, list[tuple[float | None, float | None]]]:
    """{"won": ..., "drawn": ..., "lost": ...} (our result): for each game, (the opponent's
    first reported score, ours), each in pawns for the side that moved, None if it gave none."""
    table = {"won": [], "drawn": [], "lost": []}
    outcomes = {"W": "won", "D": "drawn", "L": "lost"}
    for game in read_games(path):
        letter = our_result(game, us)
        if letter is None:
            continue
        first = {True: None, False: None}
        for _, ours, _, match in scored_moves(game, us):
            if first[ours] is None:
                first[ours] = value_of(match)
            if first[True] is not None and first[False] is not None:
                break
        table[outcomes[letter]].append((first[False], first[True]))
    return table


def opening_pairs(path: str, us: str, margin: float) -> dict[str, dict[str, int]]:
    """{"to move" | "other side" | "level": {pair: count}}: each opening played twice (the
    PGN's FEN, or the start), grouped by the opponent's first score in the game where it
    moved first (its side-to-move view: >= margin "to move", <= -margin "other side"), with
    the pair as our two results sorted ("LW" is a loss and a win); openings without both
    games or without that score are left out."""
    games: dict[str, list] = {}
    for game in read_games(path):
        letter = our_result(game, us)
        if letter is None:
            continue
        moves = list(scored_moves(game, us))
        judgment = None
        if moves and not moves[0][1]:  # the opponent moved first
            judgment = next((value_of(match) for _, ours, _, match in moves if not ours), None)
        games.setdefault(game.headers.get("FEN", "start"), []).append((letter, judgment))
    table = {"to move": {}, "other side": {}, "level": {}}
    for played in games.values():
        judgments = [judgment for _, judgment in played if judgment is not None]
        if len(played) != 2 or len(judgments) != 1:
            continue
        group = "to move" if judgments[0] >= margin else "other side" if judgments[0] <= -margin else "level"
        pair = "".join(sorted(letter for letter, _ in played))
        table[group][pair] = table[group].get(pair, 0) + 1
    return table


def agreement(path: str, us: str, first_ply: int = 8, last_ply: int = 40) -> dict[int, list[float]]:
    """{our score rounded to a pawn (clamped to -4..4): [the opponent's score of its reply,
    from our side's view, ...]} over our moves at plies first_ply..last_ply of every game;
    moves where either side reported a forced win or loss, or no score, are left out."""
    table: dict[int, list[float]] = {}
    for game in read_games(path):
        ours_last = None
        for ply, ours, _, match in scored_moves(game, us):
            value = value_of(match)
            if value is None or abs(value) >= 100:
                ours_last = None
            elif ours:
                ours_last = (ply, value) if first_ply <= ply <= last_ply else None
            elif ours_last is not None:
                table.setdefault(max(-4, min(4, round(ours_last[1]))), []).append(-value)
                ours_last = None
    return table


def scored_results(path: str, us: str, first_ply: int = 8, last_ply: int = 60) -> dict[str, list[tuple[float, float]]]:
    """{"us": ..., "them": ...}: (score in centipawns for the side that moved, that side's
    result: 1, 0.5 or 0) for every move of plies first_ply..last_ply with a score that is
    not a forced win or loss, in every finished game."""
    pairs = {"us": [], "them": []}
    for game in read_games(path):
        letter = our_result(game, us)
        if letter is None:
            continue
        ours_points = POINTS[letter]
        for ply, ours, _, match in scored_moves(game, us):
            value = value_of(match)
            if value is None or abs(value) >= 100 or not first_ply <= ply <= last_ply:
                continue
            pairs["us" if ours else "them"].append((100.0 * value, ours_points if ours else 1.0 - ours_points))
    return pairs


def sigmoid(x: float) -> float:
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def logistic_loss(pairs: list[tuple[float, float]], scale: float) -> float:
    """Mean cross-entropy of sigmoid(score / scale) against the results of `pairs`."""
    total = 0.0
    for centipawns, points in pairs:
        chance = min(max(sigmoid(centipawns / scale), 1e-9), 1.0 - 1e-9)
        total -= points * math.log(chance) + (1.0 - points) * math.log(1.0 - chance)
    return total / len(pairs)


def fitted_scale(pairs: list[tuple[float, float]], low: float = 10.0, high: float = 5000.0) -> float:
    """The scale (centipawns per logistic unit) in [low, high] with the least logistic_loss
    on `pairs`: a golden-section search on the logarithm of the scale (the loss has one
    minimum in it wherever higher scores go with better results)."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = math.log(low), math.log(high)
    for _ in range(60):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if logistic_loss(pairs, math.exp(c)) <= logistic_loss(pairs, math.exp(d)):
            b = d
        else:
            a = c
    return math.exp((a + b) / 2.0)


def win_chance(match, scale: float) -> float | None:
    """The win chance of the side that moved by the SCORE match at `scale`: a forced win 1,
    a forced loss 0; None without a score."""
    if not match:
        return None
    if match.group(2) == "M":
        return 0.0 if match.group(1) == "-" else 1.0
    return sigmoid(100.0 * value_of(match) / scale)


def calibrated_turns(path: str, us: str, scales: dict[str, float], chance: float) -> list[dict]:
    """One row per game `us` lost: the ply (from 1) and pieces on the board (before the
    move) at which the opponent's win chance by its own score at scales["them"] first reached
    `chance` ("theirs", "their_pieces"), and at which ours at scales["us"] first fell to
    1 - chance ("ours", "our_pieces"); None where it never did."""
    rows = []
    for game in read_games(path):
        if our_result(game, us) != "L":
            continue
        row = {"theirs": None, "their_pieces": None, "ours": None, "our_pieces": None}
        board = game.board()
        for ply, ours, node, match in scored_moves(game, us):
            pieces = len(board.piece_map())
            board.push(node.move)
            p = win_chance(match, scales["us" if ours else "them"])
            if p is None:
                continue
            if ours and row["ours"] is None and p <= 1.0 - chance:
                row["ours"], row["our_pieces"] = ply, pieces
            if not ours and row["theirs"] is None and p >= chance:
                row["theirs"], row["their_pieces"] = ply, pieces
        rows.append(row)
    return rows


def turning_point(game, us: str, threshold: float):
    """(ply, the node of our last scored move before it or None, the opponent's node) where
    the opponent's score first reached `threshold` pawns in `game`; None if it never did."""
    last_ours = None
    for ply, ours, node, match in scored_moves(game, us):
        if not match:
            continue
        if ours:
            last_ours = node
        elif value_of(match) >= threshold:
            return ply, last_ours, node
    return None


def lost_game_rows(path: str, us: str, threshold: float) -> list[dict]:
    """One row per game `us` lost: plies, pieces and scores at the turning points."""
    rows = []
    for game in read_games(path):
        if our_result(game, us) != "L":
            continue
        row = {"plies": 0, "turn": None, "pieces": None, "ours_before": None, "their_win": None, "our_loss": None}
        turn = turning_point(game, us, threshold)
        if turn is not None:
            row["turn"], ours_node, theirs_node = turn
            row["pieces"] = len(theirs_node.board().piece_map())
            if ours_node is not None:
                row["ours_before"] = value_of(SCORE.match(ours_node.comment.strip()))
        for ply, ours, node, match in scored_moves(game, us):
            row["plies"] = ply
            if not match:
                continue
            value = value_of(match)
            if ours:
                if row["our_loss"] is None and value <= -250:
                    row["our_loss"] = ply  # a mate score or our proven-loss score
            elif row["their_win"] is None and match.group(2) == "M" and value > 0:
                row["their_win"] = ply
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn")
    parser.add_argument("--us", default="ours", help="our engine's name in the PGN")
    parser.add_argument("--threshold", type=float, default=2.0, help="the opponent's score, in pawns")
    parser.add_argument("--pace", action="store_true", help="time and depth by move instead")
    parser.add_argument("--first", action="store_true", help="first scores by result instead")
    parser.add_argument("--openings", action="store_true", help="colour-swapped pairs by the opponent's view of the opening")
    parser.add_argument("--agreement", action="store_true", help="our scores beside the opponent's next ones")
    parser.add_argument("--calibrated", type=float, metavar="P",
                        help="turning points by each side's fitted win chance P (e.g. 0.75) instead of in pawns")
    args = parser.parse_args()
    if args.calibrated is not None:
        if not 0.5 < args.calibrated < 1.0:
            parser.error("--calibrated takes a win chance between 0.5 and 1")
        pairs = scored_results(args.pgn, args.us)
        if not pairs["us"] or not pairs["them"]:
            print("no scored moves at plies 8-60 for both sides", file=sys.stderr)
            return 1
        scales = {side: fitted_scale(pairs[side]) for side in ("us", "them")}
        for side in ("us", "them"):
            print(f"{side:<5} scale {scales[side]:.0f} cp a logistic unit over {len(pairs[side])} scores "
                  f"(loss {logistic_loss(pairs[side], scales[side]):.4f}; +2.00 is a win chance of "
                  f"{sigmoid(200 / scales[side]):.2f})")
        rows = calibrated_turns(args.pgn, args.us, scales, args.calibrated)
        print(f"lost games: {len(rows)}")
        for key, pieces, who in (("theirs", "their_pieces", f"opponent's win chance first >= {args.calibrated}"),
                                 ("ours", "our_pieces", f"our win chance first <= {1 - args.calibrated:.2f}")):
            found = [row for row in rows if row[key] is not None]
            if found:
                print(f"{who}: {len(found)} games, median ply {statistics.median(r[key] for r in found)}, "
                      f"median pieces {statistics.median(r[pieces] for r in found)}")
        both = [row["ours"] - row["theirs"] for row in rows if row["ours"] is not None and row["theirs"] is not None]
        if both:
            print(f"we saw it first in {sum(gap < 0 for gap in both)} of {len(both)}, at the same ply in "
                  f"{sum(gap == 0 for gap in both)}; our ply minus theirs: median {statistics.median(both):+}")
        return 0
    if args.agreement:
        for pawns, theirs in sorted(agreement(args.pgn, args.us).items()):
            print(f"our score {pawns:+d}: {len(theirs):5d} moves, the opponent's next score for our side: "
                  f"median {statistics.median(theirs):+.2f}, mean {statistics.fmean(theirs):+.2f}")
        return 0
    if args.openings:
        for group, pairs in opening_pairs(args.pgn, args.us, args.threshold / 2).items():
            total = sum(pairs.values())
            score = sum(count * sum(POINTS[letter] for letter in pair) for pair, count in pairs.items())
            detail = ", ".join(f"{pair} {count}" for pair, count in sorted(pairs.items()))
            print(f"{group:<10} {total:3d} openings: {detail or '-'}; our score "
                  f"{100 * score / (2 * total) if total else float('nan'):.1f}%")
        return 0
    if args.first:
        for outcome, pairs in first_scores(args.pgn, args.us).items():
            theirs = [t for t, _ in pairs if t is not None]
            ours = [o for _, o in pairs if o is not None]
            if not pairs:
                continue
            print(f"{outcome:<5} {len(pairs):4d} games: opponent's first score median "
                  f"{statistics.median(theirs) if theirs else float('nan'):+.2f} "
                  f"(>= +{args.threshold / 2:.2f} in {sum(t >= args.threshold / 2 for t in theirs)}), "
                  f"ours {statistics.median(ours) if ours else float('nan'):+.2f} "
                  f"(>= +{args.threshold / 2:.2f} in {sum(o >= args.threshold / 2 for o in ours)})")
        return 0
    if args.pace:
        table = pace(args.pgn, args.us)
        print("moves " + " ".join(f"{PACE_GROUP * g + 1:>3}-{PACE_GROUP * (g + 1):<3}" for g in range(len(table["us"]))))
        for side in ("us", "them"):
            print(f"{side:<5} time " + " ".join(f"{t:7.2f}" for t, _ in table[side]))
            print(f"{side:<5} depth" + " ".join(f"{d:7.1f}" for _, d in table[side]))
        return 0
    rows = lost_game_rows(args.pgn, args.us, args.threshold)
    if not rows:
        print("no lost games", file=sys.stderr)
        return 1

    def median(key):
        values = [row[key] for row in rows if row[key] is not None]
        return (statistics.median(values), len(values)) if values else (None, 0)

    print(f"lost games: {len(rows)}; median length {median('plies')[0]} plies")
    turn, count = median("turn")
    print(f"opponent's score first >= +{args.threshold}: median ply {turn} ({count} games), "
          f"median pieces then {median('pieces')[0]}")
    before = [row["ours_before"] for row in rows if row["ours_before"] is not None]
    if before:
        print(f"our score just before: median {statistics.median(before):+.2f}, "
              f"{sum(value >= 0 for value in before)} of {len(before)} at or above 0")
    gaps = [row["our_loss"] - row["their_win"] for row in rows if row["our_loss"] and row["their_win"]]
    print(f"opponent announces a forced win: median ply {median('their_win')[0]}; "
          f"we see the loss a median {statistics.median(gaps) if gaps else '-'} plies later")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Learn the antichess (or losers) evaluation from self-play: play, label, fit, write the weights.

    python3 tools/train_eval.py all [--games 4000] [--nodes 1500] [--seed 1]
    python3 tools/train_eval.py play --games N --nodes N [--no-network] --data artifacts/evaldata.npz
    python3 tools/train_eval.py play --against PATH --teacher-nodes N --games N --nodes N --data FILE
    python3 tools/train_eval.py play-teacher --teacher PATH --games N --teacher-nodes N --data FILE
    python3 tools/train_eval.py starts --pgn A.pgn[,B.pgn...] --plies 6-40 --out starts.fen
    python3 tools/train_eval.py play-teacher --teacher PATH --starts starts.fen --games N ...
    python3 tools/train_eval.py merge --data A.npz,B.npz[,...] --out ALL.npz
    python3 tools/train_eval.py fit --data artifacts/evaldata.npz --out engine/search/eval_weights.json
    python3 tools/train_eval.py play-teacher --variant losers ... ; fit --variant losers --data ...
    python3 tools/train_eval.py play|play-teacher ... --workers 16 [--chunk 100] [--seconds 3600]
    python3 tools/train_eval.py play|play-teacher ... --cluster tcp://HOST:8786 [--chunk 100]

`--variant` (default antichess) names the rule set the games are played and the weights
fitted under: antichess's weights go to engine/search/eval_weights.json, losers' (its legal
moves generated, the king being royal) to engine/search/eval_weights_losers.json.

`play`: self-play games under the antichess rules with the project's own engine at a fixed
node count per move (proof search off, so the games are reproducible), each starting from
4 to 8 uniformly random plies (seeded).  Every quiet position after the random opening (the
side to move has at least two legal moves and no capture) is kept with the game's result from
the side to move's point of view (1 win, 0.5 draw, 0 loss); games longer than 300 plies are
draws; each kept position also gets the engine's own score there (the "teacher" column: labels
from our own search).  `--no-network` plays without the evaluation network
(engine/search/network.py), as every version before it did.  `play --against PATH`: our
engine against a UCI engine at `--teacher-nodes` nodes a move instead of against itself, our
engine White in even-numbered games and Black in odd ones; the results then say how our
positions fare against that engine's play, and our search still scores every kept position,
whichever side moves.  `play-teacher`: the same with a UCI engine (e.g. Fairy-Stockfish)
playing both sides at a fixed node count, refereed by the project's rules; its results carry
the stronger engine's judgment (tools/train_network.py fits the network on both kinds), and
each kept position also gets the score the engine reported for the move it played there (a
"teacher" column, centipawns for the side to move).  `starts`: the positions of real games
(e.g. the match PGNs against the master build) within a range of plies, each once, as a FEN
file; `play-teacher --starts` then plays one game from each instead of from random plies, so
the results label the positions our engine actually meets.  `merge`: several data files
as one (games renumbered, commands joined), as `tools/teacher_games.sh` uses it.
`--workers N` (local processes) or `--cluster ADDRESS` (a Dask scheduler, `dask scheduler`
plus `dask worker ADDRESS` processes on machines that have this package installed) plays
`play` and `play-teacher` in chunks of `--chunk` games (100) side by side; chunk i is
seeded SEED * CHUNK_SEED + i, so the data depend on the seed and the chunk size, not on
where or on how many workers they were played (`--chunk` alone: the same chunks in one
process).  `--seconds S` (chunked too) starts no chunk after S seconds: the chunks under way
finish, the file holds the leading finished ones, and its command names the games they
played, so that command gives the same data again; a run's file is rewritten with the
leading finished chunks at most every 30 s while it plays, so one stopped otherwise keeps
them too.  Without any of these, one process plays one seeded run.
`label`: a UCI teacher's score for each position.  `fit`: the features of `engine.search.evaluation.losing_features` for each position, then a
logistic (Texel) fit of the weights: the evaluation in centipawns, through
1 / (1 + exp(-score / SCALE)), should predict the result; L2-regularised, full-batch
gradient descent (NumPy only).  The weights go to a JSON file in `engine/` that
`engine.search.evaluation` loads (and that is part of the kernel cache key).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MAX_PLIES = 300


def _collect(game, kept: list, number: int, columns: dict[str, list], scores: list | None = None) -> None:
    """Append a finished game's kept positions (row, side to move, ply) to `columns`, each
    with the game's result for its side to move (unfinished games count as draws), and with
    `scores` (one per kept position) a "teacher" column."""
    outcome = game.outcome()
    white_score = 0.5 if outcome is None or outcome.winner is None else (1.0 if outcome.winner == "white" else 0.0)
    for row, side, ply in kept:
        columns["rows"].append(row)
        columns["results"].append(white_score if side == 0 else 1.0 - white_score)
        columns["plies"].append(ply)
        columns["games"].append(number)
    if scores is not None:
        columns.setdefault("teacher", []).extend(scores)


def _kept(moves: list, captures: bool) -> bool:
    """Whether a position with these legal moves goes into the data: a choice of at least two
    moves, none a capture (a quiet position), or with `captures` also a choice of captures."""
    return len(moves) >= 2 and (captures or not any(move.is_capture for move in moves))


def _as_arrays(columns: dict[str, list]) -> dict[str, np.ndarray]:
    arrays = {"rows": np.array(columns["rows"], dtype=np.uint64), "results": np.array(columns["results"], dtype=np.float64),
              "plies": np.array(columns["plies"], dtype=np.int64), "games": np.array(columns["games"], dtype=np.int64)}
    if "teacher" in columns:
        arrays["teacher"] = np.array(columns["teacher"], dtype=np.float64)
    return arrays


def _random_plies(game, rng: random.Random) -> None:
    """Push 4 to 8 uniformly random legal moves (fewer when the game ends first)."""
    for _ in range(rng.randint(4, 8)):
        moves = game.legal_moves()
        if not moves or game.outcome() is not None:
            break
        game.push(rng.choice(moves))


def _play_out(game, choose, captures: bool, search_single: bool) -> tuple[list, list[float]]:
    """Play `game` to its end (or MAX_PLIES) with `choose(game)` -> (move, score): the kept
    positions (row, side to move, ply) and the score `choose` gave at each.  Without
    `search_single`, a position with one legal move is played without asking."""
    kept: list[tuple[np.ndarray, int, int]] = []
    scores: list[float] = []
    while game.outcome() is None and game.ply < MAX_PLIES:
        moves = game.legal_moves()
        if len(moves) == 1 and not search_single:
            game.push(moves[0])
            continue
        keep = _kept(moves, captures)
        if keep:
            kept.append((game.position(), 0 if game.turn == "white" else 1, game.ply))
        move, score = choose(game)
        if keep:
            scores.append(score)
        game.push(move)
    return kept, scores


def _progress(number: int, games: int, columns: dict[str, list], started: float, report) -> None:
    if (number + 1) % 100 == 0:
        report(f"{number + 1}/{games} games, {len(columns['rows'])} positions, {time.perf_counter() - started:.0f} s")


def play(games: int, nodes: int, seed: int, report=print, network: bool = True,
         captures: bool = False, variant: str = "antichess", against: str | None = None,
         against_nodes: int = 5000) -> dict[str, np.ndarray]:
    """Self-play `games` antichess games; the quiet positions with their results (with
    `captures`, also those where the side to move must capture and has a choice), and as the
    "teacher" column the engine's own score there (its search at `nodes` nodes).  With
    `network` False the engine plays without its evaluation network (engine.search.network).
    With `against` (a UCI engine's command) the other side is that engine at `against_nodes`
    nodes a move, our engine White in even-numbered games and Black in odd ones; our search
    still gives every kept position its score, whichever side moves there."""
    from contextlib import nullcontext

    from engine import Game, Limits, Searcher
    from engine.search.network import no_network
    from tournaments.judge import FixedNodeJudge

    rng = random.Random(seed)
    searcher = Searcher(hash_mb=16)
    if not network:
        searcher.network = no_network()
    columns: dict[str, list] = {"rows": [], "results": [], "plies": [], "games": []}
    started = time.perf_counter()
    with FixedNodeJudge(against, variant, against_nodes) if against else nullcontext() as opponent:
        for number in range(games):
            game = Game(variant)
            start_fen = game.fen()
            _random_plies(game, rng)
            searcher.new_game()
            if opponent is not None:
                opponent.new_game(start_fen)
            ours = "white" if number % 2 == 0 else "black"

            def choose(game):
                result = searcher.search(game, Limits(nodes=nodes, proof=False))
                move = (result.best_move if opponent is None or game.turn == ours
                        else opponent.search([played.uci() for played in game.move_stack]).text)
                return move, _own_centipawns(result.info)

            kept, scores = _play_out(game, choose, captures, search_single=True)
            _collect(game, kept, number, columns, scores)
            _progress(number, games, columns, started, report)
    return _as_arrays(columns)


CHUNK_SEED = 100_000  # chunk i of a parallel run with --seed S plays with seed S * CHUNK_SEED + i


def _chunk(stage: str, index: int, games: int, seed: int, options: dict) -> dict[str, np.ndarray]:
    """One chunk of a parallel run (a process-pool or Dask task): `games` games of `play` or
    `play_teacher` with the chunk's own seed; quiet (no progress lines)."""
    chunk_seed = seed * CHUNK_SEED + index
    if stage == "play":
        return play(games, seed=chunk_seed, report=lambda line: None, **options)
    return play_teacher(games=games, seed=chunk_seed, report=lambda line: None, **options)


def generate(stage: str, games: int, seed: int, workers: int = 1, cluster: str | None = None,
             chunk: int = 100, report=print, checkpoint=None, seconds: float | None = None,
             checkpoint_seconds: float = 30.0, **options) -> dict[str, np.ndarray]:
    """`play` or `play_teacher` (`stage`, with its keyword `options`) over `games` games in
    chunks of `chunk` games side by side: on `workers` local processes, or as tasks of the
    Dask scheduler at `cluster` (e.g. tcp://HOST:8786, whose workers have this package
    installed).  Chunk i is seeded `seed * CHUNK_SEED + i` (with play-teacher `starts`, it
    plays its own slice of them), and the chunks are joined in order with the games
    renumbered, so the data depend on `seed` and `chunk` only, never on the workers or
    where they run.  `checkpoint` gets the data of the leading finished chunks when that
    prefix has grown, at most once every `checkpoint_seconds` (the whole prefix is written
    each time: after every chunk, on many workers, that would keep this process busy).
    With `seconds`, no chunk starts after that many seconds; the chunks already started
    finish, and the data are those of the leading finished chunks: the same data as a run
    of that many games (`games_of`)."""
    starts = options.pop("starts", None)
    if starts is not None:
        games = min(games, len(starts))
    sizes = [min(chunk, games - first) for first in range(0, games, chunk)]
    tasks = []
    for index, size in enumerate(sizes):
        task_options = dict(options)
        if starts is not None:
            task_options["starts"] = starts[index * chunk:index * chunk + size]
        tasks.append((stage, index, size, seed, task_options))
    results: dict[int, dict[str, np.ndarray]] = {}
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds
    joined = 0  # the leading finished chunks
    saved = 0  # the leading chunks the last checkpoint held
    last_save = -float("inf")

    def save(now: float) -> None:
        nonlocal saved, last_save
        if checkpoint is not None and saved < joined < len(sizes):
            checkpoint(_join([results[i] for i in range(joined)], chunk))
            saved, last_save = joined, now

    def finished(index: int, data: dict[str, np.ndarray]) -> None:
        nonlocal joined
        results[index] = data
        done = sum(sizes[i] for i in results)
        report(f"{done}/{games} games, {sum(len(d['rows']) for d in results.values())} positions, "
               f"{time.perf_counter() - started:.0f} s")
        while joined in results:
            joined += 1
        now = time.perf_counter()
        if now - last_save >= checkpoint_seconds:
            save(now)

    def remaining() -> float | None:
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    if cluster:
        from distributed import Client, wait

        with Client(cluster, timeout=30) as client:
            futures = {client.submit(_chunk, *task, pure=False): task[1] for task in tasks}
            pending = set(futures)
            while pending:
                try:
                    done, pending = wait(pending, timeout=remaining(), return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                for future in done:
                    finished(futures[future], future.result())
                if deadline is not None and time.perf_counter() >= deadline:
                    client.cancel(list(pending))  # a task in flight is dropped: the prefix rule keeps the data whole
                    break
    else:
        import concurrent.futures

        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_chunk, *task): task[1] for task in tasks}
            pending = set(futures)
            try:
                while pending:
                    done, pending = concurrent.futures.wait(pending, timeout=remaining(),
                                                            return_when=concurrent.futures.FIRST_COMPLETED)
                    for future in done:
                        finished(futures[future], future.result())
                    if deadline is not None and time.perf_counter() >= deadline:
                        # Chunks not yet handed to a worker are dropped; those started finish.
                        pending = {future for future in pending if not future.cancel()}
                        deadline = None
            except BaseException:  # Ctrl-C: keep what finished, start nothing more
                pool.shutdown(wait=False, cancel_futures=True)
                save(time.perf_counter())
                raise
    return _join([results[i] for i in range(joined)], chunk)


def games_of(data: dict[str, np.ndarray], chunk: int) -> int:
    """The games a `generate` run's data hold (whole chunks of `chunk` games): one past the
    last game with a kept position, rounded up to a whole chunk."""
    if len(data["games"]) == 0:
        return 0
    return -(-(int(data["games"].max()) + 1) // chunk) * chunk


def _join(parts: list[dict[str, np.ndarray]], chunk: int) -> dict[str, np.ndarray]:
    """Chunks' data as one set, chunk i's games numbered from i * chunk."""
    columns: dict[str, list] = {"rows": [], "results": [], "plies": [], "games": []}
    teacher = all("teacher" in part for part in parts)
    for index, part in enumerate(parts):
        columns["rows"].extend(part["rows"])
        columns["results"].extend(part["results"])
        columns["plies"].extend(part["plies"])
        columns["games"].extend(part["games"] + index * chunk)
        if teacher:
            columns.setdefault("teacher", []).extend(part["teacher"])
    return _as_arrays(columns)


def start_positions(pgn_paths: list[str], first_ply: int, last_ply: int) -> list[str]:
    """The FEN of each position from ply `first_ply` to `last_ply` (counted from each game's
    start) of every game in the PGN files, without repeats, in file order: start positions
    for `play_teacher` taken from real games (e.g. against the master build)."""
    import chess.pgn

    seen: dict[str, None] = {}
    for path in pgn_paths:
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves(), 1):
                    board.push(move)
                    if ply > last_ply:
                        break
                    if ply >= first_ply:
                        seen.setdefault(board.fen(), None)
    return list(seen)


def read_starts(path: str) -> list[str]:
    """The FENs of a start-position file (one a line; gzip-compressed when it ends in .gz)."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip()]


def play_teacher(command: str, games: int, nodes: int, seed: int, report=print,
                 captures: bool = False, starts: list[str] | None = None,
                 checkpoint=None, checkpoint_every: int = 500, variant: str = "antichess") -> dict[str, np.ndarray]:
    """`games` antichess games of a UCI engine (`command`) against itself at `nodes` nodes a
    move, from 4 to 8 seeded random plies (or, with `starts`, from each of those FENs in turn,
    at most `games` of them), refereed by the project's own rules; the positions with their
    results, as `play` returns them.  With `checkpoint`, it is called with the positions of
    the games finished so far after every `checkpoint_every` games, so that a run stopped
    early still leaves its data."""
    from engine import Game
    from tournaments.judge import FixedNodeJudge

    rng = random.Random(seed)
    columns: dict[str, list] = {"rows": [], "results": [], "plies": [], "games": []}
    started = time.perf_counter()
    if starts is not None:
        games = min(games, len(starts))
    with FixedNodeJudge(command, variant, nodes) as teacher:
        for number in range(games):
            if starts is not None:
                game = Game(variant, fen=starts[number])
                start_fen = game.fen()
            else:
                game = Game(variant)
                start_fen = game.fen()
                _random_plies(game, rng)
            teacher.new_game(start_fen)

            def choose(game):
                reply = teacher.search([move.uci() for move in game.move_stack])
                return reply.text, _centipawns(reply.last_score)

            kept, scores = _play_out(game, choose, captures, search_single=False)
            _collect(game, kept, number, columns, scores)
            _progress(number, games, columns, started, report)
            if checkpoint is not None and (number + 1) % checkpoint_every == 0 and number + 1 < games:
                checkpoint(_as_arrays(columns))
    return _as_arrays(columns)


MATE_CP = 3000  # a teacher's mate score, in centipawns (beyond any evaluation)


def _centipawns(score: int | None) -> float:
    """A teacher's score (tournaments.judge: engine.scaled_score's scale) in centipawns for
    the side to move: 0 when it reported none, a mate in m moves +-(MATE_CP - m)."""
    from engine import scaled_mate_moves

    if score is None:
        return 0.0
    moves = scaled_mate_moves(score)
    return float(score) if moves is None else _mate_centipawns(moves)


def _mate_centipawns(moves: int) -> float:
    """A mate in `moves` moves (negative: being mated) as a teacher score, +-(MATE_CP - m)."""
    return float(MATE_CP - abs(moves)) * (1 if moves > 0 else -1)


def _own_centipawns(info) -> float:
    """Our search's score (an engine.SearchInfo; None: no iteration) as a teacher score: the
    centipawns for the side to move, a mate in m moves +-(MATE_CP - m)."""
    if info is None:
        return 0.0
    return float(info.score) if info.mate is None else _mate_centipawns(info.mate)


def _teacher_scores(command: str, fens: list[str], nodes: int, progress) -> list[float]:
    """Centipawn scores (side to move) of a UCI engine (`command`: its path, or a command
    line) searching each antichess FEN to `nodes` nodes (one engine process); a mate in m
    scores +-(MATE_CP - m)."""
    from tournaments.judge import FixedNodeJudge

    scores = []
    with FixedNodeJudge(command, "antichess", nodes) as teacher:
        for fen in fens:
            scores.append(_centipawns(teacher.score(fen)))
            progress()
    return scores


def label(data: dict, teacher: str, nodes: int, workers: int, limit: int | None, seed: int,
          report=print) -> dict[str, np.ndarray]:
    """`data` (a `play` set, or `limit` of its positions drawn at random) with a `teacher`
    score for each position: a UCI engine's centipawns for the side to move after `nodes`
    nodes, from `workers` engine processes side by side."""
    import threading

    from engine.rules.fen import format_fen
    from engine import get_rule_set

    keep = np.arange(len(data["rows"]))
    if limit is not None and limit < len(keep):
        keep = np.sort(np.random.default_rng(seed).choice(keep, size=limit, replace=False))
    rules = get_rule_set("antichess")
    fens = [format_fen(row, rules) for row in data["rows"][keep]]
    chunks = [list(range(len(fens)))[start::workers] for start in range(workers)]
    scores = np.zeros(len(fens))
    done = [0]
    lock = threading.Lock()
    started = time.perf_counter()

    def progress() -> None:
        with lock:
            done[0] += 1
            if done[0] % 2000 == 0 or done[0] == len(fens):
                elapsed = time.perf_counter() - started
                report(f"{done[0]}/{len(fens)} positions labelled, {elapsed:.0f} s")

    def work(chunk: list[int]) -> None:
        for index, score in zip(chunk, _teacher_scores(teacher, [fens[i] for i in chunk], nodes, progress)):
            scores[index] = score

    threads = [threading.Thread(target=work, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    labelled = {key: data[key][keep] for key in ("rows", "results", "plies", "games")}
    labelled["teacher"] = scores
    return labelled


def teacher_scale(teacher: np.ndarray, results: np.ndarray) -> float:
    """The K (centipawns per logistic unit) for which sigmoid(teacher / K) best predicts the
    game results (cross-entropy, a search over K on a log grid)."""
    best, best_loss = 100.0, float("inf")
    clipped = np.clip(teacher, -MATE_CP, MATE_CP)
    for k in np.geomspace(20.0, 2000.0, 200):
        predicted = 1.0 / (1.0 + np.exp(-clipped / k))
        loss = -np.mean(results * np.log(predicted + 1e-12) + (1 - results) * np.log(1 - predicted + 1e-12))
        if loss < best_loss:
            best, best_loss = float(k), loss
    return best


def teacher_targets(data: dict, weight: float) -> tuple[np.ndarray, float]:
    """Per position, `weight` times the teacher's win chance sigmoid(score / K) plus 1 - `weight`
    times the game's result, and K (teacher_scale of the data's scores and results)."""
    k = teacher_scale(data["teacher"], data["results"])
    chance = 1.0 / (1.0 + np.exp(-np.clip(data["teacher"], -MATE_CP, MATE_CP) / k))
    return weight * chance + (1.0 - weight) * data["results"], k


def features(rows: np.ndarray, variant: str = "antichess") -> np.ndarray:
    """The feature matrix (one row per position) of `engine.search.evaluation.losing_features`, with
    the legal-move terms computed as the search computes them (engine.search.losing_terms),
    twice: scaled by the opening share of `engine.search.evaluation.phase`, then by the endgame's."""
    from engine.rules.bitboards import MAX_MOVES, POS_SIZE
    from engine.search.evaluation import FEATURE_COUNT, PHASE_PIECES, losing_features, phase
    from engine import get_rule_set
    from engine.search.static import losing_terms

    rules = get_rule_set(variant).to_array()
    stack = np.zeros((4, POS_SIZE), dtype=np.uint64)  # a generation's legality test uses the next row
    mlist = np.zeros((4, MAX_MOVES), dtype=np.int32)
    vector = np.zeros(FEATURE_COUNT, dtype=np.int64)
    out = np.zeros((len(rows), 2 * FEATURE_COUNT), dtype=np.float64)
    for i, row in enumerate(rows):
        stack[0] = row
        moves_difference, forcing = losing_terms(stack, np.int64(0), rules, mlist)
        losing_features(stack[0], np.int64(moves_difference), forcing, vector)
        share = phase(stack[0]) / PHASE_PIECES
        out[i, :FEATURE_COUNT] = vector * share  # the opening weights' part
        out[i, FEATURE_COUNT:] = vector * (1.0 - share)  # the endgame weights' part
    return out


def quiet_positions(data: dict, variant: str = "antichess") -> dict:
    """`data` without the positions where the side to move must capture (`--captures` data):
    the linear evaluation scores quiet positions only."""
    from engine import get_rule_set
    from engine.rules.bitboards import CAPTURE_FLAG, MAX_MOVES, POS_SIZE
    from engine.rules.movegen import gen_legal

    rules = get_rule_set(variant).to_array()
    stack = np.zeros((4, POS_SIZE), dtype=np.uint64)
    mlist = np.zeros((4, MAX_MOVES), dtype=np.int32)
    quiet = np.zeros(len(data["rows"]), dtype=bool)
    for i, row in enumerate(data["rows"]):
        stack[0] = row
        moves = gen_legal(stack, 0, rules, mlist)
        quiet[i] = moves > 0 and not any(int(mlist[0, j]) & CAPTURE_FLAG for j in range(moves))
    return {key: (value[quiet] if isinstance(value, np.ndarray) and value.shape[:1] == quiet.shape else value)
            for key, value in data.items()}


def require_data_files(parser: argparse.ArgumentParser, paths: str, stage: str) -> None:
    """Stop with a usage error (exit 2) naming the files of a comma-separated --data list
    that do not exist; return when all do."""
    missing = [path for path in paths.split(",") if not Path(path).is_file()]
    if missing:
        parser.error(f"{stage}: no data file {', '.join(missing)}")


def load_data(paths: str) -> dict:
    """One data set from one or more `play` files (comma-separated), games renumbered."""
    parts = [np.load(path) for path in paths.split(",")]
    keys = ["rows", "results", "plies"] + (["teacher"] if all("teacher" in part for part in parts) else [])
    merged = {key: np.concatenate([part[key] for part in parts]) for key in keys}
    offsets = np.cumsum([0] + [int(part["games"].max()) + 1 for part in parts[:-1]])
    merged["games"] = np.concatenate([part["games"] + offset for part, offset in zip(parts, offsets)])
    merged["command"] = " + ".join(str(part["command"]) if "command" in part else "unknown" for part in parts)
    return merged


def fit(matrix: np.ndarray, results: np.ndarray, scale: float, l2: float, steps: int,
        report=print) -> np.ndarray:
    """Weights (centipawns per feature unit) minimising the cross-entropy of
    sigmoid(matrix @ w / scale) against `results`, plus l2 * |w|^2 / 2 per position."""
    weights = np.zeros(matrix.shape[1])
    x = matrix / scale
    # Adam on the full batch: the features differ in scale by two orders of magnitude.
    m = np.zeros_like(weights)
    v = np.zeros_like(weights)
    rate, beta1, beta2 = 2.0, 0.9, 0.999
    for step in range(1, steps + 1):
        predicted = 1.0 / (1.0 + np.exp(-(x @ weights)))
        gradient = x.T @ (predicted - results) / len(results) + l2 * weights
        m = beta1 * m + (1 - beta1) * gradient
        v = beta2 * v + (1 - beta2) * gradient * gradient
        weights -= rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + 1e-9)
        if step % 500 == 0 or step == steps:
            loss = -np.mean(results * np.log(predicted + 1e-12) + (1 - results) * np.log(1 - predicted + 1e-12))
            report(f"step {step}: loss {loss:.5f}")
    return weights


def loss_of(matrix: np.ndarray, results: np.ndarray, weights: np.ndarray, scale: float) -> float:
    predicted = 1.0 / (1.0 + np.exp(-(matrix @ weights) / scale))
    return float(-np.mean(results * np.log(predicted + 1e-12) + (1 - results) * np.log(1 - predicted + 1e-12)))


def write_atomically(path: Path, write, suffix: str = "") -> None:
    """Call `write` on a binary file beside `path`, then rename it to `path` (mode 0644), so a
    reader never sees half a file; on an error the temporary file is removed and `path` left
    as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=suffix)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_text(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically."""
    write_atomically(path, lambda handle: handle.write(text.encode("utf-8")))


def save_data(path: Path, command: str, data: dict[str, np.ndarray]) -> None:
    """Write a data file (the arrays of `play` and the command that made them) atomically."""
    write_atomically(path, lambda handle: np.savez_compressed(handle, command=np.array(command), **data), ".npz")


def write_json(path: Path, payload: dict) -> None:
    """Write `payload` as JSON atomically (a temporary file, then rename)."""
    write_text(path, json.dumps(payload, indent=1) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("play", "play-teacher", "starts", "label", "merge", "fit", "all"))
    parser.add_argument("--variant", default="antichess",
                        help="play, play-teacher, fit: the rule set (antichess, or losers for its own weights)")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--nodes", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-network", action="store_true",
                        help="play: self-play without the evaluation network (the linear score alone)")
    parser.add_argument("--captures", action="store_true",
                        help="play, play-teacher: keep also the positions where the side to move must capture "
                             "(and has a choice); the network fits them, the linear fit skips them")
    parser.add_argument("--data", default=str(ROOT / "artifacts" / "evaldata.npz"),
                        help="play's output file; for fit, several comma-separated files")
    parser.add_argument("--out", default=None,
                        help="fit: the weights file (default engine/search/eval_weights.json); starts: the FEN file")
    parser.add_argument("--scale", type=float, default=200.0, help="centipawns per logistic unit")
    parser.add_argument("--l2", type=float, default=1e-7)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--teacher", help="label: a UCI engine that knows antichess (its path)")
    parser.add_argument("--teacher-nodes", type=int, default=5000,
                        help="label: the teacher's nodes per position; play-teacher, play --against: that "
                             "engine's nodes a move")
    parser.add_argument("--against", default=None,
                        help="play: the other side is this UCI engine (its path) at --teacher-nodes nodes a move, "
                             "our engine White and Black in turn; our search still scores every kept position")
    parser.add_argument("--workers", type=int, default=None,
                        help="label: teacher processes side by side (default 2); play, play-teacher: "
                             "processes playing chunks of --chunk games side by side (default 1: one process, "
                             "one seeded run)")
    parser.add_argument("--cluster", default=None,
                        help="play, play-teacher: the chunks as tasks of this Dask scheduler (tcp://HOST:8786)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="play, play-teacher: start no chunk after this many seconds; the file holds the "
                             "chunks finished, and its command names the games they played")
    parser.add_argument("--chunk", type=int, default=None,
                        help="play, play-teacher: games per chunk (chunk i's seed is SEED * "
                             f"{CHUNK_SEED} + i; default 100 with --workers or --cluster)")
    parser.add_argument("--limit", type=int, default=None, help="label: this many positions drawn at random")
    parser.add_argument("--labelled", default=str(ROOT / "artifacts" / "evaldata_labelled.npz"),
                        help="label's output file")
    parser.add_argument("--starts", default=None,
                        help="play-teacher: a file of FENs (one a line) to start the games from instead of random plies")
    parser.add_argument("--pgn", default=None, help="starts: comma-separated PGN files of real games")
    parser.add_argument("--plies", default="6-40", help="starts: the plies of each game whose positions are kept")
    parser.add_argument("--teacher-weight", type=float, default=0.0,
                        help="fit: the target is this share of the teacher's win chance plus the rest of the result")
    args = parser.parse_args()
    data_path = Path(args.data.split(",")[0])
    parallel = args.cluster is not None or (args.workers or 1) > 1 or args.chunk is not None or args.seconds is not None
    if args.seconds is not None and args.seconds <= 0:
        parser.error(f"--seconds: more than 0 (got {args.seconds:g})")
    if args.against and args.stage not in ("play", "all"):
        parser.error(f"--against: only for play (the opponent of our engine), not {args.stage}")
    chunk = args.chunk or 100
    chunked = f" --chunk {chunk}" if parallel else ""
    if args.stage in ("play", "all"):
        options = dict(nodes=args.nodes, network=not args.no_network, captures=args.captures, variant=args.variant,
                       against=args.against, against_nodes=args.teacher_nodes)
        command = (f"python3 tools/train_eval.py play --variant {args.variant} --games {args.games} --nodes {args.nodes} --seed {args.seed}"
                   + (" --no-network" if args.no_network else "") + (" --captures" if args.captures else "")
                   + (f" --against {Path(args.against).name} --teacher-nodes {args.teacher_nodes}" if args.against else "")
                   + chunked)
        if parallel:
            # A run stopped early (Ctrl-C, a time limit) leaves the games of its leading finished chunks.
            checkpoint = lambda partial: save_data(data_path, command + " (unfinished)", partial)  # noqa: E731
            data = generate("play", args.games, args.seed, workers=args.workers or 1, cluster=args.cluster,
                            chunk=chunk, report=lambda line: print(line, file=sys.stderr), checkpoint=checkpoint,
                            seconds=args.seconds, **options)
            played = min(args.games, games_of(data, chunk))
            command = command.replace(f" --games {args.games} ", f" --games {played} ", 1)
        else:
            data = play(args.games, seed=args.seed, report=lambda line: print(line, file=sys.stderr), **options)
            played = args.games
        save_data(data_path, command, data)
        print(f"{len(data['rows'])} positions from {played} games -> {data_path}")
    if args.stage == "starts":
        if not args.pgn or not args.out:
            parser.error("starts needs --pgn FILES and --out FILE")
        first, _, last = args.plies.partition("-")
        fens = start_positions(args.pgn.split(","), int(first), int(last or first))
        write_text(Path(args.out), "".join(fen + "\n" for fen in fens))
        print(f"{len(fens)} start positions -> {args.out}")
    if args.stage == "play-teacher":
        if not args.teacher:
            parser.error("play-teacher needs --teacher PATH")
        starts = read_starts(args.starts) if args.starts else None
        command = (f"python3 tools/train_eval.py play-teacher --variant {args.variant} --teacher {Path(args.teacher).name} "
                   f"--games {args.games} --teacher-nodes {args.teacher_nodes} --seed {args.seed}"
                   + (" --captures" if args.captures else "")
                   + (f" --starts {Path(args.starts).name}" if args.starts else "") + chunked)
        report = lambda line: print(line, file=sys.stderr)  # noqa: E731
        checkpoint = lambda partial: save_data(data_path, command + " (unfinished)", partial)  # noqa: E731
        options = dict(command=args.teacher, nodes=args.teacher_nodes, captures=args.captures, starts=starts,
                       variant=args.variant)
        if parallel:
            data = generate("play-teacher", args.games, args.seed, workers=args.workers or 1, cluster=args.cluster,
                            chunk=chunk, report=report, checkpoint=checkpoint, seconds=args.seconds, **options)
            played = min(args.games, len(starts) if starts is not None else args.games, games_of(data, chunk))
            command = command.replace(f" --games {args.games} ", f" --games {played} ", 1)
        else:
            data = play_teacher(games=args.games, seed=args.seed, report=report, checkpoint=checkpoint, **options)
        save_data(data_path, command, data)
        print(f"{len(data['rows'])} positions from {len(set(data['games'].tolist()))} games with a kept position -> {data_path}")
    if args.stage == "merge":
        if not args.out:
            parser.error("merge needs --data FILES and --out FILE")
        paths = args.data.split(",")
        require_data_files(parser, args.data, "merge")
        merged = load_data(args.data)
        command = str(merged.pop("command"))
        save_data(Path(args.out), command, merged)
        print(f"{len(merged['rows'])} positions of {int(merged['games'].max()) + 1 if len(merged['games']) else 0} "
              f"games from {len(paths)} files -> {args.out}")
    if args.stage == "label":
        if not args.teacher:
            parser.error("label needs --teacher PATH")
        require_data_files(parser, args.data, "label")
        data = load_data(args.data)
        labelled = label(data, args.teacher, args.teacher_nodes, args.workers or 2, args.limit, args.seed,
                         report=lambda line: print(line, file=sys.stderr))
        command = (f"python3 tools/train_eval.py label --teacher {Path(args.teacher).name} "
                   f"--teacher-nodes {args.teacher_nodes} --limit {args.limit} --seed {args.seed}")
        out = Path(args.labelled)
        save_data(out, f"{data['command']} + {command}", labelled)
        print(f"{len(labelled['rows'])} positions labelled -> {out}")
    if args.stage in ("fit", "all"):
        from engine.search.evaluation import FEATURE_NAMES, WEIGHTS_PATHS

        if args.variant not in WEIGHTS_PATHS:
            parser.error(f"fit: no learned evaluation for {args.variant} (one of {', '.join(WEIGHTS_PATHS)})")

        if args.stage == "fit":
            require_data_files(parser, args.data, "fit")
        data = quiet_positions(load_data(args.data if args.stage == "fit" else str(data_path)), args.variant)
        matrix = features(data["rows"], args.variant)
        results = data["results"]
        fit_note = ""
        if args.teacher_weight > 0:
            if "teacher" not in data:
                parser.error("--teacher-weight needs labelled data (the label stage's output)")
            results, k = teacher_targets(data, args.teacher_weight)
            fit_note = f" --teacher-weight {args.teacher_weight} (teacher scale {k:.0f} cp)"
            print(f"teacher scale {k:.1f} cp per logistic unit", file=sys.stderr)
        # Hold out every tenth game to check the fit generalises.
        held_out = data["games"] % 10 == 0
        weights = fit(matrix[~held_out], results[~held_out], args.scale, args.l2, args.steps,
                      report=lambda line: print(line, file=sys.stderr))
        train_loss = loss_of(matrix[~held_out], results[~held_out], weights, args.scale)
        test_loss = loss_of(matrix[held_out], results[held_out], weights, args.scale)
        out = Path(args.out) if args.out else WEIGHTS_PATHS[args.variant]
        write_json(out, {
            "about": (f"{args.variant.capitalize()} evaluation weights (centipawns per feature unit) fitted by "
                      "tools/train_eval.py; feature names in engine/search/evaluation.py."),
            "data": data["command"],
            "fit": f"python3 tools/train_eval.py fit --variant {args.variant} --scale {args.scale} --l2 {args.l2} --steps {args.steps}{fit_note}",
            "positions": int(len(results)), "games": int(data["games"].max() + 1),
            "phase": "each weight is [opening, endgame], blended by the pieces on the board",
            "scale": args.scale, "l2": args.l2, "train_loss": train_loss, "test_loss": test_loss,
            "weights": {name: [round(float(opening), 3), round(float(endgame), 3)] for name, opening, endgame
                        in zip(FEATURE_NAMES, weights[:len(FEATURE_NAMES)], weights[len(FEATURE_NAMES):])},
        })
        print(f"fit: train loss {train_loss:.5f}, held-out loss {test_loss:.5f} -> {out}")
    return 0


def run() -> int:
    """`main`, with an engine's failure (a teacher or opponent that crashed, stalled or broke
    the protocol) one error line and exit status 1."""
    from tournaments.engines import EngineFailure

    try:
        return main()
    except EngineFailure as failure:
        print(f"train_eval.py: error: an engine failed: {failure} (a chunked run's file keeps its leading "
              "finished chunks)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(run())

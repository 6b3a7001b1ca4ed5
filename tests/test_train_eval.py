"""The evaluation-training pipeline's labelling stage (tools/train_eval.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import Game

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("train_eval", ROOT / "tools" / "train_eval.py")
train_eval = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_eval)


def _train_eval(*args, timeout: float = 300) -> "subprocess.CompletedProcess[str]":
    """tools/train_eval.py run as a command with `args`; its output captured as text."""
    import subprocess

    return subprocess.run([sys.executable, str(ROOT / "tools" / "train_eval.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def _load_tool(name: str):
    """A script of tools/ loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_teacher_scale_recovers_the_scale_that_made_the_results():
    rng = np.random.default_rng(5)
    teacher = rng.uniform(-600, 600, size=20000)
    results = (rng.random(20000) < 1 / (1 + np.exp(-teacher / 150))).astype(float)
    assert 125 < train_eval.teacher_scale(teacher, results) < 180


def test_label_asks_a_uci_teacher_for_each_position_in_order():
    fens = [
        "1r6/8/8/8/8/8/8/R7 w - - 0 1",  # white offers its rook and wins at once
        "1r6/8/8/8/8/8/8/R7 b - - 0 1",  # the same with black to move: black offers, wins
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    ]
    rows = np.array([Game("antichess", fen).position() for fen in fens], dtype=np.uint64)
    data = {"rows": rows, "results": np.array([1.0, 1.0, 0.5]), "plies": np.zeros(3, dtype=np.int64),
            "games": np.arange(3)}
    teacher = f"{sys.executable} -m antichess uci"
    labelled = train_eval.label(data, teacher, nodes=3000, workers=2, limit=None, seed=1, report=lambda line: None)
    assert list(labelled["results"]) == [1.0, 1.0, 0.5]
    assert (labelled["rows"] == rows).all()
    first, second, start = labelled["teacher"]
    assert first > train_eval.MATE_CP - 10 and second > train_eval.MATE_CP - 10  # a mate announced
    assert abs(start) < 1000


def test_captures_adds_the_must_capture_positions_of_the_same_games():
    """`play --captures` plays the same games and keeps, besides the quiet positions, those
    where the side to move must capture and has a choice; `quiet_positions` takes them out."""
    from engine import get_rule_set
    from engine.search.static import count_moves_and_captures

    quiet = train_eval.play(6, 200, seed=7, report=lambda line: None)
    both = train_eval.play(6, 200, seed=7, report=lambda line: None, captures=True)
    rules = get_rule_set("antichess").to_array()
    counts = [count_moves_and_captures(row, rules) for row in both["rows"]]
    capturing = np.array([captures > 0 for _, captures in counts])
    assert capturing.any() and (~capturing).any()
    assert all(moves >= 2 and (captures == 0 or captures == moves) for moves, captures in counts)
    assert np.array_equal(both["rows"][~capturing], quiet["rows"])
    assert np.array_equal(both["results"][~capturing], quiet["results"])
    assert np.array_equal(train_eval.quiet_positions(both)["rows"], quiet["rows"])


FAKE_TEACHER = '''
import sys
import chess.variant

board = chess.variant.AntichessBoard()
plies = 0
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print("id name fake-teacher")
        print("option name UCI_Variant type combo default antichess var antichess")
        print("uciok", flush=True)
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:1] == ["position"]:
        moves = words[words.index("moves") + 1:] if "moves" in words else []
        fen = " ".join(words[2:words.index("moves")] if "moves" in words else words[2:])
        board = chess.variant.AntichessBoard(fen)
        for move in moves:
            board.push_uci(move)
        plies = len(moves)
    elif words[:1] == ["ucinewgame"] and len(sys.argv) > 1:
        with open(sys.argv[1], "a") as log:  # a log of what it was asked, when given one
            print("new", file=log)
    elif words[:1] == ["go"]:
        move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        if len(sys.argv) > 1:
            with open(sys.argv[1], "a") as log:
                print(board.fen(), "|", move.uci(), file=log)
        print(f"info depth 1 score cp {plies} nodes 1 pv {move.uci()}")
        print(f"info depth 2 score cp {7 * plies} nodes 2 pv {move.uci()}")
        print(f"bestmove {move.uci()}", flush=True)
    elif words[:1] == ["quit"]:
        break
'''


def test_play_teacher_records_the_teachers_last_score_for_each_kept_position(tmp_path):
    """The "teacher" column holds, for each kept position, the last score the engine reported
    while choosing its move there (the fake teacher reports 7 x the plies played)."""
    script = tmp_path / "teacher.py"
    script.write_text(FAKE_TEACHER)
    data = train_eval.play_teacher(f"{sys.executable} {script}", games=3, nodes=10, seed=3,
                                   report=lambda line: None, captures=True)
    assert len(data["teacher"]) == len(data["rows"]) > 0
    assert np.array_equal(data["teacher"], 7.0 * data["plies"])


def test_play_against_an_engine_alternates_colours_and_keeps_both_sides_positions(tmp_path):
    """`play(against=...)`: the other engine moves for Black in even-numbered games and for
    White in odd ones, its moves are the ones played, and the positions before and after them
    are kept like any other (a choice of moves), each with our own search's score."""
    script, log = tmp_path / "teacher.py", tmp_path / "asked.log"
    script.write_text(FAKE_TEACHER)
    data = train_eval.play(4, 300, seed=5, report=lambda line: None, captures=True,
                           against=f"{sys.executable} {script} {log}", against_nodes=10)
    asked = log.read_text().split("new\n")[1:]
    assert len(asked) == 4
    for number, text in enumerate(asked):
        rows = {tuple(row) for row in data["rows"][data["games"] == number]}
        checked = 0
        for line in text.splitlines():
            fen, _, uci = line.partition(" | ")
            before = Game("antichess", fen=fen)
            assert before.turn == ("black" if number % 2 == 0 else "white")
            if len(before.legal_moves()) >= 2:
                assert tuple(before.position()) in rows
                checked += 1
            before.push(uci)
            if before.outcome() is None and len(before.legal_moves()) >= 2:
                assert tuple(before.position()) in rows  # the game went on from the engine's move
                checked += 1
        assert checked > 0
    # Every score is our search's, not the fake engine's 7 x plies.
    assert len(data["teacher"]) == len(data["rows"])
    assert not np.array_equal(data["teacher"], 7.0 * data["plies"])


def test_an_engine_failing_in_a_worker_process_reaches_the_caller_whole(tmp_path):
    """A chunk whose engine dies reaches the parent as the worker's EngineFailure, kind and
    detail (not a broken process pool that hides what happened): one error line, status 1."""
    script = tmp_path / "teacher.py"
    script.write_text(FAKE_TEACHER.replace('elif words[:1] == ["go"]:', 'elif words[:1] == ["go"] and plies >= 12:\n'
                                           '        sys.exit(3)\n    elif words[:1] == ["go"]:'))
    done = _train_eval("play-teacher", "--teacher", f"{sys.executable} {script}", "--games", 2, "--teacher-nodes", 10,
                       "--seed", 4, "--workers", 2, "--chunk", 1, "--data", tmp_path / "out.npz")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("train_eval.py: error: an engine failed: crash: ")


def test_against_is_refused_outside_play(tmp_path):
    done = _train_eval("play-teacher", "--teacher", "x", "--against", "y", "--data", tmp_path / "out.npz", timeout=120)
    assert done.returncode == 2
    assert "--against: only for play" in done.stderr
    assert not (tmp_path / "out.npz").exists()


def test_teacher_scores_are_centipawns_and_mates_beyond_every_evaluation():
    from engine import scaled_from_uci

    assert train_eval._centipawns(scaled_from_uci("cp", -42)) == -42.0
    assert train_eval._centipawns(scaled_from_uci("mate", 3)) == train_eval.MATE_CP - 3
    assert train_eval._centipawns(scaled_from_uci("mate", -2)) == -(train_eval.MATE_CP - 2)
    assert train_eval._centipawns(None) == 0.0


def test_start_positions_keeps_each_position_of_the_ply_range_once(tmp_path):
    """`start_positions` gives the FEN after each ply in the range of every game, in file
    order, and a position two games share only once."""
    import chess.pgn
    import chess.variant

    lines = [["e2e3", "b7b5", "f1b5", "c7c6"], ["e2e3", "b7b5", "f1b5", "c8a6"]]
    expected = []
    with open(tmp_path / "games.pgn", "w", encoding="utf-8") as handle:
        for moves in lines:
            board = chess.variant.AntichessBoard()
            game = chess.pgn.Game.from_board(board)
            node = game
            for ply, uci in enumerate(moves, 1):
                node = node.add_variation(chess.Move.from_uci(uci))
                board.push_uci(uci)
                if 2 <= ply <= 4 and board.fen() not in expected:
                    expected.append(board.fen())
            game.headers["Variant"] = "antichess"
            print(game, file=handle, end="\n\n")
    fens = train_eval.start_positions([str(tmp_path / "games.pgn")], 2, 4)
    assert fens == expected
    assert len(fens) == 4  # plies 2 and 3 are the same in both games


def test_play_teacher_plays_one_game_from_each_start_position(tmp_path):
    """With `starts`, game k begins at the k-th FEN (at most `games` of them), the first kept
    position is that FEN's, and the engine is told the FEN and the moves since it."""
    script = tmp_path / "teacher.py"
    script.write_text(FAKE_TEACHER)
    starts = []
    for line in (["e2e3"], ["e2e3", "b7b5", "f1b5"]):
        game = Game("antichess")
        for uci in line:
            game.push(uci)
        starts.append(game.fen())
    data = train_eval.play_teacher(f"{sys.executable} {script}", games=5, nodes=10, seed=3,
                                   report=lambda line: None, captures=True, starts=starts)
    assert sorted(set(data["games"].tolist())) == [0, 1]
    for number, fen in enumerate(starts):
        mine = data["games"] == number
        first = np.flatnonzero(mine)[0]
        start = Game("antichess", fen=fen)
        assert np.array_equal(data["rows"][first], start.position())
        # The fake teacher scores 7 x the moves it was sent after the FEN.
        assert np.array_equal(data["teacher"][mine], 7.0 * (data["plies"][mine] - start.ply))


def test_read_starts_reads_plain_and_gzip_files_alike(tmp_path):
    import gzip

    fens = [Game("antichess").fen(), "8/8/8/8/8/8/P7/7k w - - 0 1"]
    (tmp_path / "starts.fen").write_text(fens[0] + "\n\n" + fens[1] + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "starts.fen.gz", "wt", encoding="utf-8") as handle:
        handle.write("\n".join(fens) + "\n")
    assert train_eval.read_starts(str(tmp_path / "starts.fen")) == fens
    assert train_eval.read_starts(str(tmp_path / "starts.fen.gz")) == fens


def test_play_teacher_checkpoints_the_games_finished_so_far(tmp_path):
    """With `checkpoint`, the positions of the first 2 and 4 games are handed over on the
    way, each a prefix of the final data, and the last call is the caller's own."""
    script = tmp_path / "teacher.py"
    script.write_text(FAKE_TEACHER)
    partials = []
    data = train_eval.play_teacher(f"{sys.executable} {script}", games=5, nodes=10, seed=3,
                                   report=lambda line: None, captures=True,
                                   checkpoint=partials.append, checkpoint_every=2)
    assert [sorted(set(part["games"].tolist())) for part in partials] == [[0, 1], [0, 1, 2, 3]]
    for part in partials:
        count = len(part["rows"])
        assert np.array_equal(part["rows"], data["rows"][:count])
        assert np.array_equal(part["results"], data["results"][:count])


def _play_teacher_cli(tmp_path, name: str, *extra: str) -> dict:
    script = tmp_path / "teacher.py"
    script.write_text(FAKE_TEACHER)
    out = tmp_path / f"{name}.npz"
    _train_eval("play-teacher", "--teacher", f"{sys.executable} {script}", "--games", 7, "--teacher-nodes", 10,
                "--seed", 3, "--captures", "--data", out, *extra).check_returncode()
    return dict(np.load(out))


def test_parallel_chunks_give_the_same_data_on_any_number_of_workers(tmp_path):
    """`--workers N --chunk C`: chunk i seeded SEED * CHUNK_SEED + i, joined in order with the
    games renumbered (7 games in chunks of 3, 3 and 1), whatever N (`--chunk` alone: one
    process); the command says the chunk."""
    two = _play_teacher_cli(tmp_path, "two", "--workers", "2", "--chunk", "3")
    three = _play_teacher_cli(tmp_path, "three", "--workers", "3", "--chunk", "3")
    alone = _play_teacher_cli(tmp_path, "alone", "--chunk", "3")  # the same chunks in one process
    for key in ("rows", "results", "plies", "games", "teacher"):
        assert np.array_equal(two[key], three[key]) and np.array_equal(two[key], alone[key]), key
    assert str(two["command"]).endswith("--captures --chunk 3")
    assert sorted(set(two["games"].tolist())) == list(range(7))
    assert np.array_equal(two["teacher"], 7.0 * two["plies"])
    script = tmp_path / "teacher.py"
    first = train_eval.play_teacher(f"{sys.executable} {script}", games=3, nodes=10, seed=3 * train_eval.CHUNK_SEED,
                                    report=lambda line: None, captures=True)
    count = len(first["rows"])
    assert np.array_equal(two["rows"][:count], first["rows"]) and two["games"][count - 1] == first["games"][-1]
    second = train_eval.play_teacher(f"{sys.executable} {script}", games=3, nodes=10,
                                     seed=3 * train_eval.CHUNK_SEED + 1, report=lambda line: None, captures=True)
    assert np.array_equal(two["rows"][count:count + len(second["rows"])], second["rows"])
    assert np.array_equal(two["games"][count:count + len(second["games"])], second["games"] + 3)


def test_a_stopped_parallel_self_play_run_keeps_its_leading_finished_chunks(tmp_path):
    """`play --chunk C`: the data file holds the finished leading chunks while the run goes on
    (marked unfinished), so a run stopped by Ctrl-C or a time limit keeps those games."""
    import signal
    import subprocess
    import time

    out = tmp_path / "self.npz"
    run = subprocess.Popen([sys.executable, str(ROOT / "tools" / "train_eval.py"), "play", "--games", "400",
                            "--nodes", "100", "--seed", "5", "--chunk", "1", "--data", str(out)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not out.exists() and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.2)
        assert out.exists()
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
    data = dict(np.load(out))
    assert str(data["command"]).endswith("--seed 5 --chunk 1 (unfinished)")
    games = sorted(set(data["games"].tolist()))
    assert games[0] == 0 and games[-1] < 399  # chunk i is game i: the leading chunks, not all
    first = train_eval.play(1, nodes=100, seed=5 * train_eval.CHUNK_SEED, report=lambda line: None)
    assert np.array_equal(data["rows"][:len(first["rows"])], first["rows"])


def test_seconds_stops_starting_chunks_and_its_command_gives_the_same_data(tmp_path):
    """`play --seconds S`: no chunk starts after S seconds, those started finish, and the file
    holds the leading finished chunks under a command that names the games they played;
    that command, run without `--seconds`, plays the same data again."""
    import re

    def run(name: str, *extra: str) -> dict:
        out = tmp_path / f"{name}.npz"
        _train_eval("play", "--nodes", 100, "--seed", 6, "--chunk", 2, "--data", out, *extra).check_returncode()
        return dict(np.load(out))

    timed = run("timed", "--games", "2000", "--seconds", "2")
    command = str(timed["command"])
    assert "unfinished" not in command and "--seconds" not in command
    played = int(re.search(r"--games (\d+) ", command).group(1))
    assert 0 < played < 2000 and played % 2 == 0
    assert sorted(set(timed["games"].tolist()))[-1] < played
    again = run("again", "--games", str(played))
    assert str(again["command"]) == command
    for key in ("rows", "results", "plies", "games", "teacher"):
        assert np.array_equal(timed[key], again[key]), key


def test_seconds_must_be_positive(tmp_path, capsys, monkeypatch):
    """`--seconds 0` is one usage line, before any game is played."""
    out = tmp_path / "none.npz"
    monkeypatch.setattr(sys, "argv", ["train_eval.py", "play", "--seconds", "0", "--data", str(out)])
    with pytest.raises(SystemExit) as stop:
        train_eval.main()
    assert stop.value.code == 2 and "--seconds: more than 0" in capsys.readouterr().err
    assert not out.exists()


def test_a_dask_scheduler_plays_the_same_chunks(tmp_path):
    """`--cluster ADDRESS`: the chunks as tasks of a Dask scheduler (here one on 127.0.0.1 with
    in-process worker threads) give the data of local processes."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        remote = _play_teacher_cli(tmp_path, "dask", "--cluster", cluster.scheduler_address, "--chunk", "3")
    local = _play_teacher_cli(tmp_path, "local", "--workers", "2", "--chunk", "3")
    for key in ("rows", "results", "plies", "games", "teacher"):
        assert np.array_equal(remote[key], local[key]), key


def test_seconds_on_a_dask_scheduler_keeps_the_leading_finished_chunks():
    """`generate(..., cluster=ADDRESS, seconds=S)`: the tasks not finished at S seconds are
    cancelled, and the data are the leading finished chunks: chunk i played alone with its
    own seed, joined in order."""
    distributed = pytest.importorskip("distributed")
    options = dict(nodes=100, network=True, captures=False, variant="antichess")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        timed = train_eval.generate("play", 2000, 7, cluster=cluster.scheduler_address, chunk=2,
                                    report=lambda line: None, seconds=6, **options)
    played = train_eval.games_of(timed, 2)
    assert 0 < played < 2000
    local = train_eval._join([train_eval.play(2, seed=7 * train_eval.CHUNK_SEED + i, report=lambda line: None, **options)
                              for i in range(played // 2)], 2)
    for key in ("rows", "results", "plies", "games", "teacher"):
        assert np.array_equal(timed[key], local[key]), key


def test_generate_hands_over_the_leading_finished_chunks():
    """`checkpoint` gets the joined data of the chunks finished in order, each a prefix."""
    parts = {i: {"rows": np.full((i + 1, 24), i, dtype=np.uint64), "results": np.full(i + 1, 0.5),
                 "plies": np.arange(i + 1), "games": np.zeros(i + 1, dtype=np.int64),
                 "teacher": np.full(i + 1, float(i))} for i in range(3)}
    joined = train_eval._join([parts[0], parts[1], parts[2]], 10)
    assert joined["rows"].shape == (6, 24) and joined["games"].tolist() == [0, 10, 10, 20, 20, 20]
    assert joined["teacher"].tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 2.0]
    empty = {"rows": np.array([], dtype=np.uint64), "results": np.array([]), "plies": np.array([], dtype=np.int64),
             "games": np.array([], dtype=np.int64), "teacher": np.array([])}
    assert train_eval._join([parts[0], empty, parts[1]], 10)["games"].tolist() == [0, 20, 20]


def test_self_play_records_its_own_score_as_the_teacher_column():
    """`play` keeps the engine's own search score for each kept position (mates beyond every
    evaluation): labels from our own search.  The first game's first position after its
    random plies is searched first, by a fresh searcher: the same search again scores it so."""
    import random

    from engine import Limits, Searcher

    data = train_eval.play(2, nodes=300, seed=1, report=lambda line: None)  # a quiet position after the plies
    assert len(data["teacher"]) == len(data["rows"]) > 0
    assert np.all(np.abs(data["teacher"]) <= train_eval.MATE_CP)
    rng = random.Random(1)
    game = Game("antichess")
    for _ in range(rng.randint(4, 8)):
        game.push(rng.choice(game.legal_moves()))
    assert data["plies"][0] == game.ply and np.array_equal(data["rows"][0], game.position())
    searcher = Searcher(hash_mb=16)
    searcher.new_game()
    again = searcher.search(game, Limits(nodes=300, proof=False))
    assert data["teacher"][0] == train_eval._own_centipawns(again.info)


def test_save_data_writes_a_file_load_data_reads_back(tmp_path):
    data = {"rows": np.arange(12, dtype=np.uint64).reshape(2, 6), "results": np.array([1.0, 0.5]),
            "plies": np.array([9, 10]), "games": np.array([0, 0])}
    path = tmp_path / "sub" / "data.npz"
    train_eval.save_data(path, "python3 tools/train_eval.py play --games 1", data)
    train_eval.save_data(path, "python3 tools/train_eval.py play --games 1", data)  # over an existing file
    loaded = train_eval.load_data(str(path))
    assert loaded["command"] == "python3 tools/train_eval.py play --games 1"
    for key, values in data.items():
        assert np.array_equal(loaded[key], values)
    assert [entry.name for entry in path.parent.iterdir()] == ["data.npz"]  # no temporary left
    assert path.stat().st_mode & 0o777 == 0o644  # readable like any file, not mkstemp's 0600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "starts.fen"
    train_eval.write_text(path, "first\n")
    assert path.read_text(encoding="utf-8") == "first\n"
    with pytest.raises(Exception):
        # A lambda cannot be pickled: the write fails half way.
        train_eval.save_data(path, "cmd", {"rows": np.array([lambda: 0], dtype=object)})
    assert path.read_text(encoding="utf-8") == "first\n"
    assert [entry.name for entry in tmp_path.iterdir()] == ["starts.fen"]


def test_merge_joins_data_files_with_the_games_renumbered(tmp_path, monkeypatch):
    first = {"rows": np.arange(18, dtype=np.uint64).reshape(3, 6), "results": np.array([1.0, 0.0, 0.5]),
             "plies": np.array([4, 5, 6]), "games": np.array([0, 0, 1]), "teacher": np.array([10.0, -5.0, 0.0])}
    second = {"rows": np.arange(100, 112, dtype=np.uint64).reshape(2, 6), "results": np.array([0.0, 1.0]),
              "plies": np.array([7, 8]), "games": np.array([0, 1]), "teacher": np.array([3.0, 4.0])}
    train_eval.save_data(tmp_path / "a.npz", "run a", first)
    train_eval.save_data(tmp_path / "b.npz", "run b", second)
    out = tmp_path / "all.npz"
    monkeypatch.setattr(sys, "argv", ["train_eval.py", "merge", "--data", f"{tmp_path / 'a.npz'},{tmp_path / 'b.npz'}",
                                      "--out", str(out)])
    assert train_eval.main() == 0
    merged = train_eval.load_data(str(out))
    assert merged["command"] == "run a + run b"
    assert np.array_equal(merged["games"], [0, 0, 1, 2, 3])
    assert np.array_equal(merged["rows"], np.concatenate([first["rows"], second["rows"]]))
    assert np.array_equal(merged["teacher"], [10.0, -5.0, 0.0, 3.0, 4.0])
    assert np.array_equal(merged["results"], [1.0, 0.0, 0.5, 0.0, 1.0])


@pytest.mark.parametrize("stage", ["merge", "fit", "label", "train_network"])
def test_a_missing_data_file_is_refused_and_nothing_is_written(stage, tmp_path, capsys, monkeypatch):
    train_eval.save_data(tmp_path / "a.npz", "run a", {"rows": np.zeros((1, 6), dtype=np.uint64),
                                                       "results": np.array([1.0]), "plies": np.array([4]),
                                                       "games": np.array([0])})
    out = tmp_path / "out.npz"
    data = f"{tmp_path / 'a.npz'},{tmp_path / 'gone.npz'}"
    if stage == "train_network":
        tool = _load_tool("train_network")
        argv = ["train_network.py", "--data", data, "--out", str(out)]
    else:
        tool = train_eval
        argv = {"merge": ["train_eval.py", "merge", "--data", data, "--out", str(out)],
                "fit": ["train_eval.py", "fit", "--data", data, "--out", str(out)],
                "label": ["train_eval.py", "label", "--data", data, "--teacher", sys.executable,
                          "--labelled", str(out)]}[stage]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        tool.main()
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "no data file" in error and "gone.npz" in error and "a.npz" not in error.split("no data file")[1]
    assert not out.exists()


def test_losers_games_and_features_follow_the_losers_rules():
    """`--variant losers`: the games are losers games (the engine playing both sides), the
    quiet positions have a choice of moves and none a capture under the losers rules, and the
    fit's feature rows reproduce the engine's losers score with the weights they are given."""
    from engine.search.evaluation import FEATURE_COUNT, LOSERS_WEIGHTS
    from engine.search.state import MAX_PLY
    from engine.search.static import evaluate_losing
    from engine.search.network import no_network

    data = train_eval.play(3, 200, seed=4, report=lambda line: None, variant="losers")
    quiet = train_eval.quiet_positions(data, "losers")
    assert 0 < len(quiet["rows"]) <= len(data["rows"])
    matrix = train_eval.features(quiet["rows"], "losers")
    weights = np.concatenate([LOSERS_WEIGHTS[0], LOSERS_WEIGHTS[1]]).astype(float)
    from engine import get_rule_set
    from engine.rules.fen import format_fen

    for row, features in list(zip(quiet["rows"], matrix))[:20]:
        game = Game("losers", format_fen(row, get_rule_set("losers")))
        moves = game.legal_moves()
        assert len(moves) >= 2 and not any(move.is_capture for move in moves)
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            score = evaluate_losing(stack, np.int64(idx), rules, mlist, np.int64(len(moves)), no_network())
        # The fit's score is the blend before the integer division by 32.
        assert abs(features @ weights - score) < 1.0, game.fen()
    assert matrix.shape[1] == 2 * FEATURE_COUNT

"""The fixed-node judge (tournaments/judge.py): the runner's UCI driver searching single
positions or whole games to a node count, for the book maker and the training tools; the
scores they read from it (a bound as the engine's last word, mates mapped their way)."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path

import pytest

from engine import SCALE_MATE
from tournaments.engines import EngineFailure
from tournaments.judge import FixedNodeJudge

ROOT = Path(__file__).resolve().parent.parent
SCRIPTED = ROOT / "tests" / "data" / "tournaments" / "scripted_engine.py"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_search_asks_for_nodes_and_keeps_the_exact_and_the_last_score():
    with FixedNodeJudge(f"{sys.executable} {SCRIPTED} bound", "antichess", 100) as judge:
        judge.new_game(START)
        reply = judge.search(["e2e3", "b7b5"])
        assert reply.text == "e2e3"  # the scripted engine saw one thread, 16 MB and `go nodes`
        assert reply.score == 30 and reply.last_score == -50
        assert judge.score(START) == -50


def test_a_mate_is_a_scaled_mate_and_each_tool_reads_it_its_way():
    train_eval = load(ROOT / "tools" / "train_eval.py", "train_eval_for_judge")
    make_book = load(ROOT / "tournaments" / "books" / "make_book.py", "make_book_for_judge")
    with FixedNodeJudge(f"{sys.executable} {SCRIPTED} mate", "losers", 100) as judge:
        assert judge.score(START) == -(SCALE_MATE - 2)
    assert train_eval._centipawns(-(SCALE_MATE - 2)) == -(train_eval.MATE_CP - 2)
    referee = make_book.Referee(f"{sys.executable} {SCRIPTED} mate", "losers", 100)
    try:
        assert referee.score(START) is None  # a mate is no balanced score
    finally:
        referee.close()
    referee = make_book.Referee(f"{sys.executable} {SCRIPTED} bound", "losers", 100)
    try:
        assert referee.score(START) == -50
    finally:
        referee.close()


def test_a_rule_set_the_engine_lacks_is_refused():
    with FixedNodeJudge(f"{sys.executable} {SCRIPTED}", "suicide", 100) as judge:
        with pytest.raises(EngineFailure) as failure:
            judge.new_game(START)
    assert "suicide" in str(failure.value)


def test_an_engine_that_cannot_start_is_one_failure():
    with pytest.raises(EngineFailure):
        FixedNodeJudge(str(ROOT / "no-such-engine"), "antichess", 100)


def test_the_book_maker_keeps_no_position_of_an_excluded_file(tmp_path):
    make_book = load(ROOT / "tournaments" / "books" / "make_book.py", "make_book_for_exclude")
    first, _ = make_book.make("antichess", 4, 2, 2, 10000, 5)
    assert len(first) == 4
    epds = [" ".join(line.split()[:4]) for line, _ in first]
    book = tmp_path / "main.epd"
    book.write_text("# a header line\n" + "\n".join(line for line, _ in first[:2]) + "\n")
    starts = tmp_path / "starts.fen.gz"
    with gzip.open(starts, "wt") as handle:
        handle.write(f"{epds[2]} 0 1\n")
    exclude = make_book.excluded_positions([str(book), str(starts)])
    assert exclude == set(epds[:3])
    again, _ = make_book.make("antichess", 4, 2, 2, 10000, 5, exclude=exclude)
    kept = [" ".join(line.split()[:4]) for line, _ in again]
    assert len(kept) == 4 and not set(kept) & exclude and epds[3] in kept

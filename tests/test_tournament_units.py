"""Tournament pieces that need no engine process: clocks, SAN/PGN, openings, schedule,
store, and the command line's handling of bad input."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import chess.variant
import pytest

from engine import Game, Limits, Searcher
from tournaments import cli
from tournaments.engines import ConfigError, engine_config
from tournaments.openings import OpeningsError, read_epd, read_pgn, sequence
from tournaments.pgn import PgnGame, render, san
from tournaments.referee import GameRecord, Opening, RefereeSettings
from tournaments.store import Store, StoreError, append_pgn
from tournaments.timecontrol import Clock, TimeControl, TimeControlError
from tournaments.tournament import TournamentConfig, schedule


# -- time controls -----------------------------------------------------------------------

def test_time_control_strings():
    tc = TimeControl.parse("40/1:30+0.5")
    assert (tc.moves, tc.base, tc.increment) == (40, 90.0, 0.5)
    assert TimeControl.parse("10+0.1").pgn_tag() == "10+0.1"
    assert TimeControl.parse("inf").infinite
    for bad in ("", "abc", "40/", "0", "-5", "x/60", "0/60", "10+x"):
        with pytest.raises(TimeControlError):
            TimeControl.parse(bad)


def test_clock_sessions_and_increment():
    clock = Clock(TimeControl.parse("2/10+1"))
    clock.punch(4.0)                      # 10 - 4 + 1 = 7
    assert clock.remaining == pytest.approx(7.0) and clock.moves_to_go() == 1
    clock.punch(3.0)                      # 7 - 3 + 1 + 10 (new session) = 15
    assert clock.remaining == pytest.approx(15.0) and clock.moves_to_go() == 2
    assert clock.is_flagged(15.2, 0.1) and not clock.is_flagged(15.05, 0.1)
    fixed = Clock(TimeControl.fixed(0.1))
    fixed.punch(0.09)
    assert fixed.budget() == 0.1 and fixed.is_flagged(0.35, 0.2) and not fixed.is_flagged(0.25, 0.2)


# -- SAN and PGN -------------------------------------------------------------------------

BOARDS = {"chess": chess.Board, "antichess": chess.variant.AntichessBoard,
          "giveaway": chess.variant.GiveawayBoard, "suicide": chess.variant.SuicideBoard}


@pytest.mark.parametrize("variant", sorted(BOARDS))
def test_san_is_read_back_by_python_chess(variant):
    rng = random.Random(variant)
    for _ in range(12):
        game, board = Game(variant), BOARDS[variant]()
        for _ in range(120):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            move = rng.choice(moves)
            text = san(game, move)
            assert board.parse_san(text).uci() == move.uci(), (game.fen(), text)
            # python-chess also marks a move that wins an antichess game with '#'
            assert board.san(board.parse_uci(move.uci())).rstrip("#") == text.rstrip("#")
            game.push(move)
            board.push_uci(move.uci())


def test_pgn_render_wraps_and_numbers_black_first():
    text = render(PgnGame([("Event", 'a "quoted" one'), ("Result", "0-1")],
                          "8/8/8/8/8/8/8/8 b - - 0 7", ["e5", "d4", "exd4"],
                          [None, "+0.10/3 0.100s", None], "0-1", "White loses on time"))
    assert '[Event "a \\"quoted\\" one"]' in text
    assert "7... e5 8. d4 {+0.10/3 0.100s} 8... exd4 {White loses on time} 0-1" in text


# -- openings ----------------------------------------------------------------------------

def test_epd_book_checked_against_the_rule_set():
    book = read_epd('# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - id "e3";\n\n', "antichess")
    assert len(book) == 1 and book[0].fen.startswith("rnbqkbnr/pppppppp/8/8/4P3") and book[0].name == "e3"
    with pytest.raises(OpeningsError, match="line 2"):
        read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - -\nnot a position\n", "antichess")
    with pytest.raises(OpeningsError, match="already over"):
        read_epd("8/8/8/8/8/8/8/k7 w - -", "antichess")  # White has no pieces: White has won


def test_pgn_book_moves_and_plies():
    text = ('[Event "x"]\n\n1. e3 {note} b5 (1... e6 2. Ba6) 2. Bxb5 $1 Bb7 1-0\n\n'
            '[Event "y"]\n[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"]\n\n1. g3 *\n')
    book = read_pgn(text, "antichess", plies=3)
    assert book[0].moves == ("e2e3", "b7b5", "f1b5") and book[0].fen is None
    assert book[1].moves == ("g2g3",) and book[1].fen is not None
    with pytest.raises(OpeningsError, match="not legal"):
        read_pgn("1. e4 d5 2. a3 *", "antichess")  # the capture exd5 is compulsory


def test_sequential_and_random_order():
    book = [Opening(fen=None, index=i) for i in range(3)]
    assert [o.index for o in sequence(book, 5, "sequential", 2, 0)] == [1, 2, 0, 1, 2]
    shuffled = [o.index for o in sequence(book, 6, "random", 1, 42)]
    assert sorted(shuffled[:3]) == [0, 1, 2] and sorted(shuffled[3:]) == [0, 1, 2]
    assert shuffled == [o.index for o in sequence(book, 6, "random", 1, 42)]


# -- schedule ----------------------------------------------------------------------------

def _config(n=2, **kw):
    engines = tuple(engine_config([("name", f"E{i}"), ("cmd", "x"), ("depth", "1")]) for i in range(n))
    return TournamentConfig(engines=engines, **kw)


def test_schedule_pairs_and_odd_totals():
    jobs = schedule(_config(games=2, rounds=3), [], 1)
    assert len(jobs) == 3 and all(j.slots == (0, 1) for j in jobs)
    odd = schedule(_config(games=1, rounds=3), [], 1)   # 3 games: a pair and a single game
    assert [j.slots for j in odd] == [(0, 1), (0,)]
    rr = schedule(_config(n=3, games=2, kind="round-robin"), [], 1)
    assert sorted((j.a, j.b) for j in rr) == [(0, 1), (0, 2), (1, 2)]
    gauntlet = schedule(_config(n=4, games=2, kind="gauntlet"), [], 1)
    assert sorted((j.a, j.b) for j in gauntlet) == [(0, 1), (0, 2), (0, 3)]


# -- store -------------------------------------------------------------------------------

def _record(pair, slot, result="1-0"):
    return GameRecord(white="A" if slot == 0 else "B", black="B" if slot == 0 else "A",
                      variant="antichess", start_fen="f", moves=[], result=result,
                      termination="normal", reason="r", forfeit=None, loser_forfeit=None,
                      pgn=f'[Round "{pair}.{slot}"]\n\n{result}\n\n', plies=0, duration=0.0,
                      pair=pair, slot=slot, engine_a="A", engine_b="B")


def test_store_never_counts_a_game_twice(tmp_path):
    path = str(tmp_path / "t.sqlite")
    with Store(path) as store:
        assert store.bind({"x": 1}, 5) == 5
        store.add_games([_record(0, 0), _record(0, 1)])
        with pytest.raises(Exception):
            store.add_games([_record(1, 0), _record(0, 1)])   # pair 0 slot 1 again
        assert store.done_slots() == {0: {0, 1}}             # the failed pair left nothing
    with Store(path) as store:
        assert store.bind({"x": 1}, 99) == 5                  # the stored seed wins
        with pytest.raises(StoreError, match="different tournament"):
            store.bind({"x": 2}, 5)


def test_pgn_output_is_appended_once(tmp_path):
    pgn = tmp_path / "out.pgn"
    pgn.write_text("[Event \"someone else's game\"]\n\n*\n\n")
    with Store(str(tmp_path / "t.sqlite")) as store:
        store.bind({}, 1)
        store.add_games([_record(0, 0), _record(0, 1)])
        # simulate a kill after the first game reached the file but before it was marked
        with open(pgn, "a") as handle:
            handle.write(_record(0, 0).pgn)
        assert append_pgn(store, str(pgn)) == 1
        assert append_pgn(store, str(pgn)) == 0
    text = pgn.read_text()
    assert text.count('[Round "0.0"]') == 1 and text.count('[Round "0.1"]') == 1
    assert text.startswith("[Event \"someone else's game\"]")


def test_not_a_database(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError):
        Store(str(bad))


# -- command line ------------------------------------------------------------------------

@pytest.mark.parametrize("argv,code,message", [
    (["-engine", "cmd=a", "tc=1"], 2, "at least two -engine"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "-bogus"], 2, "unknown option -bogus"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=x"], 1, "bad time"),
    (["-engine", "cmd=a", "-engine", "cmd=b", "tc=1"], 1, "no time control"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "proto=cecp"], 1, "proto must be"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "-variant", "atomic"], 1, "atomic"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "-sprt", "elo0=5", "elo1=0"], 2, "elo0 < elo1"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "-games", "0"], 2, "at least 1"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=a", "tc=1"], 1, "names must be different"),
    (["-engine", "cmd=a", "tc=1", "-engine", "cmd=b", "tc=1", "-openings", "file=/nonexistent.epd"], 1,
     "cannot read"),
    (["report", "/nonexistent.sqlite"], 1, "no such file"),
])
def test_bad_command_lines_are_one_line_errors(argv, code, message, capsys):
    assert cli.main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith("antichess: error: ") and message in err and err.count("\n") == 1


def test_each_and_engine_keys_merge():
    config, _ = cli.parse(["-each", "tc=40/60", "timemargin=50", "option.Hash=16",
                           "-engine", "name=A", "cmd=eng --fast", "arg=uci", "st=0.5",
                           "-engine", "name=B", "cmd=x", "proto=xboard", "variantmap=antichess:suicide",
                           "-variant", "antichess", "-draw", "movenumber=40", "movecount=8", "score=10",
                           "-resign", "movecount=3", "score=900", "twosided=true", "-maxmoves", "150"])
    a, b = config.engines
    assert a.cmd == ("eng", "--fast", "uci") and a.tc.per_move == 0.5 and a.timemargin == 50
    assert b.tc.moves == 40 and b.engine_variant("antichess") == "suicide" and b.proto == "xboard"
    assert dict(b.options) == {"Hash": "16"}
    assert config.referee.draw.movecount == 8 and config.referee.resign.twosided
    assert config.referee.maxmoves == 150
    assert engine_config([("cmd", "x"), ("tc", "10"), ("st", "1")]).tc.per_move == 1.0
    with pytest.raises(ConfigError):
        engine_config([("cmd", "x"), ("tc", "10"), ("colour", "1")])


def test_referee_defaults_for_rule_sets_without_draw_rules():
    settings = RefereeSettings()
    assert settings.effective(draw_rules=False) == (200, 3)
    assert settings.effective(draw_rules=True) == (0, 0)
    assert RefereeSettings(maxmoves=50, repetition=0).effective(False) == (50, 0)


# -- opening books -----------------------------------------------------------------------

BOOKS = Path(__file__).resolve().parent.parent / "tournaments" / "books"


@pytest.mark.parametrize("variant", ["antichess", "mit-antichess", "losers", "giveaway", "suicide"])
def test_shipped_books_load_and_say_how_they_were_made(variant):
    path = BOOKS / f"{variant}.epd"
    text = path.read_text()
    book = read_epd(text, variant)
    assert len(book) == 100 and len({o.fen for o in book}) == 100
    assert f"make_book.py --variant {variant}" in text.splitlines()[3]
    assert all(o.name.startswith(variant) for o in book)
    rights = {o.fen.split()[2] for o in book}
    if variant in ("losers", "giveaway"):  # rule sets with castling keep the rights the random plies left
        assert "KQkq" in rights
    if variant in ("antichess", "suicide"):  # no castling: no rights
        assert rights == {"-"}


def test_book_maker_with_a_referee_keeps_only_what_both_judges_call_balanced(require_program):
    """`--referee`: a second engine (Fairy-Stockfish, losers) must also score a kept position
    within the threshold; its own score, asked again, agrees."""
    import importlib.util

    fsf = require_program("fairy-stockfish")
    spec = importlib.util.spec_from_file_location("make_book", BOOKS / "make_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    referee = module.Referee(fsf, "losers", 3000)
    try:
        kept, tries = module.make("losers", count=2, plies=4, depth=3, threshold=80, seed=5, referee=referee)
        assert len(kept) == 2 and tries >= 2
        for line, _ in kept:
            fen = " ".join(line.split()[:4]) + " 0 1"
            judged = referee.score(fen)
            assert judged is not None and abs(judged) <= 80
    finally:
        referee.close()


def test_book_maker_keeps_only_balanced_positions():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_book", BOOKS / "make_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kept, tries = module.make("antichess", count=3, plies=4, depth=3, threshold=60, seed=9)
    assert len(kept) == 3 and tries >= 3
    for line, score in kept:
        assert abs(score) <= 60
        fen = " ".join(line.split()[:4]) + " 0 1"
        again = Searcher().search(Game("antichess", fen), Limits(depth=3))
        assert again.info.mate is None and again.info.score == score

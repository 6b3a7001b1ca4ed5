"""CECP adapter: transcripts (input lines -> exact output lines), in-process and through the
installed command, plus passes, results, highlights, clocks and commands during thinking."""

from __future__ import annotations

import re
import time

import pytest

from engine import Game
from protocols.transcript import SETTLE, EngineDriver, run_transcript
from protocols.xboard import CECP_VARIANTS, SETUP

FEATURES = [
    "feature done=0",
    "feature ping=1 setboard=1 usermove=1 time=1 draw=0 sigint=0 reuse=1 analyze=1 colors=0 san=0 nps=1 "
    "playother=1 highlight=1 debug=1 pause=0 ics=0 name=0 memory=0 smp=1 exclude=1 setscore=0",
    'feature myname="antichess-engine 0.1"',
    'feature variants="normal,antichess,giveaway,suicide,losers,mit-antichess,antiking-antichess,antiking1,'
    'antiking2,hackerrank"',
    'feature option="Hash -spin 16 1 1024"',
    'feature option="MoveOverhead -spin 30 0 5000"',
    'feature option="SkillLevel -spin 20 0 20"',
    'feature option="ClearHash -button"',
    'feature option="MultiPV -spin 1 1 64"',
    'feature egt="antichess,suicide" option="TablebasePath -path <empty>"',
    "feature done=1",
]

POST_RE = re.compile(r"^(\d+) (-?\d+) (\d+) (\d+) (\d+) (\d+) 0\t(.*)$")

PASS_POSITION = "k7/8/8/8/8/7p/5q1P/7K"  # mit-antichess: White has no move and passes

TRANSCRIPTS = {
    "handshake": (["xboard", "protover 2"], FEATURES),
    "forced capture is enforced, before the pong": (
        ["new", "variant giveaway", "force", "usermove e2e4", "usermove d7d5", "usermove a2a3", "ping 2",
         "usermove e4d5", "ping 3"],
        ["Illegal move (forced capture): a2a3", "pong 2", "pong 3"]),
    "new goes back to normal chess": (
        ["new", "variant antichess", "new", "force", "usermove e2e4", "usermove d7d5", "usermove a2a3", "ping 1"],
        ["setup (PNBRQ................Kpnbrq................k) 8x8+0_giveaway "
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "pong 1"]),
    "a start FEN without castling rights is kept (python-chess's antichess over CECP)": (
        ["new", "variant giveaway", "force", "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
         "usermove e2e3", "usermove e7e5", "usermove g1h3", "usermove d8e7", "usermove f1e2", "usermove g7g6",
         "usermove e1g1", "ping 1", "new", "variant giveaway", "force",
         "usermove e2e3", "usermove e7e5", "usermove g1h3", "usermove d8e7", "usermove f1e2", "usermove g7g6",
         "usermove e1g1", "ping 2"],
        ["Illegal move (not a legal move): e1g1", "pong 1", "pong 2"]),
    "the engine's move ends the game": (
        ["new", "variant antichess", "setboard 8/8/8/8/8/8/1p6/2B5 w - - 0 1", "go", SETTLE, "ping 1"],
        ["setup (PNBRQ................Kpnbrq................k) 8x8+0_giveaway "
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "move c1b2", "0-1 {no pieces}", "pong 1"]),
    "the opponent's move ends the game": (
        ["new", "variant suicide", "setboard 8/8/8/8/8/8/1p6/2B5 w - - 0 1", "playother", "usermove c1b2", "ping 1",
         "usermove b2c1", "ping 2"],
        ["0-1 {no pieces}", "pong 1", "Illegal move (game over): b2c1", "pong 2"]),
    "checkmate": (
        ["new", "variant mit-antichess", "setboard k7/1p6/1K6/8/8/8/8/7Q w - - 0 1", "force", "usermove h1b7", "ping 1"],
        [SETUP["mit-antichess"][0], "1-0 {checkmate}", "pong 1"]),
    "the engine passes": (
        ["new", "variant mit-antichess", f"setboard {PASS_POSITION} w - - 0 1", "go", SETTLE, "ping 1"],
        [SETUP["mit-antichess"][0], "move @@@@", "pong 1"]),
    "a pass as @@@@": (
        ["new", "variant mit-antichess", f"setboard {PASS_POSITION} w - - 0 1", "playother", "usermove @@@@", SETTLE,
         "ping 1"],
        [SETUP["mit-antichess"][0], "move f2h2", "1-0 {bare king}", "pong 1"]),
    "a pass as a setboard with the other side to move (XBoard's way)": (
        ["new", "variant mit-antichess", f"setboard {PASS_POSITION} w - - 0 1", "playother",
         f"setboard {PASS_POSITION} b - - 1 1", SETTLE, "ping 1"],
        [SETUP["mit-antichess"][0], "move f2h2", "1-0 {bare king}", "pong 1"]),
    "a pass that is not allowed": (
        ["new", "force", "usermove @@@@", "ping 1"],
        ["Illegal move (passing is allowed only without a legal move): @@@@", "pong 1"]),
    "illegal and malformed moves": (
        ["new", "force", "usermove e2e4", "usermove e7e5", "usermove e4e5", "usermove e2e5", "usermove zz",
         "usermove", "usermove e7e5 e2e4", "usermove e1e1", "d1h5", "usermove d2d3", "ping 1"],
        ["Illegal move (not a legal move): e4e5", "Illegal move (no piece on e2): e2e5", "Illegal move (not a move): zz",
         "Illegal move (not a move): ", "Illegal move (not a move): e7e5 e2e4", "Illegal move (not a move): e1e1",
         "Illegal move (not your piece): d2d3", "pong 1"]),
    "highlights": (
        ["new", "force", "lift e2", "lift g1", "lift e7", "lift d4", "variant giveaway", "usermove e2e4",
         "usermove d7d5", "lift e4", "lift a2", "lift d5", "lift z9", "ping 1"],
        ["highlight 8/8/8/8/4Y3/4Y3/8/8", "highlight 8/8/8/8/8/5Y1Y/8/8", "highlight 8/8/8/8/8/8/8/8",
         "highlight 8/8/8/8/8/8/8/8", "highlight 8/8/8/3R4/8/8/8/8", "highlight 8/8/8/8/8/8/8/8",
         "highlight 8/8/8/8/8/8/8/8", "Error (bad square): lift z9", "pong 1"]),
    "take-backs": (
        ["new", "force", "usermove e2e4", "usermove e7e5", "usermove g1f3", "remove", "undo", "undo", "ping 1",
         "usermove e2e4", "usermove e7e5", "ping 2"],
        ["Error (no move to take back): undo", "pong 1", "pong 2"]),
    "bad commands change nothing": (
        ["new", "level x", "level 40 5", "level -1 5 0", "level 0 5:xx 0", "level 0 -1:59 0", "st -1", "st abc", "sd 0", "sd x", "nps -1", "time abc",
         "otim 1.5", "option Hash=0", "option Hash=big", "option Foo=1", "variant foo", "variant", "hello",
         "setboard nonsense", "setboard 8/8/8/8/8/8/8/8 w - - 0 1", "\x00\xffgarbage\x7f", "force", "usermove e2e4",
         "ping 1"],
        ["Error (bad level, want MPS BASE INC): level x", "Error (bad level, want MPS BASE INC): level 40 5",
         "Error (bad level, want MPS BASE INC): level -1 5 0", "Error (bad level, want MPS BASE INC): level 0 5:xx 0",
         "Error (bad st, want seconds > 0): st -1", "Error (bad st, want seconds > 0): st abc",
         "Error (bad sd, want a depth >= 1): sd 0", "Error (bad sd, want a depth >= 1): sd x",
         "Error (bad nps, want an integer >= 0): nps -1", "Error (bad time, want centiseconds): time abc",
         "Error (bad time, want centiseconds): otim 1.5", "Error (option value 0 out of range 1..1024): option Hash=0",
         "Error (option value 'big' is not an integer): option Hash=big", "Error (unknown option): option Foo=1",
         "Error (unsupported variant): variant foo", "Error (unsupported variant): variant",
         "Error (unknown command): hello",
         "tellusererror Illegal position 'nonsense': a FEN has 4 to 6 fields, got 1: 'nonsense'",
         "tellusererror Illegal position '8/8/8/8/8/8/8/8 w - - 0 1': white must have exactly one king, has 0",
         "Error (unknown command): ?garbage", "pong 1"]),
    "hackerrank is shown turned round (Black moves first; XBoard starts with White)": (
        ["new", "variant hackerrank", "force", "lift e2", "lift e7", "usermove e2e4", "usermove e2e3", "lift g8",
         "usermove e7e6", "setboard rnbqkbnr/pppp1ppp/4p3/8/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2", "undo", "undo",
         "setboard K7/8/8/8/8/8/6p1/1p6 b - - 0 1", "usermove g2g1q",  # XBoard's own promotion suffix
         "setboard 8/8/8/8/8/1p6/P7/8 w - - 0 1", "playother", "usermove a2b3", "ping 1"],
        ["setup (PNBRQ................Kpnbrq................k) 8x8+0_giveaway "
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "piece P& fmWfcF",
         "highlight 8/8/8/8/8/4Y3/8/8",  # player 1's e-pawn: one step, no double step
         "highlight 8/8/8/8/8/8/8/8",  # the other side is not to move
         "Illegal move (not a legal move): e2e4",
         "highlight 8/8/5Y1Y/8/8/8/8/8",
         # Player 1 (XBoard's White) takes player 2's last piece: player 2, left with no
         # pieces, wins, which XBoard must read as a Black win.
         "0-1 {no pieces}", "pong 1"]),
    "ignored commands": (
        ["new", "random", "computer", "name Somebody", "rating 2000 1800", "hard", "easy", "post", "nopost",
         "accepted ping", "rejected setscore", "cores 2", "memory 64", "draw", "hint", "bk", "put e4", "hover e4",
         "option Skill Level=5", "option MoveOverhead=100", "option move_overhead=50", "option ClearHash",
         "option Hash=8", "ping 1"],
        ["pong 1"]),
}


def _normal(lines):
    """Drop thinking output (it depends on the search and the clock), checking its form."""
    kept = []
    for line in lines:
        if POST_RE.match(line):
            continue
        kept.append(line)
    return kept


@pytest.mark.parametrize("name", list(TRANSCRIPTS))
def test_transcript_in_process(name):
    lines, want = TRANSCRIPTS[name]
    if name == "handshake":
        assert run_transcript("xboard", lines) == want
        return
    assert _normal(run_transcript("xboard", ["xboard", "protover 2", *lines]))[len(FEATURES):] == want


@pytest.mark.parametrize("command", [["antichess", "xboard"], ["antichess"]])
def test_transcripts_through_the_command(command):
    for name in ("handshake", "forced capture is enforced, before the pong", "bad commands change nothing",
                 "checkmate"):
        lines, want = TRANSCRIPTS[name]
        if name != "handshake":
            lines, want = ["xboard", "protover 2", *lines], FEATURES + want
        driver = EngineDriver.subprocess(command)
        for line in lines:
            driver.send(line)
        assert driver.close(timeout=30) == 0
        assert driver.output == want, name


@pytest.mark.parametrize("variant", CECP_VARIANTS)
def test_variant_answers_with_setup_for_the_rule_sets_xboard_lacks(variant):
    out = run_transcript("xboard", ["xboard", "protover 2", "new", f"variant {variant}", "ping 1"])[len(FEATURES):]
    assert out == SETUP.get(variant, []) + ["pong 1"]
    if variant in ("normal", "giveaway", "suicide", "losers"):
        assert out == ["pong 1"]  # XBoard knows these itself
    else:
        setup = out[0].split()
        assert setup[0] == "setup" and re.match(r"^8x8\+0_(giveaway|fairy)$", setup[2])
        # The position in the setup is the rule set's start, in the letters of the piece table
        # (hackerrank's turned round: XBoard starts every game with White).
        from engine import get_rule_set
        from protocols.xboard import View

        start = View(turned=variant == "hackerrank").fen(get_rule_set(variant).start_fen).split()
        assert setup[3:5] == start[:2] and setup[4] == "w"


def test_every_rule_set_plays_from_its_start():
    for variant in CECP_VARIANTS:
        out = run_transcript("xboard", ["xboard", "protover 2", "new", f"variant {variant}", "sd 2", "go", SETTLE])
        move = [line for line in out if line.startswith("move ")]
        assert len(move) == 1, (variant, out)
        from protocols.xboard import View

        assert Game(variant).is_legal(View(variant == "hackerrank").move(move[0].split()[1])), (variant, move)


def test_result_and_force_stop_the_engine_without_a_move():
    for stopper in ("result 1-0 {White wins}", "force", "new", "undo"):
        out = run_transcript("xboard", ["xboard", "protover 2", "new", "usermove e2e4", "level 0 1 0", "go", stopper,
                                        SETTLE, "ping 1"])
        assert not any(line.startswith("move") for line in out), (stopper, out)
        assert out[-1] == "pong 1"


def test_ping_is_answered_while_thinking_and_question_mark_moves_now():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "level 0 10 0", "post", "go", "ping 5")
        engine.expect("pong 5", timeout=10)
        started = time.monotonic()
        engine.wait_for(lambda line: POST_RE.match(line) is not None)
        engine.send("?")
        move = engine.expect_prefix("move ", timeout=5)
        assert time.monotonic() - started < 3
        assert Game("chess").is_legal(move.split()[1])


def test_thinking_output_only_after_post_and_in_the_cecp_format():
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "sd 3", "go", SETTLE])
    assert not any(POST_RE.match(line) for line in out)
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "variant losers", "post", "sd 3", "go", SETTLE])
    posts = [POST_RE.match(line) for line in out if POST_RE.match(line)]
    assert [int(p.group(1)) for p in posts] == [1, 2, 3]
    for post in posts:
        game = Game("losers")
        for move in post.group(7).split():
            game.push(move)


def test_fixed_time_node_and_clock_limits():
    started = time.monotonic()
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "st 0.2", "go", SETTLE])
    assert any(line.startswith("move ") for line in out)
    assert time.monotonic() - started < 5
    # python-chess's node limit: "nps 1" and "st N" mean N nodes.
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "post", "nps 1", "st 3000", "go", SETTLE])
    posts = [POST_RE.match(line) for line in out if POST_RE.match(line)]
    assert posts and int(posts[-1].group(4)) <= 3000 * 2
    # A nearly empty clock still yields a move quickly.
    started = time.monotonic()
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "level 40 0:01 0", "time 20", "otim 100", "go", SETTLE])
    assert any(line.startswith("move ") for line in out)
    assert time.monotonic() - started < 3


def test_a_short_game_through_the_command():
    """The engine plays Black move after move, as a GUI drives it, through a real process."""
    engine = EngineDriver.subprocess(["antichess", "xboard"])
    engine.send("xboard", "protover 2")
    engine.expect("feature done=1", timeout=30)
    engine.send("new", "variant giveaway", "level 0 0:05 0", "post")
    game = Game("giveaway")
    for _ in range(6):
        if game.outcome() is not None:
            break
        mine = game.legal_moves()[0]
        game.push(mine)
        mark = engine.mark()
        engine.send("time 500", "otim 500", f"usermove {'@@@@' if mine.is_pass else mine.uci()}")
        reply = engine.wait_for(lambda line: line.startswith("move ") or line.startswith(("0-1", "1-0", "1/2")),
                                timeout=10, start=mark)
        if not reply.startswith("move "):
            break
        game.push(reply.split()[1])
    engine.send("quit")
    assert engine.close(timeout=10) == 0
    assert len(game.move_stack) >= 4


# -- analyze mode, exclude/include, MultiPV ------------------------------------------------

def _pong_index(engine, number: int) -> int:
    engine.send(f"ping {number}")
    engine.expect(f"pong {number}", timeout=20)
    return engine.output.index(f"pong {number}")


def _thinking_after(engine, start: int, count: int = 1, timeout: float = 20.0) -> list[str]:
    """At least `count` thinking lines after output index `start`; returns them all."""
    engine.wait_for(lambda line: sum(bool(POST_RE.match(x)) for x in engine.output[start:]) >= count,
                    timeout=timeout, start=start)
    return [line for line in engine.output[start:] if POST_RE.match(line)]


def _first_moves(lines: list[str]) -> list[str]:
    return [POST_RE.match(line).group(7).split()[0] for line in lines if POST_RE.match(line).group(7)]


def test_analyze_mode_follows_the_board_and_exits():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2")
        engine.expect("feature done=1", timeout=60)
        engine.send("new", "variant antichess", "force", "post", "analyze")
        lines = _thinking_after(engine, _pong_index(engine, 1), 2)
        assert all(Game("antichess").is_legal(move) for move in _first_moves(lines))
        mark = engine.mark()
        engine.send(".")
        engine.wait_for(lambda line: re.match(r"^stat01: \d+ \d+ \d+ 0 20$", line) is not None, start=mark)

        engine.send("usermove e2e3")  # the GUI moves for both sides; the analysis restarts
        after = Game("antichess")
        after.push("e2e3")
        lines = _thinking_after(engine, _pong_index(engine, 2), 2)
        assert all(after.is_legal(move) for move in _first_moves(lines))

        engine.send("undo")
        lines = _thinking_after(engine, _pong_index(engine, 3), 2)
        assert all(Game("antichess").is_legal(move) for move in _first_moves(lines))

        fen = "8/8/8/8/8/2p5/1p6/2B5 w - - 0 1"  # Bxb2 is forced
        mark = engine.mark()
        engine.send(f"setboard {fen}")
        # This small position's analysis can reach its last depth before the ping below is
        # read, so its lines are looked for from the setboard on: lines of the start position
        # may come first, and from the first Bxb2 on every line must start with it.
        engine.wait_for(lambda line: bool(POST_RE.match(line)) and _first_moves([line]) == ["c1b2"],
                        timeout=20, start=mark)
        _pong_index(engine, 4)
        moves = _first_moves(_thinking_after(engine, mark))
        assert set(moves[moves.index("c1b2"):]) == {"c1b2"}

        engine.send("new")  # back to chess from its start, still analysing
        lines = _thinking_after(engine, _pong_index(engine, 5), 2)
        assert all(Game("chess").is_legal(move) for move in _first_moves(lines))

        engine.send("exit")
        done = _pong_index(engine, 6)
        time.sleep(0.3)
        assert not any(POST_RE.match(line) for line in engine.output[done:])
        assert not any(line.startswith("move ") for line in engine.output)


def test_exclude_and_include_in_analysis():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2")
        engine.expect("feature done=1", timeout=60)
        engine.send("new", "variant antichess", "force", "usermove e2e3", "usermove b7b5", "analyze")
        # White must capture: f1b5 is the only legal move in antichess here.
        engine.send("exclude all")
        done = _pong_index(engine, 1)
        time.sleep(0.3)
        assert not any(POST_RE.match(line) for line in engine.output[done:])  # nothing left to search
        engine.send("include f1b5")
        lines = _thinking_after(engine, _pong_index(engine, 2), 1)
        assert set(_first_moves(lines)) == {"f1b5"}
        engine.send("exit", "undo", "analyze", "exclude e7e5", "exclude e7e6", "exclude g7g6")
        lines = _thinking_after(engine, _pong_index(engine, 3), 3)
        moves = _first_moves(lines)
        assert moves and not {"e7e5", "e7e6", "g7g6"} & set(moves)
        engine.send("include all")
        _thinking_after(engine, _pong_index(engine, 4), 1)
        engine.send("exclude z9z9", "ping 5")
        engine.expect("pong 5")
        assert "Illegal move (not a move): z9z9" in engine.output


def test_multipv_option_in_analysis_and_in_play():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2")
        engine.expect("feature done=1", timeout=60)
        engine.send("new", "variant giveaway", "force", "option MultiPV=3", "analyze")
        start = _pong_index(engine, 1)
        lines = _thinking_after(engine, start, 9)
        by_depth: dict[int, list[str]] = {}
        for line in lines:
            by_depth.setdefault(int(line.split()[0]), []).append(line)
        complete = [depth for depth, group in by_depth.items() if len(group) == 3]
        assert complete, lines
        firsts = _first_moves(by_depth[complete[0]])
        assert len(set(firsts)) == 3 and all(Game("giveaway").is_legal(move) for move in firsts)
        engine.send("exit", "option MultiPV=1", "sd 3", "post", "go")
        engine.expect_prefix("move ", timeout=30)
        engine.send("option MultiPV=65", "ping 2")
        engine.expect("pong 2")
        assert "Error (option value 65 out of range 1..64): option MultiPV=65" in engine.output


# -- options while thinking; the side the engine plays after `new` ---------------------------

def _tt_bytes(hash_mb: int) -> int:
    from engine import Searcher

    return Searcher(hash_mb=hash_mb).tt.keys.size


@pytest.mark.parametrize("option", ["Hash=32", "ClearHash"])
def test_an_option_sent_while_thinking_is_applied_after_the_move(option):
    """XBoard sends `option` the moment the user presses OK in its engine-settings dialog,
    thinking or not: the search goes on, its move comes, then the option applies."""
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "ping 1")
        engine.expect("pong 1", timeout=30)
        searcher = engine.adapter.searcher
        assert searcher.tt.keys.size == _tt_bytes(16)
        engine.send("st 3", "go")  # no iteration starts after 60 % of it: the move comes after 1.8 s or more
        started = time.monotonic()
        time.sleep(0.3)
        mark = engine.mark()
        engine.send(f"option {option}", "ping 2")
        engine.expect("pong 2", start=mark)
        move = engine.expect_prefix("move ", timeout=10, start=mark)
        assert 1.2 < time.monotonic() - started < 6, "the search was cut short or restarted"
        assert Game("chess").is_legal(move.split()[1])
        engine.send("ping 3")
        engine.expect("pong 3", start=mark)
        assert engine.adapter.searcher is searcher
        assert searcher.tt.keys.size == _tt_bytes(32 if option.startswith("Hash") else 16)
        assert not any(line.startswith("Error") for line in engine.output), engine.output


def test_question_mark_after_an_option_while_thinking_still_moves_now():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "st 30", "go")
        time.sleep(0.5)
        mark = engine.mark()
        engine.send("option Hash=32", "option ClearHash", "?")
        move = engine.expect_prefix("move ", timeout=5, start=mark)
        assert Game("chess").is_legal(move.split()[1])


def test_an_option_during_analysis_restarts_the_analysis():
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "force", "post", "analyze")
        _thinking_after(engine, _pong_index(engine, 1), 1, timeout=30)
        engine.send("option Hash=32")
        start = _pong_index(engine, 2)
        assert engine.adapter.searcher.tt.keys.size == _tt_bytes(32)
        lines = _thinking_after(engine, start, 2)  # the analysis goes on with the new table
        assert all(Game("chess").is_legal(move) for move in _first_moves(lines))
        engine.send("exit")


def _first_gui_move(variant: str) -> tuple[str, str]:
    """(engine notation, GUI notation) of a legal first move of the side that starts."""
    from protocols.xboard import View

    move = sorted(m.uci() for m in Game(variant).legal_moves() if not m.is_pass)[0]
    return move, View(turned=variant == "hackerrank").move(move)


@pytest.mark.parametrize("variant", CECP_VARIANTS)
def test_after_new_the_engine_plays_the_guis_black_in_every_rule_set(variant):
    """CECP's `new` sets the engine to play Black: XBoard's Black, which in hackerrank (shown
    turned round, XBoard's White being player 1, who moves first) is the engine's White.  So
    after the GUI's first move the engine answers, in every rule set (XBoard's default mode,
    the documented command lines)."""
    from protocols.xboard import View

    mine, sent = _first_gui_move(variant)
    out = run_transcript("xboard", ["xboard", "protover 2", "new", f"variant {variant}", "st 0.2", "time 1000",
                                    "otim 1000", f"usermove {sent}", SETTLE, "ping 1"])
    moves = [line for line in out if line.startswith("move ")]
    assert len(moves) == 1, (variant, out[len(FEATURES):])
    game = Game(variant)
    game.push(mine)
    assert game.is_legal(View(turned=variant == "hackerrank").move(moves[0].split()[1])), (variant, moves)


def test_hackerrank_the_issue_lines_get_an_answer_and_go_plays_player_1():
    from protocols.xboard import View

    turned = View(turned=True)
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "variant hackerrank", "st 0.2", "time 1000",
                                    "otim 1000", "usermove e2e3", SETTLE, "ping 1"])
    moves = [line.split()[1] for line in out if line.startswith("move ")]
    game = Game("hackerrank")
    game.push("e7e6")  # XBoard's e2e3 on the turned board: player 1's e-pawn
    assert len(moves) == 1 and game.is_legal(turned.move(moves[0])), out[len(FEATURES):]
    # `-mode MachineWhite`: XBoard sends `go` at the start; the engine plays player 1 (XBoard's
    # White) and, after the GUI's reply, moves again.
    out = run_transcript("xboard", ["xboard", "protover 2", "new", "variant hackerrank", "st 0.2", "go", SETTLE,
                                    "usermove e7e6", SETTLE, "ping 1"])
    moves = [line.split()[1] for line in out if line.startswith("move ")]
    assert len(moves) == 2, out[len(FEATURES):]
    game = Game("hackerrank")
    for move in (moves[0], "e7e6", moves[1]):
        game.push(turned.move(move))

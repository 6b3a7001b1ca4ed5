"""XBoard (Debian's 4.9.1) hosts the engine under Xvfb: matches against Sjeng in the losing
variants XBoard knows, self-play in the engine-defined MIT rule sets, and a human move
entered with mouse clicks (xdotool), including one that breaks the forced-capture rule and
must be taken back.

Needs the Debian packages xboard, xvfb, xauth, xdotool, imagemagick and sjeng (.ci/run
installs them), with their programs on PATH (Debian puts xboard and sjeng in /usr/games).
Outside CI the tests are skipped when one is missing; under CI=true a missing program fails
them (see `require_program` in conftest.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import chess
import pytest

from engine import Game

TOOLS = ("xboard", "xvfb-run", "Xvfb", "xdotool", "import", "sjeng", "antichess")
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture(scope="module", autouse=True)
def tools(require_program):
    """Every test here needs all of TOOLS on PATH: skipped without them, failed under CI."""
    require_program(*TOOLS)


FAILURES = ("Forfeit", "False illegal-move claim", "Engine did not send setup", "flag fell",
            "exited unexpectedly", "<first : Illegal move", "<second: Illegal move", "Error (")


def xboard_env(home: Path) -> dict:
    """A clean environment: a fresh HOME (no ~/.xboardrc), the same PATH (TOOLS are on it),
    and the engine's warm numba cache where it was (it lives under the real HOME by default)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=cache)
    env.pop("DISPLAY", None)
    return env


def run_match(tmp_path: Path, variant: str, second: str, games: int = 2, tc: str = "0:05", inc: str = "0.2",
              extra: tuple = ()) -> tuple[str, str, str]:
    """A headless XBoard match, our engine first; (XBoard's output, saved PGN, debug log)."""
    pgn, debug = tmp_path / f"{variant}.pgn", tmp_path / f"{variant}.debug"
    command = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", "xboard", "-saveSettingsOnExit", "false",
               "-fcp", "antichess", "-scp", second, "-variant", variant, "-mg", str(games), "-tc", tc, "-inc", inc,
               "-sgf", str(pgn), "-xexit", "-debug", "-nameOfDebugFile", str(debug), *extra]
    result = subprocess.run(command, env=xboard_env(tmp_path), capture_output=True, text=True, timeout=400)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-2000:]
    return output, pgn.read_text(errors="replace"), debug.read_text(errors="replace")


def check_match(output: str, pgn: str, debug: str, variant: str, games: int = 2) -> None:
    assert "final score" in output, output[-2000:]
    results = re.findall(r'^\[Result "([^"]*)"\]', pgn, re.M)
    assert len(results) == games and all(r in ("1-0", "0-1", "1/2-1/2") for r in results), results
    assert re.findall(r'^\[Variant "([^"]*)"\]', pgn, re.M) == [variant] * games
    for failure in FAILURES:
        assert failure not in output and failure not in debug, (failure, _context(debug, failure))


def _context(text: str, needle: str) -> str:
    at = text.find(needle)
    return text[max(0, at - 1500): at + 300] if at >= 0 else ""


SELF_PLAY = ("-testLegality", "false", "-adjudicateDrawMoves", "120")
MATCHES = {"suicide": "sjeng", "giveaway": "sjeng", "losers": "sjeng",
           "mit-antichess": "antichess", "antiking-antichess": "antichess"}


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    """The five default matches (5 s and 0.2 s a move a side; Sjeng 11.2 thinks without
    end once its clock is nearly empty, so the increment keeps it away from that), two at
    a time: each keeps about one core busy, as its two engines think in turn."""
    from concurrent.futures import ThreadPoolExecutor

    def one(variant):
        folder = tmp_path_factory.mktemp(variant)
        extra = SELF_PLAY if MATCHES[variant] == "antichess" else ()
        try:
            return run_match(folder, variant, MATCHES[variant], extra=extra)
        except BaseException as error:  # reported by the test of this variant
            return error

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(MATCHES, pool.map(one, MATCHES)))


def match_result(matches, variant):
    result = matches[variant]
    if isinstance(result, BaseException):
        raise result
    return result


@pytest.mark.parametrize("variant", ["suicide", "giveaway", "losers"])
def test_match_against_sjeng(matches, variant):
    output, pgn, debug = match_result(matches, variant)
    check_match(output, pgn, debug, variant)
    assert "antichess-engine" in pgn and "Sjeng" in pgn


@pytest.mark.parametrize("variant", ["mit-antichess", "antiking-antichess"])
def test_self_play_in_an_engine_defined_variant(matches, variant):
    output, pgn, debug = match_result(matches, variant)
    check_match(output, pgn, debug, variant)
    assert re.search(r"<first : setup \(", debug)  # the first engine defined the variant
    assert f">second: variant {variant}" in debug  # and the second was told its name
    assert "[FEN " in pgn and "[SetUp \"1\"]" in pgn


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["antichess", "antiking1", "antiking2", "hackerrank"])
def test_self_play_in_the_other_engine_defined_variants(tmp_path, variant):
    output, pgn, debug = run_match(tmp_path, variant, "antichess", games=2, tc="0:20", inc="0",
                                   extra=("-testLegality", "false", "-adjudicateDrawMoves", "150"))
    check_match(output, pgn, debug, variant)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["suicide", "giveaway", "losers"])
def test_long_match_against_sjeng(tmp_path, variant):
    output, pgn, debug = run_match(tmp_path, variant, "sjeng", games=6, tc="1", inc="1")
    check_match(output, pgn, debug, variant, games=6)


# -- a human at the board --------------------------------------------------------------------

# XBoard 4.9.1 (GTK) with -boardSize Medium: the board's top-left corner inside the window
# and the square pitch, measured from a screenshot; White at the bottom.
BOARD_ORIGIN = (2, 101)
SQUARE = 65


def _terminate(process: subprocess.Popen, timeout: float) -> None:
    """Ask `process` to end; kill it if it has not within `timeout` seconds."""
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Display:
    """An Xvfb server of our own, its number read from -displayfd."""

    def __init__(self):
        read, write = os.pipe()
        self.process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                                         "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            self.name = ":" + pipe.readline().strip()

    def close(self) -> None:
        _terminate(self.process, 10)


class HumanSession:
    """XBoard with our engine: by default playing Black in mit-antichess (XBoard's start-up
    mode: the human plays White), the test playing White by mouse; or XBoard started with
    the words `command` (a documented command line)."""

    def __init__(self, tmp_path: Path, command: list[str] | None = None, variant: str = "mit-antichess"):
        self.display = Display()
        self.env = dict(xboard_env(tmp_path), DISPLAY=self.display.name)
        self.debug_path = tmp_path / "human.debug"
        command = command or ["xboard", "-saveSettingsOnExit", "false", "-fcp", "antichess", "-variant", variant,
                              "-tc", "5", "-depth", "3"]
        self.xboard = subprocess.Popen(
            [*command, "-boardSize", "Medium", "-xexit", "-debug", "-nameOfDebugFile", str(self.debug_path)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.game = Game(variant)
        self.engine_moves = 0

    def window_names(self) -> list[str]:
        """The names of XBoard's visible windows (an error dialog is called "Error")."""
        names = []
        for window in self.xdotool("search", "--onlyvisible", "--class", "xboard").split():
            names.append(self.xdotool("getwindowname", window).strip())
        return names

    def debug(self) -> str:
        return self.debug_path.read_text(errors="replace") if self.debug_path.exists() else ""

    def wait_debug(self, pattern: str, timeout: float = 30.0, start: int = 0) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.debug()[start:])
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} not in the XBoard log; its end: {self.debug()[-3000:]}")

    def xdotool(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=30).stdout

    def window_origin(self) -> tuple[int, int]:
        windows = []
        for window in self.xdotool("search", "--onlyvisible", "--class", "xboard").split():
            shell = self.xdotool("getwindowgeometry", "--shell", window)
            values = dict(line.split("=") for line in shell.split() if "=" in line)
            if {"X", "Y", "WIDTH", "HEIGHT"} <= set(values):
                windows.append((int(values["WIDTH"]) * int(values["HEIGHT"]), int(values["X"]), int(values["Y"])))
        assert windows, "no XBoard window"
        _, left, top = max(windows)  # the main window is the largest
        return left, top

    def click(self, x: int, y: int) -> None:
        self.xdotool("mousemove", str(x), str(y), "click", "1")
        time.sleep(0.6)

    def click_square(self, square: str) -> None:
        left, top = self.window_origin()
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        self.click(left + BOARD_ORIGIN[0] + SQUARE * file + SQUARE // 2,
                   top + BOARD_ORIGIN[1] + SQUARE * (7 - rank) + SQUARE // 2)

    def play(self, move: str) -> int:
        """Click a move's two squares; returns the log position before the clicks."""
        mark = len(self.debug())
        self.click_square(move[:2])
        self.click_square(move[2:4])
        return mark

    def engine_reply(self, start: int) -> str:
        """Wait for the engine's answer after log position `start` and play it on our board."""
        found = self.wait_debug(r"<first : move (\S+)", timeout=60, start=start)
        self.game.push(found.group(1))
        return found.group(1)

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        left, top = self.window_origin()
        subprocess.run(["import", "-window", "root", "-crop", f"530x630+{left}+{top}", "+repage", str(path)],
                       env=self.env, check=True, timeout=60)

    def close(self) -> None:
        _terminate(self.xboard, 15)
        self.display.close()


def _quiet_moves(game: Game) -> list[str]:
    """Moves normal chess allows here that are not captures: XBoard (testing chess legality)
    accepts them and leaves it to the engine to enforce the compulsory capture."""
    board = chess.Board(game.fen())
    return [m.uci() for m in board.legal_moves
            if not board.is_capture(m) and not m.promotion and board.piece_type_at(m.from_square) != chess.KING]


def _offering_move(game: Game) -> str:
    """A White move after which Black must capture and White can then capture too; else any
    quiet non-king move (the human aims at a position with a compulsory capture)."""
    candidates = [m for m in game.legal_moves()
                  if not m.is_pass and not m.promotion and game.piece_at(m.from_square) not in ("K",)]
    for move in candidates:
        game.push(move)
        replies = game.legal_moves()
        good = bool(replies) and all(reply.is_capture for reply in replies)
        for reply in replies if good else []:
            game.push(reply)
            good = good and any(m.is_capture for m in game.legal_moves())
            game.pop()
        game.pop()
        if good:
            return move.uci()
    return candidates[0].uci()


def test_a_human_plays_by_mouse_and_a_forced_capture_violation_is_taken_back(tmp_path):
    session = HumanSession(tmp_path)
    try:
        session.wait_debug(r"<first : feature done=1", timeout=60)
        session.wait_debug(r"<first : setup \(", timeout=30)
        time.sleep(1.5)
        assert "Error" not in session.window_names()
        session.click(700, 700)  # the first start shows a help tip that takes one click
        start = session.play("e2e4")
        session.wait_debug(r">first : lift e2", start=start)
        session.wait_debug(r"<first : highlight 8/8/8/8/4Y3/4Y3/8/8", start=start)
        session.wait_debug(r">first : usermove (\d+ >first : )?e2e4", start=start)
        session.game.push("e2e4")
        session.engine_reply(start)

        rejected = False
        for _ in range(10):
            if session.game.outcome() is not None:
                break
            captures = [m.uci() for m in session.game.legal_moves() if m.is_capture and not m.promotion]
            if not captures:
                move = _offering_move(session.game)
                start = session.play(move)
                session.game.push(move)
                session.engine_reply(start)
                continue
            wrong = _quiet_moves(session.game)[0]
            start = session.play(wrong)
            session.wait_debug(rf">first : usermove (\d+ >first : )?{wrong}", start=start)
            session.wait_debug(rf"<first : Illegal move \(forced capture\): {wrong}", start=start)
            time.sleep(1.0)
            keep = os.environ.get("CI") == "true" or os.environ.get("ANTICHESS_KEEP_ARTIFACTS") == "1"
            session.screenshot((ARTIFACTS if keep else tmp_path) / "xboard-forced-capture-rejected.png")
            # XBoard took the move back: White is still to move and may now make the capture.
            start = session.play(captures[0])
            session.wait_debug(rf">first : usermove (\d+ >first : )?{captures[0]}", start=start)
            session.game.push(captures[0])
            if session.game.outcome() is None:
                session.engine_reply(start)
            assert "Illegal move" not in session.debug()[start:]
            rejected = True
            break
        assert rejected, "no position with a compulsory capture arose for White"
    finally:
        session.close()


# -- the command lines docs/protocols.md gives -------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocols.md"


def documented_command_lines() -> list[list[str]]:
    """The XBoard command lines of docs/protocols.md, section 3 (its first `sh` block)."""
    text = DOCS.read_text()
    section = text[text.index("## 3. XBoard"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    return [line.split() for line in block.splitlines() if line.startswith("xboard ")]


def test_the_documented_command_lines_are_one_per_rule_set_without_machine_black():
    lines = documented_command_lines()
    from protocols.xboard import CECP_VARIANTS

    assert sorted(line[line.index("-variant") + 1] for line in lines) == sorted(CECP_VARIANTS)
    assert not any("MachineBlack" in line for line in lines)


def _gui_first_move(variant: str) -> tuple[str, str]:
    """(engine notation, XBoard notation) of a legal first move of the human (XBoard's White)."""
    from protocols.xboard import View

    move = sorted(m.uci() for m in Game(variant).legal_moves() if not m.is_pass and not m.promotion)[0]
    return move, View(turned=variant == "hackerrank").move(move)


@pytest.mark.parametrize("line", documented_command_lines(), ids=lambda line: line[line.index("-variant") + 1])
def test_each_documented_command_line_starts_without_an_error_and_the_engine_answers(tmp_path, line):
    """XBoard started with the documented line (the engine playing Black, XBoard's start-up
    mode) opens no error dialog; the human's first move, clicked, is answered by the engine."""
    variant = line[line.index("-variant") + 1]
    session = HumanSession(tmp_path, line + ["-depth", "3"], variant=variant)
    try:
        session.wait_debug(r"<first : feature done=1", timeout=60)
        time.sleep(2.0)
        assert "Error" not in session.window_names(), session.window_names()
        session.click(700, 700)  # the first start shows a help tip that takes one click
        mine, shown = _gui_first_move(variant)
        start = session.play(shown)
        session.wait_debug(rf">first : usermove (\d+ >first : )?{shown}", start=start)
        found = session.wait_debug(r"<first : move (\S+)", timeout=60, start=start)
        from protocols.xboard import View

        session.game.push(mine)
        assert session.game.is_legal(View(turned=variant == "hackerrank").move(found.group(1)))
        assert "Error" not in session.window_names(), session.window_names()
        log = session.debug()
        for failure in FAILURES + ("Illegal move",):
            assert failure not in log, (failure, _context(log, failure))
    finally:
        session.close()


def test_hackerrank_with_machine_white_the_engine_plays_player_1(tmp_path):
    line = next(line for line in documented_command_lines() if "hackerrank" in line)
    session = HumanSession(tmp_path, line + ["-mode", "MachineWhite", "-depth", "3"], variant="hackerrank")
    try:
        session.wait_debug(r"<first : feature done=1", timeout=60)
        found = session.wait_debug(r"<first : move (\S+)", timeout=60)
        from protocols.xboard import View

        assert Game("hackerrank").is_legal(View(turned=True).move(found.group(1)))  # player 1 moves first
        time.sleep(1.0)
        assert "Error" not in session.window_names(), session.window_names()
    finally:
        session.close()


def test_a_table_folder_without_tables_is_shown_once_in_a_note(tmp_path):
    """`egtpath` (XBoard sends it before every game) naming a folder that does not exist:
    the engine's `telluser` opens one XBoard note, the `#` line goes to the debug log."""
    line = next(line for line in documented_command_lines() if "suicide" in line)
    session = HumanSession(tmp_path, line + ["-egtFormats", "antichess:/nonexistent"], variant="suicide")
    try:
        session.wait_debug(r"<first : feature done=1", timeout=60)
        session.wait_debug(r"<first : telluser tablebases: /nonexistent does not exist", timeout=30)
        time.sleep(2.0)
        assert "Note" in session.window_names() and "Error" not in session.window_names()
        log = session.debug()
        assert log.count(">first : egtpath antichess /nonexistent") >= 1
        assert log.count("<first : telluser ") == 1
        assert "<first : # tablebases: /nonexistent does not exist" in log
    finally:
        session.close()

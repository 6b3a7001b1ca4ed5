"""Ctrl-C in every protocol mode of the `antichess` command.

On a terminal (a pseudo-terminal here: the `pty` module, the \\x03 a user's Ctrl-C types)
every mode, `antichess` waiting for its first line, `uci`, `xboard` and `hackerrank`, ends
with exit status 130 and no traceback.  On a pipe a CECP engine ignores SIGINT, because
XBoard sends it (CECP's `sigint` feature; the engine announces `sigint=0`, but XBoard may
signal before it has read the features), and keeps answering.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from engine import Game
from protocols.transcript import EngineDriver

ROOT = Path(__file__).resolve().parents[1]


class PtyEngine:
    """`python -m antichess ARGS` with a pseudo-terminal as its stdin, stdout and stderr."""

    def __init__(self, *args: str):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the engine, on the terminal
            try:
                os.chdir(ROOT)
                os.execv(sys.executable, [sys.executable, "-m", "antichess", *args])
            finally:
                os._exit(127)
        self.output = b""
        self.status: int | None = None

    def _read(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child is gone and the terminal closed
                    return
                if not chunk:
                    return
                self.output += chunk

    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, needle: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            assert time.monotonic() < deadline, f"{needle!r} not seen; output: {self.text()[-2000:]!r}"
            self._read(0.1)

    def wait_until_reading(self, timeout: float = 30.0) -> None:
        """Until the engine's main thread blocks reading the terminal (its kernel wait
        channel names the tty read), so the Ctrl-C arrives while it waits for input and not
        while Python still imports; a fixed pause where /proc cannot tell."""
        deadline = time.monotonic() + timeout
        wchan = Path(f"/proc/{self.pid}/wchan")
        while time.monotonic() < deadline:
            try:
                if "tty" in wchan.read_text() or "wait_woken" in wchan.read_text():
                    time.sleep(0.2)
                    return
            except OSError:
                break
            self._read(0.05)
        time.sleep(3.0)

    def ctrl_c(self) -> None:
        self.send("\x03")  # the terminal's line discipline turns it into SIGINT for the engine

    def wait(self, timeout: float = 20.0) -> int | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                self._read(0.2)
                return self.status
        return None

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)


def _ctrl_c_ends(engine: PtyEngine) -> None:
    engine.ctrl_c()
    status = engine.wait()
    output = engine.text()
    assert status == 130, (status, output[-2000:])
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-2000:]


@pytest.mark.parametrize("first_line", [None, "uci", "xboard"], ids=["before-first-line", "uci", "xboard"])
def test_auto_on_a_terminal_exits_130_on_ctrl_c(first_line):
    engine = PtyEngine()
    try:
        if first_line is None:
            engine.wait_until_reading()
        elif first_line == "uci":
            engine.send("uci\n")
            engine.expect("uciok")
        else:
            engine.send("xboard\nprotover 2\n")
            engine.expect("feature done=1")
        _ctrl_c_ends(engine)
    finally:
        engine.close()


def test_uci_on_a_terminal_exits_130_on_ctrl_c():
    engine = PtyEngine("uci")
    try:
        engine.send("uci\n")
        engine.expect("uciok")
        _ctrl_c_ends(engine)
    finally:
        engine.close()


def test_xboard_on_a_terminal_exits_130_on_ctrl_c():
    engine = PtyEngine("xboard")
    try:
        engine.send("xboard\nprotover 2\n")
        engine.expect("feature done=1")
        _ctrl_c_ends(engine)
    finally:
        engine.close()


def test_xboard_on_a_terminal_ctrl_c_stops_a_search_with_its_move_then_exits():
    """As in UCI: a running search is stopped (CECP: the move is played, as on `?`); with
    nothing running Ctrl-C ends the engine."""
    engine = PtyEngine("xboard")
    try:
        engine.send("xboard\nprotover 2\n")
        engine.expect("feature done=1")
        engine.send("new\nlevel 0 10 0\ngo\n")
        time.sleep(1.0)
        engine.ctrl_c()
        engine.expect("move ", timeout=10)
        engine.send("ping 7\n")
        engine.expect("pong 7", timeout=10)
        _ctrl_c_ends(engine)
    finally:
        engine.close()


def test_hackerrank_on_a_terminal_exits_130_on_ctrl_c():
    engine = PtyEngine("hackerrank")
    try:
        engine.wait_until_reading()
        _ctrl_c_ends(engine)
    finally:
        engine.close()


@pytest.mark.parametrize("command", [["antichess", "xboard"], ["antichess"]], ids=["xboard", "auto"])
def test_cecp_on_a_pipe_ignores_sigint_as_xboard_expects(command):
    engine = EngineDriver.subprocess(command)
    try:
        engine.send("xboard", "protover 2")
        engine.expect("feature done=1", timeout=60)
        engine.process.send_signal(signal.SIGINT)
        engine.send("ping 1")
        engine.expect("pong 1")
        engine.send("new", "st 0.5", "go")
        time.sleep(0.2)
        engine.process.send_signal(signal.SIGINT)  # while thinking too: the search goes on, the move comes
        move = engine.expect_prefix("move ", timeout=30)
        assert engine.process.poll() is None
        assert Game("chess").is_legal(move.split()[1])
        engine.send("quit")
        assert engine.close(timeout=20) == 0
        assert b"Traceback" not in engine.process.stderr.read()
    finally:
        engine.close(timeout=5)


def test_auto_on_a_pipe_ignores_sigint_before_the_first_line():
    """A CECP GUI may signal before the engine has read `xboard`: nothing is lost."""
    engine = EngineDriver.subprocess(["antichess"])
    try:
        time.sleep(2.0)
        engine.process.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert engine.process.poll() is None, engine.process.stderr.read()
        engine.send("xboard", "protover 2")
        engine.expect("feature done=1", timeout=60)
        engine.send("quit")
        assert engine.close(timeout=20) == 0
        assert b"Traceback" not in engine.process.stderr.read()
    finally:
        engine.close(timeout=5)

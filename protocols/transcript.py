"""Driving an engine by its protocol from Python: in-process or as a subprocess.

Both drivers have the same interface, so one transcript (lines in, lines expected out) can
be checked against the adapter classes directly and against the installed `antichess`
command::

    with EngineDriver.in_process("uci") as engine:      # or EngineDriver.subprocess(["antichess"])
        engine.send("uci")
        engine.expect("uciok")
        engine.output            # every line received so far

`run_transcript(protocol, lines)` feeds all lines, then end of input, and returns the output.
"""

from __future__ import annotations

import subprocess
import threading
import time
from typing import Callable, Iterable

ADAPTERS = {"uci": ("protocols.uci", "UciAdapter"), "xboard": ("protocols.xboard", "CecpAdapter")}


def adapter_class(protocol: str):
    """The adapter class for 'uci' or 'xboard'."""
    import importlib

    module, name = ADAPTERS[protocol]
    return getattr(importlib.import_module(module), name)


class EngineDriver:
    """Lines to an engine, lines back, with waiting."""

    def __init__(self):
        self.output: list[str] = []
        self._cond = threading.Condition()
        self._closed = False
        self._send: Callable[[str], None] = lambda line: None
        self._finish: Callable[[float], int | None] = lambda timeout: 0

    @classmethod
    def in_process(cls, protocol: str) -> "EngineDriver":
        """An adapter running in a thread of this process."""
        driver = cls()
        adapter = adapter_class(protocol)(driver._received)
        thread = threading.Thread(target=adapter.run, name="adapter-under-test", daemon=True)
        thread.start()
        driver.adapter = adapter
        driver._send = adapter.put_line

        def finish(timeout: float) -> int | None:
            adapter.put_eof()
            thread.join(timeout)
            return None if thread.is_alive() else 0

        driver._finish = finish
        return driver

    @classmethod
    def subprocess(cls, command: list[str], env: dict | None = None) -> "EngineDriver":
        """The engine as a child process speaking on its stdin/stdout."""
        driver = cls()
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env)
        driver.process = process

        def pump() -> None:
            for raw in process.stdout:
                driver._received(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
            with driver._cond:
                driver._closed = True
                driver._cond.notify_all()

        threading.Thread(target=pump, name="engine-stdout", daemon=True).start()

        def send(line) -> None:
            data = line if isinstance(line, bytes) else line.encode("utf-8")
            try:
                process.stdin.write(data + b"\n")
                process.stdin.flush()
            except (BrokenPipeError, OSError):
                pass

        def finish(timeout: float) -> int | None:
            try:
                process.stdin.close()
            except OSError:
                pass
            try:
                return process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                return None

        driver._send = send
        driver._finish = finish
        return driver

    def _received(self, line: str) -> None:
        with self._cond:
            self.output.append(line)
            self._cond.notify_all()

    def send(self, *lines) -> None:
        """Send input lines (str or bytes)."""
        for line in lines:
            self._send(line)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 10.0, start: int = 0) -> str:
        """The first output line from index `start` on that satisfies `predicate`;
        TimeoutError (with the output so far) if none arrives in time."""
        deadline = time.monotonic() + timeout
        with self._cond:
            index = start
            while True:
                while index < len(self.output):
                    if predicate(self.output[index]):
                        return self.output[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise TimeoutError(f"no matching line; output so far: {self.output[-30:]!r}")
                self._cond.wait(min(left, 0.1))

    def expect(self, line: str, timeout: float = 10.0, start: int = 0) -> str:
        """Wait for an exact output line."""
        return self.wait_for(lambda candidate: candidate == line, timeout, start)

    def expect_prefix(self, prefix: str, timeout: float = 10.0, start: int = 0) -> str:
        """Wait for an output line starting with `prefix`."""
        return self.wait_for(lambda candidate: candidate.startswith(prefix), timeout, start)

    def mark(self) -> int:
        """The number of output lines so far (a `start` for later waits)."""
        with self._cond:
            return len(self.output)

    def close(self, timeout: float = 10.0) -> int | None:
        """End the input and wait for the engine to finish: its exit status, None if it hung."""
        return self._finish(timeout)

    def __enter__(self) -> "EngineDriver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


SETTLE = object()  # in a transcript: let the running search end by itself before going on


def run_transcript(protocol: str, lines: Iterable, settle: bool = True) -> list[str]:
    """Every output line of an in-process adapter given `lines` and then end of input.

    A SETTLE item among the lines, and with `settle` the end of the lines, lets a running
    search end by itself (up to a minute) before the next line is read, so `go depth N`
    runs to depth N and an engine's move comes before the next command.
    """
    output: list[str] = []
    adapter = adapter_class(protocol)(output.append)
    for line in lines:
        if line is SETTLE:
            adapter.put_settle()
        else:
            adapter.put_line(line)
    if settle:
        adapter.put_settle()
    adapter.put_eof()
    adapter.run()
    return output

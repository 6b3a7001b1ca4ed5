"""What the UCI and CECP adapters share: the event loop, the engine loader and search jobs.

An adapter is a single-threaded state machine.  Everything it reacts to arrives as an event
on one queue: input lines (from a reader thread, a test, or a list) and finished searches
(from worker threads).  So adapter state is only ever touched by the thread running
`Adapter.run()`, searches never block the input, and `stop`, `isready`, `ping` and `?` are
answered while the engine thinks.  Worker threads only print search progress (`info` or
thinking lines) through the same locked writer.

Nothing here knows a rule: positions, moves and results come from `engine.Game`, moves to
play from `engine.Searcher` (see `protocols.play`).  `engine.Game` loads numba, so it is
imported by `Loader` in the background, after the adapter has answered the GUI's first
command.  The engine options are declared once, in `protocols.options`; each adapter keeps
their values in `self.options`, whose callbacks land in the methods below.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from typing import Callable, Iterable

from engine import RULE_SETS, RuleError, defer_compilation, get_rule_set

from .options import UCI_VARIANT_NAMES, Options, tablebase_census, tablebase_folder

ENGINE_NAME = "antichess-engine 0.1"
ENGINE_AUTHOR = "the antichess-engine developers"

MAX_LINE = 100_000  # longer input lines are cut (a line is a command, never a file)


def canonical_variant(name: str) -> str | None:
    """The rule set's canonical name for a protocol variant name, or None if unknown."""
    try:
        return get_rule_set(name).name
    except RuleError:
        return None


def clean_line(raw: bytes | str) -> str:
    """One input line as ASCII text: tabs and control characters become spaces, anything
    else outside printable ASCII (undecodable bytes too) becomes '?'."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    raw = raw[:MAX_LINE]
    return "".join(c if " " <= c <= "~" else (" " if c < " " or c == "\x7f" else "?") for c in raw).strip()


class Loader:
    """Makes the compiled engine ready in the background, while the adapter already answers
    and plays with the interpreted kernels (`engine.defer_compilation`).

    With a warm cache it loads every kernel from disk (well under a second); on an empty one
    (the first start after an install or an engine update) it first compiles them in a
    worker process (about 25 s), reporting progress through `on_progress(text)`.  If that
    fails, it compiles in this process; if that fails too, `error` says why and the engine
    goes on with the interpreted kernels.
    """

    def __init__(self, on_progress: Callable[[str], None] | None = None):
        self._thread: threading.Thread | None = None
        self._decided = threading.Event()  # set once `compiling` is known
        self._done = threading.Event()
        self.compiling = False
        self.worker_started = threading.Event()  # set once the compiling worker process runs
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.on_progress = on_progress

    def start(self) -> None:
        """Begin loading (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._load, name="engine-loader", daemon=True)
            self._thread.start()

    def wait(self) -> None:
        """Start loading if needed and block until it has finished."""
        self.start()
        self._done.wait()

    def wait_unless_compiling(self) -> None:
        """Block while the kernels load from a warm cache; return at once while they compile
        (the interpreted kernels answer meanwhile)."""
        self.start()
        self._decided.wait()
        if not self.compiling:
            self._done.wait()

    @property
    def ready(self) -> bool:
        """True once loading has finished (successfully or not)."""
        return self._done.is_set()

    def _report(self, text: str) -> None:
        if self.on_progress is not None:
            self.on_progress(text)

    def _compile(self) -> bool:
        """Compile the kernels in a worker process if the cache lacks them; True if it did.
        Once the worker is done, callers wait for the (short) load again."""
        from engine import cache_is_complete, compile_in_subprocess, kernels_compiled

        self.compiling = not kernels_compiled() and not cache_is_complete()
        self._decided.set()
        if not self.compiling:
            return False
        shown = [0]

        def started() -> None:
            self.worker_started.set()
            self._report("compiling the engine's kernels (once per install, about 25 s); "
                         "playing with interpreted kernels meanwhile")

        def progress(done: int, total: int, name: str) -> None:
            percent = 100 * done // max(1, total)
            if percent >= shown[0] + 25:
                shown[0] = percent - percent % 25
                self._report(f"compiling kernels: {done}/{total}")

        try:
            compile_in_subprocess(progress, on_start=started)
        except (OSError, RuntimeError) as error:
            self._report(f"{error}; compiling in this process instead")
        finally:
            self.compiling = False  # from here on a `go` waits for the compiled kernels
        return True

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            compiled = self._compile()
            from engine import Game, Limits, Searcher, compile_kernels

            compile_kernels()  # waits for a running interpreted search to end
            # Touch the kernels a game uses so they are loaded now, not on the first move.
            game = Game("antichess")
            game.legal_moves()
            game.outcome()
            game.perft(2)
            Searcher(hash_mb=1).search(game, Limits(depth=2))
            Game("chess").is_check()
            if compiled:
                self._report(f"kernels compiled in {time.perf_counter() - started:.1f} s")
        except BaseException as error:  # reported on first use; never kills the adapter
            self.error = error
        finally:
            self.seconds = time.perf_counter() - started
            self._decided.set()
            self._done.set()


class Job:
    """One search or perft running in a worker thread."""

    def __init__(self, kind: str, run: Callable[["Job"], object], data: dict | None = None):
        self.kind = kind
        self.data = data or {}
        self.result: object = None
        self.error: BaseException | None = None
        self.discarded = False  # set: the adapter no longer wants this job's output
        self.handled = False
        self.stop_requested = threading.Event()
        self._run = run
        self.thread = threading.Thread(target=self._main, name=f"engine-{kind}", daemon=True)
        self.on_finish: Callable[["Job"], None] | None = None

    def _main(self) -> None:
        try:
            self.result = self._run(self)
        except BaseException as error:
            self.error = error
        if self.on_finish is not None:
            self.on_finish(self)


class Adapter:
    """Base of the protocol adapters: an event loop over input lines and finished jobs.

    `write` receives each output line (without newline) and is called under a lock, so
    lines from worker threads never interleave.  Subclasses implement `handle(line)` and
    `job_finished(job)`; `run()` processes events until `quit` or end of input.
    """

    def __init__(self, write: Callable[[str], None]):
        self.options = Options(self)  # the engine options (protocols.options), with their callbacks
        self._write = write
        self._write_lock = threading.Lock()
        self._events: queue.Queue = queue.Queue()
        defer_compilation()  # answer at once; the loader compiles or loads in the background
        self.loader = Loader(self.report_progress)
        self._load_error_reported = False
        self.job: Job | None = None
        self._pending_changes: list[Callable[[], None]] = []  # change_when_idle, waiting for the job to end
        self.finished = False
        self._searcher = None

    # -- output ------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one output line (thread-safe)."""
        with self._write_lock:
            self._write(line)

    # -- input -------------------------------------------------------------------------

    def put_line(self, line: bytes | str) -> None:
        """Queue an input line (thread-safe)."""
        self._events.put(("line", line))

    def put_settle(self, timeout: float = 60.0) -> None:
        """Queue a pause that lets the running job end by itself (at most `timeout` s, then
        it is stopped) before the lines after it are read; for transcripts and tests."""
        self._events.put(("settle", timeout))

    def put_eof(self) -> None:
        """Queue the end of input: the adapter quits after the lines before it."""
        self._events.put(("eof", None))

    def run(self) -> int:
        """Process events until `quit` or end of input; returns the exit status."""
        while not self.finished:
            kind, payload = self._events.get()
            if kind == "line":
                self._dispatch(clean_line(payload))
            elif kind == "done":
                self._complete(payload)
            elif kind == "settle":
                self._settle(payload)
            else:
                self.end_of_input()
        return 0

    def end_of_input(self) -> None:
        """Input ended without `quit`: a running perft (piped in by a script) is finished
        and answered first; anything else ends as on `quit`."""
        job = self.job
        if job is not None and job.kind == "perft":
            job.thread.join()
            self._complete(job)
        self.quit()

    def _settle(self, timeout: float) -> None:
        job = self.job
        if job is not None:
            job.thread.join(timeout)
            self.stop_job(discard=False)

    def _dispatch(self, line: str) -> None:
        if not line:
            return
        try:
            self.handle(line)
        except Exception as error:  # a bug must not take the engine down with it
            self.report_error(f"internal error on {line[:80]!r}: {type(error).__name__}: {error}")

    def handle(self, line: str) -> None:  # pragma: no cover - abstract
        """React to one non-empty input line."""
        raise NotImplementedError

    def report_error(self, message: str) -> None:  # pragma: no cover - abstract
        """Tell the GUI about bad input or a failure, in the protocol's way."""
        raise NotImplementedError

    def report_progress(self, message: str) -> None:  # pragma: no cover - abstract
        """Tell the GUI what the engine is busy with (called from the loader thread)."""
        raise NotImplementedError

    def quit(self) -> None:
        """Stop any job (its output is discarded unless the subclass says otherwise) and end.
        An engine quitting while its loader is about to start the compiling worker process
        waits for that start (at most 2 s), so the worker still completes the cache for the
        next start."""
        self.stop_job(discard=True)
        if self.loader.compiling and not self.loader.ready:
            self.loader.worker_started.wait(2.0)
        self.finished = True

    # -- engine ------------------------------------------------------------------------

    def engine_ready(self) -> bool:
        """Wait for the loader while it loads a warm cache, never while it compiles (the
        interpreted kernels answer meanwhile) and never while a job runs (the switch to the
        compiled kernels waits for an interpreted search to end, so waiting here could
        deadlock an `isready` during `go infinite`).  If the compiled kernels could not be
        made, says so once; the engine goes on interpreted, so this is always True."""
        if self.job is None:
            self.loader.wait_unless_compiling()
        else:
            self.loader.start()
        if self.loader.error is not None and not self._load_error_reported:
            self._load_error_reported = True
            self.report_error(f"compiled kernels unavailable ({self.loader.error}); "
                              "going on with the interpreted kernels")
        return True

    @property
    def searcher(self):
        """The Searcher, created on first use (after the loader) with the options' settings."""
        if self._searcher is None:
            from engine import Searcher

            searcher = Searcher(hash_mb=self.options["Hash"])
            searcher.set_threads(self.options["Threads"])
            searcher.tablebase_path = tablebase_folder(self.options["TablebasePath"])
            self._searcher = searcher
        return self._searcher

    # -- what the options' callbacks (protocols.options) change -----------------------------

    def change_when_idle(self, change: Callable[[], None]) -> None:
        """Make a change that needs an idle engine (a new or cleared hash table) now, or, if
        a search or perft runs, once it has ended and given its answer: a GUI may send an
        option while the engine thinks (XBoard does, the moment the user closes its
        engine-settings dialog), and the search must neither be lost nor cut short.  CECP
        restarts a running analysis instead (it never ends by itself)."""
        if self.job is None:
            change()
        else:
            self._pending_changes.append(change)

    def _apply_pending_changes(self) -> None:
        while self._pending_changes and self.job is None:
            self._pending_changes.pop(0)()

    def resize_hash(self, hash_mb: int) -> None:
        """Hash: a transposition table of `hash_mb` MiB (cleared), if the Searcher exists
        (else it is made with the option's value); when the engine is idle."""
        if self._searcher is not None:
            searcher = self._searcher
            self.change_when_idle(lambda: searcher.set_hash(hash_mb))

    def clear_hash(self) -> None:
        """Clear Hash: forget the table, killers and history, when the engine is idle."""
        if self.engine_ready():
            self.change_when_idle(self.searcher.new_game)

    def apply_threads(self, threads: int) -> None:
        """Threads: search with `threads` threads from the next search on (Lazy SMP)."""
        if self._searcher is not None:
            self._searcher.set_threads(threads)

    def set_tablebase_path(self, path: str | None) -> None:
        """TablebasePath: the Searcher's endgame-table folder (None: the default folder);
        the GUI is told what the folder holds (`report_tablebases`)."""
        if self._searcher is not None:
            self._searcher.tablebase_path = path
        tables, summary = tablebase_census(path)
        self.report_tablebases(path, tables, summary)

    def report_tablebases(self, path: str | None, tables: int, summary: str) -> None:  # pragma: no cover
        """Tell the GUI what the table folder `path` holds (`summary`, one line)."""
        raise NotImplementedError

    def restart_analysis(self) -> None:
        """MultiPV: a running analysis shows the new number of lines (none here)."""

    def start_job(self, job: Job) -> None:
        """Run `job` in a worker thread; its completion comes back as an event."""
        self._apply_pending_changes()
        self.job = job
        job.on_finish = lambda finished: self._events.put(("done", finished))
        job.thread.start()

    def stop_job(self, discard: bool, wait: bool = True) -> None:
        """Stop the running job.  With `discard` its result is dropped; otherwise it is
        handled now (e.g. the UCI bestmove is printed) before this returns.  A search is
        stopped through the Searcher, a perft through the StopFlag in `job.data["stop"]`
        (its kernel returns within microseconds)."""
        job = self.job
        if job is None:
            return
        if discard:
            job.discarded = True
        job.stop_requested.set()
        flag = job.data.get("stop")
        if flag is not None:
            flag.set()
        if not wait:
            return
        if flag is not None:
            job.thread.join()
        while job.thread.is_alive():
            # A search that had not yet started when stop() was called clears the flag
            # when it starts, so keep asking until the thread is gone.
            self.searcher.stop()
            job.thread.join(0.02)
        self._complete(job)

    def _complete(self, job: Job) -> None:
        if job.handled:
            return
        job.handled = True
        if self.job is job:
            self.job = None
        if not job.discarded:
            self.job_finished(job)
        self._apply_pending_changes()  # options set while it ran (change_when_idle)

    def job_finished(self, job: Job) -> None:  # pragma: no cover - abstract
        """A job ended and its output is wanted."""
        raise NotImplementedError

    def interrupt(self) -> bool:
        """Ctrl-C (SIGINT): stop the running search or perft as `stop` would, its answer
        printed as usual; False when nothing runs.  Called from a signal handler, so it
        takes no lock the interrupted thread may hold: it only sets stop flags."""
        job = self.job
        if job is None or job.handled:
            return False
        flag = job.data.get("stop")
        if flag is not None:
            flag.set()
        if self._searcher is not None:
            self._searcher.stop()
        return True


class FdLineReader:
    """Lines (bytes) from a file descriptor, read with os.read: no buffered-reader lock, so
    a reader thread still blocked in it cannot hang or abort the interpreter's exit."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buffer = b""
        self._eof = False

    def readline(self) -> bytes:
        """The next line with its newline; the rest at end of input; b"" after that."""
        while b"\n" not in self._buffer and not self._eof:
            try:
                chunk = os.read(self.fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
            self._buffer += chunk
        line, newline, self._buffer = self._buffer.partition(b"\n")
        if not newline and not line:
            return b""
        return line + newline

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line


def stdin_reader() -> FdLineReader:
    """A line reader over standard input's file descriptor."""
    return FdLineReader(sys.stdin.fileno())


def run_stdio(adapter_factory: Callable[[Callable[[str], None]], Adapter],
              first_lines: Iterable[str] = (), stdin=None, stdout=None) -> int:
    """Run an adapter on real standard input and output.

    A reader thread feeds stdin's lines (bytes, so binary garbage cannot raise) into the
    adapter's queue; output lines are flushed one by one.  `first_lines` are lines the
    caller has already read (the protocol choice) and `stdin` the reader it read them with.
    """
    stdin = stdin if stdin is not None else stdin_reader()
    stdout = stdout if stdout is not None else sys.stdout
    closed = threading.Event()

    def write(line: str) -> None:
        if closed.is_set():
            return
        try:
            stdout.write(line + "\n")
            stdout.flush()
        except (BrokenPipeError, OSError, ValueError):
            closed.set()

    adapter = adapter_factory(write)
    for line in first_lines:
        adapter.put_line(line)

    def read() -> None:
        try:
            for raw in stdin:
                adapter.put_line(raw)
        except (OSError, ValueError):
            pass
        adapter.put_eof()

    threading.Thread(target=read, name="stdin-reader", daemon=True).start()
    return adapter.run()


def stop_on_sigint(adapter: Adapter) -> None:
    """A terminal's Ctrl-C stops the running search or perft (the engine then answers the
    next command at once); with nothing running it ends the engine (KeyboardInterrupt)."""
    import signal

    def handler(signum, frame) -> None:
        if not adapter.interrupt():
            raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):  # not the main thread, or no signals here
        pass


def on_terminal() -> bool:
    """True when standard input is a terminal: a person typing, whose Ctrl-C means stop."""
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def cecp_sigint(adapter: Adapter) -> None:
    """SIGINT for a CECP engine.  XBoard sends it (before `?` and other commands, unless the
    engine has said `feature sigint=0`, which it may not have read yet), so on a pipe it is
    ignored; on a terminal it is a person's Ctrl-C and works as in UCI (`stop_on_sigint`):
    a running search stops and plays its move, with nothing running the engine ends."""
    if on_terminal():
        stop_on_sigint(adapter)
    else:
        ignore_sigint()


def ignore_sigint() -> None:
    """GUIs (XBoard) may send SIGINT to an engine; Python would raise KeyboardInterrupt."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # not the main thread, or no signals here
        pass


def variant_list() -> list[str]:
    """Every rule-set name and alias the adapters accept."""
    names = list(UCI_VARIANT_NAMES)
    for rules in RULE_SETS.values():
        for name in (rules.name, *rules.aliases):
            if name not in names:
                names.append(name)
    return names

#!/usr/bin/env python3
"""Start-up time of the UCI engine, on an empty kernel cache (cold) and a filled one (warm).

    python3 benchmarks/startup.py [--runs 3] [--command antichess]

Each run starts `antichess uci` as a GUI would and sends `uci`, `isready`,
`setoption name UCI_Variant value antichess`, `position startpos`, `go movetime 100` at
once, then times each answer from the process start.  A cold run uses a fresh, empty
ANTICHESS_CACHE_DIR: its first `bestmove` comes from the interpreted kernels while a worker
compiles; the run then waits for `info string kernels compiled`, sends `go movetime 100`
again and times that compiled answer too.  The warm runs reuse the cache the cold run
filled.  Prints the median of `--runs` runs per figure (targets: cold first bestmove
<= 10 s, warm first bestmove <= 0.3 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

GUI_OPENING = ("uci\nisready\nsetoption name UCI_Variant value antichess\nposition startpos\n"
               "go movetime 100\n")


def run_once(command: list[str], cache: str, cold: bool) -> dict[str, float]:
    """Start the engine, send the GUI opening, return {event: seconds since start}."""
    env = dict(os.environ, ANTICHESS_CACHE_DIR=cache)
    started = time.perf_counter()
    process = subprocess.Popen(command + ["uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env, bufsize=1)
    process.stdin.write(GUI_OPENING)
    process.stdin.flush()
    times: dict[str, float] = {}
    watchdog = threading.Timer(600, process.kill)
    watchdog.start()
    try:
        for line in process.stdout:
            now = time.perf_counter() - started
            word = line.split()[0] if line.strip() else ""
            if word in ("uciok", "readyok") and word not in times:
                times[word] = now
            elif word == "bestmove":
                if "bestmove" not in times:
                    times["bestmove"] = now
                    if not cold:
                        break
                else:
                    times["compiled bestmove"] = now - times["compiled"]
                    break
            elif line.startswith("info string kernels compiled"):
                times["compiled"] = now
                process.stdin.write("go movetime 100\n")
                process.stdin.flush()
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(60)
    finally:
        watchdog.cancel()
    return times


def wait_for_worker(cache: str) -> None:
    """A cold run's compile worker may still be finishing the cache: wait for its marker."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if any(name.startswith("complete") for _, _, files in os.walk(cache) for name in files):
            return
        time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", default="antichess", help="the engine command (default antichess)")
    args = parser.parse_args()
    command = args.command.split()
    cold_runs, warm_runs = [], []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="antichess-startup-") as cache:
            cold_runs.append(run_once(command, cache, cold=True))
            wait_for_worker(cache)
            warm_runs.append(run_once(command, cache, cold=False))
        print(f"run {run + 1}: cold {cold_runs[-1]}", file=sys.stderr)
        print(f"run {run + 1}: warm {warm_runs[-1]}", file=sys.stderr)
    print(f"median of {args.runs} runs, seconds from process start (compiled bestmove: from the "
          f"'kernels compiled' line)")
    for label, runs, events in (("cold", cold_runs, ("uciok", "readyok", "bestmove", "compiled",
                                                     "compiled bestmove")),
                                ("warm", warm_runs, ("uciok", "readyok", "bestmove"))):
        figures = []
        for event in events:
            values = [run[event] for run in runs if event in run]
            figures.append(f"{event} {statistics.median(values):.2f}" if values else f"{event} -")
        print(f"{label:5} " + "  ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())

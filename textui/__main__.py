"""Run the TextUI: `python -m textui [-s] [-v]` or `antichess textui [-s] [-v]`.

Commands are read from standard input, one per line, and answered on standard output.
The engine's compiled kernels are loaded before the first command is read, so that no
command's answer waits for them.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO

from .session import INPUT_ERROR, TextUI

USAGE = "usage: python -m textui [-s] [-v]   (-s enables ShowBoard; -v explains a Corrupt file on stderr)"


def run(ui: TextUI, source: TextIO, sink: TextIO) -> int:
    """Feed `source`'s lines to `ui` and write its answers to `sink` until QuitGame or end of input."""
    while not ui.finished:
        line = source.readline()
        if not line:
            break
        try:
            lines = ui.execute(line)
        except Exception as error:  # a bug must not end the session or print a traceback
            print(f"textui: internal error: {type(error).__name__}: {error}", file=sys.stderr)
            lines = [INPUT_ERROR]
        if lines:
            sink.write("".join(text + "\n" for text in lines))
        sink.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse the flags, load the engine, then serve commands; returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if any(arg not in ("-s", "-v") for arg in args):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        try:
            from engine import warmup

            warmup()
        except Exception as error:
            print(f"textui: error: cannot load the engine: {error}", file=sys.stderr)
            return 1
        source = sys.stdin
        if hasattr(source, "buffer"):
            source = io.TextIOWrapper(source.buffer, encoding="utf-8", errors="surrogateescape")
        explain = (lambda text: print(f"textui: {text}", file=sys.stderr, flush=True)) if "-v" in args else None
        return run(TextUI(show_board="-s" in args, explain=explain), source, sys.stdout)
    except KeyboardInterrupt:  # Ctrl-C, also while the kernels load: no traceback
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())

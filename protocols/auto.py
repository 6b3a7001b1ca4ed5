"""`antichess` with no arguments: UCI or CECP, chosen by the first line the GUI sends.

`xboard` selects CECP (xboard protocol 2); anything else selects UCI and is then handled
as the first UCI command (so `uci` gets its `uciok`, and a stray first line gets an
`info string`).  Blank lines before the first command are skipped.
"""

from __future__ import annotations

from .host import clean_line, ignore_sigint, on_terminal, run_stdio, stdin_reader


def choose(first_line: str) -> str:
    """'xboard' or 'uci': the protocol a GUI's first line asks for."""
    return "xboard" if first_line.split()[:1] == ["xboard"] else "uci"


def main() -> int:
    """Read the first non-blank line, then run that protocol on standard input/output.

    Ctrl-C on a terminal ends the engine with exit status 130 (while it waits for the first
    line too).  On a pipe SIGINT is ignored until the first line is read: a CECP GUI may
    send it before the engine has read `xboard` (then CECP ignores it; UCI stops a search)."""
    if not on_terminal():
        ignore_sigint()
    try:
        stdin = stdin_reader()
        while True:
            raw = stdin.readline()
            if not raw:
                return 0
            first = clean_line(raw)
            if first:
                break
        if choose(first) == "xboard":
            from .xboard import stdio_adapter as cecp_adapter

            return run_stdio(cecp_adapter, [first], stdin=stdin)
        from .uci import stdio_adapter

        return run_stdio(stdio_adapter, [first], stdin=stdin)
    except KeyboardInterrupt:  # Ctrl-C on a terminal with nothing to stop
        return 130

"""The terminal progress bar of a running tournament (tqdm, on stderr).

It is shown only when stderr is a terminal: games played out of the total, the time left,
and the score and Elo so far (`report.format_bar`).  The line-based output (`Finished
game ...`, `Games N/M: ...`) is printed as before; the bar is cleared while such lines are
written to a terminal and drawn again below them.  When stderr is not a terminal nothing
here writes anything, so scripts and tests that read the lines see exactly what they did
before the bar existed.
"""

from __future__ import annotations

import sys
from typing import TextIO

from .report import Summary, format_bar

BAR_FORMAT = "{desc}: {n_fmt}/{total_fmt} games |{bar}| {elapsed}<{remaining}{postfix}"


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class NoBar:
    """What the tournament talks to when there is no bar: does nothing."""

    def lines(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def update(self, played: int, summary: Summary) -> None:
        pass

    def tick(self) -> None:
        pass

    def close(self) -> None:
        pass


class ProgressBar(NoBar):
    """A tqdm bar on `stream`, for a run of `total` games of which `done` are already stored."""

    def __init__(self, total: int, done: int, summary: Summary, stream: TextIO, out: TextIO):
        from tqdm import tqdm

        label, postfix = format_bar(summary)
        self.out = out
        self.bar = tqdm(total=total, initial=done, desc=label, postfix=postfix, file=stream,
                        unit="game", bar_format=BAR_FORMAT, dynamic_ncols=True, leave=True)

    def lines(self):
        """A context in which lines are printed to `out`: the bar steps aside if `out` is a
        terminal too (so the lines do not overwrite it) and is drawn again afterwards."""
        return self

    def __enter__(self):
        if _is_terminal(self.out):
            self.bar.clear()
        return self

    def __exit__(self, *exc) -> None:
        self.out.flush()
        self.bar.refresh()

    def update(self, played: int, summary: Summary) -> None:
        """`played` games are stored now; `summary` holds the statistics of all of them."""
        self.bar.set_postfix_str(format_bar(summary)[1], refresh=False)
        self.bar.update(played - self.bar.n)

    def tick(self) -> None:
        """Redraw (the elapsed and remaining times move on between games)."""
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def progress_bar(total: int, done: int, summary: Summary, out: TextIO, enabled: bool | None = None) -> NoBar:
    """A ProgressBar on stderr when `enabled` (default: when stderr is a terminal), else a NoBar."""
    stream = sys.stderr
    if enabled is None:
        enabled = _is_terminal(stream)
    if not enabled:
        return NoBar()
    return ProgressBar(total, done, summary, stream, out)

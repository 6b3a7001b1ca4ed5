"""`antichess hackerrank`: the HackerRank antichess bot (seed 003).

Input on stdin: a line `1` or `2` (which player we are), then eight board rows, row 0
first.  Player 1 owns the lowercase pieces (Black in the engine, moving first, rows 0-1 at
the start); `.` is an empty cell.  Output: one legal move `x1 y1 x2 y2` (row, column of
the from and to cells), within about a second of the start.

**Ply count.**  The board does not say how many of the 100 plies are gone, and the ply
limit (fewer pieces wins at ply 100) changes the best move near the end.  The bot assumes
the *fewest plies that could have produced the board*: each player has made at least as
many moves as its pawns have advanced, and at least as many as the opponent's pieces it
has captured; player 1 moved first, so player 1 has made as many moves as player 2 when it
is to move, one more when player 2 is.  This never has the game over before it is (the
bot always has a move to print) and is exact early in the game; later it may count fewer
plies than were played, which only makes the bot ignore a limit that is nearer than it
thinks.

**A fresh install.**  Compiling the engine's kernels takes 25 s or more (a minute on a
loaded 2-core machine), far past the second the problem allows.  When the kernel cache is
not complete the bot plays with the interpreted kernels (`engine.defer_compilation`: the
same rules and search, about a thousand times slower, so a shallow search, but a legal move
within the same time) and starts the worker process that compiles the cache
(`engine.compile_in_subprocess`), which outlives the bot; later runs load the cache.

Bad input (no player line, wrong row count or length, unknown letters, a position the
rules reject, a finished game) prints one `antichess hackerrank: error: ...` line on
stderr and exits with status 1.  Ctrl-C exits with status 130.
"""

from __future__ import annotations

import sys
import threading
import time

from engine import placement_field

PIECES = set("rnbqkpRNBQKP.")
PLY_LIMIT = 100
TIME_BUDGET = 0.75  # seconds from the process's start to the answer


class InputError(ValueError):
    """The input is not a HackerRank board."""


def parse_input(text: str) -> tuple[int, list[str]]:
    """(player, eight rows) from the problem's input; InputError if it is not one."""
    lines = [line.strip() for line in text.replace("\r", "").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    if not lines:
        raise InputError("empty input: expected the player (1 or 2) and eight board rows")
    if lines[0] not in ("1", "2"):
        raise InputError(f"first line must be the player, 1 or 2, got {lines[0][:20]!r}")
    rows = lines[1:]
    if len(rows) != 8:
        raise InputError(f"expected 8 board rows after the player line, got {len(rows)}")
    for index, row in enumerate(rows):
        if len(row) != 8:
            raise InputError(f"row {index} must have 8 cells, got {len(row)}: {row[:20]!r}")
        bad = sorted(set(row) - PIECES)
        if bad:
            raise InputError(f"row {index} has unknown cell {bad[0]!r} (pieces rnbqkp/RNBQKP, '.' empty)")
    return int(lines[0]), rows


def estimated_ply(player: int, rows: list[str]) -> int:
    """The fewest plies that could have led to `rows` with `player` to move (module doc)."""
    def moves_at_least(own_pawn: str, start_row: int, step: int, enemy_letters: str) -> int:
        advance = sum(max(0, (r - start_row) * step) for r, row in enumerate(rows) for c in row if c == own_pawn)
        enemy = sum(c in enemy_letters for row in rows for c in row)
        return max(advance, max(0, 16 - enemy))

    first = moves_at_least("p", 1, 1, "RNBQKP")  # player 1: lowercase, pawns move down the rows
    second = moves_at_least("P", 6, -1, "rnbqkp")
    if player == 1:  # both have moved m times
        ply = 2 * max(first, second)
        return min(ply, PLY_LIMIT - 2)
    ply = 2 * max(first - 1, second, 0) + 1  # player 1 has moved once more
    return min(ply, PLY_LIMIT - 1)


def board_fen(player: int, rows: list[str]) -> str:
    """The engine's FEN for the board: row 0 is rank 8; player 1 is Black."""
    pieces = {column + 8 * (7 - row): cell
              for row, cells in enumerate(rows) for column, cell in enumerate(cells) if cell != "."}
    ply = estimated_ply(player, rows)
    side = "b" if player == 1 else "w"
    # ply = 2 * (fullmove - 1) + (1 if Black to move) - 1, Black moving first (docs/rules.md 6.1)
    fullmove = ply // 2 + 1 if player == 1 else (ply + 1) // 2 + 1
    return f"{placement_field(pieces)} {side} - - 0 {fullmove}"


def move_text(move) -> str:
    """A Move as `x1 y1 x2 y2` (row 0 = rank 8, column 0 = file a)."""
    def cell(square: int) -> str:
        return f"{7 - square // 8} {square % 8}"

    return f"{cell(move.from_square)} {cell(move.to_square)}"


def choose_move(text: str, deadline: float | None = None) -> str:
    """The answer line for one input, found by `deadline` (a time.perf_counter() value;
    default 0.3 s from now) as far as loading the engine allows; InputError for bad input."""
    deadline = time.perf_counter() + 0.3 if deadline is None else deadline
    player, rows = parse_input(text)
    from engine import FenError, Game, Limits, Searcher

    try:
        game = Game("hackerrank", board_fen(player, rows))
    except FenError as error:
        raise InputError(f"not a possible position: {error}") from None
    legal = game.legal_moves()
    if not legal:
        outcome = game.outcome()
        reason = outcome.reason if outcome else "no legal move"
        raise InputError(f"the game is over ({reason}): player {player} has no move")
    searcher = Searcher(hash_mb=16)
    budget = max(0.02, deadline - time.perf_counter())
    result = searcher.search(game, Limits(movetime=budget, overhead=0.0))
    move = result.best_move if result.best_move in legal else legal[0]
    return move_text(move)


def prepare_engine() -> threading.Event | None:
    """Make the engine ready to answer at once: with a complete kernel cache nothing is
    needed (the kernels load from it); otherwise the kernels run interpreted in this
    process and a worker process compiles the cache for the next run.  Returns an Event set
    once that worker has started (None when no worker is needed)."""
    from engine import cache_is_complete, defer_compilation

    if cache_is_complete():
        return None
    defer_compilation()
    started = threading.Event()

    def compile_cache() -> None:
        from engine import compile_in_subprocess

        try:
            compile_in_subprocess(on_start=started.set)
        except (OSError, RuntimeError):  # the next run tries again
            started.set()

    threading.Thread(target=compile_cache, name="kernel-compiler", daemon=True).start()
    return started


def process_age() -> float:
    """Seconds since this process started (from /proc; 0.1 s, the interpreter's start, if unknown)."""
    try:
        import os

        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as uptime:
            now = float(uptime.read().split()[0])
        return max(0.0, now - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.1


def main() -> int:
    """Read the board on stdin, print the move on stdout."""
    started = time.perf_counter() - process_age()
    try:
        text = sys.stdin.buffer.read(1 << 16).decode("utf-8", errors="replace")
        parse_input(text)  # fail fast, before loading the engine
        compiling = prepare_engine()
        answer = choose_move(text, started + TIME_BUDGET)
    except InputError as error:
        print(f"antichess hackerrank: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: a clean exit, as every other command makes
        print("antichess hackerrank: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"antichess hackerrank: error: {error}", file=sys.stderr)
        return 1
    print(answer, flush=True)
    if compiling is not None:
        compiling.wait(2.0)  # the worker, once started, outlives this process and completes the cache
    return 0

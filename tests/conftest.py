"""Shared test set-up: compile (or load) every engine kernel once, before any test starts
an engine process, so no test's timing includes a cold numba compile; and
`require_program`, the one rule for tests that need a program from outside the project."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile

import pytest

# Endgame tables a user built in the default folder would change what searches find (and
# how long a search from a small position takes): tests see an empty folder unless they
# name one.  Engine processes the tests start inherit this.
if not os.environ.get("ANTICHESS_TABLEBASE_DIR"):
    os.environ["ANTICHESS_TABLEBASE_DIR"] = tempfile.mkdtemp(prefix="antichess-tests-no-tables-")
    atexit.register(shutil.rmtree, os.environ["ANTICHESS_TABLEBASE_DIR"], ignore_errors=True)

# The Ctrl-C tests play a user at a terminal.  A suite started as a background job of a
# non-interactive shell inherits SIGINT ignored, and an ignored signal stays ignored across
# exec, so every program it starts would ignore Ctrl-C: take the terminal's default back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Where the programs the tests use come from (.ci/run installs the Debian packages; Debian puts
# xboard and the engines in /usr/games, which is not on every PATH).
GAMES = ", then /usr/games on PATH"
INSTALL = {"xboard": "apt-get install xboard" + GAMES, "xvfb-run": "apt-get install xvfb",
           "Xvfb": "apt-get install xvfb", "xdotool": "apt-get install xdotool",
           "import": "apt-get install imagemagick", "sjeng": "apt-get install sjeng" + GAMES,
           "fairy-stockfish": "apt-get install fairy-stockfish" + GAMES, "antichess": "pip install -e ."}


def in_ci() -> bool:
    """True under CI (`CI=true`, set by CI services; .ci/run installs every program)."""
    return os.environ.get("CI") == "true"


def require_program(name: str, *more: str) -> str:
    """The absolute path of the program `name` on PATH, after checking `more` are there too.

    When one is missing, the calling test or fixture is skipped with a one-line reason naming
    every missing program; under `CI=true` it fails instead, so a broken install in CI cannot
    hide behind a skip.  Tests get it as the `require_program` fixture.
    """
    found = {program: shutil.which(program) for program in (name, *more)}
    missing = [program for program, path in found.items() if path is None]
    if missing:
        reason = "not on PATH: " + "; ".join(f"{program} ({INSTALL.get(program, 'install it')})"
                                             for program in missing)
        if in_ci():
            pytest.fail(f"{reason}; CI=true, so this fails instead of skipping", pytrace=False)
        pytest.skip(reason)
    return found[name]


@pytest.fixture(name="require_program", scope="session")
def require_program_fixture():
    """`require_program("sjeng")` in a test or fixture: see `require_program` above."""
    return require_program


@pytest.fixture(scope="session", autouse=True)
def warm_numba_cache():
    from engine import warmup

    warmup()

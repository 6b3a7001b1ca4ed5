"""Shared test set-up: compile (or load) every engine kernel once, before any test starts
an engine process, so no test's timing includes a cold numba compile."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def warm_numba_cache():
    from engine.warmup import warmup

    warmup()

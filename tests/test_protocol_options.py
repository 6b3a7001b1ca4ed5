"""The engine options: one table (protocols.options) drives both protocols.  Every option CECP
offers is in the `uci` answer and in the `feature option=` lines with the same default and
range; setting one through either protocol reaches the engine through its callback (the
endgame-table folder as the Searcher's `tablebase_path`, never through the environment)."""

from __future__ import annotations

import os
import re

import pytest

from protocols.options import CECP_OPTIONS, OPTIONS, Options, OptionError
from protocols.transcript import EngineDriver, run_transcript

UCI_LINE = re.compile(r"^option name (.+?) type (\w+)(?: default (.*?))?(?: min (-?\d+) max (-?\d+))?$")
CECP_OPTION = re.compile(r'option="(\S+) -(\w+)(?: (.*))?"')


def uci_options() -> dict[str, tuple[str, str | None, tuple | None]]:
    """name -> (type, default, (min, max) or None), read from the `uci` answer."""
    found = {}
    for line in run_transcript("uci", ["uci"]):
        if line.startswith("option "):
            match = UCI_LINE.match(line)
            assert match, line
            name, kind, default, low, high = match.groups()
            if kind == "combo":
                default = default.split(" var ")[0]
            found[name] = (kind, default, (int(low), int(high)) if low is not None else None)
    return found


def cecp_options() -> dict[str, tuple[str, str | None, tuple | None]]:
    """name -> (type, value, (min, max) or None), read from the `feature option=` lines."""
    found = {}
    for line in run_transcript("xboard", ["xboard", "protover 2"]):
        match = CECP_OPTION.search(line)
        if line.startswith("feature ") and match:
            name, kind, rest = match.groups()
            words = (rest or "").split()
            if kind == "spin":
                found[name] = (kind, words[0], (int(words[1]), int(words[2])))
            else:
                found[name] = (kind, rest, None)
    return found


def test_every_option_cecp_offers_is_offered_by_uci_with_the_same_default_and_range():
    uci, cecp = uci_options(), cecp_options()
    assert list(uci) == [option.name for option in OPTIONS]
    assert list(cecp) == [name.replace(" ", "") for name in CECP_OPTIONS]
    for name in CECP_OPTIONS:
        uci_kind, uci_default, uci_range = uci[name]
        cecp_kind, cecp_default, cecp_range = cecp[name.replace(" ", "")]
        assert cecp_range == uci_range, name
        assert cecp_default == uci_default, name
        assert cecp_kind == {"string": "path"}.get(uci_kind, uci_kind), name
    # The rest have CECP commands of their own: `variant`, `cores`, `hard`/`easy`.
    assert set(uci) - set(CECP_OPTIONS) == {"UCI_Variant", "Threads", "Ponder"}


def test_the_option_lines_are_the_tables():
    options = Options(host=None)
    uci = [line for line in run_transcript("uci", ["uci"]) if line.startswith("option ")]
    assert uci == options.uci_lines() == [option.uci_line() for option in OPTIONS]
    cecp = [line for line in run_transcript("xboard", ["xboard", "protover 2"]) if "option=" in line]
    assert cecp == options.cecp_features()
    for option in OPTIONS:
        assert option.description, option.name
        if option.type == "spin":
            assert option.min <= option.default <= option.max, option.name


def test_values_are_checked_by_the_table_and_words_differ_by_protocol():
    options = Options(host=None)
    hash_option = options.find_uci("hash")
    assert options.find_cecp("Hash") is hash_option and options.find_uci("HASH") is hash_option
    assert options.find_uci("move  overhead") is options.find_cecp("move_overhead") is options.option("Move Overhead")
    assert options.find_cecp("Threads") is None and options.find_uci("Threads") is options.option("Threads")
    with pytest.raises(OptionError) as error:
        options.set(hash_option, "0")
    assert error.value.uci_text() == "option Hash value 0 is out of range 1..1024"
    assert error.value.cecp_text() == "option value 0 out of range 1..1024"
    with pytest.raises(OptionError) as error:
        options.set("Ponder", "1")
    assert error.value.uci_text() == "option Ponder takes true or false, got '1'"
    options.set("Ponder", "1", cecp=True)
    assert options["Ponder"] is True and options["Hash"] == 16


def test_uci_tablebase_path_reaches_the_searcher_not_the_environment(tmp_path):
    environment = dict(os.environ)
    with EngineDriver.in_process("uci") as engine:
        engine.send(f"setoption name TablebasePath value {tmp_path}", "ucinewgame", "isready")
        engine.expect("readyok")
        searcher = engine.adapter.searcher  # made by ucinewgame, after the option was set
        assert searcher.tablebase_path == str(tmp_path)
        for value, folder in (("<empty>", None), (str(tmp_path / "b"), str(tmp_path / "b")), ("<default>", None),
                              ("", None)):
            mark = engine.mark()
            engine.send(f"setoption name tablebasepath value {value}".rstrip(), "isready")
            engine.expect("readyok", start=mark)
            assert engine.adapter.searcher is searcher and searcher.tablebase_path == folder, value
        assert not any("error" in line for line in engine.output), engine.output
    assert dict(os.environ) == environment


def test_cecp_tablebase_path_and_egtpath_reach_the_searcher_not_the_environment(tmp_path):
    environment = dict(os.environ)
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "ping 1")
        engine.expect("pong 1", timeout=30)
        searcher = engine.adapter.searcher
        engine.send(f"option TablebasePath={tmp_path}", "ping 2")
        engine.expect("pong 2")
        assert searcher.tablebase_path == str(tmp_path)
        engine.send(f"egtpath suicide {tmp_path / 'b'}", "ping 3")
        engine.expect("pong 3")
        assert searcher.tablebase_path == str(tmp_path / "b")
        engine.send("option TablebasePath=<default>", "ping 4")
        engine.expect("pong 4")
        assert searcher.tablebase_path is None
        assert not any(line.startswith("Error") for line in engine.output), engine.output
    assert dict(os.environ) == environment


def test_threads_through_either_protocol_reach_the_searcher():
    with EngineDriver.in_process("uci") as engine:
        engine.send("setoption name Threads value 1", "ucinewgame", "isready")
        engine.expect("readyok")
        assert engine.adapter.searcher.threads == 1
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "cores 64", "ping 1")
        engine.expect("pong 1", timeout=30)
        assert engine.adapter.options["Threads"] == engine.adapter.searcher.threads == os.cpu_count()

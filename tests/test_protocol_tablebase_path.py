"""The TablebasePath option tells the GUI what it found: UCI as an `info string`, CECP as a
`#` line (XBoard's debug log) and, when no table is found in a newly named folder, a
`telluser` (an XBoard message box).  Tables are counted per rule-set folder
(DIR/antichess/*.actb, DIR/suicide/*.actb); the DTZ companions (.actz) are not tables of
their own.  The option's default is offered as `<empty>`, Stockfish's spelling of an empty
string, which python-chess reads back as it is (tests/test_python_chess_client.py)."""

from __future__ import annotations

import os

from protocols.options import OPTIONS, tablebase_folder, tablebase_summary
from protocols.transcript import EngineDriver

DEFAULT = os.environ["ANTICHESS_TABLEBASE_DIR"]  # tests/conftest.py: an empty folder of its own


def make_tables(folder, antichess: int, suicide: int) -> None:
    for variant, count in (("antichess", antichess), ("suicide", suicide)):
        (folder / variant).mkdir(parents=True, exist_ok=True)
        for index in range(count):
            (folder / variant / f"T{index}vK.actb").write_bytes(b"ACTB")
            (folder / variant / f"T{index}vK.actz").write_bytes(b"ACTB")  # a DTZ companion: not counted
    (folder / "antichess" / "notes.txt").write_text("not a table")


def test_the_default_is_offered_as_empty_and_every_spelling_of_it_means_the_default_folder():
    option = next(option for option in OPTIONS if option.name == "TablebasePath")
    assert option.uci_line() == "option name TablebasePath type string default <empty>"
    for value in ("", "<empty>", "<default>", "  "):
        assert tablebase_folder(value) is None


def test_summary_counts_tables_per_rule_set_folder(tmp_path):
    make_tables(tmp_path / "both", 3, 2)
    make_tables(tmp_path / "one", 2, 0)
    (tmp_path / "none").mkdir()
    (tmp_path / "file").write_text("x")
    assert tablebase_summary(str(tmp_path / "both")) == f"tablebases: 3 antichess tables, 2 suicide tables in {tmp_path / 'both'}"
    assert tablebase_summary(str(tmp_path / "one")) == f"tablebases: 2 antichess tables in {tmp_path / 'one'}"
    none = tmp_path / "none"
    assert tablebase_summary(str(none)) == (f"tablebases: no tables in {none} "
                                            f"(no .actb files in {none / 'antichess'} or {none / 'suicide'})")
    assert tablebase_summary(str(tmp_path / "missing")) == f"tablebases: {tmp_path / 'missing'} does not exist"
    assert tablebase_summary(str(tmp_path / "file")) == f"tablebases: {tmp_path / 'file'} is not a folder"
    assert tablebase_summary(None).startswith(f"tablebases: no tables in {DEFAULT} (the default folder) (")


def test_uci_setoption_tablebase_path_says_what_it_found(tmp_path):
    make_tables(tmp_path / "tables", 4, 1)
    with EngineDriver.in_process("uci") as engine:
        engine.send("uci")
        engine.expect("uciok")
        for value, said in (
                ("/nonexistent", "info string tablebases: /nonexistent does not exist"),
                (str(tmp_path / "tables"), f"info string tablebases: 4 antichess tables, 1 suicide table in {tmp_path / 'tables'}"),
                (str(tmp_path), f"info string tablebases: no tables in {tmp_path} (no .actb files in "
                                f"{tmp_path / 'antichess'} or {tmp_path / 'suicide'})"),
                ("<empty>", f"info string tablebases: no tables in {DEFAULT} (the default folder) (no .actb files in "
                            f"{os.path.join(DEFAULT, 'antichess')} or {os.path.join(DEFAULT, 'suicide')})")):
            mark = engine.mark()
            engine.send(f"setoption name TablebasePath value {value}", "isready")
            engine.expect("readyok", timeout=30, start=mark)
            assert engine.output[mark:] == [said, "readyok"], value


def test_cecp_option_and_egtpath_say_what_they_found(tmp_path):
    make_tables(tmp_path / "tables", 2, 0)
    with EngineDriver.in_process("xboard") as engine:
        engine.send("xboard", "protover 2", "new", "ping 1")
        engine.expect("pong 1", timeout=30)

        def answer(command: str, ping: int) -> list[str]:
            mark = engine.mark()
            engine.send(command, f"ping {ping}")
            engine.expect(f"pong {ping}", start=mark)
            return engine.output[mark:-1]

        missing = "tablebases: /nonexistent does not exist"
        # A folder without tables is worth a message box; the same folder again (XBoard
        # sends egtpath at every game) only the debug-log line.
        assert answer("option TablebasePath=/nonexistent", 2) == [f"# {missing}", f"telluser {missing}"]
        assert answer("option TablebasePath=/nonexistent", 3) == [f"# {missing}"]
        assert answer(f"egtpath antichess {tmp_path / 'tables'}", 4) == [
            f"# tablebases: 2 antichess tables in {tmp_path / 'tables'}"]
        assert answer(f"egtpath suicide {tmp_path / 'tables'}", 5) == [
            f"# tablebases: 2 antichess tables in {tmp_path / 'tables'}"]
        assert answer("egtpath suicide /nonexistent", 6) == [f"# {missing}", f"telluser {missing}"]
        assert not any(line.startswith("Error") for line in engine.output), engine.output

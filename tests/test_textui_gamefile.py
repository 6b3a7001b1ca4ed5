"""The course XML game file: schema validity (checked with a real XSD validator), the staff
sample, save/load round trips, corrupt and hostile files, and atomic saves."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
import xmlschema

from test_textui_helpers import FILES, SAMPLE_GAME, SCHEMA
from engine.coursefile import gamefile, safexml
from engine.coursefile.gamefile import CorruptFile, GameOver
from textui.session import TextUI

# The project's schema (engine/coursefile/schema/antichess.xsd) is the course's with `antiking` added to
# the piece names; without that one value it gives the course schema's verdicts.
ANTIKING_SCHEMA_TEXT = SCHEMA.read_text(encoding="utf-8")
SCHEMA_TEXT = ANTIKING_SCHEMA_TEXT.replace('<xs:enumeration value="antiking" />', "")


@pytest.fixture(scope="module")
def schema():
    """The course schema: the project's schema without `antiking`, loaded by xmlschema."""
    assert SCHEMA_TEXT != ANTIKING_SCHEMA_TEXT
    return xmlschema.XMLSchema(SCHEMA_TEXT)


@pytest.fixture(scope="module")
def antiking_schema():
    """The project's schema, with `antiking` among the piece names, as shipped."""
    return xmlschema.XMLSchema(str(SCHEMA))


def play_random(ui: TextUI, plies: int, rng: random.Random, time_text: str = "100") -> None:
    """Play up to `plies` random legal moves through MakeMove (stops when the game ends)."""
    for _ in range(plies):
        if ui.over is not None:
            return
        moves = ui.execute("PrintAllMoves")
        ui.execute(f"MakeMove {rng.choice(moves)} {time_text}")


def saved_text(ui: TextUI, folder, name: str = "game.xml") -> str:
    """SaveGame into `folder` and return the file's text."""
    assert ui.execute(f"SaveGame {folder / name}") == ["Game saved"]
    return (folder / name).read_text(encoding="utf-8")


def ui_state(ui: TextUI):
    """Everything a command can observe about the game in `ui`."""
    return (ui.game.fen() if ui.game else None, [m.uci() for m in ui.game.move_stack] if ui.game else None,
            list(ui.history), dict(ui.clocks), dict(ui.initial), ui.over, ui.players, ui.pending)


# -- schema validity -------------------------------------------------------------------------

def test_staff_sample_is_valid_and_loads_as_a_finished_white_win(schema):
    assert schema.is_valid(str(SAMPLE_GAME))
    saved = gamefile.load(SAMPLE_GAME.read_bytes())
    assert saved.replayed
    assert saved.over == GameOver("white", "checkmate")
    assert saved.timing == gamefile.Timing(300000, 300000, 290000, 290000)
    assert [entry.value for entry in saved.history][-1] == "b8-c8"


@pytest.mark.parametrize("variant,clock", [("mit-antichess", "0"), ("mit-antichess", "90000"),
                                           ("chess", "5000"), ("antichess", "0"), ("hackerrank", "7000"),
                                           ("giveaway", "0"), ("suicide", "0"), ("losers", "0")])
def test_saved_files_are_valid_under_the_course_schema(schema, variant, clock, tmp_path):
    rng = random.Random(variant + clock)
    for game_number in range(3):
        ui = TextUI()
        ui.execute(f"StartNewGame human {clock} human {clock} {variant}")
        play_random(ui, rng.randrange(0, 120), rng, "1")
        text = "\n".join(ui.execute("PrintBoard")) + "\n" if ui.over is None else None
        if text is None:  # finished: the writer still produces a valid gameOver element
            text = gamefile.dump(ui.game, ui.history, ui.timing(), ui.over)
            assert "<gameOver" in text
        else:
            assert saved_text(ui, tmp_path) == text  # PrintBoard prints what SaveGame writes
        schema.validate(text)


@pytest.mark.parametrize("variant", ["antiking-antichess", "antiking1", "antiking2"])
def test_antiking_files_are_valid_with_antiking_added_to_the_piece_names(schema, antiking_schema, variant):
    ui = TextUI()
    ui.execute(f"StartNewGame human 60000 human 60000 {variant}")
    play_random(ui, 30, random.Random(variant), "10")
    text = gamefile.dump(ui.game, ui.history, ui.timing(), ui.over)
    assert 'piece="antiking"' in text
    antiking_schema.validate(text)
    assert not schema.is_valid(text)  # the course schema's piece list has no antiking


def test_every_gameover_the_writer_produces_is_valid(schema):
    ui = TextUI()
    ui.execute("StartNewGame human 0 human 0")
    for winner in ("white", "black", None):
        for description in gamefile.GAME_ENDS:
            schema.validate(gamefile.dump(ui.game, [], None, GameOver(winner, description)))


# -- the hand-written schema check agrees with the XSD validator ------------------------------

def _mutations(text: str, rng: random.Random, count: int) -> list[str]:
    """Small edits of a valid document, valid or not, for comparing validators."""
    edits = [
        ('ruleset="6170-spring-2006"', ''),
        ('ruleset="6170-spring-2006"', 'ruleset=""'),
        ('timed="true"', 'timed="yes"'), ('timed="true"', 'timed=" 1 "'), ('timed="true"', 'timed="TRUE"'),
        ('currentWhite="', 'currentWhite="+'), ('currentWhite="', 'currentWhite="-'),
        ('currentWhite="', 'currentWhite="x'), ('currentBlack="', 'currentBlack=" '),
        ('initBlack="', 'initBlack="1.'),
        ('side="white"', 'side="White"'), ('side="white"', 'side=" white"'), ('side="black"', ''),
        ('value="', 'value="x'), ('value="', 'value="a'), ('-', '_'),
        ('time="', 'time="0'), ('time="', 'time="-0'), ('time="', 'time="1e'),
        ('id="', 'id="i'), ('id="', 'id=" '), ('piece="pawn"', 'piece="Pawn"'),
        ('piece="king"', 'piece="antiking"'), ('piece="rook"', ''),
        ('<moveHistory>', '<moveHistory foo="bar">'), ('<pieces>', '<pieces xmlns:q="urn:q" q:a="1">'),
        ('<pieces>', '<pieces>text'), ('<moveHistory>', '<moveHistory><extension><x/></extension>'),
        (' />', '><extension><any/></extension></move>'), (' />', '><extension/></move>'),
        (' />', '><extension>words</extension></move>'), (' />', '><other/></move>'),
        ('</pieces>', '</pieces><gameOver description="checkmate"/>'),
        ('</pieces>', '</pieces><gameOver winner="white"/>'),
        ('</pieces>', '</pieces><gameOver description="draw"/>'),
        ('</pieces>', '</pieces><extension><a/><b>t</b></extension>'),
        ('</pieces>', '</pieces><extension><a/></extension><gameOver description="stalemate"/>'),
        ('</pieces>', '</pieces><gameOver description="stalemate"/><gameOver description="stalemate"/>'),
        ('</pieces>', '</pieces><extension><game ruleset="x"/></extension>'),
        ('</pieces>', '</pieces><surprise/>'),
        ('<pieces>', '<!-- note --><pieces>'), ('<pieces>', '<?pi data?><pieces>'),
        ('<game ', '<game xmlns="urn:other" '), ('<game ', '<game other="1" '),
        ('<time ', '<time currentWhite="5" ', ),
    ]
    out = []
    for _ in range(count):
        mutated = text
        for _ in range(rng.randint(1, 2)):
            old, new = rng.choice(edits)
            positions = [i for i in range(len(mutated)) if mutated.startswith(old, i)]
            if positions:
                i = rng.choice(positions)
                mutated = mutated[:i] + new + mutated[i + len(old):]
        out.append(mutated)
    # structural edits: drop, repeat or swap whole lines
    lines = text.split("\n")
    for _ in range(count // 3):
        edited = list(lines)
        i, j = rng.randrange(1, len(lines) - 2), rng.randrange(1, len(lines) - 2)
        choice = rng.randrange(3)
        if choice == 0:
            del edited[i]
        elif choice == 1:
            edited.insert(i, edited[j])
        else:
            edited[i], edited[j] = edited[j], edited[i]
        out.append("\n".join(edited))
    return out


def _well_formed(text: str):
    try:
        return safexml.parse(text.encode("utf-8"))
    except safexml.XmlError:
        return None


def test_schema_check_agrees_with_an_xsd_validator(schema, antiking_schema):
    rng = random.Random(6170)
    ui = TextUI()
    ui.execute("StartNewGame human 60000 human 50000")
    play_random(ui, 6, rng, "250")
    base = "\n".join(ui.execute("PrintBoard")) + "\n"
    verdicts = {True: 0, False: 0}
    for text in _mutations(base, rng, 400):
        root = _well_formed(text)
        if root is None:
            continue
        for xsd, allow in ((schema, False), (antiking_schema, True)):
            try:
                gamefile.check_schema(root, allow_antiking=allow)
                ours = True
            except CorruptFile:
                ours = False
            assert ours == xsd.is_valid(text), text
            verdicts[ours] += 1
    assert verdicts[True] > 50 and verdicts[False] > 200  # both kinds were really compared


# -- round trips -------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["mit-antichess", "antiking-antichess", "chess", "hackerrank"])
def test_save_load_save_gives_identical_files_and_the_game_plays_on_the_same(variant, tmp_path):
    rng = random.Random(variant)
    for trial in range(4):
        clock = rng.choice(["0", "600000"])
        original = TextUI()
        original.execute(f"StartNewGame human {clock} human {clock} {variant}")
        play_random(original, rng.randrange(0, 60), rng, "7")
        if original.over is not None:
            continue
        first = saved_text(original, tmp_path, "first.xml")
        loaded = TextUI()
        assert loaded.execute(f"LoadGame {tmp_path / 'first.xml'}") == ["Game loaded"]
        assert saved_text(loaded, tmp_path, "second.xml") == first
        assert loaded.game.fen() == original.game.fen()
        for _ in range(40):  # both play on identically, command by command
            if original.over is not None:
                break
            moves = original.execute("PrintAllMoves")
            assert loaded.execute("PrintAllMoves") == moves
            command = f"MakeMove {rng.choice(moves)} 3"
            assert loaded.execute(command) == original.execute(command)
            assert loaded.execute("PrintBoard") == original.execute("PrintBoard") or original.over
            assert loaded.execute("GetTime white") == original.execute("GetTime white") or original.over


def test_a_game_with_a_pass_round_trips(tmp_path):
    ui = TextUI()
    ui.execute(f"LoadGame {FILES / 'stalemate_pass.xml'}")
    assert ui.execute("MakeMove e7-e6 10") == ["e7-e6"]  # White passes again
    text = saved_text(ui, tmp_path)
    again = TextUI()
    assert again.execute(f"LoadGame {tmp_path / 'game.xml'}") == ["Game loaded"]
    assert again.game.turn == "black"
    assert again.execute("PrintAllMoves") == ["e6-e5", "h8-g7", "h8-g8", "h8-h7"]
    assert saved_text(again, tmp_path, "again.xml") == text


def test_history_that_replays_keeps_the_move_stack():
    ui = TextUI()
    ui.execute(f"LoadGame {SAMPLE_GAME}")
    assert len(ui.game.move_stack) == 19
    ui.execute(f"LoadGame {FILES / 'en_passant.xml'}")
    assert [move.uci() for move in ui.game.move_stack] == ["e2e4", "h7h6", "e4e5", "d7d5"]
    assert ui.game.fen().split()[3] == "d6"


def test_an_impossible_history_is_a_corrupt_file_and_says_why(tmp_path):
    """f7-f4 is no move a game can have: `Corrupt file` on standard output, the game in hand
    kept, the reason told to `explain` (the TextUI's -v prints it on standard error)."""
    reasons = []
    ui = TextUI(explain=reasons.append)
    assert ui.execute("StartNewGame human 60000 human 60000") == ["New game started"]
    assert ui.execute("MakeMove e2-e3 100") == ["e2-e3"]
    before = ui.game.fen()
    assert ui.execute(f"LoadGame {FILES / 'impossible_history.xml'}") == ["Corrupt file"]
    assert ui.game.fen() == before
    assert len(reasons) == 1 and "move 2 (black f7-f4) is not legal" in reasons[0]


def test_a_history_that_does_not_lead_to_the_pieces_is_corrupt(tmp_path):
    text = (FILES / "en_passant.xml").read_text().replace('<square id="h6" side="black" piece="pawn" />',
                                                          '<square id="h5" side="black" piece="pawn" />')
    path = tmp_path / "moved.xml"
    path.write_text(text)
    reasons = []
    ui = TextUI(explain=reasons.append)
    assert ui.execute(f"LoadGame {path}") == ["Corrupt file"]
    assert "the moves lead to" in reasons[0]


def test_a_game_from_a_set_up_position_saves_its_start_and_loads_back(tmp_path):
    ui = TextUI()
    ui.execute(f"LoadGame {FILES / 'stalemate_pass.xml'}")
    assert ui.execute("MakeMove e7-e6 10") == ["e7-e6"]  # after White's pass
    text = saved_text(ui, tmp_path)
    assert '<moveHistory start="' in text
    again = TextUI()
    assert again.execute(f"LoadGame {tmp_path / 'game.xml'}") == ["Game loaded"]
    assert again.game.fen() == ui.game.fen()


def test_the_textui_explains_a_corrupt_file_on_stderr_with_v(tmp_path):
    import subprocess
    import sys

    script = f"LoadGame {FILES / 'impossible_history.xml'}\nQuitGame\n"
    for flags, expect_reason in (([], False), (["-v"], True)):
        done = subprocess.run([sys.executable, "-m", "textui", *flags], input=script, capture_output=True,
                              text=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
        assert done.stdout.splitlines()[0] == "Corrupt file"
        assert ("f7-f4" in done.stderr) == expect_reason


# -- corrupt and hostile files ----------------------------------------------------------------

def _loaded_ui(tmp_path) -> TextUI:
    ui = TextUI()
    ui.execute("StartNewGame human 60000 computer 50000")
    play_random(ui, 1, random.Random(1))
    return ui


def assert_corrupt_and_unchanged(ui: TextUI, path) -> None:
    """LoadGame `path` prints Corrupt file and changes nothing in `ui`."""
    before = ui_state(ui)
    board = ui.execute("PrintBoard")
    assert ui.execute(f"LoadGame {path}") == ["Corrupt file"]
    assert ui_state(ui) == before
    assert ui.execute("PrintBoard") == board


@pytest.mark.parametrize("name", ["truncated.xml", "two_kings.xml", "wrong_value.xml", "entity_bomb.xml",
                                  "external_entity.xml", "not_xml.txt"])
def test_corrupt_fixture_files_leave_the_game_unchanged(name, tmp_path):
    assert_corrupt_and_unchanged(_loaded_ui(tmp_path), FILES / name)


def test_every_truncation_of_a_saved_game_is_corrupt(tmp_path):
    ui = _loaded_ui(tmp_path)
    data = SAMPLE_GAME.read_bytes()
    path = tmp_path / "cut.xml"
    cut = data.rstrip()
    for length in range(0, len(cut), 7):
        path.write_bytes(cut[:length])
        with pytest.raises(CorruptFile):
            gamefile.load(path.read_bytes())
    assert_corrupt_and_unchanged(ui, path)


BAD_DOCUMENTS = {
    "wrong root": '<?xml version="1.0"?><match ruleset="x"><time/><moveHistory/><pieces/></match>',
    "missing pieces": '<game ruleset="x"><time/><moveHistory/></game>',
    "missing ruleset": '<game><time/><moveHistory/><pieces/></game>',
    "piece on two squares": None,  # built below
    "pawn on the last rank": None,
    "side not to move in check": None,
    "no kings": '<game ruleset="x"><time/><moveHistory/><pieces/></game>',
    "gameOver contradicts the position": None,
    "gameOver claims checkmate that is not there": None,
    "timed without clocks": None,
    "both clocks run out": None,
    "doctype without entities": '<!DOCTYPE game><game ruleset="x"><time/><moveHistory/><pieces/></game>',
    "parameter entity": '<!DOCTYPE game [<!ENTITY % p SYSTEM "http://localhost/x.dtd"> %p;]><game ruleset="x"/>',
    "undefined entity": '<game ruleset="&nothing;"><time/><moveHistory/><pieces/></game>',
    "unknown encoding": '<?xml version="1.0" encoding="klingon"?><game ruleset="x"/>',
    "two roots": '<game ruleset="x"/><game ruleset="y"/>',
    "empty": "",
    "binary": "\x00\x01\x02\xff",
}


def _document(pieces: str, time: str = '<time timed="false" />', history: str = "<moveHistory />",
              tail: str = "") -> str:
    return f'<game ruleset="6170-spring-2006">{time}{history}<pieces>{pieces}</pieces>{tail}</game>'


def _square(square: str, side: str, piece: str) -> str:
    return f'<square id="{square}" side="{side}" piece="{piece}" />'


KINGS = _square("e8", "black", "king") + _square("e1", "white", "king")
PAWNS = _square("a7", "black", "pawn") + _square("a2", "white", "pawn")
BAD_DOCUMENTS.update({
    "piece on two squares": _document(KINGS + PAWNS + _square("a2", "white", "rook")),
    "pawn on the last rank": _document(KINGS + PAWNS + _square("c8", "white", "pawn")),
    "side not to move in check": _document(KINGS + PAWNS + _square("e4", "white", "rook"),
                                           history='<moveHistory><move side="black" value="a7-a6"/></moveHistory>'),
    "gameOver contradicts the position": _document(
        _square("h8", "black", "king") + _square("a8", "white", "rook") + _square("g6", "white", "king")
        + _square("a2", "white", "pawn"), history='<moveHistory><move side="white" value="a1-a8"/></moveHistory>',
        tail='<gameOver winner="black" description="checkmate" />'),
    "gameOver claims checkmate that is not there": _document(
        KINGS + PAWNS, tail='<gameOver winner="white" description="checkmate" />'),
    "timed without clocks": _document(KINGS + PAWNS, time='<time timed="true" initWhite="5" initBlack="5" />'),
    "both clocks run out": _document(KINGS + PAWNS, time='<time timed="true" currentWhite="0" currentBlack="-4" />'),
})


@pytest.mark.parametrize("name", sorted(BAD_DOCUMENTS))
def test_bad_documents_are_corrupt_and_leave_the_game_unchanged(name, tmp_path):
    path = tmp_path / "bad.xml"
    path.write_bytes(BAD_DOCUMENTS[name].encode("utf-8", "surrogateescape"))
    assert_corrupt_and_unchanged(_loaded_ui(tmp_path), path)


def test_an_external_entity_is_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("6170-spring-2006")
    text = (f'<?xml version="1.0"?><!DOCTYPE game [<!ENTITY s SYSTEM "{secret.as_uri()}">]>'
            + _document(KINGS + PAWNS).replace('"6170-spring-2006"', '"&s;"'))
    with pytest.raises(CorruptFile, match="entity declarations"):
        gamefile.load(text.encode())


def test_a_large_entity_bomb_is_refused_at_once():
    levels = ['<!ENTITY e0 "' + "x" * 100 + '">']
    levels += [f'<!ENTITY e{i} "' + f"&e{i - 1};" * 10 + '">' for i in range(1, 12)]
    text = f'<!DOCTYPE game [{"".join(levels)}]><game ruleset="&e11;"/>'
    with pytest.raises(CorruptFile):
        gamefile.load(text.encode())


def test_files_that_are_not_regular_files_or_too_large_are_corrupt(tmp_path):
    ui = _loaded_ui(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_corrupt_and_unchanged(ui, fifo)  # would block forever if it were opened for reading
    assert_corrupt_and_unchanged(ui, tmp_path)
    big = tmp_path / "big.xml"
    big.write_bytes(b" " * (gamefile.MAX_FILE_BYTES + 1))
    assert_corrupt_and_unchanged(ui, big)
    assert_corrupt_and_unchanged(ui, tmp_path / "missing.xml")


def test_lenient_ruleset_names_and_time_expired_games(tmp_path):
    path = tmp_path / "g.xml"
    path.write_text(_document(KINGS + PAWNS).replace("6170-spring-2006", "any course 2007"))
    ui = TextUI()
    assert ui.execute(f"LoadGame {path}") == ["Game loaded"]
    assert ui.game.variant == "mit-antichess"
    antiking = (_square("e8", "black", "king") + _square("e1", "white", "king") + _square("d6", "white", "antiking")
                + _square("d3", "black", "antiking") + _square("c7", "black", "pawn") + _square("c2", "white", "pawn")
                + _square("h7", "black", "pawn") + _square("h2", "white", "pawn"))
    path.write_text(_document(antiking).replace("6170-spring-2006", "mystery"))
    assert ui.execute(f"LoadGame {path}") == ["Game loaded"]
    assert ui.game.variant == "antiking-antichess"
    path.write_text(_document(KINGS + PAWNS, time='<time timed="true" currentWhite="100" currentBlack="200" />',
                              tail='<gameOver winner="black" description="timeExpired" />'))
    assert ui.execute(f"LoadGame {path}") == ["Game loaded", "Black Player has won"]
    assert ui.execute("GetTime white") == ["Input error"]
    path.write_text(_document(KINGS + PAWNS, time='<time timed="true" currentWhite="100" currentBlack="0" />'))
    assert ui.execute(f"LoadGame {path}") == ["Game loaded", "White Player has won"]


# -- atomic saves -------------------------------------------------------------------------------

@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_a_failed_save_leaves_the_earlier_file_whole(failing, tmp_path, monkeypatch):
    ui = _loaded_ui(tmp_path)
    path = tmp_path / "game.xml"
    old = saved_text(ui, tmp_path)
    play_random(ui, 2, random.Random(2))

    def crash(*args, **kwargs):
        raise OSError("disk on fire")

    if failing == "write":
        real_fdopen = os.fdopen

        class Broken:
            def __init__(self, handle):
                self.handle = handle

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.handle.close()

            def write(self, data):
                self.handle.write(data[: len(data) // 2])
                raise OSError("disk full")

        monkeypatch.setattr(os, "fdopen", lambda *a, **k: Broken(real_fdopen(*a, **k)))
    else:
        monkeypatch.setattr(os, failing, crash)
    assert ui.execute(f"SaveGame {path}") == ["Input error"]
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.xml"]  # no temporary file left


def test_save_keeps_the_file_mode_and_writes_through_a_new_inode(tmp_path):
    ui = _loaded_ui(tmp_path)
    path = tmp_path / "game.xml"
    saved_text(ui, tmp_path)
    os.chmod(path, 0o640)
    inode = os.stat(path).st_ino
    saved_text(ui, tmp_path)
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.stat(path).st_ino != inode  # replaced by rename, never rewritten in place


def test_the_largest_readable_file_loads_within_ten_seconds(tmp_path):
    """Knights shuffling back and forth: a legal history as long as the size bound allows."""
    cycle = [("white", "g1-f3"), ("black", "g8-f6"), ("white", "f3-g1"), ("black", "f6-g8")]
    ui = TextUI()
    ui.execute("StartNewGame human 0 human 0")
    header = len(gamefile.dump(ui.game, [], None).encode())
    per_move = len('    <move side="white" value="g1-f3" />\n')
    count = (gamefile.MAX_FILE_BYTES - header - 40) // per_move // 4 * 4
    history = [gamefile.HistoryEntry(*cycle[i % 4]) for i in range(count)]
    path = tmp_path / "long.xml"
    path.write_text(gamefile.dump(ui.game, history, None))
    assert gamefile.MAX_FILE_BYTES - 200 < path.stat().st_size <= gamefile.MAX_FILE_BYTES
    started = time.perf_counter()
    assert ui.execute(f"LoadGame {path}") == ["Game loaded"]
    assert time.perf_counter() - started < 10.0
    assert len(ui.game.move_stack) == count  # replayed in full

"""The MIT 6.170 game file: XML after `antichess.xsd`, read and written.

A file holds the clocks (`time`), the moves played (`moveHistory`, each with the mover's
remaining milliseconds after the move), the position (`pieces`) and, for a finished game,
`gameOver`.  A file with a move history is the game those moves play from the rule set's
start position: every move must be legal, and they must lead to exactly the pieces listed
(else the file is corrupt, with the reason).  A file without one is a set-up position: the
position comes from `<pieces>`, with the rule set's first mover to move.  A game that began
at a set-up position is written with its start as a FEN in a `start` attribute of
`<moveHistory>` (the schema's anyAttribute), and its moves replay from there.

Standard games are written with ruleset `6170-spring-2006`, anti-king games with
`6170-spring-2006-antiking` and piece name `antiking` (docs/textui.md: the schema's piece
list lacks `antiking`, so those files are valid against the schema with that one value
added).  Other rule sets are written under their engine name; a promotion to anything but
a queen is written as an extra `promotion` attribute, which the schema's `anyAttribute`
allows.  Any file the schema rejects, or whose position is not legal under its rule set,
raises `CorruptFile`.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass

from ..rules.notation import parse_square, placement_field
from ..rules.rulesets import RULE_SETS, RuleSet, get_rule_set

from . import safexml  # the file is parsed by defusedxml (see safexml)

MAX_FILE_BYTES = 2 * 1024 * 1024  # about 58,000 moves, which replay in a few seconds

COURSE_RULESETS = {"mit-antichess": "6170-spring-2006", "antiking-antichess": "6170-spring-2006-antiking"}
PIECE_NAMES = {"p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king",
               "a": "antiking"}
PIECE_LETTERS = {name: letter for letter, name in PIECE_NAMES.items()}
SIDES = ("white", "black")
GAME_ENDS = ("piecesLost", "checkmate", "stalemate", "timeExpired")
SQUARES = [f"{file}{rank}" for rank in "87654321" for file in "abcdefgh"]

_SQUARE = re.compile(r"[a-h][1-8]")
_MOVE = re.compile(r"[a-h][1-8]-[a-h][1-8]")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_XML_SPACE = " \t\r\n"


class CorruptFile(ValueError):
    """A game file that cannot be read, is not valid under the schema, or holds no legal game."""


@dataclass(frozen=True)
class HistoryEntry:
    """One `<move>`: the mover, the move (`e2-e4`), the mover's remaining ms after it (or
    None), and the promoted-to piece name when it is not the default queen."""

    side: str
    value: str
    time: int | None = None
    promotion: str | None = None


@dataclass(frozen=True)
class Timing:
    """The clocks of a timed game, in milliseconds."""

    init_white: int
    init_black: int
    current_white: int
    current_black: int


@dataclass(frozen=True)
class GameOver:
    """How a saved game ended: `winner` 'white', 'black' or None (draw), `description` one
    of the schema's gameEnd values."""

    winner: str | None
    description: str


@dataclass
class SavedGame:
    """A game read from a file: the engine game, the recorded history and clocks, the end."""

    game: object  # engine.Game
    history: list[HistoryEntry]
    timing: Timing | None
    over: GameOver | None
    replayed: bool  # True when `game` holds the full move history, False when built from <pieces>


# -- names -----------------------------------------------------------------------------------

def ruleset_name(variant: str) -> str:
    """The `ruleset` attribute written for an engine rule set."""
    return COURSE_RULESETS.get(variant, variant)


def variant_for(ruleset: str, has_antiking: bool) -> str:
    """The engine rule set meant by a file's `ruleset` string, read leniently: an engine
    rule-set name (exactly) means that rule set; anything else is the course's antichess,
    with anti-kings when the string mentions them or the pieces include one."""
    if ruleset in RULE_SETS:
        return ruleset
    if has_antiking or "antiking" in ruleset.lower().replace("-", "").replace("_", ""):
        return "antiking-antichess"
    return "mit-antichess"


def describe(outcome) -> str:
    """The schema's gameEnd value for an engine Outcome."""
    if outcome.reason in ("checkmate", "anti-checkmate"):
        return "checkmate"
    if outcome.reason in ("bare king", "three pieces left", "no pieces", "extinction"):
        return "piecesLost"
    return "stalemate"


# -- writing ---------------------------------------------------------------------------------

def dump(game, history: list[HistoryEntry], timing: Timing | None, over: GameOver | None = None) -> str:
    """The XML document for `game` (an engine Game) with its recorded history and clocks."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<game ruleset="{ruleset_name(game.variant)}">']
    if timing is None:
        lines.append('  <time timed="false" />')
    else:
        lines.append(f'  <time timed="true" initWhite="{timing.init_white}" initBlack="{timing.init_black}"'
                     f' currentWhite="{timing.current_white}" currentBlack="{timing.current_black}" />')
    if history:
        start = "" if game.start_fen == _standard_start(game.rules) else f' start="{game.start_fen}"'
        lines.append(f"  <moveHistory{start}>")
        for entry in history:
            text = f'    <move side="{entry.side}" value="{entry.value}"'
            if timing is not None and entry.time is not None:
                text += f' time="{entry.time}"'
            if entry.promotion is not None:
                text += f' promotion="{entry.promotion}"'
            lines.append(text + " />")
        lines.append("  </moveHistory>")
    else:
        lines.append("  <moveHistory />")
    lines.append("  <pieces>")
    for square in SQUARES:
        letter = game.piece_at(square)
        if letter is not None:
            side = "white" if letter.isupper() else "black"
            lines.append(f'    <square id="{square}" side="{side}" piece="{PIECE_NAMES[letter.lower()]}" />')
    lines.append("  </pieces>")
    if over is not None:
        winner = f'winner="{over.winner}" ' if over.winner else ""
        lines.append(f'  <gameOver {winner}description="{over.description}" />')
    lines.append("</game>")
    return "\n".join(lines) + "\n"


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` so that `path` is always either the old file or the whole new
    one: write a temporary file in the same folder, flush it to disk, then rename it."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temporary = tempfile.mkstemp(prefix=".textui-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    try:
        folder_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder_fd)
    except OSError:
        pass
    finally:
        os.close(folder_fd)


# -- reading ---------------------------------------------------------------------------------

def read_file(path: str) -> bytes:
    """The bytes of the regular file at `path`, at most MAX_FILE_BYTES; CorruptFile otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as error:
        raise CorruptFile(f"cannot open: {error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CorruptFile("not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise CorruptFile("file too large")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise CorruptFile("file too large")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise CorruptFile(f"cannot read: {error}") from None
    finally:
        os.close(fd)


def load(data: bytes) -> SavedGame:
    """The game in the XML document `data`; CorruptFile if it is not a valid, legal game file."""
    try:
        root = safexml.parse(data)
    except safexml.XmlError as error:
        raise CorruptFile(str(error)) from None
    check_schema(root)
    time_node, history_node, pieces_node = root.children[:3]
    over_node = next((n for n in root.children[3:] if n.tag == "gameOver"), None)

    placement: dict[str, str] = {}
    for node in pieces_node.children:
        square = node.attrs["id"]
        if square in placement:
            raise CorruptFile(f"two pieces on {square}")
        letter = PIECE_LETTERS[node.attrs["piece"]]
        placement[square] = letter.upper() if node.attrs["side"] == "white" else letter
    has_antiking = any(letter in "aA" for letter in placement.values())
    rules = get_rule_set(variant_for(root.attrs["ruleset"], has_antiking))

    history = []
    for node in history_node.children:
        time = node.attrs.get("time")
        history.append(HistoryEntry(node.attrs["side"], node.attrs["value"],
                                    None if time is None else _integer(time),
                                    node.attrs.get("promotion")))
    timing = _timing(time_node)

    if history:
        side = "black" if history[-1].side == "white" else "white"
    else:
        side = rules.first_mover
    board = _board_field(placement)
    if history:
        start = history_node.attrs.get("start")  # where the moves start when not at the rule set's start
        game = _replay(rules, history, board, side, start)  # CorruptFile, with the reason, if it does not replay
        replayed = True
    else:
        game = _from_pieces(rules, placement, board, side, history)  # a set-up position
        replayed = False

    over = _game_over(game, over_node, timing)
    return SavedGame(game, history, timing, over, replayed)


def _integer(text: str) -> int:
    try:
        return int(text.strip(_XML_SPACE))
    except ValueError:
        raise CorruptFile(f"not an integer: {text!r}") from None


def _timing(node: safexml.Node) -> Timing | None:
    if not _BOOLEANS[node.attrs.get("timed", "false").strip(_XML_SPACE)]:
        return None
    current = [node.attrs.get(name) for name in ("currentWhite", "currentBlack")]
    if None in current:
        raise CorruptFile("a timed game needs currentWhite and currentBlack")
    current_white, current_black = (_integer(text) for text in current)
    init_white = _integer(node.attrs["initWhite"]) if "initWhite" in node.attrs else current_white
    init_black = _integer(node.attrs["initBlack"]) if "initBlack" in node.attrs else current_black
    return Timing(init_white, init_black, current_white, current_black)


def _board_field(placement: dict[str, str]) -> str:
    return placement_field({"abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1): letter
                            for name, letter in placement.items()})


def _matching_move(game, entry: HistoryEntry):
    """The legal move of `game` that `entry` records, or None."""
    origin, target = parse_square(entry.value[:2]), parse_square(entry.value[3:5])
    candidates = [m for m in game.legal_moves()
                  if m.from_square == origin and m.to_square == target and not m.is_pass]
    if entry.promotion is not None:
        letter = PIECE_LETTERS.get(entry.promotion)
        candidates = [m for m in candidates if m.promotion == letter]
    elif len(candidates) > 1:
        candidates = [m for m in candidates if m.promotion == "q"]
    return candidates[0] if len(candidates) == 1 else None


def _standard_start(rules: RuleSet) -> str:
    """The FEN a game of `rules` starts from, as the engine writes it."""
    from ..rules.game import Game

    return Game(rules).start_fen


def _replay(rules: RuleSet, history: list[HistoryEntry], board: str, side: str, start: str | None = None):
    """The game replayed from the start position (the rule set's, or the FEN `start`)
    through `history` (passes made where a side has no move), which must end at `board` with
    `side` to move; CorruptFile naming the first move that is not legal, or the difference
    at the end, otherwise."""
    from ..rules.fen import FenError
    from ..rules.game import Game

    try:
        game = Game(rules, start)
    except FenError as error:
        raise CorruptFile(f"the moves' start position {start!r} is not legal: {error}") from None
    for number, entry in enumerate(history, 1):
        if game.turn != entry.side:
            legal = game.legal_moves()
            if len(legal) != 1 or not legal[0].is_pass:
                raise CorruptFile(f"move {number} ({entry.side} {entry.value}): it is {game.turn}'s turn")
            game.push(legal[0])
        move = _matching_move(game, entry)
        if move is None:
            raise CorruptFile(f"move {number} ({entry.side} {entry.value}) is not legal after "
                              f"{' '.join(m.uci() for m in game.move_stack) or 'the start'}")
        game.push(move)
    fields = game.fen().split()
    if fields[0] != board:
        raise CorruptFile(f"the moves lead to {fields[0]}, but the pieces listed are {board}")
    if fields[1] != side[0]:
        raise CorruptFile(f"the moves leave {game.turn} to move, not {side}")
    return game


def _from_pieces(rules: RuleSet, placement: dict[str, str], board: str, side: str,
                 history: list[HistoryEntry]):
    """The game at the position of `placement`, with castling rights and the en-passant square
    read from `history`; CorruptFile if that is no legal position under `rules`."""
    from ..rules.fen import FenError
    from ..rules.game import Game

    touched = set()
    for entry in history:
        touched.add(entry.value[:2])
        touched.add(entry.value[3:5])
    rights = _rights(rules, placement, touched)
    en_passant = "-"
    if history and rules.en_passant:
        last = history[-1].value
        origin, target = last[:2], last[3:5]
        start, double = ("2", "4") if history[-1].side == "white" else ("7", "5")
        pawn = "P" if history[-1].side == "white" else "p"
        if origin[0] == target[0] and origin[1] == start and target[1] == double and placement.get(target) == pawn:
            en_passant = origin[0] + ("3" if start == "2" else "6")
    first_black = 1 if rules.first_mover == "black" else 0
    fullmove = (len(history) + first_black) // 2 + 1
    attempts = [en_passant, "-"] if en_passant != "-" else ["-"]
    error = None
    for ep in attempts:
        fen = f"{board} {side[0]} {rights} {ep} 0 {fullmove}"
        try:
            return Game(rules, fen)
        except FenError as failure:  # an en-passant square the pieces contradict is dropped
            error = failure
    raise CorruptFile(f"not a legal position: {error}")


def _rights(rules: RuleSet, placement: dict[str, str], touched: set[str]) -> str:
    """The FEN castling field: each right whose pieces stand on their start squares and
    whose squares no recorded move started from or went to."""
    start = _start_placement(rules)
    if rules.king_leap:
        needs = {"K": ("K",), "A": ("A",), "k": ("k",), "a": ("a",)}
    elif rules.castling:
        needs = {"K": ("K", "Rh"), "Q": ("K", "Ra"), "k": ("k", "rh"), "q": ("k", "ra")}
    else:
        return "-"
    rights = ""
    for right, pieces in needs.items():
        squares = []
        for piece in pieces:
            letter, file = piece[0], piece[1:]
            squares += [sq for sq, p in start.items() if p == letter and sq.startswith(file)]
        if squares and all(placement.get(sq) == start[sq] and sq not in touched for sq in squares):
            rights += right
    return rights or "-"


def _start_placement(rules: RuleSet) -> dict[str, str]:
    placement = {}
    for row, text in enumerate(rules.start_fen.split()[0].split("/")):
        file = 0
        for char in text:
            if char.isdigit():
                file += int(char)
            else:
                placement["abcdefgh"[file] + str(8 - row)] = char
                file += 1
    return placement


def _game_over(game, node: safexml.Node | None, timing: Timing | None) -> GameOver | None:
    """How the loaded game has ended: by rule (the engine decides; a `gameOver` element must
    agree on the winner), on time (`timeExpired`, or a timed clock at 0 or below), or not."""
    claimed = None
    if node is not None:
        claimed = GameOver(node.attrs.get("winner"), node.attrs["description"])
    outcome = game.outcome()
    if outcome is not None:
        if claimed is not None and claimed.winner != outcome.winner:
            raise CorruptFile("gameOver contradicts the position")
        return GameOver(outcome.winner, describe(outcome))
    if claimed is not None:
        if claimed.description != "timeExpired" or claimed.winner is None:
            raise CorruptFile("gameOver claims an end the position does not show")
        return claimed
    if timing is not None:
        out = [side for side, left in zip(SIDES, (timing.current_white, timing.current_black)) if left <= 0]
        if len(out) == 2:
            raise CorruptFile("both clocks have run out")
        if out:
            return GameOver("black" if out[0] == "white" else "white", "timeExpired")
    return None


# -- the schema, checked by hand -------------------------------------------------------------

def check_schema(root: safexml.Node, allow_antiking: bool = True) -> None:
    """Raise CorruptFile unless `root` is valid under `antichess.xsd` (with `antiking` among
    the piece names when `allow_antiking`).

    Every `game` element in the document is checked, as a validator's lax processing of
    extension content would check it.
    """
    if root.tag != "game":
        raise CorruptFile(f"the root element is <{root.tag}>, not <game>")
    pending = [root]
    while pending:
        game = pending.pop()
        pending.extend(_check_game(game, allow_antiking))


def _fail(message: str):
    raise CorruptFile(message)


def _element_only(node: safexml.Node) -> None:
    if node.text.strip(_XML_SPACE):
        _fail(f"<{node.tag}> holds text")


def _check_attrs(node: safexml.Node, checks: dict, required: tuple[str, ...] = ()) -> None:
    """Declared attributes must pass their check; undeclared ones fall under anyAttribute."""
    for name in required:
        if name not in node.attrs:
            _fail(f"<{node.tag}> needs the attribute {name}")
    for name, check in checks.items():
        if name in node.attrs and not check(node.attrs[name]):
            _fail(f"<{node.tag}> has a bad {name}: {node.attrs[name]!r}")


def _is_integer(text: str) -> bool:
    return bool(_INTEGER.fullmatch(text.strip(_XML_SPACE)))


def _is_boolean(text: str) -> bool:
    return text.strip(_XML_SPACE) in _BOOLEANS


def _check_optional_extension(node: safexml.Node, found_games: list) -> None:
    """Content `(extension?)` for time, move, square and gameOver."""
    _element_only(node)
    if len(node.children) > 1 or any(child.tag != "extension" for child in node.children):
        _fail(f"<{node.tag}> may hold only one <extension>")
    for child in node.children:
        _check_extension(child, found_games)


def _check_extension(node: safexml.Node, found_games: list) -> None:
    """extensionType: one or more elements of any kind, no text; a nested <game> is checked."""
    _element_only(node)
    if not node.children:
        _fail("<extension> needs at least one element")
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.tag == "game":
            found_games.append(child)
        else:
            stack.extend(child.children)


def _check_game(game: safexml.Node, allow_antiking: bool) -> list[safexml.Node]:
    """Check one <game>; return the <game> elements found in its extension content."""
    found: list[safexml.Node] = []
    pieces = ("pawn", "rook", "knight", "bishop", "queen", "king") + (("antiking",) if allow_antiking else ())
    _check_attrs(game, {}, ("ruleset",))
    _element_only(game)
    tags = [child.tag for child in game.children]
    expected = ["time", "moveHistory", "pieces"]
    if tags[:3] != expected:
        _fail("<game> holds <time>, <moveHistory> and <pieces>, in that order")
    rest = tags[3:]
    if rest not in ([], ["gameOver"], ["extension"], ["gameOver", "extension"]):
        _fail("after <pieces> only <gameOver> and then <extension> may follow")
    time_node, history_node, pieces_node = game.children[:3]

    _check_attrs(time_node, {"timed": _is_boolean, "initWhite": _is_integer, "initBlack": _is_integer,
                             "currentWhite": _is_integer, "currentBlack": _is_integer})
    _check_optional_extension(time_node, found)

    _element_only(history_node)
    for move in history_node.children:
        if move.tag != "move":
            _fail("<moveHistory> holds only <move> elements")
        _check_attrs(move, {"side": lambda v: v in SIDES, "value": lambda v: bool(_MOVE.fullmatch(v)),
                            "time": _is_integer}, ("side", "value"))
        _check_optional_extension(move, found)

    _element_only(pieces_node)
    for square in pieces_node.children:
        if square.tag != "square":
            _fail("<pieces> holds only <square> elements")
        _check_attrs(square, {"id": lambda v: bool(_SQUARE.fullmatch(v)), "side": lambda v: v in SIDES,
                              "piece": lambda v: v in pieces}, ("id", "side", "piece"))
        _check_optional_extension(square, found)

    for node in game.children[3:]:
        if node.tag == "gameOver":
            _check_attrs(node, {"winner": lambda v: v in SIDES, "description": lambda v: v in GAME_ENDS},
                         ("description",))
            _check_optional_extension(node, found)
        else:
            _check_extension(node, found)
    return found

"""Opening books: EPD positions or PGN games, checked against the rule set.

EPD: one position per line (the four FEN fields, then optional operations such as
``id "..."``, ``hmvc N``, ``fmvn N``); ``#`` starts a comment line.  PGN: every game's
start position (its FEN tag, or the rule set's start) and its moves in SAN (or UCI), cut
to ``plies``.  Every opening is replayed with `engine.Game`; a position the rules reject,
or one where the game is already over, is an error naming the file and the line.

The books in ``tournaments/books`` ship with the package: ``file=NAME`` (``antichess.epd``,
or ``antichess`` without the suffix) names one of them when no file of that name exists.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass

from .referee import Opening


class OpeningsError(ValueError):
    """A book that cannot be used."""


@dataclass(frozen=True)
class OpeningsSpec:
    """cutechess `-openings file= format= order= plies= start=`."""

    file: str
    format: str = "epd"
    order: str = "sequential"
    plies: int | None = None
    start: int = 1

    def describe(self) -> dict:
        """JSON-able identity."""
        return {"file": self.file, "format": self.format, "order": self.order,
                "plies": self.plies, "start": self.start}


def _epd_fen(line: str) -> tuple[str, str]:
    fields = line.split()
    if len(fields) < 4:
        raise ValueError("an EPD line needs four fields")
    ops = " ".join(fields[4:])
    halfmove, fullmove = "0", "1"
    match = re.search(r"\bhmvc\s+(\d+)", ops)
    if match:
        halfmove = match.group(1)
    match = re.search(r"\bfmvn\s+(\d+)", ops)
    if match:
        fullmove = match.group(1)
    name = ""
    match = re.search(r'\bid\s+"([^"]*)"', ops)
    if match:
        name = match.group(1)
    return " ".join(fields[:4] + [halfmove, fullmove]), name


def _where(source: str | None, line: int) -> str:
    return f"{source}, line {line}" if source else f"line {line}"


def read_epd(text: str, variant: str, source: str | None = None) -> list[Opening]:
    """Openings from EPD text, each position checked under `variant`; `source` (the file)
    is named in errors with the line number."""
    from engine import FenError, Game

    openings = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            fen, name = _epd_fen(line)
            game = Game(variant, fen)
        except (ValueError, FenError) as error:
            raise OpeningsError(f"{_where(source, number)}: {error}") from None
        if game.outcome() is not None:
            raise OpeningsError(f"{_where(source, number)}: the game is already over")
        openings.append(Opening(fen=game.fen(), index=len(openings), name=name))
    return openings


_TOKEN = re.compile(r"\{[^}]*\}|;[^\n]*|\$\d+|\(|\)|[^\s(){};]+")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def _clean_san(text: str) -> str:
    return text.rstrip("+#!?").replace("0-0-0", "O-O-O").replace("0-0", "O-O")


def _pgn_games(text: str) -> list[tuple[int, str]]:
    """(line number of its first line, text) of each game of a PGN file."""
    starts = [0] + [m.end() for m in re.finditer(r"\n[ \t\r]*\n(?=\s*\[)", text)]
    games = []
    for begin, end in zip(starts, starts[1:] + [len(text)]):
        chunk = text[begin:end]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            games.append((text.count("\n", 0, begin + lead) + 1, chunk[lead:]))
    return games


def read_pgn(text: str, variant: str, plies: int | None = None, source: str | None = None) -> list[Opening]:
    """Openings from PGN text: each game's moves (SAN or UCI) under `variant`; `source`
    (the file) is named in errors with the line number."""
    from engine import FenError, Game

    from .pgn import san

    openings: list[Opening] = []
    for number, (first_line, chunk) in enumerate(_pgn_games(text), 1):
        tags = dict(re.findall(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]', chunk, re.M))
        # tag lines blanked, not removed, so that a token's offset still gives its line
        body = re.sub(r'^[ \t]*\[[^\n]*\][ \t\r]*$', "", chunk, flags=re.M)

        def where(offset: int = 0) -> str:
            return f"{_where(source, first_line + body.count(chr(10), 0, offset))}: game {number}"

        try:
            game = Game(variant, tags.get("FEN"))
        except (ValueError, FenError) as error:
            raise OpeningsError(f"{where()}: {error}") from None
        start_fen = game.fen() if "FEN" in tags else None
        moves: list[str] = []
        depth = 0
        for match in _TOKEN.finditer(body):
            token = match.group()
            if token == "(":
                depth += 1
                continue
            if token == ")":
                depth = max(0, depth - 1)
                continue
            if depth or token[0] in "{;$" or token in _RESULTS:
                continue
            if re.fullmatch(r"\d+\.+", token):
                continue
            token = re.sub(r"^\d+\.+", "", token)
            if not token:
                continue
            if plies is not None and len(moves) >= plies:
                break
            wanted = _clean_san(token)
            found = None
            for move in game.legal_moves():
                if _clean_san(san(game, move)) == wanted or move.uci() == wanted:
                    found = move
                    break
            if found is None and wanted in ("--", "Z0", "0000", "@@@@"):
                found = next((m for m in game.legal_moves() if m.is_pass), None)
            if found is None:
                raise OpeningsError(f"{where(match.start())}: move {token!r} is not legal under {variant}")
            game.push(found)
            moves.append(found.uci())
        if game.outcome() is not None:
            raise OpeningsError(f"{where()}: the game is already over after the opening")
        openings.append(Opening(fen=start_fen, moves=tuple(moves), index=len(openings),
                                name=tags.get("Opening", "")))
    return openings


def shipped_books() -> dict:
    """The books that ship with the package: {file name: importlib.resources Traversable}."""
    from importlib import resources

    try:
        folder = resources.files("tournaments") / "books"
        return {entry.name: entry for entry in folder.iterdir()
                if entry.name.endswith((".epd", ".pgn")) and entry.is_file()}
    except (OSError, ModuleNotFoundError):
        return {}


def _read_book(file: str) -> tuple[str, str]:
    """(text, name for messages) of a book: the file `file`, or when there is no such file
    and `file` is a bare name, the shipped book of that name (with or without `.epd`)."""
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            return handle.read(), file
    except OSError as error:
        problem = error
    books = shipped_books()
    if os.path.basename(file) == file and not os.path.exists(file):
        for name in (file, f"{file}.epd"):
            if name in books:
                return books[name].read_bytes().decode("utf-8", "replace"), f"{name} (shipped book)"
    known = f" (shipped books: {', '.join(sorted(books))})" if books else ""
    raise OpeningsError(f"cannot read {file}: {problem.strerror or problem}{known}") from None


def load(spec: OpeningsSpec, variant: str) -> list[Opening]:
    """Read and check the book of `spec` (a file, or a shipped book by its name); an empty
    book is an error, and so is a bad line, named with the file and the line number."""
    text, source = _read_book(spec.file)
    if spec.format == "epd":
        openings = read_epd(text, variant, source)
    elif spec.format == "pgn":
        openings = read_pgn(text, variant, spec.plies, source)
    else:
        raise OpeningsError(f"format must be epd or pgn, got {spec.format!r}")
    if not openings:
        raise OpeningsError(f"{spec.file}: no openings")
    return openings


def sequence(openings: list[Opening], count: int, order: str, start: int, seed: int) -> list[Opening]:
    """The openings of `count` pairs: in book order from `start` (1-based), or shuffled with
    `seed` (every opening once before any repeats)."""
    if not openings:
        return [Opening()] * count
    if order not in ("sequential", "random"):
        raise OpeningsError(f"order must be sequential or random, got {order!r}")
    n = len(openings)
    if order == "sequential":
        return [openings[(start - 1 + k) % n] for k in range(count)]
    rng = random.Random(seed)
    chosen: list[Opening] = []
    while len(chosen) < count:
        block = list(openings)
        rng.shuffle(block)
        chosen.extend(block)
    return chosen[:count]

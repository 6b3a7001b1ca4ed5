"""The engine's options: one table, printed and parsed by both protocols.

Each `EngineOption` says its name, type, default, range or choices, what it changes, and
the callback (`on_change(host, value)`) that tells the engine or the adapter (the host)
about a new value.  Everything else reads the value when it needs it, from the adapter's
`Options` (`adapter.options["Skill Level"]`).

- UCI prints every option as `option name NAME type TYPE ...` in answer to `uci`
  (`uci_line`, with the default) and sets one with `setoption name NAME value VALUE`
  (names without case).
- CECP offers the options in `CECP_OPTIONS` as `feature option="NAME -TYPE ..."`
  (`cecp_feature`, with the current value; the name without spaces, since python-chess
  splits a CECP option feature on spaces) and sets one with `option NAME=VALUE` (names
  without case, spaces and underscores).  The other three have CECP commands of their own:
  `variant` for UCI_Variant, `cores` for Threads, `hard`/`easy` for Ponder.

A bad value raises `OptionError`, which each protocol words in its own way; nothing
changes then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

# The names every protocol accepts, in the order they are offered (UCI_Variant's vars).
UCI_VARIANT_NAMES = ("chess", "standard", "normal", "antichess", "giveaway", "suicide", "losers",
                     "mit-antichess", "antiking-antichess", "antiking1", "antiking2", "hackerrank")

HASH_MIN, HASH_MAX, HASH_DEFAULT = 1, 1024, 16
OVERHEAD_MIN, OVERHEAD_MAX, OVERHEAD_DEFAULT = 0, 5000, 30  # milliseconds
SKILL_MIN, SKILL_MAX = 0, 20
MULTIPV_MIN, MULTIPV_MAX = 1, 64
THREADS_MIN, THREADS_MAX = 1, max(1, os.cpu_count() or 1)

EMPTY = "<empty>"  # TablebasePath's default as offered: Stockfish's spelling of an empty string
DEFAULT_SPELLINGS = ("", EMPTY, "<default>")  # the values that mean the default table folder


class OptionError(ValueError):
    """A value an option cannot take.  `kind`: 'integer' (not a number), 'range' (a number
    outside min..max), 'boolean' (not true or false), 'choice' (not one of the choices)."""

    def __init__(self, option: "EngineOption", kind: str, value: str | None, number: int | None = None):
        super().__init__(f"{option.name}: {kind} {value!r}")
        self.option = option
        self.kind = kind
        self.value = value
        self.number = number

    def uci_text(self) -> str:
        """The error as the UCI adapter reports it (after `info string error: `)."""
        option = self.option
        if self.kind == "range":
            return f"option {option.name} value {self.number} is out of range {option.min}..{option.max}"
        if self.kind == "integer":
            return f"option {option.name} needs an integer value, got {self.value!r}"
        if self.kind == "boolean":
            return f"option {option.name} takes true or false, got {self.value!r}"
        return f"{option.name} {self.value!r} is not one of: {', '.join(option.choices)}"

    def cecp_text(self) -> str:
        """The error as the CECP adapter reports it (the reason in `Error (reason): ...`)."""
        option = self.option
        shown = (self.value or "").strip()[:40]
        if self.kind == "range":
            return f"option value {self.number} out of range {option.min}..{option.max}"
        if self.kind == "integer":
            return f"option value {shown!r} is not an integer"
        if self.kind == "boolean":
            return f"option value {shown!r} is not 0 or 1"
        return f"option value {shown!r} is not one of {', '.join(option.choices)}"


@dataclass(frozen=True)
class EngineOption:
    """One engine option.  `type` is UCI's: spin, check, combo, button or string."""

    name: str
    type: str
    default: int | bool | str | None
    description: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    on_change: Callable[[object, object], None] | None = None  # (host, new value)
    cecp_type: str | None = None  # CECP's type where it differs from UCI's (`path`)
    cecp_also: str = ""  # other features announced on the same CECP line

    @property
    def cecp_name(self) -> str:
        """The name CECP knows it by: without spaces."""
        return self.name.replace(" ", "")

    def parse(self, text: str | None, cecp: bool = False):
        """The value `text` gives this option; OptionError if it gives none.  A check is
        `true` or `false` (UCI), `1` or `0` too over CECP."""
        if self.type == "spin":
            try:
                number = int(text) if text is not None else None
            except ValueError:
                number = None
            if number is None:
                raise OptionError(self, "integer", text)
            if not self.min <= number <= self.max:
                raise OptionError(self, "range", text, number)
            return number
        if self.type == "check":
            word = (text or "").strip().lower()
            if word not in (("true", "false", "1", "0") if cecp else ("true", "false")):
                raise OptionError(self, "boolean", text)
            return word in ("true", "1")
        if self.type == "combo":
            word = (text or "").strip().lower()
            if word not in self.choices:
                raise OptionError(self, "choice", text)
            return word
        if self.type == "string":
            return (text or "").strip()
        return None  # a button has no value

    def uci_line(self) -> str:
        """The `option` line sent in answer to `uci` (with the default)."""
        line = f"option name {self.name} type {self.type}"
        if self.type == "spin":
            line += f" default {self.default} min {self.min} max {self.max}"
        elif self.type == "check":
            line += f" default {'true' if self.default else 'false'}"
        elif self.type == "combo":
            line += f" default {self.default} " + " ".join(f"var {choice}" for choice in self.choices)
        elif self.type == "string":
            line += f" default {self.default}"
        return line

    def cecp_feature(self, value) -> str:
        """The `feature option="..."` line offering this option over CECP with `value`."""
        kind = self.cecp_type or self.type
        text = f"{self.cecp_name} -{kind}"
        if self.type == "spin":
            text += f" {value} {self.min} {self.max}"
        elif self.type == "check":
            text += f" {1 if value else 0}"
        elif self.type == "combo":
            text += " " + " /// ".join(f"*{choice}" if choice == value else choice for choice in self.choices)
        elif self.type == "string":
            text += f" {value}"
        also = f"{self.cecp_also} " if self.cecp_also else ""
        return f'feature {also}option="{text}"'


def tablebase_folder(value: str) -> str | None:
    """The Searcher's `tablebase_path` for a TablebasePath value: None (the default folder)
    for an empty value, `<empty>` (how GUIs send an empty string) or `<default>` (what the
    engine offered before), else the folder named."""
    value = (value or "").strip()
    return None if value in DEFAULT_SPELLINGS else value


def tablebase_summary(folder: str | None) -> str:
    """What the endgame-table folder `folder` (None: the default folder) holds, in one line
    for the GUI: `tablebases: 714 antichess tables in DIR`, `tablebases: DIR does not
    exist`, `... is not a folder`, or `tablebases: no tables in DIR (...)`."""
    return tablebase_census(folder)[1]


def tablebase_census(folder: str | None) -> tuple[int, str]:
    """(number of tables, `tablebase_summary` line) of `folder`.  Table files are
    DIR/<rule set>/*.actb, one folder per rule set that has tables (giveaway reads
    antichess's); the DTZ companions (.actz) are not counted."""
    import os

    from engine import tablebase

    directory = str(tablebase.default_directory()) if folder is None else folder
    shown = f"{directory} (the default folder)" if folder is None else directory
    if not os.path.exists(directory):
        return 0, f"tablebases: {shown} does not exist"
    if not os.path.isdir(directory):
        return 0, f"tablebases: {shown} is not a folder"
    counts, total = [], 0
    subfolders = sorted(set(tablebase.TABLE_VARIANTS.values()))
    for variant in subfolders:
        try:
            names = os.listdir(os.path.join(directory, variant))
        except OSError:
            names = []
        count = sum(name.endswith(".actb") for name in names)
        total += count
        if count:
            counts.append(f"{count} {variant} table{'s' if count != 1 else ''}")
    if not counts:
        where = " or ".join(os.path.join(directory, variant) for variant in subfolders)
        return 0, f"tablebases: no tables in {shown} (no .actb files in {where})"
    return total, f"tablebases: {', '.join(counts)} in {shown}"


OPTIONS: tuple[EngineOption, ...] = (
    EngineOption("UCI_Variant", "combo", "chess", "the rule set (the search and evaluation follow it)",
                 choices=UCI_VARIANT_NAMES, on_change=lambda host, value: host.set_variant(value)),
    EngineOption("Hash", "spin", HASH_DEFAULT, "transposition-table size in MiB (resized and cleared)",
                 min=HASH_MIN, max=HASH_MAX, on_change=lambda host, value: host.resize_hash(value)),
    EngineOption("Threads", "spin", 1, "Lazy SMP search threads", min=THREADS_MIN, max=THREADS_MAX,
                 on_change=lambda host, value: host.apply_threads(value)),
    EngineOption("Clear Hash", "button", None, "clears the table, killers and history",
                 on_change=lambda host, value: host.clear_hash()),
    EngineOption("Ponder", "check", False, "accepted for GUIs; `go ponder` is served either way"),
    EngineOption("Move Overhead", "spin", OVERHEAD_DEFAULT, "ms kept back from every time budget for communication",
                 min=OVERHEAD_MIN, max=OVERHEAD_MAX),
    EngineOption("Skill Level", "spin", SKILL_MAX, "below the maximum, weaker play (protocols.play)",
                 min=SKILL_MIN, max=SKILL_MAX),
    EngineOption("MultiPV", "spin", 1, "root moves reported with exact scores and PVs",
                 min=MULTIPV_MIN, max=MULTIPV_MAX, on_change=lambda host, value: host.restart_analysis()),
    EngineOption("TablebasePath", "string", EMPTY,
                 "the endgame-table folder (`<empty>`, `<default>` or an empty value: the default folder); "
                 "setting it reports the tables found (host.set_tablebase_path)",
                 on_change=lambda host, value: host.set_tablebase_path(tablebase_folder(value)),
                 cecp_type="path", cecp_also='egt="antichess,suicide"'),
)

# The options CECP offers, in the order it has always announced them.
CECP_OPTIONS = ("Hash", "Move Overhead", "Skill Level", "Clear Hash", "MultiPV", "TablebasePath")


def _uci_key(name: str) -> str:
    return " ".join(name.lower().split())


def _cecp_key(name: str) -> str:
    return name.lower().replace(" ", "").replace("_", "")


class Options:
    """One adapter's option values (the table's defaults until set) and the way both
    protocols name, print and set them.  `host` is the adapter the callbacks are told."""

    def __init__(self, host, table: tuple[EngineOption, ...] = OPTIONS, cecp: tuple[str, ...] = CECP_OPTIONS):
        self.host = host
        self.table = table
        self._values = {option.name: option.default for option in table}
        self._by_name = {option.name: option for option in table}
        self._uci = {_uci_key(option.name): option for option in table}
        self.cecp_options = tuple(self._by_name[name] for name in cecp)
        self._cecp = {_cecp_key(option.name): option for option in self.cecp_options}

    def __getitem__(self, name: str):
        """The current value of the option called `name` (exactly as in the table)."""
        return self._values[name]

    def option(self, name: str) -> EngineOption:
        """The table's entry called `name` (exactly)."""
        return self._by_name[name]

    def find_uci(self, name: str) -> EngineOption | None:
        """The option a `setoption name NAME` means (case and runs of spaces ignored)."""
        return self._uci.get(_uci_key(name))

    def find_cecp(self, name: str) -> EngineOption | None:
        """The CECP-offered option an `option NAME=...` means (case, spaces and underscores
        ignored, so `Move Overhead` and `move_overhead` are `MoveOverhead`)."""
        return self._cecp.get(_cecp_key(name))

    def set(self, option: EngineOption | str, text: str | None, cecp: bool = False) -> None:
        """Give `option` (an entry or its name) the value `text` says (as a `cecp` GUI
        writes it, or a UCI one) and tell the host; OptionError, and no change, if it is
        not a value the option takes."""
        if isinstance(option, str):
            option = self._by_name[option]
        value = option.parse(text, cecp)
        if option.type != "button":
            self._values[option.name] = value
        if option.on_change is not None:
            option.on_change(self.host, value)

    def uci_lines(self) -> list[str]:
        """The `option` lines sent in answer to `uci`."""
        return [option.uci_line() for option in self.table]

    def cecp_features(self) -> list[str]:
        """The `feature option=...` lines sent in answer to `protover 2`."""
        return [option.cecp_feature(self._values[option.name]) for option in self.cecp_options]

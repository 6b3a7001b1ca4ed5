"""Endgame tables of the losing variants (antichess, suicide; giveaway uses antichess's),
built by retrograde analysis on the rules core's own kernels and probed by the search.

This module is the package's facade: other code uses the names in `__all__` from here
(`from engine import tablebase; tablebase.open_tablebase(...)`), except the search
kernels, which probe through `engine.tablebase.indexing` alone (INVALID, table_code,
GEO) so that the hot path imports nothing of the builder.  The names are looked up in
their modules on each access (as `engine`'s facade does), so importing this package
loads nothing, and a setting changed in its module (e.g. `residency.SEARCH_MEMORY`) shows
here too.

Layers, lowest first; each module imports only from the layers above it in this list, and
the probing side (residency, probing) imports nothing of the building side (generate,
dtz, builder):

  indexing    materials, the board geometry, position <-> (table, index) kernels
  valuation   codes; valuing a position by its successors' codes (kernels shared by
              the builder, the whole-table check and the probe)
  fileformat  table files: paths, header, int8/int16 encoding with lzma, atomic
              writes, reading
  report      statistics of a table's codes, the Markdown report of a folder
  generate    the retrograde builder kernels (scan, predecessors, solve) and their driver
  dtz         the DTZ companion: distance to zeroing under the fifty-move rule
  builder     build one table, every table of a folder (layers, threads), verify one
  residency   tables in memory: the buffer under a memory bound, the background loader
  probing     Tablebase, ProbeResult, TablebaseError, open_tablebase
"""

from __future__ import annotations

import importlib

_MODULES = {
    "indexing": ("GEO", "INVALID", "MAX_PIECES", "Material", "closure", "decode_position", "dependencies",
                 "locate_many", "materials", "own_material", "valid_mask"),
    "fileformat": ("CURSED", "FIFTY_MOVE_PLIES", "FORMAT_VERSION", "MAGIC", "READABLE_FORMATS", "TABLE_VARIANTS",
                   "default_directory", "encode_table", "read_header", "read_table", "table_path", "table_variant",
                   "valid_table", "write_table"),
    "report": ("dtz_stats", "stats_markdown", "table_stats"),
    "generate": ("Workspace",),
    "dtz": ("DTZ_FROM_PLIES", "needs_dtz"),
    "builder": ("build", "build_table", "verify_table"),
    "residency": ("NOT_READ", "SEARCH_FROM_PIECES", "SEARCH_MEMORY", "SEARCH_TABLES", "SECONDS_PER_ENTRY",
                  "TableStore"),
    "probing": ("ProbeResult", "Tablebase", "TablebaseError", "open_tablebase", "value_name", "zeroing_move"),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_HOME)


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))

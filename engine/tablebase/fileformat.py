"""Table files: where they live, what they hold, and reading and writing them.

`<dir>/<variant>/<material>.actb` holds a DTM table (engine.tablebase.valuation: plies to
the end of the game), `<material>.actz` its DTZ companion (engine.tablebase.dtz: plies to
the next capture or pawn move under the fifty-move rule; a win the rule draws, or a loss it
saves, is stored as CURSED + that distance, signed).  A file is the magic `ACTB`, a 4-byte
header length, a JSON header (format version, rule set, material, metric, piece slots,
size, build seconds, statistics), then the table's codes compressed with lzma (xz).
Format 2 (written now) stores int8 codes when every code fits (else int16 little-endian),
with each INVALID entry replaced by the entry before it (the reader marks them again from
the index layout, `valid_mask`); format 1 (int16 codes as they are) is still read.  Each
file is written to a temporary name and moved into place, so a killed build keeps every
finished table and a new build starts at the first table missing.
"""

from __future__ import annotations

import json
import lzma
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from ..jit.cache import cache_root
from ..jit.modes import allocating_kernel
from ..rules.rulesets import get_rule_set
from ..rules.status import FIFTY_MOVE_PLIES  # noqa: F401  (the rules core's, re-exported by the tablebase facade)
from .indexing import INVALID, Material, valid_mask

FORMAT_VERSION = 2  # 1: int16 codes, lzma preset 6; 2: int8/int16 codes, invalid entries filled (see encode_table)
READABLE_FORMATS = (1, 2)
LZMA_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
MAGIC = b"ACTB"
CURSED = 1000  # DTZ companions: |code| >= CURSED marks a win the fifty-move rule draws (a loss it saves)
TABLE_VARIANTS = {"antichess": "antichess", "giveaway": "antichess", "suicide": "suicide"}


def default_directory() -> Path:
    """Where `antichess tablebase build` writes and the engine looks by default:
    $ANTICHESS_TABLEBASE_DIR, else a `tablebases` folder beside the numba cache."""
    explicit = os.environ.get("ANTICHESS_TABLEBASE_DIR")
    if explicit:
        return Path(explicit)
    if os.environ.get("ANTICHESS_CACHE_DIR"):
        return cache_root() / "tablebases"
    return cache_root().parent / "tablebases"


def table_variant(variant: str) -> str:
    """The rule set whose tables serve `variant`; ValueError for rule sets without tables."""
    name = get_rule_set(variant).name
    if name not in TABLE_VARIANTS:
        raise ValueError(f"no endgame tables for {name} (only {', '.join(TABLE_VARIANTS)})")
    return TABLE_VARIANTS[name]


def table_path(directory, variant: str, material: Material, metric: str = "dtm") -> Path:
    """The file of `material`'s table: `.actb` for the DTM table, `.actz` for its DTZ companion."""
    suffix = {"dtm": "actb", "dtz": "actz"}[metric]
    return Path(directory) / table_variant(variant) / f"{material.name}.{suffix}"


@allocating_kernel
def _fill_invalid(codes, out):
    """out[i] = codes[i], an INVALID entry replaced by the last valid one before it (0 at
    the start); returns the largest magnitude of a valid code."""
    last = np.int16(0)
    largest = np.int64(0)
    for i in range(codes.shape[0]):
        code = codes[i]
        if code != INVALID:
            last = code
            if abs(np.int64(code)) > largest:
                largest = abs(np.int64(code))
        out[i] = last
    return largest


def encode_table(header: dict, codes: np.ndarray) -> bytes:
    """The compressed payload of a table (format 2): the codes as int8 when every valid
    code fits (else int16 little-endian), each INVALID entry replaced by the value before
    it (the reader restores them from `valid_mask`), compressed with lzma (xz container).
    Records the encoding and the compression seconds in `header`."""
    started = time.perf_counter()
    filled = np.empty(codes.shape[0], dtype=np.int16)
    small = int(_fill_invalid(codes, filled)) <= 127
    data = filled.astype(np.int8 if small else "<i2").tobytes()
    payload = lzma.compress(data, format=lzma.FORMAT_XZ, filters=LZMA_FILTERS)
    header["encoding"] = "int8" if small else "int16"
    header["compress_seconds"] = round(time.perf_counter() - started, 3)
    return payload


def write_table(path: Path, header: dict, payload: bytes) -> int:
    """Write a table file atomically (temporary file, fsync, then os.replace); returns its size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(header, sort_keys=True).encode()
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC + len(head).to_bytes(4, "little") + head + payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)  # mkstemp makes it private
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return path.stat().st_size


def read_header(path: Path) -> dict:
    """The JSON header of a table file; ValueError if it is not one."""
    with open(path, "rb") as handle:
        start = handle.read(8)
        if len(start) != 8 or start[:4] != MAGIC:
            raise ValueError(f"{path}: not an endgame table")
        length = int.from_bytes(start[4:], "little")
        return json.loads(handle.read(length))


def read_table(path: Path) -> tuple[dict, np.ndarray]:
    """(header, int16 codes) of a table file of format 1 or 2; ValueError for anything else."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path}: not an endgame table")
    length = int.from_bytes(data[4:8], "little")
    header = json.loads(data[8:8 + length])
    version = header.get("format")
    if version not in READABLE_FORMATS:
        raise ValueError(f"{path}: format {version}, this engine reads formats "
                         f"{', '.join(map(str, READABLE_FORMATS))}")
    raw = lzma.decompress(data[8 + length:])
    if version == 1:
        codes = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    else:
        encoding = header.get("encoding")
        if encoding not in ("int8", "int16"):
            raise ValueError(f"{path}: unknown encoding {encoding!r}")
        codes = np.frombuffer(raw, dtype=np.int8 if encoding == "int8" else "<i2").astype(np.int16)
    if codes.shape[0] != header["size"]:
        raise ValueError(f"{path}: {codes.shape[0]} entries, header says {header['size']}")
    if version != 1:
        codes[~valid_mask(Material(tuple(header["codes"])))] = INVALID
    return header, codes


def valid_table(path: Path, variant: str, material: Material, metric: str = "dtm") -> bool:
    """Whether `path` is a readable table file of `variant`, `material` and `metric` (by its
    header): a build counts such a file as built."""
    try:
        header = read_header(path)
    except (OSError, ValueError):
        return False
    return (header.get("format") in READABLE_FORMATS and header.get("variant") == variant
            and header.get("material") == material.name and header.get("metric", "dtm") == metric)

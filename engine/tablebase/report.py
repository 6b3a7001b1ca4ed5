"""Statistics of the tables: the counts each file's header records (`table_stats`,
`dtz_stats`), and the Markdown report of a folder of tables made from those headers
(`stats_markdown`, `antichess tablebase stats`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .fileformat import CURSED, default_directory, read_header, table_path, table_variant
from .indexing import INVALID, MAX_PIECES, materials


def table_stats(codes: np.ndarray, slot_size: int) -> dict:
    """Won/drawn/lost counts per side to move and the longest win (plies)."""
    out = {}
    for side, name in ((0, "white"), (1, "black")):
        part = codes[side * slot_size:(side + 1) * slot_size]
        valid = part[part != INVALID]
        wins = valid[valid > 0]
        out[name] = {
            "win": int(wins.size), "draw": int(np.count_nonzero(valid == 0)),
            "loss": int(np.count_nonzero(valid < 0)),
            "longest_win": int(wins.max() - 1) if wins.size else None,
        }
    return out


def dtz_stats(codes: np.ndarray, slot_size: int) -> dict:
    """`table_stats` of a DTZ companion, wins the fifty-move rule draws counted apart
    ("cursed_win", "blessed_loss"); longest_win: the longest allowed distance to zeroing."""
    wide = codes.astype(np.int32)
    ruled = np.where(np.abs(wide) >= CURSED, 0, wide).astype(np.int16)
    ruled[codes == INVALID] = INVALID
    out = table_stats(ruled, slot_size)
    for side, name in ((0, "white"), (1, "black")):
        part = wide[side * slot_size:(side + 1) * slot_size]
        out[name]["cursed_win"] = int(np.count_nonzero(part >= CURSED))
        out[name]["blessed_loss"] = int(np.count_nonzero((part <= -CURSED) & (part != INVALID)))
        out[name]["draw"] -= out[name]["cursed_win"] + out[name]["blessed_loss"]
    return out


def stats_markdown(variant: str, directory=None) -> str:
    """A Markdown table of every table in `directory`: won/drawn/lost per side to move,
    longest win, build seconds and file size (from the file headers)."""
    variant = table_variant(variant)
    directory = Path(directory) if directory is not None else default_directory()
    rows = []
    for material in materials(MAX_PIECES):
        path = table_path(directory, variant, material)
        if not path.exists():
            continue
        header = read_header(path)
        w, b = header["stats"]["white"], header["stats"]["black"]
        longest = max((x["longest_win"] or 0) for x in (w, b))
        header["file_bytes"] = path.stat().st_size
        rows.append((header, f"| {material.name} | {w['win']} / {w['draw']} / {w['loss']} | "
                             f"{b['win']} / {b['draw']} / {b['loss']} | {longest} | "
                             f"{header['build_seconds']:.2f} | {path.stat().st_size} |"))
    lines = [f"{variant}: {len(rows)} tables",
             "",
             "| material | white to move: won / drawn / lost | black to move: won / drawn / lost "
             "| longest win (plies) | build s | bytes |",
             "|---|---|---|---|---|---|"]
    lines += [row for _, row in rows]
    by_count: dict[int, list] = {}
    for header, _ in rows:
        by_count.setdefault(header["pieces"], []).append(header)
    lines.append("")
    for pieces, headers in sorted(by_count.items()):
        seconds = sum(h["build_seconds"] for h in headers)
        size = sum(h["file_bytes"] for h in headers)
        positions = sum(h["size"] for h in headers)
        scan = sum(h["scan_seconds"] for h in headers)
        lines.append(f"- {pieces} pieces: {len(headers)} tables, {positions} indexes, built in {seconds:.1f} s "
                     f"(generator {int(positions / scan) if scan else 0} positions/s), {size} bytes on disk")
    companions = []
    for material in materials(MAX_PIECES):
        path = table_path(directory, variant, material, "dtz")
        if path.exists():
            header = read_header(path)
            companions.append((material, header, path.stat().st_size))
    if companions:
        lines += ["", f"DTZ companions (fifty-move rule): {len(companions)}, "
                      f"built in {sum(h['build_seconds'] for _, h, _ in companions):.1f} s, "
                      f"{sum(b for _, _, b in companions)} bytes on disk", "",
                  "| material | white to move: won / drawn / lost | white: wins drawn by the rule / losses saved "
                  "| black to move: won / drawn / lost | black: wins drawn by the rule / losses saved "
                  "| longest allowed distance to zeroing (plies) | passes | bytes |",
                  "|---|---|---|---|---|---|---|---|"]
        for material, header, size in companions:
            w, b = header["stats"]["white"], header["stats"]["black"]
            longest = max((x["longest_win"] or 0) for x in (w, b))
            lines.append(f"| {material.name} | {w['win']} / {w['draw']} / {w['loss']} | {w['cursed_win']} / "
                         f"{w['blessed_loss']} | {b['win']} / {b['draw']} / {b['loss']} | {b['cursed_win']} / "
                         f"{b['blessed_loss']} | {longest} | {header['passes']} | {size} |")
    return "\n".join(lines)

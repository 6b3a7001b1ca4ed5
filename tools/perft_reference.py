#!/usr/bin/env python3
"""Independent reference perft counts for the chess-variant engine.

This script recomputes, from third-party move generators ("oracles"), every
count stored in the data files tests/data/perft_<ruleset>.txt, and can
regenerate those files.  It is a developer tool: the engine's own tests only
read the data files and never need the oracles installed.

Oracles (a perft line in a data file names the ones that agreed on it):

  python-chess     the `chess` package (chess.Board and chess.variant.*Board).
                   For `losers` and `mit-antichess`, which python-chess lacks,
                   a thin wrapper in this file filters chess.Board's legal
                   moves (captures compulsory when a legal capture exists, a
                   side reduced to a bare king ends the game, MIT: promotion
                   to queen only).
  fairy-stockfish  /usr/games/fairy-stockfish (Debian package, 11.1) driven over
                   UCI: `setoption name UCI_Variant value V`,
                   `position fen F`, `go perft N`, answer `Nodes searched: X`.
  pyffish          the `pyffish` PyPI package (0.0.90, a much newer
                   Fairy-Stockfish); perft is done here by recursion over
                   pyffish.legal_moves(variant, root_fen, move_path).  It costs
                   about 1.4 ms per call, so it is only run on small trees.
                   fairy-stockfish and pyffish share one code base and count as
                   ONE source family when deciding agreement.
  sjeng            /usr/games/sjeng (Debian package, Sjeng 11.2) driven over its
                   xboard interface: `xboard`, `new`, `force`,
                   `variant suicide|giveaway|losers|normal`, `setboard FEN`,
                   `perft N` -> `Raw nodes for depth N: X`.
                   Its `perft` command applies suicide/giveaway rules but NOT
                   the losers capture rule (losers perft == chess perft), so
                   for losers this script asks sjeng for legality move by move
                   (force mode: `setboard FEN`, `<move>`, `undo`; sjeng answers
                   `Illegal move: <move>` for a move it rejects, and its move
                   check does apply the losers capture rule), generating the
                   candidate moves and the child FENs with python-chess.

Rule-set to oracle mapping:
  chess          chess.Board         / chess         / chess         / normal
  antichess      AntichessBoard      / antichess     / antichess     / suicide (*)
  giveaway       GiveawayBoard       / giveaway      / giveaway      / giveaway
  suicide        SuicideBoard        / suicide       / suicide       / suicide
  losers         wrapper             / losers        / losers        / losers (move check)
  mit-antichess  wrapper             / (not used)    / mit-antichess (from tests/data/pyffish_variants.ini)
  (*) lichess antichess and FICS suicide generate the same moves when the FEN
      has no castling rights (they differ only in how a stalemate is scored),
      so sjeng's suicide mode is an oracle for antichess positions.

Usage (from the repository root):

  # verify every perft line of a data file against the tools it lists
  python3 tools/perft_reference.py --check tests/data/perft_losers.txt
  python3 tools/perft_reference.py --check tests/data/perft_*.txt --max-nodes 100000

  # regenerate data files from the position lists in this script
  python3 tools/perft_reference.py --write chess antichess giveaway suicide losers mit-antichess
  python3 tools/perft_reference.py --write all [--outdir tests/data]

  # ad-hoc comparison / per-move breakdown of one position
  python3 tools/perft_reference.py --compare losers "<FEN>" 3
  python3 tools/perft_reference.py --divide losers "<FEN>" 2

Options: --fairy-stockfish PATH, --sjeng PATH, --sources LIST (only these
tools), --max-nodes N (with --check: skip lines above N), --pyffish-budget N
and --sjeng-budget N (with --write: run pyffish / sjeng's move-by-move mode
only on trees with at most N inner nodes; defaults 4000 and 40000, at least
25000 for pyffish in mit-antichess).  Timing goes to stderr.  Runs one oracle
at a time (one core).  A full --write all takes about 5 minutes, a full
--check of every file about 6 minutes (mostly pyffish and sjeng's move-by-move
mode, roughly 1 ms per position each).

Sjeng quirks found while writing this (see the report in the data headers):
  * After `new`, sjeng plays Black; if a `setboard` gives Black to move before
    `force` was sent, sjeng immediately thinks and plays a move, and a later
    `perft` counts from the position after that move.  Always send
    `new`, `force` first (force mode survives `setboard` and `variant`).
  * `new` resets the variant to normal, so send `variant` after it.
  * `setboard`'s castling-field parser scans until the next space, so a FEN
    that ends after the castling field can make it read past the line.
    Always send 6-field FENs (full_fen() does).
  * Its `perft` command mishandles one case in normal chess (see the header of
    perft_chess.txt: an e.p. capture that exposes the own king while not in
    check); its move check does not, and --divide / the comments use that.
  * sjeng's move counter is not reset by `setboard`; move-by-move checking
    sends `undo` after every candidate so the counter stays at 0.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import chess
import chess.variant

try:
    import pyffish
except ImportError:  # pragma: no cover - optional oracle
    pyffish = None

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(REPO_ROOT, "tests", "data")
FSF_PATH = "/usr/games/fairy-stockfish"
SJENG_PATH = "/usr/games/sjeng"
PYFFISH_INI = "pyffish_variants.ini"

SOURCES = ("python-chess", "fairy-stockfish", "pyffish", "sjeng")
FAMILY = {
    "python-chess": "python-chess",
    "fairy-stockfish": "fairy-stockfish",
    "pyffish": "fairy-stockfish",
    "sjeng": "sjeng",
}

NODE_LIMIT = 3_000_000  # largest count written to a data file


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Rule sets
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class RuleSet:
    name: str
    board_class: type           # python-chess board class
    fsf: Optional[str]          # UCI_Variant name for fairy-stockfish 11.1
    pyffish: Optional[str]      # variant name for pyffish
    sjeng: Optional[str]        # sjeng `variant` argument
    sjeng_move_check: bool = False   # use move-by-move legality (losers)
    wrapper: Optional[str] = None    # python-chess move filter ("losers"/"mit")


RULESETS: Dict[str, RuleSet] = {
    "chess": RuleSet("chess", chess.Board, "chess", "chess", "normal"),
    "antichess": RuleSet("antichess", chess.variant.AntichessBoard,
                         "antichess", "antichess", "suicide"),
    "giveaway": RuleSet("giveaway", chess.variant.GiveawayBoard,
                        "giveaway", "giveaway", "giveaway"),
    "suicide": RuleSet("suicide", chess.variant.SuicideBoard,
                       "suicide", "suicide", "suicide"),
    "losers": RuleSet("losers", chess.Board, "losers", "losers", "losers",
                      sjeng_move_check=True, wrapper="losers"),
    "mit-antichess": RuleSet("mit-antichess", chess.Board, None,
                             "mit-antichess", None, wrapper="mit"),
}


def full_fen(fen: str) -> str:
    """Return the FEN with all six fields (sjeng needs them)."""
    parts = fen.split()
    defaults = ["w", "-", "-", "0", "1"]
    while len(parts) < 6:
        parts.append(defaults[len(parts) - 1])
    return " ".join(parts)


# ---------------------------------------------------------------------------
# python-chess oracle
# ---------------------------------------------------------------------------

def has_bare_king(board: chess.Board) -> bool:
    """True when some side has its king and nothing else."""
    for color in (chess.WHITE, chess.BLACK):
        own = board.occupied_co[color]
        if own and own == (own & board.kings):
            return True
    return False


class PassNode(Exception):
    pass


def wrapper_moves(kind: str, board: chess.Board, game_over_rule: bool = True
                  ) -> List[chess.Move]:
    """Legal moves for the rule sets python-chess does not have."""
    if game_over_rule and has_bare_king(board):
        return []
    moves = list(board.legal_moves)
    if kind == "mit":
        moves = [m for m in moves if m.promotion in (None, chess.QUEEN)]
    captures = [m for m in moves if board.is_capture(m)]
    return captures or moves


class PythonChessOracle:
    name = "python-chess"

    def __init__(self) -> None:
        self.passes = 0      # mit-antichess pass nodes met (wrapper rule sets)
        self.game_over = 0   # bare-king nodes met where moves were asked for

    def board(self, rs: RuleSet, fen: str) -> chess.Board:
        return rs.board_class(fen)

    def moves(self, rs: RuleSet, board: chess.Board, game_over_rule: bool = True
              ) -> List[chess.Move]:
        if rs.wrapper:
            if has_bare_king(board):
                self.game_over += 1
            moves = wrapper_moves(rs.wrapper, board, game_over_rule)
            if (rs.wrapper == "mit" and not moves and not board.is_check()
                    and not has_bare_king(board)):
                # passOnStalemate: the side with no move passes.
                self.passes += 1
                return [chess.Move.null()]
            return moves
        return list(board.legal_moves)

    def perft(self, rs: RuleSet, fen: str, depth: int,
              game_over_rule: bool = True) -> int:
        board = self.board(rs, fen)

        def rec(d: int) -> int:
            moves = self.moves(rs, board, game_over_rule)
            if d == 1:
                return len(moves)
            total = 0
            for m in moves:
                board.push(m)
                total += rec(d - 1)
                board.pop()
            return total

        return rec(depth) if depth > 0 else 1

    def divide(self, rs: RuleSet, fen: str, depth: int) -> Dict[str, int]:
        board = self.board(rs, fen)
        out = {}
        for m in self.moves(rs, board):
            board.push(m)
            out[m.uci()] = self.perft(rs, board.fen(), depth - 1) if depth > 1 else 1
            board.pop()
        return out


# ---------------------------------------------------------------------------
# Fairy-Stockfish (UCI subprocess)
# ---------------------------------------------------------------------------

class FairyStockfishOracle:
    name = "fairy-stockfish"

    def __init__(self, path: str = FSF_PATH) -> None:
        self.path = path
        self.proc: Optional[subprocess.Popen] = None
        self.variant: Optional[str] = None
        self.version = "?"

    def _start(self) -> None:
        self.proc = subprocess.Popen(
            [self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        self._send("uci")
        for line in self._lines_until(lambda l: l == "uciok"):
            if line.startswith("id name "):
                self.version = line[len("id name "):]
        self.variant = None

    def _send(self, *cmds: str) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write("".join(c + "\n" for c in cmds))
        self.proc.stdin.flush()

    def _lines_until(self, stop: Callable[[str], bool]) -> List[str]:
        assert self.proc and self.proc.stdout
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("fairy-stockfish exited unexpectedly")
            line = line.strip()
            lines.append(line)
            if stop(line):
                return lines

    def _prepare(self, variant: str, fen: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        if variant != self.variant:
            self._send(f"setoption name UCI_Variant value {variant}")
            self.variant = variant
        self._send("isready")
        self._lines_until(lambda l: l == "readyok")
        self._send(f"position fen {fen}")

    def run(self, variant: str, fen: str, depth: int) -> Tuple[int, Dict[str, int]]:
        self._prepare(variant, fen)
        self._send(f"go perft {depth}")
        lines = self._lines_until(lambda l: l.startswith("Nodes searched"))
        total = int(lines[-1].split(":")[1])
        div = {}
        for line in lines[:-1]:
            m = re.match(r"^(\S+): (\d+)$", line)
            if m:
                div[m.group(1)] = int(m.group(2))
        return total, div

    def perft(self, rs: RuleSet, fen: str, depth: int) -> int:
        assert rs.fsf
        return self.run(rs.fsf, fen, depth)[0]

    def divide(self, rs: RuleSet, fen: str, depth: int) -> Dict[str, int]:
        assert rs.fsf
        return self.run(rs.fsf, fen, depth)[1]

    def close(self) -> None:
        if self.proc and self.proc.poll() is None:
            self._send("quit")
            self.proc.wait(timeout=10)


# ---------------------------------------------------------------------------
# pyffish (Python binding of a newer Fairy-Stockfish)
# ---------------------------------------------------------------------------

class BudgetExceeded(Exception):
    pass


class PyffishOracle:
    name = "pyffish"

    def __init__(self) -> None:
        if pyffish is None:
            raise RuntimeError("pyffish is not installed")
        self.loaded_ini: Optional[str] = None
        self.version = ".".join(str(x) for x in pyffish.version())

    def load_config(self, path: str) -> None:
        if self.loaded_ini == path:
            return
        with open(path) as fh:
            pyffish.load_variant_config(fh.read())
        self.loaded_ini = path

    def perft(self, rs: RuleSet, fen: str, depth: int,
              budget: Optional[int] = None) -> int:
        assert rs.pyffish
        if rs.pyffish not in pyffish.variants():
            raise RuntimeError(f"pyffish does not know variant {rs.pyffish}"
                               f" (load {PYFFISH_INI} first)")
        calls = 0

        def rec(path: List[str], d: int) -> int:
            nonlocal calls
            calls += 1
            if budget is not None and calls > budget:
                raise BudgetExceeded
            moves = pyffish.legal_moves(rs.pyffish, fen, path)
            if d == 1:
                return len(moves)
            return sum(rec(path + [m], d - 1) for m in moves)

        return rec([], depth) if depth > 0 else 1

    def divide(self, rs: RuleSet, fen: str, depth: int) -> Dict[str, int]:
        out = {}
        for m in pyffish.legal_moves(rs.pyffish, fen, []):
            child = pyffish.get_fen(rs.pyffish, fen, [m])
            out[m] = self.perft(rs, child, depth - 1) if depth > 1 else 1
        return out


# ---------------------------------------------------------------------------
# Sjeng (xboard subprocess)
# ---------------------------------------------------------------------------

class SjengOracle:
    name = "sjeng"

    def __init__(self, path: str = SJENG_PATH) -> None:
        self.path = path
        self.proc: Optional[subprocess.Popen] = None
        self.variant: Optional[str] = None
        self.ping = 0
        self.version = "?"
        # sjeng writes learn files into $HOME/.sjeng and its cwd: keep them
        # out of the user's home and the repository.
        self.tmpdir = tempfile.TemporaryDirectory(prefix="sjeng-")

    def _start(self) -> None:
        env = dict(os.environ, HOME=self.tmpdir.name)
        self.proc = subprocess.Popen(
            [self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1,
            cwd=self.tmpdir.name, env=env)
        self._send("xboard", "protover 2")
        for line in self._sync():
            m = re.search(r'myname="([^"]+)"', line)
            if m:
                self.version = m.group(1)
        self.variant = None

    def _send(self, *cmds: str) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write("".join(c + "\n" for c in cmds))
        self.proc.stdin.flush()

    def _sync(self) -> List[str]:
        """Send `ping`, return every line printed before the `pong`."""
        assert self.proc and self.proc.stdout
        self.ping += 1
        self._send(f"ping {self.ping}")
        want = f"pong {self.ping}"
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("sjeng exited unexpectedly")
            line = line.strip()
            if line == want:
                return lines
            lines.append(line)

    def _set_variant(self, variant: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        if variant != self.variant:
            # `new` makes sjeng play black and leave force mode; `force`
            # must come before any setboard (see module docstring).
            self._send("new", "force", f"variant {variant}")
            self._sync()
            self.variant = variant

    def run_perft(self, variant: str, fen: str, depth: int) -> int:
        self._set_variant(variant)
        self._send(f"setboard {full_fen(fen)}", f"perft {depth}")
        for line in self._sync():
            m = re.match(r"Raw nodes for depth (\d+): (-?\d+)", line)
            if m and int(m.group(1)) == depth:
                return int(m.group(2))
        raise RuntimeError("no perft answer from sjeng")

    def accepted(self, variant: str, fen: str, candidates: Sequence[str]) -> List[str]:
        """The candidate moves (UCI strings) that sjeng accepts in `fen`."""
        self._set_variant(variant)
        fen = full_fen(fen)
        cmds = []
        for c in candidates:
            cmds += [f"setboard {fen}", c, "undo"]
        self._send(*cmds)
        illegal = set()
        for line in self._sync():
            if line.startswith("Illegal move:"):
                illegal.add(line.split(":", 1)[1].strip())
        return [c for c in candidates if c not in illegal]

    # -- move-by-move mode ---------------------------------------------------
    @staticmethod
    def candidates(board: chess.Board, king_promotions: bool) -> List[chess.Move]:
        """A superset of the legal moves: chess pseudo-legal moves of the side
        to move, every castling king step, and (suicide/giveaway) promotions
        to king."""
        plain = chess.Board(board.fen())
        cands = {m for m in plain.pseudo_legal_moves}
        for sq, targets in ((chess.E1, (chess.G1, chess.C1)),
                            (chess.E8, (chess.G8, chess.C8))):
            if plain.piece_at(sq) == chess.Piece(chess.KING, plain.turn):
                for t in targets:
                    cands.add(chess.Move(sq, t))
        if king_promotions:
            cands |= {chess.Move(m.from_square, m.to_square, chess.KING)
                      for m in cands if m.promotion == chess.QUEEN}
        return sorted(cands, key=lambda m: m.uci())

    def legal_moves(self, rs: RuleSet, board: chess.Board) -> List[chess.Move]:
        assert rs.sjeng
        cands = self.candidates(board, rs.sjeng in ("suicide", "giveaway"))
        ok = set(self.accepted(rs.sjeng, board.fen(), [m.uci() for m in cands]))
        return [m for m in cands if m.uci() in ok]

    @staticmethod
    def _board(rs: RuleSet, fen: str) -> chess.Board:
        return chess.Board(fen) if rs.wrapper else rs.board_class(fen)

    def perft(self, rs: RuleSet, fen: str, depth: int,
              move_check: Optional[bool] = None) -> int:
        """sjeng's `perft` command, or (losers, or move_check=True) a perft
        whose move lists come from sjeng's move check."""
        assert rs.sjeng
        if not (rs.sjeng_move_check if move_check is None else move_check):
            return self.run_perft(rs.sjeng, fen, depth)
        board = self._board(rs, fen)

        def rec(d: int) -> int:
            moves = self.legal_moves(rs, board)
            if d == 1:
                return len(moves)
            total = 0
            for m in moves:
                board.push(m)
                total += rec(d - 1)
                board.pop()
            return total

        return rec(depth) if depth > 0 else 1

    def divide(self, rs: RuleSet, fen: str, depth: int) -> Dict[str, int]:
        """Root moves from sjeng's move check; subtrees from sjeng's usual
        perft mode for the rule set."""
        board = self._board(rs, fen)
        out = {}
        for m in self.legal_moves(rs, board):
            board.push(m)
            out[m.uci()] = self.perft(rs, board.fen(), depth - 1) if depth > 1 else 1
            board.pop()
        return out

    def close(self) -> None:
        if self.proc and self.proc.poll() is None:
            self._send("quit")
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# ---------------------------------------------------------------------------
# Oracle set
# ---------------------------------------------------------------------------

class Oracles:
    def __init__(self, fsf_path: str = FSF_PATH, sjeng_path: str = SJENG_PATH,
                 ini_dir: str = DATA_DIR) -> None:
        self.pc = PythonChessOracle()
        self.fsf = FairyStockfishOracle(fsf_path)
        self.pyffish = PyffishOracle() if pyffish is not None else None
        self.sjeng = SjengOracle(sjeng_path)
        self.ini_dir = ini_dir
        self.timings: Dict[str, float] = {s: 0.0 for s in SOURCES}

    def available(self, rs: RuleSet) -> List[str]:
        out = ["python-chess"]
        if rs.fsf and os.path.exists(self.fsf.path):
            out.append("fairy-stockfish")
        if rs.pyffish and self.pyffish is not None:
            out.append("pyffish")
        if rs.sjeng and os.path.exists(self.sjeng.path):
            out.append("sjeng")
        return out

    def _ensure_config(self, rs: RuleSet) -> None:
        if rs.name == "mit-antichess" and self.pyffish is not None:
            self.pyffish.load_config(os.path.join(self.ini_dir, PYFFISH_INI))

    def perft(self, source: str, rs: RuleSet, fen: str, depth: int,
              pyffish_budget: Optional[int] = None) -> int:
        self._ensure_config(rs)
        t0 = time.time()
        try:
            if source == "python-chess":
                return self.pc.perft(rs, fen, depth)
            if source == "fairy-stockfish":
                return self.fsf.perft(rs, fen, depth)
            if source == "pyffish":
                assert self.pyffish is not None
                return self.pyffish.perft(rs, fen, depth, pyffish_budget)
            if source == "sjeng":
                return self.sjeng.perft(rs, fen, depth)
            raise ValueError(source)
        finally:
            self.timings[source] += time.time() - t0

    def divide(self, source: str, rs: RuleSet, fen: str, depth: int) -> Dict[str, int]:
        self._ensure_config(rs)
        oracle = {"python-chess": self.pc, "fairy-stockfish": self.fsf,
                  "pyffish": self.pyffish, "sjeng": self.sjeng}[source]
        return oracle.divide(rs, fen, depth)

    def versions(self) -> Dict[str, str]:
        if self.fsf.proc is None:
            try:
                self.fsf._start()
            except OSError:
                pass
        if self.sjeng.proc is None:
            try:
                self.sjeng._start()
            except OSError:
                pass
        return {
            "python-chess": chess.__version__,
            "fairy-stockfish": self.fsf.version,
            "pyffish": self.pyffish.version if self.pyffish else "missing",
            "sjeng": self.sjeng.version,
        }

    def close(self) -> None:
        self.fsf.close()
        self.sjeng.close()


# ---------------------------------------------------------------------------
# Positions (regeneration input).  (id, fen, max depth, description)
# Depths are capped so that no written count exceeds NODE_LIMIT.
# ---------------------------------------------------------------------------

# Published numbers (chessprogramming wiki "Perft Results") used only to
# cross-check the chess file; the data file takes its numbers from the tools.
PUBLISHED_CHESS = {
    "startpos": [20, 400, 8902, 197281, 4865609],
    "kiwipete": [48, 2039, 97862, 4085603],
    "cpw-pos3": [14, 191, 2812, 43238, 674624, 11030083],
    "cpw-pos4": [6, 264, 9467, 422333, 15833292],
    "cpw-pos4-mirrored": [6, 264, 9467, 422333, 15833292],
    "cpw-pos5": [44, 1486, 62379, 2103487, 89941194],
    "cpw-pos6": [46, 2079, 89890, 3894594],
}


_POSITIONS: Dict[str, List[Tuple[str, str, int, str]]] = {
    "chess": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4,
         "standard start position"),
        ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3,
         "chessprogramming wiki position 2 (Kiwipete)"),
        ("cpw-pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5,
         "chessprogramming wiki position 3 (en passant, rook endgame)"),
        ("cpw-pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4,
         "chessprogramming wiki position 4 (promotions, castling, checks)"),
        ("cpw-pos4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4,
         "chessprogramming wiki position 4, colours mirrored"),
        ("cpw-pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4,
         "chessprogramming wiki position 5"),
        ("cpw-pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3,
         "chessprogramming wiki position 6"),
        ("ep-evasion-black", "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3", 5,
         "black in check from the pawn that just double-stepped; c4xd3 e.p. is an evasion"),
        ("ep-evasion-white", "7k/8/8/2Pp4/2K5/8/8/8 w - d6 0 1", 5,
         "white in check from the pawn that just double-stepped; c5xd6 e.p. is an evasion"),
        ("ep-evasion-both-pawns", "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", 5,
         "e4xd3 e.p. would expose the king on the 4th rank (horizontal pin through both pawns)"),
        ("ep-evasion-or-king-capture", "8/8/8/4k3/3Pp3/8/8/3K4 b - d3 0 1", 6,
         "d4 pawn checks e5: evade by e4xd3 e.p., Kxd4 or a king move"),
        ("ep-evasion-blocks-check", "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", 4,
         "UNREACHABLE (the queen check predates d2-d4): e4xd3 e.p. blocks the f1-b5 check; Fairy-Stockfish 11.1 misses it"),
        ("ep-discovered-check-pin", "8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1", 5,
         "c5xd6 e.p. would open the f7-b3 diagonal onto the white king"),
    ],
    "antichess": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 5,
         "antichess start position (no castling)"),
        ("ep-pending", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w - f6 0 3", 4,
         "white can capture e.p. on f6 (compulsory: it is the only kind of capture)"),
        ("ep-only-capture", "8/8/8/8/3pP3/8/8/6N1 b - e3 0 1", 8,
         "the only capture is e.p. d4xe3, which is compulsory"),
        ("promotions-incl-king", "1n6/P5P1/8/8/8/8/1p4p1/R5N1 w - - 0 1", 7,
         "promotions with and without capture, to Q R B N and K"),
        ("many-captures", "r1b1k2r/pp3ppp/2n1pn2/q2p4/1bPP4/2N1PN2/PPQ2PPP/R1B1KB1R w - - 0 1", 7,
         "middlegame with many captures available to both sides"),
        ("few-pieces", "8/8/3k4/8/8/2N5/6p1/8 w - - 0 1", 6,
         "two pieces each side, promotion race"),
        ("lone-king-vs-army", "8/8/8/3k4/8/8/PPPPPPPP/RNBQKBNR b - - 0 1", 5,
         "black has a lone (non-royal) king against the full white army"),
        ("no-moves", "8/8/8/8/8/p7/P7/8 w - - 0 1", 2,
         "white's only pawn is blocked: no legal move (a win for white in antichess)"),
        ("blocked-after-moves", "8/8/8/p1p5/P7/2P5/8/7K w - - 0 1", 5,
         "black's pawns get blocked: black nodes without moves inside the tree"),
    ],
    "giveaway": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
         "giveaway start position (castling rights present)"),
        ("castling-both-sides", "r3k2r/p1p3pp/8/8/8/8/P1P3PP/R3K2R w KQkq - 0 1", 4,
         "castling both ways for both sides, open files for the rooks"),
        ("castling-attacked-path", "r3k2r/pp4pp/8/6b1/1q6/8/PP4PP/R3K2R w KQkq - 0 1", 5,
         "queen attacks the white king on e1 and bishop attacks c1: white may still castle both ways"),
        ("ep-pending", "rnbqk2r/pppp1ppp/8/3Pp3/8/8/PPP2PPP/RNBQK2R w KQkq e6 0 4", 9,
         "white can capture e.p. on e6 (compulsory)"),
        ("promotions-incl-king", "r3k3/1P6/8/8/8/8/6p1/4K2R w Kq - 0 1", 6,
         "promotions to Q R B N K next to castling rights"),
        ("many-captures", "r2qk2r/ppp2ppp/2n1bn2/3pp3/1bPP4/2N1PN2/PP1B1PPP/R2QKB1R w KQkq - 0 1", 7,
         "middlegame with castling rights and many captures"),
        ("few-pieces", "8/8/8/8/8/1k6/p7/4K2R w K - 0 1", 6,
         "white king and rook with a castling right vs black king and pawn"),
    ],
    "suicide": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 5,
         "suicide start position (FICS suicide never castles: no rights in FEN)"),
        ("ep-pending", "rnbqkbnr/pp1ppppp/8/8/2pPP3/8/PPP2PPP/RNBQKBNR b - d3 0 3", 6,
         "black can capture e.p. on d3 (compulsory)"),
        ("promotions-incl-king", "3n4/2P1P3/8/2k5/8/8/4p3/6K1 w - - 0 1", 6,
         "promotions with capture and without, to Q R B N and K"),
        ("many-captures", "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w - - 0 1", 9,
         "open middlegame (Italian structure) with captures"),
        ("kings-only-many", "8/8/2k5/8/3K4/8/1k6/5K2 b - - 0 1", 5,
         "several non-royal kings per side"),
        ("few-pieces", "8/8/8/8/8/5n2/P7/8 w - - 0 1", 8,
         "one piece each side"),
        ("no-moves", "8/8/8/8/1p6/1P6/8/8 b - - 0 1", 2,
         "black's only pawn is blocked: no legal move"),
        ("no-moves-after", "8/8/8/8/1p6/1P6/8/2B5 w - - 0 1", 8,
         "white bishop must be given away while black's pawn stays blocked"),
    ],
    "losers": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
         "losers start position"),
        ("check-illegal-capture", "rnb1kbnr/pppp1ppp/8/4p3/5P1q/8/PPPPP1PP/RNBQKBNR w KQkq - 0 3", 8,
         "white in check from h4: f4xe5 is a capture but illegal, so the non-capture g2-g3 is allowed"),
        ("check-capture-checker", "rnbqk1nr/pppp1ppp/8/4p3/1b1P4/2P5/PP2PPPP/RNBQKBNR w KQkq - 1 3", 8,
         "check from b4: capturing the checker (c3xb4) is compulsory"),
        ("check-ep-or-king-capture", "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3", 6,
         "black in check from d4: the captures c4xd3 e.p. and Kxd4 are the only moves"),
        ("ep-compulsory", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 5,
         "e5xf6 e.p. is the only legal capture, so it is compulsory"),
        ("castling", "r3k2r/ppp2ppp/8/7b/8/B7/PPP2PPP/R3K2R w KQkq - 0 1", 4,
         "no captures; white may castle short but not long (d1 attacked), black long but not short (f8 attacked)"),
        ("promotions", "1r1n4/P1P5/8/7k/8/8/6p1/4K3 w - - 0 1", 5,
         "capture-promotions to Q R B N are compulsory; later quiet promotions for both sides"),
        ("bare-king-in-tree", "4k1n1/8/8/8/8/8/P7/3QK3 w - - 0 1", 5,
         "the queen can win black's knight: black bare king (game over) at some nodes inside the tree"),
        ("bare-king-root", "4k3/8/8/8/8/8/3PP3/4K3 b - - 0 1", 2,
         "black already has a bare king: the game is over, no moves"),
    ],
    "mit-antichess": [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4,
         "start position"),
        ("check-illegal-capture", "rnb1kbnr/pppp1ppp/8/4p3/5P1q/8/PPPPP1PP/RNBQKBNR w KQkq - 0 3", 6,
         "white in check from h4: f4xe5 is a capture but illegal, so the non-capture g2-g3 is allowed"),
        ("check-capture-checker", "rnbqk1nr/pppp1ppp/8/4p3/1b1P4/2P5/PP2PPPP/RNBQKBNR w KQkq - 1 3", 6,
         "check from b4: capturing the checker (c3xb4) is compulsory"),
        ("castling", "r3k2r/ppp2ppp/8/7b/8/B7/PPP2PPP/R3K2R w KQkq - 0 1", 4,
         "no captures; white may castle short but not long (d1 attacked), black long but not short (f8 attacked)"),
        ("ep-compulsory", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 5,
         "e5xf6 e.p. is the only legal capture, so it is compulsory"),
        ("promotion-queen-only", "1r1n4/P1P5/8/7k/8/8/6p1/4K3 w - - 0 1", 5,
         "capture-promotions (queen only) are compulsory; later quiet promotions for both sides"),
    ],
}


# ---------------------------------------------------------------------------
# Agreement logic
# ---------------------------------------------------------------------------

@dataclass
class LineResult:
    depth: int
    results: Dict[str, Optional[int]]
    value: Optional[int] = None
    agreed: List[str] = field(default_factory=list)
    comments: List[str] = field(default_factory=list)


def decide(rs: RuleSet, fen: str, depth: int, results: Dict[str, Optional[int]],
           oracles: Oracles, single_source_ok: bool) -> LineResult:
    lr = LineResult(depth, results)
    got = {s: v for s, v in results.items() if v is not None}
    values = sorted(set(got.values()))
    fam_support = {v: {FAMILY[s] for s, x in got.items() if x == v} for v in values}
    need = 1 if single_source_ok else 2
    winners = [v for v in values if len(fam_support[v]) >= need]
    listing = ", ".join(f"{s} {v}" for s, v in got.items())
    if len(winners) != 1:
        lr.comments.append(f"# depth {depth} left out: no agreement ({listing})")
        return lr
    v = winners[0]
    dissent = [s for s, x in got.items() if x != v]
    explained = []
    for s in dissent:
        why = explain(rs, fen, depth, s, got, v, oracles)
        if why is None:
            lr.comments.append(f"# depth {depth} left out: tools disagree ({listing})")
            return lr
        explained.append(f"# depth {depth}: {s} gives {got[s]} ({why})")
    lr.value = v
    lr.agreed = [s for s in SOURCES if got.get(s) == v]
    lr.comments.extend(explained)
    return lr


def explain(rs: RuleSet, fen: str, depth: int, source: str,
            got: Dict[str, int], value: int, oracles: Oracles) -> Optional[str]:
    """Return a reason when a dissenting count has a known, verified cause."""
    if source == "fairy-stockfish" and got.get("pyffish") == value:
        return ("Debian fairy-stockfish 11.1 defect; the newer pyffish from the "
                "same code base agrees with the other tools")
    if source == "sjeng" and rs.name == "losers":
        raw = oracles.pc.perft(rs, fen, depth, game_over_rule=False)
        if raw == got["sjeng"]:
            return ("sjeng does not stop at a bare-king node, where the game is over; "
                    "python-chess without that rule also gives this number")
    if source == "sjeng" and not rs.sjeng_move_check and got.get("python-chess") == value:
        # Small trees only: move-by-move costs about 1 ms per node.
        if oracles.pc.perft(rs, fen, depth - 1) <= 20000 if depth > 1 else True:
            mc = oracles.sjeng.perft(rs, fen, depth, move_check=True)
            if mc == value:
                return ("from sjeng's `perft` command; a perft built on sjeng's own "
                        "move check (force mode) gives the agreed number, see header")
    return None


# ---------------------------------------------------------------------------
# Data file writing / reading
# ---------------------------------------------------------------------------

HEADER_COMMON = """\
# Reference perft counts for rule set `{rs}`.
# Generated by tools/perft_reference.py (`--write {rs}`); verify with
#   python3 tools/perft_reference.py --check tests/data/perft_{rs}.txt
# Tools: python-chess {v[python-chess]}; {v[fairy-stockfish]} (Debian
# fairy-stockfish, UCI `go perft`); pyffish {v[pyffish]} (newer Fairy-Stockfish);
# {v[sjeng]} (Debian sjeng, xboard `perft` / move check).
# A perft line is present only when at least two independent tool families
# agree on it (fairy-stockfish and pyffish are one family) and every other tool
# either agrees or differs for a known, verified reason stated in a comment.
# The last field lists every tool that gave exactly this number.  pyffish is
# slow (about 1.4 ms per position) and is only run on small trees.
# Format: `id`, `fen`, then `perft <depth> <nodes> <sources>`; blank line
# between positions; `#` lines are comments.
"""

HEADER_EXTRA = {
    "chess": """\
# Standard chess.  Published chessprogramming-wiki numbers were used only as a
# cross-check (every written number matches them where published).
# Known tool differences:
# * Debian's Fairy-Stockfish 11.1 misses the en-passant check evasion e4xd3 in
#   the (unreachable) position ep-evasion-blocks-check, where the capture
#   blocks a queen check; pyffish 0.0.90, python-chess and sjeng all have it.
#   In 1265 positions from 300 random games (every position where an e.p.
#   capture was available, plus a random sample of the others) 11.1 agreed
#   with python-chess and sjeng at depth 2.
# * sjeng's `perft` command counts c5xd6 e.p. in ep-discovered-check-pin,
#   although it exposes the white king to the f7 bishop: its perft uses a
#   cheaper legality test when the side to move is not in check, which does
#   apparently not look at the pawn removed by e.p.  sjeng's move check (force
#   mode, used for the perft noted in the comments) rejects the move.
""",
    "antichess": """\
# lichess antichess: captures compulsory, no check, king is an ordinary piece,
# promotion also to king, NO castling (every FEN has castling field `-`).
# sjeng has no antichess mode; its `variant suicide` (FICS suicide) makes the
# same moves when no castling rights are given, so it is used as the sjeng
# oracle here.  A side without pieces has no moves (game over); no position
# here starts with a side that has no pieces.
""",
    "giveaway": """\
# giveaway: antichess moves, plus castling from the FEN rights; castling is
# never blocked by attacked squares (python-chess GiveawayBoard,
# Fairy-Stockfish `giveaway`, sjeng `variant giveaway`).  Castling is a
# non-capture, so it is only available when no capture is.
""",
    "suicide": """\
# FICS suicide: antichess moves, never castles.  python-chess's SuicideBoard
# would castle from FEN castling rights while FICS / Fairy-Stockfish / sjeng do
# not, so every FEN here has castling field `-`.
""",
    "losers": """\
# ICC wild 17 losers: chess with check; when a legal capture exists a capture
# must be played (e.p. counts); promotion to Q R B N; a side reduced to a bare
# king has won, so such a node has no moves (0 in the engine).
# python-chess here means chess.Board's legal moves filtered by this script:
# captures only if any legal capture exists; no moves when either side has
# only its king.
# Bare-king behaviour of the tools: Fairy-Stockfish 11.1 and pyffish generate
# NO moves when either side is reduced to a bare king (they agree with the
# engine's convention).  sjeng's `perft` ignores the losers capture rule
# altogether (its losers perft equals chess perft), so it is used move by
# move: its move check (force mode) applies the capture rule but accepts
# moves in positions where a side already has a bare king, so sjeng counts
# differ at depths where a bare-king node is expanded; those lines list the
# other tools and say so in a comment.
""",
    "mit-antichess": """\
# MIT 6.170 antichess (variant defined in tests/data/pyffish_variants.ini):
# chess with royal king, check, castling and en passant; capture compulsory
# when a legal capture exists; promotion to queen only; a side reduced to its
# bare king wins (no moves at such a node); checkmate loses; a side with no
# legal move that is not in check passes.
# SINGLE SOURCE ALLOWED for this file only: the counts come from pyffish with
# the configuration above.  Where this script's python-chess wrapper (chess.Board
# legal moves, queen promotions only, captures only when any legal capture
# exists, no moves when a side has a bare king) gives the same number, it is
# listed too.  No position here reaches a pass or a bare king within its depths.
""",
}


SPEED_ORDER = ["fairy-stockfish", "python-chess", "sjeng", "pyffish"]


def write_file(rs_name: str, oracles: Oracles, outdir: str, budget: int,
               sjeng_budget: int) -> None:
    rs = RULESETS[rs_name]
    single = rs_name == "mit-antichess"
    if single:
        # pyffish is the reference for this file: give it a larger budget.
        budget = max(budget, 25000)
    versions = oracles.versions()
    out = [HEADER_COMMON.format(rs=rs_name, v=versions) + HEADER_EXTRA[rs_name]]
    available = oracles.available(rs)
    t_file = time.time()
    for pid, fen, maxdepth, desc in _POSITIONS[rs_name]:
        if rs_name in ("antichess", "suicide"):
            assert fen.split()[2] == "-", (pid, "castling rights not allowed")
        block = [f"# {desc}", f"id {pid}", f"fen {fen}"]
        comments: List[str] = []
        sizes: Dict[int, int] = {}
        for depth in range(1, maxdepth + 1):
            oracles.pc.passes = oracles.pc.game_over = 0
            results: Dict[str, Optional[int]] = {}
            # The fastest tool goes first: its count decides whether the depth
            # is small enough for the data file and for the slow oracles.
            order = sorted(available, key=lambda src: SPEED_ORDER.index(src))
            too_big = False
            for src in order:
                interior = sum(sizes.get(d, 0) for d in range(depth)) + 1
                if src == "pyffish" and interior > budget:
                    results[src] = None
                    continue
                if src == "sjeng" and rs.sjeng_move_check and interior > sjeng_budget:
                    results[src] = None
                    continue
                t0 = time.time()
                try:
                    results[src] = oracles.perft(src, rs, fen, depth,
                                                 pyffish_budget=budget if src == "pyffish" else None)
                except BudgetExceeded:
                    results[src] = None
                log(f"  {rs_name} {pid} d{depth} {src}: {results[src]} "
                    f"({time.time() - t0:.2f}s)")
                if depth not in sizes and results[src] is not None:
                    sizes[depth] = results[src]
                    if results[src] > NODE_LIMIT:
                        too_big = True
                        break
            if too_big:
                log(f"  {rs_name} {pid} d{depth}: above node limit, stopping")
                break
            if single and (oracles.pc.passes or oracles.pc.game_over):
                log(f"  {rs_name} {pid} d{depth}: {oracles.pc.passes} pass nodes, "
                    f"{oracles.pc.game_over} bare-king nodes: not written")
                comments.append(f"# depth {depth} left out: the tree reaches a pass or a bare king")
                break
            lr = decide(rs, fen, depth, results, oracles, single)
            comments.extend(lr.comments)
            if lr.value is not None:
                block.append(f"perft {depth} {lr.value} {','.join(lr.agreed)}")
        block.extend(comments)
        out.append("\n".join(block) + "\n")
    path = os.path.join(outdir, f"perft_{rs_name}.txt")
    with open(path, "w") as fh:
        fh.write("\n".join(out))
    log(f"wrote {path} in {time.time() - t_file:.1f}s")


@dataclass
class DataPosition:
    pid: str
    fen: str
    lines: List[Tuple[int, int, List[str]]]


def parse_file(path: str) -> List[DataPosition]:
    positions: List[DataPosition] = []
    cur: Optional[DataPosition] = None
    with open(path) as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            if key == "id":
                cur = DataPosition(rest.strip(), "", [])
                positions.append(cur)
            elif key == "fen":
                assert cur is not None
                cur.fen = rest.strip()
            elif key == "perft":
                assert cur is not None
                d, n, srcs = rest.split()
                cur.lines.append((int(d), int(n), srcs.split(",")))
            else:
                raise ValueError(f"{path}: cannot parse line: {line}")
    return positions


def ruleset_of(path: str) -> RuleSet:
    m = re.match(r"perft_(.+)\.txt$", os.path.basename(path))
    if not m or m.group(1) not in RULESETS:
        raise ValueError(f"cannot tell the rule set of {path}")
    return RULESETS[m.group(1)]


def check_file(path: str, oracles: Oracles, max_nodes: Optional[int],
               only: Optional[List[str]]) -> int:
    rs = ruleset_of(path)
    oracles.ini_dir = os.path.dirname(os.path.abspath(path))
    failures = 0
    checked = 0
    for pos in parse_file(path):
        for depth, nodes, srcs in pos.lines:
            fams = {FAMILY[s] for s in srcs}
            if len(fams) < 2 and rs.name != "mit-antichess":
                print(f"FAIL {path} {pos.pid} d{depth}: fewer than two "
                      f"independent sources ({','.join(srcs)})")
                failures += 1
            if max_nodes is not None and nodes > max_nodes:
                continue
            for s in srcs:
                if only and s not in only:
                    continue
                t0 = time.time()
                got = oracles.perft(s, rs, pos.fen, depth)
                dt = time.time() - t0
                checked += 1
                status = "ok  " if got == nodes else "FAIL"
                if got != nodes:
                    failures += 1
                print(f"{status} {rs.name} {pos.pid} d{depth} {s}: {got}"
                      f" (file {nodes}) {dt:.2f}s", flush=True)
    print(f"{path}: {checked} counts recomputed, {failures} failures")
    return failures


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", nargs="+", metavar="FILE",
                    help="recompute every perft line of these data files")
    ap.add_argument("--write", nargs="+", metavar="RULESET",
                    help="regenerate tests/data/perft_<RULESET>.txt ('all' for every file)")
    ap.add_argument("--compare", nargs=3, metavar=("RULESET", "FEN", "DEPTH"),
                    help="print every tool's count for one position")
    ap.add_argument("--divide", nargs=3, metavar=("RULESET", "FEN", "DEPTH"),
                    help="per-root-move counts of every tool, differences marked")
    ap.add_argument("--outdir", default=DATA_DIR)
    ap.add_argument("--sources", help="comma separated subset of tools")
    ap.add_argument("--max-nodes", type=int, help="--check: skip lines above this count")
    ap.add_argument("--pyffish-budget", type=int, default=4000,
                    help="--write: run pyffish only when the tree has at most this many inner nodes")
    ap.add_argument("--sjeng-budget", type=int, default=40000,
                    help="--write: same for sjeng's move-by-move mode (losers)")
    ap.add_argument("--fairy-stockfish", default=FSF_PATH)
    ap.add_argument("--sjeng", default=SJENG_PATH)
    args = ap.parse_args(argv)

    only = args.sources.split(",") if args.sources else None
    oracles = Oracles(args.fairy_stockfish, args.sjeng, args.outdir)
    rc = 0
    try:
        if args.check:
            for path in args.check:
                rc |= 1 if check_file(path, oracles, args.max_nodes, only) else 0
        if args.write:
            names = list(RULESETS) if args.write == ["all"] else args.write
            for name in names:
                write_file(name, oracles, args.outdir, args.pyffish_budget,
                           args.sjeng_budget)
        if args.compare:
            name, fen, depth = args.compare
            rs = RULESETS[name]
            for d in range(1, int(depth) + 1):
                row = []
                for s in oracles.available(rs):
                    if only and s not in only:
                        continue
                    t0 = time.time()
                    row.append(f"{s}={oracles.perft(s, rs, fen, d)}({time.time() - t0:.2f}s)")
                print(f"depth {d}: " + "  ".join(row), flush=True)
        if args.divide:
            name, fen, depth = args.divide
            rs = RULESETS[name]
            tables = {}
            for s in oracles.available(rs):
                if only and s not in only:
                    continue
                tables[s] = oracles.divide(s, rs, fen, int(depth))
            moves = sorted(set().union(*[set(t) for t in tables.values()]))
            srcs = list(tables)
            print("move     " + " ".join(f"{s:>16}" for s in srcs))
            for m in moves:
                vals = [tables[s].get(m) for s in srcs]
                mark = "" if len(set(vals)) == 1 else "   <-- differs"
                print(f"{m:8} " + " ".join(f"{str(v):>16}" for v in vals) + mark)
            print("total    " + " ".join(f"{sum(tables[s].values()):>16}" for s in srcs))
    finally:
        oracles.close()
        if any(oracles.timings.values()):
            log("time per tool: " + ", ".join(
                f"{s} {t:.1f}s" for s, t in oracles.timings.items() if t))
    return rc


if __name__ == "__main__":
    sys.exit(main())

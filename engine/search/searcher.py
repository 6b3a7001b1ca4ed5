"""`Searcher`: iterative deepening, time management and stopping around the search kernels.

A Searcher owns the transposition table and move-ordering tables (preallocated NumPy
arrays) and is reused move after move.  `search()` runs in the calling thread; the kernels
release the GIL, so another thread may call `stop()` at any time (a protocol adapter's
input loop, or the Searcher's own deadline timer).

With `set_threads(n)`, n > 1, the search is a Lazy SMP one: n - 1 helper threads run their
own iterative deepening on their own copies of the stack, move and ordering arrays, sharing
only the transposition table (and so each other's results) with the calling thread, which
alone decides and reports.  Helpers start at varied depths so they do not all search the
same tree in step; they stop when the main search ends or on `stop()`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import proof as proof_kernels
from . import alphabeta as kernels
from ..tablebase import tables as tablebase
from ..jit.modes import kernels_compiled, uses_kernels
from ..rules.bitboards import CAPTURE_FLAG, MAX_MOVES, P_KEY
from ..rules.moves import Move
from .network import NETWORK

if TYPE_CHECKING:  # annotations only: the game facade imports this module, not the reverse
    from ..rules.game import Game

MAX_DEPTH = kernels.MAX_PLY - 12
_NOT_QUIET = CAPTURE_FLAG | (7 << 12)  # captures and promotions (engine.bitboards move layout)
PROOF_CAPACITY = 2_000_000  # proof-tree nodes (about 64 MB)
UNSTABLE_FROM_DEPTH = 6  # from this depth on, a new best move or ...
UNSTABLE_DROP = 40  # ... a score falling by more than this many centipawns from one depth to the next
UNSTABLE_FACTOR = 2.0  # lets the next iteration start this much later
PROOF_RATE = 1_000_000  # proof-tree nodes a second: the first estimate, before any is measured (at most 4x it counts)
PROOF_SHARE = 0.10  # share of the move's time for each of the two proof searches
# The root probe reads its tables on the clock only when the estimate is at most this share
# of it: under load (four engines on two cores) a read took 2-4x the estimate, and the
# search after it still needs its own budget.
WAIT_SHARE = 0.1
ASPIRATION_WINDOW = 25  # centipawns either side of the last iteration's score


@dataclass
class Limits:
    """What bounds a search.  Times are in seconds; None means no such bound.

    `wtime`/`btime` are the clocks, `winc`/`binc` the increments, `movestogo` the moves
    to the next time control; `movetime` a fixed time for this move; `infinite` searches
    until `stop()`.  `overhead` is kept back from every time budget for communication.
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    infinite: bool = False
    overhead: float = 0.03
    proof: bool = True  # proof-number search at the root in compulsory-capture rule sets (compiled only)
    multipv: int = 1  # report the best `multipv` root moves, each with its own score and PV
    root_moves: list[Move] | None = None  # search only these root moves (UCI searchmoves)


@dataclass
class SearchInfo:
    """One finished iteration, as protocol `info` lines report it."""

    depth: int
    seldepth: int
    score: int  # centipawns for the side to move (meaningless when `mate` is set)
    mate: int | None  # moves to mate: positive if the side to move mates, negative if it is mated
    nodes: int
    time: float
    pv: list[Move] = field(default_factory=list)
    hashfull: int = 0  # permille of the transposition table in use
    multipv: int = 1  # rank of this line among the best root moves (1 = the best)
    tbhits: int = 0  # endgame-table probes that answered (engine.tablebase)

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


@dataclass
class SearchResult:
    """The move to play (None when the game is over) and the last iteration's info."""

    best_move: Move | None
    ponder: Move | None
    info: SearchInfo | None


def unstable_iteration(previous: tuple[Move, int] | None, best_move: Move, score: int, depth: int) -> bool:
    """Whether the iteration just finished at `depth` (UNSTABLE_FROM_DEPTH or more) changed
    the best move of `previous` (the last iteration's best move and score) or dropped its
    score by more than UNSTABLE_DROP: then the next iteration may start later
    (UNSTABLE_FACTOR)."""
    if previous is None or depth < UNSTABLE_FROM_DEPTH:
        return False
    return best_move != previous[0] or score < previous[1] - UNSTABLE_DROP


class Searcher:
    """Search state that lives across moves: hash table, killers, history."""

    def __init__(self, hash_mb: int = 16):
        self._lock = threading.Lock()
        self.control = np.zeros(kernels.CONTROL_SIZE, dtype=np.int64)
        self.state = _own_cache_lines(kernels.STATE_SIZE)
        self.killers = np.zeros((kernels.MAX_PLY, 2), dtype=np.int32)
        self.history = np.zeros((2, 64, 64), dtype=np.int32)
        self.pv = np.zeros((kernels.MAX_PLY, kernels.MAX_PLY), dtype=np.int32)
        self.pv_length = np.zeros(kernels.MAX_PLY, dtype=np.int64)
        self.scores = np.zeros((0, MAX_MOVES), dtype=np.int32)
        self.excluded = np.zeros(MAX_MOVES, dtype=np.int32)
        self.helper_control = np.zeros(kernels.CONTROL_SIZE, dtype=np.int64)
        self.threads = 1
        self._helpers: list[_Helper] = []
        self._active = 0  # helpers of the running search
        self._proof_tree = None
        self._proof_rate = float(PROOF_RATE)  # proof-tree nodes a second, as measured here
        self.tablebase_path: str | None = None  # endgame tables: None the default folder, "" none
        self._table_work = np.zeros(64, dtype=np.int64)
        self._no_tables = _no_tables(self._table_work)
        self._probing = self._no_tables  # the kernels' `tables` argument for the running search
        self.network = NETWORK  # the evaluation network's weights (engine.network.no_network() for none)
        self.set_hash(hash_mb)

    def set_threads(self, threads: int) -> None:
        """Search with `threads` threads (1 to 256; 1 is the plain single-threaded search),
        from the next search on."""
        self.threads = max(1, min(256, int(threads)))

    def set_hash(self, hash_mb: int) -> None:
        """Resize the transposition table to at most `hash_mb` MiB (1 to 4096); clears it."""
        hash_mb = max(1, min(4096, int(hash_mb)))
        entries = 1 << max(10, (hash_mb * 1024 * 1024 // 16).bit_length() - 1)
        self.tt_keys = np.zeros(entries, dtype=np.uint64)
        self.tt_data = np.zeros(entries, dtype=np.int64)

    def new_game(self) -> None:
        """Forget everything learnt from earlier positions."""
        self.tt_keys[:] = 0
        self.tt_data[:] = 0
        self.killers[:] = 0
        self.history[:] = 0

    def stop(self) -> None:
        """Ask a running search to return as soon as possible (thread-safe, idempotent)."""
        self.control[kernels.CONTROL_STOP] = 1
        self.helper_control[kernels.CONTROL_STOP] = 1

    @uses_kernels
    def prove(self, game: Game, prover: str, max_nodes: int) -> tuple[int, list[tuple[Move, int, int]]]:
        """Proof-number search: can `prover` ('white'/'black') force a win from the current position?

        Returns (status, children): status is engine.proof.PROVEN, DISPROVEN or UNKNOWN; each
        child is (root move, proof number, disproof number), 0 proof meaning that move wins
        for the prover, 0 disproof that the prover cannot force a win after it.
        """
        if self._proof_tree is None:
            capacity = PROOF_CAPACITY
            self._proof_tree = (np.zeros(capacity, np.int32), np.zeros(capacity, np.int32),
                                np.zeros(capacity, np.int32), np.zeros(capacity, np.int32),
                                np.zeros(capacity, np.int64), np.zeros(capacity, np.int64))
        parent, first_child, next_sibling, move, proof, disproof = self._proof_tree
        stack, mlist, idx = game._search_arrays(proof_kernels.MAX_DEPTH + 4)
        path = np.zeros(proof_kernels.MAX_DEPTH + 2, dtype=np.int64)
        status = int(proof_kernels.proof_search(
            stack, np.int64(idx), np.int64(0), game._rules_array, mlist,
            np.int64(0 if prover == "white" else 1), np.int64(min(max_nodes, len(parent) - 1000)),
            parent, first_child, next_sibling, move, proof, disproof, path, self.state, self.control))
        game._legal = None
        children = []
        child = int(first_child[0])
        while child >= 0:
            children.append((Move(int(move[child])), int(proof[child]), int(disproof[child])))
            child = int(next_sibling[child])
        return status, children

    def hashfull(self) -> int:
        """Permille of the first thousand table slots in use."""
        sample = self.tt_keys[:1000]
        return int(np.count_nonzero(sample) * 1000 // len(sample))

    def budget(self, game: Game, limits: Limits) -> tuple[float | None, float | None]:
        """(soft, hard) time limits in seconds for this move; None when unbounded.

        A depth or node limit bounds the search by itself: the proof-number stage is skipped
        then, so `go depth N` costs what a depth-N search costs.
        """
        if limits.infinite:
            return None, None
        if limits.movetime is not None:
            hard = max(0.005, limits.movetime - limits.overhead)
            return hard, hard
        clock = limits.wtime if game.turn == "white" else limits.btime
        if clock is None:
            return None, None
        increment = limits.winc if game.turn == "white" else limits.binc
        left = max(0.0, clock - limits.overhead)
        # Losing-chess games are short (40-80 plies): plan for fewer moves than in chess.
        if limits.movestogo:
            moves = limits.movestogo
        elif game.rules.must_capture:
            # The opening decides these games: more time while the board is still full.
            pieces = game.piece_count("white") + game.piece_count("black")
            moves = 8 if pieces >= 24 else 12
        else:
            moves = 30
        target = left / max(1, moves) + 0.75 * increment
        hard = min(left * 0.4, target * 3)
        if left < 1.0:
            hard = min(hard, left / 8)  # a nearly empty clock: Python's own overheads count
        soft = min(target, hard)
        return max(0.002, soft), max(0.005, hard)

    @uses_kernels
    def search(self, game: Game, limits: Limits | None = None,
               on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """Search the current position of `game` (left unchanged) within `limits`."""
        limits = limits or Limits()
        with self._lock:
            return self._search(game, limits, on_info)

    def _search(self, game: Game, limits: Limits, on_info) -> SearchResult:
        started = time.perf_counter()
        self.control[kernels.CONTROL_STOP] = 0
        self.control[kernels.CONTROL_NODE_LIMIT] = limits.nodes or 0
        compiled = kernels_compiled()
        self.control[kernels.CONTROL_CHECK_MASK] = kernels.CHECK_INTERVAL if compiled else 0
        legal = game.legal_moves()
        if not legal:
            return SearchResult(None, None, None)
        table = self._table_result(game, limits, started, on_info)
        if table is not None:
            return table
        self._probing = self._search_tables(game, limits)
        roots = legal
        if limits.root_moves:
            wanted = {move.code for move in limits.root_moves}
            roots = [move for move in legal if move.code in wanted] or legal
        outside = [move.code for move in legal if move not in roots]  # never searched at the root
        lines = max(1, min(int(limits.multipv or 1), len(roots)))
        max_depth = min(MAX_DEPTH, limits.depth or MAX_DEPTH)
        if len(roots) == 1 and not limits.infinite and not limits.depth:
            max_depth = 1
        soft, hard = self.budget(game, limits)
        timer = None
        if hard is not None:  # the clock has run since `started` (table probe and set-up)
            timer = threading.Timer(max(0.001, hard - (time.perf_counter() - started)), self.stop)
            timer.daemon = True
            timer.start()

        stack, mlist, idx = self._alpha_beta_arrays(game)
        rules = game._rules_array
        self.state[:] = 0
        self.excluded[:] = 0
        best_move = roots[0]
        last_info = None
        result = None
        previous: tuple[Move, int] | None = None  # the last iteration's best move and score
        helpers: list[threading.Thread] = []
        try:
            bounded = limits.depth is not None or limits.nodes is not None
            if (limits.proof and compiled and not bounded and game.rules.must_capture and len(legal) > 1
                    and lines == 1 and not outside and (soft or limits.infinite)):
                budget = int(self._proof_rate * PROOF_SHARE * soft) if soft else 1_000_000
                proven = self._proof_stage(game, legal, budget, started)
                if proven is not None:
                    if on_info is not None:
                        on_info(proven.info)
                    result = proven
            base = [int(code) for code in self.excluded if code] + outside
            if result is None and self.threads > 1 and max_depth > 1:
                helpers = self._start_helpers(stack, mlist, idx, rules, base, max_depth)
            order = [move.code for move in roots if move.code not in base]
            line_history: list[list[tuple[int, list[int]]]] = []  # MultiPV lines of each depth
            for depth in range(1, max_depth + 1) if result is None else ():
                infos: list[SearchInfo] = []
                stopped = False
                if lines > 1:
                    ranked = self._lines_iteration(stack, idx, depth, rules, mlist, order, lines, line_history)
                    stopped = ranked is None
                    if not stopped:
                        elapsed = time.perf_counter() - started
                        infos = [self._line_info(depth, score, pv, elapsed) for score, pv in ranked]
                        for info in infos:
                            info.pv = self._complete_pv(stack, idx, rules, mlist, info.pv, depth)
                else:
                    if outside:
                        self._exclude(base)
                    self.state[kernels.STATE_SELDEPTH] = 0
                    self.state[kernels.STATE_STOPPED] = 0
                    score, found = self._iteration(stack, idx, depth, rules, mlist, last_info)
                    if self.state[kernels.STATE_STOPPED]:
                        stopped = True
                        if found and self.state[kernels.STATE_ROOT_DONE] >= 1 and depth > 1:
                            best_move = Move(found)
                    elif found:  # else every root move is excluded
                        info = self._info(depth, score, time.perf_counter() - started)
                        if not info.pv or info.pv[0].code != found:
                            info.pv = [Move(found)]
                        info.pv = self._complete_pv(stack, idx, rules, mlist, info.pv, depth)
                        infos.append(info)
                if infos and (lines == 1 or not stopped):
                    infos.sort(key=lambda info: -info.score)  # stable: ties keep the search order
                    for rank, info in enumerate(infos, 1):
                        info.multipv = rank
                    best_move = infos[0].pv[0]
                if stopped or not infos:
                    break
                last_info = infos[0]
                if on_info is not None:
                    for info in infos:
                        on_info(info)
                score = last_info.score
                unstable = unstable_iteration(previous, best_move, score, depth)
                previous = (best_move, score)
                elapsed = time.perf_counter() - started
                if abs(score) > kernels.MATE_BOUND and not limits.infinite and depth >= 2 * (kernels.MATE - abs(score)) + 2:
                    break
                if soft is not None and elapsed > 0.6 * soft * (UNSTABLE_FACTOR if unstable else 1.0):
                    break
                if limits.nodes and self.state[kernels.STATE_NODES] >= limits.nodes:
                    break
            if limits.infinite:
                while not self.control[kernels.CONTROL_STOP]:
                    time.sleep(0.005)  # "go infinite" must wait for stop before answering
        finally:
            if timer is not None:
                timer.cancel()
            if helpers:
                self.helper_control[kernels.CONTROL_STOP] = 1
                for helper in helpers:
                    helper.join()
                self._active = 0
        game._legal = None  # the kernels reused the move buffer of the current row
        if result is not None:
            return result
        ponder = last_info.pv[1] if last_info and len(last_info.pv) > 1 and last_info.pv[0] == best_move else None
        return SearchResult(best_move, ponder, last_info)

    def _start_helpers(self, stack, mlist, idx, rules, excluded: list[int], max_depth: int) -> list[threading.Thread]:
        """Start the Lazy SMP helper threads on copies of the search arrays."""
        self.helper_control[:] = 0
        self.helper_control[kernels.CONTROL_CHECK_MASK] = self.control[kernels.CONTROL_CHECK_MASK]
        while len(self._helpers) < self.threads - 1:
            self._helpers.append(_Helper())
        threads = []
        self._active = self.threads - 1
        for number, helper in enumerate(self._helpers[:self._active], 1):
            helper.prepare(stack, mlist, self.history, excluded, self._probing)
            thread = threading.Thread(target=helper.run, name=f"search-helper-{number}", daemon=True,
                                      args=(self, idx, rules, 1 + number % 2, max_depth))
            thread.start()
            threads.append(thread)
        return threads

    def _tbhits(self) -> int:
        """Endgame-table probes that answered in the running search, helpers included."""
        hits = int(self.state[kernels.STATE_TBHITS])
        if self._active:
            hits += sum(int(helper.state[kernels.STATE_TBHITS]) for helper in self._helpers[:self._active])
        return hits

    def _search_tables(self, game: Game, limits: Limits):
        """The kernels' `tables` argument: the endgame tables reachable from the position
        that are in memory (more are read in the background for later moves), or none for a
        depth- or node-bounded search (a fixed workload) or without tables."""
        if self.tablebase_path == "" or limits.depth is not None or limits.nodes is not None:
            return self._no_tables
        tb = tablebase.open_tablebase(game.variant, self.tablebase_path)
        if tb is None:
            return self._no_tables
        limit, tdesc, keymap, buf = tb.search_tables(game._row())
        if not limit[0]:
            return self._no_tables
        return limit, tdesc, keymap, tablebase.GEO, buf, self._table_work

    def _nodes(self) -> int:
        """Nodes searched by the main thread and the helpers of the running search."""
        nodes = int(self.state[kernels.STATE_NODES])
        if self._active:
            nodes += sum(int(helper.state[kernels.STATE_NODES]) for helper in self._helpers[:self._active])
        return nodes

    def _exclude(self, codes: list[int]) -> None:
        """The root moves the next iteration must not search (the kernel reads `excluded`)."""
        self.excluded[:] = 0
        self.excluded[:len(codes)] = codes

    def _alpha_beta_arrays(self, game: Game):
        """(stack, mlist, idx) for an alpha-beta search of `game`, with `self.scores` grown to
        as many rows as the stack (the kernels index it by row, without bounds checks)."""
        stack, mlist, idx = game._search_arrays(kernels.MAX_PLY + 4)
        if self.scores.shape[0] < stack.shape[0]:
            self.scores = np.zeros((stack.shape[0], MAX_MOVES), dtype=np.int32)
        return stack, mlist, idx

    def _iteration(self, stack, idx, depth, rules, mlist, last_info) -> tuple[int, int]:
        """One depth, in an aspiration window around the last score, widened until it holds.

        Returns (score, best root move code or 0).  After a fail-low no root move is known
        to be best, so the move of the previous iteration stands unless a wider search finds one.
        """
        window = ASPIRATION_WINDOW
        alpha, beta = -kernels.INFINITY, kernels.INFINITY
        if last_info is not None and depth >= 5 and abs(last_info.score) < kernels.MATE_BOUND:
            alpha, beta = last_info.score - window, last_info.score + window
        found = 0
        while True:
            self.state[kernels.STATE_BEST_MOVE] = 0
            score = int(kernels.search_root(
                stack, np.int64(idx), np.int64(depth), np.int64(alpha), np.int64(beta), rules, mlist,
                self.scores, self.tt_keys, self.tt_data, self.killers, self.history, self.pv,
                self.pv_length, self.state, self.control, self.excluded, self._probing, self.network))
            move = int(self.state[kernels.STATE_BEST_MOVE])
            if move:
                found = move
            if self.state[kernels.STATE_STOPPED]:
                return score, found
            if score <= alpha and alpha > -kernels.INFINITY:
                alpha = max(-kernels.INFINITY, alpha - window)
            elif score >= beta and beta < kernels.INFINITY:
                beta = min(kernels.INFINITY, beta + window)
            else:
                return score, found
            window *= 3

    def _lines_iteration(self, stack, idx, depth, rules, mlist, order: list[int], lines: int,
                         history: list[list[tuple[int, list[int]]]]) -> list[tuple[int, list[int]]] | None:
        """One MultiPV depth in a single pass over the root moves: the best `lines` moves get
        exact scores and PVs, every other move is only shown to score no more than the
        `lines`-th best (a null-window search at that score, re-searched when it fails high).
        A move that was a line two depths before, scoring above the bound then, skips the
        null-window test: its exact search starts around that score (the best line of the last
        depth: around its score there, which is stable across depths where the others swing).

        From depth 5 a floor (the lower `lines`-th score of the last two depths, less a
        margin) bounds the pass: a move scoring at or below it is not searched exactly; when
        fewer than `lines` moves beat it, the pass is repeated with the floor lowered (moves
        already shown to score below the new floor are not searched again).  `history` holds
        each finished depth's lines and gets this one's.  `order` (root move codes, best
        first) is reordered for the next depth: the lines in rank order, then the other moves
        by their bounds.  Returns the lines as (score, PV codes) best first, or None when the
        search was stopped.
        """
        child = np.int64(idx + 1)
        ply = np.int64(1)
        inner = np.int64(depth - 1)
        window = ASPIRATION_WINDOW

        def search(alpha: int, beta: int, reduction: int = 0) -> int:
            return -int(kernels.negamax(
                stack, child, np.int64(inner - reduction), np.int64(-beta), np.int64(-alpha), ply, rules, mlist, self.scores,
                self.tt_keys, self.tt_data, self.killers, self.history, self.pv, self.pv_length,
                self.state, self.control, self.excluded, self._probing, self.network))

        self.state[kernels.STATE_SELDEPTH] = 0
        self.state[kernels.STATE_STOPPED] = 0
        # Losing-chess scores swing between odd and even depths: the aspiration bounds come
        # from the last two depths (the floor from the lower of their `lines`-th scores).
        recent = [top for top in history[-2:] if len(top) == min(lines, len(order))]
        floor = -kernels.INFINITY
        if depth >= 5 and len(recent) == 2 and all(abs(top[-1][0]) < kernels.MATE_BOUND for top in recent):
            floor = min(top[-1][0] for top in recent) - window
        previous = {pv[0]: score for score, pv in (history[-2] if len(history) >= 2 else [])}
        if history and history[-1]:
            previous[history[-1][0][1][0]] = history[-1][0][0]
        upper: dict[int, int] = {}  # fail-soft upper bounds of moves that did not beat the floor
        while True:
            top: list[tuple[int, list[int]]] = []
            bounds: dict[int, int] = {}
            for number, code in enumerate(order):
                bound = floor if len(top) < lines else max(floor, top[-1][0])
                if upper.get(code, kernels.INFINITY) <= bound:
                    bounds[code] = upper[code]  # shown not to beat a higher floor on the last pass
                    continue
                kernels.make_move(stack, np.int64(idx), child, np.int32(code), rules)
                value = bound + 1
                if len(top) >= lines and depth >= 3 and number >= lines + 2 and not code & _NOT_QUIET:
                    value = search(bound, bound + 1, 1 if number < lines + 8 else 2)  # a late quiet move
                guess = previous.get(code)
                if guess is not None and guess <= bound:
                    guess = None
                if value > bound and guess is None and (len(top) >= lines or bound == floor > -kernels.INFINITY):
                    value = guess = search(bound, bound + 1)  # a move that was not a line: test it first
                if value > bound and not self.state[kernels.STATE_STOPPED]:
                    value = self._exact(search, bound, guess)
                if self.state[kernels.STATE_STOPPED]:
                    return None
                bounds[code] = value
                if value <= bound:
                    upper[code] = value
                else:
                    pv = [code] + [int(c) for c in self.pv[1, 1:int(self.pv_length[1])] if c]
                    top.append((value, pv))
                    top.sort(key=lambda line: -line[0])  # stable: ties keep the search order
                    del top[lines:]
            ranked = [pv[0] for _, pv in top]
            rest = sorted((code for code in order if code not in ranked), key=lambda code: -bounds[code])
            order[:] = ranked + rest
            if len(top) == min(lines, len(order)) or floor <= -kernels.INFINITY:
                history.append(top)
                return top
            floor = max(-kernels.INFINITY, floor - window)  # too few moves beat the floor: lower it
            window *= 3

    def _exact(self, search, bound: int, guess: int | None) -> int:
        """The exact score of a root move known or expected to beat `bound` (else a value <=
        bound): an aspiration window around `guess` (its score as a line two depths before,
        the last depth's score for the last best line, or its null-window test's fail-soft
        value; None: the window is open above `bound`), widened until it holds: after a
        fail-high the window starts at the old upper end."""
        window = ASPIRATION_WINDOW
        low, high = bound, kernels.INFINITY
        if guess is not None and abs(guess) < kernels.MATE_BOUND:
            low, high = max(bound, guess - window), guess + window
        while True:
            value = search(low, high)
            if self.state[kernels.STATE_STOPPED]:
                return value
            if value <= low and low > bound:
                low = max(bound, value - 2 * window)
            elif value >= high and high < kernels.INFINITY:
                low = max(low, high - 1)
                high = min(kernels.INFINITY, value + 2 * window)
            else:
                return value
            window *= 3

    def _complete_pv(self, stack, idx, rules, mlist, pv: list[Move], depth: int) -> list[Move]:
        """`pv` lengthened to `depth` moves where the search's PV stopped early (a table hit
        below the root ends it): the moves stored in the transposition table, each checked
        legal, up to a repetition or a missing entry.  Uses the search rows past `idx`."""
        if len(pv) >= depth:
            return pv
        row, seen = idx, {int(stack[idx, P_KEY])}
        for move in pv:
            kernels.make_move(stack, np.int64(row), np.int64(row + 1), np.int32(move.code), rules)
            row += 1
            seen.add(int(stack[row, P_KEY]))
        pv = list(pv)
        while len(pv) < depth and row < idx + kernels.MAX_PLY - 2:
            entry = int(kernels._tt_probe(self.tt_keys, self.tt_data, stack[row, P_KEY]))
            code = entry & 0xFFFFF if entry >= 0 else 0
            if not code:
                break
            count = int(kernels.legal_moves(stack, np.int64(row), rules, mlist))
            if code not in mlist[row, :count]:
                break
            kernels.make_move(stack, np.int64(row), np.int64(row + 1), np.int32(code), rules)
            row += 1
            key = int(stack[row, P_KEY])
            pv.append(Move(code))
            if key in seen:
                break
            seen.add(key)
        return pv

    def _line_info(self, depth: int, score: int, pv: list[int], elapsed: float) -> SearchInfo:
        """The info of one MultiPV line."""
        info = self._info(depth, score, elapsed)
        info.pv = [Move(code) for code in pv]
        return info

    def _table_result(self, game: Game, limits: Limits, started: float, on_info) -> SearchResult | None:
        """The endgame tables' best move when they hold the position (a quickest win, a
        draw kept, a longest loss), reported as a one-line info with tbhits; else None."""
        if self.tablebase_path == "" or limits.root_moves or (limits.multipv or 1) > 1:
            return None
        if limits.depth is not None or limits.nodes is not None:
            return None  # a fixed workload (go depth/nodes, bench), as for the proof stage
        if game.piece_count("white") + game.piece_count("black") > 4:
            return None
        tb = tablebase.open_tablebase(game.variant, self.tablebase_path)
        if tb is None:
            return None
        try:
            wait = self._can_wait_for_tables(tb, game, limits)
            probe = tb.probe(game, wait=wait)
        except tablebase.TablebaseError:
            return None
        if not probe.moves:
            return None
        legal = {m.uci(): m for m in game.legal_moves()}
        move = self._fifty_move_choice(tb, game, probe, legal, wait) or legal[probe.moves[0]]
        plies = abs(probe.codes[probe.moves.index(move.uci())]) - 1 if probe.value != "draw" else 0
        mate = None if probe.value == "draw" else (1 if probe.value == "win" else -1) * ((plies + 1) // 2)
        score = 0 if mate is None else (kernels.MATE - plies if mate > 0 else -kernels.MATE + plies)
        info = SearchInfo(depth=1, seldepth=1, score=score, mate=mate, nodes=0,
                          time=time.perf_counter() - started, pv=[move], hashfull=self.hashfull(), tbhits=1)
        if on_info is not None:
            on_info(info)
        if limits.infinite:
            while not self.control[kernels.CONTROL_STOP]:
                time.sleep(0.005)  # "go infinite" must wait for stop before answering
        return SearchResult(move, None, info)

    @staticmethod
    def _fifty_move_choice(tb, game: Game, probe, legal: dict, wait: bool) -> Move | None:
        """The move the fifty-move rule asks for instead of the tables' first (None: that one).

        The DTM tables ignore the rule.  A win whose distance fits in what is left of the
        clock is played by DTM (it ends the game in time, and stays within the clock all the
        way).  A longer one follows the DTZ companion: among the winning moves, those that
        keep a win the rule allows come first (a capture or pawn move into such a win, or a
        move whose next capture or pawn move comes in time), then the fewest plies to the
        next capture or pawn move, then the quickest win.  Without a companion, the quickest
        winning move that resets the clock comes first (there are finitely many: each takes
        a piece or moves a pawn).  A lost position prefers, longest loss first, the moves
        after which the rule saves it: into a loss the companion marks saved, or with the
        opponent's next capture or pawn move beyond the clock."""
        if not game.rules.draw_rules or probe.value == "draw":
            return None
        clock = game.halfmove_clock
        limit = tablebase.FIFTY_MOVE_PLIES
        if probe.distance + clock <= limit - 2:
            return None  # the game ends before the rule could draw it
        moves = [legal[text] for text in probe.moves]  # a win: quickest first; a loss: longest first
        outcomes = tb.zeroing_plies(game, moves, wait)
        if probe.value == "win":
            if outcomes is None:
                return next((move for move in moves if _resets_clock(game, move)), None)

            def rank(i):
                drawn, plies = outcomes[moves[i].uci()]
                return (drawn or (plies > 1 and clock + plies > limit), plies, probe.codes[i])

            return moves[min(range(len(moves)), key=rank)]
        if outcomes is None:
            return None
        return next((move for move in moves if outcomes[move.uci()][0]
                     or (outcomes[move.uci()][1] > 1 and clock + outcomes[move.uci()][1] > limit)), None)

    def _can_wait_for_tables(self, tb, game: Game, limits: Limits) -> bool:
        """Whether the root probe may read its tables from disk now: in analysis, or when
        reading them takes at most WAIT_SHARE of the clock (every later move of the ending is then
        answered at once); otherwise the background thread reads them and this move is searched."""
        if limits.infinite:
            return True
        clock = limits.movetime if limits.movetime is not None else (
            limits.wtime if game.turn == "white" else limits.btime)
        return clock is not None and tb.unread_seconds(game._row()) <= WAIT_SHARE * max(0.0, clock - limits.overhead)

    def _proof_stage(self, game: Game, legal: list[Move], budget: int, started: float) -> SearchResult | None:
        """Prove a win (returned as the result), else exclude root moves proven to lose."""
        us = game.turn
        them = "black" if us == "white" else "white"
        status, children = self._timed_prove(game, us, budget)
        if status == proof_kernels.PROVEN:
            winning = next(move for move, proof, _ in children if proof == 0)
            info = SearchInfo(depth=1, seldepth=1, score=kernels.MATE_BOUND - 1, mate=None,
                              nodes=int(self.state[kernels.STATE_NODES]),
                              time=time.perf_counter() - started, pv=[winning], hashfull=self.hashfull())
            return SearchResult(winning, None, info)
        if self.control[kernels.CONTROL_STOP]:
            return None
        status, children = self._timed_prove(game, them, budget)
        losing = [move for move, proof, _ in children if proof == 0]
        if len(losing) < len(legal):
            for i, move in enumerate(losing):
                self.excluded[i] = move.code
        return None

    def _timed_prove(self, game: Game, prover: str, budget: int):
        """`prove`, keeping a running measure of the proof-tree nodes this machine searches
        a second under its present load, which sizes the next proof stage's node budget."""
        before = int(self.state[kernels.STATE_NODES])
        started = time.perf_counter()
        result = self.prove(game, prover, budget)
        elapsed = time.perf_counter() - started
        used = int(self.state[kernels.STATE_NODES]) - before
        if used >= 5000 and elapsed > 0.002:
            self._proof_rate = 0.5 * self._proof_rate + 0.5 * min(4.0 * PROOF_RATE, used / elapsed)
        return result

    def _info(self, depth: int, score: int, elapsed: float) -> SearchInfo:
        mate = None
        if score > kernels.MATE_BOUND:
            mate = (kernels.MATE - score + 1) // 2
        elif score < -kernels.MATE_BOUND:
            mate = -((kernels.MATE + score) // 2)
        length = int(self.pv_length[0])
        pv = [Move(int(code)) for code in self.pv[0, :length] if code]
        return SearchInfo(depth=depth, seldepth=int(self.state[kernels.STATE_SELDEPTH]), score=score,
                          mate=mate, nodes=self._nodes(), time=elapsed, pv=pv, hashfull=self.hashfull(),
                          tbhits=self._tbhits())


def _resets_clock(game: Game, move: Move) -> bool:
    """True when `move` resets the halfmove clock or forces the reply to: a capture, a
    pawn move, or a move after which every reply captures (compulsory capture)."""
    if tablebase.zeroing_move(game, move):
        return True
    game.push(move)
    try:
        replies = game.legal_moves()
        return bool(replies) and all(reply.is_capture for reply in replies)
    finally:
        game.pop()


def _no_tables(work: np.ndarray):
    """The kernels' `tables` argument that probes nothing (same types as a real one)."""
    return (np.zeros(1, dtype=np.int64), np.zeros((1, 8), dtype=np.int64), np.full(1, -1, dtype=np.int64),
            tablebase.GEO, np.zeros(1, dtype=np.int16), work)


def _own_cache_lines(size: int) -> np.ndarray:
    """A zeroed int64[size] on cache lines of its own: a search thread counts its nodes in
    it at every node, and a neighbour's writes to the same line would stall both threads."""
    line = 64 // 8
    buffer = np.zeros(size + 3 * line, dtype=np.int64)
    start = line + (-(buffer.ctypes.data // 8) % line)
    return buffer[start:start + size]


class _Helper:
    """One Lazy SMP helper: its own copies of everything a search writes except the
    transposition table, reused from search to search."""

    def __init__(self):
        self.state = _own_cache_lines(kernels.STATE_SIZE)
        self.killers = np.zeros((kernels.MAX_PLY, 2), dtype=np.int32)
        self.pv = np.zeros((kernels.MAX_PLY, kernels.MAX_PLY), dtype=np.int32)
        self.pv_length = np.zeros(kernels.MAX_PLY, dtype=np.int64)
        self.excluded = np.zeros(MAX_MOVES, dtype=np.int32)
        self.scores = np.zeros((0, MAX_MOVES), dtype=np.int32)
        self.table_work = np.zeros(64, dtype=np.int64)

    def prepare(self, stack, mlist, history, excluded: list[int], tables) -> None:
        """Copy the position (with its history rows) and the main thread's move history;
        probe the main thread's endgame tables (with scratch space of its own)."""
        self.tables = tables[:5] + (self.table_work,)
        self.stack = stack.copy()
        self.mlist = mlist.copy()
        self.history = history.copy()
        if self.scores.shape[0] < stack.shape[0]:
            self.scores = np.zeros((stack.shape[0], MAX_MOVES), dtype=np.int32)
        self.state[:] = 0
        self.killers[:] = 0
        self.excluded[:] = 0
        self.excluded[:len(excluded)] = excluded

    def run(self, searcher: Searcher, idx: int, rules, first_depth: int, max_depth: int) -> None:
        """Iterative deepening from `first_depth` until the main search ends or is stopped.
        (Keeping helpers a ply or two ahead of the main thread's depth instead was tried:
        the main thread then needed more nodes to reach a depth, not fewer.)"""
        control = searcher.helper_control
        depth = first_depth
        while depth <= max_depth and not control[kernels.CONTROL_STOP]:
            self.state[kernels.STATE_STOPPED] = 0
            kernels.search_root(
                self.stack, np.int64(idx), np.int64(depth), np.int64(-kernels.INFINITY),
                np.int64(kernels.INFINITY), rules, self.mlist, self.scores, searcher.tt_keys, searcher.tt_data,
                self.killers, self.history, self.pv, self.pv_length, self.state, control, self.excluded,
                self.tables, searcher.network)
            depth += 1

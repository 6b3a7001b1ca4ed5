"""`Searcher`: iterative deepening around the search kernels, and the state that lives
from move to move (the transposition table, move-ordering tables, helper threads).

A Searcher is reused move after move.  `search()` runs in the calling thread; the kernels
release the GIL, so another thread may call `stop()` at any time (a protocol adapter's
input loop, or the Searcher's own deadline timer).  One search is:

1. the endgame tables' move, when they hold the position (engine.search.roottables);
2. in compulsory-capture rule sets on a clock, a proof-number search for a forced win,
   then for the root moves that lose by force, which are left out (engine.search.proof);
3. iterative deepening, one `search_root` call per depth in an aspiration window
   (engine.search.alphabeta), or one MultiPV pass per depth (engine.search.multipv),
   with Lazy SMP helpers when `set_threads(n)`, n > 1 (engine.search.threads), until the
   time budget (engine.search.timing), a depth or node limit, or a stop.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from ..jit.modes import kernels_compiled, uses_kernels
from ..rules.bitboards import P_KEY
from ..rules.movegen import legal_moves, make_move
from ..rules.moves import Move
from ..rules.rulesets import R_LEARNED_EVALUATION
from . import proof as proof_kernels
from . import tt
from .alphabeta import search_root
from .limits import Limits, SearchInfo, SearchResult
from .multipv import ASPIRATION_WINDOW, lines_iteration
from .network import network_for
from .roottables import RootTables
from .scores import INFINITY, MATE, MATE_BOUND, mate_in_plies, mate_moves
from .state import (
    CHECK_INTERVAL, CONTROL_CHECK_MASK, CONTROL_NODE_LIMIT, CONTROL_SIZE, CONTROL_STOP, MAX_PLY,
    STATE_BEST_MOVE, STATE_NODES, STATE_ROOT_DONE, STATE_SELDEPTH, STATE_STOPPED, STATE_TBHITS, SearchArrays,
    ThreadArrays,
)
from .threads import Helpers
from .timing import SOFT_SHARE, UNSTABLE_FACTOR, budget, unstable_iteration

MAX_DEPTH = MAX_PLY - 12
SEARCH_ROWS = MAX_PLY + 4  # stack rows past the root an alpha-beta search may write
PROOF_CAPACITY = 2_000_000  # proof-tree nodes (about 64 MB)
PROOF_RATE = 1_000_000  # proof-tree nodes a second: the first estimate, before any is measured (at most 4x it counts)
PROOF_SHARE = 0.10  # share of the move's time for each of the two proof searches


class Searcher:
    """Search state that lives across moves: hash table, killers, history, helpers."""

    def __init__(self, hash_mb: int = 16):
        self._lock = threading.Lock()
        self.control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        self.arrays = ThreadArrays()
        self.helpers = Helpers()
        self.threads = 1
        self._proof_tree = None
        self.proof_rate = float(PROOF_RATE)  # proof-tree nodes a second, as measured here (read-only)
        self.root_tables = RootTables()
        self._probing = self.root_tables.none  # the kernels' ProbeTables for the running search
        # The evaluation network's weights: None for each rule set's own (network_for), or one
        # array for every search (engine.search.network.no_network() for none).
        self.network: np.ndarray | None = None
        self.set_hash(hash_mb)

    # -- settings ----------------------------------------------------------------------

    @property
    def tablebase_path(self) -> str | None:
        """The endgame-table folder: None the default folder, "" no tables."""
        return self.root_tables.path

    @tablebase_path.setter
    def tablebase_path(self, path: str | None) -> None:
        self.root_tables.path = path

    def set_threads(self, threads: int) -> None:
        """Search with `threads` threads (1 to 256; 1 is the plain single-threaded search),
        from the next search on."""
        self.threads = max(1, min(256, int(threads)))

    def set_hash(self, hash_mb: int) -> None:
        """Resize the transposition table to at most `hash_mb` MiB (1 to 4096); clears it."""
        self.tt = tt.new_table(max(1, min(4096, int(hash_mb))))

    def new_game(self) -> None:
        """Forget everything learnt from earlier positions."""
        tt.clear(self.tt)
        self.arrays.killers[:] = 0
        self.arrays.history[:] = 0
        self.arrays.correction[:] = 0

    def stop(self) -> None:
        """Ask a running search to return as soon as possible (thread-safe, idempotent)."""
        self.control[CONTROL_STOP] = 1
        self.helpers.stop()

    # -- what the last search counted ----------------------------------------------------

    @property
    def state(self) -> np.ndarray:
        """The main thread's counters (engine.search.state STATE_*), for tests and tools."""
        return self.arrays.state

    @property
    def nodes(self) -> int:
        """Nodes searched by the main thread and the helpers of the running or last search."""
        return int(self.arrays.state[STATE_NODES]) + self.helpers.total(STATE_NODES)

    @property
    def tbhits(self) -> int:
        """Endgame-table probes that answered in the running search, helpers included."""
        return int(self.arrays.state[STATE_TBHITS]) + self.helpers.total(STATE_TBHITS)

    def hashfull(self) -> int:
        """Permille of the first thousand table slots in use."""
        return tt.hashfull(self.tt)

    def network_of(self, rules: np.ndarray) -> np.ndarray:
        """The network the kernels get for the rule array `rules`: `self.network`, or the
        rule set's own when that is None."""
        if self.network is not None:
            return self.network
        return network_for(int(rules[R_LEARNED_EVALUATION]))

    def kernel_arrays(self, rows: int, rules: np.ndarray) -> SearchArrays:
        """The main thread's SearchArrays, with move-ordering rows for a stack of `rows`
        rows, probing no tables, with the network of the rule array `rules`: for code that
        calls the alpha-beta kernels directly."""
        self.arrays.fit(rows)
        return self.arrays.bundle(self.tt, self.control, self.root_tables.none, self.network_of(rules))

    # -- proof-number search -------------------------------------------------------------

    @uses_kernels
    def prove(self, game, prover: str, max_nodes: int) -> tuple[int, list[tuple[Move, int, int]]]:
        """Proof-number search: can `prover` ('white'/'black') force a win from the current position?

        Returns (status, children): status is engine.search.proof.PROVEN, DISPROVEN or
        UNKNOWN; each child is (root move, proof number, disproof number), 0 proof meaning
        that move wins for the prover, 0 disproof that the prover cannot force a win after it.
        """
        with game.kernel_rows(proof_kernels.MAX_DEPTH + 4) as rows:
            return self.prove_rows(rows, prover, max_nodes)

    def prove_rows(self, rows, prover: str, max_nodes: int) -> tuple[int, list[tuple[Move, int, int]]]:
        """`prove` on rows a game lends (Game.kernel_rows, with at least
        engine.search.proof.MAX_DEPTH + 4 rows ahead): the search's proof stage uses it."""
        stack, mlist, idx, rules = rows
        if self._proof_tree is None:
            self._proof_tree = proof_kernels.new_proof_tree(PROOF_CAPACITY)
        tree = self._proof_tree
        path = np.zeros(proof_kernels.MAX_DEPTH + 2, dtype=np.int64)
        status = int(proof_kernels.proof_search(
            stack, np.int64(idx), np.int64(0), rules, mlist,
            np.int64(0 if prover == "white" else 1), np.int64(min(max_nodes, len(tree.parent) - 1000)),
            tree, path, self.arrays.state, self.control))
        children = []
        child = int(tree.first_child[0])
        while child >= 0:
            children.append((Move(int(tree.move[child])), int(tree.proof[child]), int(tree.disproof[child])))
            child = int(tree.next_sibling[child])
        return status, children

    # -- search --------------------------------------------------------------------------

    def budget(self, game, limits: Limits) -> tuple[float | None, float | None]:
        """(soft, hard) time limits in seconds for this move (engine.search.timing.budget)."""
        return budget(game, limits)

    @uses_kernels
    def search(self, game, limits: Limits | None = None,
               on_info: Callable[[SearchInfo], None] | None = None, **limit_fields) -> SearchResult:
        """Search the current position of `game` (left unchanged) within `limits`, or give
        the fields of Limits as keywords (depth=, nodes=, movetime=, wtime=, ...).
        `on_info` receives a SearchInfo per finished iteration."""
        if limits is None:
            limits = Limits(**limit_fields)
        elif limit_fields:
            raise TypeError("give either limits or its fields as keywords, not both")
        with self._lock:
            return self._search(game, limits, on_info)

    def _search(self, game, limits: Limits, on_info) -> SearchResult:
        started = time.perf_counter()
        self.control[CONTROL_STOP] = 0
        self.control[CONTROL_NODE_LIMIT] = limits.nodes or 0
        compiled = kernels_compiled()
        self.control[CONTROL_CHECK_MASK] = CHECK_INTERVAL if compiled else 0
        legal = game.legal_moves()
        if not legal:
            return SearchResult(None, None, None)
        table = self.root_tables.result(game, limits, started, self.hashfull())
        if table is not None:
            return self._answer(table, limits, on_info)
        self._probing = self.root_tables.probing(game, limits)
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
        bounded = limits.depth is not None or limits.nodes is not None
        proof_stage = (limits.proof and compiled and not bounded and game.rules.must_capture and len(legal) > 1
                       and lines == 1 and not outside and (soft or limits.infinite))
        us = game.turn
        timer = None
        if hard is not None:  # the clock has run since `started` (table probe and set-up)
            timer = threading.Timer(max(0.001, hard - (time.perf_counter() - started)), self.stop)
            timer.daemon = True
            timer.start()
        try:
            with game.kernel_rows(SEARCH_ROWS) as rows:
                return self._deepen(rows, limits, on_info, started, legal, roots, outside, lines, max_depth,
                                    soft, proof_stage, us)
        finally:
            if timer is not None:
                timer.cancel()

    def _deepen(self, rows, limits: Limits, on_info, started: float, legal: list[Move], roots: list[Move],
                outside: list[int], lines: int, max_depth: int, soft: float | None, proof_stage: bool,
                us: str) -> SearchResult:
        """The proof stage and the iterative deepening, on the game's rows."""
        stack, mlist, idx, rules = rows
        self.arrays.fit(stack.shape[0])
        network = self.network_of(rules)
        arrays = self.arrays.bundle(self.tt, self.control, self._probing, network)
        state = self.arrays.state
        state[:] = 0
        self.arrays.excluded[:] = 0
        best_move = roots[0]
        last_info = None
        previous: tuple[Move, int] | None = None  # the last iteration's best move and score
        try:
            if proof_stage:
                node_budget = int(self.proof_rate * PROOF_SHARE * soft) if soft else 1_000_000
                proven = self._proof_stage(rows, us, legal, node_budget, started)
                if proven is not None:
                    return self._answer(proven, limits, on_info)
            base = [int(code) for code in self.arrays.excluded if code] + outside
            if self.threads > 1 and max_depth > 1:
                self.helpers.start(self.threads - 1, int(self.control[CONTROL_CHECK_MASK]), self.tt, network,
                                   stack, mlist, self.arrays.history, idx, rules, base, self._probing, max_depth)
            order = [move.code for move in roots if move.code not in base]
            line_history: list[list[tuple[int, list[int]]]] = []  # MultiPV lines of each depth
            for depth in range(1, max_depth + 1):
                infos: list[SearchInfo] = []
                stopped = False
                if lines > 1:
                    ranked = lines_iteration(arrays, stack, idx, depth, rules, mlist, order, lines, line_history)
                    stopped = ranked is None
                    if not stopped:
                        elapsed = time.perf_counter() - started
                        infos = [self._line_info(depth, score, pv, elapsed) for score, pv in ranked]
                        for info in infos:
                            info.pv = self._complete_pv(stack, idx, rules, mlist, info.pv, depth)
                else:
                    if outside:
                        self.arrays.exclude(base)
                    state[STATE_SELDEPTH] = 0
                    state[STATE_STOPPED] = 0
                    score, found = self._iteration(arrays, stack, idx, depth, rules, mlist, last_info)
                    if state[STATE_STOPPED]:
                        stopped = True
                        if found and state[STATE_ROOT_DONE] >= 1 and depth > 1:
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
                if abs(score) > MATE_BOUND and not limits.infinite and depth >= 2 * (MATE - abs(score)) + 2:
                    break
                if (soft is not None and limits.movetime is None
                        and elapsed > SOFT_SHARE * soft * (UNSTABLE_FACTOR if unstable else 1.0)):
                    break  # a clock's soft limit; `movetime` searches for all of its time
                if limits.nodes and state[STATE_NODES] >= limits.nodes:
                    break
            if limits.infinite:
                self._wait_for_stop()
        finally:
            self.helpers.join()
        ponder = last_info.pv[1] if last_info and len(last_info.pv) > 1 and last_info.pv[0] == best_move else None
        return SearchResult(best_move, ponder, last_info)

    def _answer(self, result: SearchResult, limits: Limits, on_info) -> SearchResult:
        """A result known without deepening (the tables' move, a proven win): reported as
        its one info line, held until a stop under `go infinite`."""
        if on_info is not None:
            on_info(result.info)
        if limits.infinite:
            self._wait_for_stop()
        return result

    def _wait_for_stop(self) -> None:
        """`go infinite` answers only after a stop."""
        while not self.control[CONTROL_STOP]:
            time.sleep(0.005)

    def _iteration(self, arrays: SearchArrays, stack, idx, depth, rules, mlist, last_info) -> tuple[int, int]:
        """One depth, in an aspiration window around the last score, widened until it holds.

        Returns (score, best root move code or 0).  After a fail-low no root move is known
        to be best, so the move of the previous iteration stands unless a wider search finds one.
        """
        state = arrays.state
        window = ASPIRATION_WINDOW
        alpha, beta = -INFINITY, INFINITY
        if last_info is not None and depth >= 5 and abs(last_info.score) < MATE_BOUND:
            alpha, beta = last_info.score - window, last_info.score + window
        found = 0
        while True:
            state[STATE_BEST_MOVE] = 0
            score = int(search_root(stack, np.int64(idx), np.int64(depth), np.int64(alpha), np.int64(beta), rules,
                                    mlist, arrays))
            move = int(state[STATE_BEST_MOVE])
            if move:
                found = move
            if state[STATE_STOPPED]:
                return score, found
            if score <= alpha and alpha > -INFINITY:
                alpha = max(-INFINITY, alpha - window)
            elif score >= beta and beta < INFINITY:
                beta = min(INFINITY, beta + window)
            else:
                return score, found
            window *= 2

    def _complete_pv(self, stack, idx, rules, mlist, pv: list[Move], depth: int) -> list[Move]:
        """`pv` lengthened to `depth` moves where the search's PV stopped early (a table hit
        below the root ends it): the moves stored in the transposition table, each checked
        legal, up to a repetition or a missing entry.  Uses the search rows past `idx`."""
        if len(pv) >= depth:
            return pv
        row, seen = idx, {int(stack[idx, P_KEY])}
        for move in pv:
            make_move(stack, np.int64(row), np.int64(row + 1), np.int32(move.code), rules)
            row += 1
            seen.add(int(stack[row, P_KEY]))
        pv = list(pv)
        while len(pv) < depth and row < idx + MAX_PLY - 2:
            entry = tt.read(self.tt, stack[row, P_KEY])
            code = entry.move if entry is not None else 0
            if not code:
                break
            count = int(legal_moves(stack, np.int64(row), rules, mlist))
            if code not in mlist[row, :count]:
                break
            make_move(stack, np.int64(row), np.int64(row + 1), np.int32(code), rules)
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

    def _proof_stage(self, rows, us: str, legal: list[Move], node_budget: int, started: float) -> SearchResult | None:
        """Prove a win (returned as the result), else exclude root moves proven to lose."""
        them = "black" if us == "white" else "white"
        status, children = self._timed_prove(rows, us, node_budget)
        if status == proof_kernels.PROVEN:
            winning, plies = self._proven_move()
            info = SearchInfo(depth=plies, seldepth=plies, score=mate_in_plies(plies), mate=mate_moves(mate_in_plies(plies)),
                              nodes=int(self.arrays.state[STATE_NODES]),
                              time=time.perf_counter() - started, pv=[winning], hashfull=self.hashfull())
            return SearchResult(winning, None, info)
        if self.control[CONTROL_STOP]:
            return None
        status, children = self._timed_prove(rows, them, node_budget)
        losing = [move for move, proof, _ in children if proof == 0]
        if len(losing) < len(legal):
            for i, move in enumerate(losing):
                self.arrays.excluded[i] = move.code
        return None

    def _proven_move(self) -> tuple[Move, int]:
        """After a proof that the side to move wins: the root move that wins quickest along
        the proof tree, and the plies to the win through it."""
        tree = self._proof_tree
        best = None
        child = int(tree.first_child[0])
        while child >= 0:
            if tree.proof[child] == 0:
                plies = 1 + proof_kernels.proven_plies(tree, child, prover_to_move=False)
                if best is None or plies < best[1]:
                    best = (Move(int(tree.move[child])), plies)
            child = int(tree.next_sibling[child])
        return best

    def _timed_prove(self, rows, prover: str, node_budget: int):
        """A proof-number search on the search's rows, keeping a running measure of the
        proof-tree nodes this machine searches a second under its present load, which sizes
        the next proof stage's node budget."""
        state = self.arrays.state
        before = int(state[STATE_NODES])
        started = time.perf_counter()
        result = self.prove_rows(rows, prover, node_budget)
        elapsed = time.perf_counter() - started
        used = int(state[STATE_NODES]) - before
        if used >= 5000 and elapsed > 0.002:
            self.proof_rate = 0.5 * self.proof_rate + 0.5 * min(4.0 * PROOF_RATE, used / elapsed)
        return result

    def _info(self, depth: int, score: int, elapsed: float) -> SearchInfo:
        length = int(self.arrays.pv_length[0])
        pv = [Move(int(code)) for code in self.arrays.pv[0, :length] if code]
        return SearchInfo(depth=depth, seldepth=int(self.arrays.state[STATE_SELDEPTH]), score=score,
                          mate=mate_moves(score), nodes=self.nodes, time=elapsed, pv=pv, hashfull=self.hashfull(),
                          tbhits=self.tbhits)

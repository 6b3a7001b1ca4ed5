"""Generating one table's codes by retrograde analysis on the rules core's own kernels.

A forward pass over all indexes (`_scan`) takes each position's moves from
`movegen.legal_moves`, marks positions without a move by `game_status`, values the
successors outside the table (engine.tablebase.valuation) and lists the successors inside
it.  A plain move (no promotion, double step or other special kind) moves one piece, so its
successor's index is computed from the decoded squares; every other move is made with
`make_move`.  The successor lists are then turned into predecessor lists (a counting sort,
`_predecessors`), and the values spread backwards by distance, one ply per round
(`_solve`: a loss at d-1 makes its predecessors wins at d; a predecessor whose successors
are all wins becomes a loss at one more than the longest); positions waiting for a known
later distance sit in per-distance buckets.  What stays open is a draw.  `retrograde`
runs both over a `Workspace`, the arrays one builder thread reuses.

The tables a table depends on (engine.tablebase.indexing.dependencies: one capture or
promotion away) must be built first; engine.tablebase.builder orders the work.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ..jit.modes import allocating_kernel
from ..rules import movegen
from ..rules.bitboards import CAPTURE_FLAG, MAX_MOVES, MOVE_NORMAL, NO_SQUARE, P_EP, POS_SIZE
from ..rules.rulesets import get_rule_set
from .indexing import GEO, INVALID, MAX_PIECES, Material, Registry, decode, index_in, squares_index
from .valuation import INF, negate, successor_value, terminal_code

CHANGES_MATERIAL = CAPTURE_FLAG | (7 << 12)  # move bits: a capture, or a promotion type
KIND_BITS = 7 << 15
PLAIN = MOVE_NORMAL << 15
NOT_PLAIN = CHANGES_MATERIAL | KIND_BITS  # a plain quiet move has none of these bits but its kind


# ---------------------------------------------------------------------------------------
# Kernels


@allocating_kernel
def _sort_groups(tid, squares, tdesc):
    """Put the squares of each run of equal codes of table `tid` in ascending order (the
    slot order `index_in` uses), in place."""
    n = tdesc[tid, 1]
    for j in range(1, n):
        code = tdesc[tid, 4 + j]
        square = squares[j]
        i = j
        while i > 0 and tdesc[tid, 3 + i] == code and squares[i - 1] > square:
            squares[i] = squares[i - 1]
            i -= 1
        squares[i] = square


@allocating_kernel
def _moved_index(tid, stm, squares, origin, target, moved, tdesc, geo):
    """The index in table `tid`, with `stm` to move, of the position whose pieces stand on
    squares[0..n) (slot order) except that the piece on `origin` now stands on `target`:
    the successor of a plain quiet move, without making it."""
    n = tdesc[tid, 1]
    for j in range(n):
        moved[j] = target if squares[j] == origin else squares[j]
    _sort_groups(tid, moved, tdesc)
    return squares_index(tid, stm, moved, tdesc, geo)


@allocating_kernel
def _scan(tid, lo, hi, rules, tdesc, keymap, geo, buf, stack, mlist, work, squares, moved, successors,
          st, dist, cnt, extwin, extloss, hasdraw, edges, state, zeroing):
    """Forward pass over indexes [lo, hi) of table `tid`: classify each position (st: 0
    open, 1 win, 2 loss, 3 draw, 4 invalid), value its successors outside the table, and
    append the index of each successor inside it to `edges` (so the successors of p
    follow those of p - 1: cnt[p] of them).  A position with no legal move (or a side
    without pieces) is valued by `game_status`; in the compulsory-capture rule sets a
    position with a legal move is never over.

    The moves come from `legal_moves`.  A move of kind MOVE_NORMAL moves one piece (and
    promotes it, and removes the piece on its target if it captures), so its successor's
    index is computed from the squares instead of making the move: a quiet one in this
    table (one digit changes, or `_moved_index`), any other in the table that
    `successors` names (see `_successor_slots`).  Every other move (double step, en
    passant, a capture that ends the game) is made with `make_move` and valued by
    `successor_value`.  state[0] is the edge count, state[1] counts successors no table
    could value (an error).  Returns the index where it stopped: hi, or earlier when
    `edges` is nearly full.

    With `zeroing` set (the DTZ pass), every capture and pawn move counts as a move out of
    the table at distance 1 whatever its value's distance (a pawn move that stays in the
    table takes its value from this table's own DTM codes, held in `buf` at table `tid`'s
    offset), and only the other moves are edges: the solved distance is then the plies to
    the next capture or pawn move (or the end of the game)."""
    capacity = edges.shape[0]
    own = tdesc[tid, 0]
    slot_size = tdesc[tid, 3]
    n_slots = tdesc[tid, 1]
    region = 1 if tdesc[tid, 2] else 0  # geo row: slot 0's index, -1 off its triangle / half
    # a quiet move of the piece in slot k, alone with its code, changes digit k only (for
    # k = 0: if it stays on the triangle / half board, so the symmetry stays the identity):
    # the digit's place value, or 0 if the piece shares its code
    place = np.zeros(MAX_PIECES, dtype=np.int64)
    for k in range(n_slots):
        code = tdesc[tid, 4 + k]
        if (k == 0 or tdesc[tid, 3 + k] != code) and (k + 1 == n_slots or tdesc[tid, 5 + k] != code):
            place[k] = np.int64(1) << (6 * (n_slots - 1 - k))
    first = np.zeros(MAX_PIECES, dtype=np.int64)  # the first and last slot of each slot's code
    last = np.zeros(MAX_PIECES, dtype=np.int64)
    for k in range(n_slots):
        first[k] = k
        while first[k] > 0 and tdesc[tid, 3 + first[k]] == tdesc[tid, 4 + k]:
            first[k] -= 1
        last[k] = k
        while last[k] + 1 < n_slots and tdesc[tid, 5 + last[k]] == tdesc[tid, 4 + k]:
            last[k] += 1
    slot_of = np.zeros(64, dtype=np.int64)
    e = state[0]  # kept in a local: stores into `edges` could otherwise alias it
    for p in range(lo, hi):
        if e + MAX_MOVES > capacity:
            state[0] = e
            return p
        if not decode(tid, np.int64(p), tdesc, geo, stack[0], squares):
            st[p] = 4
            continue
        n = movegen.legal_moves(stack, 0, rules, mlist)
        if n == 0:
            terminal = terminal_code(stack, 0, rules, mlist)
            dist[p] = 0
            st[p] = 3 if terminal == 0 else (1 if terminal > 0 else 2)
            continue
        for k in range(n_slots):
            slot_of[squares[k]] = k
        after = 1 - p // slot_size  # the side to move after a move
        turned = p + (2 * after - 1) * slot_size  # p with the other side to move
        inside = 0
        for i in range(n):
            move = np.int64(mlist[0, i])
            origin = move & 63
            target = (move >> 6) & 63
            k = slot_of[origin]
            pawn_move = zeroing != 0 and tdesc[tid, 4 + k] % 6 == 0
            if (move & NOT_PLAIN) == PLAIN:
                delta = place[k]
                if delta and k:
                    edges[e] = turned + (target - origin) * delta
                elif delta and geo[region, target] >= 0:
                    edges[e] = turned + (geo[region, target] - geo[region, origin]) * delta
                elif first[k] > 0:  # slot 0 stays (so does the symmetry); re-sort the code's squares
                    for j in range(n_slots):
                        moved[j] = squares[j]
                    moved[k] = target
                    a = first[k]
                    for j in range(a + 1, last[k] + 1):
                        square = moved[j]
                        m = j
                        while m > a and moved[m - 1] > square:
                            moved[m] = moved[m - 1]
                            m -= 1
                        moved[m] = square
                    index = geo[region, squares[0]]
                    for j in range(1, n_slots):
                        index = index * 64 + moved[j]
                    edges[e] = after * slot_size + index
                else:
                    edges[e] = _moved_index(tid, after, squares, origin, target, moved, tdesc, geo)
                if not pawn_move:
                    e += 1
                    inside += 1
                    continue
            code = np.int64(INVALID)
            index = np.int64(-1)
            into = np.int64(-1)
            v = np.int64(MAX_PIECES)
            t = np.int64(0)
            if (move & NOT_PLAIN) == PLAIN:  # a pawn's quiet step in the DTZ pass: its index is in edges[e]
                code = np.int64(buf[own + edges[e]])
            elif (move & KIND_BITS) == PLAIN:
                v = slot_of[target] if move & CAPTURE_FLAG else MAX_PIECES
                t = (move >> 12) & 7
                into = successors[k, v, t, 0]
            if into >= 0:
                flip = successors[k, v, t, 1]
                for j in range(tdesc[into, 1]):
                    source = successors[k, v, t, 2 + j]
                    square = target if source == k else squares[source]
                    moved[j] = square ^ 56 if flip else square
                _sort_groups(into, moved, tdesc)
                code = np.int64(buf[tdesc[into, 0] + squares_index(into, after ^ flip, moved, tdesc, geo)])
            else:
                movegen.make_move(stack, 0, 1, move, rules)
                if (move & CHANGES_MATERIAL) == 0 and np.int64(stack[1, P_EP]) == NO_SQUARE:
                    # a quiet move without promotion stays in this table, in its colour frame
                    code = np.int64(0)
                    index = index_in(stack, np.int64(1), tid, np.int64(0), tdesc, geo, work)
                    if pawn_move:  # a double step: in the DTZ pass, valued from this table's DTM codes
                        code = np.int64(buf[own + index])
                        index = np.int64(-1)
                else:
                    code, index = successor_value(stack, 1, rules, mlist, tdesc, keymap, geo, buf, work, tid)
            if index >= 0:
                edges[e] = index
                e += 1
                inside += 1
                continue
            if code == INVALID:
                state[1] += 1
                continue
            mine = negate(code)
            if zeroing != 0 and mine != 0:
                mine = np.int64(2) if mine > 0 else np.int64(-2)  # a capture or pawn move: distance 1
            if mine > 0:
                if mine - 1 < extwin[p]:
                    extwin[p] = mine - 1
            elif mine < 0:
                if -mine - 1 > extloss[p]:
                    extloss[p] = -mine - 1
            else:
                hasdraw[p] = 1
        cnt[p] = inside
    state[0] = e
    return hi


@allocating_kernel
def _predecessors(cnt, edges, nedges, offsets, preds):
    """Counting sort of the edges by successor: preds[offsets[q]:offsets[q+1]] lists q's
    predecessors.  The successors of p are the cnt[p] entries of `edges` after those of
    p - 1."""
    size = cnt.shape[0]
    for e in range(nedges):
        offsets[edges[e]] += 1
    for q in range(1, size):
        offsets[q] += offsets[q - 1]
    offsets[size] = nedges
    e = np.int64(0)
    for p in range(size):  # offsets[q] counts down from the end of q's list to its start
        for _ in range(cnt[p]):
            q = edges[e]
            e += 1
            offsets[q] -= 1
            preds[offsets[q]] = p


@allocating_kernel
def _solve(st, dist, cnt, extwin, extloss, hasdraw, offsets, preds, link, queue, codes):
    """Spread the values backwards by distance (see the module text); fill `codes`.
    Returns the number of rounds.  queue lists the positions in the order they are
    resolved (round d handles those resolved at d - 1); a position that will be won or
    lost at a known later distance through its successors outside the table waits in
    that distance's bucket (a linked list through `link`)."""
    size = st.shape[0]
    head = np.full(INF + 1, -1, dtype=np.int64)
    tail = np.int64(0)
    scheduled = np.int64(0)
    for p in range(size):
        s = st[p]
        if s == 1 or s == 2:
            queue[tail] = p
            tail += 1
        elif s == 0:
            later = np.int64(-1)
            if extwin[p] < INF:
                later = np.int64(extwin[p])
            elif cnt[p] == 0 and hasdraw[p] == 0:
                later = np.int64(extloss[p])
            if later >= 0:
                link[p] = head[later]
                head[later] = p
                if later > scheduled:
                    scheduled = later
    start = np.int64(0)
    d = np.int64(1)
    while True:
        end = tail
        for i in range(start, end):
            q = queue[i]
            lost = st[q] == 2
            for e in range(offsets[q], offsets[q + 1]):
                p = preds[e]
                if st[p] != 0:
                    continue
                if lost:
                    st[p] = 1
                    dist[p] = d
                    queue[tail] = p
                    tail += 1
                else:
                    cnt[p] -= 1
                    if cnt[p] == 0 and extwin[p] == INF and hasdraw[p] == 0:
                        last = max(d, np.int64(extloss[p]))
                        if last == d:
                            st[p] = 2
                            dist[p] = d
                            queue[tail] = p
                            tail += 1
                        else:
                            link[p] = head[last]
                            head[last] = p
                            if last > scheduled:
                                scheduled = last
        p = head[d]
        while p >= 0:
            if st[p] == 0:
                st[p] = 1 if extwin[p] == d else 2
                dist[p] = d
                queue[tail] = p
                tail += 1
            p = link[p]
        start = end
        if start == tail and d >= scheduled:
            break
        d += 1
    for p in range(size):
        s = st[p]
        if s == 1:
            codes[p] = dist[p] + 1
        elif s == 2:
            codes[p] = -(dist[p] + 1)
        elif s == 4:
            codes[p] = INVALID
        else:
            codes[p] = 0
    return d


# ---------------------------------------------------------------------------------------
# The driver


def _successor_slots(material: Material, registry: Registry) -> np.ndarray:
    """For `_scan`: entry [k, v, t] says where a move of the piece in slot k leads that
    takes the piece in slot v (v = MAX_PIECES: no capture) and promotes to type t (0:
    none): the table id (-1 when a side is left without pieces, the table is not in
    `registry`, or the move stays in this table), whether its colours are reversed (as
    `locate` decides), and for each of its slots the slot of `material` whose piece
    fills it (the moving piece's slot standing for its target square)."""
    n = material.pieces
    out = np.full((MAX_PIECES, MAX_PIECES + 1, 6, 2 + MAX_PIECES), -1, dtype=np.int64)
    for k, v, t in itertools.product(range(n), range(MAX_PIECES + 1), range(6)):
        if v == k or (v < MAX_PIECES and (v >= n or material.codes[v] // 6 == material.codes[k] // 6)):
            continue
        if t and material.codes[k] % 6 != 0:
            continue
        if v == MAX_PIECES and not t:
            continue  # a quiet move stays in this table
        rest = [(code + t if slot == k else code, slot) for slot, code in enumerate(material.codes) if slot != v]
        if not any(code < 6 for code, _ in rest) or not any(code >= 6 for code, _ in rest):
            continue
        raw = Material(tuple(sorted(code for code, _ in rest)))
        canonical = raw.canonical()
        if canonical not in registry.tid:
            continue
        flip = canonical != raw
        order = sorted(((code + 6) % 12 if flip else code, slot) for code, slot in rest)
        assert tuple(code for code, _ in order) == canonical.codes
        out[k, v, t, 0] = registry.tid[canonical]
        out[k, v, t, 1] = int(flip)
        for j, (_, slot) in enumerate(order):
            out[k, v, t, 2 + j] = slot
    return out


class Workspace:
    """Arrays one builder thread reuses from table to table: a fresh table would otherwise
    map (and the kernel zero) about a gigabyte of new pages for each 4-piece table."""

    def __init__(self):
        self._arrays: dict[str, np.ndarray] = {}

    def array(self, name: str, n: int, dtype, fill=None, whole: bool = False) -> np.ndarray:
        """n entries (all it holds if `whole`) of the array `name`, grown when too short,
        set to `fill` unless None."""
        held = self._arrays.get(name)
        if held is None or held.dtype != np.dtype(dtype) or held.shape[0] < n:
            held = self._arrays[name] = np.empty(max(n, 1), dtype=dtype)
        out = held if whole else held[:n]
        if fill is not None:
            out.fill(fill)
        return out

    def keep(self, name: str, array: np.ndarray) -> None:
        """Hold `array` (a grown replacement) as `name`."""
        self._arrays[name] = array


def retrograde(variant, material, registry, buf, ws, progress, chunk, zeroing) -> tuple[np.ndarray, dict]:
    """One forward pass (`_scan`) and one backward solve (`_solve`) of `material`, the last
    table of `registry`, with the codes of the others in `buf`; (codes, timing)."""
    rules = get_rule_set(variant).to_array()
    current = np.int64(len(registry.tables) - 1)
    size = material.size
    st = ws.array("st", size, np.uint8, 0)
    dist = ws.array("dist", size, np.int16, 0)
    cnt = ws.array("cnt", size, np.int16, 0)
    extwin = ws.array("extwin", size, np.int16, INF)
    extloss = ws.array("extloss", size, np.int16, 0)
    hasdraw = ws.array("hasdraw", size, np.uint8, 0)
    stack = np.zeros((8, POS_SIZE), dtype=np.uint64)
    mlist = np.zeros((8, MAX_MOVES), dtype=np.int32)
    work = np.zeros(64, dtype=np.int64)
    squares = np.zeros(MAX_PIECES, dtype=np.int64)
    moved = np.zeros(MAX_PIECES, dtype=np.int64)
    successors = _successor_slots(material, registry)
    edges = ws.array("edges", max(4 * MAX_MOVES, min(size * 6, 1 << 27)), np.int32, whole=True)
    state = np.zeros(2, dtype=np.int64)
    scan_seconds = 0.0
    for lo in range(0, size, chunk):
        hi = min(size, lo + chunk)
        t0 = time.perf_counter()
        at = lo
        while at < hi:
            at = int(_scan(current, np.int64(at), np.int64(hi), rules, registry.tdesc, registry.keymap, GEO,
                           buf, stack, mlist, work, squares, moved, successors, st, dist, cnt, extwin, extloss,
                           hasdraw, edges, state, np.int64(zeroing)))
            if at < hi:  # the edge array is nearly full: grow it
                edges = np.concatenate([edges, np.empty(edges.shape[0] // 2, dtype=np.int32)])
                ws.keep("edges", edges)
        scan_seconds += time.perf_counter() - t0
        if progress is not None:
            progress(hi - lo)
    if state[1]:
        raise RuntimeError(f"{material.name}: {int(state[1])} successors outside the tables")
    t0 = time.perf_counter()
    nedges = int(state[0])
    offsets = ws.array("offsets", size + 1, np.int64, 0)
    preds = ws.array("preds", max(1, nedges), np.int32)
    _predecessors(cnt, edges, np.int64(nedges), offsets, preds)
    link = ws.array("link", size, np.int32)
    queue = ws.array("queue", size, np.int32)
    codes = np.empty(size, dtype=np.int16)
    rounds = int(_solve(st, dist, cnt, extwin, extloss, hasdraw, offsets, preds, link, queue, codes))
    return codes, {"scan": scan_seconds, "solve": time.perf_counter() - t0, "rounds": rounds, "edges": nedges,
                   "passes": 1}

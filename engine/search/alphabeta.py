"""Alpha-beta: principal-variation search with a transposition table, over the position
stack, one kernel call per depth.

Iterative deepening runs in Python (engine.search.searcher), one `search_root` call per
depth, so the protocol adapters get an `info` line per iteration.  The kernels release the
GIL; another thread stops them through the control array (engine.search.state).

Arguments: stack, mlist as in engine.rules.movegen (rows past `idx` are the search's), the
rule record, and `s`, the thread's SearchArrays (engine.search.state).
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel
from ..rules.bitboards import (
    BISHOP, CAPTURE_FLAG, KNIGHT, MOVE_PASS, NO_SQUARE, OCC, P_CASTLE, P_EP, P_KEY, P_SIDE, PAWN, QUEEN, ROOK, ZERO,
    count,
)
from ..rules.attacks import check_state
from ..rules.movegen import legal_moves, make_move, over_by_position
from ..rules.rulesets import R_ANTI_KINGS, R_MUST_CAPTURE, R_PASS_ON_NO_MOVE, R_ROYAL_KING
from ..rules.status import RESULT_DRAW, drawn_by_rule, game_status, is_repetition
from ..tablebase.indexing import INVALID as TABLE_INVALID
from ..tablebase.indexing import table_code
from . import tt
from .ordering import SECOND_KILLER_SCORE, order_moves, pick, record_cutoff, record_history
from .scores import INFINITY, MATE, MATE_BOUND
from .state import CORRECTION_BITS, MAX_PLY, STATE_BEST_MOVE, STATE_NODES, STATE_ROOT_DEPTH, STATE_ROOT_DONE, STATE_SELDEPTH, STATE_STOPPED, STATE_TBHITS, should_stop
from .static import count_moves_and_captures, evaluate, evaluate_losing, pseudo_legal_is_legal

QUIESCENCE_PLIES = 12  # forced sequences (captures, evasions) followed below the horizon
STAND_PAT_FROM = 0  # plies below the horizon from which a choice of captures may stand pat
STAND_PAT_CAPTURES = 2  # captures searched at such a node
NULL_MOVE_PIECES = 8  # null move under compulsory capture only with this many pieces
NULL_MOVE_REDUCTION = 2
LATE_MOVE_DEPTH = 3  # quiet compulsory-capture nodes this close to the horizon prune late moves
FUTILITY_MARGIN = 60  # per ply of depth left, quiet compulsory-capture nodes
SINGULAR_DEPTH = 8  # nodes this far from the horizon may extend a singular table move
SINGULAR_MARGIN = 2  # centipawns per ply of depth below the table score
DOUBLE_MARGIN = 25  # off the PV, every other move this far below the singular window: two plies deeper
CORRECTION_GRAIN = 256  # correction-history entries are centipawns times this
CORRECTION_LIMIT = 128  # centipawns a correction reaches at most
CORRECTION_WEIGHT = 256  # an update moves an entry min(1 + depth^2, 128) / this of the way
_CORRECTION_MASK = np.uint64((1 << CORRECTION_BITS) - 1)


@kernel
def correction_slot(pos):
    """The correction-history entry of a position: both sides' pawns folded (no multiply,
    so the interpreted kernels do not overflow)."""
    black = pos[8 + PAWN]
    mixed = pos[PAWN] ^ (black << np.uint64(5)) ^ (black >> np.uint64(59))
    mixed ^= mixed >> np.uint64(32)
    mixed ^= mixed >> np.uint64(CORRECTION_BITS)
    return np.int64(mixed & _CORRECTION_MASK)


@kernel
def corrected(correction, pos, value):
    """`value`, a static score for the side to move, plus its pawn structure's learnt error."""
    return value + np.int64(correction[np.int64(pos[P_SIDE]), correction_slot(pos)]) // CORRECTION_GRAIN


@kernel
def update_correction(correction, pos, error, depth):
    """Move the entry of `pos` towards `error` (search score minus raw static score)."""
    limit = CORRECTION_LIMIT * CORRECTION_GRAIN
    target = min(max(error * CORRECTION_GRAIN, -limit), limit)
    weight = min(1 + depth * depth, 128)
    side = np.int64(pos[P_SIDE])
    slot = correction_slot(pos)
    old = np.int64(correction[side, slot])
    correction[side, slot] = np.int32((old * (CORRECTION_WEIGHT - weight) + target * weight) // CORRECTION_WEIGHT)


@kernel
def terminal_score(stack, idx, rules, mlist, ply):
    """Score of a node with no legal move (or over by rule), for the side to move."""
    status = game_status(stack, idx, rules, mlist)
    if status < 0:
        return np.int64(0)
    result = status % 3
    if result == RESULT_DRAW:
        return np.int64(0)
    side = np.int64(stack[idx, P_SIDE])
    if result == side:
        return np.int64(MATE - ply)
    return np.int64(ply - MATE)


@kernel
def is_excluded(excluded, move):
    """True if `move` is among the excluded root moves."""
    for i in range(excluded.shape[0]):
        if excluded[i] == move:
            return True
    return False


@kernel
def negamax(stack, idx, depth, alpha, beta, ply, rules, mlist, s):
    """Principal-variation alpha-beta; returns the score of stack[idx] for the side to move.

    depth <= 0 is the quiescence part: a node whose moves are all forced (captures under
    compulsory capture, check evasions) is searched on; otherwise the static evaluation
    stands, or captures are tried above it (chess-like rule sets).

    Below the root a position of at most s.tables.limit[0] pieces whose endgame table is
    loaded gets the table's value (a win or loss in d plies as a mate score, a draw as 0);
    limit[0] = 0 turns it off.
    """
    state = s.state
    pv = s.pv
    pv_length = s.pv_length
    tables = s.tables
    network = s.network
    pv_length[ply] = ply
    state[STATE_NODES] += 1
    if ply > state[STATE_SELDEPTH]:
        state[STATE_SELDEPTH] = ply
    if should_stop(state, s.control):
        return np.int64(0)
    pos = stack[idx]
    if ply > 0 and is_repetition(stack, idx, np.int64(0)):
        return np.int64(0)
    if ply > 0 and drawn_by_rule(pos, rules):
        return terminal_score(stack, idx, rules, mlist, ply)  # 0 unless a rule ending comes first
    if ply > 0 and tables.limit[0] > 0 and pos[P_CASTLE] == ZERO and np.int64(pos[P_EP]) == NO_SQUARE:
        white = pos[OCC]
        black = pos[8 + OCC]
        if white != ZERO and black != ZERO and count(white | black) <= tables.limit[0]:
            code = table_code(stack, idx, tables.tdesc, tables.keymap, tables.geo, tables.buf, tables.work)
            if code != TABLE_INVALID:
                state[STATE_TBHITS] += 1
                if code > 0:
                    return np.int64(MATE - ply - (code - 1))
                if code < 0:
                    return np.int64(ply + (-code - 1) - MATE)
                return np.int64(0)

    if (depth <= 0 and rules[R_MUST_CAPTURE] and pseudo_legal_is_legal(rules)
            and ply < MAX_PLY - 2 and not over_by_position(pos, rules)):
        # A leaf: count instead of generating, and evaluate at once when it is quiet (no
        # capture, more than one move).
        moves, captures = count_moves_and_captures(pos, rules)
        if moves > 1 and captures == 0:
            return evaluate_losing(stack, idx, rules, mlist, moves, network)

    tt.prefetch(s.tt.keys, s.tt.data, pos[P_KEY])  # the probe comes after the moves are generated
    n = legal_moves(stack, idx, rules, mlist)
    if n == 0:
        return terminal_score(stack, idx, rules, mlist, ply)
    if ply >= MAX_PLY - 2:
        return evaluate(pos, rules)

    in_check = rules[R_ROYAL_KING] and check_state(pos, rules) != 0
    forced = in_check or n == 1
    if not forced and rules[R_MUST_CAPTURE]:
        forced = (np.int64(mlist[idx, 0]) & CAPTURE_FLAG) != 0
    if depth > 0 and n == 1:
        depth += 1  # a single legal reply is searched one ply deeper

    quiescent = depth <= 0
    captures_only = False
    stand_pat_node = False
    capture_floor = np.int64(-INFINITY)
    if (quiescent and rules[R_MUST_CAPTURE] and n > 1 and not in_check and depth <= -STAND_PAT_FROM
            and depth > -QUIESCENCE_PLIES and pseudo_legal_is_legal(rules)
            and (np.int64(mlist[idx, 0]) & CAPTURE_FLAG) != 0):
        # A choice of captures below the horizon: the static score (the network knows the
        # side to move must capture) is a floor, and only the first captures try to beat it.
        capture_floor = evaluate_losing(stack, idx, rules, mlist, np.int64(n), network)
        if capture_floor >= beta:
            return capture_floor
        if capture_floor > alpha:
            alpha = capture_floor
        stand_pat_node = True
    if quiescent and not (forced and depth > -QUIESCENCE_PLIES):
        if rules[R_MUST_CAPTURE]:
            return evaluate_losing(stack, idx, rules, mlist, np.int64(n), network)
        stand_pat = evaluate(pos, rules)
        if rules[R_MUST_CAPTURE] or stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        captures_only = True

    key = pos[P_KEY]
    entry = tt.probe(s.tt.keys, s.tt.data, key)
    tt_move = np.int64(0)
    if entry >= 0:
        tt_move = tt.entry_move(entry)
        # Forced quiescence nodes are stored at depth 0: any entry answers them.
        if ply > 0 and tt.entry_depth(entry) >= max(depth, 0):
            tt_value = tt.entry_score(entry, ply)
            bound = tt.entry_bound(entry)
            if bound == tt.BOUND_EXACT:
                return tt_value
            if bound == tt.BOUND_LOWER and tt_value >= beta:
                return tt_value
            if bound == tt.BOUND_UPPER and tt_value <= alpha:
                return tt_value

    # Null move: only where a pass is harmless (no compulsory capture, no anti-kings).
    if (not quiescent and not forced and depth >= 3 and ply > 0 and not rules[R_MUST_CAPTURE]
            and not rules[R_ANTI_KINGS] and not rules[R_PASS_ON_NO_MOVE] and beta < MATE_BOUND):
        us = np.int64(pos[P_SIDE])
        big = pos[us * 8 + KNIGHT] | pos[us * 8 + BISHOP] | pos[us * 8 + ROOK] | pos[us * 8 + QUEEN]
        if big and evaluate(pos, rules) >= beta:
            make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
            value = -negamax(stack, idx + 1, depth - 3, -beta, -beta + 1, ply + 1, rules, mlist, s)
            if state[STATE_STOPPED]:
                return np.int64(0)
            if value >= beta:
                return beta

    # A quiet node under compulsory capture (the side to move has no capture) off the
    # principal variation: a null move with many pieces on the board (tempo decides the
    # endings), static pruning close to the horizon far above beta, late-move pruning below;
    # the first two share one static score.
    quiet_off_pv = (not quiescent and not forced and ply > 0 and beta - alpha == 1
                    and rules[R_MUST_CAPTURE] != 0)
    null_move_node = (quiet_off_pv and depth >= 3 and pseudo_legal_is_legal(rules) and beta < MATE_BOUND
                      and count(pos[OCC] | pos[8 + OCC]) >= NULL_MOVE_PIECES)
    static_pruning_node = quiet_off_pv and depth <= 3 and abs(beta) < MATE_BOUND
    static_eval = np.int64(0)
    raw_eval = np.int64(0)
    has_static = null_move_node or static_pruning_node
    if has_static:
        raw_eval = evaluate_losing(stack, idx, rules, mlist, np.int64(n), network)
        static_eval = corrected(s.correction, pos, raw_eval)
    if null_move_node and static_eval >= beta:
        make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
        value = -negamax(stack, idx + 1, depth - 1 - NULL_MOVE_REDUCTION - depth // 6, -beta,
                         -beta + 1, ply + 1, rules, mlist, s)
        if state[STATE_STOPPED]:
            return np.int64(0)
        if value >= beta and value < MATE_BOUND:
            return value
    if static_pruning_node and static_eval - FUTILITY_MARGIN * depth >= beta:
        return static_eval

    scores = s.scores
    order_moves(stack, idx, mlist, scores, n, tt_move, s.killers, s.history, ply, rules)
    late_moves_prunable = quiet_off_pv and depth <= LATE_MOVE_DEPTH

    # Singular extension: a table move that holds a lower or exact score from nearly this
    # depth, where every other move searched at half the depth on a null window below that
    # score stays below it, is searched a ply deeper (two off the PV where every other move
    # stays DOUBLE_MARGIN below the window, while the node is closer to the root than the
    # iteration's depth, which bounds the lines this stretches); where one reaches the window
    # and the window lies at or above beta, that score is returned (multi-cut).
    singular_move = np.int64(0)
    singular_extension = 1
    if (not quiescent and not forced and ply > 0 and depth >= SINGULAR_DEPTH and tt_move != 0 and entry >= 0
            and tt.entry_depth(entry) >= depth - 3 and tt.entry_bound(entry) != tt.BOUND_UPPER):
        tt_value = tt.entry_score(entry, ply)
        if abs(tt_value) < MATE_BOUND:
            singular_beta = tt_value - SINGULAR_MARGIN * depth
            singular_depth = (depth - 1) // 2
            singular = True
            others_best = np.int64(-INFINITY)
            for i in range(n):
                move = pick(mlist, scores, idx, i, n)
                if move == tt_move:
                    continue
                make_move(stack, idx, idx + 1, np.int32(move), rules)
                value = -negamax(stack, idx + 1, singular_depth - 1, -singular_beta, -singular_beta + 1, ply + 1,
                                 rules, mlist, s)
                if state[STATE_STOPPED]:
                    return np.int64(0)
                if value > others_best:
                    others_best = value
                if value >= singular_beta:
                    singular = False
                    break
            if singular:
                singular_move = tt_move
                if beta - alpha == 1 and others_best < singular_beta - DOUBLE_MARGIN and ply < state[STATE_ROOT_DEPTH]:
                    singular_extension = 2
            elif singular_beta >= beta:
                return singular_beta
    best = np.int64(-INFINITY)
    best_move = np.int64(0)
    original_alpha = alpha
    searched = 0
    for i in range(n):
        move = pick(mlist, scores, idx, i, n)
        is_capture = (move & CAPTURE_FLAG) != 0
        if captures_only and not is_capture:
            continue
        if ply == 0 and is_excluded(s.excluded, move):
            continue
        if stand_pat_node and searched >= STAND_PAT_CAPTURES:
            break
        if (late_moves_prunable and searched >= 3 + depth * depth and scores[idx, i] < SECOND_KILLER_SCORE
                and not (move >> 12) & 7 and best > -MATE_BOUND):
            continue  # a late quiet move that offers nothing, close to the horizon
        make_move(stack, idx, idx + 1, np.int32(move), rules)
        extension = singular_extension if move == singular_move else 0
        if searched == 0:
            value = -negamax(stack, idx + 1, depth - 1 + extension, -beta, -alpha, ply + 1, rules, mlist, s)
        else:
            reduction = 0
            if depth >= 3 and not is_capture and not forced and not (move >> 12) & 7:
                if not rules[R_MUST_CAPTURE]:
                    if searched >= 4:
                        reduction = 1 if searched < 10 else 2
                elif searched >= 3 and scores[idx, i] < SECOND_KILLER_SCORE:
                    # A quiet node under compulsory capture: late moves that neither offer a
                    # piece nor are killers are reduced (offers force the reply: never reduced).
                    reduction = 1 if searched < 8 else 2
                    if scores[idx, i] < 0 and reduction < depth - 2:
                        reduction += 1  # its history says such moves have failed here before
            value = -negamax(stack, idx + 1, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, rules, mlist, s)
            if value > alpha and (reduction > 0 or value < beta):
                value = -negamax(stack, idx + 1, depth - 1 + extension, -beta, -alpha, ply + 1, rules, mlist, s)
        searched += 1
        if state[STATE_STOPPED]:
            return np.int64(0)
        if value > best:
            best = value
            best_move = move
            if value > alpha:
                alpha = value
                pv[ply, ply] = move
                for j in range(ply + 1, pv_length[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pv_length[ply] = max(pv_length[ply + 1], ply + 1)
                if ply == 0:
                    state[STATE_BEST_MOVE] = move
                if value >= beta:
                    if not quiescent:
                        if is_capture:
                            record_history(stack, idx, mlist, i, move, depth, s.history)
                        else:
                            record_cutoff(stack, idx, mlist, i, move, depth, ply, s.killers, s.history)
                    break
        if ply == 0:
            state[STATE_ROOT_DONE] = searched

    if searched == 0:
        return alpha
    if best < capture_floor:
        best = capture_floor
    if (has_static and abs(best) < MATE_BOUND and not (best >= beta and best <= static_eval)
            and not (best <= original_alpha and best >= static_eval)):
        update_correction(s.correction, pos, best - raw_eval, depth)
    if not captures_only:
        bound = tt.BOUND_UPPER
        if best >= beta:
            bound = tt.BOUND_LOWER
        elif best > original_alpha:
            bound = tt.BOUND_EXACT
        tt.store(s.tt.keys, s.tt.data, key, best_move, best, max(depth, 0), bound, ply)
    return best


@kernel
def search_root(stack, idx, depth, alpha, beta, rules, mlist, s):
    """One iteration at `depth` from stack[idx]; the best move lands in
    s.state[STATE_BEST_MOVE].  Root moves listed in s.excluded are not searched."""
    s.state[STATE_ROOT_DONE] = 0
    s.state[STATE_ROOT_DEPTH] = depth
    return negamax(stack, idx, depth, alpha, beta, np.int64(0), rules, mlist, s)

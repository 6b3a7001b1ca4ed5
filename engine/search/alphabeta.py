"""The search kernels: principal-variation alpha-beta with a transposition table.

Iterative deepening runs in Python (`engine.searcher`), one kernel call per depth, so the
protocol adapters get an `info` line per iteration.  The kernels release the GIL; another
thread stops them by writing control[CONTROL_STOP] = 1, which they read with an atomic
load (a plain load could be hoisted out of the loop) whenever the node count has no bit of
control[CONTROL_CHECK_MASK] set: every 2048 nodes compiled, every node interpreted.

Arrays (all preallocated by `engine.searcher.Searcher`):
- stack, mlist: as in engine.movegen; `scores` int32[rows, MAX_MOVES] for move ordering.
- tt_keys uint64[size], tt_data int64[size] (size a power of two): packed entries.
- killers int32[MAX_PLY, 2], history int32[2, 64, 64].
- pv int32[MAX_PLY, MAX_PLY], pv_length int64[MAX_PLY].
- state int64[STATE_SIZE]: counters written by the kernel (nodes, seldepth, best move...).
- control int64[CONTROL_SIZE]: written by Python (stop flag, node limit, check mask).
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel, native
from ..rules.bitboards import (
    ANTIKING, BISHOP, CAPTURE_FLAG, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, MOVE_PASS, NO_SQUARE,
    OCC, ONE, P_CASTLE, P_EP, P_HALFMOVE, P_KEY, P_SIDE, PAWN, PAWN_DIAGONAL, PAWN_FORWARD, QUEEN,
    RANK_1, RANK_2, RANK_7, RANK_8, ROOK, ZERO, bishop_attacks, count, lsb, rook_attacks,
)
from .evaluation import learned_score_with_reach, reach, reach_and_attacks
from .network import network_score_with_attacks
from ..rules.movegen import (
    RESULT_DRAW, antiking_attackers, attacked_squares, check_state, game_status, gen_legal, legal_moves, make_move,
    over_by_position, piece_type_at,
)
from ..tablebase.tables import INVALID as TABLE_INVALID
from ..tablebase.tables import table_code
from ..rules.rulesets import (
    R_ANTI_KINGS, R_BEROLINA, R_CASTLING, R_DOUBLE_STEP, R_EN_PASSANT, R_MUST_CAPTURE,
    R_PASS_ON_NO_MOVE, R_PROMOTION_MASK, R_ROYAL_KING,
)

MATE = 30000
INFINITY = 32000
MATE_BOUND = MATE - 1000  # scores beyond this are mates
MAX_PLY = 100
QUIESCENCE_PLIES = 12  # forced sequences (captures, evasions) followed below the horizon
STAND_PAT_FROM = 0  # plies below the horizon from which a choice of captures may stand pat
STAND_PAT_CAPTURES = 2  # captures searched at such a node

BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 1, 2, 3

STATE_NODES, STATE_SELDEPTH, STATE_BEST_MOVE, STATE_ROOT_DONE, STATE_STOPPED, STATE_TBHITS = range(6)
STATE_SIZE = 8
CONTROL_STOP, CONTROL_NODE_LIMIT, CONTROL_CHECK_MASK = range(3)
CONTROL_SIZE = 4
CHECK_INTERVAL = 2047  # control[CONTROL_CHECK_MASK] for compiled kernels

# Piece values (pawn, knight, bishop, rook, queen, king, anti-king).
CHESS_VALUES = np.array([100, 320, 330, 500, 900, 0, 0], dtype=np.int64)
# Losing chess: a piece is mostly a liability; values after Nilatac's published evaluation
# (pawn -100, knight 50, bishop -200, rook 500, queen 100, king 500).
LOSING_VALUES = np.array([-100, 50, -200, 500, 100, 500, 0], dtype=np.int64)
CENTER = np.array([
    0, 1, 2, 3, 3, 2, 1, 0,
    1, 3, 4, 5, 5, 4, 3, 1,
    2, 4, 6, 7, 7, 6, 4, 2,
    3, 5, 7, 8, 8, 7, 5, 3,
    3, 5, 7, 8, 8, 7, 5, 3,
    2, 4, 6, 7, 7, 6, 4, 2,
    1, 3, 4, 5, 5, 4, 3, 1,
    0, 1, 2, 3, 3, 2, 1, 0,
], dtype=np.int64)
MVV = np.array([1, 3, 3, 5, 9, 10, 0], dtype=np.int64)
MOBILITY_WEIGHT = 26
FORCING_BONUS = 20
SECOND_KILLER_SCORE = 89000  # move-ordering score of the second killer; offers and the first killer score above
NULL_MOVE_PIECES = 8  # null move under compulsory capture only with this many pieces
NULL_MOVE_REDUCTION = 2
LATE_MOVE_DEPTH = 3  # quiet compulsory-capture nodes this close to the horizon prune late moves
FUTILITY_MARGIN = 60  # per ply of depth left, quiet compulsory-capture nodes
HISTORY_LIMIT = 50000  # a side's history table is halved when an entry it touches passes +-this
for _table in (CHESS_VALUES, LOSING_VALUES, CENTER, MVV):
    _table.setflags(write=False)


def _atomic_load(array, index):
    """array[index], read atomically (monotonic) and never kept in a register when compiled."""
    return array[index]


atomic_load = native("atomic_load", _atomic_load)


# ---------------------------------------------------------------------------------------
# Evaluation


@kernel
def _chess_material(pos, color):
    base = color * 8
    score = 0
    for piece in range(5):
        pieces = pos[base + piece]
        score += CHESS_VALUES[piece] * count(pieces)
        while pieces:
            square = lsb(pieces)
            pieces &= pieces - ONE
            if piece == PAWN:
                rank = square >> 3
                score += 4 * (rank if color == 0 else 7 - rank)
            elif piece != ROOK:
                score += 3 * CENTER[square]
    return score


@kernel
def _antiking_safety(pos, rules, us, occupied):
    """Penalty for an anti-king guarded by a single enemy piece (one capture from anti-check)."""
    score = 0
    for color in range(2):
        anti = pos[color * 8 + ANTIKING]
        if anti:
            guards = count(antiking_attackers(pos, lsb(anti), 1 - color, occupied, rules))
            penalty = 60 if guards == 1 else (15 if guards == 2 else 0)
            score += -penalty if color == us else penalty
    return score


@kernel
def evaluate(pos, rules):
    """Static score of a quiet position, in centipawns, for the side to move."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    occupied = pos[OCC] | pos[8 + OCC]
    if rules[R_MUST_CAPTURE]:
        # Losing chess and the course rules: fewer pieces, and the right pieces, are better.
        score = 0
        for piece in range(6):
            value = LOSING_VALUES[piece]
            if piece == KING and rules[R_ROYAL_KING]:
                value = 0
            score += value * (count(pos[us * 8 + piece]) - count(pos[them * 8 + piece]))
        score += 60 * (count(pos[them * 8 + OCC]) - count(pos[us * 8 + OCC]))
        score += 4 * (reach(pos, us, occupied) - reach(pos, them, occupied))
        score = score // 4
    else:
        score = _chess_material(pos, us) - _chess_material(pos, them)
        score += 2 * (reach(pos, us, occupied) - reach(pos, them, occupied)) + 10
    if rules[R_ANTI_KINGS]:
        score += _antiking_safety(pos, rules, us, occupied)
    return score


@kernel
def pseudo_legal_is_legal(rules):
    """True where every pseudo-legal move is legal: no royal king and no anti-kings."""
    return not rules[R_ROYAL_KING] and not rules[R_ANTI_KINGS]


@kernel
def count_moves_and_captures(pos, rules):
    """(legal moves, captures among them) where every pseudo-legal move is legal (no royal
    king, no anti-kings): equal to `gen_legal`'s counts there (tested), without a move list."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    ours = us * 8
    occupied = pos[OCC] | pos[8 + OCC]
    empty = ~occupied
    targets = pos[them * 8 + OCC]
    last_rank = RANK_8 if us == 0 else RANK_1
    promotions = count(np.uint64(rules[R_PROMOTION_MASK]))
    if promotions == 0:
        promotions = 1
    captures = np.int64(0)
    quiets = np.int64(0)
    pawns = pos[ours + PAWN]
    while pawns:
        square = lsb(pawns)
        pawns &= pawns - ONE
        if rules[R_BEROLINA]:
            hits = PAWN_FORWARD[us, square] & targets
            steps = PAWN_DIAGONAL[us, square] & empty
        else:
            hits = PAWN_DIAGONAL[us, square] & targets
            steps = PAWN_FORWARD[us, square] & empty
            if steps and rules[R_DOUBLE_STEP] and (ONE << np.uint64(square)) & (RANK_2 if us == 0 else RANK_7):
                quiets += count(PAWN_FORWARD[us, lsb(steps)] & empty)
        captures += count(hits & ~last_rank) + promotions * count(hits & last_rank)
        quiets += count(steps & ~last_rank) + promotions * count(steps & last_rank)
    ep = np.int64(pos[P_EP])
    if ep != NO_SQUARE and rules[R_EN_PASSANT]:
        captures += count(PAWN_DIAGONAL[them, ep] & pos[ours + PAWN])
    pieces = pos[ours + KNIGHT]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        captures += count(KNIGHT_ATTACKS[square] & targets)
        quiets += count(KNIGHT_ATTACKS[square] & empty)
    pieces = pos[ours + BISHOP] | pos[ours + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacks = bishop_attacks(square, occupied)
        captures += count(attacks & targets)
        quiets += count(attacks & empty)
    pieces = pos[ours + ROOK] | pos[ours + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacks = rook_attacks(square, occupied)
        captures += count(attacks & targets)
        quiets += count(attacks & empty)
    pieces = pos[ours + KING]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        captures += count(KING_ATTACKS[square] & targets)
        quiets += count(KING_ATTACKS[square] & empty)
    if captures and rules[R_MUST_CAPTURE]:
        return captures, captures
    if rules[R_CASTLING] and pos[P_CASTLE]:
        rights = pos[P_CASTLE] >> np.uint64(2 * us)
        home = 56 * us
        if pos[ours + KING] & (ONE << np.uint64(home + 4)):
            if rights & ONE and pos[ours + ROOK] & (ONE << np.uint64(home + 7)) and not occupied & (np.uint64(0x60) << np.uint64(home)):
                quiets += 1
            if rights & np.uint64(2) and pos[ours + ROOK] & (ONE << np.uint64(home)) and not occupied & (np.uint64(0x0E) << np.uint64(home)):
                quiets += 1
    return captures + quiets, captures


@kernel
def evaluate_losing(stack, idx, rules, mlist, our_moves, network):
    """Static score of a quiet node under compulsory capture, for the side to move.

    Counts the legal mobility of both sides (the opponent's after a null move): having few
    moves, above all only forced captures, is what loses these games.  Where every
    pseudo-legal move is legal (antichess, giveaway, suicide, hackerrank) the learned
    evaluation (engine.evaluation) plus the network's correction (engine.network) scores
    the position; elsewhere `evaluate` plus hand-set mobility terms.
    """
    pos = stack[idx]
    make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
    if pseudo_legal_is_legal(rules):
        their_moves, their_captures = count_moves_and_captures(stack[idx + 1], rules)
        us = np.int64(pos[P_SIDE])
        occupied = pos[OCC] | pos[8 + OCC]
        our_reach, our_attacks = reach_and_attacks(pos, us, occupied)
        their_reach, their_attacks = reach_and_attacks(pos, 1 - us, occupied)
        return (learned_score_with_reach(pos, our_moves - their_moves, their_captures > 0, our_reach - their_reach)
                + network_score_with_attacks(pos, network, our_attacks, their_attacks))
    score = evaluate(pos, rules)
    their_moves = gen_legal(stack, idx + 1, rules, mlist)
    forcing = their_moves > 0 and (np.int64(mlist[idx + 1, 0]) & CAPTURE_FLAG) != 0
    score += MOBILITY_WEIGHT * (our_moves - their_moves)
    if forcing:
        score += FORCING_BONUS  # whatever we do now, they are likely to be forced to capture
    return score


@kernel
def losing_terms(stack, idx, rules, mlist):
    """(our legal moves minus theirs after a pass, whether theirs would all be captures
    forced): the legal-mobility terms of `evaluate_losing`, for rule sets where every
    pseudo-legal move is legal; tools/train_eval.py computes its features with this."""
    our_moves, _ = count_moves_and_captures(stack[idx], rules)
    make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
    their_moves, their_captures = count_moves_and_captures(stack[idx + 1], rules)
    return our_moves - their_moves, their_captures > 0


# ---------------------------------------------------------------------------------------
# Transposition table


@kernel
def _tt_depth(entry):
    """The search depth packed in a table entry (bits 36-43)."""
    return (entry >> 36) & 255


def _no_prefetch(array, index):
    pass


prefetch = native("prefetch", _no_prefetch)


@kernel
def _tt_prefetch(tt_keys, tt_data, key):
    """Start loading the pair of slots of `key` into the caches (a 64 MB table misses them
    on nearly every probe), so that the work done before the probe hides the wait."""
    slot = np.int64(key & np.uint64(tt_keys.shape[0] - 2))
    prefetch(tt_keys, slot)
    prefetch(tt_data, slot)


@kernel
def _tt_probe(tt_keys, tt_data, key):
    """The entry stored for `key`, or -1.  Slots come in pairs (see `_tt_store`)."""
    slot = np.int64(key & np.uint64(tt_keys.shape[0] - 2))
    if tt_keys[slot] == key:
        return tt_data[slot]
    if tt_keys[slot + 1] == key:
        return tt_data[slot + 1]
    return np.int64(-1)


@kernel
def _tt_store(tt_keys, tt_data, key, move, score, depth, bound, ply):
    """Store an entry in its pair of slots: the first keeps the deepest entry, the second
    takes whatever the first does not (so the many shallow quiescence entries cannot evict
    the deep ones)."""
    slot = np.int64(key & np.uint64(tt_keys.shape[0] - 2))
    if tt_keys[slot] != key and (tt_keys[slot + 1] == key or _tt_depth(tt_data[slot]) > depth):
        slot += 1
    old = tt_data[slot]
    if tt_keys[slot] == key and old >= 0 and _tt_depth(old) > depth and bound != BOUND_EXACT:
        return
    if score > MATE_BOUND:
        score += ply
    elif score < -MATE_BOUND:
        score -= ply
    if move == 0 and tt_keys[slot] == key and old >= 0:
        move = old & 0xFFFFF
    tt_keys[slot] = key
    tt_data[slot] = (move & 0xFFFFF) | ((score + 32768) << 20) | (min(depth, 255) << 36) | (bound << 44)


@kernel
def _tt_score(entry, ply):
    score = ((entry >> 20) & 0xFFFF) - 32768
    if score > MATE_BOUND:
        score -= ply
    elif score < -MATE_BOUND:
        score += ply
    return score


# ---------------------------------------------------------------------------------------
# Search


@kernel
def _terminal_score(stack, idx, rules, mlist, ply):
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
def is_repetition(stack, idx, first_row):
    """True if stack[idx] repeats a position on rows first_row..idx-1 within the move clock."""
    key = stack[idx, P_KEY]
    limit = idx - np.int64(stack[idx, P_HALFMOVE])
    if limit < first_row:
        limit = first_row
    i = idx - 2
    while i >= limit:
        if stack[i, P_KEY] == key:
            return True
        i -= 2
    return False


@kernel
def attacked_by(pos, color, rules):
    """Every square a piece of `color` attacks (anti-kings left out)."""
    return attacked_squares(pos, color, pos[OCC] | pos[8 + OCC], rules[R_BEROLINA])


@kernel
def _order_moves(stack, idx, mlist, scores, n, tt_move, killers, history, ply, rules):
    pos = stack[idx]
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    offers = ZERO
    if rules[R_MUST_CAPTURE]:
        offers = attacked_by(pos, them, rules)
    for i in range(n):
        move = np.int64(mlist[idx, i])
        if move == tt_move:
            scores[idx, i] = 1000000
            continue
        origin = move & 63
        target = (move >> 6) & 63
        value = 0
        if move & CAPTURE_FLAG:
            victim = piece_type_at(pos, them, target)
            attacker = piece_type_at(pos, us, origin)
            value = 100000 + 10 * (MVV[victim] if victim >= 0 else 1) - attacker
        elif (move >> 12) & 7:
            value = 95000 + ((move >> 12) & 7)
        elif offers & (ONE << np.uint64(target)):
            value = 92000 + history[us, origin, target] // 64  # an offer forces the reply
        elif move == killers[ply, 0]:
            value = 90000
        elif move == killers[ply, 1]:
            value = SECOND_KILLER_SCORE
        else:
            value = history[us, origin, target]
        scores[idx, i] = value


@kernel
def _pick(mlist, scores, idx, start, n):
    """Swap the best-scored move of [start, n) to `start` and return it."""
    best = start
    for i in range(start + 1, n):
        if scores[idx, i] > scores[idx, best]:
            best = i
    if best != start:
        move = mlist[idx, best]
        mlist[idx, best] = mlist[idx, start]
        mlist[idx, start] = move
        value = scores[idx, best]
        scores[idx, best] = scores[idx, start]
        scores[idx, start] = value
    return np.int64(mlist[idx, start])


@kernel
def _should_stop(state, control):
    if state[STATE_STOPPED]:
        return True
    nodes = state[STATE_NODES]
    if nodes & control[CONTROL_CHECK_MASK] == 0:
        if atomic_load(control, np.int64(CONTROL_STOP)) != 0:
            state[STATE_STOPPED] = 1
            return True
        limit = control[CONTROL_NODE_LIMIT]
        if limit > 0 and nodes >= limit:
            state[STATE_STOPPED] = 1
            return True
    return False


@kernel
def _is_excluded(excluded, move):
    for i in range(excluded.shape[0]):
        if excluded[i] == move:
            return True
    return False


@kernel
def negamax(stack, idx, depth, alpha, beta, ply, rules, mlist, scores, tt_keys, tt_data,
            killers, history, pv, pv_length, state, control, excluded, tables, network):
    """Principal-variation alpha-beta; returns the score of stack[idx] for the side to move.

    depth <= 0 is the quiescence part: a node whose moves are all forced (captures under
    compulsory capture, check evasions) is searched on; otherwise the static evaluation
    stands, or captures are tried above it (chess-like rule sets).

    `tables` is (limit, tdesc, keymap, geo, buf, work) from engine.tablebase: below the root
    a position of at most limit[0] pieces whose endgame table is loaded gets the table's
    value (a win or loss in d plies as a mate score, a draw as 0); limit[0] = 0 turns it off.
    """
    pv_length[ply] = ply
    state[STATE_NODES] += 1
    if ply > state[STATE_SELDEPTH]:
        state[STATE_SELDEPTH] = ply
    if _should_stop(state, control):
        return np.int64(0)
    pos = stack[idx]
    if ply > 0 and is_repetition(stack, idx, np.int64(0)):
        return np.int64(0)
    if ply > 0 and tables[0][0] > 0 and pos[P_CASTLE] == ZERO and np.int64(pos[P_EP]) == NO_SQUARE:
        white = pos[OCC]
        black = pos[8 + OCC]
        if white != ZERO and black != ZERO and count(white | black) <= tables[0][0]:
            code = table_code(stack, idx, tables[1], tables[2], tables[3], tables[4], tables[5])
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

    _tt_prefetch(tt_keys, tt_data, pos[P_KEY])  # the probe comes after the moves are generated
    n = legal_moves(stack, idx, rules, mlist)
    if n == 0:
        return _terminal_score(stack, idx, rules, mlist, ply)
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
    entry = _tt_probe(tt_keys, tt_data, key)
    tt_move = np.int64(0)
    if entry >= 0:
        tt_move = entry & 0xFFFFF
        # Forced quiescence nodes are stored at depth 0: any entry answers them.
        if ply > 0 and _tt_depth(entry) >= max(depth, 0):
            tt_value = _tt_score(entry, ply)
            bound = (entry >> 44) & 3
            if bound == BOUND_EXACT:
                return tt_value
            if bound == BOUND_LOWER and tt_value >= beta:
                return tt_value
            if bound == BOUND_UPPER and tt_value <= alpha:
                return tt_value

    # Null move: only where a pass is harmless (no compulsory capture, no anti-kings).
    if (not quiescent and not forced and depth >= 3 and ply > 0 and not rules[R_MUST_CAPTURE]
            and not rules[R_ANTI_KINGS] and not rules[R_PASS_ON_NO_MOVE] and beta < MATE_BOUND):
        us = np.int64(pos[P_SIDE])
        big = pos[us * 8 + KNIGHT] | pos[us * 8 + BISHOP] | pos[us * 8 + ROOK] | pos[us * 8 + QUEEN]
        if big and evaluate(pos, rules) >= beta:
            make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
            value = -negamax(stack, idx + 1, depth - 3, -beta, -beta + 1, ply + 1, rules, mlist,
                             scores, tt_keys, tt_data, killers, history, pv, pv_length, state, control, excluded, tables, network)
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
    if null_move_node or static_pruning_node:
        static_eval = evaluate_losing(stack, idx, rules, mlist, np.int64(n), network)
    if null_move_node and static_eval >= beta:
        make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
        value = -negamax(stack, idx + 1, depth - 1 - NULL_MOVE_REDUCTION - depth // 6, -beta,
                         -beta + 1, ply + 1, rules, mlist, scores, tt_keys, tt_data, killers,
                         history, pv, pv_length, state, control, excluded, tables, network)
        if state[STATE_STOPPED]:
            return np.int64(0)
        if value >= beta and value < MATE_BOUND:
            return value
    if static_pruning_node and static_eval - FUTILITY_MARGIN * depth >= beta:
        return static_eval

    _order_moves(stack, idx, mlist, scores, n, tt_move, killers, history, ply, rules)
    late_moves_prunable = quiet_off_pv and depth <= LATE_MOVE_DEPTH
    best = np.int64(-INFINITY)
    best_move = np.int64(0)
    original_alpha = alpha
    searched = 0
    us = np.int64(pos[P_SIDE])
    for i in range(n):
        move = _pick(mlist, scores, idx, i, n)
        is_capture = (move & CAPTURE_FLAG) != 0
        if captures_only and not is_capture:
            continue
        if ply == 0 and _is_excluded(excluded, move):
            continue
        if stand_pat_node and searched >= STAND_PAT_CAPTURES:
            break
        if (late_moves_prunable and searched >= 3 + depth * depth and scores[idx, i] < SECOND_KILLER_SCORE
                and not (move >> 12) & 7 and best > -MATE_BOUND):
            continue  # a late quiet move that offers nothing, close to the horizon
        make_move(stack, idx, idx + 1, np.int32(move), rules)
        if searched == 0:
            value = -negamax(stack, idx + 1, depth - 1, -beta, -alpha, ply + 1, rules, mlist, scores,
                             tt_keys, tt_data, killers, history, pv, pv_length, state, control, excluded, tables, network)
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
            value = -negamax(stack, idx + 1, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, rules,
                             mlist, scores, tt_keys, tt_data, killers, history, pv, pv_length, state,
                             control, excluded, tables, network)
            if value > alpha and (reduction > 0 or value < beta):
                value = -negamax(stack, idx + 1, depth - 1, -beta, -alpha, ply + 1, rules, mlist,
                                 scores, tt_keys, tt_data, killers, history, pv, pv_length, state,
                                 control, excluded, tables, network)
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
                    if not is_capture and not quiescent:
                        if killers[ply, 0] != move:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = move
                        origin = move & 63
                        target = (move >> 6) & 63
                        history[us, origin, target] += depth * depth
                        overflow = history[us, origin, target] > HISTORY_LIMIT
                        # The quiet moves ordered before it (searched, or passed over by
                        # late-move pruning) did not cut off.
                        for j in range(i):
                            earlier = np.int64(mlist[idx, j])
                            if not earlier & CAPTURE_FLAG:
                                earlier_origin = earlier & 63
                                earlier_target = (earlier >> 6) & 63
                                history[us, earlier_origin, earlier_target] -= depth * depth
                                overflow = overflow or history[us, earlier_origin, earlier_target] < -HISTORY_LIMIT
                        if overflow:
                            for a in range(64):
                                for b in range(64):
                                    history[us, a, b] //= 2
                    break
        if ply == 0:
            state[STATE_ROOT_DONE] = searched

    if searched == 0:
        return alpha
    if best < capture_floor:
        best = capture_floor
    if not captures_only:
        bound = BOUND_UPPER
        if best >= beta:
            bound = BOUND_LOWER
        elif best > original_alpha:
            bound = BOUND_EXACT
        _tt_store(tt_keys, tt_data, key, best_move, best, max(depth, 0), bound, ply)
    return best


@kernel
def search_root(stack, idx, depth, alpha, beta, rules, mlist, scores, tt_keys, tt_data, killers,
                history, pv, pv_length, state, control, excluded, tables, network):
    """One iteration at `depth` from stack[idx]; the best move lands in state[STATE_BEST_MOVE].

    Root moves listed in `excluded` (int32, 0 = empty slot) are not searched.
    """
    state[STATE_ROOT_DONE] = 0
    return negamax(stack, idx, depth, alpha, beta, np.int64(0), rules, mlist, scores, tt_keys,
                   tt_data, killers, history, pv, pv_length, state, control, excluded, tables, network)

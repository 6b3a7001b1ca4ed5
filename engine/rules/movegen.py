"""Move generation and making: pseudo-legal captures and quiet moves, the legality
filters, the legal moves of a position (with the pass where the rules make a side pass),
make-move and the Zobrist key.

Every kernel takes plain arrays:
- `stack`: uint64[rows, POS_SIZE], one position per row (layout in `engine.rules.bitboards`).
  Kernels working on row `idx` may use rows idx+1 and idx+2 as scratch space.
- `rules`: int64[R_SIZE], a rule set's fields (`engine.rules.rulesets.RuleSet.to_array`).
- `mlist`: int32[rows, MAX_MOVES], the move buffer of each row.

Integer arguments are always int64 (never literal constants), so each kernel compiles
exactly once and loads from the cache without the numba recursion/overload crash.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel
from .attacks import check_state, king_attackers, piece_type_at, side_is_safe
from .bitboards import (
    ANTIKING, BETWEEN, BISHOP, CAPTURE_FLAG, CASTLE_KEEP, FULL, KING, KING_ATTACKS,
    KNIGHT, KNIGHT_ATTACKS, LINE, MOVE_CASTLE, MOVE_DOUBLE, MOVE_EN_PASSANT, MOVE_PASS,
    NO_SQUARE, OCC, ONE, P_CASTLE, P_EP, P_HALFMOVE, P_KEY, P_LEAP, P_PLY, P_SIDE, PASS_MOVE, POS_SIZE,
    PAWN, PAWN_DIAGONAL, PAWN_FORWARD, QUEEN, RANK_1, RANK_2, RANK_7, RANK_8, ROOK, ZERO,
    ZOBRIST_CASTLE, ZOBRIST_EP, ZOBRIST_LEAP, ZOBRIST_PIECE, ZOBRIST_SIDE, bishop_attacks,
    count, lsb, rook_attacks,
)
from .rulesets import (
    R_ANTI_KINGS, R_BEROLINA, R_CASTLING, R_DOUBLE_STEP, R_EN_PASSANT, R_EXTINCTION_COUNT, R_KING_LEAP, R_MUST_CAPTURE,
    R_PASS_ON_NO_MOVE, R_PLY_LIMIT, R_PROMOTION_MASK, R_ROYAL_KING,
)


@kernel
def _add_pawn_move(out, n, origin, target, flags, promotion_mask, last_rank):
    """Append a pawn move, expanded into one move per promotion piece on the last rank."""
    move = origin | (target << 6) | flags
    if (ONE << np.uint64(target)) & last_rank and promotion_mask:
        for piece in (QUEEN, ROOK, BISHOP, KNIGHT, KING):
            if promotion_mask & (1 << piece):
                out[n] = move | (piece << 12)
                n += 1
    else:
        out[n] = move
        n += 1
    return n


@kernel
def _add_targets(out, n, origin, targets, flags):
    while targets:
        target = lsb(targets)
        targets &= targets - ONE
        out[n] = origin | (target << 6) | flags
        n += 1
    return n


@kernel
def _gen_piece_moves(pos, ours, occupied, destinations, flags, out, n):
    """Append the moves of `ours`'s knights, bishops, rooks, queens and kings to `destinations`."""
    pieces = pos[ours + KNIGHT]
    while pieces:
        origin = lsb(pieces)
        pieces &= pieces - ONE
        n = _add_targets(out, n, origin, KNIGHT_ATTACKS[origin] & destinations, flags)
    pieces = pos[ours + BISHOP] | pos[ours + QUEEN]
    while pieces:
        origin = lsb(pieces)
        pieces &= pieces - ONE
        n = _add_targets(out, n, origin, bishop_attacks(origin, occupied) & destinations, flags)
    pieces = pos[ours + ROOK] | pos[ours + QUEEN]
    while pieces:
        origin = lsb(pieces)
        pieces &= pieces - ONE
        n = _add_targets(out, n, origin, rook_attacks(origin, occupied) & destinations, flags)
    pieces = pos[ours + KING]
    while pieces:
        origin = lsb(pieces)
        pieces &= pieces - ONE
        n = _add_targets(out, n, origin, KING_ATTACKS[origin] & destinations, flags)
    return n


@kernel
def gen_captures(pos, rules, out, n):
    """Append every pseudo-legal capture (en passant and anti-kings' friendly captures too)."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    ours = us * 8
    theirs = them * 8
    occupied = pos[OCC] | pos[8 + OCC]
    targets = pos[theirs + OCC] & ~pos[theirs + ANTIKING]
    capture = np.int64(CAPTURE_FLAG)
    last_rank = RANK_8 if us == 0 else RANK_1
    promotion_mask = rules[R_PROMOTION_MASK]

    pawns = pos[ours + PAWN]
    berolina = rules[R_BEROLINA]
    while pawns:
        origin = lsb(pawns)
        pawns &= pawns - ONE
        if berolina:
            hits = PAWN_FORWARD[us, origin] & targets
        else:
            hits = PAWN_DIAGONAL[us, origin] & targets
        while hits:
            target = lsb(hits)
            hits &= hits - ONE
            n = _add_pawn_move(out, n, origin, target, capture, promotion_mask, last_rank)
    ep = np.int64(pos[P_EP])
    if ep != NO_SQUARE and rules[R_EN_PASSANT]:
        takers = PAWN_DIAGONAL[them, ep] & pos[ours + PAWN]
        while takers:
            origin = lsb(takers)
            takers &= takers - ONE
            out[n] = origin | (ep << 6) | (MOVE_EN_PASSANT << 15) | CAPTURE_FLAG
            n += 1

    n = _gen_piece_moves(pos, ours, occupied, targets, capture, out, n)
    pieces = pos[ours + ANTIKING]
    if pieces:
        friends = pos[ours + OCC] & ~pos[ours + KING] & ~pos[ours + ANTIKING]
        origin = lsb(pieces)
        n = _add_targets(out, n, origin, KING_ATTACKS[origin] & friends, capture)
    return n


@kernel
def gen_quiets(pos, rules, out, n):
    """Append every pseudo-legal non-capture: pushes, piece moves, castling, the king's leap."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    ours = us * 8
    occupied = pos[OCC] | pos[8 + OCC]
    empty = ~occupied
    quiet = np.int64(0)
    last_rank = RANK_8 if us == 0 else RANK_1
    start_rank = RANK_2 if us == 0 else RANK_7
    promotion_mask = rules[R_PROMOTION_MASK]

    pawns = pos[ours + PAWN]
    berolina = rules[R_BEROLINA]
    double_step = rules[R_DOUBLE_STEP]
    while pawns:
        origin = lsb(pawns)
        pawns &= pawns - ONE
        if berolina:
            steps = PAWN_DIAGONAL[us, origin] & empty
            while steps:
                target = lsb(steps)
                steps &= steps - ONE
                n = _add_pawn_move(out, n, origin, target, quiet, promotion_mask, last_rank)
        else:
            single = PAWN_FORWARD[us, origin] & empty
            if single:
                target = lsb(single)
                n = _add_pawn_move(out, n, origin, target, quiet, promotion_mask, last_rank)
                if double_step and (ONE << np.uint64(origin)) & start_rank:
                    double = PAWN_FORWARD[us, target] & empty
                    if double:
                        out[n] = origin | (lsb(double) << 6) | (MOVE_DOUBLE << 15)
                        n += 1

    n = _gen_piece_moves(pos, ours, occupied, empty, quiet, out, n)
    pieces = pos[ours + ANTIKING]
    if pieces:
        origin = lsb(pieces)
        n = _add_targets(out, n, origin, KING_ATTACKS[origin] & empty, quiet)

    if rules[R_KING_LEAP]:
        leap = pos[P_LEAP]
        if leap & np.uint64(1 << (2 * us)) and pos[ours + KING]:
            origin = lsb(pos[ours + KING])
            n = _add_targets(out, n, origin, KNIGHT_ATTACKS[origin] & empty, quiet)
        if leap & np.uint64(2 << (2 * us)) and pos[ours + ANTIKING]:
            origin = lsb(pos[ours + ANTIKING])
            n = _add_targets(out, n, origin, KNIGHT_ATTACKS[origin] & empty, quiet)

    if rules[R_CASTLING] and pos[P_CASTLE]:
        rights = pos[P_CASTLE] >> np.uint64(2 * us)
        home = 56 * us
        king_home = np.uint64(1) << np.uint64(home + 4)
        if pos[ours + KING] & king_home:
            royal = rules[R_ROYAL_KING]
            short_path = np.uint64(0x60) << np.uint64(home)
            long_path = np.uint64(0x0E) << np.uint64(home)
            if (rights & ONE and pos[ours + ROOK] & (ONE << np.uint64(home + 7))
                    and not occupied & short_path):
                if not royal or not (
                        king_attackers(pos, home + 4, them, occupied, rules)
                        or king_attackers(pos, home + 5, them, occupied, rules)
                        or king_attackers(pos, home + 6, them, occupied, rules)):
                    out[n] = (home + 4) | ((home + 6) << 6) | (MOVE_CASTLE << 15)
                    n += 1
            if (rights & np.uint64(2) and pos[ours + ROOK] & (ONE << np.uint64(home))
                    and not occupied & long_path):
                if not royal or not (
                        king_attackers(pos, home + 4, them, occupied, rules)
                        or king_attackers(pos, home + 3, them, occupied, rules)
                        or king_attackers(pos, home + 2, them, occupied, rules)):
                    out[n] = (home + 4) | ((home + 2) << 6) | (MOVE_CASTLE << 15)
                    n += 1
    return n


@kernel
def make_move(stack, src, dst, move, rules):
    """Write into stack[dst] the position after `move` (a generated move) from stack[src]."""
    pos = stack[src]
    new = stack[dst]
    for i in range(POS_SIZE):
        new[i] = pos[i]
    move = np.int64(move)
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    ours = us * 8
    theirs = them * 8
    key = pos[P_KEY]
    old_ep = np.int64(pos[P_EP])
    key ^= ZOBRIST_EP[old_ep] ^ ZOBRIST_SIDE
    new[P_EP] = NO_SQUARE
    new[P_SIDE] = them
    new[P_PLY] = pos[P_PLY] + ONE
    kind = (move >> 15) & 7
    if kind == MOVE_PASS:
        new[P_HALFMOVE] = pos[P_HALFMOVE] + ONE
        new[P_KEY] = key
        return

    origin = move & 63
    target = (move >> 6) & 63
    promotion = (move >> 12) & 7
    origin_bit = ONE << np.uint64(origin)
    target_bit = ONE << np.uint64(target)
    piece = piece_type_at(pos, us, origin)
    halfmove = pos[P_HALFMOVE] + ONE

    if kind == MOVE_EN_PASSANT:
        victim = target - 8 if us == 0 else target + 8
        victim_bit = ONE << np.uint64(victim)
        new[theirs + PAWN] ^= victim_bit
        new[theirs + OCC] ^= victim_bit
        key ^= ZOBRIST_PIECE[theirs + PAWN, victim]
        halfmove = ZERO
    elif move & CAPTURE_FLAG:
        if piece == ANTIKING:
            victim_type = piece_type_at(pos, us, target)
            new[ours + victim_type] ^= target_bit
            new[ours + OCC] ^= target_bit
            key ^= ZOBRIST_PIECE[ours + victim_type, target]
        else:
            victim_type = piece_type_at(pos, them, target)
            new[theirs + victim_type] ^= target_bit
            new[theirs + OCC] ^= target_bit
            key ^= ZOBRIST_PIECE[theirs + victim_type, target]
        halfmove = ZERO

    both = origin_bit | target_bit
    new[ours + piece] ^= both
    new[ours + OCC] ^= both
    key ^= ZOBRIST_PIECE[ours + piece, origin] ^ ZOBRIST_PIECE[ours + piece, target]
    if piece == PAWN:
        halfmove = ZERO
        if promotion:
            new[ours + PAWN] ^= target_bit
            new[ours + promotion] ^= target_bit
            key ^= ZOBRIST_PIECE[ours + PAWN, target] ^ ZOBRIST_PIECE[ours + promotion, target]
        elif kind == MOVE_DOUBLE and rules[R_EN_PASSANT]:
            passed = (origin + target) >> 1
            if PAWN_DIAGONAL[us, passed] & pos[theirs + PAWN]:
                new[P_EP] = passed
                key ^= ZOBRIST_EP[passed]
    elif kind == MOVE_CASTLE:
        if target > origin:
            rook_from, rook_to = origin + 3, origin + 1
        else:
            rook_from, rook_to = origin - 4, origin - 1
        rook_both = (ONE << np.uint64(rook_from)) | (ONE << np.uint64(rook_to))
        new[ours + ROOK] ^= rook_both
        new[ours + OCC] ^= rook_both
        key ^= ZOBRIST_PIECE[ours + ROOK, rook_from] ^ ZOBRIST_PIECE[ours + ROOK, rook_to]

    castle = pos[P_CASTLE]
    if castle:
        kept = castle & CASTLE_KEEP[origin] & CASTLE_KEEP[target]
        if kept != castle:
            new[P_CASTLE] = kept
            key ^= ZOBRIST_CASTLE[castle] ^ ZOBRIST_CASTLE[kept]
    leap = pos[P_LEAP]
    if leap and (piece == KING or piece == ANTIKING):
        bit = np.uint64(1 << (2 * us + (piece == ANTIKING)))
        if leap & bit:
            new[P_LEAP] = leap ^ bit
            key ^= ZOBRIST_LEAP[leap] ^ ZOBRIST_LEAP[leap ^ bit]

    new[P_HALFMOVE] = halfmove
    new[P_KEY] = key


@kernel
def compute_key(pos):
    """The Zobrist key of a position, computed from scratch."""
    key = ZERO
    for index in range(16):
        if index & 7 == OCC:
            continue
        pieces = pos[index]
        while pieces:
            square = lsb(pieces)
            pieces &= pieces - ONE
            key ^= ZOBRIST_PIECE[index, square]
    if pos[P_SIDE]:
        key ^= ZOBRIST_SIDE
    key ^= ZOBRIST_CASTLE[np.int64(pos[P_CASTLE])]
    key ^= ZOBRIST_LEAP[np.int64(pos[P_LEAP])]
    key ^= ZOBRIST_EP[np.int64(pos[P_EP])]
    return key


@kernel
def _filter_royal(pos, rules, out, start, end):
    """Keep the moves in out[start:end] that leave the king safe (no anti-kings); return new end."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    ours = us * 8
    theirs = them * 8
    occupied = pos[OCC] | pos[8 + OCC]
    king = lsb(pos[ours + KING])
    checkers = king_attackers(pos, king, them, occupied, rules)
    evasion_targets = FULL
    double_check = False
    if checkers:
        if checkers & (checkers - ONE):
            double_check = True
        else:
            evasion_targets = checkers | BETWEEN[king, lsb(checkers)]
    pinned = ZERO
    snipers = ((rook_attacks(king, ZERO) & (pos[theirs + ROOK] | pos[theirs + QUEEN]))
               | (bishop_attacks(king, ZERO) & (pos[theirs + BISHOP] | pos[theirs + QUEEN])))
    while snipers:
        sniper = lsb(snipers)
        snipers &= snipers - ONE
        blockers = BETWEEN[king, sniper] & occupied
        if blockers and not (blockers & (blockers - ONE)) and blockers & pos[ours + OCC]:
            pinned |= blockers
    sliders_b = pos[theirs + BISHOP] | pos[theirs + QUEEN]
    sliders_r = pos[theirs + ROOK] | pos[theirs + QUEEN]

    kept = start
    for i in range(start, end):
        move = np.int64(out[i])
        origin = move & 63
        target = (move >> 6) & 63
        kind = (move >> 15) & 7
        origin_bit = ONE << np.uint64(origin)
        target_bit = ONE << np.uint64(target)
        legal = True
        if origin == king:
            if kind != MOVE_CASTLE:
                legal = king_attackers(pos, target, them, occupied ^ origin_bit, rules) == ZERO
        elif double_check:
            legal = False
        elif kind == MOVE_EN_PASSANT:
            victim_bit = ONE << np.uint64(target - 8 if us == 0 else target + 8)
            after = (occupied ^ origin_bit ^ victim_bit) | target_bit
            if checkers & ~victim_bit & ~(sliders_b | sliders_r):
                legal = False
            elif bishop_attacks(king, after) & sliders_b:
                legal = False
            elif rook_attacks(king, after) & sliders_r:
                legal = False
        else:
            if not (target_bit & evasion_targets):
                legal = False
            elif pinned & origin_bit and not (target_bit & LINE[king, origin]):
                legal = False
        if legal:
            out[kept] = out[i]
            kept += 1
    return kept


@kernel
def _filter_by_making(stack, idx, rules, out, start, end):
    """Keep the moves in out[start:end] after which the mover is safe, testing each by making it."""
    us = np.int64(stack[idx, P_SIDE])
    scratch = idx + 1
    kept = start
    for i in range(start, end):
        make_move(stack, idx, scratch, out[i], rules)
        if side_is_safe(stack[scratch], us, rules):
            out[kept] = out[i]
            kept += 1
    return kept


@kernel
def _filter(stack, idx, rules, out, start, end):
    if rules[R_ANTI_KINGS]:
        return _filter_by_making(stack, idx, rules, out, start, end)
    if rules[R_ROYAL_KING]:
        return _filter_royal(stack[idx], rules, out, start, end)
    return end


@kernel
def gen_legal(stack, idx, rules, mlist):
    """Legal moves of stack[idx] by the movement rules, into mlist[idx]; returns their number.

    Compulsory capture is applied (captures only, if any capture is legal).  End-of-game
    conditions and the pass are not: see `legal_moves`.
    """
    pos = stack[idx]
    out = mlist[idx]
    first = np.int64(0)
    n = gen_captures(pos, rules, out, first)
    n = _filter(stack, idx, rules, out, first, n)
    if n and rules[R_MUST_CAPTURE]:
        return n
    end = gen_quiets(pos, rules, out, n)
    return _filter(stack, idx, rules, out, n, end)


@kernel
def over_by_position(pos, rules):
    """True if the game is over whoever moves: a side extinct, or the ply limit reached."""
    extinction = rules[R_EXTINCTION_COUNT]
    if extinction >= 0:
        if count(pos[OCC]) <= extinction or count(pos[8 + OCC]) <= extinction:
            return True
    limit = rules[R_PLY_LIMIT]
    if limit > 0 and np.int64(pos[P_PLY]) >= limit:
        return True
    return False


@kernel
def opponent_can_move_after_pass(stack, idx, rules, mlist):
    """True if the side not to move in stack[idx] would have a legal move after a pass."""
    scratch = idx + 1
    make_move(stack, idx, scratch, np.int32(PASS_MOVE), rules)
    return gen_legal(stack, scratch, rules, mlist) > 0


@kernel
def legal_moves(stack, idx, rules, mlist):
    """The moves the side to move may play in stack[idx], into mlist[idx]; returns their number.

    None when the game is over by rule (extinction, ply limit, mate, no move for either
    side); exactly one, the pass, when the rules make a side with no move pass.  Draw
    rules that depend on history or counters (repetition, 50 moves) are not applied.
    """
    pos = stack[idx]
    if over_by_position(pos, rules):
        return 0
    n = gen_legal(stack, idx, rules, mlist)
    if n == 0 and rules[R_PASS_ON_NO_MOVE] and check_state(pos, rules) == 0:
        if opponent_can_move_after_pass(stack, idx, rules, mlist):
            mlist[idx, 0] = PASS_MOVE
            return 1
    return n

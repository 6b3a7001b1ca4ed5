"""Move generation, make-move, game status and perft: the numba kernels of the rules core.

Every kernel takes plain arrays:
- `stack`: uint64[rows, POS_SIZE], one position per row (layout in `engine.bitboards`).
  Kernels working on row `idx` may use rows idx+1 and idx+2 as scratch space.
- `rules`: int64[R_SIZE], a rule set's fields (`engine.rules.RuleSet.to_array`).
- `mlist`: int32[rows, MAX_MOVES], the move buffer of each row.

Integer arguments are always int64 (never literal constants), so each kernel compiles
exactly once and loads from the cache without the numba recursion/overload crash.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel, native
from .bitboards import (
    ANTIKING, BETWEEN, BISHOP, CAPTURE_FLAG, CASTLE_KEEP, FULL, KING, KING_ATTACKS,
    KNIGHT, KNIGHT_ATTACKS, LINE, MOVE_CASTLE, MOVE_DOUBLE, MOVE_EN_PASSANT, MOVE_PASS,
    NO_SQUARE, OCC, ONE, P_CASTLE, P_EP, P_HALFMOVE, P_KEY, P_LEAP, P_PLY, P_SIDE, PASS_MOVE, POS_SIZE,
    PAWN, PAWN_DIAGONAL, PAWN_FORWARD, QUEEN, RANK_1, RANK_2, RANK_7, RANK_8, ROOK, ZERO,
    ZOBRIST_CASTLE, ZOBRIST_EP, ZOBRIST_LEAP, ZOBRIST_PIECE, ZOBRIST_SIDE, bishop_attacks,
    count, lsb, rook_attacks,
)
from .rulesets import (
    DRAW, LOSS, PASS, PIECE_COUNT, R_ANTI_KINGS, R_ANTICHECKMATE_VALUE, R_BEROLINA, R_CASTLING,
    R_CHECKMATE_VALUE, R_DOUBLE_STEP, R_EN_PASSANT, R_EXTINCTION_COUNT, R_EXTINCTION_PREVAILS,
    R_EXTINCTION_REASON, R_KING_LEAP, R_MUST_CAPTURE, R_PASS_ON_NO_MOVE, R_PLY_LIMIT,
    R_PROMOTION_MASK, R_ROYAL_KING, R_STALEMATE_VALUE, REASON_INDEX, WIN,
)

ONGOING = -1
RESULT_WHITE, RESULT_BLACK, RESULT_DRAW = 0, 1, 2
_CHECKMATE = REASON_INDEX["checkmate"]
_ANTI_CHECKMATE = REASON_INDEX["anti-checkmate"]
_STALEMATE = REASON_INDEX["stalemate"]
_STALEMATE_COUNT = REASON_INDEX["stalemate by piece count"]
_PLY_LIMIT = REASON_INDEX["ply limit"]
_BOTH_STUCK = REASON_INDEX["both sides without a move"]


# ---------------------------------------------------------------------------------------
# Queries


@kernel
def piece_type_at(pos, color, square):
    """Type of `color`'s piece on `square`, or -1 if it has none there."""
    bit = ONE << np.uint64(square)
    base = color * 8
    for piece in range(7):
        if pos[base + piece] & bit:
            return piece
    return -1


@kernel
def pawn_attackers(pos, square, by, berolina):
    """Pawns of color `by` that attack `square` (diagonally, or straight ahead if Berolina)."""
    if berolina:
        return PAWN_FORWARD[1 - by, square] & pos[by * 8 + PAWN]
    return PAWN_DIAGONAL[1 - by, square] & pos[by * 8 + PAWN]


@kernel
def king_attackers(pos, square, by, occupied, rules):
    """Pieces of color `by` giving check to a king on `square` (anti-kings never do)."""
    base = by * 8
    attackers = KNIGHT_ATTACKS[square] & pos[base + KNIGHT]
    attackers |= KING_ATTACKS[square] & pos[base + KING]
    attackers |= bishop_attacks(square, occupied) & (pos[base + BISHOP] | pos[base + QUEEN])
    attackers |= rook_attacks(square, occupied) & (pos[base + ROOK] | pos[base + QUEEN])
    attackers |= pawn_attackers(pos, square, by, rules[R_BEROLINA])
    return attackers


@kernel
def antiking_attackers(pos, square, by, occupied, rules):
    """Pieces of color `by` attacking an anti-king on `square` (kings and anti-kings never do)."""
    base = by * 8
    attackers = KNIGHT_ATTACKS[square] & pos[base + KNIGHT]
    attackers |= bishop_attacks(square, occupied) & (pos[base + BISHOP] | pos[base + QUEEN])
    attackers |= rook_attacks(square, occupied) & (pos[base + ROOK] | pos[base + QUEEN])
    attackers |= pawn_attackers(pos, square, by, rules[R_BEROLINA])
    return attackers


@kernel
def check_state(pos, rules):
    """Bit 1: the side to move is in check; bit 2: its anti-king is in anti-check."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    occupied = pos[OCC] | pos[8 + OCC]
    state = 0
    if rules[R_ROYAL_KING] and pos[us * 8 + KING]:
        if king_attackers(pos, lsb(pos[us * 8 + KING]), them, occupied, rules):
            state |= 1
    if rules[R_ANTI_KINGS] and pos[us * 8 + ANTIKING]:
        if antiking_attackers(pos, lsb(pos[us * 8 + ANTIKING]), them, occupied, rules) == ZERO:
            state |= 2
    return state


@kernel
def side_is_safe(pos, side, rules):
    """True if `side`'s king is not attacked and its anti-king (if any) is attacked."""
    other = 1 - side
    occupied = pos[OCC] | pos[8 + OCC]
    if rules[R_ROYAL_KING] and pos[side * 8 + KING]:
        if king_attackers(pos, lsb(pos[side * 8 + KING]), other, occupied, rules):
            return False
    if rules[R_ANTI_KINGS] and pos[side * 8 + ANTIKING]:
        if antiking_attackers(pos, lsb(pos[side * 8 + ANTIKING]), other, occupied, rules) == ZERO:
            return False
    return True


# ---------------------------------------------------------------------------------------
# Pseudo-legal generation


@kernel
def piece_attacks(pos, color, occupied):
    """Every square a knight, bishop, rook, queen or king of `color` attacks (pawns and
    anti-kings left out)."""
    base = color * 8
    attacked = ZERO
    pieces = pos[base + KNIGHT]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= KNIGHT_ATTACKS[square]
    pieces = pos[base + BISHOP] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= bishop_attacks(square, occupied)
    pieces = pos[base + ROOK] | pos[base + QUEEN]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= rook_attacks(square, occupied)
    pieces = pos[base + KING]
    while pieces:
        square = lsb(pieces)
        pieces &= pieces - ONE
        attacked |= KING_ATTACKS[square]
    return attacked


@kernel
def pawn_attacks(pos, color, berolina):
    """Every square a pawn of `color` attacks (diagonally, Berolina pawns straight ahead)."""
    attacked = ZERO
    pawns = pos[color * 8 + PAWN]
    while pawns:
        square = lsb(pawns)
        pawns &= pawns - ONE
        if berolina:
            attacked |= PAWN_FORWARD[color, square]
        else:
            attacked |= PAWN_DIAGONAL[color, square]
    return attacked


@kernel
def attacked_squares(pos, color, occupied, berolina):
    """Every square a piece of `color` attacks (pawns diagonally, Berolina pawns straight
    ahead; anti-kings left out)."""
    return piece_attacks(pos, color, occupied) | pawn_attacks(pos, color, berolina)


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


# ---------------------------------------------------------------------------------------
# Make move


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


# ---------------------------------------------------------------------------------------
# Legal generation


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
def _opponent_can_move_after_pass(stack, idx, rules, mlist):
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
        if _opponent_can_move_after_pass(stack, idx, rules, mlist):
            mlist[idx, 0] = PASS_MOVE
            return 1
    return n


@kernel
def _result_for(side, value):
    """The result code when `value` (WIN/LOSS/DRAW) applies to `side`."""
    if value == WIN:
        return side
    if value == LOSS:
        return 1 - side
    return RESULT_DRAW


@kernel
def game_status(stack, idx, rules, mlist):
    """ONGOING, or reason * 3 + result (0 white wins, 1 black wins, 2 draw) for stack[idx].

    Draw rules that depend on history or counters are left to the caller.
    """
    pos = stack[idx]
    side = np.int64(pos[P_SIDE])
    other = 1 - side
    extinction = rules[R_EXTINCTION_COUNT]
    own_pieces = count(pos[side * 8 + OCC])
    other_pieces = count(pos[other * 8 + OCC])
    side_extinct = extinction >= 0 and own_pieces <= extinction
    other_extinct = extinction >= 0 and other_pieces <= extinction

    n = gen_legal(stack, idx, rules, mlist)
    checks = check_state(pos, rules)
    mated = n == 0 and checks != 0
    mate = ONGOING
    if mated:
        if checks & 1:
            mate = _CHECKMATE * 3 + _result_for(side, rules[R_CHECKMATE_VALUE])
        else:
            mate = _ANTI_CHECKMATE * 3 + _result_for(side, rules[R_ANTICHECKMATE_VALUE])
    if side_extinct or other_extinct:
        if mated and not rules[R_EXTINCTION_PREVAILS]:
            return mate
        winner = side if side_extinct else other
        return rules[R_EXTINCTION_REASON] * 3 + winner
    if mated:
        return mate
    if n == 0:
        value = rules[R_STALEMATE_VALUE]
        if value == PIECE_COUNT:
            if own_pieces == other_pieces:
                return _STALEMATE_COUNT * 3 + RESULT_DRAW
            return _STALEMATE_COUNT * 3 + (side if own_pieces < other_pieces else other)
        if value == PASS:
            if not _opponent_can_move_after_pass(stack, idx, rules, mlist):
                return _BOTH_STUCK * 3 + RESULT_DRAW
        else:
            return _STALEMATE * 3 + _result_for(side, value)
    limit = rules[R_PLY_LIMIT]
    if limit > 0 and np.int64(pos[P_PLY]) >= limit:
        if own_pieces == other_pieces:
            return _PLY_LIMIT * 3 + RESULT_DRAW
        return _PLY_LIMIT * 3 + (side if own_pieces < other_pieces else other)
    return ONGOING


def _atomic_load(array, index):
    """array[index], read atomically (monotonic) and never kept in a register when compiled."""
    return array[index]


atomic_load = native("atomic_load", _atomic_load)


@kernel
def perft(stack, idx, depth, rules, mlist, stop):
    """Number of leaf nodes `depth` (>= 1) plies below stack[idx]; the last ply is counted in bulk.

    `stop` is int64[1]: another thread writes stop[0] = 1 to end the count early.  Every
    interior node reads it (atomically, so a compiled loop cannot keep it in a register)
    and returns 0 at once when it is set; a stopped count is therefore short, and the
    caller, which set the flag, must not report it (see `Game.perft`).
    """
    n = legal_moves(stack, idx, rules, mlist)
    if depth <= 1:
        return np.int64(n)
    if atomic_load(stop, np.int64(0)) != 0:
        return np.int64(0)
    total = np.int64(0)
    child = idx + 1
    for i in range(n):
        make_move(stack, idx, child, mlist[idx, i], rules)
        total += perft(stack, child, depth - 1, rules, mlist, stop)
    return total

"""Static scores: what a position is worth to the side to move without searching it.

`evaluate` scores chess-like positions (material, centre, pawn advance and reach) and, in
the compulsory-capture rule sets without a learned evaluation, fewer and the right pieces.
`evaluate_losing` scores a quiet node under compulsory capture: both sides' legal mobility
(the opponent's after a pass), then, where every pseudo-legal move is legal (antichess,
giveaway, suicide, hackerrank), the learned linear evaluation (engine.search.evaluation)
plus the network's correction (engine.search.network).  `count_moves_and_captures` counts
moves without generating them, for the leaves.
"""

from __future__ import annotations

import numpy as np

from ..jit.modes import kernel
from ..rules.bitboards import (
    ANTIKING, BISHOP, CAPTURE_FLAG, KING, KING_ATTACKS, KNIGHT, KNIGHT_ATTACKS, MOVE_PASS, NO_SQUARE,
    OCC, ONE, P_CASTLE, P_EP, P_SIDE, PAWN, PAWN_DIAGONAL, PAWN_FORWARD, QUEEN,
    RANK_1, RANK_2, RANK_7, RANK_8, ROOK, bishop_attacks, count, lsb, rook_attacks,
)
from ..rules.attacks import antiking_attackers
from ..rules.movegen import gen_legal, make_move
from ..rules.rulesets import (
    LEARNED_ANTICHESS, LEARNED_LOSERS, R_ANTI_KINGS, R_BEROLINA, R_CASTLING, R_DOUBLE_STEP, R_EN_PASSANT, R_LEARNED_EVALUATION,
    R_MUST_CAPTURE, R_PROMOTION_MASK, R_ROYAL_KING,
)
from .evaluation import learned_score_with_reach, losers_score, reach, reach_and_attacks
from .network import network_score, network_score_with_attacks

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
MOBILITY_WEIGHT = 26
FORCING_BONUS = 20
for _table in (CHESS_VALUES, LOSING_VALUES, CENTER):
    _table.setflags(write=False)


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
    moves, above all only forced captures, is what loses these games.  The rule set's
    `learned_evaluation` decides: under "antichess" (antichess, giveaway, suicide, hackerrank:
    every pseudo-legal move legal, so the moves are counted) the learned
    evaluation (engine.search.evaluation) plus the network's correction (engine.search.network) scores
    the position; in losers its own learned weights plus its own network; elsewhere `evaluate` plus hand-set
    mobility terms.
    """
    pos = stack[idx]
    make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
    if rules[R_LEARNED_EVALUATION] == LEARNED_ANTICHESS:  # every pseudo-legal move legal (RuleSet checks)
        their_moves, their_captures = count_moves_and_captures(stack[idx + 1], rules)
        us = np.int64(pos[P_SIDE])
        occupied = pos[OCC] | pos[8 + OCC]
        our_reach, our_attacks = reach_and_attacks(pos, us, occupied)
        their_reach, their_attacks = reach_and_attacks(pos, 1 - us, occupied)
        return (learned_score_with_reach(pos, our_moves - their_moves, their_captures > 0, our_reach - their_reach)
                + network_score_with_attacks(pos, network, our_attacks, their_attacks))
    their_moves = gen_legal(stack, idx + 1, rules, mlist)
    forcing = their_moves > 0 and (np.int64(mlist[idx + 1, 0]) & CAPTURE_FLAG) != 0
    if rules[R_LEARNED_EVALUATION] == LEARNED_LOSERS:
        return losers_score(pos, our_moves - their_moves, forcing) + network_score(pos, network)
    score = evaluate(pos, rules)
    score += MOBILITY_WEIGHT * (our_moves - their_moves)
    if forcing:
        score += FORCING_BONUS  # whatever we do now, they are likely to be forced to capture
    return score


@kernel
def losing_terms(stack, idx, rules, mlist):
    """(our legal moves minus theirs after a pass, whether theirs would all be captures
    forced): the legal-mobility terms of `evaluate_losing` (counted where every pseudo-legal
    move is legal, generated elsewhere); tools/train_eval.py computes its features with this."""
    if pseudo_legal_is_legal(rules):
        our_moves, _ = count_moves_and_captures(stack[idx], rules)
        make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
        their_moves, their_captures = count_moves_and_captures(stack[idx + 1], rules)
        return our_moves - their_moves, their_captures > 0
    our_moves = gen_legal(stack, idx, rules, mlist)
    make_move(stack, idx, idx + 1, np.int32(MOVE_PASS << 15), rules)
    their_moves = gen_legal(stack, idx + 1, rules, mlist)
    return our_moves - their_moves, their_moves > 0 and (np.int64(mlist[idx + 1, 0]) & CAPTURE_FLAG) != 0

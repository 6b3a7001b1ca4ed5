"""Killers and histories after a cut-off (engine.search.ordering.record_cutoff and
record_history): the move that cut off rises in its table (quiet or capture), the
moves searched before it fall in theirs, later moves and the other side's tables are left
alone, each update is pulled back in proportion to the entry (gravity), no entry passes
+-HISTORY_LIMIT however often it is updated, and order_moves lets a capture's history
overturn its victim-and-attacker order."""

from __future__ import annotations

import numpy as np

from engine import Game
from engine.rules.bitboards import CAPTURE_FLAG, MAX_MOVES
from engine.search.ordering import (CAPTURES, HISTORY_BONUS_LIMIT, HISTORY_LIMIT, HISTORY_SHAPE, history_update,
                                    order_moves, record_cutoff, record_history)
from engine.search.state import MAX_PLY

# Chess after 1.e4 d5 2.Nc3 Nf6: White may take on d5 with the pawn or the knight.
TWO_CAPTURES = "rnbqkb1r/ppp1pppp/5n2/3p4/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 3"


def _tables():
    return np.zeros((MAX_PLY, 2), dtype=np.int32), np.zeros(HISTORY_SHAPE, dtype=np.int32)


def _entry(history, side, code):
    return int(history[side, code & 63, (code >> 6) & 63])


def _cutoff(game, codes, cut, depth, ply, killers, history):
    """record_cutoff (record_history for a capture) with `codes` as the node's move
    list, the cut-th of them cutting off."""
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        for i, code in enumerate(codes):
            mlist[idx, i] = code
        if codes[cut] & CAPTURE_FLAG:
            record_history(stack, np.int64(idx), mlist, np.int64(cut), np.int64(codes[cut]), np.int64(depth), history)
        else:
            record_cutoff(stack, np.int64(idx), mlist, np.int64(cut), np.int64(codes[cut]), np.int64(depth),
                          np.int64(ply), killers, history)


def _order(game, history):
    """The game's legal move codes in the order order_moves scores them (no table move,
    no killers)."""
    killers = np.zeros((MAX_PLY, 2), dtype=np.int32)
    codes = [move.code for move in game.legal_moves()]
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        scores = np.zeros((idx + 1, MAX_MOVES), dtype=np.int32)
        for i, code in enumerate(codes):
            mlist[idx, i] = code
        order_moves(stack, np.int64(idx), mlist, scores, np.int64(len(codes)), np.int64(0), killers, history,
                    np.int64(0), rules)
        ranked = sorted(range(len(codes)), key=lambda i: -int(scores[idx, i]))
        return [int(mlist[idx, i]) for i in ranked]


def test_a_cutoff_raises_its_move_and_lowers_the_quiet_moves_searched_before_it():
    game = Game("antichess")
    codes = [move.code for move in game.legal_moves()][:6]
    killers, history = _tables()
    _cutoff(game, codes, 3, 6, 2, killers, history)
    assert killers[2, 0] == codes[3]
    assert _entry(history, 0, codes[3]) > 0
    assert all(_entry(history, 0, code) < 0 for code in codes[:3])
    assert all(_entry(history, 0, code) == 0 for code in codes[4:])
    assert not history[1].any()  # White's cut-off: Black's table untouched
    assert not history[CAPTURES:].any()  # no capture searched: the capture tables untouched
    deeper_killers, deeper = _tables()
    _cutoff(game, codes, 3, 12, 2, deeper_killers, deeper)
    assert _entry(deeper, 0, codes[3]) > _entry(history, 0, codes[3])  # a deeper cut-off counts more


def test_history_entries_stay_within_their_limit():
    game = Game("antichess", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2")
    codes = [move.code for move in game.legal_moves()][:4]  # no capture in this position
    killers, history = _tables()
    rng = np.random.default_rng(7)
    for _ in range(3000):
        cut = int(rng.integers(0, 2)) * 3  # the first or the last of the four cuts off
        _cutoff(game, codes, cut, int(rng.integers(1, 40)), 0, killers, history)
        assert np.abs(history).max() <= HISTORY_LIMIT
    # The two middle moves never cut off and always came before the last one.
    assert _entry(history, 0, codes[1]) < 0 and _entry(history, 0, codes[2]) < 0
    assert _entry(history, 0, codes[0]) > _entry(history, 0, codes[1])


def test_a_bonus_grows_with_depth_squared_up_to_its_cap_and_shrinks_near_the_limit():
    game = Game("antichess")
    codes = [move.code for move in game.legal_moves()][:2]
    for depth in (1, 5, 16, 40):
        killers, history = _tables()
        _cutoff(game, codes, 1, depth, 0, killers, history)
        bonus = min(8 * depth * depth, HISTORY_BONUS_LIMIT)
        assert _entry(history, 0, codes[1]) == bonus
        assert _entry(history, 0, codes[0]) == -bonus
    # Gravity: from an entry of `old`, a bonus b moves it to old + b - old * |b| / limit,
    # so an entry at the limit stays there and a large one moves less than a small one.
    history = np.zeros(HISTORY_SHAPE, dtype=np.int32)
    after = {}
    for old, bonus in ((0, 2048), (6000, 2048), (HISTORY_LIMIT, 2048), (-HISTORY_LIMIT, 2048),
                       (-3000, -512), (HISTORY_LIMIT, -HISTORY_BONUS_LIMIT)):
        history[1, 12, 28] = old
        history_update(history, np.int64(1), np.int64(12), np.int64(28), np.int64(bonus))
        after[old, bonus] = int(history[1, 12, 28])
        assert after[old, bonus] == old + bonus - (old * abs(bonus)) // HISTORY_LIMIT
        assert abs(after[old, bonus]) <= HISTORY_LIMIT
    assert after[HISTORY_LIMIT, 2048] == HISTORY_LIMIT
    assert after[6000, 2048] - 6000 < after[0, 2048]


def test_a_capture_cutoff_moves_the_capture_tables_only():
    game = Game("chess", TWO_CAPTURES)
    moves = game.legal_moves()
    captures = [move.code for move in moves if move.code & CAPTURE_FLAG]
    quiets = [move.code for move in moves if not move.code & CAPTURE_FLAG][:3]
    assert len(captures) == 2
    # A quiet move, the first capture, then the second capture cuts off.
    codes = [quiets[0], captures[0], captures[1], quiets[1]]
    killers, history = _tables()
    _cutoff(game, codes, 2, 6, 3, killers, history)
    assert _entry(history, CAPTURES, captures[1]) == 8 * 6 * 6
    assert _entry(history, CAPTURES, captures[0]) == -8 * 6 * 6
    assert not history[:CAPTURES].any()  # quiet moves searched before it are not blamed
    assert not history[CAPTURES + 1].any()
    assert not killers.any()  # a capture is never a killer
    # A quiet cut-off after a capture: the capture falls in its own table, not the quiet one.
    killers, history = _tables()
    codes = [captures[0], quiets[0], quiets[1]]
    _cutoff(game, codes, 2, 5, 0, killers, history)
    assert _entry(history, CAPTURES, captures[0]) == -8 * 5 * 5
    assert _entry(history, 0, quiets[0]) == -8 * 5 * 5
    assert _entry(history, 0, quiets[1]) == 8 * 5 * 5
    assert _entry(history, 0, captures[0]) == 0


def test_capture_history_can_overturn_the_victim_and_attacker_order():
    game = Game("chess", TWO_CAPTURES)
    captures = [move.code for move in game.legal_moves() if move.code & CAPTURE_FLAG]
    by_pawn, by_knight = sorted(captures, key=lambda code: (code & 63) != 28)  # e4 is square 28
    killers, history = _tables()
    order = _order(game, history)
    assert order[:2] == [by_pawn, by_knight]  # same victim: the lesser attacker first
    for _ in range(4):
        _cutoff(game, [by_pawn, by_knight], 1, 8, 0, killers, history)
    order = _order(game, history)
    assert order[:2] == [by_knight, by_pawn]  # the knight's capture has cut off where the pawn's did not
    # However bad their history, captures still come before every quiet move.
    history[CAPTURES, by_knight & 63, (by_knight >> 6) & 63] = -HISTORY_LIMIT
    history[CAPTURES, by_pawn & 63, (by_pawn >> 6) & 63] = -HISTORY_LIMIT
    history[0] = HISTORY_LIMIT
    assert set(_order(game, history)[:2]) == {by_knight, by_pawn}

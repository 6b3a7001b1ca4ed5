"""Killers and history after a quiet cut-off (engine.search.ordering.record_cutoff): the
move that cut off rises, the quiet moves searched before it fall, later moves and the other
side's table are left alone, each update is pulled back in proportion to the entry
(gravity), and no entry passes +-HISTORY_LIMIT however often it is updated."""

from __future__ import annotations

import numpy as np

from engine import Game
from engine.search.ordering import HISTORY_BONUS_LIMIT, HISTORY_LIMIT, history_update, record_cutoff
from engine.search.state import MAX_PLY


def _tables():
    return np.zeros((MAX_PLY, 2), dtype=np.int32), np.zeros((2, 64, 64), dtype=np.int32)


def _entry(history, side, code):
    return int(history[side, code & 63, (code >> 6) & 63])


def _cutoff(game, codes, cut, depth, ply, killers, history):
    """record_cutoff with `codes` as the node's move list, the cut-th of them cutting off."""
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        for i, code in enumerate(codes):
            mlist[idx, i] = code
        record_cutoff(stack, np.int64(idx), mlist, np.int64(cut), np.int64(codes[cut]), np.int64(depth),
                      np.int64(ply), killers, history)


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
    history = np.zeros((2, 64, 64), dtype=np.int32)
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

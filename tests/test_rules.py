"""Rule sets as validated records derived from a parent."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Game
from engine.rules.rulesets import (
    ANTICHESS, CHESS, R_MUST_CAPTURE, R_PROMOTION_MASK, R_ROYAL_KING, RULE_SETS, RuleError,
    get_rule_set, rule_set_names,
)


def test_the_ten_rule_sets_and_their_aliases():
    assert rule_set_names() == [
        "chess", "antichess", "giveaway", "suicide", "losers", "mit-antichess",
        "antiking-antichess", "antiking1", "antiking2", "hackerrank",
    ]
    assert get_rule_set("standard") is get_rule_set("normal") is get_rule_set("Chess") is CHESS
    with pytest.raises(RuleError, match="unknown rule set"):
        get_rule_set("crazyhouse")


def test_every_rule_set_derives_from_a_known_parent():
    assert CHESS.parent is None
    for rules in RULE_SETS.values():
        if rules is not CHESS:
            assert rules.parent in RULE_SETS
    assert RULE_SETS["giveaway"].parent == "antichess"
    assert RULE_SETS["antiking1"].parent == "antiking2"
    assert RULE_SETS["antiking-antichess"].parent == "mit-antichess"


@pytest.mark.parametrize("changes,message", [
    ({"berolina": True}, "Berolina"),
    ({"promotion": "qk"}, "royal king"),
    ({"promotion": "qx"}, "promotion"),
    ({"king_leap": True, "castling": False}, "anti_kings"),
    ({"royal_king": False, "anti_kings": True, "promotion": "q"}, "royal king"),
    ({"stalemate_value": 7}, "stalemate_value"),
    ({"extinction_count": 0}, "royal king"),
    ({"ply_limit": -1}, "ply_limit"),
    ({"first_mover": "black"}, "first mover"),
    ({"draw_rules": False}, "draw rule"),
])
def test_contradictory_rule_fields_are_rejected(changes, message):
    with pytest.raises(RuleError, match=message):
        CHESS.derive("broken", **changes)


def test_rule_array_carries_the_fields():
    array = ANTICHESS.to_array()
    assert array.dtype == np.int64 and not array.flags.writeable
    assert array[R_ROYAL_KING] == 0 and array[R_MUST_CAPTURE] == 1
    assert array[R_PROMOTION_MASK] == 0b111110  # knight, bishop, rook, queen, king
    assert RULE_SETS["hackerrank"].to_array()[R_PROMOTION_MASK] == 0


def test_a_derived_rule_set_runs_on_the_same_kernels():
    # A new rule set is data only: antichess with queen-only promotion.
    queens_only = ANTICHESS.derive("antichess-queens", promotion="q")
    fen = "8/1P6/8/8/8/8/6p1/8 w - - 0 1"
    assert Game(queens_only, fen).perft(1) == 1
    assert Game("antichess", fen).perft(1) == 5


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_start_positions_round_trip(name):
    game = Game(name)
    assert game.fen() == RULE_SETS[name].start_fen
    assert game.ply == 0
    assert game.outcome() is None

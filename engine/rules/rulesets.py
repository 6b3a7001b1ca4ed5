"""Rule sets as data.

A rule set is a `RuleSet` record of rule fields. Every rule set except `chess` is derived
from a parent by changing a few fields (`RuleSet.derive`), and every record is validated
when it is made.  The kernels never see this class: `RuleSet.to_array()` packs the fields
into an int64 array indexed by the `R_*` constants below, so one compiled move generator
serves every rule set.

This module imports neither numba nor numpy at import time, so protocol adapters can list
the rule sets before the JIT is loaded.  See `docs/rules.md` for the rules in prose.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

# Outcome values, from the point of view of the side the condition applies to.
LOSS = -1
DRAW = 0
WIN = 1
PIECE_COUNT = 2  # fewer pieces wins, equal pieces draw
PASS = 3  # the side passes its turn (stalemate only)

_VALUE_NAMES = {LOSS: "loss", DRAW: "draw", WIN: "win", PIECE_COUNT: "piece-count", PASS: "pass"}

# Learned evaluations (engine.search.evaluation): "" the hand-set terms, "antichess" the
# antichess weights and network (rule sets where every pseudo-legal move is legal), "losers"
# the losers weights (compulsory capture with a royal king).
LEARNED_NAMES = ("", "antichess", "losers")
INSUFFICIENT_KINDS = ("none", "fide", "opposite-bishops")  # the insufficient-material draws (python-chess's)
LEARNED_ANTICHESS = 1
LEARNED_LOSERS = 2

# Indexes of the rule array handed to the kernels.
R_ROYAL_KING = 0
R_MUST_CAPTURE = 1
R_CASTLING = 2
R_DOUBLE_STEP = 3
R_EN_PASSANT = 4
R_PROMOTION_MASK = 5  # bit t set: promotion to piece type t allowed (types in engine.rules.bitboards)
R_BEROLINA = 6
R_KING_LEAP = 7
R_ANTI_KINGS = 8
R_PASS_ON_NO_MOVE = 9
R_EXTINCTION_COUNT = 10
R_EXTINCTION_REASON = 11
R_CHECKMATE_VALUE = 12
R_ANTICHECKMATE_VALUE = 13
R_STALEMATE_VALUE = 14
R_EXTINCTION_PREVAILS = 15
R_PLY_LIMIT = 16
R_DRAW_RULES = 17
R_FIRST_MOVER = 18  # 0 white, 1 black
R_LEARNED_EVALUATION = 19  # the learned weights scoring quiet nodes: LEARNED_NAMES index
R_INSUFFICIENT_MATERIAL = 20  # INSUFFICIENT_KINDS index: none, fide, opposite-bishops
R_SIZE = 24

# Reasons a game ends.  The kernels report the index; the strings are the public names.
REASONS = (
    "checkmate",
    "anti-checkmate",
    "bare king",
    "three pieces left",
    "no pieces",
    "stalemate",
    "stalemate by piece count",
    "ply limit",
    "both sides without a move",
    "insufficient material",
    "fifty-move rule",
    "threefold repetition",
    "seventy-five-move rule",
    "fivefold repetition",
    "extinction",
)
REASON_INDEX = {name: i for i, name in enumerate(REASONS)}

_PROMOTION_TYPES = {"n": 1, "b": 2, "r": 3, "q": 4, "k": 5}

_EXTINCTION_REASONS = {0: "no pieces", 1: "bare king", 3: "three pieces left"}

CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class RuleError(ValueError):
    """A rule set is unknown or its fields contradict each other."""


@dataclass(frozen=True)
class RuleSet:
    """One rule set: every rule the move generator and referee need, as plain fields."""

    name: str
    parent: str | None
    start_fen: str
    royal_king: bool = True
    must_capture: bool = False
    castling: bool = True
    double_step: bool = True
    en_passant: bool = True
    promotion: str = "nbrq"
    berolina: bool = False
    king_leap: bool = False
    anti_kings: bool = False
    extinction_count: int = -1
    checkmate_value: int = LOSS
    anticheckmate_value: int = LOSS
    stalemate_value: int = DRAW
    extinction_prevails: bool = True
    ply_limit: int = 0
    draw_rules: bool = True
    insufficient_material: str = "fide"
    first_mover: str = "white"
    learned_evaluation: str = ""
    aliases: tuple[str, ...] = ()
    description: str = ""
    _array: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._validate()

    @property
    def pass_on_no_move(self) -> bool:
        """True when a side with no legal move (not in check) passes its turn."""
        return self.stalemate_value == PASS

    @property
    def extinction_reason(self) -> str:
        """The reason string reported when a side wins by losing pieces."""
        return _EXTINCTION_REASONS.get(self.extinction_count, "extinction")

    def derive(self, name: str, **changes) -> "RuleSet":
        """A new validated rule set: this one with `changes`, naming this one as parent."""
        changes.setdefault("aliases", ())
        changes.setdefault("description", "")
        return dataclasses.replace(self, name=name, parent=self.name, _array=None, **changes)

    def _validate(self) -> None:
        def fail(message: str) -> None:
            raise RuleError(f"rule set {self.name!r}: {message}")

        if not self.name or not all(c.isalnum() or c == "-" for c in self.name):
            fail("a name is letters, digits and '-'")
        if any(c not in _PROMOTION_TYPES for c in self.promotion) or len(set(self.promotion)) != len(self.promotion):
            fail(f"promotion {self.promotion!r} must be distinct letters of 'nbrqk'")
        if self.royal_king and "k" in self.promotion:
            fail("a royal king cannot be a promotion piece")
        if self.berolina and (self.double_step or self.en_passant):
            fail("Berolina pawns have no double step and no en passant")
        if self.en_passant and not self.double_step:
            fail("en passant needs the double step")
        if self.king_leap and self.castling:
            fail("the king's leap replaces castling; both cannot be on")
        if self.king_leap and not self.anti_kings:
            fail("the leap rights are carried for king and anti-king; king_leap needs anti_kings")
        if self.anti_kings and not self.royal_king:
            fail("anti-kings are defined against a royal king")
        if self.checkmate_value not in (WIN, LOSS, DRAW):
            fail("checkmate_value is win, loss or draw")
        if self.anticheckmate_value not in (WIN, LOSS, DRAW):
            fail("anticheckmate_value is win, loss or draw")
        if self.stalemate_value not in _VALUE_NAMES:
            fail("stalemate_value is win, loss, draw, piece-count or pass")
        if self.extinction_count < -1 or self.extinction_count > 16:
            fail("extinction_count is -1 (none) or 0..16")
        if self.royal_king and self.extinction_count == 0:
            fail("a royal king is never captured, so extinction at 0 pieces cannot happen")
        if self.ply_limit < 0:
            fail("ply_limit is 0 (none) or positive")
        if self.insufficient_material not in INSUFFICIENT_KINDS:
            fail("insufficient_material is none, fide or opposite-bishops")
        if self.insufficient_material != "none" and not self.draw_rules:
            fail("insufficient material is a draw rule; it needs draw_rules")
        if self.first_mover not in ("white", "black"):
            fail("first_mover is white or black")
        if self.learned_evaluation not in LEARNED_NAMES:
            fail("learned_evaluation is '', antichess or losers")
        if self.learned_evaluation == "antichess" and (self.royal_king or self.anti_kings or not self.must_capture):
            fail("the antichess evaluation needs compulsory capture without a royal king or anti-kings")
        if self.learned_evaluation == "losers" and (not self.royal_king or self.anti_kings or not self.must_capture):
            fail("the losers evaluation needs compulsory capture with a royal king and no anti-kings")
        side = self.start_fen.split()[1] if len(self.start_fen.split()) > 1 else ""
        if side != self.first_mover[0]:
            fail("the start position's side to move must be the first mover")

    def to_array(self):
        """The rule fields as the int64 array the kernels read (cached per rule set)."""
        if self._array is None:
            import numpy as np

            rules = np.zeros(R_SIZE, dtype=np.int64)
            rules[R_ROYAL_KING] = self.royal_king
            rules[R_MUST_CAPTURE] = self.must_capture
            rules[R_CASTLING] = self.castling
            rules[R_DOUBLE_STEP] = self.double_step
            rules[R_EN_PASSANT] = self.en_passant
            rules[R_PROMOTION_MASK] = sum(1 << _PROMOTION_TYPES[c] for c in self.promotion)
            rules[R_BEROLINA] = self.berolina
            rules[R_KING_LEAP] = self.king_leap
            rules[R_ANTI_KINGS] = self.anti_kings
            rules[R_PASS_ON_NO_MOVE] = self.pass_on_no_move
            rules[R_EXTINCTION_COUNT] = self.extinction_count
            rules[R_EXTINCTION_REASON] = REASON_INDEX[self.extinction_reason]
            rules[R_CHECKMATE_VALUE] = self.checkmate_value
            rules[R_ANTICHECKMATE_VALUE] = self.anticheckmate_value
            rules[R_STALEMATE_VALUE] = self.stalemate_value
            rules[R_EXTINCTION_PREVAILS] = self.extinction_prevails
            rules[R_PLY_LIMIT] = self.ply_limit
            rules[R_DRAW_RULES] = self.draw_rules
            rules[R_FIRST_MOVER] = 0 if self.first_mover == "white" else 1
            rules[R_LEARNED_EVALUATION] = LEARNED_NAMES.index(self.learned_evaluation)
            rules[R_INSUFFICIENT_MATERIAL] = INSUFFICIENT_KINDS.index(self.insufficient_material)
            rules.setflags(write=False)
            object.__setattr__(self, "_array", rules)
        return self._array

    def summary(self) -> dict[str, object]:
        """The rule fields as a readable dict (for documentation and `info` output)."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if f.name.endswith("_value"):
                value = _VALUE_NAMES[value]
            out[f.name] = value
        return out


CHESS = RuleSet(
    name="chess",
    parent=None,
    start_fen=CHESS_START,
    aliases=("standard", "normal"),
    description="FIDE chess",
)

ANTICHESS = CHESS.derive(
    "antichess",
    royal_king=False,
    must_capture=True,
    castling=False,
    promotion="nbrqk",
    extinction_count=0,
    stalemate_value=WIN,
    insufficient_material="opposite-bishops",
    start_fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    learned_evaluation="antichess",
    description="lichess antichess: captures compulsory, no check, no castling, no pieces or no move wins",
)

GIVEAWAY = ANTICHESS.derive(
    "giveaway",
    castling=True,
    start_fen=CHESS_START,
    description="antichess with castling from FEN rights (never blocked by attacked squares)",
)

SUICIDE = ANTICHESS.derive(
    "suicide",
    stalemate_value=PIECE_COUNT,
    description="FICS suicide: antichess; with no move, fewer pieces wins, equal draws",
)

LOSERS = CHESS.derive(
    "losers",
    must_capture=True,
    extinction_count=1,
    checkmate_value=WIN,
    stalemate_value=WIN,
    insufficient_material="none",
    learned_evaluation="losers",
    description="ICC wild 17: chess with compulsory legal captures; bare king, mated or stalemated side wins",
)

MIT_ANTICHESS = CHESS.derive(
    "mit-antichess",
    must_capture=True,
    promotion="q",
    extinction_count=1,
    stalemate_value=PASS,
    extinction_prevails=False,
    draw_rules=False,
    insufficient_material="none",
    description="MIT 6.170 antichess: check rules first, then compulsory capture; bare king or mate wins",
)

ANTIKING_ANTICHESS = MIT_ANTICHESS.derive(
    "antiking-antichess",
    anti_kings=True,
    extinction_count=3,
    extinction_prevails=True,
    start_fen="rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    description="MIT 6.170 anti-king antichess: mit-antichess plus anti-kings; three pieces left wins",
)

ANTIKING2 = CHESS.derive(
    "antiking2",
    anti_kings=True,
    insufficient_material="none",
    start_fen="rnbqkbnr/pppppppp/3A4/8/8/3a4/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    description="Aronson's Anti-King Chess II: FIDE chess plus anti-kings on d6 and d3",
)

ANTIKING1 = ANTIKING2.derive(
    "antiking1",
    castling=False,
    double_step=False,
    en_passant=False,
    berolina=True,
    king_leap=True,
    start_fen="2prbkqA/2p1nnbr/2pppppp/8/8/PPPPPP2/RBNN1P2/aQKBRP2 w KAka - 0 1",
    description="Aronson's Anti-King Chess I: Berolina pawns, initial king/anti-king knight leap",
)

HACKERRANK = ANTICHESS.derive(
    "hackerrank",
    double_step=False,
    en_passant=False,
    promotion="",
    stalemate_value=PIECE_COUNT,
    ply_limit=100,
    draw_rules=False,
    insufficient_material="none",
    first_mover="black",
    start_fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1",
    description="HackerRank antichess: no double step, no promotion, 100 plies, fewer pieces wins",
)

RULE_SETS: dict[str, RuleSet] = {
    r.name: r
    for r in (
        CHESS,
        ANTICHESS,
        GIVEAWAY,
        SUICIDE,
        LOSERS,
        MIT_ANTICHESS,
        ANTIKING_ANTICHESS,
        ANTIKING1,
        ANTIKING2,
        HACKERRANK,
    )
}

_BY_NAME: dict[str, RuleSet] = {}
for _rules in RULE_SETS.values():
    for _name in (_rules.name, *_rules.aliases):
        _BY_NAME[_name] = _rules


def rule_set_names() -> list[str]:
    """The ten canonical rule-set names, in a fixed order."""
    return list(RULE_SETS)


def get_rule_set(name: str | RuleSet) -> RuleSet:
    """The rule set called `name` (canonical name or alias, case-insensitive); RuleError if unknown."""
    if isinstance(name, RuleSet):
        return name
    rules = _BY_NAME.get(str(name).strip().lower())
    if rules is None:
        known = ", ".join(RULE_SETS)
        raise RuleError(f"unknown rule set {name!r} (known: {known})")
    return rules

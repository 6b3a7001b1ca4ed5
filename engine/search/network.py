"""A small learned correction to the antichess evaluation: one hidden layer over the pieces,
the attacked squares, the attacked pieces and the squares where a piece can be offered.

The inputs are binary and seen from the side to move (its pieces "ours", squares flipped
top to bottom when Black is to move, so "ours" always move up the board):

- `ours_<piece>_<square>` / `theirs_<piece>_<square>`: 2 x 6 x 64 piece placements;
- `attacked_by_us_<square>` / `attacked_by_them_<square>`: every square each side's pieces
  attack (pawns diagonally), 2 x 64;
- `capturing`: the side to move attacks a piece of the other side, so (en passant aside)
  it must capture.  Quiet positions never have it; it lets the network score the positions
  where the quiescence search stands pat with a choice of captures;
- `ours_en_prise_<piece>_<square>` / `theirs_en_prise_<piece>_<square>`: 2 x 6 x 64, a
  piece that the other side attacks (so that side will have to take it, or must take it
  now);
- `our_offers_<square>` / `their_offers_<square>`: 2 x 64, an empty square a side's piece
  can move to (pawns by their pushes) that the other side attacks: a piece put there must
  be taken.  These conjunctions of a piece or a move with an attack are what a single
  hidden layer over the separate piece and attack inputs cannot form square by square.

The network is h = clip(W1 . x + b1, 0, 1), one layer of hidden units (as many as the file
has), and out = w2 . h + b2 in centipawns, added to the linear score of
`engine.search.evaluation.learned_score`: it learns what that score misses (which pieces stand
where the other side attacks, what can be offered, and what attacks what), fitted by
`tools/train_network.py` on game results.

The file holds the weights as trained, one float32 array (NETWORK_ROWS x hidden units): rows
0..INPUTS-1 are W1 (row INPUTS is all zero: the padding input), then b1, then w2, then a row
whose first entry is b2 (`load_weights`).  The kernels take the same layout in integers
(`quantize`, `load_network`), an int16 array: W1 and b1 times HIDDEN_ONE (a hidden unit's 1.0),
w2 times OUTPUT_ONE (so in 1/64 centipawns), b2 in whole centipawns.  The hidden sums are
saturating int16 additions, 16 units to a vector register (engine.jit), so 64 hidden units
read as many bytes per input as 32 float32 units did; the output is an exact integer sum,
rounded once.  The kernels take it as an argument (`network`); an array with no rows turns
the network off.  The shipped networks are `eval_network.npz` (antichess family) and
`eval_network_losers.npz` here, next to the linear weights' `eval_weights*.json`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..jit.modes import kernel, native, stack_array
from ..rules.bitboards import KING, ONE, OCC, P_SIDE, PAWN, RANK_2, RANK_7, lsb
from ..rules.attacks import pawn_attacks, piece_attacks
from ..rules.rulesets import LEARNED_NAMES

ENGINE_NETWORK_PATH = Path(__file__).resolve().parent / "eval_network.npz"
LOSERS_NETWORK_PATH = Path(__file__).resolve().parent / "eval_network_losers.npz"
NETWORK_PATHS = {"antichess": ENGINE_NETWORK_PATH, "losers": LOSERS_NETWORK_PATH}  # by RuleSet.learned_evaluation
HIDDEN = 32  # hidden units of a new network (tools/train_network.py); a file may have up to MAX_HIDDEN
MAX_HIDDEN = 256
HIDDEN_ONE = 512  # a hidden unit's 1.0 (the top of its clip) in the kernels' integers
OUTPUT_ONE = 64  # output weights are held in 1/OUTPUT_ONE centipawns
INT16_LIMIT = 32767
OURS = 0
THEIRS = 6 * 64
ATTACKED_BY_US = 12 * 64
ATTACKED_BY_THEM = ATTACKED_BY_US + 64
CAPTURING = ATTACKED_BY_THEM + 64  # the side to move has a capture (so must capture)
OURS_EN_PRISE = CAPTURING + 1  # our piece (type, square) that the other side attacks
THEIRS_EN_PRISE = OURS_EN_PRISE + 6 * 64
OUR_OFFERS = THEIRS_EN_PRISE + 6 * 64  # an empty square we can move to and they attack
THEIR_OFFERS = OUR_OFFERS + 64
INPUTS = THEIR_OFFERS + 64
PADDING = INPUTS  # an input index whose W1 row is zero
MAX_ACTIVE = 32 + 128 + 1 + 32 + 128
ROW_B1 = INPUTS + 1
ROW_W2 = ROW_B1 + 1
ROW_B2 = ROW_W2 + 1
NETWORK_ROWS = ROW_B2 + 1
active_inputs_scratch = stack_array("int64", MAX_ACTIVE)
hidden_units_scratch = stack_array("int16", MAX_HIDDEN)


def _saturating_row_adder(width: int):
    """The Python stand-in for engine.jit's add_rows_<width> (while compilation is deferred)."""

    def add_rows(matrix, rows, n, out):
        for i in range(n):
            out[:width] = np.clip(out[:width].astype(np.int32) + matrix[rows[i], :width], -INT16_LIMIT - 1, INT16_LIMIT)

    return add_rows


# out[:width] += matrix[rows[i], :width] for each i < n, in order, by saturating int16
# additions held in vector registers (engine.jit): the hidden layer's sums at 32, 64 and 128
# units.  Any other width takes the plain loop of the same additions.
add_rows_32 = native("add_rows_32", _saturating_row_adder(32))
add_rows_64 = native("add_rows_64", _saturating_row_adder(64))
add_rows_128 = native("add_rows_128", _saturating_row_adder(128))
FIRST_LAYOUT_ROWS = CAPTURING + 5  # the rows of a file with only the inputs up to CAPTURING


def no_network() -> np.ndarray:
    """The network argument that turns the correction off (no rows)."""
    return np.zeros((0, HIDDEN), dtype=np.int16)


def load_network(path=ENGINE_NETWORK_PATH) -> np.ndarray:
    """The network in `path` as the kernels take it (`quantize(load_weights(path))`), or
    no_network() when the file is missing; ValueError for a file `load_weights` or
    `quantize` refuses."""
    weights = load_weights(path)
    try:
        return quantize(weights)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def quantize(weights: np.ndarray) -> np.ndarray:
    """float32 weights (NETWORK_ROWS x hidden units, the file's layout) as the kernels' int16
    array: W1 and b1 times HIDDEN_ONE, w2 times OUTPUT_ONE, b2 in centipawns, each rounded
    to the nearest integer.  ValueError for a weight that is not finite or does not fit 16
    bits (a W1 or b1 entry beyond +-64, an output weight beyond +-511 centipawns, b2 beyond
    +-32,767)."""
    if weights.shape[0] == 0:
        return no_network()
    if not np.isfinite(weights).all():
        raise ValueError("a weight that is not a finite number")
    hidden = np.round(weights[:ROW_B1 + 1].astype(np.float64) * HIDDEN_ONE)
    output = np.round(weights[ROW_W2].astype(np.float64) * OUTPUT_ONE)
    bias = np.round(float(weights[ROW_B2, 0]))
    for name, values in (("first-layer weight or bias", hidden), ("output weight", output), ("output bias", bias)):
        if np.abs(values).max(initial=0.0) > INT16_LIMIT:
            raise ValueError(f"an {name} too large for the 16-bit network")
    network = np.zeros(weights.shape, dtype=np.int16)
    network[:ROW_B1 + 1] = hidden
    network[ROW_W2] = output
    network[ROW_B2, 0] = bias
    network[PADDING] = 0
    return network


def load_weights(path=ENGINE_NETWORK_PATH) -> np.ndarray:
    """The weights in `path` as trained, float32[NETWORK_ROWS, hidden units], or an array of
    no rows when the file is missing; a file of the first layout (FIRST_LAYOUT_ROWS rows) gets
    zero rows for the later inputs; ValueError for any other shape."""
    try:
        with np.load(path) as data:
            weights = np.ascontiguousarray(data["network"], dtype=np.float32)
    except FileNotFoundError:
        return np.zeros((0, HIDDEN), dtype=np.float32)
    if weights.ndim == 2 and weights.shape[0] == FIRST_LAYOUT_ROWS:
        # A network of the first layout, before the attacked-piece and offer inputs: the
        # same function with zero weights for those inputs.
        padded = np.zeros((NETWORK_ROWS, weights.shape[1]), dtype=np.float32)
        padded[:CAPTURING + 1] = weights[:CAPTURING + 1]
        padded[ROW_B1:] = weights[CAPTURING + 2:]
        weights = padded
    if weights.ndim != 2 or weights.shape[0] != NETWORK_ROWS or not 1 <= weights.shape[1] <= MAX_HIDDEN:
        raise ValueError(f"{path}: network of shape {weights.shape}, expected ({NETWORK_ROWS}, hidden units),"
                         f" at most {MAX_HIDDEN} hidden units")
    weights[PADDING] = 0.0
    return weights


NETWORKS = {family: load_network(path) for family, path in NETWORK_PATHS.items()}  # the shipped networks
NETWORK = NETWORKS["antichess"]  # the antichess family's


def mirrored_inputs() -> np.ndarray:
    """For each input index (the padding included), the index of the same input on the board
    mirrored left to right (file a <-> file h): in every block of squares the square's file
    is reversed (square ^ 7, the blocks starting 64 apart from OURS and from OURS_EN_PRISE),
    and `capturing` and the padding stay.  Antichess's rules have no castling and are
    symmetric that way, so a position and its mirror image have the same value and the same
    linear score (its piece-square tables are mirrored onto files a-d): the fit can learn
    from both (`tools/train_network.py --mirror`)."""
    table = np.arange(INPUTS + 1, dtype=np.int64)
    for start, stop in ((OURS, CAPTURING), (OURS_EN_PRISE, INPUTS)):
        table[start:stop] = start + (np.arange(stop - start) ^ 7)
    return table


def network_for(learned_evaluation: int) -> np.ndarray:
    """The network of a rule set, by its kernel field R_LEARNED_EVALUATION (an index of
    engine.rules.rulesets.LEARNED_NAMES): its family's shipped network, or none."""
    family = LEARNED_NAMES[learned_evaluation]
    return NETWORKS[family] if family in NETWORKS else no_network()


@kernel
def pawn_attacks_and_pushes(pos, color, occupied):
    """(squares `color`'s pawns attack, squares its pawns can push to)."""
    base = color * 8
    empty = ~occupied
    eight = np.uint64(8)
    if color == 0:
        single = (pos[base + PAWN] << eight) & empty
        pushes = single | (((single & (RANK_2 << eight)) << eight) & empty)
    else:
        single = (pos[base + PAWN] >> eight) & empty
        pushes = single | (((single & (RANK_7 >> eight)) >> eight) & empty)
    return pawn_attacks(pos, color, False), pushes


@kernel
def append_squares(out, n, base, squares, flip):
    """Write base + (square ^ flip) for each square of `squares` into `out` from index `n`;
    returns the new count."""
    while squares:
        square = lsb(squares)
        squares &= squares - ONE
        out[n] = base + (square ^ flip)
        n += 1
    return n


@kernel
def network_inputs(pos, out):
    """Write the indices of `pos`'s active inputs (side to move's view) into `out`
    (at least MAX_ACTIVE long); returns how many."""
    us = np.int64(pos[P_SIDE])
    occupied = pos[OCC] | pos[8 + OCC]
    return network_inputs_with_attacks(pos, out, piece_attacks(pos, us, occupied),
                                       piece_attacks(pos, 1 - us, occupied))


@kernel
def network_inputs_with_attacks(pos, out, our_attacks, their_attacks):
    """`network_inputs` given the squares each side's knights, sliders and king attack
    (`attacks.piece_attacks`; ours are the side to move's)."""
    us = np.int64(pos[P_SIDE])
    them = 1 - us
    flip = 56 if us == 1 else 0
    occupied = pos[OCC] | pos[8 + OCC]
    n = 0
    for color in range(2):
        base = OURS if color == us else THEIRS
        for piece in range(PAWN, KING + 1):
            n = append_squares(out, n, base + piece * 64, pos[color * 8 + piece], flip)
    our_pawn_attacks, our_pushes = pawn_attacks_and_pushes(pos, us, occupied)
    their_pawn_attacks, their_pushes = pawn_attacks_and_pushes(pos, them, occupied)
    attacked_by_us = our_pawn_attacks | our_attacks
    attacked_by_them = their_pawn_attacks | their_attacks
    if attacked_by_us & pos[them * 8 + OCC]:
        out[n] = CAPTURING
        n += 1
    n = append_squares(out, n, ATTACKED_BY_US, attacked_by_us, flip)
    n = append_squares(out, n, ATTACKED_BY_THEM, attacked_by_them, flip)
    n = append_squares(out, n, OUR_OFFERS, (our_attacks | our_pushes) & ~occupied & attacked_by_them, flip)
    n = append_squares(out, n, THEIR_OFFERS, (their_attacks | their_pushes) & ~occupied & attacked_by_us, flip)
    for color in range(2):
        base = OURS_EN_PRISE if color == us else THEIRS_EN_PRISE
        attackers = attacked_by_them if color == us else attacked_by_us
        for piece in range(PAWN, KING + 1):
            n = append_squares(out, n, base + piece * 64, pos[color * 8 + piece] & attackers, flip)
    return n


@kernel
def network_score(pos, network):
    """The network's correction for `pos`, in centipawns for the side to move (0 when
    `network` has no rows)."""
    if network.shape[0] == 0:
        return np.int64(0)
    us = np.int64(pos[P_SIDE])
    occupied = pos[OCC] | pos[8 + OCC]
    return network_score_with_attacks(pos, network, piece_attacks(pos, us, occupied),
                                      piece_attacks(pos, 1 - us, occupied))


@kernel
def network_score_with_attacks(pos, network, our_attacks, their_attacks):
    """`network_score` given the squares each side's knights, sliders and king attack
    (`attacks.piece_attacks`; ours are the side to move's)."""
    if network.shape[0] == 0:
        return np.int64(0)
    active = active_inputs_scratch()
    n = network_inputs_with_attacks(pos, active, our_attacks, their_attacks)
    hidden = network.shape[1]
    units = hidden_units_scratch()  # b1, then the active rows added in order, saturating
    for j in range(hidden):
        units[j] = network[ROW_B1, j]
    if hidden == 32:
        add_rows_32(network, active, np.int64(n), units)
    elif hidden == 64:
        add_rows_64(network, active, np.int64(n), units)
    elif hidden == 128:
        add_rows_128(network, active, np.int64(n), units)
    else:
        low = np.int32(-INT16_LIMIT - 1)
        high = np.int32(INT16_LIMIT)
        for i in range(n):
            row = active[i]
            for j in range(hidden):
                units[j] = min(max(np.int32(units[j]) + np.int32(network[row, j]), low), high)
    total = np.int64(0)
    for j in range(hidden):
        total += min(max(np.int64(units[j]), np.int64(0)), np.int64(HIDDEN_ONE)) * np.int64(network[ROW_W2, j])
    scale = np.int64(HIDDEN_ONE * OUTPUT_ONE)
    return np.int64(network[ROW_B2, 0]) + (total + scale // 2) // scale

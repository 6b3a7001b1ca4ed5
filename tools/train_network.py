#!/usr/bin/env python3
"""Fit the evaluation network (engine/search/network.py) on played games: positions, results, weights.

    python3 tools/train_network.py [--variant losers] --data A.npz[,B.npz...] [--out FILE]

The data files are those of `tools/train_eval.py play` or `play-teacher`: positions of the
`--variant` family (antichess, the default, or losers) with the game's result for the side
to move; quiet ones, and with `--captures` also those where the side to move must capture,
which the antichess quiescence search scores when it stands pat.  Losers keeps only its
quiet positions (its search scores no other statically).  For each position the target is
the result; the prediction is sigmoid((linear + network) / SCALE), with `linear` the
shipped linear evaluation of the family (engine.search.evaluation.learned_score or
losers_score, held fixed) and `network` the one-hidden-layer correction of
engine/search/network.py, so the network learns only what the linear score misses.
Mini-batch Adam on the cross-entropy (NumPy only); every tenth game is held out, and the
weights of the epoch with the lowest held-out loss are written (atomically) to the engine's
file of the family, or to `--out`.

`--teacher-weight W` blends a teacher's judgment into the target: W times the teacher's win
chance sigmoid(score / K) plus (1 - W) times the result, where the score is the one the
master build reported for the move it played (`play-teacher` records it) or a `label`
score, and K is fitted so that sigmoid(score / K) best predicts the results.  `--init FILE`
starts from a network file (fine-tuning) instead of random weights; with `--hidden` above the
file's units, the new units start with random first-layer weights and zero output weights,
so the fit starts from the file's function.

`--mirror` (antichess family) also trains on every training position mirrored left to
right (files a <-> h, `engine.search.network.mirrored_inputs`) with the same linear score and
target: antichess has no castling, so the mirror image has the same value.  Held-out games
are not mirrored, so the held-out losses stay those of the played positions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def prepare(rows: np.ndarray, variant: str = "antichess") -> tuple[np.ndarray, np.ndarray]:
    """(linear scores in centipawns, active input indices padded with PADDING) per position;
    the linear score is the learned evaluation of `variant`'s family (`learned_score` for
    antichess, `losers_score` for losers)."""
    from engine.rules.bitboards import MAX_MOVES, POS_SIZE
    from engine.search.evaluation import learned_score, losers_score
    from engine.search.network import MAX_ACTIVE, PADDING, network_inputs
    from engine import get_rule_set
    from engine.search.static import losing_terms

    rule_set = get_rule_set(variant)
    score = losers_score if rule_set.learned_evaluation == "losers" else learned_score
    rules = rule_set.to_array()
    stack = np.zeros((4, POS_SIZE), dtype=np.uint64)  # a generation's legality test uses the next row
    mlist = np.zeros((4, MAX_MOVES), dtype=np.int32)
    linear = np.zeros(len(rows), dtype=np.float32)
    active = np.full((len(rows), MAX_ACTIVE), PADDING, dtype=np.int16)
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    for i, row in enumerate(rows):
        stack[0] = row
        moves_difference, forcing = losing_terms(stack, np.int64(0), rules, mlist)
        linear[i] = score(stack[0], np.int64(moves_difference), forcing)
        n = network_inputs(stack[0], buffer)
        active[i, :n] = buffer[:n]
    return linear, active


def with_mirror_images(active, linear, results, game_results, held_out):
    """The arrays with each training position's mirror image appended (`mirrored_inputs`:
    the same linear score, target and result); the images are training positions."""
    from engine.search.network import mirrored_inputs

    train = ~held_out
    images = mirrored_inputs()[active[train]].astype(active.dtype)
    return (np.concatenate([active, images]), np.concatenate([linear, linear[train]]),
            np.concatenate([results, results[train]]), np.concatenate([game_results, game_results[train]]),
            np.concatenate([held_out, np.zeros(int(train.sum()), dtype=bool)]))


def dense(active: np.ndarray, inputs: int) -> np.ndarray:
    """The 0/1 input matrix (one row per position, inputs + 1 columns, the last the padding)."""
    matrix = np.zeros((len(active), inputs + 1), dtype=np.float32)
    matrix[np.arange(len(active))[:, None], active] = 1.0
    return matrix


def cross_entropy(predicted: np.ndarray, results: np.ndarray) -> float:
    return float(-np.mean(results * np.log(predicted + 1e-7) + (1 - results) * np.log(1 - predicted + 1e-7)))


def forward(params: dict, x: np.ndarray, linear: np.ndarray, scale: float):
    z = x @ params["w1"] + params["b1"]
    h = np.clip(z, 0.0, 1.0)
    out = h @ params["w2"] + params["b2"]
    predicted = 1.0 / (1.0 + np.exp(-(linear + out) / scale))
    return z, h, out, predicted


def evaluate_loss(params, active, linear, results, inputs, scale, batch=16384) -> float:
    total = 0.0
    for start in range(0, len(active), batch):
        x = dense(active[start:start + batch], inputs)
        predicted = forward(params, x, linear[start:start + batch], scale)[3]
        total += cross_entropy(predicted, results[start:start + batch]) * len(x)
    return total / len(active)


def unpack(network: np.ndarray) -> dict:
    """The training parameters of a network laid out as engine.search.network keeps it (see `pack`)."""
    from engine.search.network import INPUTS, ROW_B1, ROW_B2, ROW_W2

    return {"w1": network[:INPUTS + 1].astype(np.float32), "b1": network[ROW_B1].astype(np.float32),
            "w2": network[ROW_W2].astype(np.float32), "b2": np.array([network[ROW_B2, 0]], dtype=np.float32)}


FRESH_WEIGHT_SCALE = 0.05  # the standard deviation of a new hidden unit's first-layer weights


def widen(params: dict, hidden: int, seed: int) -> dict:
    """`params` with new hidden units appended up to `hidden`: random first-layer weights (the
    scale of a fresh network's), zero biases and zero output weights, so the network still
    computes the same function and the new units learn from there."""
    have = params["w1"].shape[1]
    if hidden <= have:
        return params
    rng = np.random.default_rng(seed)
    extra = hidden - have
    new_w1 = (rng.standard_normal((params["w1"].shape[0], extra)) * FRESH_WEIGHT_SCALE).astype(np.float32)
    new_w1[-1] = 0.0  # the padding input
    return {"w1": np.concatenate([params["w1"], new_w1], axis=1),
            "b1": np.concatenate([params["b1"], np.zeros(extra, dtype=np.float32)]),
            "w2": np.concatenate([params["w2"], np.zeros(extra, dtype=np.float32)]),
            "b2": params["b2"].copy()}


def train(active, linear, results, held_out, hidden: int, inputs: int, scale: float, epochs: int,
          batch: int, rate: float, l2: float, seed: int, report=print, start: dict | None = None) -> tuple[dict, float, float]:
    """The network weights with the lowest held-out loss; (weights, train loss, held-out loss).

    `start` (parameters as `unpack` gives them) is the starting point instead of random weights."""
    rng = np.random.default_rng(seed)
    params = start if start is not None else {
        "w1": (rng.standard_normal((inputs + 1, hidden)) * FRESH_WEIGHT_SCALE).astype(np.float32),
        "b1": np.full(hidden, 0.25, dtype=np.float32),
        "w2": np.zeros(hidden, dtype=np.float32),
        "b2": np.zeros(1, dtype=np.float32),
    }
    params["w1"][inputs] = 0.0
    moments = {key: (np.zeros_like(value), np.zeros_like(value)) for key, value in params.items()}
    train_index = np.flatnonzero(~held_out)
    test_index = np.flatnonzero(held_out)
    best = (float("inf"), None, 0.0)
    step = 0
    beta1, beta2 = 0.9, 0.999
    report(f"start: held-out loss {evaluate_loss(params, active[test_index], linear[test_index], results[test_index], inputs, scale):.5f}")
    for epoch in range(1, epochs + 1):
        started = time.perf_counter()
        order = rng.permutation(train_index)
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            x = dense(active[chosen], inputs)
            z, h, out, predicted = forward(params, x, linear[chosen], scale)
            d_out = (predicted - results[chosen]).astype(np.float32) / (scale * len(chosen))
            d_z = np.outer(d_out, params["w2"]) * ((z > 0.0) & (z < 1.0))
            gradients = {
                "w1": x.T @ d_z + l2 * params["w1"],
                "b1": d_z.sum(axis=0),
                "w2": h.T @ d_out,
                "b2": np.array([d_out.sum()], dtype=np.float32),
            }
            step += 1
            for key, gradient in gradients.items():
                m, v = moments[key]
                m *= beta1
                m += (1 - beta1) * gradient
                v *= beta2
                v += (1 - beta2) * gradient * gradient
                params[key] -= (rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + 1e-8)).astype(np.float32)
            params["w1"][inputs] = 0.0
        test_loss = evaluate_loss(params, active[test_index], linear[test_index], results[test_index], inputs, scale)
        report(f"epoch {epoch}: held-out loss {test_loss:.5f} ({time.perf_counter() - started:.0f} s)")
        if test_loss < best[0]:
            train_loss = evaluate_loss(params, active[train_index], linear[train_index], results[train_index], inputs, scale)
            best = (test_loss, {key: value.copy() for key, value in params.items()}, train_loss)
    return best[1], best[2], best[0]


def pack(params: dict) -> np.ndarray:
    """The weights as engine.search.network lays them out (NETWORK_ROWS x hidden units, float32)."""
    from engine.search.network import NETWORK_ROWS, ROW_B1, ROW_B2, ROW_W2, INPUTS

    hidden = params["w1"].shape[1]
    network = np.zeros((NETWORK_ROWS, hidden), dtype=np.float32)
    network[:INPUTS + 1] = params["w1"]
    network[INPUTS] = 0.0
    network[ROW_B1] = params["b1"]
    network[ROW_W2] = params["w2"]
    network[ROW_B2, 0] = params["b2"][0]
    return network


def write_network(path: Path, network: np.ndarray, **notes) -> None:
    """Write the weights and notes to `path` atomically (a temporary file, then rename)."""
    from train_eval import write_atomically

    write_atomically(path, lambda handle: np.savez_compressed(
        handle, network=network, **{key: np.array(value) for key, value in notes.items()}), ".npz")


def main() -> int:
    from engine.search.network import CAPTURING, HIDDEN, INPUTS, NETWORK_PATHS, load_weights, quantize
    from train_eval import load_data, quiet_positions, require_data_files, teacher_targets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="one or more comma-separated play / play-teacher files")
    parser.add_argument("--variant", default="antichess", choices=sorted(NETWORK_PATHS),
                        help="the family whose learned evaluation the network corrects (and whose file --out defaults to)")
    parser.add_argument("--out", help="the network file (default: the engine's file for --variant)")
    parser.add_argument("--scale", type=float, default=200.0, help="centipawns per logistic unit")
    parser.add_argument("--hidden", type=int, default=None, help=f"hidden units (default: those of --init, else {HIDDEN})")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--rate", type=float, default=5e-3)
    parser.add_argument("--l2", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--init", help="start from this network file (e.g. engine/search/eval_network.npz) instead of random weights")
    parser.add_argument("--mirror", action="store_true",
                        help="also train on each training position mirrored left to right (antichess family)")
    parser.add_argument("--teacher-weight", type=float, default=0.0,
                        help="the target is this share of the teacher's win chance (data with a teacher column: "
                             "play-teacher scores or the label stage) plus the rest of the game's result")
    args = parser.parse_args()
    if args.epochs < 1:
        parser.error(f"--epochs: at least 1 (got {args.epochs}); the held-out losses are printed before the first epoch")
    if args.mirror and args.variant != "antichess":
        parser.error(f"--mirror: only for the antichess family ({args.variant} has castling, which a mirror image breaks)")

    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    require_data_files(parser, args.data, "train_network")
    data = load_data(args.data)
    started = time.perf_counter()
    if args.variant == "losers":
        # Only quiet positions are scored statically in losers (no stand-pat with a choice of
        # captures: the king is royal, so captures are generated and searched).
        data = quiet_positions(data, args.variant)
    linear, active = prepare(data["rows"], args.variant)
    results = data["results"].astype(np.float32)
    game_results = results
    teacher_note = ""
    if args.teacher_weight > 0:
        if "teacher" not in data:
            parser.error("--teacher-weight needs data with teacher scores (play-teacher or label output)")
        targets, k = teacher_targets(data, args.teacher_weight)
        results = targets.astype(np.float32)
        teacher_note = f" --teacher-weight {args.teacher_weight}"
        report(f"teacher scale {k:.1f} cp per logistic unit")
    held_out = data["games"] % 10 == 0
    linear_loss = cross_entropy(1.0 / (1.0 + np.exp(-linear[held_out] / args.scale)), results[held_out])
    report(f"{len(results)} positions prepared in {time.perf_counter() - started:.0f} s; "
           f"linear evaluation alone: held-out loss {linear_loss:.5f}")
    if args.mirror:
        active, linear, results, game_results, held_out = with_mirror_images(
            active, linear, results, game_results, held_out)
        report(f"{int((~held_out).sum())} training positions with their mirror images")
    start = None
    if args.init:
        if not Path(args.init).is_file():
            parser.error(f"--init: no network file {args.init}")
        start = unpack(load_weights(args.init))
        if args.hidden is not None and start["w1"].shape[1] > args.hidden:
            parser.error(f"--init: {args.init} has {start['w1'].shape[1]} hidden units, more than --hidden {args.hidden}")
        start = widen(start, args.hidden or 0, args.seed)  # more units than the file: new ones with zero output weights
        report(f"starting from {args.init}: held-out loss against the game results "
               f"{evaluate_loss(start, active[held_out], linear[held_out], game_results[held_out], INPUTS, args.scale):.5f}")
    hidden = args.hidden or (start["w1"].shape[1] if start is not None else HIDDEN)
    params, train_loss, test_loss = train(active, linear, results, held_out, hidden, INPUTS, args.scale,
                                          args.epochs, args.batch, args.rate, args.l2, args.seed, report, start)
    command = (f"python3 tools/train_network.py --variant {args.variant} --hidden {params['w1'].shape[1]} --scale {args.scale} --epochs {args.epochs} --batch {args.batch} "
               f"--rate {args.rate} --l2 {args.l2} --seed {args.seed}{teacher_note}" + (" --mirror" if args.mirror else "")
               + (f" --init {Path(args.init).name}" if args.init else ""))
    out = Path(args.out) if args.out else NETWORK_PATHS[args.variant]
    network = pack(params)
    try:
        quantize(network)  # the engine's kernels take the weights in 16-bit integers
    except ValueError as error:
        parser.error(f"the fitted network does not fit the engine's integers: {error}")
    write_network(out, network, data=str(data["command"]), fit=command,
                  positions=len(data["rows"]), train_loss=train_loss, test_loss=test_loss, linear_test_loss=linear_loss)
    print(f"network: train loss {train_loss:.5f}, held-out loss {test_loss:.5f} "
          f"(linear alone {linear_loss:.5f}) -> {out}")
    if args.teacher_weight > 0:
        print(f"  held-out loss against the game results alone: "
              f"{evaluate_loss(params, active[held_out], linear[held_out], game_results[held_out], INPUTS, args.scale):.5f}")
    capturing = (active == CAPTURING).any(axis=1)
    for name, part in (("quiet", held_out & ~capturing), ("must capture", held_out & capturing)):
        if part.any():
            network_loss = evaluate_loss(params, active[part], linear[part], results[part], INPUTS, args.scale)
            alone = cross_entropy(1.0 / (1.0 + np.exp(-linear[part] / args.scale)), results[part])
            print(f"  held-out {name} positions ({part.sum()}): {network_loss:.5f} (linear alone {alone:.5f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

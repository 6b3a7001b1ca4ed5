"""The evaluation network (engine.search.network): its inputs mean what their names say (checked
against python-chess's attack masks), its score is the forward pass of its weights, the
search adds it to the linear score, and tools/train_network.py fits and writes it."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from engine import Game
from engine.search.state import MAX_PLY
from engine.search.static import evaluate_losing, losing_terms
from engine.search.evaluation import learned_score, losers_score
from engine.search.network import (
    ATTACKED_BY_THEM, ATTACKED_BY_US, CAPTURING, ENGINE_NETWORK_PATH, FIRST_LAYOUT_ROWS, HIDDEN, INPUTS, MAX_ACTIVE,
    HIDDEN_ONE, MAX_HIDDEN, NETWORK_PATHS, NETWORK_ROWS, NETWORKS, OUR_OFFERS, OURS, OURS_EN_PRISE, OUTPUT_ONE, PADDING, ROW_B1,
    ROW_B2, ROW_W2, THEIR_OFFERS, THEIRS, THEIRS_EN_PRISE, load_network, load_weights, network_inputs, network_score,
    mirrored_inputs, no_network, quantize,
)

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "tools"))
    spec.loader.exec_module(module)
    return module


def _fen(row, variant: str) -> str:
    from engine import get_rule_set
    from engine.rules.fen import format_fen

    return format_fen(row, get_rule_set(variant))


def _random_games(count: int, seed: int = 11, variant: str = "antichess") -> list[Game]:
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = Game(variant)
        for _ in range(rng.randrange(0, 60)):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
        games.append(game)
    return games


def _move_targets(board: chess.Board, color: chess.Color) -> chess.SquareSet:
    """The empty squares `color`'s pieces could move to: pawn pushes (one or two squares),
    the other pieces' attacks."""
    targets = chess.SquareSet()
    step = 8 if color == chess.WHITE else -8
    for square in chess.SquareSet(board.occupied_co[color]):
        if board.piece_type_at(square) != chess.PAWN:
            targets |= board.attacks(square) & ~board.occupied
            continue
        one = square + step
        if 0 <= one < 64 and not board.piece_at(one):
            targets.add(one)
            two = one + step
            if chess.square_rank(square) == (1 if color == chess.WHITE else 6) and not board.piece_at(two):
                targets.add(two)
    return targets


def _expected_inputs(fen: str) -> set[int]:
    """The active inputs, from python-chess: pieces, attack masks, attacked pieces and offers,
    side to move's view."""
    board = chess.Board(fen)
    us = board.turn
    flip = 0 if us == chess.WHITE else 56
    active = set()
    attacked = {}
    for color in (us, not us):
        attacked[color] = chess.SquareSet()
        for square in chess.SquareSet(board.occupied_co[color]):
            attacked[color] |= board.attacks(square)
    for square, piece in board.piece_map().items():
        base = OURS if piece.color == us else THEIRS
        active.add(base + (piece.piece_type - 1) * 64 + (square ^ flip))
        if square in attacked[not piece.color]:
            base = OURS_EN_PRISE if piece.color == us else THEIRS_EN_PRISE
            active.add(base + (piece.piece_type - 1) * 64 + (square ^ flip))
    for color, base, offers in ((us, ATTACKED_BY_US, OUR_OFFERS), (not us, ATTACKED_BY_THEM, THEIR_OFFERS)):
        active |= {base + (square ^ flip) for square in attacked[color]}
        active |= {offers + (square ^ flip) for square in _move_targets(board, color) & attacked[not color]}
    if attacked[us] & board.occupied_co[not us]:
        active.add(CAPTURING)
    return active


def test_inputs_are_the_pieces_the_attacked_squares_the_attacked_pieces_and_the_offers():
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    for game in _random_games(60):
        n = network_inputs(game.position(), buffer)
        assert len(set(buffer[:n].tolist())) == n
        assert set(buffer[:n].tolist()) == _expected_inputs(game.fen()), game.fen()


def test_offers_count_pawn_pushes_and_en_prise_marks_the_attacked_pieces():
    # White to move: e2-e4 would put the pawn where Black's d5 pawn takes it (an offer by a
    # double push); Black's d5-d4 would not be attacked.  The knight on g5 stands where
    # Black's h6 pawn attacks it.
    game = Game("antichess", "8/8/7p/3p2N1/8/8/4P3/8 w - - 0 1")
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    active = set(buffer[:network_inputs(game.position(), buffer)].tolist())
    # The knight could go to e4 as well; none of its other squares is attacked.
    assert {i - OUR_OFFERS for i in active if OUR_OFFERS <= i < OUR_OFFERS + 64} == {chess.E4}
    assert {i - THEIR_OFFERS for i in active if THEIR_OFFERS <= i < THEIR_OFFERS + 64} == set()
    assert {i for i in active if OURS_EN_PRISE <= i < THEIRS_EN_PRISE} == {OURS_EN_PRISE + 64 + chess.G5}
    assert {i for i in active if THEIRS_EN_PRISE <= i < OUR_OFFERS} == set()


def test_capturing_input_is_on_exactly_when_the_side_to_move_must_capture():
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    seen = set()
    for game in _random_games(80, seed=13):
        if game.fen().split()[3] != "-":
            continue  # an en passant capture is a capture the input does not see
        n = network_inputs(game.position(), buffer)
        must_capture = any(move.is_capture for move in game.legal_moves())
        assert (CAPTURING in buffer[:n].tolist()) == must_capture, game.fen()
        seen.add(must_capture)
    assert seen == {True, False}


def test_inputs_are_seen_from_the_side_to_move():
    white = Game("antichess", "8/8/8/8/8/8/4P3/8 w - - 0 1")  # our pawn on e2
    black = Game("antichess", "8/4p3/8/8/8/8/8/8 b - - 0 1")  # our pawn on e7: e2 seen from black
    buffers = [np.zeros(MAX_ACTIVE, dtype=np.int64) for _ in range(2)]
    counts = [network_inputs(game.position(), buffer) for game, buffer in zip((white, black), buffers)]
    assert counts == [3, 3]  # the pawn and the two squares it attacks
    assert sorted(buffers[0][:3]) == sorted(buffers[1][:3])
    assert OURS + chess.E2 in buffers[0][:3]


def _reference_score(weights: np.ndarray, active: list[int]) -> float:
    """The forward pass of the float weights, in float64."""
    x = np.zeros(INPUTS + 1)
    x[active] = 1.0
    hidden = np.clip(x @ weights[:INPUTS + 1] + weights[ROW_B1], 0.0, 1.0)
    return float(hidden @ weights[ROW_W2] + weights[ROW_B2, 0])


def _random_network(seed: int, hidden: int = HIDDEN) -> np.ndarray:
    """Random float weights with outputs of a few hundred centipawns (the padding row zero)."""
    rng = np.random.default_rng(seed)
    network = (rng.standard_normal((NETWORK_ROWS, hidden)) * 0.2).astype(np.float32)
    network[ROW_W2] *= 300.0
    network[PADDING] = 0.0
    return network


def _integer_score(network: np.ndarray, active: list[int]) -> tuple[int, bool]:
    """The integer forward pass in Python integers, in the kernel's order: b1, then each active
    row in turn, each sum held to 16 bits (saturating); then b2 plus the units clipped to
    [0, HIDDEN_ONE] times their output weights, divided once and rounded half up.  Also
    whether a sum saturated on the way."""
    units = [int(value) for value in network[ROW_B1]]
    saturated = False
    for row in active:
        for j, value in enumerate(network[row]):
            total = units[j] + int(value)
            units[j] = min(max(total, -32768), 32767)
            saturated |= units[j] != total
    total = sum(min(max(unit, 0), HIDDEN_ONE) * int(weight) for unit, weight in zip(units, network[ROW_W2]))
    scale = HIDDEN_ONE * OUTPUT_ONE
    return int(network[ROW_B2, 0]) + (total + scale // 2) // scale, saturated


@pytest.mark.parametrize("hidden", [HIDDEN, MAX_HIDDEN])
def test_score_is_the_forward_pass_of_the_weights_within_their_rounding(hidden):
    """The 16-bit network scores as the float weights do, within the rounding of its integers
    (a centipawn or two), and exactly as its own integer forward pass."""
    weights = _random_network(seed=3, hidden=hidden)
    network = quantize(weights)
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    scores = []
    for game in _random_games(40, seed=5):
        n = network_inputs(game.position(), buffer)
        score = network_score(game.position(), network)
        assert score == _integer_score(network, buffer[:n].tolist())[0], game.fen()
        assert abs(score - _reference_score(weights, buffer[:n].tolist())) <= 2.0 + hidden / 32, game.fen()
        scores.append(score)
    assert len(set(scores)) > 10  # the weights make a difference
    assert all(network_score(game.position(), no_network()) == 0 for game in _random_games(5))


@pytest.mark.parametrize("family", sorted(NETWORK_PATHS))
def test_the_shipped_networks_score_as_their_float_weights_within_a_centipawn_or_two(family):
    weights = load_weights(NETWORK_PATHS[family])
    if weights.shape[0] == 0:
        pytest.skip(f"no shipped {family} network")
    network = NETWORKS[family]
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    errors = []
    for game in _random_games(60, seed=21, variant="losers" if family == "losers" else "antichess"):
        n = network_inputs(game.position(), buffer)
        errors.append(abs(network_score(game.position(), network) - _reference_score(weights, buffer[:n].tolist())))
    assert max(errors) <= 3.0 and np.mean(errors) <= 1.0, (max(errors), np.mean(errors))


@pytest.mark.parametrize("hidden", [HIDDEN, 64, 128, HIDDEN + 16])
def test_score_adds_the_rows_in_16_bits_saturating_in_order(hidden):
    """The widths summed in vector registers (32, 64 and 128) and any other width (a plain loop)
    give exactly the saturating 16-bit sums of the rows in order, also when sums saturate."""
    weights = _random_network(seed=6, hidden=hidden)
    weights[:ROW_B1 + 1] *= 30.0  # first-layer sums often past the 16 bits at HIDDEN_ONE
    network = quantize(weights)
    assert network[ROW_W2].any() and np.abs(network[:INPUTS]).max() > 2000
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    saturations = 0
    for game in _random_games(40, seed=7):
        n = network_inputs(game.position(), buffer)
        expected, saturated = _integer_score(network, buffer[:n].tolist())
        assert network_score(game.position(), network) == expected, game.fen()
        saturations += saturated
    assert saturations >= 5  # the weights are large enough for the saturation to be exercised


@pytest.mark.parametrize("variant, linear_score, seed", [("antichess", learned_score, 9),
                                                           ("losers", losers_score, 19)])
def test_the_search_scores_quiet_nodes_as_the_familys_weights_plus_network(variant, linear_score, seed):
    """A quiet node scores its family's linear evaluation plus the network it is given (losers:
    its own weights; the king is royal, so legal moves are generated)."""
    network = quantize(_random_network(seed=4))
    checked = 0
    for game in _random_games(60, seed=seed, variant=variant):
        moves = game.legal_moves()
        if game.outcome() is not None or len(moves) < 2 or any(move.is_capture for move in moves):
            continue
        position = game.position()
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            moves_difference, forcing = losing_terms(stack, np.int64(idx), rules, mlist)
            linear = linear_score(position, np.int64(moves_difference), forcing)
            for weights in (network, no_network()):
                score = evaluate_losing(stack, np.int64(idx), rules, mlist, np.int64(len(moves)), weights)
                assert score == linear + network_score(position, weights), game.fen()
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("family", sorted(NETWORK_PATHS))
def test_each_family_has_its_shipped_network_and_the_searcher_picks_it_by_rule_set(family):
    from engine import get_rule_set
    from engine.search.searcher import Searcher

    shipped = NETWORKS[family]
    if NETWORK_PATHS[family].exists():
        assert shipped.shape[0] == NETWORK_ROWS and shipped.shape[1] >= 1
        assert not shipped[PADDING].any()
    else:
        assert shipped.shape[0] == 0
    searcher = Searcher(1)
    for name in ("antichess", "giveaway", "suicide", "hackerrank", "losers", "chess", "mit-antichess"):
        rule_set = get_rule_set(name)
        picked = searcher.network_of(rule_set.to_array())
        if rule_set.learned_evaluation == family:
            assert picked is shipped, name
        elif not rule_set.learned_evaluation:
            assert picked.shape[0] == 0, name  # no learned evaluation: no network
    searcher.network = no_network()  # an explicit network serves every rule set
    assert searcher.network_of(get_rule_set(family).to_array()).shape[0] == 0


def test_a_missing_file_is_no_network_and_a_bad_file_is_refused(tmp_path):
    assert load_network(tmp_path / "missing.npz").shape == (0, HIDDEN)
    bad = tmp_path / "bad.npz"
    np.savez(bad, network=np.zeros((3, HIDDEN), dtype=np.float32))
    narrow = tmp_path / "narrow.npz"
    np.savez(narrow, network=np.ones((NETWORK_ROWS, 8), dtype=np.float32))
    assert load_network(narrow).shape == (NETWORK_ROWS, 8)
    assert load_network(narrow).dtype == np.int16
    assert not load_network(narrow)[PADDING].any()
    with pytest.raises(ValueError, match="shape"):
        load_network(bad)
    for row, value in ((0, 64.1), (ROW_B1, -64.1), (ROW_W2, 512.0), (ROW_B2, 33000.0)):
        big = np.zeros((NETWORK_ROWS, 8), dtype=np.float32)
        big[row, 0] = value  # beyond what 16 bits hold at the network's scales
        np.savez(bad, network=big)
        with pytest.raises(ValueError, match="too large"):
            load_network(bad)
        big[row, 0] = value * 0.99
        np.savez(bad, network=big)
        assert load_network(bad).shape == (NETWORK_ROWS, 8)
    big[ROW_W2, 1] = np.nan
    np.savez(bad, network=big)
    with pytest.raises(ValueError, match="finite"):
        load_network(bad)
    wide = tmp_path / "wide.npz"  # the search's scratch space holds MAX_HIDDEN hidden units
    np.savez(wide, network=np.zeros((NETWORK_ROWS, MAX_HIDDEN + 1), dtype=np.float32))
    with pytest.raises(ValueError, match="at most"):
        load_network(wide)
    np.savez(wide, network=np.zeros((NETWORK_ROWS, MAX_HIDDEN), dtype=np.float32))
    assert load_network(wide).shape == (NETWORK_ROWS, MAX_HIDDEN)


def test_a_network_of_the_first_layout_loads_as_the_same_function(tmp_path):
    """A file from before the attacked-piece and offer inputs scores every position as it did:
    its rows land on the same inputs and the new inputs get zero weights."""
    full = _random_network(7)
    full[CAPTURING + 1:INPUTS] = 0.0
    first = np.concatenate([full[:CAPTURING + 1], np.zeros((1, HIDDEN), np.float32), full[ROW_B1:]])
    assert first.shape[0] == FIRST_LAYOUT_ROWS
    path = tmp_path / "first.npz"
    np.savez(path, network=first)
    loaded = load_network(path)
    assert loaded.shape == (NETWORK_ROWS, HIDDEN)
    assert np.array_equal(load_weights(path), full)
    assert np.array_equal(loaded, quantize(full))
    for game in _random_games(10, seed=17):
        assert network_score(game.position(), loaded) == network_score(game.position(), quantize(full))


def test_training_lowers_the_loss_and_writes_a_network_the_engine_loads(tmp_path):
    train_eval = _tool("train_eval")
    train_network = _tool("train_network")
    data = train_eval.play(30, 300, seed=4, report=lambda line: None)
    linear, active = train_network.prepare(data["rows"])
    results = data["results"].astype(np.float32)
    everything = np.zeros(len(results), dtype=bool)
    everything[::7] = True  # a held-out share; the loss below is on all positions
    params, train_loss, _ = train_network.train(active, linear, results, everything, HIDDEN, INPUTS, 200.0,
                                                epochs=30, batch=256, rate=1e-2, l2=0.0, seed=1,
                                                report=lambda line: None)
    before = train_network.cross_entropy(1 / (1 + np.exp(-linear[~everything] / 200.0)), results[~everything])
    assert train_loss < before
    path = tmp_path / "network.npz"
    train_network.write_network(path, train_network.pack(params), fit="test")
    network = load_network(path)
    assert network.shape == (NETWORK_ROWS, HIDDEN)
    game = Game("antichess", chess.STARTING_FEN)
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    n = network_inputs(game.position(), buffer)
    assert abs(network_score(game.position(), network) - _reference_score(load_weights(path), buffer[:n].tolist())) <= 2.0


def test_training_data_for_losers_is_scored_by_the_losers_weights():
    """`prepare(rows, "losers")`: the fixed linear part is the losers evaluation of each position."""
    train_eval = _tool("train_eval")
    train_network = _tool("train_network")
    data = train_eval.quiet_positions(train_eval.play(3, 200, seed=6, report=lambda line: None, variant="losers"),
                                      "losers")
    linear, active = train_network.prepare(data["rows"][:30], "losers")
    for row, score, inputs in zip(data["rows"][:30], linear, active):
        game = Game("losers", _fen(row, "losers"))
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            moves_difference, forcing = losing_terms(stack, np.int64(idx), rules, mlist)
        assert score == losers_score(game.position(), np.int64(moves_difference), forcing)
        buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
        n = network_inputs(game.position(), buffer)
        assert sorted(inputs[inputs != PADDING].tolist()) == sorted(buffer[:n].tolist())


def test_a_network_file_unpacks_to_the_parameters_it_was_packed_from():
    train_network = _tool("train_network")
    rng = np.random.default_rng(2)
    params = {"w1": rng.standard_normal((INPUTS + 1, 8)).astype(np.float32),
              "b1": rng.standard_normal(8).astype(np.float32),
              "w2": rng.standard_normal(8).astype(np.float32),
              "b2": np.array([0.5], dtype=np.float32)}
    params["w1"][INPUTS] = 0.0
    again = train_network.unpack(train_network.pack(params))
    for key, value in params.items():
        assert np.array_equal(again[key], value), key


def test_widening_a_network_keeps_its_function_and_adds_units_that_can_learn():
    """`widen`: the new units get random first-layer weights and zero output weights, so every
    position scores as before; the old units are untouched."""
    train_network = _tool("train_network")
    weights = _random_network(seed=12)
    params = train_network.unpack(weights)
    wide = train_network.widen(params, HIDDEN + 16, seed=3)
    assert wide["w1"].shape == (INPUTS + 1, HIDDEN + 16) and not wide["w2"][HIDDEN:].any()
    assert np.array_equal(wide["w1"][:, :HIDDEN], params["w1"]) and wide["w1"][:INPUTS, HIDDEN:].std() > 0.01
    assert not wide["w1"][INPUTS].any()  # the padding input stays zero
    packed = train_network.pack(wide)
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    for game in _random_games(10, seed=23):
        active = buffer[:network_inputs(game.position(), buffer)].tolist()
        assert abs(_reference_score(packed, active) - _reference_score(weights, active)) < 1e-3
    assert train_network.widen(params, HIDDEN, seed=3) is params


def _train_network(*args, timeout=300):
    """tools/train_network.py run in a fresh interpreter with `args`; its CompletedProcess (text output)."""
    import subprocess

    return subprocess.run([sys.executable, str(ROOT / "tools" / "train_network.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def _self_play_file(tmp_path, teacher: bool = False):
    """(data, path): 12 self-play games at 200 nodes a move written as a `play` file, with a
    made-up teacher column when asked."""
    data = _tool("train_eval").play(12, 200, seed=9, report=lambda line: None)
    if teacher:
        data["teacher"] = np.linspace(-300, 300, len(data["rows"]))
    path = tmp_path / "data.npz"
    np.savez_compressed(path, command=np.array("test"), **data)
    return data, path


def test_a_mirrored_position_has_the_mirrored_inputs_and_the_same_linear_score():
    """The board mirrored left to right by python-chess (files a <-> h) has exactly the inputs
    `mirrored_inputs` maps the original's to, and the same linear score: what
    `train_network.py --mirror` trains on is the mirror image's true input and target."""
    table = mirrored_inputs()
    assert sorted(table) == list(range(INPUTS + 1)) and all(table[table] == np.arange(INPUTS + 1))
    assert table[CAPTURING] == CAPTURING and table[PADDING] == PADDING and table[OURS] == OURS + 7
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    checked = 0
    for game in _random_games(60, seed=31):
        board = chess.Board(game.fen())
        flipped = board.transform(chess.flip_horizontal)
        image = Game("antichess", flipped.fen())
        inputs = sorted(table[buffer[:network_inputs(game.position(), buffer)]].tolist())
        assert sorted(buffer[:network_inputs(image.position(), buffer)].tolist()) == inputs, game.fen()
        scores = []
        for each in (game, image):
            with each.kernel_rows(4) as (stack, mlist, idx, rules):
                moves_difference, forcing = losing_terms(stack, np.int64(idx), rules, mlist)
                scores.append(learned_score(stack[idx], np.int64(moves_difference), forcing))
        assert scores[0] == scores[1], game.fen()
        checked += flipped.fen() != board.fen()
    assert checked >= 50


def test_mirror_adds_the_training_positions_mirror_images_only():
    """`with_mirror_images` appends each training position's image with its linear score and
    targets; held-out positions get none, so the held-out loss is that of played positions."""
    train_network = _tool("train_network")
    buffer = np.zeros(MAX_ACTIVE, dtype=np.int64)
    active = np.full((6, MAX_ACTIVE), PADDING, dtype=np.int16)
    for i, game in enumerate(_random_games(6, seed=33)):
        n = network_inputs(game.position(), buffer)
        active[i, :n] = buffer[:n]
    linear = np.arange(6, dtype=np.float32)
    results = np.array([1, 0, 0.5, 1, 0, 1], dtype=np.float32)
    held_out = np.array([True, False, False, True, False, False])
    grown = train_network.with_mirror_images(active, linear, results, 1 - results, held_out)
    assert [len(part) for part in grown] == [10] * 5
    assert np.array_equal(grown[0][6:], mirrored_inputs()[active[~held_out]])
    assert list(grown[1][6:]) == [1, 2, 4, 5] and list(grown[2][6:]) == [0, 0.5, 0, 1]
    assert list(grown[3][6:]) == [1, 0.5, 1, 0] and not grown[4][6:].any() and list(grown[4][:6]) == list(held_out)


def test_mirror_fits_on_twice_the_training_positions_and_says_so_in_the_file(tmp_path):
    data, path = _self_play_file(tmp_path)
    out = tmp_path / "mirrored.npz"
    run = _train_network("--data", path, "--mirror", "--epochs", 1, "--batch", 64, "--out", out)
    assert run.returncode == 0, run.stderr
    training = int((data["games"] % 10 != 0).sum())
    assert f"{2 * training} training positions with their mirror images" in run.stderr
    notes = np.load(out)
    assert "--mirror" in str(notes["fit"]) and int(notes["positions"]) == len(data["rows"])


def test_mirror_is_refused_for_losers(tmp_path):
    run = _train_network("--data", tmp_path / "absent.npz", "--variant", "losers", "--mirror", timeout=120)
    assert run.returncode == 2 and "--mirror: only for the antichess family" in run.stderr, run.stderr


def test_fine_tuning_on_teacher_scores_starts_from_the_given_network(tmp_path):
    """`--init` starts from a network file and `--teacher-weight` blends the teacher's win
    chance into the target: the run reports the start network's loss and writes a network."""
    _, path = _self_play_file(tmp_path, teacher=True)
    out = tmp_path / "tuned.npz"
    run = _train_network("--data", path, "--init", ROOT / "engine" / "search" / "eval_network.npz",
                         "--teacher-weight", "0.5", "--epochs", 2, "--batch", 64, "--out", out)
    assert run.returncode == 0, run.stderr
    assert "teacher scale" in run.stderr and "starting from" in run.stderr
    assert "against the game results alone" in run.stdout
    tuned = load_weights(out)
    assert tuned.shape == load_weights(ROOT / "engine" / "search" / "eval_network.npz").shape
    assert "--teacher-weight 0.5 --init eval_network.npz" in str(np.load(out)["fit"])


def test_zero_epochs_is_one_usage_error_before_any_work(tmp_path):
    """`--epochs 0` is refused with one usage line (exit 2), not a traceback after the data
    are read, and no network file is written."""
    out = tmp_path / "never.npz"
    run = _train_network("--data", tmp_path / "absent.npz", "--epochs", 0, "--out", out, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "--epochs: at least 1" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()

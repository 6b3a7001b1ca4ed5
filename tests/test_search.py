"""The search: finds mates, plays legal moves in every rule set, obeys its limits, stops."""

from __future__ import annotations

import threading
import time

import pytest

from engine import RULE_SETS, Game, Limits, Searcher
from engine.search.network import NETWORK
from engine.search.timing import unstable_iteration


MULTIPV_SLACK = 125  # centipawns: see test_multipv_lines_are_the_best_moves_with_exact_scores
LINE_SLACK = 175  # centipawns, compulsory capture only: see the same test


def test_finds_a_mate_in_one():
    game = Game("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    result = Searcher().search(game, depth=4)
    assert result.best_move.uci() == "a1a8"
    assert result.info.mate == 1


def test_antichess_gives_away_its_last_piece():
    # White's rook must be taken if it steps onto the b-file or the eighth rank: then white
    # has no pieces and wins.
    game = Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 0 1")
    result = Searcher().search(game, depth=4)
    assert result.best_move.uci() in {"a1b1", "a1a8"}
    assert result.info.mate is not None and result.info.mate > 0


def test_the_fifty_move_rule_ends_a_line_in_the_search():
    # The rook's sacrifice wins at once, unless the clock reaches 100 plies first: at 98 the
    # capture that answers it resets the clock; at 99 the sacrifice itself draws.
    in_time = Searcher().search(Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 98 80"), depth=6)
    assert in_time.info.mate == 1
    too_late = Searcher().search(Game("antichess", "1r6/8/8/8/8/8/8/R7 w - - 99 80"), depth=6)
    assert too_late.info.mate is None and too_late.info.score == 0


def test_dead_bishops_are_a_draw_in_the_search():
    # Bxd2 is forced.  With black's bishop on e4 the two bishops stand on squares of opposite
    # colours and can never meet (a draw); on d4 the game goes on, and white loses.
    dead = Searcher().search(Game("antichess", "8/8/8/8/4b3/8/3p4/2B5 w - - 0 30"), depth=6)
    assert dead.info.mate is None and dead.info.score == 0
    alive = Searcher().search(Game("antichess", "8/8/8/8/3b4/8/3p4/2B5 w - - 0 30"), depth=6)
    assert alive.info.mate is not None and alive.info.mate < 0


def test_sees_being_mated():
    # Black's only move is Kg8; Qf8+ would be met by Kxf8, but Qf2 Kh8 Qf8 mates: black is
    # mated in two.
    game = Game("chess", "7k/8/6K1/8/8/8/8/5Q2 b - - 0 1")
    result = Searcher().search(game, depth=4)
    assert result.best_move.uci() == "h8g8"
    assert result.info.mate == -2


@pytest.mark.parametrize("variant", list(RULE_SETS))
def test_plays_a_legal_move_and_leaves_the_game_unchanged(variant):
    game = Game(variant)
    game.push(game.legal_moves()[-1])
    fen, moves = game.fen(), game.legal_moves()
    result = Searcher().search(game, depth=3)
    assert result.best_move in moves
    assert game.fen() == fen and game.legal_moves() == moves
    assert result.info.depth == 3 and result.info.nodes > 0
    assert all(isinstance(move.uci(), str) for move in result.info.pv)


def test_pass_and_game_over():
    must_pass = Game("mit-antichess", "k7/2K4p/1P5P/8/8/8/8/8 b - - 0 1")
    assert Searcher().search(must_pass, depth=3).best_move.is_pass
    over = Game("mit-antichess", "7k/8/5K2/8/8/8/8/R7 b - - 0 1")
    assert Searcher().search(over, depth=3).best_move is None


def test_stop_really_stops_an_infinite_search():
    game = Game("antichess")
    searcher = Searcher()
    results = []
    worker = threading.Thread(target=lambda: results.append(searcher.search(game, Limits(infinite=True))), daemon=True)
    worker.start()
    time.sleep(0.5)
    alive = worker.is_alive()
    searcher.stop()  # before any check: a failed one must not leave the search running
    assert alive  # infinite means: until told to stop
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert results[0].best_move in game.legal_moves()


def test_node_limit():
    result = Searcher().search(Game("chess"), nodes=20000)
    assert 0 < result.info.nodes <= 20000 + 4096
    assert result.best_move is not None


def test_movetime_is_respected():
    game = Game("giveaway")
    searcher = Searcher()
    searcher.search(game, depth=1)
    started = time.perf_counter()
    result = searcher.search(game, movetime=0.3)
    assert time.perf_counter() - started < 1.5
    assert result.best_move in game.legal_moves()


def test_movetime_searches_for_all_of_its_time():
    """UCI's `go movetime` is "search exactly x mseconds": no clock's soft limit stops the
    iterations early; the hard limit (the time less the move overhead) ends the search."""
    searcher = Searcher(hash_mb=4)
    game = Game("chess")
    searcher.search(game, depth=1)
    started = time.perf_counter()
    result = searcher.search(game, Limits(movetime=0.6, proof=False))
    elapsed = time.perf_counter() - started
    assert 0.5 < elapsed < 1.5, elapsed
    assert result.best_move in game.legal_moves()


def test_clock_budget_is_a_small_share_of_the_clock():
    searcher = Searcher(hash_mb=1)
    game = Game("chess")
    soft, hard = searcher.budget(game, Limits(wtime=60.0, btime=60.0, winc=0.0))
    assert 0 < soft <= hard <= 30.0
    soft, hard = searcher.budget(game, Limits(wtime=0.05, btime=60.0))
    assert hard <= 0.05


def test_the_opening_of_a_compulsory_capture_game_gets_more_of_the_clock():
    # Plan for 8 moves to go while 24 or more pieces are on the board, 12 after.
    searcher = Searcher(hash_mb=1)
    limits = Limits(wtime=60.0, btime=60.0, winc=0.0, overhead=0.0)
    full, _ = searcher.budget(Game("antichess"), limits)
    sparse, _ = searcher.budget(Game("antichess", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"), limits)
    assert full == pytest.approx(60.0 / 8)
    assert sparse == pytest.approx(60.0 / 12)
    chess, _ = searcher.budget(Game("chess"), limits)
    assert chess == pytest.approx(60.0 / 30)


def test_an_iteration_is_unstable_when_the_best_move_changes_or_the_score_drops():
    game = Game("antichess")
    first, second = game.legal_moves()[:2]
    assert not unstable_iteration(None, first, 0, 8)
    assert not unstable_iteration((first, 0), second, 0, 5)  # too shallow to count
    assert unstable_iteration((first, 0), second, 0, 6)
    assert unstable_iteration((first, 50), first, 5, 6)
    assert not unstable_iteration((first, 50), first, 10, 6)
    assert not unstable_iteration((first, 50), first, 90, 9)


def test_a_depth_limit_with_a_clock_skips_the_proof_stage():
    # With a long clock the proof stage alone would take seconds; depth 2 must not.
    game = Game("mit-antichess")
    started = time.perf_counter()
    result = Searcher().search(game, depth=2, wtime=300.0, btime=300.0)
    assert result.info.depth == 2
    assert time.perf_counter() - started < 2.0


def test_the_proof_stage_budget_follows_the_measured_proof_rate(monkeypatch):
    """The proof stage's node budget is the proof-tree nodes this machine was measured to
    search a second, times PROOF_SHARE of the move's time: a slow or loaded machine gives
    the proof stage fewer nodes instead of more of its clock."""
    import engine.search.searcher as searcher_module

    game = Game("antichess", "rnbqkbnr/pppp1ppp/4p3/8/8/3PP3/PPP2PPP/RNBQKBNR b - - 0 2")
    searcher = Searcher(hash_mb=1)
    limits = Limits(wtime=10.0, btime=10.0, winc=0.1, binc=0.1, overhead=0.0)
    budgets = []
    real_prove = searcher.prove_rows

    def slow_prove(rows, prover, max_nodes):
        budgets.append(max_nodes)
        status, children = real_prove(rows, prover, min(max_nodes, 20000))
        time.sleep(0.1)  # 20,000 nodes at most in over 0.1 s: well under 200,000 a second
        return status, children

    monkeypatch.setattr(searcher, "prove_rows", slow_prove)
    soft, _ = searcher.budget(game, limits)
    searcher.search(game, limits)
    assert len(budgets) == 2  # no win proven in 20,000 nodes: both proof searches ran
    assert budgets[0] == int(searcher_module.PROOF_RATE * searcher_module.PROOF_SHARE * soft)
    assert 0 < searcher.proof_rate < 0.6 * searcher_module.PROOF_RATE
    budgets.clear()
    searcher.search(game, limits)
    assert budgets[0] < 0.6 * searcher_module.PROOF_RATE * searcher_module.PROOF_SHARE * soft


def test_a_nearly_empty_clock_gets_a_tiny_budget():
    soft, hard = Searcher(hash_mb=1).budget(Game("antichess"), Limits(wtime=0.4, btime=10.0))
    assert hard <= 0.05


@pytest.mark.parametrize("variant, fen", [
    ("antichess", "rn1qkbnr/p1p1pppp/1p6/3p4/8/1P2P3/P1PP1PPP/RNBQKBNR w - - 0 1"),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
])
def test_aspiration_windows_that_keep_failing_still_give_a_sound_result(monkeypatch, variant, fen):
    """A 1-centipawn window fails at nearly every depth; the re-searches must still report
    every depth and end with a legal best move heading its principal variation."""
    import engine.search.searcher as searcher_module

    monkeypatch.setattr(searcher_module, "ASPIRATION_WINDOW", 1)
    game = Game(variant, fen)
    infos = []
    result = Searcher(16).search(game, Limits(depth=7), infos.append)
    assert [info.depth for info in infos] == list(range(1, 8))
    assert result.best_move in game.legal_moves()
    assert result.info.pv[0] == result.best_move
    assert game.fen() == fen
    widened = Searcher(16).search(game, Limits(depth=7))
    assert widened.best_move in game.legal_moves()
    # Both searches score the same position to the same depth: their scores agree to within
    # what transposition-table effects of different windows can move them.
    assert abs(result.info.score - widened.info.score) < 200


def test_transposition_pairs_keep_the_deep_entry_against_shallow_ones():
    """Each key has a pair of slots: a flood of depth-0 (quiescence) entries for other keys of
    the same pair must not evict a deep entry, and the newest shallow entry is still found."""
    import numpy as np

    from engine.search import tt

    keys = np.zeros(1024, dtype=np.uint64)
    data = np.zeros(1024, dtype=np.int64)
    deep, others = np.uint64(0x1234_0000_0000_0006), [np.uint64((n << 20) | 6) for n in range(1, 6)]
    tt.store(keys, data, deep, np.int64(77), np.int64(150), np.int64(9), np.int64(tt.BOUND_EXACT), np.int64(0))
    for n, key in enumerate(others):
        tt.store(keys, data, key, np.int64(n + 1), np.int64(-20), np.int64(0), np.int64(tt.BOUND_LOWER), np.int64(3))
    entry = tt.read(tt.TranspositionTable(keys, data), deep)
    assert entry == tt.Entry(move=77, score=150, depth=9, bound=tt.BOUND_EXACT)
    assert tt.entry_score(tt.probe(keys, data, deep), np.int64(0)) == 150
    newest = tt.read(tt.TranspositionTable(keys, data), others[-1])
    assert newest is not None and newest.move == 5
    assert tt.probe(keys, data, others[0]) == -1  # replaced in the second slot
    # A shallower bound for the deep key keeps the deep entry; an exact result replaces it.
    tt.store(keys, data, deep, np.int64(78), np.int64(10), np.int64(2), np.int64(tt.BOUND_UPPER), np.int64(0))
    assert tt.entry_move(tt.probe(keys, data, deep)) == 77
    tt.store(keys, data, deep, np.int64(79), np.int64(10), np.int64(2), np.int64(tt.BOUND_EXACT), np.int64(0))
    assert tt.entry_move(tt.probe(keys, data, deep)) == 79


def test_transposition_entries_keep_mate_distances_relative_to_the_node():
    """A mate stored at ply p and read back at ply q keeps its distance from the node."""
    import numpy as np

    from engine.search import tt
    from engine.search.scores import MATE

    keys = np.zeros(1024, dtype=np.uint64)
    data = np.zeros(1024, dtype=np.int64)
    key = np.uint64(0xABCD_0000_0000_0010)
    tt.store(keys, data, key, np.int64(5), np.int64(MATE - 7), np.int64(4), np.int64(tt.BOUND_EXACT), np.int64(3))
    assert tt.read(tt.TranspositionTable(keys, data), key).score == MATE - 4  # 4 plies from the node
    assert tt.entry_score(tt.probe(keys, data, key), np.int64(5)) == MATE - 9


def _null_window_node(game, depth, alpha, beta, searcher=None):
    """negamax on the current position as an inner node (ply 1); returns (score, nodes)."""
    import numpy as np

    from engine.search.alphabeta import negamax
    from engine.search.state import MAX_PLY, STATE_NODES

    searcher = searcher or Searcher(16)
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        arrays = searcher.kernel_arrays(stack.shape[0], rules)
        arrays.state[:] = 0
        score = negamax(stack, np.int64(idx), np.int64(depth), np.int64(alpha), np.int64(beta), np.int64(1),
                        rules, mlist, arrays)
    return int(score), int(arrays.state[STATE_NODES])


def _static_losing_score(game):
    import numpy as np

    from engine.search.state import MAX_PLY
    from engine.search.static import evaluate_losing

    moves = np.int64(len(game.legal_moves()))
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        return int(evaluate_losing(stack, np.int64(idx), rules, mlist, moves, NETWORK))


def test_static_pruning_cuts_only_quiet_null_window_nodes_far_above_beta():
    """Under compulsory capture a quiet node off the principal variation, near the horizon,
    whose static score clears beta by the margin per ply, returns that score at once; a wide
    window, a forced (capture) node or a score short of the margin is searched."""
    from engine.search.alphabeta import FUTILITY_MARGIN

    margin = FUTILITY_MARGIN
    quiet = Game("antichess")
    static = _static_losing_score(quiet)
    beta = static - 2 * margin
    assert _null_window_node(quiet, 2, beta - 1, beta) == (static, 1)
    assert _null_window_node(quiet, 2, beta - 500, beta)[1] > 1  # a PV node is searched
    assert _null_window_node(quiet, 2, beta, beta + 1)[1] > 1  # short of the margin
    far = static - 5 * margin
    assert _null_window_node(quiet, 4, far - 1, far)[1] > 1  # too far from the horizon

    forced = Game("antichess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1")
    static = _static_losing_score(forced)
    beta = static - 4 * margin
    assert _null_window_node(forced, 2, beta - 1, beta)[1] > 1  # exd5 is compulsory


@pytest.mark.parametrize("variant, fen", [
    ("antichess", "8/8/8/3k4/8/8/2P1N3/4K3 w - - 0 1"),
    ("antichess", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1"),
    ("antichess", "rnbqkbnr/pppp1ppp/8/4p3/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 1"),
    ("suicide", "rnbqkbnr/pppp1ppp/8/4p3/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 1"),
    ("chess", "4k3/8/8/3q4/8/8/3P4/3QK2R w K - 0 1"),
    ("mit-antichess", "4k3/8/8/3q4/8/8/3P4/3QK2R w K - 0 1"),
    ("losers", "4k3/8/8/3q4/8/8/3P4/3QK2R w K - 0 1"),
])
def test_multipv_lines_are_the_best_moves_with_exact_scores(variant, fen):
    """MultiPV k at depth 3 for several k: each line is ranked, best first, with the score a
    fresh search restricted to its move finds (an exact score, not the bound that shows the
    other moves to be worse); no move left out scores above the k-th line by more than the
    search's selectivity allows.

    Static pruning and the quiescence search's stand-pat depend on the window: a move that
    fails low against the k-th score in a null-window search can score a little above it in
    a full window (docs/search.md, "Evaluation network" and "Stand-pat quiescence"), so the
    left-out moves get MULTIPV_SLACK centipawns (1.e3 e5 2.b4 scores 444 searched alone to
    depth 3 but is left out of MultiPV 1 at 326; alone at depth 4 it scores 321); leaving out
    the best move, or ranking lines wrongly, misses by far more.  Under compulsory capture, late-move pruning makes a line's score depend on the windows its subtree was searched with: a
    line's null-window test prunes the late replies two plies down and leaves table entries
    that its exact search then reuses (1.e3 e5 2.c3: -486 in MultiPV 30, -327 alone), so
    the lines get LINE_SLACK centipawns there; elsewhere they are exact."""
    game = Game(variant, fen)
    legal = game.legal_moves()
    alone = {move.uci(): Searcher(16).search(game, Limits(depth=3, root_moves=[move], proof=False)).info.score
             for move in legal}
    for count in sorted({min(k, len(legal)) for k in (1, 2, 4, 8, 12, 16, len(legal))}):
        lines: dict[str, tuple[int, int]] = {}

        def record(info):
            if info.depth == 3:
                lines[info.pv[0].uci()] = (info.score, info.multipv)

        Searcher(16).search(game, Limits(depth=3, multipv=count, proof=False), record)
        assert len(lines) == count
        ranked = sorted(lines.values(), key=lambda line: line[1])
        assert [rank for _, rank in ranked] == list(range(1, count + 1))
        scores = [score for score, _ in ranked]
        assert scores == sorted(scores, reverse=True)
        for move, (score, _) in lines.items():
            if game.rules.must_capture:
                assert abs(score - alone[move]) <= LINE_SLACK, (count, move, score, alone[move])
            else:
                assert score == alone[move], (count, move)
        if game.rules.must_capture:  # chess's null move depends on the window far more
            left_out = [alone[move] for move in alone if move not in lines]
            assert all(score <= scores[-1] + MULTIPV_SLACK for score in left_out), (count, scores, left_out)


def test_pvs_run_on_where_a_table_hit_cut_the_search_line_short():
    """At depth 9 here the search's own PVs of the best lines end after one move (the child
    position's transposition-table entry answers the search); the reported PVs are lengthened
    from the table to at least the full depth, every move legal in turn, with MultiPV 1 and 4."""
    fen = "rnbqkb2/ppppp1p1/5n2/5P1r/1P6/3P4/P1P2PPP/RNB1KBNR w - - 0 6"
    for count in (1, 4):
        final = []

        def record(info):
            if info.depth == 9:
                final.append(info.pv)

        Searcher(64).search(Game("antichess", fen), Limits(depth=9, multipv=count, proof=False), record)
        assert len(final) == count
        for pv in final:
            assert len(pv) >= 9, [move.uci() for move in pv]
            game = Game("antichess", fen)
            for move in pv:
                assert move in game.legal_moves()
                game.push(move)


def test_quiescence_stands_pat_on_a_choice_of_captures_below_the_horizon():
    """Under compulsory capture, at the horizon a node with a choice of captures takes its
    static score as a floor: at or above beta it returns it without searching; otherwise its
    score is at least that.  A single forced capture is still followed (no stand-pat)."""
    from engine.search.scores import INFINITY

    choice = Game("antichess", "rnbqkbnr/ppp2ppp/8/3pp3/3PP3/8/PPP2PPP/RNBQKBNR w - - 0 1")
    assert sum(move.is_capture for move in choice.legal_moves()) == len(choice.legal_moves()) == 2
    static = _static_losing_score(choice)
    assert _null_window_node(choice, 0, static - 1, static) == (static, 1)
    score, nodes = _null_window_node(choice, 0, -INFINITY, INFINITY)
    assert score >= static and nodes > 1

    single = Game("antichess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1")
    static = _static_losing_score(single)
    assert _null_window_node(single, 0, static - 1, static)[1] > 1  # exd5 is searched


def test_correction_history_learns_the_static_scores_error_by_pawn_structure():
    """The static score of a quiet compulsory-capture node off the principal variation is
    corrected by what searches found below positions of the same pawns and side to move: an
    update moves the entry towards the error (more for deeper nodes, never past the limit),
    the pruning then sees the corrected score, and a new game forgets it."""
    import numpy as np

    from engine.search.alphabeta import (
        CORRECTION_GRAIN, CORRECTION_LIMIT, FUTILITY_MARGIN, corrected, correction_slot, update_correction,
    )
    from engine.search.state import CORRECTION_SIZE, MAX_PLY

    start = Game("antichess")
    knight_out = Game("antichess", "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1")
    pawn_out = Game("antichess", "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    searcher = Searcher(16)
    slots = {}
    for name, game in (("start", start), ("knight", knight_out), ("pawn", pawn_out)):
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            slots[name] = int(correction_slot(stack[idx]))
    assert all(0 <= slot < CORRECTION_SIZE for slot in slots.values())
    assert slots["start"] == slots["knight"] != slots["pawn"]  # pawns only

    with start.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        table = searcher.kernel_arrays(stack.shape[0], rules).correction
        pos = stack[idx]
        update_correction(table, pos, np.int64(40), np.int64(3))  # a tenth of the way at depth 3
        assert table[0, slots["start"]] == 40 * CORRECTION_GRAIN * 10 // 256
        assert table[1, slots["start"]] == 0  # the other side to move has its own entry
        assert corrected(table, pos, np.int64(100)) == 100 + table[0, slots["start"]] // CORRECTION_GRAIN
        for _ in range(200):
            update_correction(table, pos, np.int64(10_000), np.int64(20))
        # it closes in on the limit (within the update's rounding) and never passes it
        assert CORRECTION_LIMIT * CORRECTION_GRAIN - 1 <= table[0, slots["start"]] <= CORRECTION_LIMIT * CORRECTION_GRAIN

    # The pruning sees the corrected score: a node whose raw score is just short of the
    # margin is cut at once where its structure has been found to score higher.
    static = _static_losing_score(start)
    beta = static - 2 * FUTILITY_MARGIN + 10
    table[0, slots["start"]] = 20 * CORRECTION_GRAIN
    assert _null_window_node(start, 2, beta - 1, beta, searcher) == (static + 20, 1)
    table[0, slots["start"]] = 0
    assert _null_window_node(start, 2, beta - 1, beta, searcher)[1] > 1
    table[1, 5] = 7
    searcher.new_game()
    assert not table.any()


def test_singular_extension_test_cuts_off_where_other_moves_hold_the_table_score():
    """Multi-cut: a node far enough from the horizon whose table entry (a lower bound from
    a ply shallower, so no table cut-off) is more than 2 centipawns a ply above beta tests the
    other moves at half depth on a null window that far below the entry's score; in a quiet
    king-and-pawn ending every move holds a score so low, and the node returns that window's
    bound at once instead of searching on.  Without the entry it searches its moves to fail
    high."""
    import numpy as np

    from engine.rules.bitboards import P_KEY
    from engine.rules.movegen import legal_moves
    from engine.search import tt
    from engine.search.alphabeta import SINGULAR_DEPTH, SINGULAR_MARGIN
    from engine.search.state import MAX_PLY

    game = Game("chess", "8/5k2/3p4/3P4/2P5/8/5K2/8 w - - 0 1")
    depth, table_score = SINGULAR_DEPTH, -900
    window = table_score - SINGULAR_MARGIN * depth
    beta = window - 5
    unmarked, unmarked_nodes = _null_window_node(game, depth, beta - 1, beta)
    assert unmarked >= beta and unmarked != window  # it fails high by searching its moves

    searcher = Searcher(16)
    with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
        assert legal_moves(stack, np.int64(idx), rules, mlist) > 2
        table = searcher.kernel_arrays(stack.shape[0], rules).tt
        tt.store(table.keys, table.data, stack[idx][P_KEY], np.int64(mlist[idx, 0]), np.int64(table_score),
                 np.int64(depth - 1), np.int64(tt.BOUND_LOWER), np.int64(1))
    score, nodes = _null_window_node(game, depth, beta - 1, beta, searcher)
    assert score == window
    assert nodes < unmarked_nodes


def test_a_table_move_far_above_every_other_is_searched_two_plies_deeper_near_the_root():
    """The singular test at a null-window node: when every other move stays more than
    DOUBLE_MARGIN below the test's window, the table move is searched two plies deeper
    instead of one, but only closer to the root than the root iteration's depth
    (STATE_ROOT_DEPTH), which bounds how far such extensions can stretch a line.  In the
    antichess start position (no capture, so not forced) a table entry scoring the first move
    600 centipawns leaves every other move far below the window; at ply 1 the line reaches
    deeper once the bound passes the node's ply, and not before."""
    import numpy as np

    from engine.rules.bitboards import P_KEY
    from engine.rules.movegen import legal_moves
    from engine.search import tt
    from engine.search.alphabeta import SINGULAR_DEPTH, negamax
    from engine.search.state import MAX_PLY, STATE_ROOT_DEPTH, STATE_SELDEPTH

    game = Game("antichess")

    def seldepth(root_depth):
        searcher = Searcher(16)
        with game.kernel_rows(MAX_PLY + 4) as (stack, mlist, idx, rules):
            assert legal_moves(stack, np.int64(idx), rules, mlist) == 20
            arrays = searcher.kernel_arrays(stack.shape[0], rules)
            tt.store(arrays.tt.keys, arrays.tt.data, stack[idx][P_KEY], np.int64(mlist[idx, 0]), np.int64(600),
                     np.int64(SINGULAR_DEPTH - 1), np.int64(tt.BOUND_LOWER), np.int64(1))
            arrays.state[:] = 0
            arrays.state[STATE_ROOT_DEPTH] = root_depth
            negamax(stack, np.int64(idx), np.int64(SINGULAR_DEPTH), np.int64(0), np.int64(1), np.int64(1),
                    rules, mlist, arrays)
        return int(arrays.state[STATE_SELDEPTH])

    single = seldepth(1)  # the node's own ply: one ply deeper only
    assert seldepth(0) == single
    assert seldepth(2) > single
    assert seldepth(SINGULAR_DEPTH + 4) > single

"""python-chess's engine client (what lichess-bot runs) drives the installed `antichess`
command through whole games with clocks, over UCI and over CECP.

Every move the engine returns must be legal for python-chess's board class and for the
rules core; the rules core referees the end of each game.  The MIT course rules have no
python-chess board, so a small `chess.Board` subclass applies them (check rules first,
then compulsory capture, queen promotion only, a pass when there is no move).
"""

from __future__ import annotations

import logging
import time

import chess
import chess.engine
import chess.variant
import pytest

from engine import Game


class MitAntichessBoard(chess.Board):
    """The MIT 6.170 course rules on python-chess's board, for the engine client's checks."""

    aliases = ["MIT antichess"]
    uci_variant = "mit-antichess"
    xboard_variant = "mit-antichess"
    starting_fen = chess.STARTING_FEN

    def _course_moves(self) -> list[chess.Move]:
        if self.is_variant_end():
            return []
        moves = [m for m in chess.Board.generate_legal_moves(self) if m.promotion in (None, chess.QUEEN)]
        captures = [m for m in moves if self.is_capture(m)]
        return captures or moves

    def generate_legal_moves(self, from_mask=chess.BB_ALL, to_mask=chess.BB_ALL):
        for move in self._course_moves():
            if chess.BB_SQUARES[move.from_square] & from_mask and chess.BB_SQUARES[move.to_square] & to_mask:
                yield move

    def is_legal(self, move: chess.Move) -> bool:
        if not move:
            return not self._course_moves() and not self.is_check() and not self.is_variant_end()
        return move in self._course_moves()

    def is_variant_end(self) -> bool:
        return any(chess.popcount(self.occupied_co[color]) == 1 for color in chess.COLORS)


BOARDS = {
    "chess": chess.Board,
    "antichess": chess.variant.AntichessBoard,
    "giveaway": chess.variant.GiveawayBoard,
    "suicide": chess.variant.SuicideBoard,
    "mit-antichess": MitAntichessBoard,
}


class ClientErrors(logging.Handler):
    """Collects python-chess's error-level log records (and warnings other than the
    documented harmless ones)."""

    HARMLESS = ("Unexpected engine output: 'setup ", "Unexpected engine output: 'piece ",
                "Not transmitting history with null moves", "may not be supported by all XBoard engines",
                "Unexpected engine output: 'stat01: ")  # the answer to `.` in analyze mode, unknown to python-chess

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.levelno < logging.ERROR and any(text in message for text in self.HARMLESS):
            return
        self.records.append(f"{record.levelname}: {message}")


@pytest.fixture
def client_errors():
    handler = ClientErrors()
    logger = logging.getLogger("chess.engine")
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


MAX_PLIES_WITHOUT_DRAW_RULES = 300


def play_game(engine, variant: str, clock: float = 2.0, inc: float = 0.05, ponder: bool = False) -> Game:
    """Self-play one whole game through the client with a real clock (2 s + 0.05 s a move,
    and 0.1 s kept back for the pipes and a loaded machine, as lichess-bot users set Move
    Overhead); returns the referee.

    The course rules have no draw by repetition or move count, so a self-play game there can
    cycle for ever; it is cut off after MAX_PLIES_WITHOUT_DRAW_RULES plies, every move checked."""
    engine.configure({"Move Overhead" if "Move Overhead" in engine.options else "MoveOverhead": 100})
    board = BOARDS[variant]()
    referee = Game(variant)
    clocks = {chess.WHITE: clock, chess.BLACK: clock}
    while referee.outcome() is None:
        if not referee.rules.draw_rules and len(board.move_stack) >= MAX_PLIES_WITHOUT_DRAW_RULES:
            break
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        started = time.monotonic()
        result = engine.play(board, limit, info=chess.engine.INFO_ALL, ponder=ponder)
        spent = time.monotonic() - started
        clocks[board.turn] += inc - spent
        assert clocks[board.turn] > 0, f"{variant}: lost on time at ply {len(board.move_stack)}"
        move = result.move
        assert move is not None, f"{variant}: no move at {board.fen()}"
        assert board.is_legal(move), f"{variant}: {move} illegal for python-chess at {board.fen()}"
        referee.push(move.uci() if move else "0000")  # raises if the rules core disagrees
        board.push(move)
    if variant != "mit-antichess":  # rule sets with draw rules always end
        assert board.is_game_over(), f"{variant}: python-chess sees no end at {board.fen()}"
    return referee


@pytest.mark.parametrize("variant", list(BOARDS))
def test_uci_client_plays_a_whole_game(variant, client_errors):
    with chess.engine.SimpleEngine.popen_uci(["antichess"], timeout=30) as engine:
        engine.ping()  # isready: the kernels load before the clocks start, as a GUI does it
        referee = play_game(engine, variant)
    assert referee.outcome() is not None or len(referee.move_stack) >= MAX_PLIES_WITHOUT_DRAW_RULES
    assert client_errors == []


@pytest.mark.parametrize("variant", list(BOARDS))
def test_xboard_client_plays_a_whole_game(variant, client_errors):
    with chess.engine.SimpleEngine.popen_xboard(["antichess"], timeout=30) as engine:
        engine.ping()
        referee = play_game(engine, variant)
    assert referee.outcome() is not None or len(referee.move_stack) >= MAX_PLIES_WITHOUT_DRAW_RULES
    assert client_errors == []


def test_uci_client_ponders_and_analyses(client_errors):
    with chess.engine.SimpleEngine.popen_uci(["antichess"], timeout=30) as engine:
        assert engine.options["UCI_Variant"].var[:3] == ["chess", "standard", "normal"]
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"UCI_Variant": "antichess"})  # managed by the client, as documented
        engine.configure({"Skill Level": 5, "Hash": 8, "Move Overhead": 10})
        board = chess.variant.AntichessBoard()
        for _ in range(6):  # lichess-bot with ponder on: go ponder, then ponderhit or stop
            result = engine.play(board, chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.05,
                                                           black_inc=0.05), ponder=True)
            assert board.is_legal(result.move)
            board.push(result.move)
        info = engine.analyse(board, chess.engine.Limit(time=0.3))
        assert "score" in info and info["pv"] and board.is_legal(info["pv"][0])
        with engine.analysis(board) as analysis:  # go infinite ... stop
            for info in analysis:
                if info.get("depth", 0) >= 3:
                    break
        assert analysis.wait().move is not None
    assert client_errors == []


def test_xboard_client_time_node_and_depth_limits(client_errors):
    with chess.engine.SimpleEngine.popen_xboard(["antichess"], timeout=30) as engine:
        board = chess.variant.GiveawayBoard()
        for limit in (chess.engine.Limit(time=0.05), chess.engine.Limit(nodes=500), chess.engine.Limit(depth=2)):
            result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            assert board.is_legal(result.move)
            board.push(result.move)
    assert client_errors == []


def _first_moves(infos) -> list:
    return [info["pv"][0] for info in infos]


@pytest.mark.parametrize("variant", list(BOARDS))
def test_uci_multipv_lines_each_with_a_score_and_pv(variant, client_errors):
    board = BOARDS[variant]()
    board.push_uci("e2e3" if variant != "chess" else "e2e4")
    with chess.engine.SimpleEngine.popen_uci(["antichess"], timeout=30) as engine:
        infos = engine.analyse(board, chess.engine.Limit(depth=4), multipv=3)
        assert [info["multipv"] for info in infos] == [1, 2, 3]
        firsts = _first_moves(infos)
        assert len(set(firsts)) == 3 and all(board.is_legal(move) for move in firsts)
        for info in infos:
            assert info["depth"] == 4 and "score" in info
            replay = board.copy()
            for move in info["pv"]:
                assert replay.is_legal(move)
                replay.push(move)
        scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
        assert scores == sorted(scores, reverse=True)
        allowed = [move for move in board.legal_moves][-2:]
        infos = engine.analyse(board, chess.engine.Limit(depth=3), multipv=4, root_moves=allowed)
        assert sorted(map(str, _first_moves(infos))) == sorted(map(str, allowed))  # fewer root moves than lines
        info = engine.analyse(board, chess.engine.Limit(depth=3), root_moves=allowed[:1])
        assert info["pv"][0] == allowed[0]
        result = engine.play(board, chess.engine.Limit(depth=3), root_moves=allowed)
        assert result.move in allowed
    assert client_errors == []


def test_uci_multipv_with_fewer_legal_moves_than_lines(client_errors):
    board = chess.variant.AntichessBoard("8/8/8/8/8/2p5/1p6/2B5 w - - 0 1")  # Bxb2 is forced
    with chess.engine.SimpleEngine.popen_uci(["antichess"], timeout=30) as engine:
        infos = engine.analyse(board, chess.engine.Limit(depth=3), multipv=8)
        assert _first_moves(infos) == [chess.Move.from_uci("c1b2")]
    assert client_errors == []


def test_xboard_client_analyses_with_root_moves(client_errors):
    # python-chess analyses over CECP with `analyze` and restricts the root with `exclude`.
    board = chess.variant.GiveawayBoard()
    board.push_uci("e2e3")
    allowed = [chess.Move.from_uci("g7g5"), chess.Move.from_uci("b7b5")]
    with chess.engine.SimpleEngine.popen_xboard(["antichess"], timeout=30) as engine:
        info = engine.analyse(board, chess.engine.Limit(depth=4))
        assert info["pv"] and board.is_legal(info["pv"][0])
        info = engine.analyse(board, chess.engine.Limit(depth=4), root_moves=allowed)
        assert info["pv"][0] in allowed
        with engine.analysis(board, root_moves=allowed[:1]) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 3:
                    assert info["pv"][0] == allowed[0]
                    break
    assert client_errors == []


def test_clients_read_the_tablebase_path_default_as_empty(client_errors):
    """UCI's `default <empty>` (Stockfish's way of offering an empty string): python-chess
    reads `<empty>`, where `default <default>` was read as '>' (the word "default" inside
    the value ended the field); the value reads back and can be sent back unchanged."""
    with chess.engine.SimpleEngine.popen_uci(["antichess"]) as engine:
        option = engine.options["TablebasePath"]
        assert (option.type, option.default) == ("string", "<empty>")
        engine.configure({"TablebasePath": "<empty>"})
        engine.ping()
    with chess.engine.SimpleEngine.popen_xboard(["antichess"]) as engine:
        option = engine.options["TablebasePath"]
        assert (option.type, option.default) == ("path", "<empty>")
        engine.configure({"TablebasePath": "<empty>"})
        engine.ping()
    assert client_errors == []

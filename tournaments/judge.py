"""A UCI engine that searches positions of one rule set to a fixed node count: the second
judge of `books/make_book.py` and the teacher of the training tools (`tools/train_eval.py`).

It is the runner's own `UciEngine` (the same start-up, option checks, `UCI_Variant` through
the engine's variant list, line reading and failure reports), driven one position or one
game at a time with `go nodes N`, one thread and a small hash table (where the engine has
those options).  A score is the last one the engine reported for the side to move
(`MoveReply.last_score`: a bound of an unfinished iteration too, as the engine's last
word), on `engine.scaled_score`'s scale (a mate in N moves is +-(SCALE_MATE - N)).
"""

from __future__ import annotations

from .engines import EngineProcess, MoveReply, MoveRequest, engine_config, open_engine


class FixedNodeJudge:
    """`command` (a path, or a command line) playing `variant` at `nodes` nodes a move.

    Use `new_game(fen)` and then `search(moves)` for each move of a game from that position,
    or `score(fen)` for a single position (a new game each time); `close()` ends the engine
    (also as a context manager).  Raises `tournaments.engines.EngineFailure` when the engine
    cannot start, lacks the rule set or dies."""

    def __init__(self, command: str, variant: str, nodes: int, hash_mb: int = 16) -> None:
        from engine import Limits

        config = engine_config([("cmd", command), ("proto", "uci"), ("nodes", str(nodes))])
        self.variant = variant
        self.request = MoveRequest(Limits(nodes=nodes))
        self.engine: EngineProcess = open_engine(config)
        try:
            self.engine.start()
            declared = {name.lower(): name for name in self.engine.option_types}
            for name, value in (("threads", 1), ("hash", hash_mb)):
                if name in declared:  # an engine without the option is left as it is
                    self.engine.send(f"setoption name {declared[name]} value {value}")
            self.engine.sync()
        except BaseException:
            self.engine.kill()
            raise

    def new_game(self, fen: str) -> None:
        """Start a game from `fen` (`ucinewgame`: no table entries carried over)."""
        self.engine.new_game(self.variant, fen, False)

    def search(self, moves: list[str] | tuple[str, ...] = ()) -> MoveReply:
        """The engine's reply to `moves` (UCI) from the game's start position: the move
        (`text`) and its last score (`last_score`)."""
        return self.engine.play(list(moves), self.request)

    def score(self, fen: str) -> int | None:
        """The last score of `fen` for the side to move as a new game (None: none reported)."""
        self.new_game(fen)
        return self.search().last_score

    def close(self) -> None:
        self.engine.quit()

    def __enter__(self) -> FixedNodeJudge:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

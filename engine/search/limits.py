"""What bounds a search (`Limits`) and what it reports (`SearchInfo` per finished
iteration, `SearchResult` at the end): the types every adapter passes to and gets from
`Searcher.search`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules.moves import Move
from .scores import cecp_score, scaled_score, uci_score

@dataclass
class Limits:
    """What bounds a search.  Times are in seconds; None means no such bound.

    `wtime`/`btime` are the clocks, `winc`/`binc` the increments, `movestogo` the moves
    to the next time control; `movetime` a fixed time for this move; `infinite` searches
    until `stop()`.  `overhead` is kept back from every time budget for communication.
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    infinite: bool = False
    overhead: float = 0.03
    proof: bool = True  # proof-number search at the root in compulsory-capture rule sets (compiled only)
    multipv: int = 1  # report the best `multipv` root moves, each with its own score and PV
    root_moves: list[Move] | None = None  # search only these root moves (UCI searchmoves)


@dataclass
class SearchInfo:
    """One finished iteration, as protocol `info` lines report it."""

    depth: int
    seldepth: int
    score: int  # centipawns for the side to move (meaningless when `mate` is set)
    mate: int | None  # moves to mate: positive if the side to move mates, negative if it is mated
    nodes: int
    time: float
    pv: list[Move] = field(default_factory=list)
    hashfull: int = 0  # permille of the transposition table in use
    multipv: int = 1  # rank of this line among the best root moves (1 = the best)
    tbhits: int = 0  # endgame-table probes that answered

    @property
    def nps(self) -> int:
        """Nodes a second."""
        return int(self.nodes / self.time) if self.time > 0 else 0

    def uci_score(self) -> str:
        """The UCI `score` field: 'cp N' or 'mate N'."""
        return uci_score(self.score, self.mate)

    def cecp_score(self) -> int:
        """The score of CECP thinking output (a mate as +-(100000 + moves))."""
        return cecp_score(self.score, self.mate)

    def scaled_score(self) -> int:
        """Centipawns, a mate in N moves as +-(100000 - N): one scale to compare by."""
        return scaled_score(self.score, self.mate)


@dataclass
class SearchResult:
    """The move to play (None when the game is over) and the last iteration's info."""

    best_move: Move | None
    ponder: Move | None
    info: SearchInfo | None

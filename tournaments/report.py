"""Summaries of stored games: score tables, pentanomial Elo, LOS, LLR, the crosstable, the
progress line, and the PNG of Elo over the games played (`antichess tournament report`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .stats import (
    EloEstimate, SprtSettings, format_elo, pair_class, pentanomial_elo, trinomial_elo,
)


@dataclass
class EngineLine:
    """One engine's totals against the field."""

    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: list[int] = field(default_factory=lambda: [0] * 5)
    forfeits: dict = field(default_factory=dict)

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + self.draws / 2

    @property
    def elo(self) -> EloEstimate | None:
        """Pentanomial Elo against the field (None before the first complete pair)."""
        return pentanomial_elo(self.penta) if sum(self.penta) else None


@dataclass
class Summary:
    """Everything the reports print, computed from the stored games."""

    names: list[str]
    lines: dict[str, EngineLine]
    games: int
    cross: dict  # (a, b) -> [points of a, games]
    head: EngineLine | None = None  # first engine's view of a two-engine match
    trinomial: EloEstimate | None = None
    pentanomial: EloEstimate | None = None
    sprt: SprtSettings | None = None
    llr: float | None = None
    sprt_decision: str | None = None
    history: list[tuple[int, float, float, float]] = field(default_factory=list)
    llr_history: list[tuple[int, float]] = field(default_factory=list)  # (games, LLR) per pair, SPRT only
    histories: dict = field(default_factory=dict)  # engine -> [(games, elo, low, high)]
    terminations: dict = field(default_factory=dict)


def game_points(game: dict, name: str) -> float:
    """`name`'s points in a finished game (its "result", "white" and "black")."""
    if game["result"] == "1/2-1/2":
        return 0.5
    return 1.0 if (game["white"] == name) == (game["result"] == "1-0") else 0.0


def summarize(games: list[dict], names: list[str], sprt: SprtSettings | None = None) -> Summary:
    """Tables, statistics and Elo history from stored games (in storage order)."""
    lines = {n: EngineLine(n) for n in names}
    cross: dict = {}
    terminations: dict = {}
    pairs: dict[int, dict[int, dict]] = {}
    history: list = []
    llr_history: list = []
    histories: dict = {n: [] for n in names}
    head = EngineLine(names[0]) if len(names) == 2 else None
    played = 0
    for game in games:
        played += 1
        terminations[game["termination"]] = terminations.get(game["termination"], 0) + 1
        for name in (game["white"], game["black"]):
            if name not in lines:
                lines[name] = EngineLine(name)
                histories[name] = []
            line = lines[name]
            points = game_points(game, name)
            line.games += 1
            line.wins += points == 1.0
            line.losses += points == 0.0
            line.draws += points == 0.5
            other = game["black"] if name == game["white"] else game["white"]
            cell = cross.setdefault((name, other), [0.0, 0])
            cell[0] += points
            cell[1] += 1
        if game.get("loser_forfeit"):
            loser = game[game["loser_forfeit"]]
            lines[loser].forfeits[game["forfeit"]] = lines[loser].forfeits.get(game["forfeit"], 0) + 1
        if head is not None:
            points = game_points(game, head.name)
            head.games += 1
            head.wins += points == 1.0
            head.losses += points == 0.0
            head.draws += points == 0.5
        slots = pairs.setdefault(game["pair"], {})
        slots[game["slot"]] = game
        if len(slots) == 2:
            first, second = slots[0], slots[1]
            for name in (first["engine_a"], first["engine_b"]):
                cls = pair_class(game_points(first, name), game_points(second, name))
                lines[name].penta[cls] += 1
                est = pentanomial_elo(lines[name].penta)
                histories[name].append((played, est.elo, est.low, est.high))
            if head is not None:
                cls = pair_class(game_points(first, head.name), game_points(second, head.name))
                head.penta[cls] += 1
                est = pentanomial_elo(head.penta)
                history.append((played, est.elo, est.low, est.high))
                if sprt is not None:
                    llr_history.append((played, sprt.llr(head.penta)))
    summary = Summary(names=list(names), lines=lines, games=played, cross=cross, head=head,
                      sprt=sprt, history=history, llr_history=llr_history, histories=histories,
                      terminations=terminations)
    if head is not None:
        summary.trinomial = trinomial_elo(head.wins, head.losses, head.draws)
        summary.pentanomial = pentanomial_elo(head.penta) if sum(head.penta) else None
        if sprt is not None:
            summary.llr = sprt.llr(head.penta)
            summary.sprt_decision = sprt.decision(summary.llr) if sum(head.penta) else None
    return summary


def _interval(est: EloEstimate | None) -> str:
    if est is None:
        return "n/a"
    return f"{format_elo(est.elo)} [{format_elo(est.low)}, {format_elo(est.high)}]"


def format_progress(summary: Summary, played: int, total: int) -> str:
    """The live progress line: games, score, Elo, LLR."""
    if summary.head is not None:
        h = summary.head
        score = h.points / h.games if h.games else 0.0
        text = (f"Games {played}/{total}: {h.name} vs {summary.names[1]} "
                f"{h.wins} - {h.losses} - {h.draws} [{score:.3f}]"
                f", Elo {_interval(summary.pentanomial)}")
        if summary.pentanomial is not None:
            text += f", LOS {100 * summary.pentanomial.los:.1f}%"
        if summary.sprt is not None:
            text += f", LLR {summary.llr:.2f} [{summary.sprt.lower:.2f}, {summary.sprt.upper:.2f}]"
        return text
    ranked = sorted(summary.lines.values(), key=lambda l: -l.points)
    return f"Games {played}/{total}: " + ", ".join(
        f"{l.name} {l.points:g}/{l.games}" for l in ranked)


def format_bar(summary: Summary) -> tuple[str, str]:
    """The terminal progress bar's (label, postfix): for a two-engine match `A vs B` and
    `score 4.5/12, Elo -120.4 [-308.6, +15.2]` (the first engine's points and pentanomial
    Elo, with `, LLR -0.93` under an SPRT); for more engines `tournament` and the leader's
    points."""
    if summary.head is not None:
        h = summary.head
        text = f"score {h.points:g}/{h.games}, Elo {_interval(summary.pentanomial)}"
        if summary.sprt is not None:
            text += f", LLR {summary.llr:.2f}"
        return f"{h.name} vs {summary.names[1]}", text
    ranked = sorted(summary.lines.values(), key=lambda l: (-l.points, l.name))
    leader = ranked[0] if ranked and ranked[0].games else None
    return "tournament", (f"leader {leader.name} {leader.points:g}/{leader.games}" if leader else "")


def format_summary(summary: Summary, kind: str = "round-robin") -> str:
    """The final report: match block (two engines) or ranking and crosstable."""
    out = []
    if summary.head is not None:
        h = summary.head
        b = summary.names[1]
        score = h.points / h.games if h.games else 0.0
        out.append(f"Score of {h.name} vs {b}: {h.wins} - {h.losses} - {h.draws} "
                   f"[{score:.3f}] {h.games}")
        out.append(f"Elo difference (pentanomial, 95%): {_interval(summary.pentanomial)}"
                   + (f", LOS: {100 * summary.pentanomial.los:.1f}%" if summary.pentanomial else ""))
        tri = summary.trinomial
        if tri is not None:
            margin = "inf" if math.isinf(tri.margin) or math.isnan(tri.margin) else f"{tri.margin:.1f}"
            out.append(f"Elo difference (trinomial, as cutechess): {format_elo(tri.elo)} +/- {margin}, "
                       f"LOS: {100 * tri.los:.1f}%, DrawRatio: "
                       f"{100 * h.draws / h.games if h.games else 0:.1f}%")
        out.append(f"Pairs [LL, LD, DD+WL, WD, WW]: {h.penta}")
        if summary.sprt is not None:
            s = summary.sprt
            state = f" - {summary.sprt_decision} accepted" if summary.sprt_decision else ""
            out.append(f"SPRT: llr {summary.llr:.3f} ({100 * summary.llr / s.upper:.1f}%), "
                       f"lbound {s.lower:.2f}, ubound {s.upper:.2f}, "
                       f"elo0 {s.elo0:g}, elo1 {s.elo1:g}{state}")
    ranked = sorted(summary.lines.values(), key=lambda l: (-(l.points / l.games if l.games else 0), l.name))
    width = max([len(l.name) for l in ranked] + [4])
    out.append("")
    out.append(f"{'Rank':>4} {'Name':<{width}} {'Elo':>7} {'95% interval':>18} {'Games':>6} "
               f"{'Score':>7} {'Draw':>6}  Forfeits")
    for rank, line in enumerate(ranked, 1):
        est = line.elo
        elo = format_elo(est.elo) if est else "n/a"
        interval = f"[{format_elo(est.low)}, {format_elo(est.high)}]" if est else ""
        score = f"{100 * line.points / line.games:.1f}%" if line.games else "-"
        draw = f"{100 * line.draws / line.games:.1f}%" if line.games else "-"
        forfeits = ", ".join(f"{k} {v}" for k, v in sorted(line.forfeits.items())) or "-"
        out.append(f"{rank:>4} {line.name:<{width}} {elo:>7} {interval:>18} {line.games:>6} "
                   f"{score:>7} {draw:>6}  {forfeits}")
    if len(summary.names) > 2 and kind == "round-robin":
        out.append("")
        out.append("Crosstable (points/games, row against column):")
        names = [l.name for l in ranked]
        cells = {}
        for a in names:
            for b in names:
                cell = summary.cross.get((a, b))
                cells[a, b] = "-" if a == b else (f"{cell[0]:g}/{cell[1]}" if cell else "")
        col = max([len(c) for c in cells.values()] + [len(n) for n in names]) + 1
        out.append(" " * (width + 1) + "".join(f"{n[:col - 1]:>{col}}" for n in names))
        for a in names:
            out.append(f"{a:<{width}} " + "".join(f"{cells[a, b]:>{col}}" for b in names))
    if summary.terminations:
        out.append("")
        out.append("Terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.terminations.items())))
    return "\n".join(out)


def _elo_limits(values: list[float], marks: list[float]) -> tuple[float, float]:
    """Y limits of the Elo plot: the finite values and `marks` (0, SPRT bounds), padded."""
    finite = [v for v in values if math.isfinite(v)] + marks
    low, high = min(finite), max(finite)
    pad = max(20.0, 0.08 * (high - low))
    return low - pad, high + pad


def figure(summary: Summary):
    """The report's figure (matplotlib, Agg): the pentanomial Elo after each completed pair
    with its 95% interval shaded (and the SPRT's Elo bounds dotted), and under an SPRT a
    second panel with the LLR after each pair and its two stopping bounds.

    Games are counted in whole games on the x axis.  Infinite values are not drawn at some
    fixed height: an infinite end of an interval shades to the edge of the plot, an infinite
    Elo is a triangle on that edge (pointing the way it is off the scale)."""
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("the PNG needs matplotlib: pip install 'antichess-engine[tournaments]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    series = ({f"{summary.names[0]} vs {summary.names[1]}": summary.history}
              if summary.head is not None else summary.histories)
    sprt = summary.sprt if summary.head is not None else None
    if sprt is not None:
        fig, (ax, llr_ax) = plt.subplots(2, 1, figsize=(8, 7), dpi=100, sharex=True,
                                         gridspec_kw={"height_ratios": [3, 2]})
    else:
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        llr_ax = None
    marks = [0.0] + ([sprt.elo0, sprt.elo1] if sprt is not None else [])
    values = [v for points in series.values() for p in points for v in p[1:]]
    bottom, top = _elo_limits(values, marks)
    last = max([p[0] for points in series.values() for p in points] + [1])
    edge_label = "Elo +-inf (at the edge)"
    for label, points in series.items():
        if not points:
            continue
        xs = [p[0] for p in points]
        elo = [p[1] if math.isfinite(p[1]) else math.nan for p in points]
        low = [max(bottom, p[2]) for p in points]
        high = [min(top, p[3]) for p in points]
        line, = ax.plot(xs, elo, marker="o", markersize=3, label=label)
        color = line.get_color()
        ax.fill_between(xs, low, high, alpha=0.2, color=color)
        for sign, y, marker in ((1, top, "^"), (-1, bottom, "v")):
            edge = [p[0] for p in points if p[1] == sign * math.inf]
            if edge:
                ax.plot(edge, [y] * len(edge), linestyle="none", marker=marker, markersize=7,
                        color=color, clip_on=False, label=edge_label)
                edge_label = None
    ax.axhline(0, color="grey", linewidth=0.8)
    if sprt is not None:
        for bound in (sprt.elo0, sprt.elo1):
            ax.axhline(bound, color="grey", linestyle=":", linewidth=0.8)
    ax.set_ylim(bottom, top)
    ax.set_xlim(0, last * 1.02)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("Elo (pentanomial, 95% interval)")
    ax.set_title("Elo over the games played")
    if any(series.values()):
        ax.legend(loc="best", fontsize="small")
    ax.grid(True, alpha=0.3)
    if llr_ax is not None:
        xs = [p[0] for p in summary.llr_history]
        llr_ax.plot(xs, [p[1] for p in summary.llr_history], marker="o", markersize=3,
                    color="tab:purple", label="LLR")
        for bound, text, side in ((sprt.lower, "H0 accepted", "bottom"), (sprt.upper, "H1 accepted", "top")):
            llr_ax.axhline(bound, color="grey", linestyle=":", linewidth=1.0)
            llr_ax.annotate(f"{text} ({bound:+.2f})", (0.01, bound), xycoords=("axes fraction", "data"),
                            fontsize="small", color="grey", va=side)
        llr_ax.axhline(0, color="grey", linewidth=0.8)
        span = max([abs(p[1]) for p in summary.llr_history] + [sprt.upper, -sprt.lower])
        llr_ax.set_ylim(-1.1 * span, 1.1 * span)
        llr_ax.set_ylabel(f"LLR (SPRT elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g})")
        llr_ax.grid(True, alpha=0.3)
        llr_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        llr_ax.set_xlabel("games played")
    else:
        ax.set_xlabel("games played")
    fig.tight_layout()
    return fig


def write_atomically(path: str, write, binary: bool = False) -> None:
    """Write a file whole or not at all: `write(handle)` fills a temporary file in the same
    folder, which then replaces `path`.  The file gets the mode a new file gets (0666 less
    the umask: 0644 under the usual 022), not the 0600 of a temporary file."""
    import os
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    handle, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=directory)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(handle, 0o666 & ~mask)
        with os.fdopen(handle, "wb" if binary else "w") as out:
            write(out)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_png(summary: Summary, path: str) -> None:
    """The report's figure as a PNG file, written atomically."""
    import matplotlib.pyplot as plt

    fig = figure(summary)
    try:
        write_atomically(path, lambda out: fig.savefig(out, format="png"), binary=True)
    finally:
        plt.close(fig)

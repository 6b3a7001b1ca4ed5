"""Match statistics: score, Elo with a 95% interval, LOS and the pentanomial GSPRT.

Games are played in colour-swapped pairs on the same opening, so the independent unit is
the pair.  A pair scores 0, 1/2, 1, 3/2 or 2 points for the first engine; the counts of the
five classes ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]`` form the *pentanomial*.  The formulas
are the ones Fishtest uses (official-stockfish/fishtest ``server/fishtest/stats/
stat_util.py`` and ``LLRcalc.py``, after M. Van den Bergh's notes
"support_MLE_multinomial.pdf" and "GSPRT_approximation.pdf"); this is an independent
implementation of the same mathematics:

* score ``mu`` = mean points per game; variance of the per-game pair score
  ``var = sum p_i (a_i - mu)^2`` with ``a_i = i/4`` and ``p_i`` the class frequency;
  standard error ``sqrt(var / pairs)``;
* Elo ``= -400 log10(1/mu - 1)`` (logistic); the 95% interval is the Elo of
  ``mu -/+ 1.959964 * se``;
* LOS ``= Phi((mu - 1/2) / se)`` (likelihood of superiority);
* when every pair so far fell in the same class (one pair, or ten pairs all split 1-1) the
  observed variance is 0, which only says that there is too little data: the standard
  error is then that of the counts with half a pair added to each class (a Jeffreys prior),
  so the interval is wide instead of a point (``JEFFREYS``);
* GSPRT: ``LLR = N sum_i p_i log(q1_i / q0_i)`` where ``q_s`` is the maximum-likelihood
  distribution with expected score ``s`` (``q_i = p_i / (1 + x (a_i - s))``, ``x`` the root
  of the secular equation ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``), ``s0, s1`` the
  scores of ``elo0, elo1``; empty classes get 1e-3 as Fishtest does; the test stops at
  ``log(beta / (1 - alpha))`` (H0) or ``log((1 - beta) / alpha)`` (H1).

The trinomial numbers (per game: W, L, D) are kept for comparison with cutechess-cli
(``projects/lib/src/elo.cpp``): same Elo, interval from the per-game variance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal law
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # per-game score of each pentanomial class
REGULARIZE = 1e-3  # Fishtest's value for an empty class in the LLR
JEFFREYS = 0.5  # pairs added to each class for the spread of a pentanomial with one class only


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in [0, 1] (+-inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def phi(x: float) -> float:
    """Cumulative distribution function of the standard normal law."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def pair_class(first: float, second: float) -> int:
    """Pentanomial class (0..4) of a pair from the first engine's two game scores (0, 0.5, 1)."""
    points = first + second
    index = round(points * 2)
    if abs(index / 2 - points) > 1e-9 or not 0 <= index <= 4:
        raise ValueError(f"not a pair of game scores: {first}, {second}")
    return index


@dataclass(frozen=True)
class EloEstimate:
    """Elo with its 95% interval, LOS, score and standard error (of the per-game score)."""

    elo: float
    low: float
    high: float
    los: float
    score: float
    stderr: float

    @property
    def margin(self) -> float:
        """Half the width of the interval in Elo (cutechess's +/-), inf if unbounded."""
        return (self.high - self.low) / 2.0


def _variance(points: list[tuple[float, float]]) -> float:
    """Variance of the (value, count) distribution."""
    total = sum(count for _, count in points)
    mu = sum(value * count for value, count in points) / total
    return sum(count * (value - mu) ** 2 for value, count in points) / total


def _estimate(points: list[tuple[float, float]], spread: list[tuple[float, float]] | None = None
              ) -> EloEstimate | None:
    """Estimate from (value, count) samples: value = per-game score of one sample unit.
    `spread`: other counts to take the variance from (the score is always the observed one)."""
    total = sum(count for _, count in points)
    if total <= 0:
        return None
    mu = sum(value * count for value, count in points) / total
    var = _variance(spread if spread is not None else points)
    se = math.sqrt(var / total)
    low, high = mu - Z95 * se, mu + Z95 * se
    if se > 0:
        los = phi((mu - 0.5) / se)
    else:
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return EloEstimate(elo_from_score(mu), elo_from_score(low), elo_from_score(high), los, mu, se)


def pentanomial_elo(penta: list[int] | tuple[int, ...]) -> EloEstimate | None:
    """Elo, 95% interval and LOS from pentanomial counts [LL, LD, WL+DD, WD, WW]; None if empty.

    When all pairs are in one class the spread comes from the counts plus JEFFREYS pairs in
    every class: the interval of too little data is wide (one pair: [-inf, +inf]), not a point.
    """
    if len(penta) != 5:
        raise ValueError("a pentanomial has five counts")
    spread = None
    if sum(1 for count in penta if count) == 1:
        spread = [(score, count + JEFFREYS) for score, count in zip(PAIR_SCORES, penta)]
    return _estimate(list(zip(PAIR_SCORES, penta)), spread)


def trinomial_elo(wins: int, losses: int, draws: int) -> EloEstimate | None:
    """Elo and interval from per-game W/L/D (cutechess's model); LOS as cutechess computes it."""
    est = _estimate([(1.0, wins), (0.0, losses), (0.5, draws)])
    if est is None:
        return None
    decisive = wins + losses
    los = 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * decisive)) if decisive else 0.5
    return EloEstimate(est.elo, est.low, est.high, los, est.score, est.stderr)


# -- GSPRT ---------------------------------------------------------------------------------


def _secular_root(pdf: list[tuple[float, float]]) -> float:
    """Root x of sum p_i d_i / (1 + x d_i) = 0 on the interval where every 1 + x d_i > 0.

    The function is strictly decreasing there, so bisection is exact to float precision.
    Needs some d_i < 0 < some d_j (the target score strictly inside the support).
    """
    lows = [d for d, _ in pdf]
    v, w = min(lows), max(lows)
    if not v < 0 < w:
        raise ValueError("target score outside the support of the distribution")
    lo, hi = -1.0 / w, -1.0 / v
    span = hi - lo
    lo, hi = lo + span * 1e-12, hi - span * 1e-12

    def f(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for d, p in pdf)

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, abs(mid)):
            break
    return 0.5 * (lo + hi)


def mle_expected(pdf: list[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution on the same values closest in likelihood to `pdf` with mean `s`.

    `pdf` is a list of (value, probability) with probabilities summing to 1.
    """
    x = _secular_root([(a - s, p) for a, p in pdf])
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def llr_pdf(pdf: list[tuple[float, float]], s0: float, s1: float) -> float:
    """Generalized log-likelihood ratio per sample unit of mean s1 against mean s0."""
    q0 = mle_expected(pdf, s0)
    q1 = mle_expected(pdf, s1)
    return sum(p * (math.log(b) - math.log(a)) for (_, p), (_, a), (_, b) in zip(pdf, q0, q1))


def results_pdf(counts: list[int] | tuple[int, ...]) -> tuple[float, list[tuple[float, float]]]:
    """(number of units, empirical pdf) with empty classes set to 1e-3 (Fishtest's regularization)."""
    reg = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(reg)
    k = len(counts) - 1
    return total, [(i / k, c / total) for i, c in enumerate(reg)]


def llr_logistic(counts: list[int] | tuple[int, ...], elo0: float, elo1: float) -> float:
    """Fishtest's LLR_logistic: GSPRT log-likelihood ratio of elo1 against elo0.

    `counts` is a pentanomial (5 counts, pairs) or a trinomial [L, D, W] (3 counts, games).
    Returns 0 with no results at all.
    """
    if sum(counts) == 0:
        return 0.0
    total, pdf = results_pdf(counts)
    return total * llr_pdf(pdf, score_from_elo(elo0), score_from_elo(elo1))


@dataclass(frozen=True)
class SprtSettings:
    """An SPRT: H0 elo = elo0 against H1 elo = elo1 (logistic Elo), error rates alpha, beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not self.elo0 < self.elo1:
            raise ValueError("SPRT needs elo0 < elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("SPRT needs 0 < alpha, beta and alpha + beta < 1")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, penta) -> float:
        """LLR of the pentanomial counts."""
        return llr_logistic(penta, self.elo0, self.elo1)

    def decision(self, llr: float) -> str | None:
        """'H1' (elo1 accepted), 'H0' (elo0 accepted) or None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def format_elo(value: float) -> str:
    """Signed Elo with no decimals, 'inf'/'-inf' at the ends."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "nan"
    return f"{value + 0.0:+.1f}" if round(value, 1) != 0 else "+0.0"

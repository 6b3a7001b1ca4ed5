"""Statistics of the tournament runner against worked examples computed by hand."""

from __future__ import annotations

import math

import pytest

from tournaments.stats import (
    SprtSettings, elo_from_score, llr_logistic, llr_pdf, mle_expected, pair_class,
    pentanomial_elo, score_from_elo, trinomial_elo,
)


def test_elo_of_a_score():
    # 75% is 3:1 odds: Elo = 400 log10(3) = 190.848...
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.5) == 0
    assert score_from_elo(400 * math.log10(3)) == pytest.approx(0.75)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_pair_classes():
    assert [pair_class(0, 0), pair_class(0, 0.5), pair_class(1, 0), pair_class(0.5, 0.5),
            pair_class(1, 0.5), pair_class(1, 1)] == [0, 1, 2, 2, 3, 4]
    with pytest.raises(ValueError):
        pair_class(1, 0.25)


def test_pentanomial_worked_example():
    # Four pairs scoring (per game) 1/4, 1/2, 3/4 and 1:
    #   mu  = (0.25 + 0.5 + 0.75 + 1) / 4 = 0.625
    #   var = (0.375^2 + 0.125^2 + 0.125^2 + 0.375^2) / 4 = 0.3125 / 4 = 0.078125
    #   se  = sqrt(0.078125 / 4) = sqrt(0.01953125) = 0.13975424859...
    #   Elo = -400 log10(1/0.625 - 1) = -400 log10(0.6) = 88.7395...
    #   interval: scores 0.625 -/+ 1.959964 * 0.1397542 = 0.3510869 .. 0.8989131,
    #   Elo -400 log10(1.848294) = -106.71 .. -400 log10(0.1124546) = +379.61
    #   LOS = Phi(0.125 / 0.1397542) = Phi(0.894427) = 0.814453
    est = pentanomial_elo([0, 1, 1, 1, 1])
    assert est.score == pytest.approx(0.625)
    assert est.stderr == pytest.approx(math.sqrt(0.01953125))
    assert est.elo == pytest.approx(88.7395, abs=1e-3)
    assert est.low == pytest.approx(-400 * math.log10(1 / 0.3510869 - 1), abs=1e-3)
    assert est.high == pytest.approx(-400 * math.log10(1 / 0.8989131 - 1), abs=1e-3)
    assert est.low == pytest.approx(-106.71, abs=0.01)  # log10(1.848294) = 0.266771
    assert est.high == pytest.approx(379.61, abs=0.01)  # log10(0.1124546) = -0.949024
    assert est.los == pytest.approx(0.814453, abs=1e-6)


def test_pentanomial_is_narrower_than_trinomial_when_pairs_split():
    # 10 pairs each won once by each side (1-1, class 2): 10 wins, 10 losses.
    # Pentanomial: every pair scores exactly 1/2; an observed variance of 0 is too little
    # data, so the spread is that of [.5, .5, 10.5, .5, .5] (stats.JEFFREYS): se 0.05, +-69 Elo.
    # Trinomial: per-game variance 0.25, se = sqrt(0.25/20) = 0.1118: +-163 Elo.
    penta = pentanomial_elo([0, 0, 10, 0, 0])
    assert penta.elo == 0 and penta.los == 0.5 and penta.stderr == pytest.approx(0.05)
    assert penta.low == pytest.approx(-penta.high) and 0 < penta.high < 70
    tri = trinomial_elo(10, 10, 0)
    assert tri.stderr == pytest.approx(math.sqrt(0.25 / 20))
    assert tri.high == pytest.approx(elo_from_score(0.5 + 1.959964 * math.sqrt(0.0125)), abs=1e-3)
    assert penta.high < tri.high / 2


def test_trinomial_worked_example_as_cutechess():
    # W=10, L=5, D=5: mu = 12.5/20 = 0.625; var = (10*0.375^2 + 5*0.625^2 + 5*0.125^2)/20
    #  = (1.40625 + 1.953125 + 0.078125) / 20 = 0.171875; se = sqrt(0.171875/20)
    # LOS (cutechess) = 0.5 + 0.5 erf((10 - 5) / sqrt(2 * 15)) = 0.5 + 0.5 erf(0.912871)
    est = trinomial_elo(10, 5, 5)
    assert est.score == pytest.approx(0.625)
    assert est.stderr == pytest.approx(math.sqrt(0.171875 / 20))
    assert est.los == pytest.approx(0.5 + 0.5 * math.erf(5 / math.sqrt(30)))
    assert est.los == pytest.approx(0.90165, abs=1e-5)  # erf(0.912871) = 0.803294


def test_empty_results():
    assert pentanomial_elo([0, 0, 0, 0, 0]) is None
    assert trinomial_elo(0, 0, 0) is None
    assert llr_logistic([0, 0, 0, 0, 0], 0, 10) == 0.0


def test_mle_of_a_two_point_law_is_the_target_bernoulli():
    # With values {0, 1} the only law of mean s is (1 - s, s), whatever was observed.
    q = mle_expected([(0.0, 0.4), (1.0, 0.6)], 0.55)
    assert q[0][1] == pytest.approx(0.45) and q[1][1] == pytest.approx(0.55)


def test_llr_two_point_worked_example():
    # Observed 40% / 60% on {0, 1}; H0 s = 0.5, H1 s = 0.55:
    # LLR per unit = 0.4 ln(0.45/0.5) + 0.6 ln(0.55/0.5)
    #             = 0.4 (-0.1053605) + 0.6 (0.0953102) = 0.0150419
    value = llr_pdf([(0.0, 0.4), (1.0, 0.6)], 0.5, 0.55)
    assert value == pytest.approx(0.4 * math.log(0.9) + 0.6 * math.log(1.1))
    assert value == pytest.approx(0.0150419, abs=1e-7)


def _dual_llr(counts, elo0, elo1):
    """LLR by the dual problem, solved without the secular equation.

    The best law of mean s has log-likelihood sum p log p - max_x sum p log(1 + x (a - s)),
    a concave maximisation in one variable, done here by golden-section search.
    """
    total = sum(counts)
    pdf = [(i / 4, c / total) for i, c in enumerate(counts)]

    def best(s):
        d = [a - s for a, _ in pdf]
        lo, hi = -1 / max(d) + 1e-12, -1 / min(d) - 1e-12

        def g(x):
            return sum(p * math.log(1 + x * di) for (_, p), di in zip(pdf, d))

        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(300):
            x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if g(x1) < g(x2):
                lo = x1
            else:
                hi = x2
        return g((lo + hi) / 2)

    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return total * (best(s0) - best(s1))


@pytest.mark.parametrize("counts,elo0,elo1", [
    ([3, 10, 40, 12, 5], 0, 10),
    ([10789, 19328, 33806, 19402, 10543], -3, 1),
    ([1, 2, 3, 30, 20], 0, 50),
])
def test_pentanomial_llr_agrees_with_the_dual_problem(counts, elo0, elo1):
    assert llr_logistic(counts, elo0, elo1) == pytest.approx(_dual_llr(counts, elo0, elo1), rel=1e-6, abs=1e-9)


def test_llr_sign_and_regularization():
    # A symmetric record has mean 1/2: it is exactly as likely as H0 (elo 0) can make it,
    # so the LLR of elo1 > 0 against elo0 = 0 is negative.
    assert llr_logistic([2, 5, 20, 5, 2], 0, 10) < 0
    # Only wins: the empty classes count as 1e-3 pairs each (as Fishtest does): finite, positive.
    value = llr_logistic([0, 0, 0, 0, 10], 0, 10)
    assert 0 < value < math.inf
    assert value == pytest.approx(_dual_llr([1e-3, 1e-3, 1e-3, 1e-3, 10], 0, 10), rel=1e-6)


def test_sprt_bounds_and_decisions():
    sprt = SprtSettings(0, 10, 0.05, 0.05)
    assert sprt.upper == pytest.approx(math.log(19)) and sprt.lower == pytest.approx(-math.log(19))
    assert sprt.decision(3.0) == "H1" and sprt.decision(-3.0) == "H0" and sprt.decision(0.1) is None
    asym = SprtSettings(0, 5, alpha=0.1, beta=0.2)
    assert asym.upper == pytest.approx(math.log(0.8 / 0.1))
    assert asym.lower == pytest.approx(math.log(0.2 / 0.9))
    for bad in ((10, 0, 0.05, 0.05), (0, 10, 0, 0.05), (0, 10, 0.6, 0.5)):
        with pytest.raises(ValueError):
            SprtSettings(*bad)

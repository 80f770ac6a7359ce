"""Replicate-level estimators (fsmarena/stats/inference.py) against hand-worked values, independent
formulas and simulated studies with a known answer.

The coverage tests simulate whole studies whose truth is known and count how often the 95%
interval contains it: 93-97% of 1,000 studies in the slow run, a wider band with fewer studies
in the default run.  The power test checks the detectable-difference formula by simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from fsmarena.stats import inference as inf

# ---- streams and hand-worked values -------------------------------------------------------------


def test_generators_are_reproducible_and_named():
    a = inf.generator(7, "mean", "random", "FSM").random(4)
    assert np.array_equal(a, inf.generator(7, "mean", "random", "FSM").random(4))
    assert not np.array_equal(a, inf.generator(7, "mean", "random", "BDA").random(4))
    assert not np.array_equal(a, inf.generator(8, "mean", "random", "FSM").random(4))


def test_mean_interval_below_the_bootstrap_threshold_is_student_t():
    values = [2.0, 4.0, 6.0]
    interval = inf.mean_interval(values, inf.generator(0))
    # t(0.975, 2) = 4.302653; sd = 2; half = 4.302653 * 2 / sqrt(3) = 4.96828
    assert (interval.low, interval.high) == pytest.approx((4 - 4.96828, 4 + 4.96828), abs=1e-4)


def test_mean_interval_bootstrap_is_seeded_and_near_the_normal_interval():
    x = np.random.default_rng(1).normal(0.7, 0.05, 60)
    first = inf.mean_interval(x, inf.generator(3, "m"))
    assert first == inf.mean_interval(x, inf.generator(3, "m"))
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    assert first.high - first.low == pytest.approx(2 * half, rel=0.15)
    assert first.low < x.mean() < first.high


def test_degenerate_samples_are_flagged_not_given_an_interval():
    interval = inf.mean_interval([1.0] * 12, inf.generator(0))
    assert interval.degenerate and (interval.value, interval.low, interval.high) == (1.0, 1.0, 1.0)
    assert inf.a12_interval([0.5, 0.5], [0.5, 0.5, 0.5], inf.generator(0)).degenerate
    assert not inf.mean_interval([1.0, 0.9], inf.generator(0)).degenerate


def test_a12_interval_is_around_the_vargha_delaney_value():
    x, y = [0.61, 0.72, 0.55, 0.80, 0.66], [0.41, 0.52, 0.49, 0.58, 0.70]
    pairs = [(a, b) for a in x for b in y]
    expected = sum((a > b) + 0.5 * (a == b) for a, b in pairs) / len(pairs)
    interval = inf.a12_interval(x, y, inf.generator(0))
    assert interval.value == pytest.approx(expected)
    assert 0.0 <= interval.low <= interval.value <= interval.high <= 1.0


def test_beats_median_hand_worked():
    # B's median is 0.5; A: one below, one tie (half), two above -> (0 + 0.5 + 1 + 1) / 4
    assert inf.beats_median([0.4, 0.5, 0.6, 0.9], [0.3, 0.5, 0.7]) == pytest.approx(0.625)


def test_smallest_mann_whitney_p_is_complete_separation():
    exact = sps.mannwhitneyu([1, 2, 3], [4, 5, 6, 7, 8], method="exact").pvalue
    assert inf.smallest_mann_whitney_p(3, 5) == pytest.approx(exact) == pytest.approx(2 / 56)


def test_detectable_difference_hand_worked():
    # z(0.975) + z(0.8) = 1.959964 + 0.841621
    assert inf.detectable_difference(0.01, 0.05) == pytest.approx(0.02801585, abs=1e-7)
    assert inf.detectable_difference(0.01, 0.05 / 4) > inf.detectable_difference(0.01, 0.05)


def test_sign_test_of_56_champions_in_100():
    # the README's "56/100 champions ahead": two-sided binomial p = 0.271
    assert inf.sign_test(56, 44) == pytest.approx(0.2713, abs=1e-4)
    assert inf.sign_test(0, 0) == 1.0


def test_crossplay_counts_champions_of_both_families():
    net = np.array([[0.25, 0.25, -0.5], [0.0, -0.25, -0.25]])  # rows: A's champions; columns: B's
    result = inf.crossplay_inference(net, inf.generator(0))
    # A's rows: 0 (a tie, left out), -1/6 -> 0 ahead, 1 behind; B's columns (A's net against
    # them): +0.125, 0 (a tie), -0.375 -> B's champions ahead of A: 1, behind: 1
    assert (result.ahead_a, result.behind_a, result.ahead_b, result.behind_b) == (0, 1, 1, 1)
    assert result.net.value == pytest.approx(net.mean())
    assert result.p == max(inf.sign_test(0, 1), inf.sign_test(1, 1)) == 1.0


def test_two_way_variance_matches_the_analytic_two_way_cluster_variance():
    rng = np.random.default_rng(2)
    net = rng.normal(0, 0.1, (40, 1)) + rng.normal(0, 0.05, (1, 30)) + rng.normal(0, 0.3, (40, 30))
    n_a, n_b = net.shape
    rows, cols = net.mean(axis=1), net.mean(axis=0)
    residual = net - rows[:, None] - cols[None, :] + net.mean()
    error = (residual**2).sum() / ((n_a - 1) * (n_b - 1))
    analytic = rows.var(ddof=1) / n_a + cols.var(ddof=1) / n_b - error / (n_a * n_b)
    assert inf.two_way_variance(net, inf.generator(0)) == pytest.approx(analytic, rel=0.15)


# ---- simulated studies with a known answer -------------------------------------------------------


def _crossplay_study(rng: np.random.Generator, truth: float) -> np.ndarray:
    """Net scores of 30 x 30 champion pairs, 12 games each: champion effects, pair effects and
    win/draw/loss games (10% draws); the mean net score over champions is ``truth``."""
    skill = truth + rng.normal(0, 0.06, (30, 1)) - rng.normal(0, 0.04, (1, 30)) + rng.normal(0, 0.03, (30, 30))
    wins = rng.binomial(12, (0.9 + skill) / 2)
    losses = rng.binomial(12 - wins, ((0.9 - skill) / 2) / (1 - (0.9 + skill) / 2))
    return (wins - losses) / 12


ESTIMATORS = {
    # name: (one simulated study -> does the 95% interval contain the truth?)
    "mean of 100 replicates (bootstrap)": lambda rng: _covers(inf.mean_interval(rng.beta(8, 2, 100), rng), 0.8),
    "mean of 5 replicates (Student t)": lambda rng: _covers(inf.mean_interval(rng.normal(0.6, 0.05, 5), rng), 0.6),
    "difference of means, 100 and 60 replicates": lambda rng: _covers(
        inf.difference_interval(rng.beta(8, 2, 100), rng.beta(7, 3, 60), rng), 0.1
    ),
    "A12, 50 and 50 replicates": lambda rng: _covers(
        inf.a12_interval(rng.normal(0.5, 1, 50), rng.normal(0, 1, 50), rng), float(sps.norm.cdf(0.5 / math.sqrt(2)))
    ),
    "cross-play net score, 30 x 30 champions": lambda rng: _covers(
        inf.crossplay_inference(_crossplay_study(rng, 0.05), rng).net, 0.05
    ),
}


def _covers(interval: inf.Interval, truth: float) -> bool:
    return interval.low <= truth <= interval.high


def _coverage(name: str, studies: int) -> float:
    rng = np.random.default_rng(2024)
    return sum(ESTIMATORS[name](rng) for _ in range(studies)) / studies


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_intervals_cover_the_truth_in_simulated_studies(name):
    assert 0.88 <= _coverage(name, 120) <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_intervals_cover_the_truth_in_95_percent_of_1000_simulated_studies(name):
    assert 0.93 <= _coverage(name, 1000) <= 0.97


def _null_p_values(studies: int) -> tuple[np.ndarray, np.ndarray]:
    """p-values of the champion-level sign test (cross-play with no family effect) and of
    Mann-Whitney (two families of 20 replicates from one distribution)."""
    rng = np.random.default_rng(7)
    sign = [inf.crossplay_inference(_crossplay_study(rng, 0.0), rng).p for _ in range(studies)]
    mw = [sps.mannwhitneyu(rng.normal(size=20), rng.normal(size=20)).pvalue for _ in range(studies)]
    return np.array(sign), np.array(mw)


def _check_null(p: np.ndarray, slack: float) -> None:
    for level in (0.05, 0.1, 0.25, 0.5):
        assert np.mean(p <= level) <= level + slack  # valid: never rejects more often than its level


@pytest.mark.parametrize("slack", [0.08])
def test_p_values_under_the_null_are_valid(slack):
    sign, mw = _null_p_values(150)
    _check_null(sign, slack)
    _check_null(mw, slack)
    assert abs(np.mean(mw <= 0.5) - 0.5) < 0.15  # Mann-Whitney's is close to uniform


@pytest.mark.slow
def test_p_values_under_the_null_are_uniform_ish_in_1000_studies():
    sign, mw = _null_p_values(1000)
    _check_null(sign, 0.02)
    _check_null(mw, 0.02)
    for level in (0.05, 0.25, 0.5, 0.75):
        assert abs(np.mean(mw <= level) - level) < 0.04


def _power(studies: int) -> float:
    """Share of simulated studies (30 and 30 replicates, sd 0.05 and 0.08) whose Welch test
    detects, at alpha 0.05, a true difference equal to the detectable difference."""
    rng = np.random.default_rng(11)
    se = math.sqrt(0.05**2 / 30 + 0.08**2 / 30)
    shift = inf.detectable_difference(se, 0.05)
    hits = 0
    for _ in range(studies):
        x, y = rng.normal(0.5 + shift, 0.05, 30), rng.normal(0.5, 0.08, 30)
        hits += sps.ttest_ind(x, y, equal_var=False).pvalue < 0.05
    return hits / studies


def test_the_detectable_difference_is_detected_about_80_percent_of_the_time():
    assert 0.70 <= _power(300) <= 0.90


@pytest.mark.slow
def test_the_detectable_difference_is_detected_80_percent_of_the_time_in_2000_studies():
    assert 0.76 <= _power(2000) <= 0.83


def _one_way_interval(net: np.ndarray) -> tuple[float, float]:
    """The interval that resamples only the row family's champions (Student-t over row means)."""
    return inf.t_interval(net.mean(axis=1))


def test_two_way_interval_covers_a_crossed_design_and_the_one_way_does_not():
    """A simulated crossed design with a known answer: champion i of A against j of B scores
    u_i - v_j + e_ij, u, v and e independent normals of mean 0, so the family-level net score is
    0.  Both families' champions vary as much, so an interval resampling A's champions only
    misses half the variance: its coverage falls near 83%, the two-way interval's stays near 95%."""
    rng = np.random.default_rng(2026)
    trials, n_a, n_b = 400, 12, 12
    two_way = one_way = 0
    for trial in range(trials):
        u, v = rng.normal(0, 0.1, n_a), rng.normal(0, 0.1, n_b)
        net = u[:, None] - v[None, :] + rng.normal(0, 0.05, (n_a, n_b))
        interval = inf.crossplay_inference(net, inf.generator(trial, "coverage")).net
        two_way += interval.low <= 0.0 <= interval.high
        low, high = _one_way_interval(net)
        one_way += low <= 0.0 <= high
    assert 0.91 <= two_way / trials <= 0.99
    assert one_way / trials <= 0.88


def test_against_a_fixed_player_the_interval_resamples_only_the_family_and_covers_its_mean():
    """A family of 12 champions against a fixed player (a builtin, one column): champion i scores
    0.1 + u_i, u normal of sd 0.1, so the family's true net score is 0.1.  Only the family varies:
    the interval over its champions covers 0.1 near 95% of the time, where the two-way interval
    of two sampled families had no answer at all (one column, NaN)."""
    rng = np.random.default_rng(7)
    trials, covered = 400, 0
    for trial in range(trials):
        net = (0.1 + rng.normal(0, 0.1, 12))[:, None]
        interval = inf.crossplay_inference(net, inf.generator(trial), (False, True)).net
        covered += interval.low <= 0.1 <= interval.high
        assert (interval.low, interval.high) == pytest.approx(inf.t_interval(net[:, 0]))
    assert 0.92 <= covered / trials <= 0.98
    assert np.isnan(inf.crossplay_inference(net, inf.generator(0)).net.low)  # as two sampled families


def test_a_fixed_player_on_either_side_gives_one_mirrored_statement_and_only_the_family_votes():
    rng = np.random.default_rng(8)
    net = (0.2 + rng.normal(0, 0.05, 10))[:, None]  # every one of 10 champions ahead of the builtin
    forward = inf.crossplay_inference(net, inf.generator(1), (False, True))
    backward = inf.crossplay_inference(-net.T, inf.generator(1), (True, False))
    assert backward.net.value == pytest.approx(-forward.net.value)
    assert (backward.net.low, backward.net.high) == pytest.approx((-forward.net.high, -forward.net.low))
    assert forward.p == backward.p == pytest.approx(inf.sign_test(10, 0))  # the builtin's one "champion" has no vote
    assert (forward.ahead_a, backward.ahead_b) == (10, 10)
    both = inf.crossplay_inference(net[:1], inf.generator(1), (True, True))
    assert np.isnan(both.net.low) and both.p == 1.0

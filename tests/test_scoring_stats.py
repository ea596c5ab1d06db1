"""Each statistic of the scorer on constructed data with a known answer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sst

from acousticlaim.scoring import stats


def test_spearman_without_ties_matches_the_textbook_formula():
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    y = [2.0, 1.0, 4.0, 3.0, 5.0]
    # d = (-1, 1, -1, 1, 0): 1 - 6*4 / (5*24) = 0.8
    assert stats.spearman(x, y) == pytest.approx(0.8, abs=1e-12)


def test_spearman_with_ties_uses_average_ranks():
    # x ranks (1, 2.5, 2.5, 4), y ranks (1, 2, 3, 4): Pearson of the ranks by hand
    x = [10.0, 20.0, 20.0, 30.0]
    y = [1.0, 2.0, 3.0, 4.0]
    rx = np.array([1, 2.5, 2.5, 4])
    ry = np.array([1, 2, 3, 4])
    expected = np.corrcoef(rx, ry)[0, 1]
    assert stats.spearman(x, y) == pytest.approx(expected, abs=1e-12)
    assert stats.spearman(x, y) == pytest.approx(4.5 / math.sqrt(4.5 * 5.0), abs=1e-12)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 60).astype(float)
    b = a + rng.integers(0, 3, 60)
    assert stats.spearman(a, b) == pytest.approx(sst.spearmanr(a, b).statistic, abs=1e-12)


def test_spearman_does_not_exist_on_a_constant_side_or_under_three_pairs():
    assert stats.spearman([1, 1, 1, 1], [1, 2, 3, 4]) is None
    assert stats.spearman([1, 2, 3, 4], [5, 5, 5, 5]) is None
    assert stats.spearman([1, 2], [2, 1]) is None


def test_spearman_refuses_nan_and_mismatched_lengths():
    with pytest.raises(ValueError, match="non-finite"):
        stats.spearman([1, 2, float("nan")], [1, 2, 3])
    with pytest.raises(ValueError, match="length"):
        stats.spearman([1, 2, 3], [1, 2])


def test_constant_predictor_scores_nmae_one_exactly():
    rng = np.random.default_rng(3)
    for n in (25, 26, 101):
        ref = rng.gamma(2.0, 3.0, n)
        constant = np.full(n, np.median(ref))
        assert stats.nmae(constant, ref) == 1.0
    assert stats.nmae([1.0, 2.0, 3.0], [3.0, 3.0, 3.0]) is None  # a constant reference has no floor


def test_nmae_and_floor_by_hand():
    ref = [1.0, 2.0, 4.0, 9.0]  # median 3: |.|= 2, 1, 1, 6 → floor 2.5
    assert stats.constant_floor(ref) == pytest.approx(2.5)
    assert stats.nmae([2.0, 2.0, 4.0, 4.0], ref) == pytest.approx((1 + 0 + 0 + 5) / 4 / 2.5)


def test_fisher_z_interval_by_hand_with_fiellers_variance():
    lo, hi = stats.fisher_z_interval(0.412, 50)
    half = 1.959963984540054 * math.sqrt(1.06 / 47)
    assert lo == pytest.approx(math.tanh(math.atanh(0.412) - half))
    assert hi == pytest.approx(math.tanh(math.atanh(0.412) + half))
    assert stats.fisher_z_interval(0.5, 3) is None
    wider = stats.fisher_z_interval(0.412, 50, variance_factor=1.06)
    pearson = stats.fisher_z_interval(0.412, 50, variance_factor=1.0)
    assert wider[0] < pearson[0] and wider[1] > pearson[1]


@pytest.mark.parametrize("pearson_r", [0.0, 0.3, 0.6])
def test_fisher_z_intervals_cover_the_true_spearman_at_their_nominal_rate(pearson_r):
    """Bivariate normal data: the population Spearman ρ is (6/π)·asin(r/2)."""
    rng = np.random.default_rng(int(pearson_r * 10) + 7)
    n, reps = 60, 3000
    true_rho = 6 / math.pi * math.asin(pearson_r / 2)
    cov = [[1.0, pearson_r], [pearson_r, 1.0]]
    data = rng.multivariate_normal([0, 0], cov, size=(reps, n))
    ranks = data.argsort(axis=1).argsort(axis=1).astype(float)
    xc = ranks[:, :, 0] - ranks[:, :, 0].mean(1, keepdims=True)
    yc = ranks[:, :, 1] - ranks[:, :, 1].mean(1, keepdims=True)
    rho = (xc * yc).sum(1) / np.sqrt((xc**2).sum(1) * (yc**2).sum(1))
    covered = 0
    for r in rho:
        lo, hi = stats.fisher_z_interval(float(r), n)
        covered += lo <= true_rho <= hi
    rate = covered / reps
    se = math.sqrt(0.95 * 0.05 / reps)
    assert abs(rate - 0.95) < 3.5 * se, rate


def test_within_speaker_rho_removes_speaker_register():
    # Two speakers far apart: pooled, the speaker effect makes ρ positive; within each speaker the
    # stated values run opposite to the reference, so ρ on speaker-centred ranks is exactly −1.
    stated = [1, 2, 3, 11, 12, 13]
    reference = [3, 2, 1, 13, 12, 11]
    speakers = ["a", "a", "a", "b", "b", "b"]
    assert stats.spearman(stated, reference) == pytest.approx(1 - 6 * 16 / (6 * 35))
    assert stats.within_speaker_spearman(stated, reference, speakers) == pytest.approx(-1.0)
    # One speaker only: centring subtracts one mean, so the within-speaker ρ is the pooled ρ.
    assert stats.within_speaker_spearman(stated, reference, ["a"] * 6) == pytest.approx(
        stats.spearman(stated, reference))


def test_within_speaker_rho_undefined_when_every_speaker_has_one_clip():
    assert stats.within_speaker_spearman([1, 2, 3], [1, 2, 3], ["a", "b", "c"]) is None


def test_split_half_step_up_and_cap_match_the_paper():
    # The paper: jitter 0.42 → 0.60 → cap 0.77, shimmer 0.19 → 0.32 → 0.57, HNR 0.54 → 0.70 → 0.84.
    # Its 0.42 is itself rounded: exactly 0.42 steps up to 0.5915 (0.59); 0.424 gives the printed 0.60.
    assert round(stats.spearman_brown(0.424), 2) == 0.60
    assert round(stats.reliability_cap(stats.spearman_brown(0.424)), 2) == 0.77
    assert stats.spearman_brown(0.42) == pytest.approx(0.84 / 1.42)
    for half, stepped, cap in [(0.19, 0.32, 0.57), (0.54, 0.70, 0.84)]:
        assert round(stats.spearman_brown(half), 2) == stepped
        assert round(stats.reliability_cap(stats.spearman_brown(half)), 2) == cap


def test_split_half_reliability_from_two_half_readings():
    half1 = [1.0, 2.0, 3.0, 4.0, 5.0, float("nan")]
    half2 = [2.0, 1.0, 4.0, 3.0, 5.0, 9.0]  # ρ = 0.8 on the five defined pairs
    result = stats.split_half_reliability(half1, half2)
    assert result.n == 5
    assert result.half_rho == pytest.approx(0.8)
    assert result.stepped_up == pytest.approx(1.6 / 1.8)
    assert result.cap == pytest.approx(math.sqrt(1.6 / 1.8))
    assert stats.split_half_reliability([1, 1, 1], [1, 2, 3]).cap is None


def test_null_cell_at_n25_clears_the_bar_about_seven_percent_of_the_time():
    analytic = stats.null_exceedance(25, 0.3)
    assert 0.065 < analytic < 0.075  # the paper's "7 % of the time at the n = 25 minimum"
    rng = np.random.default_rng(11)
    reps, n = 40000, 25
    x = rng.random((reps, n)).argsort(1).argsort(1).astype(float)
    y = rng.random((reps, n)).argsort(1).argsort(1).astype(float)
    xc = x - x.mean(1, keepdims=True)
    yc = y - y.mean(1, keepdims=True)
    rho = (xc * yc).sum(1) / np.sqrt((xc**2).sum(1) * (yc**2).sum(1))
    observed = float((rho > 0.3).mean())
    se = math.sqrt(analytic * (1 - analytic) / reps)
    assert abs(observed - analytic) < 4 * se, (observed, analytic)


def test_null_expectation_sums_each_cell_at_its_own_n():
    ns = [25, 25, 100, 400]
    expected = 2 * stats.null_exceedance(25, 0.3) + stats.null_exceedance(100, 0.3) + stats.null_exceedance(400, 0.3)
    assert stats.null_expectation(ns, 0.3) == pytest.approx(expected)
    assert stats.null_exceedance(400, 0.3) < 1e-8 < stats.null_exceedance(100, 0.3) < stats.null_exceedance(25, 0.3)


def test_coverage_and_its_guard_against_double_counting():
    assert stats.coverage(691, 839) == pytest.approx(691 / 839)
    with pytest.raises(ValueError, match="counted twice"):
        stats.coverage(840, 839)


def test_distinct_values_round_first():
    assert stats.distinct_values([1.0, 1.0000001, 2.0, 3.0], 6) == 3
    assert stats.distinct_values([1.0, 1.0000001, 2.0, 3.0], 9) == 4


def test_mean_sd_over_existing_values():
    assert stats.mean_sd([0.5, None, 0.7, float("nan")]) == (pytest.approx(0.6), pytest.approx(math.sqrt(0.02)), 2)
    assert stats.mean_sd([None]) == (None, None, 0)

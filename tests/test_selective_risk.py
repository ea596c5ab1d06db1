import numpy as np
import pytest

from acousticlaim.selective.calibration import CalibrationConfig, calibrate
from acousticlaim.selective.risk import (
    aurc,
    random_selector_curve,
    random_selector_risk,
    relative_aurc,
    risk_at_coverages,
    risk_coverage_curve,
    split_risks,
    summarise_risk,
)
from acousticlaim.selective.slots import build_slots
from tests.selective_fixtures import constructed_tables


def test_curve_and_area_on_a_hand_worked_example():
    errors = np.array([3.0, 1.0, 2.0])
    scores = np.array([0.9, 0.1, 0.5])  # confident on the small error first
    cov, risk = risk_coverage_curve(errors, scores)
    np.testing.assert_allclose(cov, [1 / 3, 2 / 3, 1.0])
    np.testing.assert_allclose(risk, [1.0, 1.5, 2.0])
    assert aurc(errors, scores) == pytest.approx(1.5)
    assert relative_aurc(errors, scores) == pytest.approx(0.75)
    # The reverse order is worse: risks 3, 2.5, 2.
    assert aurc(errors, -scores) == pytest.approx(2.5)
    np.testing.assert_allclose(risk_at_coverages(errors, scores, [0.3, 0.5, 1.0]), [1.0, 1.5, 2.0])


def test_area_from_a_minimum_coverage_is_the_mean_of_the_later_risks():
    rng = np.random.default_rng(4)
    errors, scores = rng.exponential(size=40), rng.random(40)
    _, risk = risk_coverage_curve(errors, scores)
    assert aurc(errors, scores, 0.1) == pytest.approx(risk[3:].mean())  # k >= ceil(0.1 * 40) = 4
    assert aurc(errors, scores, 0.0) == pytest.approx(risk.mean())
    assert relative_aurc(errors, np.zeros(40), 0.1) == pytest.approx(1.0)


def test_ties_are_resolved_by_expectation():
    rng = np.random.default_rng(0)
    errors = rng.exponential(size=50)
    # A constant score is a random ordering: a flat curve at the mean, relative AURC exactly 1.
    _, risk = risk_coverage_curve(errors, np.zeros(50))
    np.testing.assert_allclose(risk, errors.mean())
    assert relative_aurc(errors, np.zeros(50)) == pytest.approx(1.0)
    # Two tied blocks: equal to averaging the AURC over every tie-breaking order (Monte Carlo check).
    scores = np.repeat([0.0, 1.0], 25)
    exact = aurc(errors, scores)
    mc = np.mean([aurc(errors, scores + 1e-9 * rng.permutation(50)) for _ in range(3000)])
    assert exact == pytest.approx(mc, rel=0.01)
    # Batch evaluation equals one at a time.
    batch = np.stack([errors, errors[::-1]])
    sb = np.stack([scores, rng.random(50)])
    np.testing.assert_allclose(aurc(batch, sb), [aurc(batch[0], sb[0]), aurc(batch[1], sb[1])])


def test_random_selector_averages_to_the_full_set_risk():
    rng = np.random.default_rng(1)
    errors = rng.exponential(size=200)
    assert random_selector_risk(errors, 150, 2000, rng) == pytest.approx(errors.mean(), rel=0.01)
    curve = random_selector_curve(errors, np.array([0.1, 0.5, 1.0]), 2000, rng)
    np.testing.assert_allclose(curve, errors.mean(), rtol=0.05)
    with pytest.raises(ValueError, match="cannot keep"):
        random_selector_risk(errors, 0, 10, rng)


def _risks(informative: bool, seed: int):
    predictions, references, manifest, _ = constructed_tables(n_mixtures=300, informative=informative, seed=seed)
    slots = build_slots(predictions, references, manifest)
    _, selection = calibrate(slots, CalibrationConfig(0.75, 5, seed))
    table = split_risks(selection, random_draws=300, seed=seed)
    return slots, table, summarise_risk(table)


def test_informative_head_lowers_risk_as_coverage_falls_and_beats_random():
    slots, table, summary = _risks(informative=True, seed=3)
    for q, part in slots.groupby("quantity"):
        risk = risk_at_coverages(part["error"].to_numpy(), part["s"].to_numpy(), np.array([0.25, 0.5, 0.75, 1.0]))
        assert np.all(np.diff(risk) > 0), (q, risk)  # risk falls as coverage falls
        assert relative_aurc(part["error"].to_numpy(), part["s"].to_numpy()) < 0.8
    # At the calibrated cut, every quantity on every split and scope reduces risk, the random selector does not.
    assert (table["risk_reduction"] > 0.1).all()
    assert (table["random_reduction"].abs() < 0.05).all()
    assert summary["reduces_every_split"].all() and summary["reduces_in_mean"].all()
    assert (table["risk_reduction"] > table["random_reduction"] + 0.1).all()


def test_pure_noise_head_does_not_beat_random_within_monte_carlo_error():
    slots, table, summary = _risks(informative=False, seed=5)
    # The noise head's kept set is itself a random subset: its reduction is distributed like the random
    # selector's. Per split its s.d. is cv(errors) * sqrt(1/k - 1/n); check the mean over splits per quantity.
    for (scope, q), part in table.groupby(["scope", "quantity"]):
        errs = slots.loc[(slots["quantity"] == q), "error"].to_numpy()
        cv = errs.std() / errs.mean()
        k, n = part["n_kept"].mean(), part["n_eval"].mean()
        se = cv * np.sqrt(1 / k - 1 / n) / np.sqrt(len(part))
        assert abs(part["risk_reduction"].mean() - part["random_reduction"].mean()) < 4.5 * se + 1e-9, (scope, q)
    # Over all quantities the relative AURC sits at 1 within its Monte Carlo error.
    rel = [relative_aurc(p["error"].to_numpy(), p["s"].to_numpy()) for _, p in slots.groupby("quantity")]
    assert abs(np.mean(rel) - 1.0) < 0.05
    # And the informative run's large reductions are absent: no quantity gains what an informative head gains.
    assert (summary["risk_reduction_mean"].abs() < 0.1).all()

import numpy as np
import pytest

from acousticlaim.selective.risk import aurc, aurc_weighted, relative_aurc
from acousticlaim.selective.selectors import (
    cluster_bootstrap_weights,
    compare_selectors,
    group_folds,
    residual_ridge_scores,
    ridge_loo_predict,
)
from acousticlaim.selective.slots import build_slots
from acousticlaim.selective.withholding import WithholdingConfig, features_for, run_withholding
from tests.selective_fixtures import constructed_tables


def test_group_folds_keep_groups_whole_and_balanced():
    groups = np.repeat([f"g{i}" for i in range(23)], 2)
    fold = group_folds(groups, 5, seed=1)
    for g in np.unique(groups):
        assert len(set(fold[groups == g])) == 1
    counts = np.bincount(fold[::2], minlength=5)
    assert counts.max() - counts.min() <= 1
    with pytest.raises(ValueError, match="cannot cut 3 mixtures into 5 folds"):
        group_folds(np.array(["a", "b", "c"]), 5, seed=0)


def test_residual_ridge_learns_the_residual_scale_out_of_fold():
    rng = np.random.default_rng(0)
    n = 600
    x = rng.normal(size=(n, 5))
    scale = np.exp(0.9 * x[:, 0])
    residual = scale * rng.normal(size=n)
    groups = np.array([f"g{i // 2}" for i in range(n)])
    scores = residual_ridge_scores(x, residual, groups, folds=5, seed=0)
    assert np.corrcoef(scores, scale)[0, 1] > 0.8
    assert relative_aurc(np.abs(residual), scores) < 0.8
    # Out of fold: changing one clip's own residual never changes that clip's score.
    poisoned = residual.copy()
    poisoned[7] = 1e6
    assert residual_ridge_scores(x, poisoned, groups, folds=5, seed=0)[7] == pytest.approx(scores[7])
    # Rows without a residual (undefined reference) still get a score and are not fitted on.
    residual_nan = residual.copy()
    residual_nan[:10] = np.nan
    s2 = residual_ridge_scores(x, residual_nan, groups, folds=5, seed=0)
    assert np.all(np.isfinite(s2))


@pytest.mark.parametrize("n,p", [(120, 8), (30, 50)])
def test_ridge_loo_is_scikit_learns_standardised_ridgecv(n, p):
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, p) + rng.normal(size=p)
    x[:, 0] = 1.0  # a constant feature is left unscaled, as StandardScaler does
    y = np.stack([x[:, 1] * 2 + rng.normal(size=n), rng.normal(size=n)], axis=1)
    x_test = rng.normal(size=(15, p))
    alphas = np.logspace(-3, 4, 15)
    ours, chosen = ridge_loo_predict(x, y, x_test, alphas)
    for q in range(2):
        model = make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)).fit(x, y[:, q])
        assert chosen[q] == pytest.approx(model[-1].alpha_)
        np.testing.assert_allclose(ours[:, q], model.predict(x_test), rtol=1e-6, atol=1e-8)


def test_quantities_fitted_together_score_as_when_fitted_alone():
    rng = np.random.default_rng(5)
    n = 300
    x = rng.normal(size=(n, 4))
    residuals = np.stack([np.exp(0.7 * x[:, q]) * rng.normal(size=n) for q in range(3)], axis=1)
    residuals[:7, 2] = np.nan  # one quantity with undefined references fits on other rows
    groups = np.array([f"g{i // 2}" for i in range(n)])
    together = residual_ridge_scores(x, residuals, groups, folds=5, seed=1)
    for q in range(3):
        alone = residual_ridge_scores(x, residuals[:, q], groups, folds=5, seed=1)
        np.testing.assert_allclose(together[:, q], alone, rtol=1e-8, atol=1e-10)


def test_cluster_bootstrap_resamples_whole_clusters():
    clusters = np.repeat(["a", "b", "c"], [1, 2, 3])
    rng = np.random.default_rng(0)
    weights = cluster_bootstrap_weights(clusters, 500, rng)
    assert weights.shape == (500, 6)
    for c in "abc":  # every slot of a cluster is drawn as often as its cluster
        members = weights[:, clusters == c]
        assert (members == members[:, :1]).all()
    assert (weights[:, [0, 1, 3]].sum(axis=1) == 3).all()  # three clusters drawn per resample
    assert weights[:, 0].mean() == pytest.approx(1.0, abs=0.1)


def test_weighted_area_equals_the_area_of_the_expanded_resample():
    rng = np.random.default_rng(3)
    for _ in range(5):
        errors, scores = rng.exponential(size=31), np.round(rng.random(31), 1)  # with ties
        weights = rng.integers(0, 4, (4, 31))
        weights[:, 0] += 1
        for min_cov in (0.0, 0.1):
            expected = [aurc(np.repeat(errors, w), np.repeat(scores, w), min_cov) for w in weights]
            np.testing.assert_allclose(aurc_weighted(errors, scores, weights, min_cov), expected)
            expected = [relative_aurc(np.repeat(errors, w), np.repeat(scores, w), min_cov) for w in weights]
            np.testing.assert_allclose(aurc_weighted(errors, scores, weights, min_cov, relative=True), expected)


def test_compare_selectors_declares_a_winner_only_when_the_interval_excludes_zero():
    rng = np.random.default_rng(2)
    n = 400
    errors = rng.exponential(size=n)
    clusters = np.arange(n) % 40
    good = errors + rng.normal(0, 0.2, n)  # orders errors well
    noise = rng.random(n)
    r = compare_selectors(errors, good, errors, noise, clusters, relative=True, resamples=300, rng=rng)
    assert r["winner"] == "a" and r["ci_high"] < 0
    r = compare_selectors(errors, noise, errors, good, clusters, relative=True, resamples=300, rng=rng)
    assert r["winner"] == "b" and r["ci_low"] > 0
    # Two random orderings: a false win no more often than the nominal 5 % (Monte Carlo, 150 pairs).
    false_wins = 0
    for _ in range(150):
        e = rng.exponential(size=200)
        r = compare_selectors(e, rng.random(200), e, rng.random(200), np.arange(200) % 40,
                              relative=True, resamples=150, rng=rng)
        false_wins += r["winner"] != "tie"
    assert false_wins / 150 < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 150)


def test_features_must_cover_every_clip():
    predictions, references, manifest, features = constructed_tables(n_mixtures=10)
    slots = build_slots(predictions, references, manifest)
    with pytest.raises(ValueError, match="no features for 1 test clip"):
        features_for(slots, features.iloc[1:])
    with pytest.raises(ValueError, match="duplicated clip_id"):
        features_for(slots, features.iloc[[0, 0]])


@pytest.mark.parametrize("informative", [True, False])
def test_residual_ridge_against_the_head_over_quantity_and_seed_pairs(informative):
    # The ridge's error scale is a function of the features, so the residual ridge orders its errors;
    # the head's s is informative or pure noise.
    predictions, references, manifest, features = constructed_tables(
        n_mixtures=200, informative=informative, seed=8, train_seeds=(0, 1),
        quantities=("snr", "f0_mean", "hnr"),
    )
    slots = build_slots(predictions, references, manifest)
    cfg = WithholdingConfig(coverage=0.75, splits=3, seed=0, random_draws=50, folds=5, bootstrap=200)
    result = run_withholding(slots, features, cfg)
    sel = result.selectors[(result.selectors["comparison"] == "selector") & (result.selectors["scope"] == "pooled")]
    assert len(sel) == 6  # 3 quantities × 2 training seeds
    if informative:
        # Both order errors; the head knows each slot's own error scale (lognormal, sd 0.8 in log), the
        # residual ridge a feature-driven one (sd ~1 in log): neither is useless.
        assert (sel["head"] < 0.85).all() and (sel["residual_ridge"] < 0.85).all()
    else:
        assert (sel["winner"] == "residual_ridge").all()
        assert (sel["head"] > 0.8).all() and abs(sel["head"].mean() - 1.0) < 0.1
    m = result.metrics
    assert m["selector_wins"]["pooled"]["pairs"] == 6
    assert m["residual_ridge"] == "fitted"

import numpy as np
import pytest

from acousticlaim.model.ridge import RidgeProbe, _group_folds, fit_ridge_probe


def _data(n=120, d=8, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    w = rng.normal(size=(d, 2))
    y = x @ w + noise * rng.normal(size=(n, 2))
    return x, y, w


def test_recovers_a_linear_relation_and_skips_undefined_labels():
    x, y, w = _data()
    y[::5, 1] = np.nan
    probe = fit_ridge_probe(x, y, np.arange(len(x)) % 10, keys=("a", "b"), alphas=(1e-3, 1e-1, 10.0, 1e3))
    xt, yt, _ = _data(seed=1)
    yt = xt @ w
    pred = probe.predict(xt)
    assert np.abs(pred - yt).mean() < 0.05
    assert probe.alpha.max() <= 10.0  # clean linear data: little shrinkage wins


def test_pure_noise_labels_choose_heavy_shrinkage():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 30))
    y = rng.normal(size=(100, 1))
    probe = fit_ridge_probe(x, y, np.arange(100) % 10, keys=("a",), alphas=(1e-3, 1.0, 1e5))
    assert probe.alpha[0] == 1e5
    assert np.abs(probe.coef).max() < 0.01


def test_groups_never_straddle_folds_and_seed_shuffles_assignment():
    groups = np.repeat(np.arange(20), 3)
    f0 = _group_folds(groups, 5, np.random.default_rng(0))
    f1 = _group_folds(groups, 5, np.random.default_rng(1))
    for g in range(20):
        assert len(set(f0[groups == g])) == 1
    assert np.bincount(f0).tolist() == [12] * 5
    assert not np.array_equal(f0, f1)


def test_save_and_load_give_identical_predictions(tmp_path):
    x, y, _ = _data()
    probe = fit_ridge_probe(x, y, np.arange(len(x)) % 7, keys=("a", "b"))
    probe.save(tmp_path / "ridge")
    loaded = RidgeProbe.load(tmp_path / "ridge")
    assert loaded.keys == ("a", "b")
    assert np.array_equal(loaded.predict(x), probe.predict(x))


def test_shape_mismatch_is_a_clear_error():
    x, y, _ = _data()
    with pytest.raises(ValueError, match="shapes disagree"):
        fit_ridge_probe(x, y[:, :1], np.zeros(len(x)), keys=("a", "b"))

import numpy as np
import pytest

from acousticlaim.selective.decomposition import (
    agreement,
    even_split_multiples,
    identification,
    ramp_agreement,
    ramp_dropped,
)


def _profiles(n_clips: int, rng: np.random.Generator, n_tokens: int = 62) -> list[np.ndarray]:
    """Voiced-share-like profiles: smoothed random on/off runs in [0, 1]."""
    out = []
    for _ in range(n_clips):
        raw = (rng.random(n_tokens) < 0.6).astype(float)
        out.append(np.convolve(raw, np.ones(3) / 3, mode="same"))
    return out


def test_agreement_is_pearson_on_term_magnitudes_over_common_tokens():
    profile = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    assert agreement(-2 * profile - 0.0, profile) == pytest.approx(1.0)  # magnitudes, not signs
    assert agreement(np.array([1.0, 3.0, 1.0, 3.0, 2.0, 99.0]), profile) == pytest.approx(1.0)  # extra token ignored
    assert np.isnan(agreement(np.ones(5), profile))  # a constant side is undefined
    assert np.isnan(agreement(profile[:2], profile))
    assert ramp_agreement(np.arange(10.0)) == pytest.approx(1.0)


def test_identification_is_at_chance_on_shuffled_decompositions():
    rng = np.random.default_rng(0)
    profiles = _profiles(400, rng)
    terms = [p + rng.normal(0, 0.1, p.size) + 3.0 for p in profiles]
    own = identification(terms, profiles, n_candidates=20, rng=rng)
    assert own.score > 15  # a decomposition that follows its own frames finds its clip
    shuffled = [terms[i] for i in rng.permutation(len(terms))]
    res = identification(shuffled, profiles, n_candidates=20, rng=rng)
    assert res.score == pytest.approx(1.0, abs=4 * res.score_se)
    assert res.score_se == pytest.approx(np.sqrt(0.05 * 0.95 / 400) / 0.05)


def test_ties_and_undefined_agreements_score_chance_exactly():
    rng = np.random.default_rng(1)
    profiles = _profiles(30, rng)
    constant_terms = [np.ones(p.size) for p in profiles]  # every agreement undefined → all 20 tied
    res = identification(constant_terms, profiles, n_candidates=20, rng=rng)
    assert res.rate == pytest.approx(1 / 20) and res.score == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least 20 clips"):
        identification(constant_terms[:10], profiles[:10], n_candidates=20, rng=rng)


def test_ramp_control_drops_a_quantity_whose_profile_is_a_ramp_in_time():
    rng = np.random.default_rng(2)
    n_tokens = 62
    ramp_profiles = [np.linspace(0, 1, n_tokens) + rng.normal(0, 0.05, n_tokens) for _ in range(100)]
    terms = [p + rng.normal(0, 0.05, n_tokens) + 2.0 for p in ramp_profiles]
    res = identification(terms, ramp_profiles, n_candidates=20, rng=rng)
    assert res.ramp_ratio > 0.7 and ramp_dropped(res)
    profiles = _profiles(100, rng, n_tokens)
    terms = [p + rng.normal(0, 0.1, n_tokens) + 2.0 for p in profiles]
    res = identification(terms, profiles, n_candidates=20, rng=rng)
    assert res.ramp_ratio < 0.3 and not ramp_dropped(res)
    # No positive agreement at all: nothing for the ramp to explain, the quantity is kept.
    anti = [2.0 - p for p in profiles]  # largest terms where the instrument reads least
    res = identification(anti, profiles, n_candidates=20, rng=rng)
    assert res.own_agreement < 0 and np.isnan(res.ramp_ratio) and not ramp_dropped(res)
    # Noise decompositions: no agreement beyond its error, never dropped whatever the profiles' shape.
    for profs in (profiles, ramp_profiles):
        noise = [rng.random(n_tokens) for _ in profs]
        res = identification(noise, profs, n_candidates=20, rng=rng)
        assert np.isnan(res.ramp_ratio) and not ramp_dropped(res)


def test_even_split_multiples():
    np.testing.assert_allclose(even_split_multiples(np.array([1.0, -1.0, 2.0, 0.0])), [1.0, 1.0, 2.0, 0.0])

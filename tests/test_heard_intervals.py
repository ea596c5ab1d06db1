"""The estimator's answer in time on the heard signal: pauses between VAD speech, noise by energy."""

import numpy as np

from acousticlaim.panel.heard_intervals import noise_by_energy, pauses_between

SR = 16_000


def test_pauses_are_the_gaps_of_at_least_0_3_s_between_speech():
    speech = [(0.2, 1.0), (1.2, 2.0), (2.5, 3.0), (3.6, 4.0)]
    assert pauses_between(speech) == [(2.0, 2.5), (3.0, 3.6)]  # the 0.2-s gap is no pause
    assert pauses_between([]) == [] and pauses_between([(0.0, 1.0)]) == []


def test_noise_is_found_where_it_sounds_and_runs_under_the_speech():
    rng = np.random.default_rng(0)
    n = 4 * SR
    x = np.zeros(n)
    x[SR:3 * SR] = 0.1 * np.sin(2 * np.pi * 200 * np.arange(2 * SR) / SR)  # "speech" from 1 to 3 s
    quiet = noise_by_energy(x, SR, [(1.0, 3.0)])
    assert quiet == []  # digital silence around the speech: no noise
    noisy = x + 0.01 * rng.standard_normal(n)  # white noise 20 dB under the speech, over the whole clip
    [(start, end)] = noise_by_energy(noisy, SR, [(1.0, 3.0)])
    assert start == 0.0 and end > 3.97  # one event over the clip, the speech stretch included
    burst = x.copy()
    burst[int(0.2 * SR):int(0.6 * SR)] += 0.02 * rng.standard_normal(int(0.4 * SR))  # a burst before the speech
    [(start, end)] = noise_by_energy(burst, SR, [(1.0, 3.0)])
    assert abs(start - 0.2) < 0.03 and abs(end - 0.6) < 0.03
    assert noise_by_energy(burst, SR, [(1.0, 3.0)], min_level_db=-10.0) == []  # 14 dB under the speech: below -10

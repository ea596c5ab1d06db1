import pytest

from acousticlaim import quantities as Q


def test_thirteen_quantities_ten_scored():
    assert len(Q.ALL_KEYS) == 13
    assert Q.SCORED_KEYS == ("snr", "srmr", "speaking_rate", "pause_count", "pause_rate",
                             "f0_mean", "f0_sd", "jitter", "shimmer", "hnr")
    assert set(Q.ALL_KEYS) - set(Q.SCORED_KEYS) == {"overlap_ratio", "articulation_rate", "duration"}


def test_tiers_follow_the_spec():
    assert Q.get("snr").tier("librimix") is Q.Tier.MEASURABLE
    assert Q.get("srmr").tier("librimix") is Q.Tier.EXACT
    assert Q.get("f0_mean").tier("librimix") is Q.Tier.MASKED
    assert Q.get("jitter").tier("librimix") is Q.Tier.STEM_ONLY
    assert Q.get("speaking_rate").tier("librimix") is Q.Tier.STEM_ONLY
    # AMI: SNR and pauses excluded, everything else read on the channel heard.
    assert Q.get("snr").tier("ami") is Q.Tier.EXCLUDED
    assert Q.get("pause_rate").tier("ami") is Q.Tier.EXCLUDED
    assert Q.get("hnr").tier("ami") is Q.Tier.EXACT
    assert Q.get("duration").tier("ami") is None


def test_units():
    assert Q.get("jitter").unit == "%"
    assert Q.get("pause_rate").unit == "pauses/min"
    assert Q.get("speaking_rate").unit == "syllables/s"


def test_unknown_key_names_the_known_ones():
    with pytest.raises(KeyError, match="unknown quantity 'loudness'.*snr"):
        Q.get("loudness")


def test_release_column_map_matches_the_released_table(shared_data):
    import csv

    ref = shared_data / "release" / "references" / "librimix_test.csv"
    header = next(csv.reader(ref.open()))
    mapping = Q.release_column_map("librimix")
    assert set(mapping) <= set(header)
    assert set(mapping.values()) >= set(Q.SCORED_KEYS)

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


# --- a quantity added to the registry appears everywhere that reads the registry, with no other edit --------

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

DUMMY = Q.Quantity(
    "breathiness", "breathiness index", "dB", True, "a made-up reader, for this test",
    {Q.Corpus.LIBRIMIX: Q.Tier.STEM_ONLY, Q.Corpus.TWIN: Q.Tier.EXACT, Q.Corpus.AMI: Q.Tier.EXACT},
    signals={Q.Corpus.LIBRIMIX: "stem"}, label="Breathiness", heading="Breath.", decimals=3,
    prompt_order=10, table_order=10, free_group="voice", voice=True, extra_units=("%",), reader="breathiness",
    phrases=Q.Phrases("The breathiness is {} dB.", "The breathiness could not be measured.",
                      "the breathiness is {} dB", "breathiness {} dB", "breathiness", "a breathiness of {} dB",
                      "The breathiness index is {} dB."),
)


@pytest.fixture
def dummy_quantity(monkeypatch):
    """The registry with one more scored quantity, for the length of a test."""
    from acousticlaim.instruments import readers
    from acousticlaim.instruments.reading import Reading
    from acousticlaim.scoring import cells

    def read_breathiness(clip, signal):  # its reader: here the RMS level of the signal it is read on, in dB
        sig = clip.signal(signal)
        return {"breathiness": Reading(float(20 * np.log10(np.sqrt(np.mean(sig.x ** 2)))))}

    monkeypatch.setitem(Q.QUANTITIES, DUMMY.key, DUMMY)
    monkeypatch.setitem(readers.READERS, "breathiness", read_breathiness)
    cells.scored_quantities.cache_clear()
    cells.excluded_quantities.cache_clear()
    yield DUMMY
    cells.scored_quantities.cache_clear()
    cells.excluded_quantities.cache_clear()


def test_a_new_quantity_takes_its_place_in_the_orders(dummy_quantity):
    assert Q.prompt_order()[-1] == Q.table_order()[-1] == "breathiness"
    assert "breathiness" in Q.voice_keys() and "breathiness" not in Q.split_half_keys()
    assert Q.kept_as_stated("breathiness", "%") and not Q.kept_as_stated("breathiness", "dB")
    assert dummy_quantity.signal("librimix") == "stem" and dummy_quantity.signal("ami") == "channel"


def test_a_new_quantity_is_in_every_rungs_answer(dummy_quantity):
    from acousticlaim.panel.phrasing import phrase

    values = {k: 1.0 for k in Q.SCORED_KEYS} | {"breathiness": 12.3456}
    assert phrase(values, "P3_template").endswith("The HNR is 1.0 dB. The breathiness is 12.346 dB.")
    assert "the breathiness is 12.346 dB." in phrase(values, "P2_named")
    assert "breathiness 12.346 dB." in phrase(values, "P1_numeric")
    assert "and a breathiness of 12.346 dB." in phrase(values, "P0_free")
    unmeasured = values | {"breathiness": float("nan")}
    assert phrase(unmeasured, "P3_template").endswith("The breathiness could not be measured.")
    assert "The breathiness could not be measured." in phrase(unmeasured, "P1_numeric")


def test_a_new_quantity_is_a_column_of_table2_and_a_row_of_table1(dummy_quantity):
    from acousticlaim.instruments.references import _row
    from acousticlaim.instruments.reading import Reading
    from acousticlaim.scoring.config import ScoringConfig
    from acousticlaim.scoring.pipeline import score
    from acousticlaim.report.tables import render_table1

    rng = np.random.default_rng(0)
    clips = [f"{1000 + i}-1-0001_{2000 + i}-2-0002" for i in range(40)]
    refs = pd.DataFrame([_row(c, "breathiness", Reading(float(v)), Q.Corpus.LIBRIMIX)
                         for c, v in zip(clips, rng.normal(10, 3, len(clips)))])
    assert set(refs["signal"]) == {"stem"} and set(refs["tier"]) == {"stem_only"}
    truth = dict(zip(refs["clip_id"], refs["value"]))
    key = {"system": "sysA", "corpus": "librimix", "rung": "P2_named", "seed": 0}
    claims = pd.DataFrame([{**key, "clip_id": c, "quantity": "breathiness", "value": truth[c] + rng.normal(0, 0.3),
                            "start": 0} for c in clips])
    gens = pd.DataFrame([{**key, "clip_id": c} for c in clips])
    result = score(claims, refs, ScoringConfig(), generations=gens)
    cell = result.cells[result.cells["quantity"] == "breathiness"]
    assert len(cell) == 1 and cell["spearman"].iloc[0] > 0.9
    table2 = result.table2
    assert "breathiness" in set(table2["quantity"])
    from acousticlaim.report.tables import render_table2

    md = render_table2(table2, result.cells, ScoringConfig())
    assert "| HNR | Breath. |" in md
    row = {c: None for c in ("seeds", "clips", "stated", "n_mean", "ours_rho", "ours_sd", "ours_seeds_ranked",
                             "ours_nmae", "ours_within", "ridge_rho", "ridge_sd", "ridge_seeds_ranked", "ridge_nmae",
                             "ridge_within", "half_rho", "stepped_up", "cap", "over_cap")}
    row.update(quantity="breathiness", name=DUMMY.name, tier="stem_only", read_on="mixtures", readout="B", seeds=1,
               clips=40, ours_mark="–", ridge_mark="–")
    assert "| Breathiness | Stem-only |" in render_table1(pd.DataFrame([row]), ScoringConfig())


def test_a_new_quantity_is_measured_and_read_on_its_signal(dummy_quantity):
    from acousticlaim.instruments.measure import measure_waveform
    from acousticlaim.instruments.readers import Signal, read_quantities

    sr = 16000
    t = np.arange(sr) / sr
    x = 0.1 * np.sin(2 * np.pi * 150 * t)
    readings = measure_waveform(x, sr)["readings"]
    assert readings["breathiness"].value == pytest.approx(20 * np.log10(0.1 / np.sqrt(2)), abs=1e-6)

    class TwoSignals:  # a mixture whose stem is quieter than the mixture: the registry's "stem" is read
        params: dict = {}

        def signal(self, name):
            return Signal(x if name == "mixture" else 0.5 * x, sr)

    got = read_quantities(TwoSignals(), "librimix", ["breathiness"], lambda what, keys, fn: fn())
    assert got["breathiness"].value == pytest.approx(20 * np.log10(0.05 / np.sqrt(2)), abs=1e-6)

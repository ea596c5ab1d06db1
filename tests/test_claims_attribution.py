"""SPEC §1 "What counts as a claim about this recording": names from the registry only, attribution,
numbers as written, which quantity; and the echo flag. Each rule is shown on several wordings,
including the five panel systems' real ways of writing (bold labels, tables, JSON, numbered lists)."""

import pytest

from acousticlaim.claims.parser import WORKED_EXAMPLE, parse, parse_batch
from acousticlaim.claims.prompts import get_rung
from acousticlaim.quantities import ALL_KEYS, PITCH_NAMES, QUANTITIES


def kv(text, **kw):
    return {c.quantity: c.value for c in parse(text, **kw)}


# ---- rule 1: named quantities only ---------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        "The HRV is 10 dB.",  # heart-rate variability, not HNR
        "The HHR is 14.2 dB.",  # Audio-Flamingo-3's garble of the template's HNR sentence
        '{"HRN_ratio": "9.5", "SRS_rate": "4.0", "PA_count": "2", "PA_rate": "1.7"}',  # Qwen2-Audio's JSON keys
        '{\\"SRRM\\": \\"0.5\\", \\"fmean\\": \\"480\\", \\"fdist\\": \\"30\\", \\"srate\\": \\"95\\"}',
        "- **SRR:** 0.78\n- **Mf Mean:** 140 Hz",
        "HRN: -18.56 dB; SRRER: 0.5",
    ],
)
def test_unknown_or_other_labels_are_not_read(text):
    assert parse(text) == []


@pytest.mark.parametrize(
    "text, want",
    [
        ('{"F0_stddev": "50", "SpeechRate": "4.1", "Pause_rate": "12", "PAUSE_num": "3"}',
         {"f0_sd": 50, "speaking_rate": 4.1, "pause_rate": 12, "pause_count": 3}),
        ("**Signal-to-Noise Ratio (SNR):** 11.23 dB\n**Harmonics-to-Noise Ratio:** 12.01 dB", {"snr": 11.23, "hnr": 12.01}),
        ("| Quantity | Value |\n|---|---|\n| Speech-to-reverberation modulation energy ratio | 4.88 |\n| Number of pauses | 0 |",
         {"srmr": 4.88, "pause_count": 0}),
        ("There were 5 pauses, about 18 pauses per minute, at 3.9 syllables per second.",
         {"pause_count": 5, "pause_rate": 18, "speaking_rate": 3.9}),
    ],
)
def test_names_in_any_case_and_as_keys(text, want):
    assert kv(text) == pytest.approx(want)


def test_every_registry_alias_is_read_and_the_parser_has_no_other():
    """The alias lists of the registry are the parser's whole vocabulary of quantity names: each is
    read in a label, and the Rust side holds no name the registry does not list (it is generated
    from the registry at build time, parser_rs/build.rs)."""
    from acousticlaim import _parser

    rust = {(phrase, atom) for phrase, atom in _parser.alias_phrases()}
    registry = set()
    for q in QUANTITIES.values():
        assert q.aliases, f"{q.key} has no aliases"
        atom = "duration" if q.key == "duration" else q.key
        registry |= {(_parser.alias_phrase(a), atom) for a in q.aliases}
    from acousticlaim.quantities import PITCH_MEAN_WORDS, PITCH_SPREAD_WORDS

    registry |= {(_parser.alias_phrase(a), "pitch") for a in PITCH_NAMES}
    registry |= {(_parser.alias_phrase(a), "pitch_mean_word") for a in PITCH_MEAN_WORDS}
    registry |= {(_parser.alias_phrase(a), "pitch_spread_word") for a in PITCH_SPREAD_WORDS}
    assert rust == registry
    value = {"pause_count": ("3", 3.0), "overlap_ratio": ("0.4", 0.4), "duration": ("10 s", 10.0)}
    for q in QUANTITIES.values():
        if q.key in ("f0_mean", "f0_sd"):
            continue
        for a in q.aliases:
            written, want = value.get(q.key, ("7.5", 7.5))
            got = kv(f"{a}: {written}")
            assert got.get(q.key) == pytest.approx(want), (q.key, a, got)
    for a in QUANTITIES["f0_sd"].aliases:
        assert kv(f"{a}: 21 Hz") == {"f0_sd": 21}, a
    for a in QUANTITIES["f0_mean"].aliases:
        assert kv(f"{a}: 121 Hz") == {"f0_mean": 121}, a


def test_registry_keys_and_units_are_the_parsers():
    from acousticlaim import _parser

    assert tuple(_parser.quantity_keys()) == ALL_KEYS
    units = dict(zip(_parser.quantity_keys(), _parser.canonical_units()))
    assert units == {k: q.unit for k, q in QUANTITIES.items()}


# ---- rule 2: attribution ---------------------------------------------------------------------------

FRAMED = [
    # Audio-Flamingo-3: transcript, then the prompt's example with its framing
    "A feeling of freedom and I was awake. Here is an example of the required answer for a different recording. "
    "The SNR is 12.4 dB. The SRMR is 6.8. The F0 mean is 138.2 Hz. The F0 SD is 21.5 Hz. The recording contains 5 pauses. "
    "The HNR is 14.2 dB. Now give the same ten sentences, with your own numbers, for the recording you just heard.",
    # Granite-Speech: lower case, no punctuation
    "all my danger and suffering were needed here is example of the required answer the snr is 124 db the srmr is 68 "
    "the f0 mean is 132 hz the recording contains 5 pauses the jitter is 13 percent",
    "Example answer (for a different recording): The SNR is 12.4 dB. The jitter is 1.3 percent.",
    "In the worked example, the SNR is 12.4 dB and the HNR is 14.2 dB.",
]


@pytest.mark.parametrize("text", FRAMED)
def test_the_worked_example_with_its_framing_is_not_read(text):
    assert parse(text) == []


def test_after_the_example_this_recordings_values_are_read():
    text = (
        "Here is an example of the required answer for a different recording. The SNR is 12.4 dB. The SRMR is 6.8.\n\n"
        "For the recording you just heard: The SNR is 9.1 dB. The F0 SD is 33.0 Hz."
    )
    assert kv(text) == {"snr": 9.1, "f0_sd": 33.0}
    same_paragraph = "Example answer (for a different recording): The SNR is 12.4 dB. Now for this recording: The SNR is 7 dB."
    assert kv(same_paragraph) == {"snr": 7}


@pytest.mark.parametrize(
    "text",
    [
        "The sentence numbers and their corresponding information for the provided recording are as follows:\n\n"
        "  1. No sir certainly not (SNR: 12.4, SRMR: 6.8, F0 mean: 138.2, F0 SD: 21.5, pauses: 5, jitter: 1.3)\n"
        "  2. I made the bow so straight that his back (SNR: 12.4, SRMR: 6.8, F0 mean: 138.2",
        "1. You have come to us by request (length: 11 words, F0: 138.2 Hz, SD: 21.5 Hz, rate: 3.9 syllables/s, pauses: 1)",
        '2. "That was the reason we left." (F0: 138.2, SD: 21.5, jitter 1.1%)',
    ],
)
def test_values_attached_to_one_transcript_sentence_are_not_read(text):
    assert parse(text) == []


def test_a_numbered_list_of_this_recordings_values_is_read():
    qwen_omni = "Sure, here are the ten sentences:\n\n1. The SNR is 10.5 dB.\n2. The SRMR is 5.2.\n3. The F0 mean is 142.5 Hz."
    assert kv(qwen_omni) == {"snr": 10.5, "srmr": 5.2, "f0_mean": 142.5}
    remark = "1. The overall quality is poor due to very low SNR (SNR: 7.77 dB)."
    assert kv(remark) == {"snr": 7.77}


@pytest.mark.parametrize(
    "text, want",
    [
        ("Typical adult male F0 is 85–155 Hz; this speaker's pitch averages around 120 Hz.", {"f0_mean": 120}),
        ("**HNR:** 12 dB — for comparison, a healthy voice typically shows an HNR above 20 dB.", {"hnr": 12}),
        ("SNR: 21 dB (compared with 30 dB for studio speech)", {"snr": 21}),
        ("Normally the speaking rate is 4 to 5 syllables per second; here it is slow.", {}),
    ],
)
def test_typical_and_comparison_values_are_not_read(text, want):
    assert kv(text) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("| Quantity | Example (from prompt) | This recording |\n|---|---|---|\n| SNR (dB) | 12.4 | 7.5 |\n"
         "| F0 mean (Hz) | 138.2 | 176.0 |\n| Jitter (%) | 1.3 | 2.1 |", {"snr": 7.5, "f0_mean": 176.0, "jitter": 2.1}),
        ("| | Example | This recording |\n|---|---|---|\n| SNR | 12.4 dB | 18.0 dB |\n| Pauses | 5 | 2 |", {"snr": 18.0, "pause_count": 2}),
        ("| | SNR (dB) | SRMR | Pauses |\n|---|---|---|---|\n| Example | 12.4 | 6.8 | 5 |\n| This recording | 9.0 | 4.1 | 2 |",
         {"snr": 9.0, "srmr": 4.1, "pause_count": 2}),
    ],
)
def test_a_tables_example_column_or_row_is_not_read(text, want):
    assert kv(text) == pytest.approx(want)


# ---- rule 3: numbers as written --------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, want",
    [
        ("jitter 3e-3", {"jitter": 0.3}),
        ("SNR 1.4e1 dB", {"snr": 14}),
        ("HNR: 2.5E+1 dB", {"hnr": 25}),
        ('{"snr_db": 2.5e1, "f0_mean_hz": 1.2e2}', {"snr": 25, "f0_mean": 120}),
    ],
)
def test_scientific_notation_is_read_whole(text, want):
    assert kv(text) == pytest.approx(want)


def test_leading_zeros_and_a_cut_final_number_are_not_read():
    assert kv("Clip 001: the SNR is 25 dB.") == {"snr": 25}
    assert kv("The F0 mean is 001 Hz. The SRMR is 6.1.") == {"srmr": 6.1}
    cut = "The SNR is 14 dB. The shimmer is 8."
    assert kv(cut, truncated=True) == {"snr": 14}
    assert kv(cut) == {"snr": 14, "shimmer": 8}
    assert kv("The SNR is 14 dB. The speaking rate is 4", truncated=True) == {"snr": 14}


# ---- rule 4: which quantity ------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, want",
    [
        ("Std. dev. of F0: 32 Hz", {"f0_sd": 32}),
        ("F0 SD: 18 Hz", {"f0_sd": 18}),
        ("Pitch variability: ≈13 Hz", {"f0_sd": 13}),
        ("The mean pitch is 120 Hz, SD around 15 Hz.", {"f0_mean": 120, "f0_sd": 15}),
        ("Pitch: mean 180 Hz. Std. dev. of F0: 32 Hz.", {"f0_mean": 180, "f0_sd": 32}),
        ("- **Pitch (F0):** mean ≈ 112 Hz; *Std. dev. of F0:* 24 Hz.", {"f0_mean": 112, "f0_sd": 24}),
        ("Pitch: mean 205 Hz, standard deviation 40 Hz", {"f0_mean": 205, "f0_sd": 40}),
    ],
)
def test_f0_spread_wordings_state_f0_sd_never_f0_mean(text, want):
    assert kv(text) == pytest.approx(want)


# ---- the echo flag -----------------------------------------------------------------------------------

def test_worked_example_is_read_from_the_p4_prompt():
    assert WORKED_EXAMPLE == {
        "snr": 12.4, "srmr": 6.8, "f0_mean": 138.2, "f0_sd": 21.5, "speaking_rate": 3.9, "pause_count": 5.0,
        "pause_rate": 18.7, "jitter": 1.3, "shimmer": 4.6, "hnr": 14.2,
    }
    assert "12.4 dB" in get_rung("P4_fewshot").text


def test_claims_equal_to_the_example_carry_echo():
    text = "The SNR is 12.4 dB. The jitter is 0.9 percent. The shimmer is 4.6 dB. The HNR is 14.2 dB."
    echo = {c.quantity + c.unit: c.echo for c in parse(text)}
    assert echo == {"snrdB": True, "jitter%": False, "shimmerdB": False, "hnrdB": True}
    cols = parse_batch([text, "No numbers here.", "The recording contains five pauses."])
    frame = cols.to_pandas()
    assert frame["echo"].tolist() == [True, False, False, True, True]
    assert cols.echo.dtype == bool


def test_table2_notes_give_each_systems_p4_echo_share():
    import pandas as pd

    from acousticlaim.scoring.config import ScoringConfig
    from acousticlaim.scoring.table2 import echo_share_p4

    config = ScoringConfig()
    claims = pd.DataFrame(
        {
            "system": ["A", "A", "A", "A", "B", "B", config.reference_system],
            "rung": ["P4_fewshot", "P4_fewshot", "P4_fewshot", "P2_named", "P4_fewshot", "P4_fewshot", "P4_fewshot"],
            "echo": [True, True, False, True, False, False, True],
        }
    )
    share = echo_share_p4(claims, config)
    assert share == {"A": {"claims": 3, "echo": 2, "share": pytest.approx(2 / 3, abs=1e-6)},
                     "B": {"claims": 2, "echo": 0, "share": 0.0}}

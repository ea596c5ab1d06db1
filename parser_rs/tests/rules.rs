//! One test per parser rule of SPEC §1, on small texts with known answers.
use _parser::{parse, Claim, Options, Quantity, ValueUnit};

fn claims(text: &str) -> Vec<Claim> {
    parse(text, &Options::default())
}

/// (quantity key, value) pairs, in text order.
fn kv(text: &str) -> Vec<(&'static str, f64)> {
    claims(text).iter().map(|c| (c.quantity.key(), (c.value * 1e6).round() / 1e6)).collect()
}

fn get(text: &str, q: Quantity) -> Option<Claim> {
    claims(text).into_iter().find(|c| c.quantity == q)
}

#[test]
fn words_per_minute_become_syllables_per_second() {
    assert_eq!(kv("The speaking rate is 150 words per minute."), vec![("speaking_rate", 3.75)]);
    assert_eq!(kv("speech rate: 180 wpm"), vec![("speaking_rate", 4.5)]);
    assert_eq!(kv("about 2.9 words per second"), vec![("speaking_rate", 4.35)]);
    assert_eq!(kv("240 syllables per minute"), vec![("speaking_rate", 4.0)]);
}

#[test]
fn pauses_per_second_become_per_minute() {
    assert_eq!(kv("Pause rate: 0.2 pauses per second"), vec![("pause_rate", 12.0)]);
    assert_eq!(kv("The pause rate is 0.25 per second."), vec![("pause_rate", 15.0)]);
    assert_eq!(kv("Pause Rate (PRM): 1.33 pausing/s"), vec![("pause_rate", 79.8)]);
}

#[test]
fn kilohertz_become_hertz() {
    assert_eq!(kv("Mean pitch: 0.19 kHz"), vec![("f0_mean", 190.0)]);
}

#[test]
fn bare_jitter_and_shimmer_fractions_are_fractions() {
    assert_eq!(kv("Jitter: 0.0081, shimmer: 0.054"), vec![("jitter", 0.81), ("shimmer", 5.4)]);
    // not below 0.1, or a percent sign, or "%" in the label: as stated
    assert_eq!(kv("Jitter: 0.5. Shimmer: 0.05%."), vec![("jitter", 0.5), ("shimmer", 0.05)]);
    assert_eq!(kv("Jitter (%): 0.05"), vec![("jitter", 0.05)]);
    assert_eq!(kv("The jitter in percent is 0.05."), vec![("jitter", 0.05)]);
}

#[test]
fn shimmer_in_db_stays_in_db() {
    let c = claims("Shimmer: 3.5% (0.31 dB)");
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].quantity, c[0].unit, c[0].value), (Quantity::Shimmer, ValueUnit::Percent, 3.5));
    assert_eq!((c[1].quantity, c[1].unit, c[1].value), (Quantity::Shimmer, ValueUnit::Db, 0.31));
    let c = get("**Shimmer (dB):** 0.29", Quantity::Shimmer).unwrap();
    assert_eq!((c.unit, c.value), (ValueUnit::Db, 0.29));
}

#[test]
fn ranges_state_their_midpoint() {
    for t in [
        "SNR: 10-15 dB",
        "SNR of 10 to 15 dB",
        "The SNR is between 10 and 15 dB.",
        "SNR ranges from 10 to 15 dB",
        "Estimated SNR: ~**10 dB – 15 dB**",
        "SNR: 10–15 dB",
    ] {
        let c = get(t, Quantity::Snr).unwrap_or_else(|| panic!("no SNR in {t:?}"));
        assert_eq!(c.value, 12.5, "{t}");
        assert!(c.is_range, "{t}");
    }
    assert_eq!(kv("The SNR is between -5 and 0 dB."), vec![("snr", -2.5)]);
    assert_eq!(kv("F0 range 300 Hz – 3.5 kHz; pitch 190–230 Hz"), vec![("f0_mean", 210.0)]);
}

#[test]
fn plus_minus_states_the_central_value() {
    let c = get("mean F0 210 Hz ± 35 Hz", Quantity::F0Mean).unwrap();
    assert_eq!(c.value, 210.0);
    assert!(c.approx);
    assert_eq!(kv("SNR approximately 20 +/- 3 dB"), vec![("snr", 20.0)]);
}

#[test]
fn a_quantity_stated_twice_keeps_the_last_value() {
    assert_eq!(kv("The SNR is 10 dB at first; overall, the SNR is 15 dB."), vec![("snr", 15.0)]);
    assert_eq!(kv("SNR: 12.4 dB. SNR: 9.1 dB. SNR: N/A."), vec![("snr", 9.1)]);
}

#[test]
fn no_pauses_is_a_pause_count_of_zero() {
    for t in [
        "There are no pauses.",
        "The speaker flows without any noticeable pauses.",
        "The clip is pause-free.",
        "There aren't any pauses in this recording.",
        "Number of pauses: none",
        "The recording contains zero pauses.",
    ] {
        assert_eq!(kv(t), vec![("pause_count", 0.0)], "{t}");
    }
    // not a zero count
    assert_eq!(kv("There are no long pauses."), vec![]);
    assert_eq!(kv("There is no pause rate to report."), vec![]);
}

#[test]
fn number_words() {
    assert_eq!(kv("There are five pauses."), vec![("pause_count", 5.0)]);
    assert_eq!(kv("A single pause breaks the sentence."), vec![("pause_count", 1.0)]);
    assert_eq!(kv("a pitch of one hundred and twenty hertz"), vec![("f0_mean", 120.0)]);
    assert_eq!(kv("a rate of three point five syllables per second"), vec![("speaking_rate", 3.5)]);
    assert_eq!(kv("The number of pauses is two."), vec![("pause_count", 2.0)]);
    // a number word without a unit is not a value of other quantities
    assert_eq!(kv("The F0 is one of the lowest."), vec![]);
}

#[test]
fn decimal_commas_and_thousands() {
    assert_eq!(kv("Jitter: 1,2 %; HNR: 12,5 dB"), vec![("jitter", 1.2), ("hnr", 12.5)]);
    assert_eq!(kv("F0 mean: 1,250 Hz"), vec![("f0_mean", 1250.0)]);
}

#[test]
fn markdown_tables() {
    let vertical = "| Quantity | Value | Unit |\n|---|---|---|\n| SNR | 19.2 | dB |\n| F0 SD | 24.8 | Hz |\n| Jitter | 0.0081 | |";
    assert_eq!(kv(vertical), vec![("snr", 19.2), ("f0_sd", 24.8), ("jitter", 0.81)]);
    let horizontal = "| SNR (dB) | F0 mean (Hz) | Jitter (%) | Pauses |\n|---|---|---|---|\n| 8.4 | 221.0 | 2.2 | 3 |";
    assert_eq!(kv(horizontal), vec![("snr", 8.4), ("f0_mean", 221.0), ("jitter", 2.2), ("pause_count", 3.0)]);
}

#[test]
fn json_like_output() {
    let t = r#"{"SNR": "-20", "SRRM": "0.5", "F0_mean": "400", "F0_stddev": "50", "speech_rate": "", "PAUSE_num": "3", "jitter": "5", "HNR": "15"}"#;
    assert_eq!(
        kv(t),
        // "SRRM" is not a name of SRMR (SPEC §1 rule 1: an unknown token is not read)
        vec![("snr", -20.0), ("f0_mean", 400.0), ("f0_sd", 50.0), ("pause_count", 3.0), ("jitter", 5.0), ("hnr", 15.0)]
    );
    let escaped = r#"{\"SNR\": \"\", \"rate\": \"95\", \"HNR\": \"1\"}"#;
    assert_eq!(kv(escaped), vec![("hnr", 1.0)]);
    assert_eq!(kv("{'SNR': '25 dB', 'pause_rate': '1.00 minutes'}"), vec![("snr", 25.0)]);
}

#[test]
fn bold_labels_and_restated_acronyms() {
    let t = "- **Fundamental Frequency Mean (F0 Mean)**: 153.30 Hz\n- **Fundamental Frequency Standard Deviation ($F_0$ SD):** 35.80 Hz\n- **Standard Deviation of Fundamental Frequency (F0)**: 42.44 Hz";
    assert_eq!(kv(t), vec![("f0_mean", 153.3), ("f0_sd", 42.44)]);
    assert_eq!(kv("6. Number of Pauses (NP): 2"), vec![("pause_count", 2.0)]);
}

#[test]
fn other_numbers_are_not_claims() {
    for t in [
        "There is a short pause at 2.5 s and another between 0:04 and 0:06.",
        "Sample rate: 44.1 kHz; sampled at 16,000 Hz.",
        "1. The recording is noisy.\n2. Two voices overlap.",
        "The speaker says: 'There were 5 pauses at 10 o'clock.'",
        "Integrated loudness: -23 LUFS. Peak: -1 dBFS.",
        "Reverberation time (RT60): 0.44 seconds. C50: 7.9 dB.",
        "The recording quality is 3/5, or 7 out of 10.",
        "Speaker 2 is louder; 3 segments overlap.",
        "Typical adult male F0 is 85–155 Hz.",
        "The average pause duration is 0.6 s.",
    ] {
        assert_eq!(kv(t), vec![], "{t}");
    }
}

#[test]
fn articulation_rate_is_not_speaking_rate() {
    assert_eq!(kv("Articulation rate: 5.3 syllables/s"), vec![("articulation_rate", 5.3)]);
    assert_eq!(
        kv("Articulation rate (excluding pauses): 5.6 syll/s. Speaking rate including pauses: 4.2 syll/s."),
        vec![("articulation_rate", 5.6), ("speaking_rate", 4.2)]
    );
}

#[test]
fn refusals_qualitative_words_and_unfilled_slots_state_nothing() {
    for t in [
        "I'm sorry, but I cannot provide the exact values for the signal-to-noise ratio.",
        "The jitter is low and the shimmer is moderate, while the HNR is high.",
        "the snr is ___ db the f0 mean is ___ hz the recording contains ___ pauses",
        "The SNR is [value] dB. The F0 mean is [value] Hz.",
        "SNR: N/A; F0 mean: X Hz; pauses: ?",
        "{'SNR': '', 'SRMR': '___'}",
        "The SNR cannot be determined from this clip.",
    ] {
        assert_eq!(kv(t), vec![], "{t}");
    }
}

#[test]
fn unit_named_quantities_and_postfix_labels() {
    assert_eq!(kv("a 20 dB SNR and 40% overlap"), vec![("snr", 20.0), ("overlap_ratio", 0.4)]);
    assert_eq!(kv("This 10-second clip"), vec![("duration", 10.0)]);
    assert_eq!(kv("The clip is 9.8 seconds long."), vec![("duration", 9.8)]);
    assert_eq!(kv("18.7 pauses per minute and 3.9 syllables per second"), vec![("pause_rate", 18.7), ("speaking_rate", 3.9)]);
}

#[test]
fn bounds_and_hedges() {
    let c = get("Estimated SNR: **< 0 dB**", Quantity::Snr).unwrap();
    assert_eq!((c.value, c.bound), (0.0, -1));
    let c = get("HNR above 20 dB", Quantity::Hnr).unwrap();
    assert_eq!((c.value, c.bound), (20.0, 1));
    let c = get("SNR of approximately 33 dB", Quantity::Snr).unwrap();
    assert!(c.approx);
}

#[test]
fn coordinated_labels_pair_in_order() {
    assert_eq!(
        kv("the shimmer and jitter values are 1.3% and 4.6%, respectively"),
        vec![("shimmer", 1.3), ("jitter", 4.6)]
    );
}

#[test]
fn truncated_generations_drop_a_cut_final_number() {
    let t = "- Jitter: 0.44%\n- Shimmer: 8.9";
    assert_eq!(parse(t, &Options { truncated: true }).len(), 1);
    assert_eq!(parse(t, &Options { truncated: false }).len(), 2);
    // a final number with its unit is kept
    assert_eq!(parse("Shimmer: 8.9 %", &Options { truncated: true }).len(), 1);
}

#[test]
fn spans_are_character_offsets() {
    let t = "F₀ ≈ 120 Hz and SNR −3 dB";
    let c = claims(t);
    assert_eq!(c.len(), 2);
    let chars: Vec<char> = t.chars().collect();
    let s: String = chars[c[0].char_start as usize..c[0].char_end as usize].iter().collect();
    assert_eq!(s, "120 Hz");
    let s: String = chars[c[1].char_start as usize..c[1].char_end as usize].iter().collect();
    assert_eq!(s, "−3 dB");
    assert_eq!(c[1].value, -3.0);
    assert_eq!(&t[c[0].byte_start as usize..c[0].byte_end as usize], "120 Hz");
}

// SPEC §1 "What counts as a claim about this recording"
#[test]
fn the_framed_worked_example_and_per_sentence_values_are_not_claims() {
    let framed = "I was awake. Here is an example of the required answer for a different recording. The SNR is 12.4 dB. \
                  The HNR is 14.2 dB. Now give the same ten sentences, with your own numbers, for the recording you just heard.";
    assert_eq!(kv(framed), vec![]);
    let granite = "here is example of the required answer the snr is 124 db the recording contains 5 pauses";
    assert_eq!(kv(granite), vec![]);
    let after = "Here is an example of the required answer for a different recording. The SNR is 12.4 dB.\n\nThe SNR is 7 dB.";
    assert_eq!(kv(after), vec![("snr", 7.0)]);
    let per_sentence = "1. No sir certainly not (SNR: 12.4, F0 mean: 138.2, pauses: 5)\n2. I made the bow (SNR: 12.4";
    assert_eq!(kv(per_sentence), vec![]);
    assert_eq!(kv("1. The SNR is 10.5 dB.\n2. The SRMR is 5.2."), vec![("snr", 10.5), ("srmr", 5.2)]);
}

#[test]
fn a_tables_example_column_is_skipped() {
    let t = "| Quantity | Example (from prompt) | This recording |\n|---|---|---|\n| SNR (dB) | 12.4 | 7.5 |\n| Jitter (%) | 1.3 | 2.1 |";
    assert_eq!(kv(t), vec![("snr", 7.5), ("jitter", 2.1)]);
}

#[test]
fn numbers_as_written() {
    assert_eq!(kv("SNR 1.4e1 dB, jitter 3e-3"), vec![("snr", 14.0), ("jitter", 0.3)]);
    assert_eq!(kv("Clip 001: the SNR is 25 dB. The F0 mean is 007 Hz."), vec![("snr", 25.0)]);
    assert_eq!(kv("The pause rate per minute is 120 pauses."), vec![("pause_rate", 120.0)]);
    assert_eq!(kv("There are 2 pauses. Pause rate: 3 pauses."), vec![("pause_count", 2.0)]);
    assert_eq!(kv("There are 3 pauses. The pause rate is 1 pause every 4 minutes."), vec![("pause_count", 3.0)]);
}

#[test]
fn unknown_labels_are_not_read() {
    assert_eq!(kv("The HRV is 10 dB. The HHR is 8 dB."), vec![]);
    assert_eq!(kv(r#"{"PA_count": "2", "SRS_rate": "4.0", "Mf Mean": "140", "fmean": "141", "HRN_ratio": "9"}"#), vec![]);
}

#[test]
fn times_listed_or_tabled_are_not_values() {
    // SPEC §1: a timestamp is no claim, also when the list's unit is stated once at its end
    assert_eq!(kv("Pauses at 1.2, 3.4 and 5.0 s."), vec![]);
    assert_eq!(kv("There are 3 pauses, at 1.2, 3.4 and 5.0 s."), vec![("pause_count", 3.0)]);
    assert_eq!(kv("Pauses at 1.2 and 3.4 s; the SNR is 12 dB."), vec![("snr", 12.0)]);
    // cells under a Start / End / Time header are times
    assert_eq!(kv("| Event | Start (s) | End (s) |\n|---|---|---|\n| Pause | 6.0 | 6.4 |"), vec![]);
    assert_eq!(kv("| Type | Onset | Offset |\n|---|---|---|\n| overlap | 2.1 | 5.4 |"), vec![]);
    // a range column of a table of quantities still holds values
    assert_eq!(kv("| Quantity | Range |\n|---|---|\n| SNR | 10-14 dB |"), vec![("snr", 12.0)]);
}

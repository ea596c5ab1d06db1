//! Property tests: any input returns without panic, with spans inside the text on character
//! boundaries and finite values; huge inputs (10 MB of digits) are handled.
use _parser::{parse, Options};
use proptest::prelude::*;

fn check(text: &str, truncated: bool) {
    let claims = parse(text, &Options { truncated });
    assert!(claims.len() <= 14);
    let nchars = text.chars().count() as u32;
    for c in &claims {
        assert!(c.value.is_finite(), "{c:?}");
        assert!(c.byte_start <= c.byte_end && (c.byte_end as usize) <= text.len(), "{c:?}");
        assert!(text.is_char_boundary(c.byte_start as usize) && text.is_char_boundary(c.byte_end as usize));
        assert!(c.char_start <= c.char_end && c.char_end <= nchars, "{c:?}");
        let by_chars: String = text.chars().skip(c.char_start as usize).take((c.char_end - c.char_start) as usize).collect();
        assert_eq!(by_chars, &text[c.byte_start as usize..c.byte_end as usize]);
        if let Some((s, e)) = c.unit_text {
            assert!(s <= e && (e as usize) <= text.len());
        }
    }
}

/// Texts built from the pieces the parser reacts to, so the search reaches its branches.
fn pieces() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "SNR", "snr", "F0", "F₀", "pitch", "mean", "SD", "jitter", "shimmer", "HNR", "HRV", "pauses", "pause rate", "no",
        "none", "speaking rate", "articulation rate", "overlap", "duration", "clip", "dB", "Hz", "kHz", "%", "percent",
        "syllables/s", "wpm", "per minute", "/s", "s", "ms", "LUFS", "RT60", "sample rate", "typically", "says", "'",
        "\"", ":", "=", ",", ".", ";", "(", ")", "|", "\n", "\n\n", "-", "–", "±", "~", "<", ">", "___", "[value]",
        "N/A", "between", "and", "to", "or", "from", "at", "five", "twenty-five", "one hundred", "point", "a single",
        "0", "1", "12.4", "-3", "3,5", "1,411", ".5", "0.0081", "1:49", "17th", "99999999999999999999999999999999999999999999999",
        "**", "{", "}", "\\n", "\\\"", "|---|", "e.g.", "approximately", "above", "below", "respectively", " ", "σ", "\u{fffd}",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>(), t in any::<bool>()) {
        check(&s, t);
    }

    #[test]
    fn claim_like_strings_never_panic(s in pieces(), t in any::<bool>()) {
        check(&s, t);
    }

    #[test]
    fn arbitrary_bytes_read_lossily_never_panic(b in prop::collection::vec(any::<u8>(), 0..400)) {
        let s = String::from_utf8_lossy(&b);
        check(&s, false);
    }
}

#[test]
fn ten_megabytes_of_digits() {
    let s = "7".repeat(10 * 1024 * 1024);
    assert!(parse(&s, &Options::default()).is_empty());
    let s = format!("The SNR is {} dB", "1".repeat(10 * 1024 * 1024));
    assert!(parse(&s, &Options::default()).is_empty());
}

#[test]
fn long_repetitive_inputs() {
    // many labels, parentheses and quotes: exercises the bounded look-arounds
    let unit = "SNR ( ( pauses ' no '' \"says\" 'x ";
    let s = unit.repeat(50_000);
    check(&s, false);
    let s = "one ".repeat(200_000) + "pauses";
    check(&s, false);
    let s = "| SNR | F0 |\n|---|---|\n".to_string() + &"| 1 | 2 |\n".repeat(20_000);
    check(&s, false);
}

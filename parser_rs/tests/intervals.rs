//! Property tests of the interval reader: any input returns without panic, with spans and labels
//! inside the text on character boundaries, finite times, points with end == start, and the
//! flags as the times say; pathological inputs (deep brackets, long runs) stay fast.
use _parser::intervals::{parse_intervals, parse_intervals_batch, EVENT_TYPES};
use proptest::prelude::*;

fn check(text: &str, clip: Option<f64>) {
    let claims = parse_intervals(text, clip);
    let nchars = text.chars().count() as u32;
    for c in &claims {
        assert!((c.event as usize) < EVENT_TYPES.len());
        assert!(c.start_s.is_finite() && c.end_s.is_finite(), "{c:?}");
        assert!(c.byte_start <= c.byte_end && (c.byte_end as usize) <= text.len(), "{c:?}");
        assert!(text.is_char_boundary(c.byte_start as usize) && text.is_char_boundary(c.byte_end as usize));
        assert!(c.byte_start <= c.label.0 && c.label.1 <= c.byte_end, "{c:?}");
        assert!(c.char_start <= c.char_end && c.char_end <= nchars, "{c:?}");
        let by_chars: String = text.chars().skip(c.char_start as usize).take((c.char_end - c.char_start) as usize).collect();
        assert_eq!(by_chars, &text[c.byte_start as usize..c.byte_end as usize]);
        if c.point {
            assert_eq!(c.start_s, c.end_s);
        }
        assert_eq!(c.reversed, c.end_s < c.start_s);
        let outside = clip.is_some_and(|l| c.start_s < 0.0 || c.end_s < 0.0 || c.start_s > l || c.end_s > l);
        assert_eq!(c.outside_clip, outside);
    }
}

fn pieces() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "overlap", "both speakers", "talk over", "pause", "pauses", "silence", "no", "noise", "door", "slams", "cross-talk",
        "at", "from", "to", "between", "and", "around", "the", "mark", "a", "of", "lasting", "starts", "ends", "again",
        "s", "sec", "seconds", "ms", "-second", "Hz", "dB", "0", "1", "2.1", "5.4", "-0.5", "12", "00:02", "0:02.5",
        "1:02:03", "2,5", ".5", "–", "-", "—", ",", ".", ";", ":", "(", ")", "[", "]", "{", "}", "\"", "'", "|", "|---|",
        "\n", "\n- ", "Pauses:", "{\"type\": \"pause\", \"start\": 1, \"end\": 2}", "\"start\":", "\"end\":", "\"type\":",
        "| Event | Start | End |", "é", "σ", "\u{fffd}", "𝄞",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn any_text_of_the_pieces(text in pieces(), clip in prop::option::of(1.0f64..20.0)) {
        check(&text, clip);
    }

    #[test]
    fn any_text_at_all(text in ".{0,300}") {
        check(&text, Some(10.0));
    }
}

#[test]
fn pathological_inputs_are_read_quickly() {
    let deep = "[".repeat(100_000);
    let unclosed = "{\"start\": 1, ".repeat(20_000);
    let names = "pause , ".repeat(50_000) + "at 3 s";
    let bullets = "Pauses:\n".to_string() + &"- 1.2–1.5 s\n".repeat(20_000);
    let pipes = "| Start | End |\n".to_string() + &"| 1 | 2 |\n".repeat(20_000);
    for text in [deep, unclosed, names, bullets, pipes] {
        let t = std::time::Instant::now();
        check(&text, Some(10.0));
        // generous: a quadratic reading of these would take minutes
        assert!(t.elapsed().as_secs() < 20, "{} bytes took {:?}", text.len(), t.elapsed());
    }
}

#[test]
fn batch_equals_one_by_one_on_all_threads() {
    let base = [
        "Overlap from 2 to 5 s.",
        "{\"type\": \"pause\", \"start\": 3.2, \"end\": 3.9}",
        "| Event | Start | End |\n|---|---|---|\n| door | 1 | 2 |",
        "Ünïcödé: a beep at 0:02.5.",
        "",
    ];
    let texts: Vec<String> = (0..3000).map(|i| base[i % base.len()].to_string()).collect();
    let a = parse_intervals_batch(&texts, None, 1);
    let b = parse_intervals_batch(&texts, None, 0);
    let c = parse_intervals_batch(&texts, None, 3);
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a.len(), 3000 / 5 * 4);
    assert_eq!(a.label[3], "beep");
}

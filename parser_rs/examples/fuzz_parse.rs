//! A fuzz driver that runs on stable Rust (no libFuzzer needed): feeds the parser random inputs
//! built from claim-like pieces, random Unicode and random bytes for a given number of seconds,
//! catching any panic and printing the input that caused it (hex), then exits non-zero.
//!
//!     cargo run --release --no-default-features --example fuzz_parse -- 60
//!
//! The coverage-guided target for cargo-fuzz is `fuzz/fuzz_targets/parse.rs`
//! (`cargo +nightly fuzz run parse` from `parser_rs/`).
use std::panic;
use std::time::{Duration, Instant};

const PIECES: &[&str] = &[
    "SNR", "snr", "F0", "F₀", "pitch", "mean", "SD", "σ", "jitter", "shimmer", "HNR", "HRV", "pauses", "pause rate", "no",
    "none", "speaking rate", "articulation rate", "overlap", "duration", "clip", "dB", "Hz", "kHz", "%", "percent",
    "syllables/s", "wpm", "per minute", "/s", "s", "ms", "LUFS", "RT60", "sample rate", "typically", "says", "'", "\"",
    ":", "=", ",", ".", ";", "(", ")", "|", "\n", "\n\n", "-", "–", "—", "−", "±", "~", "<", ">", "___", "[value]", "N/A",
    "between", "and", "to", "or", "from", "at", "five", "twenty-five", "one hundred", "point", "a single", "0", "1",
    "12.4", "-3", "3,5", "1,411", ".5", "0.0081", "1:49", "00:00:02,760", "17th", "**", "{", "}", "\\n", "\\\"", "|---|",
    "e.g.", "approximately", "above", "below", "respectively", " ", "\u{fffd}", "$F_0$", "TheSNR", "PAMinute",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn input(r: &mut Rng) -> String {
    let mut s = String::new();
    let n = r.below(200);
    for _ in 0..n {
        match r.below(10) {
            0 => s.push(char::from_u32(r.below(0x11_0000) as u32).unwrap_or('\u{fffd}')),
            1 => {
                let b: Vec<u8> = (0..r.below(8)).map(|_| r.next() as u8).collect();
                s.push_str(&String::from_utf8_lossy(&b));
            }
            2 => s.push_str(&"9".repeat(r.below(100) as usize)),
            _ => s.push_str(PIECES[r.below(PIECES.len() as u64) as usize]),
        }
        if r.below(3) == 0 {
            s.push(' ');
        }
    }
    s
}

fn main() {
    let secs: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let seed: u64 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut r = Rng(seed | 1);
    panic::set_hook(Box::new(|_| {}));
    let t0 = Instant::now();
    let mut n = 0u64;
    let mut bytes = 0u64;
    while t0.elapsed() < Duration::from_secs(secs) {
        let s = input(&mut r);
        let truncated = r.below(2) == 0;
        let res = panic::catch_unwind(|| _parser::parse(&s, &_parser::Options { truncated }));
        match res {
            Ok(claims) => {
                for c in &claims {
                    assert!(c.value.is_finite() && (c.byte_end as usize) <= s.len());
                }
            }
            Err(_) => {
                let hex: String = s.bytes().map(|b| format!("{b:02x}")).collect();
                eprintln!("panic on input (hex, truncated={truncated}): {hex}");
                std::process::exit(1);
            }
        }
        n += 1;
        bytes += s.len() as u64;
    }
    println!("fuzz_parse: {n} inputs, {:.1} MB, no panic in {secs} s", bytes as f64 / 1e6);
}

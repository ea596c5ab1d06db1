//! Times the parser over texts separated by 0x1E in a file (profiling helper):
//! `cargo run --release --no-default-features --example bench_file -- texts.rs [repeats]`
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let reps: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let s = std::fs::read_to_string(path).unwrap();
    let texts: Vec<&str> = s.split('\u{1e}').collect();
    let mut scratch = _parser::Scratch::default();
    let mut claims = Vec::new();
    let opts = _parser::Options::default();
    let t0 = std::time::Instant::now();
    let mut n = 0usize;
    for _ in 0..reps {
        for t in &texts {
            _parser::parse_into(t, &opts, &mut scratch, &mut claims);
            n += claims.len();
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    let mb = (s.len() * reps) as f64 / 1e6;
    println!("{} texts x{reps}, {:.1} MB, {n} claims, {:.3} s, {:.1} MB/s", texts.len(), mb, dt, mb / dt);
}

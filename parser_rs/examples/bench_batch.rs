//! Times the batch parser (columns, one thread) over texts separated by 0x1E in a file, repeated:
//! `cargo run --release --no-default-features --example bench_batch -- texts [repeats]`
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let reps: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(100);
    let s = std::fs::read_to_string(path).unwrap();
    let one: Vec<&str> = s.split('\u{1e}').collect();
    let texts: Vec<&str> = (0..reps).flat_map(|_| one.iter().copied()).collect();
    let mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
    for _ in 0..5 {
        let t0 = std::time::Instant::now();
        let parts = _parser::batch::parse_batch_parts(&texts, None, 1);
        let n: usize = parts.iter().map(|p| p.len()).sum();
        let dt = t0.elapsed().as_secs_f64();
        println!("{} texts, {:.1} MB, {n} claims, {:.3} s, {:.1} MB/s", texts.len(), mb, dt, mb / dt);
    }
}

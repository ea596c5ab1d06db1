//! Running batch work on a rayon pool of a chosen size.

/// Run `work` with `threads` rayon threads: 0 = rayon's global pool (all cores); n = a pool of n
/// threads (the global pool when one cannot be built).
pub fn install<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> R {
    if threads == 0 {
        return work();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

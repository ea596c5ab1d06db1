//! Parsing many texts at once into columns (one row per claim, with the index of its text), on
//! all cores with rayon. No per-claim allocation beyond the column vectors; the unit as written is
//! returned as a small dictionary of strings plus an integer code per claim.

use crate::{parse_with, Claim, Options, Scratch};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Texts per rayon task: big enough to amortise scheduling, small enough to balance.
const CHUNK: usize = 256;

#[derive(Default, Debug, Clone, PartialEq)]
pub struct Columns {
    pub text_index: Vec<i64>,
    pub quantity: Vec<u8>,
    pub value: Vec<f64>,
    pub unit: Vec<u8>,
    /// index into `unit_text_categories`, -1 when the claim carried no unit
    pub unit_text: Vec<i32>,
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub byte_start: Vec<i64>,
    pub byte_end: Vec<i64>,
    pub approx: Vec<u8>,
    pub is_range: Vec<u8>,
    pub bound: Vec<i8>,
    pub unit_text_categories: Vec<String>,
    /// claims per input text (so texts that state nothing are counted)
    pub n_claims: Vec<u32>,
}

impl Columns {
    pub fn len(&self) -> usize {
        self.value.len()
    }

    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    fn push(&mut self, idx: usize, text: &str, c: &Claim, cats: &mut FxHashMap<String, i32>) {
        self.text_index.push(idx as i64);
        self.quantity.push(c.quantity as u8);
        self.value.push(c.value);
        self.unit.push(c.unit as u8);
        let code = match c.unit_text {
            Some((s, e)) => {
                let ut = text.get(s as usize..e as usize).unwrap_or("");
                match cats.get(ut) {
                    Some(&k) => k,
                    None => {
                        let k = self.unit_text_categories.len() as i32;
                        self.unit_text_categories.push(ut.to_string());
                        cats.insert(ut.to_string(), k);
                        k
                    }
                }
            }
            None => -1,
        };
        self.unit_text.push(code);
        self.start.push(c.char_start as i64);
        self.end.push(c.char_end as i64);
        self.byte_start.push(c.byte_start as i64);
        self.byte_end.push(c.byte_end as i64);
        self.approx.push(c.approx as u8);
        self.is_range.push(c.is_range as u8);
        self.bound.push(c.bound);
    }

    /// Append `other` (whose text indices are already global), remapping its unit-text codes.
    fn append(&mut self, other: Columns, cats: &mut FxHashMap<String, i32>) {
        let remap: Vec<i32> = other
            .unit_text_categories
            .iter()
            .map(|s| match cats.get(s) {
                Some(&k) => k,
                None => {
                    let k = self.unit_text_categories.len() as i32;
                    self.unit_text_categories.push(s.clone());
                    cats.insert(s.clone(), k);
                    k
                }
            })
            .collect();
        self.text_index.extend(other.text_index);
        self.quantity.extend(other.quantity);
        self.value.extend(other.value);
        self.unit.extend(other.unit);
        self.unit_text.extend(other.unit_text.iter().map(|&c| if c < 0 { c } else { remap[c as usize] }));
        self.start.extend(other.start);
        self.end.extend(other.end);
        self.byte_start.extend(other.byte_start);
        self.byte_end.extend(other.byte_end);
        self.approx.extend(other.approx);
        self.is_range.extend(other.is_range);
        self.bound.extend(other.bound);
        self.n_claims.extend(other.n_claims);
    }
}

fn parse_chunk<S: AsRef<str>>(texts: &[S], offset: usize, truncated: Option<&[bool]>) -> Columns {
    let mut out = Columns::default();
    let mut cats: FxHashMap<String, i32> = FxHashMap::default();
    let mut scratch = Scratch::default();
    for (k, t) in texts.iter().enumerate() {
        let idx = offset + k;
        let opts = Options { truncated: truncated.map_or(false, |m| m.get(idx).copied().unwrap_or(false)) };
        let text = t.as_ref();
        let claims = parse_with(text, &opts, &mut scratch);
        out.n_claims.push(claims.len() as u32);
        for c in &claims {
            out.push(idx, text, c, &mut cats);
        }
    }
    out
}

/// Parse `texts` into columns. `threads`: 1 = this thread only; 0 = rayon's global pool (all
/// cores); n = a pool of n threads. `truncated[i]` marks generations cut at the token cap.
pub fn parse_batch<S: AsRef<str> + Sync>(texts: &[S], truncated: Option<&[bool]>, threads: usize) -> Columns {
    if threads == 1 || texts.len() <= CHUNK {
        return parse_chunk(texts, 0, truncated);
    }
    let work = || -> Vec<Columns> {
        texts
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(ci, chunk)| parse_chunk(chunk, ci * CHUNK, truncated))
            .collect()
    };
    let parts = if threads == 0 {
        work()
    } else {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        }
    };
    let mut out = Columns::default();
    let mut cats: FxHashMap<String, i32> = FxHashMap::default();
    for part in parts {
        out.append(part, &mut cats);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_equals_one_by_one_and_counts_empty_texts() {
        let base = [
            "The SNR is 12.4 dB. The F0 mean is 138.2 Hz.",
            "The recording quality is poor.",
            "Jitter: 1.3 %, shimmer 4.6 %, 5 pauses.",
        ];
        let texts: Vec<String> = (0..2000).map(|i| base[i % 3].to_string()).collect();
        let a = parse_batch(&texts, None, 1);
        let b = parse_batch(&texts, None, 0);
        let c = parse_batch(&texts, None, 3);
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.n_claims.len(), 2000);
        assert_eq!(&a.n_claims[..3], &[2, 0, 3]);
        assert_eq!(a.len(), (2000 / 3 + 1) * 2 + (2000 / 3) * 3);
        assert_eq!(a.unit_text_categories, vec!["dB", "Hz", "%", "pauses"]);
    }
}

//! Parsing many texts at once into columns (one row per claim, with the index of its text), on
//! all cores with rayon. No per-claim allocation beyond the column vectors; the unit as written is
//! returned as a small dictionary of strings plus an integer code per claim.

use crate::{parse_into, Claim, Options, Scratch};
use rayon::prelude::*;
use std::borrow::Cow;
use rustc_hash::FxHashMap;

/// Texts per part (and per rayon task): big enough to amortise scheduling, small enough to balance.
pub const CHUNK: usize = 256;

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

    fn with_capacity(n: usize, texts: usize) -> Columns {
        Columns {
            text_index: Vec::with_capacity(n),
            quantity: Vec::with_capacity(n),
            value: Vec::with_capacity(n),
            unit: Vec::with_capacity(n),
            unit_text: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            byte_start: Vec::with_capacity(n),
            byte_end: Vec::with_capacity(n),
            approx: Vec::with_capacity(n),
            is_range: Vec::with_capacity(n),
            bound: Vec::with_capacity(n),
            unit_text_categories: Vec::new(),
            n_claims: Vec::with_capacity(texts),
        }
    }

    /// The columns of `rows` ((text index, unit-text code, claim) in order), each allocated at its
    /// size and written in one pass over the rows.
    fn from_rows(rows: &[(usize, i32, Claim)], unit_text_categories: Vec<String>, n_claims: Vec<u32>) -> Columns {
        let mut c = Columns::with_capacity(rows.len(), 0);
        for &(idx, code, ref claim) in rows {
            c.text_index.push(idx as i64);
            c.quantity.push(claim.quantity as u8);
            c.value.push(claim.value);
            c.unit.push(claim.unit as u8);
            c.unit_text.push(code);
            c.start.push(claim.char_start as i64);
            c.end.push(claim.char_end as i64);
            c.byte_start.push(claim.byte_start as i64);
            c.byte_end.push(claim.byte_end as i64);
            c.approx.push(claim.approx as u8);
            c.is_range.push(claim.is_range as u8);
            c.bound.push(claim.bound);
        }
        c.unit_text_categories = unit_text_categories;
        c.n_claims = n_claims;
        c
    }
}

/// The code of each unit text of a part: units as written are few and short, so they are keyed by
/// their first eight bytes and their length (longer ones by their text).
#[derive(Default)]
struct UnitTextCodes {
    short: FxHashMap<(u64, usize), i32>,
    long: FxHashMap<String, i32>,
}

impl UnitTextCodes {
    fn code(&mut self, ut: &str, categories: &mut Vec<String>) -> i32 {
        let b = ut.as_bytes();
        let mut add = || {
            categories.push(ut.to_string());
            (categories.len() - 1) as i32
        };
        if b.len() <= 8 {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            *self.short.entry((u64::from_le_bytes(w), b.len())).or_insert_with(add)
        } else {
            if let Some(&k) = self.long.get(ut) {
                return k;
            }
            let k = add();
            self.long.insert(ut.to_string(), k);
            k
        }
    }
}

/// A text of a batch: a string, or bytes meant to be UTF-8 (checked by the worker that parses them,
/// so a batch from Arrow is validated on all cores; invalid sequences become U+FFFD).
pub trait Text: Sync {
    fn text(&self) -> Cow<'_, str>;
}

impl Text for &str {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl Text for String {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl Text for Cow<'_, str> {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

/// Bytes meant to be UTF-8 (an Arrow string value).
pub struct Utf8Bytes<'a>(pub &'a [u8]);

impl Text for Utf8Bytes<'_> {
    fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.0)
    }
}

/// A thread's buffers for parsing chunks, kept from one chunk to the next so that a chunk
/// allocates only its own columns, each at its exact size.
#[derive(Default)]
struct ChunkBuffers {
    scratch: Scratch,
    claims: Vec<Claim>,
    /// (text index, unit-text code, claim) of the chunk's claims
    rows: Vec<(usize, i32, Claim)>,
}

thread_local! {
    static CHUNK_BUFFERS: std::cell::RefCell<ChunkBuffers> = std::cell::RefCell::new(ChunkBuffers::default());
}

fn parse_chunk<S: Text>(texts: &[S], offset: usize, truncated: Option<&[bool]>) -> Columns {
    CHUNK_BUFFERS.with(|b| {
        let b = &mut *b.borrow_mut();
        let mut cats = UnitTextCodes::default();
        let mut categories = Vec::new();
        let mut n_claims = Vec::with_capacity(texts.len());
        b.rows.clear();
        for (k, t) in texts.iter().enumerate() {
            let idx = offset + k;
            let opts = Options { truncated: truncated.map_or(false, |m| m.get(idx).copied().unwrap_or(false)) };
            let text = t.text();
            let text = text.as_ref();
            parse_into(text, &opts, &mut b.scratch, &mut b.claims);
            n_claims.push(b.claims.len() as u32);
            for c in &b.claims {
                let code = match c.unit_text {
                    Some((s, e)) => cats.code(text.get(s as usize..e as usize).unwrap_or(""), &mut categories),
                    None => -1,
                };
                b.rows.push((idx, code, *c));
            }
        }
        Columns::from_rows(&b.rows, categories, n_claims)
    })
}

/// Parse `texts` into columns, one part per run of [`CHUNK`] texts, in text order (text indices
/// are global). `threads`: 1 = this thread only; 0 = rayon's global pool (all cores); n = a pool
/// of n threads. `truncated[i]` marks generations cut at the token cap. The parts are joined by
/// [`Columns::concat`] or, for Python, straight into its buffers (no vector grows to the size of
/// the whole batch while parsing).
pub fn parse_batch_parts<S: Text>(texts: &[S], truncated: Option<&[bool]>, threads: usize) -> Vec<Columns> {
    map_chunks(texts, threads, |(ci, c)| parse_chunk(c, ci * CHUNK, truncated))
}

/// `f` over the runs of [`CHUNK`] texts (each with its run's index), results in text order: on this
/// thread when `threads` is 1 or there is one run, else on `threads` threads (0 = all cores).
pub fn map_chunks<S: Sync, R: Send>(texts: &[S], threads: usize, f: impl Fn((usize, &[S])) -> R + Sync + Send) -> Vec<R> {
    if threads == 1 || texts.len() <= CHUNK {
        return texts.chunks(CHUNK).enumerate().map(f).collect();
    }
    crate::pool::install(threads, || texts.par_chunks(CHUNK).enumerate().map(&f).collect())
}

/// Parse `texts` into one set of columns (see [`parse_batch_parts`]).
pub fn parse_batch<S: Text>(texts: &[S], truncated: Option<&[bool]>, threads: usize) -> Columns {
    Columns::concat(parse_batch_parts(texts, truncated, threads))
}

/// The unit-text categories of all `parts` in order of first appearance, and for each part the
/// map from its own codes to those.
pub fn unify_unit_texts(parts: &[Columns]) -> (Vec<String>, Vec<Vec<i32>>) {
    let mut cats: FxHashMap<&str, i32> = FxHashMap::default();
    let mut all: Vec<String> = Vec::new();
    let remaps = parts
        .iter()
        .map(|p| {
            p.unit_text_categories
                .iter()
                .map(|s| {
                    *cats.entry(s.as_str()).or_insert_with(|| {
                        all.push(s.clone());
                        (all.len() - 1) as i32
                    })
                })
                .collect()
        })
        .collect();
    (all, remaps)
}

impl Columns {
    /// Join parts whose text indices are already global, in order.
    pub fn concat(parts: Vec<Columns>) -> Columns {
        let (cats, remaps) = unify_unit_texts(&parts);
        let n: usize = parts.iter().map(|p| p.len()).sum();
        let texts: usize = parts.iter().map(|p| p.n_claims.len()).sum();
        let mut out = Columns::with_capacity(n, texts);
        out.unit_text_categories = cats;
        for (part, remap) in parts.into_iter().zip(remaps) {
            out.text_index.extend(part.text_index);
            out.quantity.extend(part.quantity);
            out.value.extend(part.value);
            out.unit.extend(part.unit);
            out.unit_text.extend(part.unit_text.iter().map(|&c| if c < 0 { c } else { remap[c as usize] }));
            out.start.extend(part.start);
            out.end.extend(part.end);
            out.byte_start.extend(part.byte_start);
            out.byte_end.extend(part.byte_end);
            out.approx.extend(part.approx);
            out.is_range.extend(part.is_range);
            out.bound.extend(part.bound);
            out.n_claims.extend(part.n_claims);
        }
        out
    }
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

    #[test]
    fn parts_with_their_own_unit_codes_join_to_the_units_as_written() {
        let mut texts: Vec<&str> = vec!["F0 mean 120 Hz"; CHUNK];
        texts.extend(["SNR 12 dB. F0 mean 130 Hz."; 10]);
        texts.extend(["Jitter 1.2 percent"; 300]);
        for threads in [1, 0, 2] {
            let c = parse_batch(&texts, None, threads);
            assert_eq!(c.unit_text_categories, vec!["Hz", "dB", "percent"]);
            let mut k = 0;
            for (i, t) in texts.iter().enumerate() {
                for claim in crate::parse(t, &Options::default()) {
                    let (s, e) = claim.unit_text.unwrap();
                    assert_eq!(c.text_index[k], i as i64);
                    assert_eq!(c.unit_text_categories[c.unit_text[k] as usize], &t[s as usize..e as usize]);
                    k += 1;
                }
            }
            assert_eq!(k, c.len());
        }
    }
}

//! The AcoustiClaim claim parser, compiled into `acousticlaim._parser`.
//!
//! Reads the 13 quantities of the project's SPEC (§1) out of generated prose, following its unit
//! rules; see [`parser`] for how a number is bound to a quantity and `vocab` for the spellings.
//! The pure parsing logic needs no Python: `cargo test --no-default-features` tests it alone; the
//! PyO3 glue lives in `python.rs` behind the default `python` feature.

pub mod batch;
pub mod claim;
pub mod interval_fields;
pub mod intervals;
pub mod lexer;
pub mod offsets;
pub mod parser;
pub mod pool;
pub mod tables;
pub mod vocab;

#[cfg(feature = "python")]
mod python;

pub use claim::{Claim, Quantity, ValueUnit, QUANTITY_KEYS, UNIT_NAMES};

/// How to read a text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// The generation stopped at the token cap: a bare number that ends the text may be cut
    /// ("Shimmer: 8.9" of "8.94 %") and is not read.
    pub truncated: bool,
}

/// Buffers reused across texts (one per thread in batch parsing).
#[derive(Default)]
pub struct Scratch {
    toks: Vec<lexer::Token>,
    found: Vec<parser::Found>,
    queue: parser::PendingLabels,
}

/// Parse one text into its claims, at most one per quantity (shimmer in dB apart), in text order.
pub fn parse(text: &str, opts: &Options) -> Vec<Claim> {
    let mut s = Scratch::default();
    parse_with(text, opts, &mut s)
}

/// [`parse`] with caller-owned buffers.
pub fn parse_with(text: &str, opts: &Options, scratch: &mut Scratch) -> Vec<Claim> {
    let mut claims = Vec::new();
    parse_into(text, opts, scratch, &mut claims);
    claims
}

/// [`parse`] into `claims` (cleared first), with caller-owned buffers.
pub fn parse_into(text: &str, opts: &Options, scratch: &mut Scratch, claims: &mut Vec<Claim>) {
    let v = vocab::vocab();
    let seen = lexer::lex(text, v, &mut scratch.toks);
    scratch.found.clear();
    // a table needs a pipe, and most texts have none
    let t = if seen.pipe { tables::horizontal_tables(text, &scratch.toks, v) } else { Default::default() };
    let skip = t.skip_ranges();
    {
        let mut m = parser::Machine::new(text, &scratch.toks, v, &mut scratch.found, &mut scratch.queue);
        m.run(&skip);
    }
    for seq in &t.seqs {
        let mut m = parser::Machine::new(text, seq, v, &mut scratch.found, &mut scratch.queue);
        m.run(&[]);
    }
    // a bare number that ends a generation cut at its token cap may be cut ("Shimmer: 8." of
    // "8.94 %"): trailing spaces and stops do not protect it (SPEC §1 rule 3)
    let trunc = if opts.truncated {
        Some(text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | ';' | ':')).len() as u32)
    } else {
        None
    };
    parser::last_per_slot(&scratch.found, trunc, claims);
    fill_char_offsets(text, claims);
}

/// Byte offsets → character offsets (Python `str` indices), in one pass over the text.
fn fill_char_offsets(text: &str, claims: &mut [Claim]) {
    if text.is_ascii() {
        // most texts: no allocation
        for c in claims.iter_mut() {
            c.char_start = c.byte_start;
            c.char_end = c.byte_end;
        }
        return;
    }
    let mut o: Vec<u32> = claims.iter().flat_map(|c| [c.byte_start, c.byte_end]).collect();
    offsets::to_char_offsets(text, &mut o);
    for (c, pair) in claims.iter_mut().zip(o.chunks_exact(2)) {
        c.char_start = pair[0];
        c.char_end = pair[1];
    }
}

//! Markdown tables whose header row names the quantities ("| SNR (dB) | F0 (Hz) |" over rows of
//! numbers). Each data cell is read as "<header cell>: <data cell>", so the ordinary machinery binds
//! it. Tables with the names in the first column ("| SNR | 15 dB |") need nothing special: a cell
//! border reads like a colon there.
//!
//! A table with a column (or row) headed as the worked example beside one for this recording
//! ("| Quantity | Example (from prompt) | This recording |") is read from the recording's column
//! only (SPEC §1, "What counts as a claim", rule 2): the example's cells are skipped.

use crate::lexer::{p, Kind, Token};
use crate::parser::phrase_at;
use crate::vocab::{LabelAtom, Vocab};

/// What the table pass found: token ranges of horizontal tables (to skip in the main pass, as a
/// paragraph break), the cell sequences to read instead, and the cells that hold no value of this
/// recording (the worked example's, and times under a "Start"/"End"/"Time" header), skipped quietly.
#[derive(Default)]
pub struct Tables {
    pub skip: Vec<(usize, usize)>,
    pub seqs: Vec<Vec<Token>>,
    pub example_cells: Vec<(usize, usize)>,
}

impl Tables {
    /// The token ranges the main pass skips, sorted and disjoint: (start, end, quietly). A table read
    /// through `seqs` is skipped as a paragraph break; an example cell as if absent.
    pub fn skip_ranges(&self) -> Vec<(usize, usize, bool)> {
        if self.example_cells.is_empty() {
            return self.skip.iter().map(|&(a, b)| (a, b, false)).collect();
        }
        let mut out: Vec<(usize, usize, bool)> = self.skip.iter().map(|&(a, b)| (a, b, false)).collect();
        for &(a, b) in &self.example_cells {
            if !self.skip.iter().any(|&(s, e)| a < e && s < b) {
                out.push((a, b, true));
            }
        }
        out.sort_unstable();
        out
    }
}

/// Does the cell name the worked example ("Example", "Example (from prompt)")?
fn is_example_cell(toks: &[Token], v: &Vocab, c: (usize, usize)) -> bool {
    let ex = v.word_id(b"example");
    let prompt = v.word_id(b"prompt");
    toks[c.0..c.1].iter().any(|t| t.kind == Kind::Word && (t.id == ex || t.id == prompt))
}

/// Does the cell name this recording ("This recording", "Your clip", "Estimate for this audio")?
fn is_recording_cell(toks: &[Token], v: &Vocab, c: (usize, usize)) -> bool {
    let ids = [v.word_id(b"recording"), v.word_id(b"clip"), v.word_id(b"audio"), v.word_id(b"this"), v.word_id(b"heard")];
    !is_example_cell(toks, v, c) && toks[c.0..c.1].iter().any(|t| t.kind == Kind::Word && ids.contains(&t.id))
}

/// Find the tables of `toks` (of `text`): see [`Tables`].
pub fn horizontal_tables(text: &str, toks: &[Token], v: &Vocab) -> Tables {
    let mut out = Tables::default();
    if !toks.iter().any(|t| t.is_punct(p::PIPE)) {
        return out;
    }
    // line boundaries
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut s = 0usize;
    for (k, t) in toks.iter().enumerate() {
        if t.kind == Kind::Newline {
            lines.push((s, k));
            s = k + 1;
        }
    }
    lines.push((s, toks.len()));
    let is_row = |l: &(usize, usize)| l.1 > l.0 && toks[l.0].is_punct(p::PIPE);
    let mut li = 0usize;
    while li < lines.len() {
        if !is_row(&lines[li]) {
            li += 1;
            continue;
        }
        let mut lj = li;
        while lj < lines.len() && is_row(&lines[lj]) {
            lj += 1;
        }
        // rows li..lj; needs header, separator, data
        if lj - li >= 3 && is_separator(toks, lines[li + 1]) {
            let header = cells(toks, lines[li]);
            // columns of times ("| Event | Start (s) | End (s) |"): their cells are no values
            let time_cols: Vec<usize> = (0..header.len()).filter(|&k| is_time_cell(text, toks, header[k])).collect();
            if !time_cols.is_empty() {
                for l in &lines[li + 2..lj] {
                    let row = cells(toks, *l);
                    out.example_cells.extend(time_cols.iter().filter_map(|&k| row.get(k).copied()));
                }
            }
            // the worked example's column beside this recording's
            let ex_col = header.iter().position(|c| is_example_cell(toks, v, *c));
            let rec_col = header.iter().position(|c| is_recording_cell(toks, v, *c));
            if let (Some(e), Some(_)) = (ex_col, rec_col) {
                for l in &lines[li + 2..lj] {
                    if let Some(c) = cells(toks, *l).get(e) {
                        out.example_cells.push(*c);
                    }
                }
            }
            // the worked example's row beside this recording's
            let firsts: Vec<Option<(usize, usize)>> = lines[li + 2..lj].iter().map(|l| cells(toks, *l).first().copied()).collect();
            let ex_rows: Vec<usize> = (0..firsts.len()).filter(|&r| firsts[r].map_or(false, |c| is_example_cell(toks, v, c))).collect();
            let has_rec_row = firsts.iter().any(|c| c.map_or(false, |c| is_recording_cell(toks, v, c)));
            let named = header
                .iter()
                .skip(1)
                .filter(|c| names_quantity(toks, v, **c))
                .count();
            let first_col_named = lines[li + 2..lj]
                .iter()
                .filter(|l| cells(toks, **l).first().map_or(false, |c| names_quantity(toks, v, *c)))
                .count();
            if named >= 2 && first_col_named == 0 {
                for (r, l) in lines[li + 2..lj].iter().enumerate() {
                    if has_rec_row && ex_rows.contains(&r) {
                        continue;
                    }
                    let data = cells(toks, *l);
                    for (h, d) in header.iter().zip(data.iter()) {
                        let mut seq: Vec<Token> = toks[h.0..h.1].to_vec();
                        let at = if h.1 > h.0 { toks[h.1 - 1].end } else { 0 };
                        seq.push(Token { start: at, end: at, num: 0.0, id: p::COLON, node: 0, kind: Kind::Punct, flags: 0 });
                        seq.extend_from_slice(&toks[d.0..d.1]);
                        let e = if d.1 > d.0 { toks[d.1 - 1].end } else { at };
                        seq.push(Token { start: e, end: e, num: 0.0, id: 0, node: 0, kind: Kind::Newline, flags: 0 });
                        out.seqs.push(seq);
                    }
                }
                out.skip.push((lines[li].0, lines[lj - 1].1));
            }
        }
        li = lj;
    }
    out.example_cells.sort_unstable();
    out
}

/// Does the header cell name a place in time (see [`crate::interval_fields::names_time_column`])?
fn is_time_cell(text: &str, toks: &[Token], c: (usize, usize)) -> bool {
    c.1 > c.0 && crate::interval_fields::names_time_column(&text[toks[c.0].start as usize..toks[c.1 - 1].end as usize])
}

fn is_separator(toks: &[Token], l: (usize, usize)) -> bool {
    l.1 > l.0
        && toks[l.0..l.1]
            .iter()
            .all(|t| t.kind == Kind::Punct && matches!(t.id, p::PIPE | p::HYPHEN | p::COLON | p::EMDASH | p::ENDASH))
}

/// Cells of a row: token ranges between pipes.
fn cells(toks: &[Token], l: (usize, usize)) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = l.0;
    for k in l.0..l.1 {
        if toks[k].is_punct(p::PIPE) {
            if k > l.0 {
                out.push((s, k));
            }
            s = k + 1;
        }
    }
    if s < l.1 {
        out.push((s, l.1));
    }
    out
}

fn names_quantity(toks: &[Token], v: &Vocab, c: (usize, usize)) -> bool {
    let mut k = c.0;
    while k < c.1 && toks[k].kind == Kind::Punct {
        k += 1;
    }
    k < c.1
        && phrase_at(toks, v, k)
            .and_then(|(e, _)| e.label)
            .map_or(false, |l| matches!(l, LabelAtom::Q(_) | LabelAtom::F0))
}

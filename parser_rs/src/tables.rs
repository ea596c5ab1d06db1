//! Markdown tables whose header row names the quantities ("| SNR (dB) | F0 (Hz) |" over rows of
//! numbers). Each data cell is read as "<header cell>: <data cell>", so the ordinary machinery binds
//! it. Tables with the names in the first column ("| SNR | 15 dB |") need nothing special: a cell
//! border reads like a colon there.

use crate::lexer::{p, Kind, Token};
use crate::parser::phrase_at;
use crate::vocab::{LabelAtom, Vocab};

/// Token ranges of horizontal tables (to skip in the main pass) and the cell sequences to read.
pub fn horizontal_tables(toks: &[Token], v: &Vocab) -> (Vec<(usize, usize)>, Vec<Vec<Token>>) {
    let mut skip = Vec::new();
    let mut seqs = Vec::new();
    if !toks.iter().any(|t| t.is_punct(p::PIPE)) {
        return (skip, seqs);
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
                for l in &lines[li + 2..lj] {
                    let data = cells(toks, *l);
                    for (h, d) in header.iter().zip(data.iter()) {
                        let mut seq: Vec<Token> = toks[h.0..h.1].to_vec();
                        let at = if h.1 > h.0 { toks[h.1 - 1].end } else { 0 };
                        seq.push(Token { start: at, end: at, num: 0.0, id: p::COLON, node: 0, kind: Kind::Punct, flags: 0 });
                        seq.extend_from_slice(&toks[d.0..d.1]);
                        let e = if d.1 > d.0 { toks[d.1 - 1].end } else { at };
                        seq.push(Token { start: e, end: e, num: 0.0, id: 0, node: 0, kind: Kind::Newline, flags: 0 });
                        seqs.push(seq);
                    }
                }
                skip.push((lines[li].0, lines[lj - 1].1));
            }
        }
        li = lj;
    }
    (skip, seqs)
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

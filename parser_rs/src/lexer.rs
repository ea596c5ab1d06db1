//! Splits a text into words, numbers, times and punctuation in one left-to-right pass.
//!
//! * Words: letters with trailing digits ("F0", "RT60"); camelCase and LaTeX subscripts are split
//!   or joined so that keys read as words ("F0Mean" → `f0` `mean`, "$F_0$" → `f0`, "TheSNR" →
//!   `the` `snr`). Each word carries its vocabulary id (0 = unknown).
//! * Numbers: "12.4", ".5", "1,411" (thousands), "3,5" (decimal comma). The sign is decided by the
//!   parser (a hyphen may be a range dash or a bullet). A number of more than 40 digits is kept as
//!   one token and marked unusable.
//! * Times ("1:49", "00:00:02,760") and ordinals ("17th") are never values.
//! * A literal backslash-n (as some models print) is a line break.
//!
//! The pass is linear in the length of the text; it never allocates per token beyond the output vector.

use crate::vocab::{Vocab, WordKey, MAX_WORD_BYTES};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Word,
    Num,
    Ordinal,
    Time,
    Punct,
    Newline,
}

/// Punctuation codes (`Token::id` for `Kind::Punct`).
pub mod p {
    pub const DOT: u16 = 1;
    pub const COMMA: u16 = 2;
    pub const SEMI: u16 = 3;
    pub const COLON: u16 = 4;
    pub const EQ: u16 = 5;
    pub const LPAREN: u16 = 6;
    pub const RPAREN: u16 = 7;
    pub const LBRACK: u16 = 8;
    pub const RBRACK: u16 = 9;
    pub const LBRACE: u16 = 10;
    pub const RBRACE: u16 = 11;
    pub const PIPE: u16 = 12;
    pub const HYPHEN: u16 = 13;
    pub const ENDASH: u16 = 14;
    pub const EMDASH: u16 = 15;
    pub const MINUS: u16 = 16;
    pub const TILDE: u16 = 17;
    pub const APPROX: u16 = 18;
    pub const PLUSMINUS: u16 = 19;
    pub const PLUS: u16 = 20;
    pub const PERCENT: u16 = 21;
    pub const SLASH: u16 = 22;
    pub const STAR: u16 = 23;
    pub const HASH: u16 = 24;
    pub const QUOTE: u16 = 25;
    pub const LT: u16 = 26;
    pub const GT: u16 = 27;
    pub const LE: u16 = 28;
    pub const GE: u16 = 29;
    /// "___", "[value]", "<number>", "{x}": an unfilled template slot
    pub const SLOT: u16 = 30;
    pub const ELLIPSIS: u16 = 31;
    pub const QUESTION: u16 = 32;
    pub const EXCL: u16 = 33;
    pub const BACKSLASH: u16 = 34;
    pub const DOLLAR: u16 = 35;
    pub const UNDERSCORE: u16 = 36;
    pub const ARROW: u16 = 37;
    pub const TIMES: u16 = 38;
    pub const AMP: u16 = 39;
    pub const BULLET: u16 = 40;
    pub const OTHER: u16 = 41;
}

pub mod flag {
    /// a newline token standing for a blank line (two or more line breaks)
    pub const BLANK: u8 = 1;
    /// a word written in capitals
    pub const ALLCAPS: u8 = 2;
    /// a number without decimals
    pub const INTEGER: u8 = 4;
    /// a number too long to be a value (more than 40 digits)
    pub const UNUSABLE: u8 = 8;
    /// a run of two or more hyphens
    pub const RUN: u8 = 16;
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub start: u32,
    pub end: u32,
    pub num: f64,
    pub id: u16,
    /// for a word: the vocabulary's trie node of the word on its own (0 = none)
    pub node: u32,
    pub kind: Kind,
    pub flags: u8,
}

impl Token {
    #[inline]
    pub fn is_punct(&self, code: u16) -> bool {
        self.kind == Kind::Punct && self.id == code
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

const MAX_NUM_CHARS: usize = 40;

/// What the lexer saw besides the tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// a '|' (a markdown table may follow)
    pub pipe: bool,
}

/// Tokenise `text` into `out` (cleared first). Texts longer than `u32::MAX` bytes are cut there.
pub fn lex(text: &str, v: &Vocab, out: &mut Vec<Token>) -> Seen {
    let mut seen = Seen::default();
    out.clear();
    out.reserve(text.len() / 4 + 8);
    let b = text.as_bytes();
    let n = b.len().min(u32::MAX as usize - 1);
    let mut i = 0usize;
    while i < n {
        let c = b[i];
        // an ASCII letter (most tokens are words): tested first, before the other classes
        if (c | 0x20).wrapping_sub(b'a') < 26 {
            i = match lex_short_word(b, i, n, v, out) {
                Some(j) => j,
                None => lex_word(text, b, i, n, v, out),
            };
            // the space after a word, without a turn of the loop
            if i < n && b[i] == b' ' {
                i += 1;
            }
            continue;
        }
        match c {
            b'\n' | b'\r' => {
                let start = i;
                let mut nl = 0u32;
                while i < n && matches!(b[i], b'\n' | b'\r' | b' ' | b'\t') {
                    if b[i] == b'\n' {
                        nl += 1;
                    }
                    i += 1;
                }
                push(out, Kind::Newline, start, start + 1, 0, if nl >= 2 { flag::BLANK } else { 0 }, 0.0);
            }
            b' ' | b'\t' | 0x0b | 0x0c => i += 1,
            b'0'..=b'9' => i = lex_number(b, i, n, out),
            b'.' if i + 1 < n && b[i + 1].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.')) => {
                i = lex_number_general(b, i, n, out)
            }
            0..=0x7f => {
                seen.pipe |= c == b'|';
                i = lex_ascii_punct(b, i, n, out)
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
                let len = ch.len_utf8();
                let code = match ch {
                    '\u{a0}' | '\u{2000}'..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}' => {
                        i += len;
                        continue;
                    }
                    '\u{2028}' | '\u{2029}' | '\u{85}' => {
                        push(out, Kind::Newline, i, i + len, 0, 0, 0.0);
                        i += len;
                        continue;
                    }
                    '–' => p::ENDASH,
                    '—' | '―' => p::EMDASH,
                    '−' | '‐' | '‑' => p::MINUS,
                    '±' => p::PLUSMINUS,
                    '≈' | '≃' => p::APPROX,
                    '∼' | '～' => p::TILDE,
                    '≤' | '⩽' => p::LE,
                    '≥' | '⩾' => p::GE,
                    '…' => p::ELLIPSIS,
                    '“' | '”' | '‘' | '’' | '«' | '»' | '„' | '‚' => p::QUOTE,
                    '×' => p::TIMES,
                    '•' | '·' | '◦' | '▪' | '‣' | '●' | '○' | '■' | '□' | '►' | '✓' | '✔' => p::BULLET,
                    '→' | '⇒' => p::ARROW,
                    '⁄' | '∕' => p::SLASH,
                    '％' => p::PERCENT,
                    '：' => p::COLON,
                    '（' => p::LPAREN,
                    '）' => p::RPAREN,
                    '，' => p::COMMA,
                    '。' => p::DOT,
                    _ if ch.is_alphabetic() => {
                        i = lex_word(text, b, i, n, v, out);
                        continue;
                    }
                    _ => p::OTHER,
                };
                push(out, Kind::Punct, i, i + len, code, 0, 0.0);
                i += len;
            }
        }
    }
    seen
}

#[inline]
fn push(out: &mut Vec<Token>, kind: Kind, start: usize, end: usize, id: u16, flags: u8, num: f64) {
    out.push(Token { start: start as u32, end: end as u32, num, id, node: 0, kind, flags });
}

/// A word token, with the trie node of the word on its own (0 = it starts no phrase).
#[inline]
fn push_word(out: &mut Vec<Token>, v: &Vocab, start: usize, end: usize, id: u16, flags: u8) {
    let node = v.first_node(id);
    out.push(Token { start: start as u32, end: end as u32, num: 0.0, id, node, kind: Kind::Word, flags });
}

fn lex_ascii_punct(b: &[u8], i: usize, n: usize, out: &mut Vec<Token>) -> usize {
    let c = b[i];
    let nxt = if i + 1 < n { b[i + 1] } else { 0 };
    let (code, len, flags) = match c {
        b'.' => {
            if nxt == b'.' && i + 2 < n && b[i + 2] == b'.' {
                (p::ELLIPSIS, 3, 0)
            } else {
                (p::DOT, 1, 0)
            }
        }
        b',' => (p::COMMA, 1, 0),
        b';' => (p::SEMI, 1, 0),
        b':' => (p::COLON, 1, 0),
        b'=' => (p::EQ, 1, 0),
        b'(' => (p::LPAREN, 1, 0),
        b')' => (p::RPAREN, 1, 0),
        b'[' => match bracket_slot(b, i, n, b']') {
            Some(len) => (p::SLOT, len, 0),
            None => (p::LBRACK, 1, 0),
        },
        b']' => (p::RBRACK, 1, 0),
        b'{' => match bracket_slot(b, i, n, b'}') {
            Some(len) => (p::SLOT, len, 0),
            None => (p::LBRACE, 1, 0),
        },
        b'}' => (p::RBRACE, 1, 0),
        b'|' => (p::PIPE, 1, 0),
        b'-' => {
            if nxt == b'>' {
                (p::ARROW, 2, 0)
            } else {
                let len = run_length(b, i, n);
                (p::HYPHEN, len, if len > 1 { flag::RUN } else { 0 })
            }
        }
        b'~' => (p::TILDE, 1, 0),
        b'+' => {
            if nxt == b'/' && i + 2 < n && b[i + 2] == b'-' {
                (p::PLUSMINUS, 3, 0)
            } else if nxt == b'-' {
                (p::PLUSMINUS, 2, 0)
            } else {
                (p::PLUS, 1, 0)
            }
        }
        b'%' => (p::PERCENT, 1, 0),
        b'/' => (p::SLASH, 1, 0),
        b'*' => (p::STAR, run_length(b, i, n), 0),
        b'#' => (p::HASH, run_length(b, i, n), 0),
        b'"' | b'\'' | b'`' => (p::QUOTE, 1, 0),
        b'<' => {
            if nxt == b'=' {
                (p::LE, 2, 0)
            } else if let Some(len) = bracket_slot(b, i, n, b'>') {
                (p::SLOT, len, 0)
            } else {
                (p::LT, 1, 0)
            }
        }
        b'>' => {
            if nxt == b'=' {
                (p::GE, 2, 0)
            } else {
                (p::GT, 1, 0)
            }
        }
        b'_' => match run_length(b, i, n) {
            1 => (p::UNDERSCORE, 1, 0),
            len => (p::SLOT, len, 0),
        },
        b'?' => (p::QUESTION, run_length(b, i, n), 0),
        b'!' => (p::EXCL, 1, 0),
        b'&' => (p::AMP, 1, 0),
        b'$' => (p::DOLLAR, 1, 0),
        b'\\' => match nxt {
            b'n' | b'r' => {
                push(out, Kind::Newline, i, i + 2, 0, 0, 0.0);
                return i + 2;
            }
            b't' => return i + 2,
            b'"' | b'\'' => (p::QUOTE, 2, 0),
            _ => (p::BACKSLASH, 1, 0),
        },
        _ => (p::OTHER, 1, 0),
    };
    push(out, Kind::Punct, i, i + len, code, flags, 0.0);
    i + len
}

/// How many times the byte at `b[i]` repeats from `i` (at least 1): "---", "**", "###", "___".
fn run_length(b: &[u8], i: usize, n: usize) -> usize {
    b[i..n].iter().take_while(|&&c| c == b[i]).count()
}

/// "[value]", "[insert value]", "<number>", "{x}": letters, spaces and underscores only, short.
fn bracket_slot(b: &[u8], i: usize, n: usize, close: u8) -> Option<usize> {
    let mut j = i + 1;
    let mut letters = 0;
    while j < n && j - i <= 40 {
        let c = b[j];
        if c == close {
            return if letters > 0 { Some(j + 1 - i) } else { None };
        }
        if c.is_ascii_alphabetic() {
            letters += 1;
        } else if !(c == b' ' || c == b'_' || c == b'-') {
            return None;
        }
        j += 1;
    }
    None
}

/// Powers of ten exact in a double.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// A number at `b[i]` (a digit): the common shapes ("12", "61.6") read in one pass; anything that
/// may be a time, an ordinal, a thousands group, a decimal comma or a long number goes to
/// [`lex_number_general`].
#[inline(always)]
fn lex_number(b: &[u8], i: usize, n: usize, out: &mut Vec<Token>) -> usize {
    let mut j = i;
    let mut mant = 0u64;
    while j < n && b[j].is_ascii_digit() {
        mant = mant.wrapping_mul(10).wrapping_add((b[j] - b'0') as u64);
        j += 1;
    }
    let int_digits = j - i;
    if j < n && (b[j] == b':' || b[j] == b',' || b[j].is_ascii_alphabetic()) || int_digits > 15 || (int_digits > 1 && b[i] == b'0') {
        return lex_number_general(b, i, n, out);
    }
    let mut frac_digits = 0usize;
    if j + 1 < n && b[j] == b'.' && b[j + 1].is_ascii_digit() {
        let mut m = j + 1;
        while m < n && b[m].is_ascii_digit() {
            mant = mant.wrapping_mul(10).wrapping_add((b[m] - b'0') as u64);
            m += 1;
        }
        frac_digits = m - (j + 1);
        if int_digits + frac_digits > 15 || (m < n && b[m] | 0x20 == b'e') {
            return lex_number_general(b, i, n, out);
        }
        j = m;
    }
    // at most 15 digits: the mantissa and the power of ten are exact and one division rounds
    // correctly (as in `decimal_value`)
    let flags = if frac_digits > 0 { 0 } else { flag::INTEGER };
    push(out, Kind::Num, i, j, 0, flags, mant as f64 / POW10[frac_digits]);
    j
}

#[inline(never)]
fn lex_number_general(b: &[u8], i: usize, n: usize, out: &mut Vec<Token>) -> usize {
    let s = i;
    let mut j = i;
    while j < n && b[j].is_ascii_digit() {
        j += 1;
    }
    let int_digits = j - s;
    // times: 1:49, 00:00:02,760
    if (1..=2).contains(&int_digits)
        && j + 2 < n
        && b[j] == b':'
        && b[j + 1].is_ascii_digit()
        && b[j + 2].is_ascii_digit()
        && !(j + 3 < n && b[j + 3].is_ascii_digit())
    {
        let mut k = j + 3;
        if k + 2 < n && b[k] == b':' && b[k + 1].is_ascii_digit() && b[k + 2].is_ascii_digit() {
            k += 3;
        }
        if k + 1 < n && (b[k] == b'.' || b[k] == b',') && b[k + 1].is_ascii_digit() {
            k += 1;
            while k < n && b[k].is_ascii_digit() {
                k += 1;
            }
        }
        push(out, Kind::Time, s, k, 0, 0, 0.0);
        return k;
    }
    // ordinals: 17th, 2nd, 1st, 3rd
    if j + 1 < n && int_digits > 0 {
        let a = b[j].to_ascii_lowercase();
        let c2 = b[j + 1].to_ascii_lowercase();
        if matches!((a, c2), (b's', b't') | (b'n', b'd') | (b'r', b'd') | (b't', b'h'))
            && !(j + 2 < n && b[j + 2].is_ascii_alphanumeric())
        {
            push(out, Kind::Ordinal, s, j + 2, 0, 0, 0.0);
            return j + 2;
        }
    }
    let mut buf = [0u8; MAX_NUM_CHARS + 2];
    let mut len = 0usize;
    let mut overflow = false;
    let mut add = |c: u8, len: &mut usize, overflow: &mut bool| {
        if *len < MAX_NUM_CHARS {
            buf[*len] = c;
            *len += 1;
        } else {
            *overflow = true;
        }
    };
    if int_digits == 0 {
        add(b'0', &mut len, &mut overflow);
    }
    for &c in &b[s..j] {
        add(c, &mut len, &mut overflow);
    }
    let mut has_dec = false;
    let mut thousands = false;
    loop {
        if j + 1 < n && b[j] == b'.' && b[j + 1].is_ascii_digit() && !has_dec {
            let mut m = j + 1;
            while m < n && b[m].is_ascii_digit() {
                m += 1;
            }
            add(b'.', &mut len, &mut overflow);
            for &c in &b[j + 1..m] {
                add(c, &mut len, &mut overflow);
            }
            has_dec = true;
            j = m;
            continue;
        }
        if j + 1 < n && b[j] == b',' && b[j + 1].is_ascii_digit() && !has_dec {
            let mut m = j + 1;
            while m < n && b[m].is_ascii_digit() {
                m += 1;
            }
            let nd = m - (j + 1);
            let first_group_ok = thousands || (int_digits >= 1 && int_digits <= 3 && b[s] != b'0');
            if nd == 3 && first_group_ok {
                for &c in &b[j + 1..m] {
                    add(c, &mut len, &mut overflow);
                }
                thousands = true;
                j = m;
                continue;
            }
            if !thousands && nd != 3 || (!thousands && b[s] == b'0' && int_digits == 1) {
                add(b'.', &mut len, &mut overflow);
                for &c in &b[j + 1..m] {
                    add(c, &mut len, &mut overflow);
                }
                has_dec = true;
                j = m;
                continue;
            }
        }
        break;
    }
    let mut flags = if has_dec { 0 } else { flag::INTEGER };
    let mut num = if overflow {
        flags |= flag::UNUSABLE;
        f64::NAN
    } else {
        decimal_value(&buf[..len])
    };
    // scientific notation is read whole: "1.4e1" is 14, "3e-3" is 0.003 (SPEC §1 rule 3)
    if let Some((exp, end)) = exponent(b, j, n) {
        num *= 10f64.powi(exp);
        flags &= !flag::INTEGER;
        j = end;
    }
    // a numeral with leading zeros ("001") is an identifier, not a value (SPEC §1 rule 3)
    if int_digits > 1 && b[s] == b'0' && !thousands {
        flags |= flag::UNUSABLE;
    }
    push(out, Kind::Num, s, j, 0, flags, num);
    j
}

/// The exponent of scientific notation at `j` ("e1", "E-3", "e+02"): its value and where it ends.
/// Not an exponent when a letter or digit run continues ("5e1x", "3 eggs" never reach here).
fn exponent(b: &[u8], j: usize, n: usize) -> Option<(i32, usize)> {
    if j >= n || b[j] | 0x20 != b'e' {
        return None;
    }
    let mut k = j + 1;
    let neg = k < n && b[k] == b'-';
    if k < n && (b[k] == b'-' || b[k] == b'+') {
        k += 1;
    }
    let d0 = k;
    let mut e = 0i32;
    while k < n && b[k].is_ascii_digit() && k - d0 < 3 {
        e = e * 10 + (b[k] - b'0') as i32;
        k += 1;
    }
    if k == d0 || (k < n && (b[k].is_ascii_alphanumeric() || b[k] == b'_')) {
        return None;
    }
    Some((if neg { -e } else { e }, k))
}

/// The value of ASCII digits with at most one '.'. Up to 15 significant digits (all real-world
/// cases) the mantissa and the power of ten are exact doubles and one division rounds correctly;
/// longer numbers go through the standard library's parser.
fn decimal_value(s: &[u8]) -> f64 {
    let mut mant: u64 = 0;
    let mut digits = 0u32;
    let mut frac: Option<u32> = None;
    for &c in s {
        if c == b'.' {
            frac = Some(0);
            continue;
        }
        if digits > 0 || c != b'0' {
            digits += 1;
        }
        mant = mant.wrapping_mul(10).wrapping_add((c - b'0') as u64);
        if let Some(f) = frac.as_mut() {
            *f += 1;
        }
    }
    let f = frac.unwrap_or(0) as usize;
    if digits <= 15 && f < POW10.len() {
        return mant as f64 / POW10[f];
    }
    std::str::from_utf8(s).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(f64::NAN)
}

#[inline]
fn is_sub_digit(ch: char) -> bool {
    ('\u{2080}'..='\u{2089}').contains(&ch)
}

/// Character classes for camelCase splitting: 0 other, 1 lower, 2 upper, 3 digit.
#[inline]
fn class_of(ch: char) -> u8 {
    if ch.is_ascii_lowercase() {
        1
    } else if ch.is_ascii_uppercase() {
        2
    } else if ch.is_ascii_digit() || is_sub_digit(ch) {
        3
    } else if ch.is_alphabetic() {
        if ch.is_uppercase() {
            2
        } else {
            1
        }
    } else {
        0
    }
}

/// Byte classes for the word fast path.
const C_ALNUM: u8 = 1;
const C_UPPER: u8 = 2;
const C_ALPHA: u8 = 4;
const C_LOWER: u8 = 8;
static CLS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_digit() {
            t[c] = C_ALNUM;
        } else if b.is_ascii_uppercase() {
            t[c] = C_ALNUM | C_UPPER | C_ALPHA;
        } else if b.is_ascii_lowercase() {
            t[c] = C_ALNUM | C_ALPHA | C_LOWER;
        }
        c += 1;
    }
    t
};

/// Per byte of a little-endian u64: the high bit set where the byte is an ASCII letter or digit
/// (first), an ASCII capital (second), an ASCII lower-case letter (third). Bytes ≥ 0x80 are none.
#[inline(always)]
fn alnum_lanes(x: u64) -> (u64, u64, u64) {
    const HI: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let ascii = !x & HI;
    let x7 = x & !HI;
    // (v + (0x80 - lo)) has its high bit set iff v >= lo, (v + (0x7f - hi)) iff v > hi; with v < 0x80
    // neither sum carries into the next byte
    let l = x7 | (0x20 * ONES);
    let alpha = (l + (0x80 - b'a' as u64) * ONES) & !(l + (0x7f - b'z' as u64) * ONES) & ascii;
    let digit = (x7 + (0x80 - b'0' as u64) * ONES) & !(x7 + (0x7f - b'9' as u64) * ONES) & ascii;
    let lower_bit = (x7 << 2) & HI; // bit 5 (0x20) of each byte, moved to bit 7
    (alpha | digit, alpha & !lower_bit, alpha & lower_bit)
}

/// Eight bytes of `b` from `j` (zeros past `n`) as a little-endian u64.
#[inline(always)]
fn load8(b: &[u8], j: usize, n: usize) -> u64 {
    if j + 8 <= n {
        u64::from_le_bytes(b[j..j + 8].try_into().unwrap())
    } else {
        let mut t = [0u8; 8];
        let m = n.saturating_sub(j);
        t[..m].copy_from_slice(&b[j..j + m]);
        u64::from_le_bytes(t)
    }
}

/// The most common word: ASCII letters and digits, fewer than 16 bytes, ended by a byte that is
/// not an apostrophe, an underscore, a non-ASCII byte or (after one letter) a full stop. Two loads
/// of eight bytes give its end, its capitals and its lookup key. `None`: use [`lex_word`].
#[inline(always)]
fn lex_short_word(b: &[u8], i: usize, n: usize, v: &Vocab, out: &mut Vec<Token>) -> Option<usize> {
    const HI: u64 = 0x8080_8080_8080_8080;
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let x0 = load8(b, i, n);
    let (alnum0, upper0, lower0) = alnum_lanes(x0);
    let len0 = (!alnum0 & HI).trailing_zeros() as usize / 8;
    let (len, stop, inner_upper, has_lower, key) = if len0 < 8 {
        let keep = (1u64 << (8 * len0)) - 1;
        let stop = (x0 >> (8 * len0)) as u8; // 0 past the end of the text
        let key = WordKey::new((x0 | LOWER) & keep, 0, len0);
        (len0, stop, upper0 & keep & !0xFF != 0, lower0 & keep != 0, key)
    } else {
        let x1 = load8(b, i + 8, n);
        let (alnum1, upper1, lower1) = alnum_lanes(x1);
        let len1 = (!alnum1 & HI).trailing_zeros() as usize / 8;
        if len1 >= 8 {
            return None;
        }
        let keep = (1u64 << (8 * len1)) - 1;
        let stop = (x1 >> (8 * len1)) as u8;
        let key = WordKey::new(x0 | LOWER, (x1 | LOWER) & keep, 8 + len1);
        (8 + len1, stop, (upper0 & !0xFF) | (upper1 & keep) != 0, lower0 | (lower1 & keep) != 0, key)
    };
    if stop == b'\'' || stop >= 0x80 || stop == b'_' || (stop == b'.' && len == 1) {
        return None;
    }
    if inner_upper && has_lower {
        return Some(lex_camel_word(b, i, i + len, v, out));
    }
    let (id, node) = if len <= 8 {
        v.lookup_short(key.w0)
    } else {
        let id = v.lookup(key, &[]);
        (id, v.first_node(id))
    };
    // written in capitals (two letters or more): "SNR", "HRV"
    let caps = !has_lower && inner_upper && upper0 & 0x80 != 0;
    let flags = if caps { flag::ALLCAPS } else { 0 };
    out.push(Token { start: i as u32, end: (i + len) as u32, num: 0.0, id, node, kind: Kind::Word, flags });
    Some(i + len)
}

/// Any other word that starts with a letter: longer words, inner apostrophes ("don't"), and, through
/// [`lex_word_general`], non-ASCII letters, subscripts ("F_0") and "e.g.".
#[inline(never)]
fn lex_word(text: &str, b: &[u8], i: usize, n: usize, v: &Vocab, out: &mut Vec<Token>) -> usize {
    let first = CLS[b[i] as usize];
    let mut acc = 0u8; // the classes of the letters and digits after the first, or-ed
    let mut j = i + 1;
    while j < n {
        let c = b[j];
        let cls = CLS[c as usize];
        if cls & C_ALNUM != 0 {
            acc |= cls;
            j += 1;
            continue;
        }
        if c == b'\'' && j + 1 < n && CLS[b[j + 1] as usize] & C_ALPHA != 0 {
            j += 1;
            continue;
        }
        if c >= 0x80 || c == b'_' || (c == b'.' && j == i + 1) {
            return lex_word_general(text, b, i, n, v, out);
        }
        break;
    }
    let len = j - i;
    let inner_upper = acc & C_UPPER != 0;
    let has_lower = (acc | first) & C_LOWER != 0;
    if inner_upper && has_lower {
        return lex_camel_word(b, i, j, v, out);
    }
    // one word: "signal", "SNR", "F0", "RT60" (letters, digits and apostrophes lower-case by | 0x20)
    let id = if len <= MAX_WORD_BYTES {
        let mut buf = [0u8; MAX_WORD_BYTES];
        for (d, &c) in buf.iter_mut().zip(&b[i..j]) {
            *d = c | 0x20;
        }
        v.word_id(&buf[..len])
    } else {
        0
    };
    // written in capitals (two letters or more): "SNR", "HRV"
    let caps = !has_lower && inner_upper && first & C_UPPER != 0;
    push_word(out, v, i, j, id, if caps { flag::ALLCAPS } else { 0 });
    j
}

/// An ASCII word with a capital after a lower-case letter somewhere: split at camelCase boundaries.
#[inline(never)]
fn lex_camel_word(b: &[u8], i: usize, j: usize, v: &Vocab, out: &mut Vec<Token>) -> usize {
    let len = j - i;
    let mut buf = [0u8; MAX_WORD_BYTES];
    if len > MAX_WORD_BYTES {
        push_word(out, v, i, j, 0, 0);
        return j;
    }
    for (d, &c) in buf.iter_mut().zip(&b[i..j]) {
        *d = if c == b'\'' { c } else { c | 0x20 };
    }
    // camelCase: "TheSNR", "F0Mean", "MfStdDev", "PAMinute"; "dB", "kHz", "PAUSEs" stay whole
    let w = &b[i..j];
    let m = w.len();
    let class = |k: usize| -> u8 {
        let c = CLS[w[k] as usize];
        if c & C_UPPER != 0 {
            2
        } else if c & C_ALPHA != 0 {
            1
        } else if c & C_ALNUM != 0 {
            3
        } else {
            0
        }
    };
    let mut seg = 0usize;
    for k in 1..m {
        let (a, c) = (class(k - 1), class(k));
        if c != 2 || a == 0 {
            continue;
        }
        let split = if a == 3 {
            true
        } else if a == 1 {
            let mut r = k - 1;
            while r > 0 && class(r - 1) == 1 {
                r -= 1;
            }
            k - r >= 2 || (r > 0 && class(r - 1) >= 2)
        } else if k + 1 < m && class(k + 1) == 1 {
            let mut r = k + 1;
            while r < m && class(r) == 1 {
                r += 1;
            }
            let mut u = k - 1;
            while u > 0 && class(u - 1) == 2 {
                u -= 1;
            }
            r - (k + 1) >= 2 && k - u >= 2
        } else {
            false
        };
        if split {
            emit_ascii(&buf[seg..k], &w[seg..k], i + seg, i + k, v, out);
            seg = k;
        }
    }
    emit_ascii(&buf[seg..m], &w[seg..m], i + seg, j, v, out);
    j
}

#[inline]
fn emit_ascii(lower: &[u8], raw: &[u8], s: usize, e: usize, v: &Vocab, out: &mut Vec<Token>) {
    let id = v.word_id(lower);
    let mut upper = 0u32;
    let mut letters = 0u32;
    for &c in raw {
        let cls = CLS[c as usize];
        upper += (cls & C_UPPER != 0) as u32;
        letters += (cls & C_ALPHA != 0) as u32;
    }
    let flags = if letters >= 2 && upper == letters { flag::ALLCAPS } else { 0 };
    push_word(out, v, s, e, id, flags);
}

#[inline(never)]
fn lex_word_general(text: &str, b: &[u8], i: usize, n: usize, v: &Vocab, out: &mut Vec<Token>) -> usize {
    // "e.g." / "i.e." as one word
    if i + 3 < n && b[i + 1] == b'.' && matches!(b[i] | 0x20, b'e' | b'i') && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
        let w = [b[i].to_ascii_lowercase(), b[i + 1], b[i + 2].to_ascii_lowercase(), b[i + 3]];
        if (w == *b"e.g." || w == *b"i.e.") && !(i + 4 < n && b[i + 4].is_ascii_alphanumeric()) {
            let word: &[u8] = if w[0] == b'e' { b"eg" } else { b"ie" };
            push_word(out, v, i, i + 4, v.word_id(word), 0);
            return i + 4;
        }
    }
    // extent of the word
    let mut j = i;
    while j < n {
        let c = b[j];
        if c.is_ascii_alphanumeric() {
            j += 1;
            continue;
        }
        if (c == b'\'') && j > i && j + 1 < n && b[j + 1].is_ascii_alphabetic() {
            j += 1;
            continue;
        }
        if c >= 0x80 {
            let ch = text[j..].chars().next().unwrap_or(' ');
            if ch.is_alphabetic() || is_sub_digit(ch) {
                j += ch.len_utf8();
                continue;
            }
            if ch == '’' && j > i && j + 3 < n && b[j + 3].is_ascii_alphabetic() {
                j += ch.len_utf8();
                continue;
            }
        }
        break;
    }
    // LaTeX-style subscripts joined to the word: F_0, F_{0}, T_{60}
    let mut end = j;
    if j + 1 < n && b[j] == b'_' {
        let mut k = j + 1;
        let braced = b[k] == b'{';
        if braced {
            k += 1;
        }
        let ds = k;
        while k < n && b[k].is_ascii_digit() {
            k += 1;
        }
        if k > ds && (!braced || (k < n && b[k] == b'}')) {
            end = if braced { k + 1 } else { k };
        }
    }
    // split into sub-words at camelCase boundaries
    let word = &text[i..j];
    let wb = word.as_bytes();
    if !word.chars().skip(1).any(|ch| ch.is_ascii_uppercase() || (!ch.is_ascii() && ch.is_uppercase())) {
        // the common case: no capital after the first letter (snake_case keys, lower-case or
        // uncased scripts), so no camelCase boundary and nothing to split
        emit_word(text, i, j, end, v, out);
        return end;
    }
    let ascii = word.is_ascii();
    let chars: Vec<(usize, char)> = if ascii { Vec::new() } else { word.char_indices().collect() };
    let m = if ascii { wb.len() } else { chars.len() };
    let at = |k: usize| -> char {
        if ascii {
            wb[k] as char
        } else {
            chars[k].1
        }
    };
    let off = |k: usize| -> usize {
        if k >= m {
            word.len()
        } else if ascii {
            k
        } else {
            chars[k].0
        }
    };
    let mut seg_start = 0usize;
    let mut k = 1usize;
    while k <= m {
        let split = if k == m {
            true
        } else {
            let a = class_of(at(k - 1));
            let c = class_of(at(k));
            if c != 2 || a == 0 {
                false
            } else if at(k - 1) == '\'' || at(k) == '\'' {
                false
            } else if a == 3 {
                // "F0Mean" → F0 | Mean
                true
            } else if a == 1 {
                // "TheSNR" → The | SNR, "MfMean" → Mf | Mean, but "dB", "kHz" stay whole
                let mut r = k - 1;
                while r > 0 && class_of(at(r - 1)) == 1 {
                    r -= 1;
                }
                k - r >= 2 || (r > 0 && class_of(at(r - 1)) >= 2)
            } else if k + 1 < m && class_of(at(k + 1)) == 1 {
                // "SNRValue" → SNR | Value, "PAMinute" → PA | Minute; "PAUSEs", "HRatio" stay whole
                let mut r = k + 1;
                while r < m && class_of(at(r)) == 1 {
                    r += 1;
                }
                let mut u = k - 1;
                while u > 0 && class_of(at(u - 1)) == 2 {
                    u -= 1;
                }
                r - (k + 1) >= 2 && k - u >= 2
            } else {
                false
            }
        };
        if split {
            let s_off = off(seg_start);
            let e_off = off(k);
            let last = k == m;
            emit_word(text, i + s_off, i + e_off, if last { end } else { i + e_off }, v, out);
            seg_start = k;
        }
        k += 1;
    }
    end
}

/// Lower-case the word (and the subscript digits of "F₀"/"F_0") and look it up.
fn emit_word(text: &str, s: usize, e: usize, span_end: usize, v: &Vocab, out: &mut Vec<Token>) {
    let mut buf = [0u8; MAX_WORD_BYTES + 4];
    let raw = &text[s..span_end.max(e)];
    let rb = raw.as_bytes();
    if rb.len() <= MAX_WORD_BYTES && rb.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'\'') {
        // fast path: a plain ASCII word
        let mut upper = 0u32;
        let mut letters = 0u32;
        for (k, &c) in rb.iter().enumerate() {
            buf[k] = c.to_ascii_lowercase();
            upper += c.is_ascii_uppercase() as u32;
            letters += c.is_ascii_alphabetic() as u32;
        }
        let id = v.word_id(&buf[..rb.len()]);
        let flags = if letters >= 2 && upper == letters { flag::ALLCAPS } else { 0 };
        push_word(out, v, s, span_end.max(e), id, flags);
        return;
    }
    let mut len = 0usize;
    let mut too_long = false;
    let mut upper = 0u32;
    let mut letters = 0u32;
    for ch in raw.chars() {
        if ch == '_' || ch == '{' || ch == '}' {
            continue;
        }
        let mut tmp = [0u8; 4];
        let bytes: &[u8] = if ch.is_ascii() {
            if ch.is_ascii_uppercase() {
                upper += 1;
            }
            if ch.is_ascii_alphabetic() {
                letters += 1;
            }
            tmp[0] = ch.to_ascii_lowercase() as u8;
            &tmp[..1]
        } else if is_sub_digit(ch) {
            tmp[0] = b'0' + (ch as u32 - 0x2080) as u8;
            &tmp[..1]
        } else if ch == '’' {
            tmp[0] = b'\'';
            &tmp[..1]
        } else if ch == 'µ' || ch == 'μ' {
            tmp[0] = b'u';
            &tmp[..1]
        } else {
            letters += 1;
            let lc = ch.to_lowercase().next().unwrap_or(ch);
            lc.encode_utf8(&mut tmp).as_bytes()
        };
        if len + bytes.len() > MAX_WORD_BYTES {
            too_long = true;
            break;
        }
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    }
    let id = if too_long { 0 } else { v.word_id(&buf[..len]) };
    let flags = if letters >= 2 && upper == letters { flag::ALLCAPS } else { 0 };
    push_word(out, v, s, span_end.max(e), id, flags);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::vocab;

    fn toks(s: &str) -> Vec<Token> {
        let mut out = Vec::new();
        lex(s, vocab(), &mut out);
        out
    }

    fn words(s: &str) -> Vec<String> {
        toks(s)
            .iter()
            .map(|t| format!("{:?}:{}", t.kind, &s[t.start as usize..t.end as usize]))
            .collect()
    }

    #[test]
    fn numbers_decimal_comma_thousands_and_times() {
        let t = toks("3,5 % and 1,411 kbps, 0,125 and 12.40 at 00:00:02,760 or 1:49; 17th .5");
        let nums: Vec<f64> = t.iter().filter(|t| t.kind == Kind::Num).map(|t| t.num).collect();
        assert_eq!(nums, vec![3.5, 1411.0, 0.125, 12.4, 0.5]);
        assert_eq!(t.iter().filter(|t| t.kind == Kind::Time).count(), 2);
        assert_eq!(t.iter().filter(|t| t.kind == Kind::Ordinal).count(), 1);
    }

    #[test]
    fn list_of_decimals_is_not_merged() {
        let t = toks("(1.15,1.62);(2.29,2.75)");
        let nums: Vec<f64> = t.iter().filter(|t| t.kind == Kind::Num).map(|t| t.num).collect();
        assert_eq!(nums, vec![1.15, 1.62, 2.29, 2.75]);
    }

    #[test]
    fn camel_case_latex_and_subscripts() {
        assert_eq!(words("F0Mean"), vec!["Word:F0", "Word:Mean"]);
        assert_eq!(words("TheSNR"), vec!["Word:The", "Word:SNR"]);
        assert_eq!(words("PAUSEs"), vec!["Word:PAUSEs"]);
        assert_eq!(words("dB kHz"), vec!["Word:dB", "Word:kHz"]);
        assert_eq!(words("MfStdDev"), vec!["Word:Mf", "Word:Std", "Word:Dev"]);
        assert_eq!(words("PAMinute"), vec!["Word:PA", "Word:Minute"]);
        let t = toks("$F_0$ and F₀");
        let f0 = vocab().word_id(b"f0");
        assert_eq!(t.iter().filter(|t| t.kind == Kind::Word && t.id == f0).count(), 2);
    }

    #[test]
    fn slots_and_literal_newlines() {
        let t = toks("the snr is ___ db [value] Hz \\n2 00:00:01,000");
        assert_eq!(t.iter().filter(|t| t.is_punct(p::SLOT)).count(), 2);
        assert_eq!(t.iter().filter(|t| t.kind == Kind::Newline).count(), 1);
    }

    #[test]
    fn word_fast_paths_agree_with_the_vocabulary_at_every_length() {
        let v = vocab();
        // vocabulary words of 2..=16 bytes and over, any case, at the end of the text or not
        for w in ["db", "snr", "pause", "jitter", "shimmer", "harmonics", "frequency", "reverberation", "fundamental"] {
            let id = v.word_id(w.as_bytes());
            assert_ne!(id, 0, "{w}");
            let upper = w.to_ascii_uppercase();
            let title = format!("{}{}", &upper[..1], &w[1..]);
            for form in [w.to_string(), upper.clone(), title] {
                for text in [form.clone(), format!("{form} is"), format!("{form}."), format!("({form})")] {
                    let t = toks(&text);
                    let word = t.iter().find(|t| t.kind == Kind::Word).unwrap();
                    assert_eq!(word.id, id, "{text:?}");
                    assert_eq!(&text[word.start as usize..word.end as usize], form, "{text:?}");
                    let caps = form.len() >= 2 && form == upper;
                    assert_eq!(word.has(flag::ALLCAPS), caps, "{text:?}");
                    assert_eq!(word.node, v.first_node(id));
                }
            }
        }
        // words of 7, 8, 15, 16 and 17 unknown letters end where the letters end
        for len in [7usize, 8, 15, 16, 17, 40] {
            let w = "q".repeat(len);
            let t = toks(&format!("{w},x"));
            assert_eq!((t[0].kind, t[0].end as usize, t[0].id), (Kind::Word, len, 0));
            assert!(t[1].is_punct(p::COMMA));
        }
        // the bytes that end the fast path: apostrophes, subscripts, non-ASCII letters, "e.g."
        assert_eq!(words("don't stop"), vec!["Word:don't", "Word:stop"]);
        assert_eq!(words("it's' x"), vec!["Word:it's", "Punct:'", "Word:x"]);
        assert_eq!(words("e.g. F_0 Straße"), vec!["Word:e.g.", "Word:F_0", "Word:Straße"]);
        assert_eq!(words("a.b"), vec!["Word:a", "Punct:.", "Word:b"]);
        assert_eq!(toks("e.g.")[0].id, vocab().word_id(b"eg"));
    }

    #[test]
    fn number_fast_path_agrees_with_the_general_reader() {
        let cases: [(&str, f64, bool); 10] = [
            ("61.6 dB", 61.6, false),
            ("12 pauses", 12.0, true),
            ("0.125", 0.125, false),
            ("007", 7.0, true),
            ("123456789012345", 123456789012345.0, true),
            ("1234567890.12345", 1234567890.12345, false),
            ("1234567890123456", 1234567890123456.0, true),
            ("3.14159265358979323", 3.14159265358979323, false),
            ("12.5.", 12.5, false),
            ("4.", 4.0, true),
        ];
        for (text, value, integer) in cases {
            let t = toks(text);
            assert_eq!(t[0].kind, Kind::Num, "{text}");
            assert_eq!(t[0].num, value, "{text}");
            assert_eq!(t[0].has(flag::INTEGER), integer, "{text}");
        }
        // what only the general reader handles still reaches it
        assert_eq!(toks("12th")[0].kind, Kind::Ordinal);
        assert_eq!(toks("1:49")[0].kind, Kind::Time);
        assert_eq!(toks("12,5 %")[0].num, 12.5);
        assert_eq!(toks("1,411 kbps")[0].num, 1411.0);
        assert_eq!(toks("12dB")[0].num, 12.0);
    }

    #[test]
    fn huge_number_is_one_unusable_token() {
        let s = "9".repeat(100_000);
        let t = toks(&s);
        assert_eq!(t.len(), 1);
        assert!(t[0].has(flag::UNUSABLE));
    }
}

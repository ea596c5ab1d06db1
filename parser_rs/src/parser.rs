//! Reads claims out of a token stream, left to right, with one small state machine.
//!
//! The machine keeps the *pending labels*: quantity names read but not yet given a value (a short
//! queue, so that "shimmer and jitter … 1.3 % and 4.6 %" pairs them in order). A number binds to
//!
//! 1. the first pending label when the unit fits the quantity (a bare number needs the label close
//!    by: "SNR: 12", "the snr is 10", never "SNR … over 3 segments");
//! 2. otherwise a label right after it ("20 dB SNR", "40 % overlap", "a 10-second clip");
//! 3. otherwise a unit that names the quantity by itself ("5 pauses", "165 words per minute",
//!    "3.9 syllables per second", "18 pauses per minute");
//! 4. otherwise, inside parentheses right after a claim, the same quantity ("3.5 % (0.3 dB)").
//!
//! Labels of other things (sample rate, RT60, C50, LUFS, MOS, pause duration, an unknown "Key:")
//! take the number instead, so it is not read as ours. Sentence ends, blank lines, unfilled slots
//! ("___", "[value]", "N/A") and refusals ("cannot be determined") drop pending labels. Timestamps,
//! list numbers, identifiers ("speaker 2"), scores ("3/5", "7 out of 10") and numbers in a sentence
//! that speaks of typical values ("typically 85–180 Hz") are not claims. A quantity stated twice
//! keeps the last value (decided by position once the whole text is read).

use crate::claim::{Claim, Quantity, ValueUnit, N_SLOTS, SHIMMER_DB_SLOT};
use crate::lexer::{flag, p, Kind, Token};
use crate::vocab::{role, Entry, LabelAtom, NumWord, UnitKind, Vocab};

/// A claim as found, before the last-value rule and the truncation rule.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub claim: Claim,
    /// the value ends the text with no unit of its own: possibly cut by the token cap
    pub bare_value_token_end: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum PKind {
    Q(Quantity),
    /// F0 / mean / s.d. words, resolved when a value arrives
    F0 { f0: bool, sd: bool },
    Distractor { weak: bool },
}

/// The labels waiting for a value, kept between texts so that no text allocates them.
#[derive(Default)]
pub struct PendingLabels(Vec<Pending>);

#[derive(Clone, Copy, Debug)]
struct Pending {
    kind: PKind,
    end: usize,
    hint: Option<(UnitKind, u32, u32)>,
    colon: bool,
    gap_words: u16,
    tight: bool,
    conj_after: bool,
    det_after_conj: bool,
    unknown_after_conj: bool,
    need_db: bool,
    generic: bool,
}

impl Pending {
    fn new(kind: PKind, end: usize) -> Self {
        Pending {
            kind,
            end,
            hint: None,
            colon: false,
            gap_words: 0,
            tight: true,
            conj_after: false,
            det_after_conj: false,
            unknown_after_conj: false,
            need_db: false,
            generic: false,
        }
    }
    fn is_f0(&self) -> bool {
        matches!(self.kind, PKind::F0 { .. })
    }
    fn is_distractor(&self) -> bool {
        matches!(self.kind, PKind::Distractor { .. })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rel {
    Adjacent,
    Coord,
    Near,
    Far,
}

/// A number (or range, or ±) with its unit.
#[derive(Clone, Copy, Debug)]
struct ValueExpr {
    lo: f64,
    hi: f64,
    unit_lo: Option<(UnitKind, u32, u32)>,
    unit_hi: Option<(UnitKind, u32, u32)>,
    is_range: bool,
    pm: bool,
    numword: bool,
    head: usize,
    end: usize,
    /// token index after the last number token (for the truncation rule)
    last_num_end: usize,
    /// the token before `head` that is not transparent markup (`usize::MAX` if none)
    prev: usize,
}

impl ValueExpr {
    fn unit(&self) -> Option<UnitKind> {
        self.unit_hi.or(self.unit_lo).map(|u| u.0)
    }
    fn unit_span(&self) -> Option<(u32, u32)> {
        match (self.unit_lo, self.unit_hi) {
            (Some(a), Some(b)) if a.1 != b.1 => Some((b.1, b.2)),
            (_, Some(b)) => Some((b.1, b.2)),
            (Some(a), None) => Some((a.1, a.2)),
            _ => None,
        }
    }
}

const MAX_GAP_WORDS: u16 = 14;
const MAX_QUEUE: usize = 4;

pub struct Machine<'a> {
    text: &'a [u8],
    toks: &'a [Token],
    v: &'static Vocab,
    out: &'a mut Vec<Found>,
    queue: &'a mut Vec<Pending>,
    ctx_f0: bool,
    line_start: bool,
    seg_start: usize,
    seg_unknown: bool,
    generic_end: usize,
    speech_cue_end: usize,
    sent_pause: bool,
    sent_rec: bool,
    paren_depth: u32,
    paren_open: usize,
    /// a parenthesis opened right after the last label: (depth, its gap state) to restore at ")"
    label_paren: Option<(u32, u16, bool)>,
    speech_verb_end: usize,
    hedge_end: usize,
    bound_end: (i8, usize),
    between_end: usize,
    from_end: usize,
    timeprep_end: usize,
    last_claim: Option<(usize, usize)>,
    paren_after_claim: Option<(usize, usize)>,
    /// inside the worked example reproduced with its framing (SPEC §1, "What counts as a claim",
    /// rule 2): from "here is an example of the required answer …" to the paragraph's end or
    /// "for the recording you just heard"; its numbers are not this recording's
    example_mode: bool,
    /// inside a parenthesis of values attached to one transcript sentence of a numbered list
    /// ("2. That was the reason … (F0: 138.2, SD: 21.5)"): the paren depth it opened at
    seg_paren: Option<u32>,
    /// the line began with a list number ("2.")
    line_numbered: bool,
    /// a label (ours or another measure's) or a recording noun on this line so far
    line_label: bool,
    /// words on this line so far
    line_words: u32,
}

/// Longest phrase of the vocabulary starting at token `i` of `toks`: its entry and the token index after it.
#[inline(always)]
pub fn phrase_at<'v>(toks: &[Token], v: &'v Vocab, i: usize) -> Option<(&'v Entry, usize)> {
    // fast path: a word that starts no phrase, or no longer one
    let t = toks.get(i)?;
    match t.kind {
        Kind::Word => {
            let node = t.node;
            if node == 0 {
                return None;
            }
            // no longer phrase when the next token is a word that continues none, a number or a
            // line break (punctuation may be skipped inside a phrase or read as a word: walk)
            let alone = !v.has_kids(node)
                || toks.get(i + 1).map_or(true, |nt| match nt.kind {
                    Kind::Word => !v.continues_phrases(nt.id),
                    Kind::Punct => false,
                    _ => true,
                });
            if alone {
                return v.entry(node).map(|e| (e, i + 1));
            }
        }
        // "/s", "% per minute": a slash reads as "per", a percent sign as "percent"
        Kind::Punct if t.id == p::SLASH || t.id == p::PERCENT => {}
        _ => return None,
    }
    longest_phrase_at(toks, v, i)
}

/// [`phrase_at`] walking the trie over the tokens from `i`.
#[inline(never)]
fn longest_phrase_at<'v>(toks: &[Token], v: &'v Vocab, i: usize) -> Option<(&'v Entry, usize)> {
    let mut node = 0u32;
    let mut k = i;
    let mut nwords = 0usize;
    let mut skipped = 0usize;
    let mut best = None;
    // a word: its own node is on the token
    if let Some(t) = toks.get(i) {
        if t.kind == Kind::Word {
            if t.node == 0 {
                return None;
            }
            node = t.node;
            nwords = 1;
            k = i + 1;
            best = v.entry(node).map(|e| (e, k));
        }
    }
    while k < toks.len() && nwords <= v.max_phrase_words && skipped <= 8 {
        let t = &toks[k];
        let id = match t.kind {
            Kind::Word => t.id,
            Kind::Punct if t.id == p::SLASH => v.per_id,
            Kind::Punct if t.id == p::PERCENT => v.percent_id,
            Kind::Punct
                if nwords > 0
                    && ((t.id == p::HYPHEN && !t.has(flag::RUN))
                        || matches!(t.id, p::UNDERSCORE | p::STAR | p::DOLLAR | p::BACKSLASH | p::LBRACE | p::RBRACE)
                        || (t.id == p::DOT
                            && toks[k - 1].end == t.start
                            && k + 1 < toks.len()
                            && toks[k + 1].is_punct(p::SLASH))) =>
            {
                k += 1;
                skipped += 1;
                continue;
            }
            _ => break,
        };
        if id == 0 {
            break;
        }
        match v.child(node, id) {
            Some(c) => node = c,
            None => break,
        }
        nwords += 1;
        k += 1;
        if let Some(e) = v.entry(node) {
            best = Some((e, k));
        }
    }
    best
}

/// The entry of a word the vocabulary does not know.
static NO_ENTRY: Entry = Entry { roles: 0, label: None, unit: None, num: None, plain: false, early: false };

#[inline]
fn is_transparent(t: &Token) -> bool {
    t.kind == Kind::Punct
        && matches!(t.id, p::STAR | p::QUOTE | p::BACKSLASH | p::DOLLAR | p::UNDERSCORE | p::LBRACK | p::RBRACK)
}

impl<'a> Machine<'a> {
    /// A machine over `toks` (of `text`) that appends what it finds to `out`; `queue` is a buffer
    /// kept between texts (cleared here).
    pub fn new(
        text: &'a str,
        toks: &'a [Token],
        v: &'static Vocab,
        out: &'a mut Vec<Found>,
        queue: &'a mut PendingLabels,
    ) -> Self {
        queue.0.clear();
        Machine {
            text: text.as_bytes(),
            toks,
            v,
            out,
            queue: &mut queue.0,
            ctx_f0: false,
            line_start: true,
            seg_start: 0,
            seg_unknown: false,
            generic_end: usize::MAX,
            speech_cue_end: usize::MAX,
            sent_pause: false,
            sent_rec: false,
            paren_depth: 0,
            paren_open: usize::MAX,
            label_paren: None,
            speech_verb_end: usize::MAX,
            hedge_end: usize::MAX,
            bound_end: (0, usize::MAX),
            between_end: usize::MAX,
            from_end: usize::MAX,
            timeprep_end: usize::MAX,
            last_claim: None,
            paren_after_claim: None,
            example_mode: false,
            seg_paren: None,
            line_numbered: false,
            line_label: false,
            line_words: 0,
        }
    }

    /// Run over all tokens, skipping the token ranges in `skip` (sorted, disjoint): as a paragraph
    /// break, or, when the flag is set (a table's example cells), as if they were absent.
    pub fn run(&mut self, skip: &[(usize, usize, bool)]) {
        let n = self.toks.len();
        let mut i = 0usize;
        let mut sk = 0usize;
        while i < n {
            while sk < skip.len() && skip[sk].1 <= i {
                sk += 1;
            }
            if sk < skip.len() && skip[sk].0 <= i {
                if !skip[sk].2 {
                    self.on_newline(true, i);
                }
                i = skip[sk].1;
                continue;
            }
            let t = &self.toks[i];
            i = match t.kind {
                Kind::Newline => {
                    self.on_newline(t.has(flag::BLANK), i);
                    i + 1
                }
                Kind::Time | Kind::Ordinal => {
                    self.line_start = false;
                    self.gap_word(false, true);
                    i + 1
                }
                Kind::Num => self.on_number(i),
                Kind::Punct => self.on_punct(i),
                Kind::Word => self.on_word(i),
            };
        }
    }

    // ---------------------------------------------------------------------------------------------
    // phrase lookup

    #[inline]
    fn word_entry(&self, t: &Token) -> Option<&'static Entry> {
        // a word token carries its own trie node (0 for anything else)
        if t.node == 0 {
            return None;
        }
        self.v.entry(t.node)
    }

    /// Longest phrase of the vocabulary starting at token `i`.
    #[inline]
    fn phrase(&self, i: usize) -> Option<(&'static Entry, usize)> {
        phrase_at(self.toks, self.v, i)
    }

    fn next_sig(&self, mut k: usize) -> usize {
        while k < self.toks.len() && is_transparent(&self.toks[k]) {
            k += 1;
        }
        k
    }

    /// Index of the previous token that is not transparent markup (usize::MAX if none).
    fn prev_sig(&self, i: usize) -> usize {
        let mut k = i;
        while k > 0 {
            k -= 1;
            if !is_transparent(&self.toks[k]) {
                return k;
            }
        }
        usize::MAX
    }

    // ---------------------------------------------------------------------------------------------
    // state updates

    fn sentence_end(&mut self) {
        self.queue.clear();
        self.generic_end = usize::MAX;
        self.sent_pause = false;
        self.sent_rec = false;
        self.paren_after_claim = None;
        self.paren_depth = 0;
    }

    /// A cue of typical values ("typically", "for example") applies to a label or value up to four
    /// tokens after it, in the same clause.
    fn generic_at(&self, i: usize) -> bool {
        self.generic_end != usize::MAX && i >= self.generic_end && i - self.generic_end <= 4
    }

    fn seg_boundary(&mut self, i: usize) {
        self.seg_start = i + 1;
        self.seg_unknown = false;
    }

    fn on_newline(&mut self, blank: bool, i: usize) {
        let keep = !blank
            && self
                .queue
                .last()
                .map_or(false, |l| l.gap_words == 0 && (l.colon || l.end >= i.saturating_sub(1)));
        if !keep {
            self.queue.clear();
        }
        if blank {
            self.ctx_f0 = false;
            self.last_claim = None;
            self.example_mode = false;
        }
        self.seg_paren = None;
        self.line_numbered = false;
        self.line_label = false;
        self.line_words = 0;
        self.generic_end = usize::MAX;
        self.sent_pause = false;
        self.sent_rec = false;
        self.paren_after_claim = None;
        self.paren_depth = 0;
        self.line_start = true;
        self.seg_boundary(i);
    }

    /// A word (or number that is not a value) between a label and its value.
    fn gap_word(&mut self, tight: bool, unknown: bool) {
        for q in self.queue.iter_mut() {
            q.gap_words = q.gap_words.saturating_add(1);
            if !tight {
                q.tight = false;
            }
        }
        if let Some(l) = self.queue.last_mut() {
            if unknown && l.det_after_conj {
                l.unknown_after_conj = true;
            }
        }
        if self.queue.first().map_or(false, |f| f.gap_words > MAX_GAP_WORDS) {
            self.queue.clear();
        }
    }

    fn consume_front(&mut self) {
        if !self.queue.is_empty() {
            self.queue.remove(0);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // punctuation

    fn on_punct(&mut self, i: usize) -> usize {
        let t = &self.toks[i];
        let n = self.toks.len();
        match t.id {
            p::DOT => {
                let next_spaced = i + 1 >= n || self.toks[i + 1].start > t.end || self.toks[i + 1].kind == Kind::Newline;
                let abbrev = i > 0
                    && self.toks[i - 1].kind == Kind::Word
                    && self.toks[i - 1].end == t.start
                    && self.word_entry(&self.toks[i - 1]).map_or(false, |e| e.has(role::ABBREV));
                if next_spaced && !abbrev {
                    self.sentence_end();
                    self.seg_boundary(i);
                }
            }
            p::EXCL => {
                self.sentence_end();
                self.seg_boundary(i);
            }
            p::QUESTION => {
                self.slot();
                self.sentence_end();
                self.seg_boundary(i);
            }
            p::ELLIPSIS | p::SLOT => self.slot(),
            p::SEMI => {
                self.queue.clear();
                self.generic_end = usize::MAX;
                self.seg_boundary(i);
            }
            p::COLON | p::EQ | p::ARROW => {
                self.line_start = false;
                self.on_colon(i);
            }
            p::COMMA | p::AMP => {
                if let Some(l) = self.queue.last_mut() {
                    l.conj_after = true;
                }
                if t.id == p::COMMA {
                    self.generic_end = usize::MAX;
                }
                self.seg_boundary(i);
            }
            p::PIPE => {
                self.seg_boundary(i);
                if let Some(l) = self.queue.last_mut() {
                    l.colon = true;
                }
            }
            p::LPAREN => {
                if let Some((slot, end)) = self.last_claim {
                    if self.prev_sig(i) == end.wrapping_sub(1) || self.prev_sig(i).wrapping_add(1) == end {
                        self.paren_after_claim = Some((slot, i));
                    }
                }
                self.paren_depth += 1;
                self.paren_open = i;
                if self.line_numbered && !self.line_label && self.line_words >= 2 && self.seg_paren.is_none() {
                    self.seg_paren = Some(self.paren_depth);
                }
                // "Number of Pauses (NP): 2": an acronym or remark right after a label is part of it
                if let Some(l) = self.queue.last() {
                    if l.end == i || self.prev_sig(i).wrapping_add(1) == l.end {
                        self.label_paren = Some((self.paren_depth, l.gap_words, l.tight));
                    }
                }
            }
            p::RPAREN => {
                if let Some((d, gap, tight)) = self.label_paren {
                    if d == self.paren_depth {
                        self.label_paren = None;
                        if let Some(l) = self.queue.last_mut() {
                            l.gap_words = gap;
                            l.tight = tight;
                            l.end = i + 1;
                        }
                    }
                }
                if self.seg_paren == Some(self.paren_depth) {
                    self.seg_paren = None;
                }
                self.paren_depth = self.paren_depth.saturating_sub(1);
            }
            p::RBRACE => {
                self.queue.clear();
                self.seg_boundary(i);
            }
            p::LBRACE => self.seg_boundary(i),
            p::HYPHEN | p::EMDASH | p::ENDASH => {
                if !self.line_start {
                    let spaced = i > 0 && self.toks[i - 1].end < t.start && (i + 1 >= n || self.toks[i + 1].start > t.end);
                    if spaced {
                        self.seg_boundary(i);
                        if t.id == p::EMDASH || t.id == p::ENDASH {
                            // "SNR: — " as an empty value
                            if self.next_is_boundary(i + 1) {
                                self.slot();
                            }
                        }
                    }
                }
            }
            p::QUOTE => {
                // an empty string value: "" or ''
                if i + 1 < n && self.toks[i + 1].is_punct(p::QUOTE) && self.toks[i + 1].start == t.end {
                    if self.queue.last().map_or(false, |l| l.colon) {
                        self.slot();
                    }
                    return i + 2;
                }
                // transcript content: "The speaker says: 'There were 5 pauses …'"
                if self.speech_cue_end != usize::MAX && i >= self.speech_cue_end && i - self.speech_cue_end <= 3 {
                    if let Some(close) = self.closing_quote(i) {
                        self.speech_cue_end = usize::MAX;
                        return close + 1;
                    }
                }
            }
            p::TILDE | p::APPROX => self.hedge_end = i + 1,
            p::LT | p::LE => self.bound_end = (-1, i + 1),
            p::GT | p::GE => {
                if !self.line_start {
                    self.bound_end = (1, i + 1);
                }
            }
            p::PERCENT => {
                // "Jitter (%)": a unit where a label stands
                self.unit_hint(UnitKind::Percent, i, i + 1);
            }
            _ => {}
        }
        if !matches!(t.id, p::HYPHEN | p::STAR | p::BULLET | p::HASH | p::GT | p::PLUS) {
            self.line_start = false;
        }
        i + 1
    }

    /// The quote token closing the one at `i` (same character; curly quotes pair up), within 2000
    /// bytes and the same paragraph.
    fn closing_quote(&self, i: usize) -> Option<usize> {
        let open = &self.text[self.toks[i].start as usize..self.toks[i].end as usize];
        let want: &[&[u8]] = match open {
            b"'" => &[b"'"],
            b"\"" => &[b"\""],
            b"\\\"" => &[b"\\\""],
            b"\xe2\x80\x9c" => &[b"\xe2\x80\x9d"],
            b"\xe2\x80\x98" => &[b"\xe2\x80\x99"],
            b"`" => &[b"`"],
            _ => &[b"\"", b"'"],
        };
        let limit = self.toks[i].start as usize + 2000;
        for k in i + 1..self.toks.len() {
            let t = &self.toks[k];
            if t.start as usize > limit || (t.kind == Kind::Newline && t.has(flag::BLANK)) {
                return None;
            }
            if t.kind == Kind::Punct && t.id == p::QUOTE {
                let s = &self.text[t.start as usize..t.end as usize];
                if want.iter().any(|w| *w == s) {
                    return Some(k);
                }
            }
        }
        None
    }

    fn next_is_boundary(&self, k: usize) -> bool {
        let k = self.next_sig(k);
        k >= self.toks.len()
            || matches!(self.toks[k].kind, Kind::Newline)
            || (self.toks[k].kind == Kind::Punct && matches!(self.toks[k].id, p::PIPE | p::COMMA | p::SEMI | p::DOT))
    }

    fn slot(&mut self) {
        if self.queue.first().map_or(false, |f| f.gap_words <= 4) {
            self.consume_front();
        }
    }

    fn on_colon(&mut self, i: usize) {
        let in_seg = self.queue.last().map_or(false, |l| l.end > self.seg_start || l.end + 1 >= self.seg_start);
        if in_seg {
            if let Some(l) = self.queue.last_mut() {
                l.colon = true;
            }
        } else if self.seg_unknown {
            // "Distortion: -3.83 dB", "\"rate\": \"95\"": a key we do not know takes the value
            self.queue.clear();
            let mut d = Pending::new(PKind::Distractor { weak: true }, i + 1);
            d.colon = true;
            self.queue.push(d);
        } else if let Some(l) = self.queue.last_mut() {
            l.colon = true;
        }
        self.seg_boundary(i);
    }

    // ---------------------------------------------------------------------------------------------
    // words

    fn on_word(&mut self, i: usize) -> usize {
        let was_line_start = self.line_start;
        self.line_start = false;
        self.line_words += 1;
        let ph = self.phrase(i);
        let (e, end) = match ph {
            Some(x) => x,
            None => {
                // an unknown word, however close to a name ("HRV", "SRRM"): SPEC §1 rule 1
                self.seg_unknown = true;
                self.gap_word(false, true);
                return i + 1;
            }
        };
        let _ = was_line_start;
        if e.plain {
            // the common case ("the", "is", "of", "recording"): a gap word and nothing else
            let filler = e.has(role::FILLER);
            if !filler {
                self.seg_unknown = true;
            }
            for _ in i..end {
                self.gap_word(filler, !filler);
            }
            return end;
        }
        if e.early {
            // pause and recording nouns, number words, negators, labels, units, slots
            if e.has(role::PAUSE_NOUN) {
                self.sent_pause = true;
            }
            if e.has(role::REC_NOUN) {
                self.sent_rec = true;
                self.line_label = true;
            }
            if let Some(nw) = e.num {
                if self.numword_starts(nw, i) {
                    return self.on_number(i);
                }
            }
            if e.has(role::NEGATOR) {
                if let Some(j) = self.no_pauses(i, end) {
                    return j;
                }
            }
            if e.has(role::NO_PAUSES) {
                self.zero_pauses(i, end);
                return end;
            }
            if e.has(role::NONE_WORD) {
                if self.front_is(Quantity::PauseCount) {
                    self.zero_pauses(i, end);
                } else {
                    self.slot();
                }
                return end;
            }
            if let Some(atom) = e.label {
                self.on_label(atom, i, end);
                return end;
            }
            if let Some(u) = e.unit {
                self.unit_in_label_position(u, i, end);
                return end;
            }
            if e.has(role::SLOT) {
                self.slot();
                return end;
            }
        }
        // the cue words: one test for the many words that are none of them
        const CUES: u64 = role::GENERIC
            | role::SPEECH_CUE
            | role::SPEECH_VERB
            | role::HEDGE
            | role::BOUND_LO
            | role::BOUND_HI
            | role::BETWEEN
            | role::FROM
            | role::TIME_PREP
            | role::EXAMPLE_FRAME
            | role::THIS_REC;
        if e.roles & CUES != 0 {
            if e.has(role::EXAMPLE_FRAME) {
                self.example_mode = true;
                self.queue.clear();
            }
            if e.has(role::THIS_REC) {
                self.example_mode = false;
            }
            if e.has(role::GENERIC) {
                self.generic_end = end;
            }
            if e.has(role::SPEECH_CUE) {
                self.speech_cue_end = end;
            }
            if e.has(role::SPEECH_VERB) {
                self.speech_verb_end = end;
            }
            if e.has(role::HEDGE) {
                self.hedge_end = end;
            }
            if e.has(role::BOUND_LO) {
                self.bound_end = (1, end);
            }
            if e.has(role::BOUND_HI) {
                self.bound_end = (-1, end);
            }
            if e.has(role::BETWEEN) {
                self.between_end = end;
            }
            if e.has(role::FROM) {
                self.from_end = end;
            }
            if e.has(role::TIME_PREP) {
                self.timeprep_end = end;
            }
        }
        if e.has(role::COPULA) {
            if let Some(l) = self.queue.last() {
                if l.det_after_conj && l.unknown_after_conj {
                    // "the SNR is good, and the clarity index is 15 dB": a new subject
                    self.queue.clear();
                }
            }
        }
        if let Some(l) = self.queue.last_mut() {
            if e.has(role::RELATIVE) && !l.det_after_conj {
                // "The jitter, which reflects …, is 1.1 %": a relative clause, same subject
                l.conj_after = false;
            } else if e.has(role::DET) && l.conj_after {
                l.det_after_conj = true;
            }
        }
        if e.has(role::CONJ) || e.has(role::AND) {
            if let Some(l) = self.queue.last_mut() {
                l.conj_after = true;
            }
            if e.has(role::AND) || self.word_text(i) == b"but" {
                self.generic_end = usize::MAX;
            }
        }
        let filler = e.has(role::FILLER) || e.has(role::HEDGE) || e.has(role::BOUND_HI) || e.has(role::BOUND_LO);
        if !filler {
            self.seg_unknown = true;
        }
        for _ in i..end {
            self.gap_word(filler, !filler);
        }
        end
    }

    fn front_is(&self, q: Quantity) -> bool {
        self.queue.first().map_or(false, |f| f.kind == PKind::Q(q) && f.gap_words <= 4)
    }

    fn numword_starts(&self, nw: NumWord, i: usize) -> bool {
        match nw {
            NumWord::Small(_) | NumWord::Tens(_) | NumWord::Dozen => true,
            NumWord::A => {
                // "a hundred", "a dozen", "a single pause"
                let k = i + 1;
                k < self.toks.len()
                    && self.toks[k].kind == Kind::Word
                    && self
                        .word_entry(&self.toks[k])
                        .and_then(|e| e.num)
                        .map_or(false, |n| matches!(n, NumWord::Hundred | NumWord::Thousand | NumWord::Dozen | NumWord::Single))
            }
            NumWord::Single => true,
            _ => false,
        }
    }

    /// "no pauses", "without any noticeable pauses", "there aren't any pauses" → pause_count 0.
    fn no_pauses(&mut self, i: usize, mut k: usize) -> Option<usize> {
        let mut steps = 0;
        while k < self.toks.len() && steps < 8 {
            let t = &self.toks[k];
            if is_transparent(&t) {
                k += 1;
                steps += 1;
                continue;
            }
            if t.kind != Kind::Word {
                return None;
            }
            let (e, end) = self.phrase(k)?;
            if e.label == Some(LabelAtom::Q(Quantity::PauseCount)) || e.unit == Some(UnitKind::Pauses) {
                // "no pauses longer than 0.5 s" is not a zero count
                let after = self.next_sig(end);
                if after < self.toks.len() && self.toks[after].kind == Kind::Word {
                    if let Some((e2, _)) = self.phrase(after) {
                        if e2.has(role::NEG_BLOCK) || e2.has(role::BOUND_LO) || e2.has(role::BOUND_HI) {
                            return None;
                        }
                    }
                }
                self.zero_pauses(i, end);
                return Some(end);
            }
            if e.has(role::NO_PAUSES) {
                self.zero_pauses(i, end);
                return Some(end);
            }
            if e.has(role::NEG_BLOCK) {
                return None;
            }
            if e.has(role::NEG_ADJ) || e.has(role::FILLER) {
                k = end;
                steps += 1;
                continue;
            }
            return None;
        }
        None
    }

    fn zero_pauses(&mut self, i: usize, end: usize) {
        if self.front_is(Quantity::PauseCount) {
            self.consume_front();
        }
        if self.generic_at(i) {
            return;
        }
        let s = self.toks[i].start;
        let e = self.toks[end - 1].end;
        self.emit(
            Claim {
                quantity: Quantity::PauseCount,
                value: 0.0,
                unit: ValueUnit::Count,
                unit_text: None,
                byte_start: s,
                byte_end: e,
                char_start: 0,
                char_end: 0,
                approx: false,
                is_range: false,
                bound: 0,
            },
            u32::MAX,
            end,
        );
    }

    fn unit_in_label_position(&mut self, u: UnitKind, i: usize, end: usize) {
        if self.unit_hint(u, i, end) {
            return;
        }
        // a unit where a label stands names the quantity: "Syllables per second: 4.2"
        let q = match u {
            UnitKind::SyllPerSec | UnitKind::SyllPerMin | UnitKind::Wpm | UnitKind::WordsPerSec => Some(Quantity::SpeakingRate),
            UnitKind::PausesPerMin | UnitKind::PausesPerSec => Some(Quantity::PauseRate),
            _ => None,
        };
        if let Some(q) = q {
            self.label(PKind::Q(q), i, end, false);
            if let Some(l) = self.queue.last_mut() {
                l.hint = Some((u, self.toks[i].start, self.toks[end - 1].end));
            }
        } else {
            self.gap_word(true, false);
        }
    }

    /// A unit right after a label ("Jitter (%)", "the SNR in dB", "Pause rate per minute").
    fn unit_hint(&mut self, u: UnitKind, i: usize, end: usize) -> bool {
        let Some(l) = self.queue.last() else { return false };
        if l.gap_words > 0 && !l.colon {
            // allow fillers only ("in dB")
        }
        let rel = self.relation(l.end, i);
        if rel == Rel::Adjacent && !l.colon {
            let s = self.toks[i].start;
            let e = self.toks[end - 1].end;
            let l = self.queue.last_mut().unwrap();
            l.hint = Some((u, s, e));
            l.end = end;
            return true;
        }
        false
    }

    // ---------------------------------------------------------------------------------------------
    // labels

    /// How the tokens between a label ending at `a` and a token at `b` join them.
    fn relation(&self, a: usize, b: usize) -> Rel {
        if b < a {
            return Rel::Far;
        }
        let mut words = 0;
        let mut coord = false;
        let mut nonfiller = false;
        if b - a > 16 {
            return Rel::Far;
        }
        for k in a..b {
            let t = &self.toks[k];
            match t.kind {
                Kind::Punct => match t.id {
                    p::LPAREN | p::RPAREN | p::STAR | p::QUOTE | p::DOLLAR | p::BACKSLASH | p::UNDERSCORE | p::HYPHEN
                    | p::LBRACK | p::RBRACK => {}
                    p::COMMA | p::AMP | p::SLASH => coord = true,
                    p::PERCENT => {}
                    // "Std. dev. of F0": the stop of an abbreviation
                    p::DOT
                        if k > 0
                            && self.toks[k - 1].end == t.start
                            && self.word_entry(&self.toks[k - 1]).map_or(false, |e| e.has(role::ABBREV)) => {}
                    _ => return Rel::Far,
                },
                Kind::Word => {
                    words += 1;
                    if words > 4 {
                        return Rel::Far;
                    }
                    match self.word_entry(&t) {
                        Some(e) if e.has(role::AND) || e.has(role::OR) => coord = true,
                        Some(e) if e.has(role::COPULA) && !matches!(self.word_text(k), b"of") => return Rel::Far,
                        Some(e) if e.has(role::FILLER) || e.unit.is_some() || e.label.is_some() => {}
                        _ => nonfiller = true,
                    }
                }
                _ => return Rel::Far,
            }
        }
        if coord {
            if !nonfiller && words <= 3 {
                Rel::Coord
            } else {
                Rel::Far
            }
        } else if !nonfiller && words <= 3 {
            Rel::Adjacent
        } else if words <= 3 {
            Rel::Near
        } else {
            Rel::Far
        }
    }

    fn word_text(&self, k: usize) -> &[u8] {
        let t = &self.toks[k];
        &self.text[t.start as usize..t.end as usize]
    }

    fn on_label(&mut self, atom: LabelAtom, i: usize, end: usize) {
        let kind = match atom {
            LabelAtom::Q(Quantity::F0Mean) => PKind::F0 { f0: true, sd: false },
            LabelAtom::Q(Quantity::F0Sd) => PKind::F0 { f0: true, sd: true },
            LabelAtom::Q(q) => PKind::Q(q),
            LabelAtom::F0 => PKind::F0 { f0: true, sd: false },
            LabelAtom::Mean => PKind::F0 { f0: self.ctx_f0, sd: false },
            LabelAtom::Sd => PKind::F0 { f0: self.ctx_f0, sd: true },
            LabelAtom::Variant => {
                if let Some(l) = self.queue.last().copied() {
                    if matches!(l.kind, PKind::Q(Quantity::Jitter) | PKind::Q(Quantity::Shimmer))
                        && self.relation(l.end, i) != Rel::Far
                    {
                        let l = self.queue.last_mut().unwrap();
                        l.kind = PKind::Distractor { weak: false };
                        l.end = end;
                    }
                }
                return;
            }
            LabelAtom::Distractor => PKind::Distractor { weak: false },
            LabelAtom::Duration => {
                if self.sent_pause {
                    PKind::Distractor { weak: false }
                } else {
                    PKind::Q(Quantity::Duration)
                }
            }
        };
        let is_mean_word = atom == LabelAtom::Mean;
        self.label(kind, i, end, false);
        let _ = is_mean_word;
    }

    fn label(&mut self, kind: PKind, i: usize, end: usize, need_db: bool) {
        self.line_label = true;
        let mut new = Pending::new(kind, end);
        new.need_db = need_db;
        new.generic = self.generic_at(i);
        if let Some(last) = self.queue.last().copied() {
            let rel = self.relation(last.end, i);
            // "Articulation rate (excluding pauses): 5.6": a name inside a remark in parentheses
            // does not replace the label the parentheses follow
            if self.paren_depth > 0 && last.end <= self.paren_open && rel != Rel::Adjacent && !last.is_distractor() {
                return;
            }
            if last.is_f0() && new.is_f0() && rel != Rel::Far && rel != Rel::Coord {
                if let (PKind::F0 { f0: a, sd: b }, PKind::F0 { f0: c, sd: d }) = (last.kind, new.kind) {
                    let l = self.queue.last_mut().unwrap();
                    l.kind = PKind::F0 { f0: a || c, sd: b || d };
                    l.end = end;
                    if a || c {
                        self.ctx_f0 = true;
                    }
                    return;
                }
            }
            if rel == Rel::Adjacent {
                let l = self.queue.last_mut().unwrap();
                match (last.kind, new.kind) {
                    (a, b) if a == b => {
                        l.end = end;
                        return;
                    }
                    // "SNR (mean)": a modifier of another quantity
                    (PKind::Q(_), PKind::F0 { f0: false, .. }) => {
                        l.end = end;
                        return;
                    }
                    // "spectral roll-off measure (SRMR)": the name that follows wins
                    (PKind::Distractor { .. }, _) => {
                        *l = new;
                        self.update_ctx(&new);
                        return;
                    }
                    // "pause lasts", "SNR improvement": the other thing is the head
                    (_, PKind::Distractor { .. }) => {
                        *l = new;
                        return;
                    }
                    _ => {
                        *l = new;
                        self.update_ctx(&new);
                        return;
                    }
                }
            }
            if rel == Rel::Coord && !last.colon && !new.is_distractor() && !last.is_distractor() && self.queue.len() < MAX_QUEUE {
                self.queue.push(new);
                self.update_ctx(&new);
                return;
            }
        }
        if let PKind::F0 { f0: false, sd: false } = new.kind {
            // a bare "mean"/"average" with no pitch in sight names nothing; it takes the number
            self.queue.clear();
            self.queue.push(Pending::new(PKind::Distractor { weak: true }, end));
            return;
        }
        self.queue.clear();
        self.queue.push(new);
        self.update_ctx(&new);
    }

    fn update_ctx(&mut self, p: &Pending) {
        match p.kind {
            PKind::F0 { f0: true, .. } => self.ctx_f0 = true,
            PKind::Q(_) => self.ctx_f0 = false,
            _ => {}
        }
    }

    // ---------------------------------------------------------------------------------------------
    // numbers

    fn on_number(&mut self, i: usize) -> usize {
        let was_line_start = self.line_start;
        self.line_start = false;
        let x = match self.read_value(i, was_line_start) {
            Ok(x) => x,
            Err(end) => {
                if was_line_start {
                    self.line_numbered = true;
                }
                self.gap_word(false, true);
                return end.max(i + 1);
            }
        };
        self.bind(&x)
    }

    /// Read the value expression starting at token `i` (a number or a number word); `Err(end)` when
    /// the number is not a value (list number, identifier, score, timestamp, unusable).
    fn read_value(&self, i: usize, line_start: bool) -> Result<ValueExpr, usize> {
        let toks = self.toks;
        let n = toks.len();
        let t = &toks[i];
        // sign
        let mut head = i;
        let mut neg = false;
        if t.kind == Kind::Num && i > 0 {
            let pt = &toks[i - 1];
            if pt.kind == Kind::Punct && matches!(pt.id, p::HYPHEN | p::MINUS | p::PLUS) && !pt.has(flag::RUN) && pt.end == t.start {
                let joined = i >= 2 && toks[i - 2].end == pt.start && matches!(toks[i - 2].kind, Kind::Num | Kind::Word);
                if !joined {
                    neg = pt.id != p::PLUS;
                    head = i - 1;
                }
            }
        }
        // list numbers: "1. The SNR …", "2) …", SRT indices "1 00:00:00,000 --> …"
        if t.kind == Kind::Num && line_start && t.has(flag::INTEGER) && !neg {
            if i + 1 < n {
                let nt = &toks[i + 1];
                if nt.kind == Kind::Punct
                    && matches!(nt.id, p::DOT | p::RPAREN)
                    && nt.start == t.end
                    && (i + 2 >= n || toks[i + 2].start > nt.end || toks[i + 2].kind == Kind::Newline)
                {
                    return Err(i + 2);
                }
                if nt.kind == Kind::Time {
                    return Err(i + 1);
                }
            }
        }
        // identifiers: "speaker 2", "sentence #3"
        let ps = self.prev_sig(head);
        if ps != usize::MAX {
            let mut q = ps;
            if toks[q].is_punct(p::HASH) && q > 0 {
                q -= 1;
            }
            if toks[q].kind == Kind::Word && self.word_entry(&toks[q]).map_or(false, |e| e.has(role::IDENT)) {
                let direct = toks[q].end < toks[head].start && toks[q].end + 3 >= toks[head].start;
                if direct && self.phrase(q).map_or(true, |(e, end)| end <= head && e.label.is_none()) {
                    return Err(self.skip_number(i));
                }
            }
        }
        let (mut v1, e1, numword) = self.read_scalar(i).ok_or(i + 1)?;
        if neg {
            v1 = -v1;
        }
        let (u1, end) = self.read_unit(e1);
        let mut x = ValueExpr {
            lo: v1,
            hi: v1,
            unit_lo: u1,
            unit_hi: None,
            is_range: false,
            pm: false,
            numword,
            head,
            end,
            last_num_end: e1,
            prev: ps,
        };
        let k = self.next_sig(end);
        if k < n {
            let tk = &toks[k];
            // scores: "3/5", "7 out of 10", "2 on a scale"
            if u1.is_none() && tk.is_punct(p::SLASH) {
                let j = self.next_sig(k + 1);
                if j < n && toks[j].kind == Kind::Num {
                    return Err(self.skip_number(j));
                }
            }
            if tk.kind == Kind::Word {
                if let Some((e, _)) = self.phrase(k) {
                    if e.has(role::SCORE) {
                        return Err(end);
                    }
                }
            }
            // ± and ranges
            let (pm, range_conn) = self.connector(k, head);
            if pm || range_conn {
                let mut j = self.next_sig(if pm || toks[k].kind == Kind::Punct { k + 1 } else { self.phrase(k).map_or(k + 1, |p| p.1) });
                // "10 to ~15", "3 to 6 dB"
                while j < n && (toks[j].is_punct(p::TILDE) || toks[j].is_punct(p::APPROX) || is_transparent(&toks[j])) {
                    j += 1;
                }
                if j < n && toks[j].kind == Kind::Word && self.word_entry(&toks[j]).map_or(false, |e| e.has(role::HEDGE)) {
                    j += 1;
                }
                let mut neg2 = false;
                if j + 1 < n
                    && toks[j].kind == Kind::Punct
                    && matches!(toks[j].id, p::HYPHEN | p::MINUS)
                    && toks[j].end == toks[j + 1].start
                    && toks[j + 1].kind == Kind::Num
                {
                    neg2 = true;
                    j += 1;
                }
                if j < n && (toks[j].kind == Kind::Num || (toks[j].kind == Kind::Word && self.numword_at(j))) {
                    if let Some((mut v2, e2, nw2)) = self.read_scalar(j) {
                        if neg2 {
                            v2 = -v2;
                        }
                        let (u2, end2) = self.read_unit(e2);
                        if pm {
                            x.pm = true;
                            if x.unit_lo.is_none() {
                                x.unit_lo = u2;
                            }
                        } else {
                            x.hi = v2;
                            x.unit_hi = u2;
                            x.is_range = true;
                            x.numword = x.numword && nw2;
                        }
                        x.last_num_end = e2;
                        x.end = end2;
                    }
                }
            }
        }
        // timestamps: "at 2.5 s", "from 1.2 to 3.4 seconds"
        if let Some(u) = x.unit() {
            if u.is_time() {
                let ph = ps.wrapping_add(1);
                if ph == self.timeprep_end || (ph == self.from_end && x.is_range) {
                    return Err(x.end);
                }
            }
        } else if ps.wrapping_add(1) == self.timeprep_end {
            // "pauses at 1.2, 3.4 and 5.0 s": a list of times whose unit is stated once, at its end
            if let Some(end) = self.time_list_end(x.end) {
                return Err(end);
            }
        }
        Ok(x)
    }

    /// After the first bare number of a list ("at 1.2, 3.4 and 5.0 s"): when the list's items are
    /// bare numbers separated by commas, "and" or "or" and the last one carries a time unit, the
    /// token after the list.
    fn time_list_end(&self, mut k: usize) -> Option<usize> {
        let n = self.toks.len();
        for _ in 0..32 {
            let mut separated = false;
            while k < n {
                let t = &self.toks[k];
                let joins = t.is_punct(p::COMMA)
                    || (t.kind == Kind::Word && self.word_entry(t).map_or(false, |e| e.has(role::AND) || e.has(role::OR)));
                if !joins {
                    break;
                }
                separated = true;
                k += 1;
            }
            if !separated || k >= n || self.toks[k].kind != Kind::Num {
                return None;
            }
            let (_, e, _) = self.read_scalar(k)?;
            match self.read_unit(e) {
                (Some((u, _, _)), end) => return u.is_time().then_some(end),
                (None, _) => k = e,
            }
        }
        None
    }

    fn skip_number(&self, i: usize) -> usize {
        let (_, e) = self.read_unit(i + 1);
        e.max(i + 1)
    }

    fn numword_at(&self, j: usize) -> bool {
        self.word_entry(&self.toks[j])
            .and_then(|e| e.num)
            .map_or(false, |nw| matches!(nw, NumWord::Small(_) | NumWord::Tens(_)))
    }

    /// After a number at `k`: is it followed by "±" (first) or a range connector (second)?
    fn connector(&self, k: usize, head: usize) -> (bool, bool) {
        let t = &self.toks[k];
        match t.kind {
            Kind::Punct => match t.id {
                p::PLUSMINUS => (true, false),
                p::HYPHEN => (false, !t.has(flag::RUN)),
                p::ENDASH | p::EMDASH | p::MINUS => (false, true),
                _ => (false, false),
            },
            Kind::Word => match self.phrase(k) {
                Some((e, _)) if e.has(role::PLUS_MINUS) => (true, false),
                Some((e, _)) if e.has(role::RANGE_TO) => (false, true),
                Some((e, _)) if e.has(role::OR) => (false, true),
                Some((e, _)) if e.has(role::AND) => {
                    let ph = self.prev_sig(head).wrapping_add(1);
                    (false, ph == self.between_end)
                }
                _ => (false, false),
            },
            _ => (false, false),
        }
    }

    /// A number token or a run of number words: (value, end, is_number_word).
    #[inline]
    fn read_scalar(&self, i: usize) -> Option<(f64, usize, bool)> {
        let t = &self.toks[i];
        if t.kind == Kind::Num {
            if t.has(flag::UNUSABLE) || !t.num.is_finite() {
                return None;
            }
            return Some((t.num, i + 1, false));
        }
        self.read_number_words(i)
    }

    /// A run of number words from token `i` ("twenty-five", "a hundred and ten", "three point five").
    #[inline(never)]
    fn read_number_words(&self, i: usize) -> Option<(f64, usize, bool)> {
        // number words
        let mut total = 0f64;
        let mut current = 0f64;
        let mut any = false;
        let mut k = i;
        let mut frac: Option<(f64, f64)> = None;
        let n = self.toks.len();
        while k < n {
            let tk = self.toks[k];
            if tk.kind == Kind::Punct && tk.id == p::HYPHEN && !tk.has(flag::RUN) && any {
                // "twenty-five"
                if k + 1 < n && self.toks[k + 1].kind == Kind::Word && self.numword_at(k + 1) {
                    k += 1;
                    continue;
                }
                break;
            }
            if tk.kind != Kind::Word {
                break;
            }
            let Some(e) = self.word_entry(&tk) else { break };
            if let Some((ref mut f, ref mut scale)) = frac {
                match e.num {
                    Some(NumWord::Small(d)) if d < 10 => {
                        *scale /= 10.0;
                        *f += d as f64 * *scale;
                        k += 1;
                        continue;
                    }
                    _ => break,
                }
            }
            match e.num {
                Some(NumWord::Small(d)) => {
                    current += d as f64;
                    any = true;
                }
                Some(NumWord::Tens(d)) => {
                    current += d as f64;
                    any = true;
                }
                Some(NumWord::Hundred) if any || k > i => current = current.max(1.0) * 100.0,
                Some(NumWord::Thousand) if any || k > i => {
                    total += current.max(1.0) * 1000.0;
                    current = 0.0;
                }
                Some(NumWord::Dozen) => {
                    current = current.max(1.0) * 12.0;
                    any = true;
                }
                Some(NumWord::A) if k == i => {}
                Some(NumWord::Single) => {
                    current = 1.0;
                    any = true;
                }
                Some(NumWord::Point) if any => frac = Some((0.0, 1.0)),
                None if e.has(role::AND) && any && current >= 100.0 => {}
                _ => break,
            }
            k += 1;
        }
        if !any {
            return None;
        }
        let v = total + current + frac.map_or(0.0, |f| f.0);
        Some((v, k, true))
    }

    /// The unit after a number at `j`: (kind, byte span) and the token index after it.
    fn read_unit(&self, j: usize) -> (Option<(UnitKind, u32, u32)>, usize) {
        let toks = self.toks;
        let n = toks.len();
        let mut k = j;
        while k < n && toks[k].kind == Kind::Punct && matches!(toks[k].id, p::STAR | p::BACKSLASH) {
            k += 1;
        }
        if k < n && toks[k].is_punct(p::HYPHEN) && !toks[k].has(flag::RUN) && k > 0 && toks[k - 1].end == toks[k].start {
            // "10-second"
            if k + 1 < n && toks[k + 1].kind == Kind::Word {
                k += 1;
            }
        }
        // a unit column in a table row: "| 15 | dB |"
        if k + 1 < n && toks[k].is_punct(p::PIPE) && toks[k + 1].kind == Kind::Word {
            if let Some((e, end)) = self.phrase(k + 1) {
                if let Some(u) = e.unit {
                    if end < n && !toks[end].is_punct(p::PIPE) {
                        // fallthrough only when the cell holds just the unit
                    } else {
                        return (Some((u, toks[k + 1].start, toks[end - 1].end)), end);
                    }
                }
            }
        }
        // "15.02 (dB)"
        if k + 2 < n && toks[k].is_punct(p::LPAREN) {
            if let Some((e, end)) = self.phrase(k + 1) {
                if let Some(u) = e.unit {
                    if end < n && toks[end].is_punct(p::RPAREN) && u != UnitKind::Other && !matches!(u, UnitKind::Seconds | UnitKind::Minutes) {
                        return (Some((u, toks[k + 1].start, toks[end - 1].end)), end + 1);
                    }
                }
            }
        }
        if k >= n {
            return (None, j);
        }
        if let Some((e, end)) = self.phrase(k) {
            if let Some(mut u) = e.unit {
                let s = toks[k].start;
                let mut end = end;
                // "100% per minute", "100% percent", "100% dB": the last unit speaks
                if u == UnitKind::Percent && end < n {
                    if let Some((e2, end2)) = self.phrase(end) {
                        if let Some(u2) = e2.unit {
                            if u2 != UnitKind::Other {
                                u = u2;
                                end = end2;
                            }
                        }
                    }
                }
                return (Some((u, s, toks[end - 1].end)), end);
            }
        }
        (None, j)
    }

    // ---------------------------------------------------------------------------------------------
    // binding

    fn bind(&mut self, x: &ValueExpr) -> usize {
        let unit = x.unit();
        if matches!(unit, Some(UnitKind::Pauses) | Some(UnitKind::PausesPerMin) | Some(UnitKind::PausesPerSec)) {
            self.sent_pause = true;
        }
        let ps = x.prev.wrapping_add(1);
        let approx = ps == self.hedge_end || x.pm;
        let bound = if ps == self.bound_end.1 { self.bound_end.0 } else { 0 };
        let mut consumed_to = x.end;

        // 1. the first pending label (or, when it does not take this unit, the next one)
        let mut target: Option<(Quantity, Option<(UnitKind, u32, u32)>)> = None;
        let mut generic = false;
        let mut by_label = false;
        if let Some(front) = self.queue.first().copied() {
            match front.kind {
                PKind::Distractor { .. } => {
                    if let Some((q, pend)) = self.postfix(x) {
                        target = Some((q, None));
                        consumed_to = pend;
                    } else if let Some(q) = unit.and_then(|u| self.implied(u)) {
                        target = Some((q, None));
                    }
                    self.consume_front();
                }
                _ => {
                    for k in 0..self.queue.len() {
                        let l = self.queue[k];
                        if l.is_distractor() {
                            break;
                        }
                        if let Some(q) = self.accepts(&l, x) {
                            target = Some((q, l.hint));
                            generic = l.generic;
                            by_label = true;
                            self.queue.remove(k);
                            break;
                        }
                    }
                }
            }
        }
        // a pause rate stated as a count ("Pause rate: 3 pauses") is neither a rate nor the count
        if target.is_none()
            && unit == Some(UnitKind::Pauses)
            && self.queue.first().map_or(false, |f| f.kind == PKind::Q(Quantity::PauseRate))
        {
            self.consume_front();
            return consumed_to;
        }
        // 2. a label right after: "20 dB SNR", "40% overlap", "a 10-second clip"
        if target.is_none() {
            if let Some((q, pend)) = self.postfix(x) {
                target = Some((q, None));
                consumed_to = pend;
            }
        }
        // 3. a unit that names its quantity
        if target.is_none() {
            if let Some(q) = unit.and_then(|u| self.implied(u)) {
                target = Some((q, None));
            }
        }
        if !by_label && target.is_some() {
            generic = self.generic_at(x.head);
            let after_verb = self.speech_verb_end != usize::MAX && x.head >= self.speech_verb_end && x.head - self.speech_verb_end <= 2;
            if after_verb && target.map_or(false, |t| t.0 == Quantity::PauseCount) {
                // "the talker said five pauses were enough": transcript content
                return consumed_to;
            }
        }
        // 4. restated in parentheses right after a claim
        if target.is_none() {
            if let Some((slot, lp)) = self.paren_after_claim {
                if x.prev == lp && unit.is_some() {
                    let q = slot_quantity(slot);
                    if convert(q, x, None).is_some() {
                        target = Some((q, None));
                    }
                }
            }
        }
        // "1 pause every 4 minutes": a rate written as a count over a time, neither a count nor a rate
        if unit == Some(UnitKind::Pauses) {
            let k = self.next_sig(x.end);
            if k < self.toks.len() && self.toks[k].kind == Kind::Word && matches!(self.word_text(k), b"every" | b"each") {
                let k2 = self.next_sig(k + 1);
                if k2 < self.toks.len() && (self.toks[k2].kind == Kind::Num || self.word_entry(&self.toks[k2]).and_then(|e| e.unit).map_or(false, |u| u.is_time()) || self.word_entry(&self.toks[k2]).and_then(|e| e.num).is_some()) {
                    self.queue.clear();
                    return consumed_to;
                }
            }
        }
        let Some((q, hint)) = target else {
            self.gap_word(false, true);
            return x.end;
        };
        let Some((value, vunit)) = convert(q, x, hint.map(|h| h.0)) else {
            return x.end;
        };
        if generic {
            return consumed_to;
        }
        let unit_text = x.unit_span().or(hint.map(|h| (h.1, h.2)));
        let claim = Claim {
            quantity: q,
            value,
            unit: vunit,
            unit_text,
            byte_start: self.toks[x.head].start,
            byte_end: self.toks[x.end - 1].end,
            char_start: 0,
            char_end: 0,
            approx,
            is_range: x.is_range,
            bound,
        };
        let bare_end = if x.unit().is_none() { self.toks[x.last_num_end - 1].end } else { u32::MAX };
        self.emit(claim, bare_end, x.end);
        if q == Quantity::F0Mean || q == Quantity::F0Sd {
            self.ctx_f0 = true;
        }
        consumed_to
    }

    /// The quantity a unit names; "per minute" names the pause rate in a sentence about pauses
    /// ("pauses: 2 (rate 11.5/min)").
    fn implied(&self, u: UnitKind) -> Option<Quantity> {
        implied_by_unit(u).or(match u {
            UnitKind::PerMin | UnitKind::PerSec if self.sent_pause => Some(Quantity::PauseRate),
            _ => None,
        })
    }

    fn emit(&mut self, claim: Claim, bare_end: u32, end_tok: usize) {
        if self.example_mode || self.seg_paren.is_some() {
            // not about this recording (SPEC §1, "What counts as a claim", rule 2)
            return;
        }
        let slot = claim.slot();
        self.out.push(Found { claim, bare_value_token_end: bare_end });
        self.last_claim = Some((slot, end_tok));
        self.paren_after_claim = None;
    }

    /// Does the pending label take this value? Returns the quantity it states.
    fn accepts(&self, l: &Pending, x: &ValueExpr) -> Option<Quantity> {
        let unit = x.unit();
        let q = match l.kind {
            PKind::Q(q) => q,
            PKind::F0 { f0: true, sd } => {
                if sd {
                    Quantity::F0Sd
                } else {
                    Quantity::F0Mean
                }
            }
            // "with a standard deviation of 21.5 hertz": an s.d. in Hz is the F0 s.d.
            PKind::F0 { f0: false, sd: true } => {
                if matches!(unit, Some(UnitKind::Hz) | Some(UnitKind::KHz)) {
                    Quantity::F0Sd
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        if l.need_db && unit.or(l.hint.map(|h| h.0)) != Some(UnitKind::Db) {
            return None;
        }
        if unit.is_none() {
            if !l.tight || l.gap_words > 6 {
                return None;
            }
            if x.numword && q != Quantity::PauseCount {
                return None;
            }
            // a bare number followed by a counted noun ("3 segments", "2 speakers") is not a value
            let k = self.next_sig(x.end);
            if k < self.toks.len() && self.toks[k].kind == Kind::Word {
                if let Some(e) = self.word_entry(&self.toks[k]) {
                    if e.has(role::COUNTED) {
                        return None;
                    }
                }
            }
        }
        convert(q, x, l.hint.map(|h| h.0)).map(|_| q)
    }

    /// A quantity label right after the value ("20 dB SNR", "a 10-second clip", "10 s long").
    fn postfix(&self, x: &ValueExpr) -> Option<(Quantity, usize)> {
        let unit = x.unit()?;
        let toks = self.toks;
        let n = toks.len();
        if unit.is_time() {
            // "this short clip (roughly 10 seconds)"
            let mut b = x.prev;
            if b != usize::MAX && toks[b].kind == Kind::Word && self.word_entry(&toks[b]).map_or(false, |e| e.has(role::HEDGE)) {
                b = self.prev_sig(b);
            }
            if b != usize::MAX && b > 0 && toks[b].is_punct(p::LPAREN) {
                let w = self.prev_sig(b);
                if w != usize::MAX && toks[w].kind == Kind::Word && self.word_entry(&toks[w]).map_or(false, |e| e.has(role::DUR_NOUN)) && !x.is_range {
                    return Some((Quantity::Duration, x.end));
                }
            }
        }
        let mut k = self.next_sig(x.end);
        if k < n && toks[k].is_punct(p::HYPHEN) {
            k += 1;
        }
        if k >= n || toks[k].kind != Kind::Word {
            return None;
        }
        if unit.is_time() {
            // "a 10-second (audio) clip", "the clip is 10 seconds long"
            let mut j = k;
            for _ in 0..3 {
                if j >= n || toks[j].kind != Kind::Word {
                    break;
                }
                let (e, end) = self.phrase(j).unwrap_or((&NO_ENTRY, j + 1));
                if e.has(role::DUR_NOUN) {
                    return Some((Quantity::Duration, x.end));
                }
                if e.has(role::LONG) && self.sent_rec && !self.sent_pause {
                    return Some((Quantity::Duration, x.end));
                }
                if e.has(role::PAUSE_NOUN) || e.label.is_some() || e.has(role::FILLER) || e.has(role::TIME_PREP) {
                    break;
                }
                j = end;
            }
            return None;
        }
        let (mut e, mut end) = self.phrase(k)?;
        if e.has(role::COPULA) && self.word_text(k) == b"of" {
            let k2 = self.next_sig(end);
            let (e2, end2) = self.phrase(k2)?;
            e = e2;
            end = end2;
        }
        let q = match e.label? {
            LabelAtom::Q(q) => q,
            LabelAtom::F0 => Quantity::F0Mean,
            _ => return None,
        };
        // not when the label has its own value right after ("15 dB HNR 20 dB")
        let mut j = self.next_sig(end);
        let mut steps = 0;
        while j < n && steps < 3 {
            let t = &toks[j];
            if t.kind == Kind::Num {
                return None;
            }
            if t.kind == Kind::Punct && matches!(t.id, p::COLON | p::EQ) {
                j += 1;
                steps += 1;
                continue;
            }
            if t.kind == Kind::Word && self.word_entry(&t).map_or(false, |e| e.has(role::COPULA) || e.has(role::HEDGE)) {
                j += 1;
                steps += 1;
                continue;
            }
            break;
        }
        convert(q, x, None)?;
        Some((q, end))
    }
}

/// The quantity a unit names by itself.
fn implied_by_unit(u: UnitKind) -> Option<Quantity> {
    match u {
        UnitKind::Pauses => Some(Quantity::PauseCount),
        UnitKind::PausesPerMin | UnitKind::PausesPerSec => Some(Quantity::PauseRate),
        UnitKind::SyllPerSec | UnitKind::SyllPerMin | UnitKind::Wpm | UnitKind::WordsPerSec => Some(Quantity::SpeakingRate),
        _ => None,
    }
}

fn slot_quantity(slot: usize) -> Quantity {
    if slot == SHIMMER_DB_SLOT {
        Quantity::Shimmer
    } else {
        Quantity::ALL[slot]
    }
}

/// Convert one endpoint to the canonical unit of `q`.
fn convert_one(q: Quantity, v: f64, unit: Option<UnitKind>, hint: Option<UnitKind>) -> Option<(f64, ValueUnit)> {
    use UnitKind as U;
    let u = unit.or(hint);
    let canon = q.canonical_unit();
    let r = match q {
        Quantity::Snr | Quantity::Hnr => match u {
            None | Some(U::Db) => v,
            _ => return None,
        },
        Quantity::Srmr => match u {
            None | Some(U::Db) => v,
            _ => return None,
        },
        Quantity::SpeakingRate | Quantity::ArticulationRate => match u {
            None | Some(U::SyllPerSec) | Some(U::PerSec) | Some(U::Hz) => v,
            Some(U::SyllPerMin) => v / 60.0,
            Some(U::Wpm) => v * 1.5 / 60.0,
            Some(U::WordsPerSec) => v * 1.5,
            _ => return None,
        },
        Quantity::PauseCount => match u {
            None | Some(U::Pauses) => v,
            _ => return None,
        },
        Quantity::PauseRate => match u {
            // "The pause rate per minute is 120 pauses": the label's unit makes the count a rate
            Some(U::Pauses) if matches!(hint, Some(U::PerMin) | Some(U::PausesPerMin)) => v,
            // otherwise a count is not a rate ("1 pause every 4 minutes" states none by its number)
            None | Some(U::PausesPerMin) | Some(U::PerMin) => v,
            Some(U::PausesPerSec) | Some(U::PerSec) | Some(U::Hz) => v * 60.0,
            _ => return None,
        },
        Quantity::F0Mean | Quantity::F0Sd => match u {
            None | Some(U::Hz) => v,
            Some(U::KHz) => v * 1000.0,
            _ => return None,
        },
        Quantity::Jitter | Quantity::Shimmer => match u {
            Some(U::Percent) => v,
            // a bare fraction below 0.1 with no % sign is a fraction
            None => {
                if v.abs() < 0.1 {
                    v * 100.0
                } else {
                    v
                }
            }
            Some(U::Db) if q == Quantity::Shimmer => return Some((v, ValueUnit::Db)),
            _ => return None,
        },
        Quantity::OverlapRatio => match u {
            Some(U::Percent) => v / 100.0,
            None => {
                if v > 1.0 && v <= 100.0 {
                    v / 100.0
                } else {
                    v
                }
            }
            _ => return None,
        },
        Quantity::Duration => match u {
            Some(U::Seconds) => v,
            Some(U::Ms) => v / 1000.0,
            Some(U::Minutes) => v * 60.0,
            _ => return None,
        },
    };
    Some((r, canon))
}

/// The stated value of `x` as a claim of `q`: a range states its midpoint, "±" its centre.
fn convert(q: Quantity, x: &ValueExpr, hint: Option<UnitKind>) -> Option<(f64, ValueUnit)> {
    let u_lo = x.unit_lo.map(|u| u.0);
    let u_hi = x.unit_hi.map(|u| u.0);
    if x.is_range {
        let (a, ua) = convert_one(q, x.lo, u_lo.or(u_hi), hint)?;
        let (b, ub) = convert_one(q, x.hi, u_hi.or(u_lo), hint)?;
        if ua != ub {
            return None;
        }
        let v = (a + b) / 2.0;
        if !v.is_finite() {
            return None;
        }
        return Some((v, ua));
    }
    let (v, u) = convert_one(q, x.lo, u_lo, hint)?;
    if !v.is_finite() {
        return None;
    }
    Some((v, u))
}

/// Keep, for each quantity (and shimmer in dB), the claim stated last in the text.
/// The claim that starts last in each slot, in text order, into `out` (cleared first).
pub fn last_per_slot(found: &[Found], truncated_at: Option<u32>, out: &mut Vec<Claim>) {
    // per slot, the index in `found` of the claim that starts last (u32::MAX = none)
    let mut last = [u32::MAX; N_SLOTS];
    for (k, f) in found.iter().enumerate() {
        if let Some(end) = truncated_at {
            if f.bare_value_token_end != u32::MAX && f.bare_value_token_end >= end {
                continue;
            }
        }
        let s = f.claim.slot();
        if last[s] == u32::MAX || found[last[s] as usize].claim.byte_start <= f.claim.byte_start {
            last[s] = k as u32;
        }
    }
    out.clear();
    out.extend(last.iter().filter(|&&k| k != u32::MAX).map(|&k| found[k as usize].claim));
    // the slot breaks ties as the stable order of the slots did
    out.sort_unstable_by_key(|c| (c.byte_start, c.quantity as u8, c.slot()));
}

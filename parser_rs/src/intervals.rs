//! Interval claims: where in time a text places an event ("both speakers talk from 2.1 to 5.4 s",
//! "pauses at 1.2 s, 3.4 s and 5.0 s", "a door slams at 0:07"), the second kind of claim beside the
//! 13 quantities (SPEC §1, where such timestamps stay non-claims for the quantities).
//!
//! A stated time is a claim only when an event is named beside it: the event names are the
//! registry's (`EVENTS` in `acousticlaim/quantities.py`, generated into `registry.rs` by
//! `build.rs`). The forms read:
//!
//! * ranges: "from 2.1 to 5.4 s", "from 2 s to 5 s", "2.1–5.4 s", "2.1-5.4 seconds",
//!   "between 2 and 5 seconds", "00:02–00:05", "[2.1s - 5.4s]", "starts at 2 s and ends at 5 s",
//!   "for the first 2 seconds" (from the clip's start), "from two to five seconds";
//! * points: "at 3.2 s", "around 3.2 s", "at the 3-second mark", "around the 3 s point", "t = 3 s",
//!   a clock time after such a word or opening a line or a bracket ("00:07 door slam", "[0:02.5]");
//! * lists after one name ("pauses at 1.2 s, 3.4 s and 5.0 s", "overlap: 2–3 s, 6–7 s", "at 1.2,
//!   3.4 and 5.0 s", "at 2.5 s and again at 6 s"): a unit stated once at the end holds for the list,
//!   and so does one declared with the name ("Pauses (s): 1.2–1.5, 3.4–3.9", "in seconds");
//! * the bullets of a list under a heading that names the event ("Pauses:", "### Pauses");
//! * a range restated in parentheses after a time ("lasts 1.8 seconds (from 0.11 to 1.91)");
//! * JSON objects with start/end fields (`{"type": "pause", "start": 3.2, "end": 3.9}`, or a list
//!   of them under an event's key, or `"overlap": [[2.1, 5.4]]`, also after a name in prose) and
//!   markdown tables with start/end (or time) columns (`| overlap | 2.1 | 5.4 |`), where a bare
//!   number is in seconds (`interval_fields.rs`).
//!
//! Each time is bound to the nearest name before it in its sentence ([`WINDOW_BACK`] words, not
//! past the previous list), else the first after it ([`WINDOW_AHEAD`] words, before any other
//! time). Not claims: durations ("a 0.5-second pause", "pauses of 0.3 s", "lasting 2–3 s", "the
//! overlap is 2 s", "2 s long"), times with no event named in the window, events named as absent
//! ("no pauses"), a bare seconds value with no word that places it ("pause: 3.2 s" may be a
//! duration), numbers in other units ("from 120 to 180 Hz", "SNR 12 dB"), and subtitle cues
//! ("00:00:03,920 --> 00:00:06,800 …", transcript). A reversed interval (end before start) or one
//! outside the clip is kept as stated and flagged.

use crate::batch::{Text, CHUNK};
use crate::interval_fields::{json_intervals, table_intervals, FieldText};
use crate::claim::registry::{EVENT_ALIASES, EVENT_KEYS};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// The event types in code order (code = index): the registry's.
pub const EVENT_TYPES: [&str; EVENT_KEYS.len()] = EVENT_KEYS;

/// Words searched before a stated time for the name of its event.
pub const WINDOW_BACK: usize = 12;
/// Words searched after a stated time (or list) for the name of its event when none precedes it.
pub const WINDOW_AHEAD: usize = 10;

/// Bullets read back over to find the heading of their list.
const MAX_BULLETS: usize = 64;

/// One interval (or point) claim.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalClaim {
    /// index into [`EVENT_TYPES`]
    pub event: u8,
    pub start_s: f64,
    /// equal to `start_s` for a point
    pub end_s: f64,
    pub point: bool,
    /// byte span of the words that named the event
    pub label: (u32, u32),
    /// byte span of the stated interval and its label
    pub byte_start: u32,
    pub byte_end: u32,
    /// the same span in characters (Python `str` indices)
    pub char_start: u32,
    pub char_end: u32,
    pub reversed: bool,
    pub outside_clip: bool,
}

/// A byte span of the text.
pub type Span = (u32, u32);

/// A claim as read, before its flags and character offsets.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub event: u8,
    pub start: f64,
    /// `None` for a point
    pub end: Option<f64>,
    /// the words that named the event
    pub label: Span,
    /// the stated interval and its label
    pub span: Span,
}

// ------------------------------------------------------------------ tokens

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Word,
    Num,
    Clock,
    Punct(char),
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Kind,
    s: u32,
    e: u32,
    v: f64,
}

/// The text's tokens as this reader sees them: the crate's one lexer ([`crate::lexer::lex`]) read
/// into words, numbers, clock times ("00:02", "1:02:03", "0:02.5", a subtitle's "00:00:03,920", with
/// their value in seconds) and single punctuation marks, newlines kept (they end a line of a table
/// or a list; a blank line is two). Two readings differ from the quantities': a comma between
/// digits that opens a list ("[6,7]", "1,2,3") separates two numbers, and an ordinal ("17th") is a
/// number and a word.
fn lex(text: &str, out: &mut Vec<Tok>) {
    use crate::lexer::{flag, Kind as L};
    thread_local!(static TOKENS: std::cell::RefCell<Vec<crate::lexer::Token>> = const { std::cell::RefCell::new(Vec::new()) });
    out.clear();
    let b = text.as_bytes();
    TOKENS.with(|cell| {
        let mut toks = cell.borrow_mut();
        crate::lexer::lex(text, crate::vocab::vocab(), &mut toks);
        for t in toks.iter() {
            let (s, e) = (t.start as usize, t.end as usize);
            let raw = &text[s..e];
            match t.kind {
                L::Word => out.push(Tok { kind: Kind::Word, s: t.start, e: t.end, v: 0.0 }),
                L::Newline => {
                    out.push(Tok { kind: Kind::Punct('\n'), s: t.start, e: t.start + 1, v: 0.0 });
                    if t.has(flag::BLANK) {
                        let second = b[s + 1..].iter().position(|&c| c == b'\n').map_or(e, |k| s + 1 + k);
                        out.push(Tok { kind: Kind::Punct('\n'), s: second as u32, e: second as u32 + 1, v: 0.0 });
                    }
                }
                L::Num => match raw.find(',') {
                    Some(k) if !decimal_comma(b, s, s + k) => {
                        push_number(out, text, s, s + k);
                        out.push(Tok { kind: Kind::Punct(','), s: (s + k) as u32, e: (s + k + 1) as u32, v: 0.0 });
                        push_number(out, text, s + k + 1, e);
                    }
                    _ => {
                        let v = if t.has(flag::UNUSABLE) { f64::NAN } else { t.num };
                        out.push(Tok { kind: Kind::Num, s: t.start, e: t.end, v });
                    }
                },
                L::Time => out.push(Tok { kind: Kind::Clock, s: t.start, e: t.end, v: clock_seconds(raw) }),
                L::Ordinal => {
                    let d = raw.bytes().take_while(u8::is_ascii_digit).count();
                    push_number(out, text, s, s + d);
                    out.push(Tok { kind: Kind::Word, s: (s + d) as u32, e: t.end, v: 0.0 });
                }
                // marks one character each; a template slot ("[value]", "___") its characters
                L::Punct => {
                    for (k, c) in raw.char_indices() {
                        if !c.is_whitespace() {
                            let at = (s + k) as u32;
                            out.push(Tok { kind: Kind::Punct(c), s: at, e: at + c.len_utf8() as u32, v: 0.0 });
                        }
                    }
                }
            }
        }
    });
}

/// A number of plain digits (and at most one '.') between `s` and `e`.
fn push_number(out: &mut Vec<Tok>, text: &str, s: usize, e: usize) {
    let v = text[s..e].parse().unwrap_or(f64::NAN);
    out.push(Tok { kind: Kind::Num, s: s as u32, e: e as u32, v });
}

/// The seconds of a clock time as the lexer reads one: "h:mm:ss" or "m:ss", with a fraction after
/// '.' or ',' ("0:02.5", "00:00:03,920").
fn clock_seconds(raw: &str) -> f64 {
    let mut v = 0.0;
    for part in raw.split(':') {
        v = v * 60.0 + part.replace(',', ".").parse::<f64>().unwrap_or(f64::NAN);
    }
    v
}

/// "2,5 s" is 2.5, but "[6,7]" and "1,2,3" are lists: a comma is a decimal mark only after a
/// number that does not open a bracket or follow a comma, and before digits that no comma follows.
fn decimal_comma(b: &[u8], s: usize, comma: usize) -> bool {
    let before = b[..s].iter().rev().find(|c| !c.is_ascii_whitespace());
    if matches!(before, Some(b'[') | Some(b',') | Some(b'(')) {
        return false;
    }
    let mut k = comma + 1;
    while k < b.len() && b[k].is_ascii_digit() {
        k += 1;
    }
    !(k < b.len() && b[k] == b',')
}

// ------------------------------------------------------------------ vocabulary

struct EventVocab {
    /// first word → (words of the name, event code), longest names first
    by_first: FxHashMap<String, Vec<(Vec<String>, u8)>>,
    /// every name as its words joined by single spaces, with its event
    phrases: Vec<(String, u8)>,
}

/// An event name as the words a text must contain: lower-cased, hyphens and underscores read as
/// spaces ("cross-talk" → "cross talk").
pub fn event_phrase(alias: &str) -> String {
    // the quantities' aliases are split into words the same way
    crate::vocab::alias_phrase(alias)
}

fn event_vocab() -> &'static EventVocab {
    static V: OnceLock<EventVocab> = OnceLock::new();
    V.get_or_init(|| {
        let mut by_first: FxHashMap<String, Vec<(Vec<String>, u8)>> = FxHashMap::default();
        let mut phrases = Vec::new();
        for (code, aliases) in EVENT_ALIASES.iter().enumerate() {
            for a in aliases.iter() {
                let p = event_phrase(a);
                let words: Vec<String> = p.split(' ').map(str::to_string).collect();
                by_first.entry(words[0].clone()).or_default().push((words, code as u8));
                phrases.push((p, code as u8));
            }
        }
        for v in by_first.values_mut() {
            v.sort_by_key(|(words, _)| std::cmp::Reverse(words.len()));
        }
        EventVocab { by_first, phrases }
    })
}

/// The event names of the vocabulary (phrase, event key), as built from the registry.
pub fn event_phrases() -> Vec<(String, &'static str)> {
    event_vocab().phrases.iter().map(|(p, c)| (p.clone(), EVENT_TYPES[*c as usize])).collect()
}

const TIME_UNITS: &[(&str, f64)] = &[
    ("s", 1.0),
    ("sec", 1.0),
    ("secs", 1.0),
    ("second", 1.0),
    ("seconds", 1.0),
    ("ms", 0.001),
    ("msec", 0.001),
    ("millisecond", 0.001),
    ("milliseconds", 0.001),
    ("min", 60.0),
    ("mins", 60.0),
    ("minute", 60.0),
    ("minutes", 60.0),
];
/// Number words, their value the index.
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
];
/// Units of other measures: a number in one is never a time, and a unit stated later in a list
/// does not reach it.
const OTHER_UNITS: &[&str] = &[
    "hz", "khz", "db", "dbfs", "dba", "lufs", "percent", "percentage", "syllables", "syllable", "words", "word", "wpm",
    "pauses", "pause", "times", "x", "bits", "bit", "kbps", "bps", "samples", "frames", "st", "semitones", "cents",
    "points", "per",
];
/// Words that place a time ("at 3.2 s", "from 2 to 5 s").
const AT_WORDS: &[&str] = &["at", "near", "around", "starting", "beginning", "onset"];
/// Words that hedge a value and are read through ("at about 3 s", "around the 3-second mark").
const HEDGES: &[&str] = &[
    "about", "around", "approximately", "approx", "roughly", "circa", "ca", "nearly", "almost", "just",
    "exactly", "precisely", "some", "the", "near", "maybe", "perhaps", "possibly", "likely", "estimated",
];
/// Hedges that also place a time by themselves ("a pause around 3.2 s").
const PLACING_HEDGES: &[&str] = &["around", "near", "about", "approximately", "roughly", "circa"];
/// Words before a time that make it a duration or a bound, not a place in time.
const DURATION_BEFORE: &[&str] = &[
    "of", "lasting", "lasts", "last", "lasted", "for", "duration", "durations", "length", "lengths", "long", "took",
    "takes", "take", "taking", "spanning", "spans", "span", "averaging", "average", "mean", "median", "total",
    "totaling", "totalling", "is", "are", "was", "were", "be", "been", "being", "a", "an", "one", "each", "every",
    "per", "than", "under", "over", "below", "above", "exceeding", "exceeds", "exceed", "least", "most", "up",
    "within", "after", "before", "by", "only", "max", "maximum", "min", "minimum", "longest", "shortest",
];
/// Words after a time that make it a duration ("2 s long", "0.4 s each").
const DURATION_AFTER: &[&str] = &["long", "each", "apiece", "duration", "durations", "length", "per", "in length", "in duration"];
/// Words after a time that make it a place in time ("the 3-second mark").
const MARK_WORDS: &[&str] = &["mark", "point", "timestamp", "timepoint", "time"];
/// Words that join the two ends of a range ("and" only after "between").
const RANGE_JOIN: &[&str] = &["to", "until", "till", "til", "through", "thru", "and"];
/// Words before an event name that state its absence ("no pauses").
const NEGATIONS: &[&str] = &["no", "without", "not", "never", "nor"];
/// Words between the items of a list ("at 2.5 s and again at 6 s", "the second at 5.1 s").
const LIST_WORDS: &[&str] = &[
    "again", "once", "more", "another", "second", "third", "fourth", "fifth", "last", "final", "next", "later",
    "also", "one", "other", "others", "then",
];
const START_WORDS: &[&str] = &["start", "starts", "starting", "started", "begin", "begins", "beginning", "began", "onset"];
const END_WORDS: &[&str] = &["end", "ends", "ending", "ended", "stop", "stops", "stopping", "stopped", "offset", "until"];

fn one_of(w: &str, list: &[&str]) -> bool {
    list.iter().any(|x| x.eq_ignore_ascii_case(w))
}

// ------------------------------------------------------------------ reading

/// A stated time: a number with its unit factor (seconds per unit) or a clock time.
#[derive(Clone, Copy, Debug)]
struct Atom {
    v: f64,
    unit: Option<f64>,
    clock: bool,
    /// the unit is joined by a hyphen ("3-second"): an adjective, a duration unless a mark follows
    hyphen: bool,
    /// followed by a unit of another measure ("180 Hz", "40 %"): never a time
    foreign: bool,
    s: u32,
    e: u32,
    next: usize,
}

impl Atom {
    fn seconds(&self) -> Option<f64> {
        if self.clock {
            Some(self.v)
        } else {
            self.unit.map(|u| self.v * u)
        }
    }
}

/// A stated time or range, with the cue that placed it.
#[derive(Clone, Copy, Debug)]
struct Item {
    a: Atom,
    b: Option<Atom>,
    /// first token of the item (its cue word, if any) and the token after it
    first: usize,
    next: usize,
    placed: bool,
    duration: bool,
}

#[derive(Clone, Copy, Debug)]
struct Mention {
    first: usize,
    next: usize,
    event: u8,
    negated: bool,
}

struct Reader<'t> {
    text: &'t str,
    toks: &'t [Tok],
    mentions: Vec<Mention>,
    /// for each token, the mention that starts there (index into `mentions`)
    mention_at: Vec<u32>,
    /// for each token, the mention that ends there
    mention_end: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl<'t> Reader<'t> {
    fn new(text: &'t str, toks: &'t [Tok]) -> Self {
        let v = event_vocab();
        let mut mentions = Vec::new();
        let mut mention_at = vec![NONE; toks.len()];
        let mut lower = String::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].kind != Kind::Word {
                i += 1;
                continue;
            }
            lower.clear();
            lower.extend(text[toks[i].s as usize..toks[i].e as usize].chars().flat_map(char::to_lowercase));
            let mut matched = None;
            if let Some(cands) = v.by_first.get(lower.as_str()) {
                for (words, code) in cands {
                    if let Some(next) = match_words(text, toks, i, words) {
                        matched = Some((next, *code));
                        break;
                    }
                }
            }
            match matched {
                Some((next, event)) if mentions.last().is_some_and(|m: &Mention| m.next == i && m.event == event) => {
                    mentions.last_mut().unwrap().next = next;
                    i = next;
                }
                Some((next, event)) => {
                    let negated = i > 0 && toks[i - 1].kind == Kind::Word && one_of(word(text, &toks[i - 1]), NEGATIONS)
                        || i > 1 && toks[i - 2].kind == Kind::Word && one_of(word(text, &toks[i - 2]), NEGATIONS)
                            && toks[i - 1].kind == Kind::Word && one_of(word(text, &toks[i - 1]), &["long", "audible", "noticeable", "significant", "clear", "real", "other", "further", "more"]);
                    mention_at[i] = mentions.len() as u32;
                    mentions.push(Mention { first: i, next, event, negated });
                    i = next;
                }
                None => i += 1,
            }
        }
        let mut mention_end = vec![NONE; toks.len()];
        for (k, m) in mentions.iter().enumerate() {
            mention_end[m.next - 1] = k as u32;
        }
        Reader { text, toks, mentions, mention_at, mention_end }
    }

    fn word(&self, i: usize) -> Option<&'t str> {
        let t = self.toks.get(i)?;
        (t.kind == Kind::Word).then(|| word(self.text, t))
    }

    fn punct(&self, i: usize) -> Option<char> {
        match self.toks.get(i)?.kind {
            Kind::Punct(c) => Some(c),
            _ => None,
        }
    }

    /// The value of a number, or of a number word ("three seconds", "from two to five seconds").
    fn value_of(&self, i: usize) -> Option<f64> {
        let t = self.toks.get(i)?;
        match t.kind {
            Kind::Num => t.v.is_finite().then_some(t.v),
            Kind::Word => {
                let w = word(self.text, t);
                NUMBER_WORDS.iter().position(|n| n.eq_ignore_ascii_case(w)).map(|k| k as f64)
            }
            _ => None,
        }
    }

    fn adjacent(&self, i: usize, j: usize) -> bool {
        matches!((self.toks.get(i), self.toks.get(j)), (Some(a), Some(b)) if a.e == b.s)
    }

    /// A time at token `i`: an optional sign, a number with a time unit (or none yet) or a clock time.
    fn atom(&self, i: usize) -> Option<Atom> {
        let t = self.toks;
        let mut j = i;
        let mut sign = 1.0;
        if matches!(self.punct(j), Some('-') | Some('−'))
            && j + 1 < t.len()
            && matches!(t[j + 1].kind, Kind::Num | Kind::Clock)
            && self.adjacent(j, j + 1)
            && !(j > 0 && matches!(t[j - 1].kind, Kind::Num | Kind::Clock))
        {
            sign = -1.0;
            j += 1;
        }
        let tok = t.get(j)?;
        match tok.kind {
            Kind::Clock => {
                Some(Atom { v: sign * tok.v, unit: Some(1.0), clock: true, hyphen: false, foreign: false, s: t[i].s, e: tok.e, next: j + 1 })
            }
            Kind::Num | Kind::Word if self.value_of(j).is_some() && (sign > 0.0 || tok.kind == Kind::Num) => {
                let v = self.value_of(j).unwrap();
                let mut a = Atom { v: sign * v, unit: None, clock: false, hyphen: false, foreign: false, s: t[i].s, e: tok.e, next: j + 1 };
                if let Some(f) = self.word(j + 1).and_then(unit_factor) {
                    a.unit = Some(f);
                    a.e = t[j + 1].e;
                    a.next = j + 2;
                } else if self.punct(j + 1) == Some('-') && self.adjacent(j, j + 1) && self.adjacent(j + 1, j + 2) {
                    if let Some(f) = self.word(j + 2).and_then(unit_factor) {
                        a.unit = Some(f);
                        a.hyphen = true;
                        a.e = t[j + 2].e;
                        a.next = j + 3;
                    }
                }
                a.foreign = a.unit.is_none()
                    && (self.word(j + 1).is_some_and(|w| one_of(w, OTHER_UNITS)) || matches!(self.punct(j + 1), Some('%') | Some('‰')));
                Some(a)
            }
            _ => None,
        }
    }

    /// A time or a range at token `i` (`between`: "and" joins the ends).
    fn time(&self, i: usize, between: bool) -> Option<(Atom, Option<Atom>, usize)> {
        let a = self.atom(i)?;
        let j = a.next;
        let joined = match self.toks.get(j).map(|t| t.kind) {
            Some(Kind::Punct('-')) | Some(Kind::Punct('–')) | Some(Kind::Punct('—')) | Some(Kind::Punct('−')) => true,
            Some(Kind::Word) => {
                let w = self.word(j).unwrap();
                one_of(w, RANGE_JOIN) && (between || !w.eq_ignore_ascii_case("and"))
            }
            _ => false,
        };
        if joined {
            // "2.1 s - 5.4 s", "2 and 5 seconds"; "to the 5-second mark"
            let mut k = j + 1;
            while self.word(k).is_some_and(|w| w.eq_ignore_ascii_case("the") || one_of(w, PLACING_HEDGES)) {
                k += 1;
            }
            if let Some(b) = self.atom(k) {
                if b.clock == a.clock || a.unit.is_some() || b.unit.is_some() {
                    return Some((a, Some(b), b.next));
                }
            }
        }
        Some((a, None, a.next))
    }

    /// The cue before token `i`, read back over hedges: (first token of the item, placed, duration).
    fn cue(&self, i: usize) -> (usize, bool, bool, bool) {
        let mut k = i;
        let mut placing_hedge = false;
        let mut first = i;
        while k > 0 {
            let j = k - 1;
            if let Some(w) = self.word(j) {
                if one_of(w, HEDGES) && (one_of(w, PLACING_HEDGES) || !one_of(w, AT_WORDS)) {
                    placing_hedge |= one_of(w, PLACING_HEDGES);
                    if w.eq_ignore_ascii_case("the") || one_of(w, PLACING_HEDGES) {
                        first = j;
                    }
                    k = j;
                    continue;
                }
                if one_of(w, DURATION_BEFORE) {
                    return (first, false, true, false);
                }
                if one_of(w, AT_WORDS) || w.eq_ignore_ascii_case("from") {
                    return (j, true, false, false);
                }
                if w.eq_ignore_ascii_case("between") {
                    return (j, true, false, true);
                }
                break;
            }
            match self.punct(j) {
                Some('~') | Some('≈') => {
                    k = j;
                    continue;
                }
                Some('@') => return (j, true, false, false),
                Some('=') if self.word(j.wrapping_sub(1)).is_some_and(|w| w.eq_ignore_ascii_case("t")) => {
                    return (j - 1, true, false, false)
                }
                _ => break,
            }
        }
        (first, placing_hedge, false, false)
    }

    /// The item (time or range with its cue) at token `i`.
    fn item(&self, i: usize) -> Option<Item> {
        if let Some(it) = self.opening(i) {
            return Some(it);
        }
        let (first, placed, duration_cue, between) = self.cue(i);
        let (a, b, mut next) = self.time(i, between)?;
        let mut item = Item { a, b, first, next, placed, duration: duration_cue };
        let last = b.unwrap_or(a);
        // what follows: "mark" places it, "long"/"each" makes it a duration
        let mut k = next;
        if self.punct(k) == Some('-') {
            k += 1;
        }
        if let Some(w) = self.word(k) {
            if one_of(w, MARK_WORDS) && !(w.eq_ignore_ascii_case("time") && self.word(k + 1).is_some()) {
                item.placed = true;
                item.duration = false;
                next = k + 1;
                item.next = next;
            } else if one_of(w, DURATION_AFTER)
                || (w.eq_ignore_ascii_case("in") && self.word(k + 1).is_some_and(|x| one_of(x, &["length", "duration", "total"])))
            {
                item.duration = true;
            }
        }
        if last.hyphen && !item.placed {
            item.duration = true;
        }
        Some(item)
    }

    /// "(for|in|during|within) the first 2 seconds": the interval from the clip's start.
    fn opening(&self, i: usize) -> Option<Item> {
        let w = self.word(i.checked_sub(1)?)?;
        if !one_of(w, &["first", "opening", "initial"]) {
            return None;
        }
        let (a, b, next) = self.time(i, false)?;
        if b.is_some() || a.clock || a.unit.is_none() || a.hyphen {
            return None;
        }
        let mut first = i - 1;
        while first > 0 && self.word(first - 1).is_some_and(|w| one_of(w, &["the", "in", "during", "within", "for", "over", "throughout"])) {
            first -= 1;
        }
        let start = Atom { v: 0.0, unit: Some(1.0), clock: false, hyphen: false, foreign: false, s: self.toks[first].s, e: self.toks[first].s, next: i };
        Some(Item { a: start, b: Some(a), first, next, placed: true, duration: false })
    }

    fn is_boundary(&self, i: usize) -> bool {
        matches!(self.punct(i), Some('.') | Some('!') | Some('?') | Some(';') | Some('\n'))
    }

    fn is_time(&self, i: usize) -> bool {
        matches!(self.toks[i].kind, Kind::Num | Kind::Clock)
    }

    /// The nearest event named before token `i` (not before `floor`) in the same sentence.
    fn name_before(&self, i: usize, floor: usize) -> Option<Mention> {
        let mut words = 0;
        let mut k = i;
        // words are counted; other tokens are bounded too, so that a long run of them costs little
        while k > floor && words < WINDOW_BACK && i - k < 8 * WINDOW_BACK {
            let j = k - 1;
            if self.punct(j) == Some('\n') {
                // a bullet of a list reads the list's heading: "Pauses:\n- 1.2–1.5 s\n- 3.4–3.9 s"
                return if self.bullet_line(j + 1) { self.heading_name(j) } else { None };
            }
            if self.is_boundary(j) {
                return None;
            }
            if self.toks[j].kind == Kind::Word {
                words += 1;
            }
            // a mention ending at j
            if let Some(m) = self.mention_end.get(j).filter(|&&m| m != NONE).map(|&m| self.mentions[m as usize]) {
                if m.first >= floor {
                    return Some(m);
                }
            }
            k = j;
        }
        None
    }

    /// Above a bullet whose line ends at the newline `nl`: the event named in the heading line of
    /// its list ("Pauses:", "Overlapping speech at:"), over the other bullets.
    fn heading_name(&self, nl: usize) -> Option<Mention> {
        let mut end = nl;
        for _ in 0..MAX_BULLETS {
            let start = self.toks[..end].iter().rposition(|t| t.kind == Kind::Punct('\n')).map_or(0, |k| k + 1);
            if self.bullet_line(start) {
                if start == 0 {
                    return None;
                }
                end = start - 1;
                continue;
            }
            // the heading: a line that ends with ":", a markdown heading ("### Pauses") or a line
            // in bold ("**Overlapping speech**")
            let heading = end > start
                && (self.punct(end - 1) == Some(':')
                    || self.punct(start) == Some('#')
                    || (self.punct(start) == Some('*') && self.punct(end - 1) == Some('*')));
            if !heading {
                return None;
            }
            return self.mentions.iter().rev().find(|m| m.first >= start && m.next <= end).copied();
        }
        None
    }

    /// Whether token `i` opens its line, its bullet, or a bracket ("00:03 door slam", "- 00:03:",
    /// "[00:03]"): where a clock time places what follows it.
    fn line_start(&self, i: usize) -> bool {
        if i == 0 || matches!(self.punct(i - 1), Some('\n') | Some('[') | Some('(')) {
            return true;
        }
        let mut k = i;
        while k > 0 && matches!(self.punct(k - 1), Some('*') | Some('-') | Some('•') | Some('+') | Some('#') | Some('>')) {
            k -= 1;
        }
        k == 0 || self.punct(k - 1) == Some('\n')
    }

    /// Whether the line starting at token `i` is a list bullet ("- ", "* ", "• ", "1. ").
    fn bullet_line(&self, i: usize) -> bool {
        match self.toks.get(i).map(|t| t.kind) {
            // a marker and a space ("**bold**" and "-1.2" are no bullets)
            Some(Kind::Punct('-')) | Some(Kind::Punct('*')) | Some(Kind::Punct('•')) | Some(Kind::Punct('+')) => !self.adjacent(i, i + 1),
            Some(Kind::Num) => matches!(self.punct(i + 1), Some('.') | Some(')')),
            _ => false,
        }
    }

    /// The nearest event named after token `i` in the same sentence, before any other stated time.
    fn name_after(&self, i: usize) -> Option<Mention> {
        let mut words = 0;
        let mut k = i;
        while k < self.toks.len() && words < WINDOW_AHEAD && k - i < 8 * WINDOW_AHEAD {
            if self.is_boundary(k) || self.is_time(k) {
                return None;
            }
            if self.mention_at[k] != NONE {
                return Some(self.mentions[self.mention_at[k] as usize]);
            }
            if self.toks[k].kind == Kind::Word {
                words += 1;
            }
            k += 1;
        }
        None
    }

    /// After an item ending at token `j`, the next item of the same list: joined by ",", "and",
    /// "or", "&" (and an optional cue word).
    fn continuation(&self, j: usize) -> Option<usize> {
        let mut k = j;
        let mut joined = false;
        loop {
            match (self.punct(k), self.word(k)) {
                (Some(',') | Some('&') | Some('/'), _) => {
                    joined = true;
                    k += 1;
                }
                (_, Some(w)) if one_of(w, &["and", "or"]) => {
                    joined = true;
                    k += 1;
                }
                _ => break,
            }
        }
        if !joined {
            return None;
        }
        // the cue of the next item is read by `item`; skip it here to find its number
        let mut n = k;
        while let Some(w) = self.word(n) {
            if one_of(w, AT_WORDS) || one_of(w, HEDGES) || one_of(w, &["from", "between"]) || one_of(w, LIST_WORDS) {
                n += 1;
            } else {
                return None;
            }
        }
        if self.punct(n) == Some('~') || self.punct(n) == Some('@') {
            n += 1;
        }
        let starts = self.toks.get(n).is_some_and(|t| matches!(t.kind, Kind::Num | Kind::Clock))
            || (matches!(self.punct(n), Some('-')) && self.toks.get(n + 1).is_some_and(|t| t.kind == Kind::Num) && self.adjacent(n, n + 1));
        starts.then_some(n)
    }

    /// The unit of a time just before the "(" that opens at token `k - 1`, e.g. the "seconds" of
    /// "1.8 seconds (from 0.11 to 1.91)".
    fn unit_before_parenthesis(&self, k: usize) -> Option<f64> {
        if k < 3 || self.punct(k - 1) != Some('(') || self.toks[k - 3].kind != Kind::Num {
            return None;
        }
        self.word(k - 2).and_then(unit_factor)
    }

    /// A unit declared for the numbers that follow, on the same line: "Pauses (s): 1.2–1.5, 3.4–3.9",
    /// "overlap in seconds: 2–3, 6–7".
    fn declared_unit(&self, k: usize) -> Option<f64> {
        let lo = k.saturating_sub(10);
        for p in (lo..k).rev() {
            if self.is_boundary(p) || self.is_time(p) {
                return None;
            }
            if let Some(u) = self.word(p).and_then(unit_factor) {
                let bracketed = p > 0
                    && matches!(self.punct(p - 1), Some('(') | Some('['))
                    && matches!(self.punct(p + 1), Some(')') | Some(']'));
                let in_unit = p > 0 && self.word(p - 1).is_some_and(|w| w.eq_ignore_ascii_case("in"));
                if bracketed || in_unit {
                    return Some(u);
                }
            }
        }
        None
    }

    /// Whether only asides lie between tokens `a` and `b`: punctuation (no sentence end), times,
    /// and the words that join a list ("at 1.2 s (0.3 s), at 3.4 s").
    fn only_asides(&self, a: usize, b: usize) -> bool {
        (a..b).all(|k| match self.toks[k].kind {
            Kind::Num | Kind::Clock => true,
            Kind::Punct(_) => !self.is_boundary(k),
            Kind::Word => {
                let w = self.word(k).unwrap();
                unit_factor(w).is_some() || one_of(w, LIST_WORDS) || one_of(w, &["and", "or"]) || one_of(w, AT_WORDS)
                    || one_of(w, HEDGES) || one_of(w, &["from", "between", "long", "each"])
            }
        })
    }

    /// "starts at 2 s and ends at 5 s": the end of a range stated by its start and end words.
    fn stated_end(&self, item: &Item) -> Option<Item> {
        if item.b.is_some() || !item.placed {
            return None;
        }
        let before = self.word(item.first.checked_sub(1)?)?;
        if !one_of(before, START_WORDS) {
            return None;
        }
        let mut k = item.next;
        let mut hops = 0;
        while k < self.toks.len() && hops < 6 {
            if self.is_boundary(k) || self.is_time(k) {
                return None;
            }
            if self.word(k).is_some_and(|w| one_of(w, END_WORDS)) {
                let mut n = k + 1;
                while self.word(n).is_some_and(|w| one_of(w, AT_WORDS) || one_of(w, HEDGES) || w.eq_ignore_ascii_case("by")) {
                    n += 1;
                }
                let end = self.item(n)?;
                return end.b.is_none().then_some(end);
            }
            k += 1;
            hops += 1;
        }
        None
    }

    fn read(&self, out: &mut Vec<Found>, skip: &[Span]) {
        let n = self.toks.len();
        let mut floor = 0;
        let mut previous: Option<(Mention, usize)> = None;
        let mut i = 0;
        while i < n {
            // a number word starts a time only when a time unit follows it ("three seconds") or
            // it opens a range ("from two to five seconds")
            let word_time = self.toks[i].kind == Kind::Word
                && self.value_of(i).is_some()
                && (self.word(i + 1).and_then(unit_factor).is_some()
                    || self.word(i + 1).is_some_and(|w| one_of(w, RANGE_JOIN)) && self.value_of(i + 2).is_some()
                    || self.punct(i + 1) == Some('-') && self.word(i + 2).and_then(unit_factor).is_some());
            if !(word_time || self.is_time(i) || (matches!(self.punct(i), Some('-') | Some('−')) && i + 1 < n && self.is_time(i + 1) && self.adjacent(i, i + 1))) {
                i += 1;
                continue;
            }
            if skip.iter().any(|&(s, e)| self.toks[i].s >= s && self.toks[i].s < e) {
                i += 1;
                floor = i;
                continue;
            }
            let Some(head) = self.item(i) else {
                i += 1;
                continue;
            };
            // the list: the head and its continuations
            let mut items = vec![head];
            if let Some(end) = self.stated_end(&head) {
                let h = &mut items[0];
                h.b = Some(end.a);
                h.next = end.next;
            }
            while let Some(k) = self.continuation(items.last().unwrap().next) {
                match self.item(k) {
                    Some(it) => items.push(it),
                    None => break,
                }
            }
            // a unit stated once at the end holds for the list ("at 1.2, 3.4 and 5.0 s")
            let mut carry: Option<f64> = None;
            for it in items.iter_mut().rev() {
                for at in [it.b.as_mut(), Some(&mut it.a)].into_iter().flatten() {
                    if at.clock {
                        continue;
                    }
                    match at.unit {
                        Some(u) => carry = Some(u),
                        None if at.foreign => carry = None,
                        None => at.unit = carry,
                    }
                }
            }
            // a range restated in parentheses after a time takes its unit: "lasts 1.8 seconds (from
            // 0.11 to 1.91)"
            if let Some(u) = self.unit_before_parenthesis(items[0].first).or_else(|| self.declared_unit(items[0].first)) {
                for it in items.iter_mut() {
                    for at in [it.b.as_mut(), Some(&mut it.a)].into_iter().flatten() {
                        if at.unit.is_none() && !at.clock && !at.foreign {
                            at.unit = Some(u);
                        }
                    }
                }
            }
            // the list ends at its first item that is no time (no unit anywhere) or that is
            // a duration
            let keep = items
                .iter()
                .position(|it| it.a.seconds().is_none() || it.b.is_some_and(|b| b.seconds().is_none()))
                .unwrap_or(items.len());
            items.truncate(keep);
            if items.is_empty() {
                i = head.next.max(i + 1);
                continue;
            }
            let list_next = items.last().unwrap().next;
            let head = items[0];
            // the name before, else after; else the previous list's, when only asides lie between
            // ("pauses at 1.2 s (0.3 s), at 3.4 s (0.5 s)")
            let event = self.name_before(head.first, floor).or_else(|| self.name_after(list_next)).or_else(|| {
                previous.filter(|&(_, end)| end <= head.first && self.only_asides(end, head.first)).map(|(m, _)| m)
            });
            // an item followed at once by the name of another event starts a list of its own
            let mut cut = items.len();
            if let Some(m) = event {
                for (k, it) in items.iter().enumerate().skip(1) {
                    if let Some(other) = self.name_after(it.next) {
                        // "…, and at 5 s both speakers overlap": the name follows the time at once
                        let at_once = self.toks[it.next..other.first].iter().all(|t| t.kind == Kind::Word);
                        if other.event != m.event && other.first <= it.next + 3 && at_once {
                            cut = k;
                            break;
                        }
                    }
                }
            }
            let items_before_cut = items.len();
            let resume = if cut < items.len() { items[cut].first } else { list_next };
            items.truncate(cut);
            let claimed = !head.duration && (head.placed || head.b.is_some() || (head.a.clock && self.line_start(head.first)));
            if let (Some(m), true) = (event, claimed) {
                if !m.negated {
                    for it in &items {
                        // a duration ends the list ("at 2 s, 0.4 s long")
                        if it.duration {
                            break;
                        }
                        out.push(self.found(m, it));
                    }
                }
            }
            // the next list reads no name back past this one, nor the name this one read after it
            if claimed && event.is_some_and(|m| !m.negated) {
                floor = match event {
                    Some(m) if m.first >= list_next && cut == items_before_cut => resume.max(m.next),
                    _ => resume,
                };
                previous = event.map(|m| (m, floor));
            }
            i = resume.max(i + 1);
        }
    }

    fn found(&self, m: Mention, it: &Item) -> Found {
        let (ls, le) = (self.toks[m.first].s, self.toks[m.next - 1].e);
        let (is, ie) = (self.toks[it.first].s.min(it.a.s), it.b.map_or(it.a.e, |b| b.e));
        Found {
            event: m.event,
            start: it.a.seconds().unwrap(),
            end: it.b.map(|b| b.seconds().unwrap()),
            label: (ls, le),
            span: (ls.min(is), le.max(ie)),
        }
    }

    /// The first event named, not as absent (event, the span of its words).
    fn first_name(&self) -> Option<(u8, Span)> {
        self.mentions
            .iter()
            .find(|m| !m.negated)
            .map(|m| (m.event, (self.toks[m.first].s, self.toks[m.next - 1].e)))
    }

    /// The time or range that is all of these tokens (bare numbers in `unit`).
    fn whole_time(&self, unit: f64) -> Option<(f64, Option<f64>, Span)> {
        let mut i = 0;
        while self.word(i).is_some_and(|w| one_of(w, HEDGES) || one_of(w, AT_WORDS) || one_of(w, &["from", "between"]))
            || matches!(self.punct(i), Some('~') | Some('≈') | Some('@') | Some('(') | Some('['))
        {
            i += 1;
        }
        let (mut a, mut b, next) = self.time(i, true)?;
        if self.toks[next..].iter().any(|t| !matches!(t.kind, Kind::Punct(c) if matches!(c, ')' | ']' | '.' | ',' | ';'))) {
            return None;
        }
        for at in [Some(&mut a), b.as_mut()].into_iter().flatten() {
            if at.unit.is_none() && !at.clock {
                at.unit = Some(unit);
            }
        }
        Some((a.seconds()?, b.and_then(|b| b.seconds()), (a.s, b.map_or(a.e, |b| b.e))))
    }
}

/// The event a phrase of plain words names (a JSON key split into words: "noise events").
pub fn name_in_words(words: &str) -> Option<u8> {
    let mut toks = Vec::new();
    lex(words, &mut toks);
    Reader::new(words, &toks).first_name().map(|(e, _)| e)
}

/// A text as the JSON and table readers see it: names and times inside one field.
struct Fields<'t> {
    text: &'t str,
}

impl Fields<'_> {
    fn sub(&self, span: Span) -> (&str, Vec<Tok>) {
        let sub = &self.text[span.0 as usize..span.1 as usize];
        let mut toks = Vec::new();
        lex(sub, &mut toks);
        (sub, toks)
    }
}

impl FieldText for Fields<'_> {
    fn name_in(&self, span: Span) -> Option<(u8, Span)> {
        let (sub, toks) = self.sub(span);
        let (e, (s, t)) = Reader::new(sub, &toks).first_name()?;
        Some((e, (s + span.0, t + span.0)))
    }

    fn name_before(&self, at: u32) -> Option<(u8, Span)> {
        let line = self.text[..at as usize].rfind('\n').map_or(0, |k| k + 1) as u32;
        let (sub, toks) = self.sub((line, at));
        let r = Reader::new(sub, &toks);
        let m = r.mentions.last().filter(|m| !m.negated)?;
        // close by: a few words or marks, no number ("Overlap intervals: [[…]]")
        let rest = &toks[m.next..];
        if rest.len() > 4 || rest.iter().any(|t| matches!(t.kind, Kind::Num | Kind::Clock)) {
            return None;
        }
        Some((m.event, (toks[m.first].s + line, toks[m.next - 1].e + line)))
    }

    fn time_in(&self, span: Span, unit: f64) -> Option<(f64, Option<f64>, Span)> {
        let (sub, toks) = self.sub(span);
        let (a, b, (s, t)) = Reader::new(sub, &toks).whole_time(unit)?;
        Some((a, b, (s + span.0, t + span.0)))
    }

    fn text(&self) -> &str {
        self.text
    }
}

fn outside(start: f64, end: f64, clip_s: Option<f64>) -> bool {
    clip_s.is_some_and(|c| [start, end].iter().any(|&t| t < 0.0 || t > c))
}

fn word<'a>(text: &'a str, t: &Tok) -> &'a str {
    &text[t.s as usize..t.e as usize]
}

fn unit_factor(w: &str) -> Option<f64> {
    TIME_UNITS.iter().find(|(u, _)| u.eq_ignore_ascii_case(w)).map(|(_, f)| *f)
}

/// The words of a name matched from token `i` on, joined by spaces, hyphens or underscores:
/// the token after the match.
fn match_words(text: &str, toks: &[Tok], i: usize, words: &[String]) -> Option<usize> {
    let mut k = i;
    for (n, w) in words.iter().enumerate() {
        if n > 0 {
            while matches!(toks.get(k).map(|t| t.kind), Some(Kind::Punct('-')) | Some(Kind::Punct('_'))) && toks[k].s == toks[k - 1].e {
                k += 1;
            }
        }
        let t = toks.get(k)?;
        if t.kind != Kind::Word {
            return None;
        }
        let raw = word(text, t);
        if !(raw.eq_ignore_ascii_case(w) || raw.to_lowercase() == *w) {
            return None;
        }
        k += 1;
    }
    Some(k)
}

/// The interval claims of one text. `clip_s`: the clip's length, to flag claims outside it.
pub fn parse_intervals(text: &str, clip_s: Option<f64>) -> Vec<IntervalClaim> {
    let mut toks = Vec::new();
    let mut out = Vec::new();
    parse_intervals_into(text, clip_s, &mut toks, &mut out);
    out
}

fn parse_intervals_into(text: &str, clip_s: Option<f64>, toks: &mut Vec<Tok>, out: &mut Vec<IntervalClaim>) {
    out.clear();
    let mut found = Vec::new();
    let mut regions = Vec::new();
    let fields = Fields { text };
    if text.contains('{') || text.contains('[') {
        json_intervals(&fields, &mut found, &mut regions);
    }
    if text.contains('|') {
        table_intervals(&fields, &mut found, &mut regions);
    }
    if text.contains("-->") {
        subtitle_lines(text, &mut regions);
    }
    lex(text, toks);
    Reader::new(text, toks).read(&mut found, &regions);
    found.sort_by_key(|f| (f.span.0, f.span.1));
    out.extend(found.iter().map(|f| {
        let end = f.end.unwrap_or(f.start);
        IntervalClaim {
            event: f.event,
            start_s: f.start,
            end_s: end,
            point: f.end.is_none(),
            label: f.label,
            byte_start: f.span.0,
            byte_end: f.span.1,
            char_start: 0,
            char_end: 0,
            reversed: end < f.start,
            outside_clip: outside(f.start, end, clip_s),
        }
    }));
    fill_char_offsets(text, out);
}

/// Subtitle cues ("1 00:00:03,920 --> 00:00:06,800 and then silence"): a transcript's timing
/// and its words, never claims about the recording (SPEC §1, transcript content). Each line with
/// a "-->" is skipped, with the lines of text under it up to the next blank line.
fn subtitle_lines(text: &str, regions: &mut Vec<Span>) {
    let mut at = 0usize;
    let mut in_cue = false;
    for line in text.split_inclusive('\n') {
        if line.contains("-->") {
            in_cue = true;
        } else if line.trim().is_empty() {
            in_cue = false;
        }
        if in_cue {
            regions.push((at as u32, (at + line.len()) as u32));
        }
        at += line.len();
    }
}

/// Interval claims of many texts as columns, one row per claim with the index of its text.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct IntervalColumns {
    pub text_index: Vec<i64>,
    pub event: Vec<u8>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub point: Vec<bool>,
    /// the words that named the event, as written
    pub label: Vec<String>,
    pub span_start: Vec<i64>,
    pub span_end: Vec<i64>,
    pub reversed: Vec<bool>,
    pub outside_clip: Vec<bool>,
}

impl IntervalColumns {
    pub fn len(&self) -> usize {
        self.event.len()
    }

    pub fn is_empty(&self) -> bool {
        self.event.is_empty()
    }

    fn push(&mut self, idx: usize, text: &str, c: &IntervalClaim) {
        self.text_index.push(idx as i64);
        self.event.push(c.event);
        self.start_s.push(c.start_s);
        self.end_s.push(c.end_s);
        self.point.push(c.point);
        self.label.push(text[c.label.0 as usize..c.label.1 as usize].to_string());
        self.span_start.push(c.char_start as i64);
        self.span_end.push(c.char_end as i64);
        self.reversed.push(c.reversed);
        self.outside_clip.push(c.outside_clip);
    }

    fn extend(&mut self, o: IntervalColumns) {
        self.text_index.extend(o.text_index);
        self.event.extend(o.event);
        self.start_s.extend(o.start_s);
        self.end_s.extend(o.end_s);
        self.point.extend(o.point);
        self.label.extend(o.label);
        self.span_start.extend(o.span_start);
        self.span_end.extend(o.span_end);
        self.reversed.extend(o.reversed);
        self.outside_clip.extend(o.outside_clip);
    }
}

/// The interval claims of many texts (`clip_s[i]`: the length of text i's clip, `None` when
/// unknown), in text order, in runs of [`CHUNK`] texts on `threads` threads (0 = all cores,
/// 1 = this thread only).
pub fn parse_intervals_batch<S: Text>(texts: &[S], clip_s: Option<&[Option<f64>]>, threads: usize) -> IntervalColumns {
    let chunk = |(ci, part): (usize, &[S])| {
        let mut out = IntervalColumns::default();
        let (mut toks, mut claims) = (Vec::new(), Vec::new());
        for (k, t) in part.iter().enumerate() {
            let idx = ci * CHUNK + k;
            let text = t.text();
            let clip = clip_s.and_then(|c| c.get(idx).copied().flatten());
            parse_intervals_into(&text, clip, &mut toks, &mut claims);
            for c in &claims {
                out.push(idx, &text, c);
            }
        }
        out
    };
    let parts: Vec<IntervalColumns> = crate::batch::map_chunks(texts, threads, chunk);
    let mut all = IntervalColumns::default();
    for p in parts {
        all.extend(p);
    }
    all
}

/// Byte offsets → character offsets (Python `str` indices).
fn fill_char_offsets(text: &str, claims: &mut [IntervalClaim]) {
    if claims.is_empty() {
        return;
    }
    let mut o: Vec<u32> = claims.iter().flat_map(|c| [c.byte_start, c.byte_end]).collect();
    crate::offsets::to_char_offsets(text, &mut o);
    for (c, w) in claims.iter_mut().zip(o.chunks_exact(2)) {
        c.char_start = w[0];
        c.char_end = w[1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(&'static str, f64, f64, bool)> {
        parse_intervals(text, Some(10.0)).iter().map(|c| (EVENT_TYPES[c.event as usize], c.start_s, c.end_s, c.point)).collect()
    }

    #[test]
    fn simple_forms() {
        assert_eq!(read("Both speakers talk from 2.1 to 5.4 s."), vec![("overlap", 2.1, 5.4, false)]);
        assert_eq!(read("Overlap: 2.1–5.4 s."), vec![("overlap", 2.1, 5.4, false)]);
        assert_eq!(read("There is a long pause at 3.2 s."), vec![("pause", 3.2, 3.2, true)]);
        assert_eq!(read("Silence between 2 and 5 seconds."), vec![("pause", 2.0, 5.0, false)]);
        assert_eq!(read("A door slams at 00:07."), vec![("noise", 7.0, 7.0, true)]);
    }

    #[test]
    fn durations_and_unnamed_times_are_not_claims() {
        assert!(read("There is a 0.5-second pause.").is_empty());
        assert!(read("Pauses of 0.3 s are frequent.").is_empty());
        assert!(read("At 3.2 s the speaker says hello.").is_empty());
        assert!(read("The SNR is 12 dB and the F0 moves from 120 to 180 Hz.").is_empty());
    }

    fn kinds(text: &str) -> Vec<(Kind, f64)> {
        let mut toks = Vec::new();
        lex(text, &mut toks);
        toks.iter().map(|t| (t.kind, t.v)).collect()
    }

    #[test]
    fn clock_times_and_decimal_marks() {
        assert_eq!(kinds("00:02"), vec![(Kind::Clock, 2.0)]);
        assert_eq!(kinds("0:02.5"), vec![(Kind::Clock, 2.5)]);
        assert_eq!(kinds("1:02:03"), vec![(Kind::Clock, 3723.0)]);
        // a ratio is no clock time
        assert_eq!(kinds("3:1")[0], (Kind::Num, 3.0));
        assert_eq!(kinds("2,5 s")[0], (Kind::Num, 2.5));
        assert_eq!(kinds(".5")[0], (Kind::Num, 0.5));
        // "[6,7]" and "1,2,3" are lists, not decimal commas
        assert_eq!(kinds("[6,7]").iter().filter(|k| k.0 == Kind::Num).count(), 2);
        assert_eq!(kinds("1,2,3").iter().filter(|k| k.0 == Kind::Num).count(), 3);
    }

    #[test]
    fn a_time_is_placed_by_its_cue_and_made_a_duration_by_its_words() {
        let item = |text: &str| {
            let mut toks = Vec::new();
            lex(text, &mut toks);
            let r = Reader::new(text, &toks);
            let i = toks.iter().position(|t| matches!(t.kind, Kind::Num | Kind::Clock)).unwrap();
            let it = r.item(i).unwrap();
            (it.placed, it.duration, it.b.is_some())
        };
        assert_eq!(item("at 3 s"), (true, false, false));
        assert_eq!(item("at about 3 s"), (true, false, false));
        assert_eq!(item("around 3 s"), (true, false, false));
        assert_eq!(item("of around 3 s"), (false, true, false));
        assert_eq!(item("at least 3 s"), (false, true, false));
        assert_eq!(item("the 3-second mark"), (true, false, false));
        assert_eq!(item("a 3-second pause"), (false, true, false));
        assert_eq!(item("3 s long"), (false, true, false));
        assert_eq!(item("from 2 to 5 s"), (true, false, true));
        assert_eq!(item("between 2 and 5 s"), (true, false, true));
        // without "between", "and" joins a list, not a range
        assert_eq!(item("at 2 and 5 s"), (true, false, false));
        assert_eq!(item("lasting 2–5 s"), (false, true, true));
        assert_eq!(item("t = 3 s"), (true, false, false));
    }

    #[test]
    fn the_name_is_sought_in_a_bounded_window_of_the_same_sentence() {
        let far = format!("A pause, {} at 3 s.", "and then some more words ".repeat(3));
        assert!(read(&far).is_empty());
        assert_eq!(read("A pause, then at 3 s."), vec![("pause", 3.0, 3.0, true)]);
        assert!(read("A pause. At 3 s the talker laughs.").is_empty());
        assert!(read("At 3 s the talker laughs; then a pause.").is_empty());
    }

    #[test]
    fn spans_cover_the_name_and_the_time_in_characters() {
        let text = "Ü: both speakers talk from 2.1 to 5.4 s.";
        let c = &parse_intervals(text, None)[0];
        let chars: String = text.chars().skip(c.char_start as usize).take((c.char_end - c.char_start) as usize).collect();
        assert_eq!(chars, "both speakers talk from 2.1 to 5.4 s");
        assert_eq!(&text[c.label.0 as usize..c.label.1 as usize], "both speakers");
        assert_eq!((c.char_start, c.byte_start), (3, 4));
    }

    #[test]
    fn real_outputs_that_are_and_are_not_claims() {
        // a restated range in parentheses takes the unit of the time before it
        assert_eq!(
            read("The first pause lasts approximately 1.8 seconds (from 0.11 to 1.91)."),
            vec![("pause", 0.11, 1.91, false)]
        );
        // a subtitle cue is transcript, its words no names
        assert!(read("1 00:00:00,000 --> 00:00:03,920 knowing this being silent one\n2 00:00:03,920 --> 00:00:06,800 full of noise").is_empty());
        assert_eq!(kinds("00:00:03,920"), vec![(Kind::Clock, 3.92)]);
        // a clock time inside a value is no place in time; one that opens a line is
        assert!(read("\"pauses\": \"2\", \"paseq\": \"1:49\"").is_empty());
        assert_eq!(read("00:03 door slam"), vec![("noise", 3.0, 3.0, true)]);
        assert_eq!(read("- [00:03] door slam"), vec![("noise", 3.0, 3.0, true)]);
        // a unit of another measure stops a list's unit from reaching back
        assert!(read("Noise at 2, 40 % and 5 s.").iter().all(|c| c.1 != 40.0));
        assert!(read("The pause at 2 s; the F0 of the noise from 120 to 180 Hz").iter().all(|c| c.1 < 10.0));
    }

    #[test]
    fn answers_to_a_request_for_intervals_in_seconds() {
        let p = |s, e| ("pause", s, e, false);
        let o = |s, e| ("overlap", s, e, false);
        assert_eq!(read("Pauses (s): 1.2–1.5, 3.4–3.9"), vec![p(1.2, 1.5), p(3.4, 3.9)]);
        assert_eq!(read("Overlap in seconds: 2–3, 6–7."), vec![o(2.0, 3.0), o(6.0, 7.0)]);
        assert_eq!(read("Pauses: [(0.5, 0.8), (4.2, 4.6)]"), vec![p(0.5, 0.8), p(4.2, 4.6)]);
        assert_eq!(read("Overlapped speech: [[1.2, 3.4], [5.0, 6.1]]"), vec![o(1.2, 3.4), o(5.0, 6.1)]);
        assert_eq!(
            read("Pauses: at 1.2 s (0.3 s), at 3.4 s (0.5 s)."),
            vec![("pause", 1.2, 1.2, true), ("pause", 3.4, 3.4, true)]
        );
        assert_eq!(
            read("Overlapped speech: 1.2 to 3.4 seconds and 5.0 to 6.1 seconds\nPauses: 0.5-0.8 s\nNon-speech noise: none"),
            vec![o(1.2, 3.4), o(5.0, 6.1), p(0.5, 0.8)]
        );
        // numbers far from the name, or a bare pair, are not read as intervals
        assert!(read("The pause count is 3 and the scores are [[1, 2]]").is_empty());
        assert_eq!(read("Overlap: [2.1, 5.4]"), vec![o(2.1, 5.4)]);
        assert_eq!(read("{\"overlap\": [2.1, 5.4]}"), vec![o(2.1, 5.4)]);
        // a list of times is a list of points
        assert_eq!(
            read("{\"pause_times\": [1.2, 3.4]}"),
            vec![("pause", 1.2, 1.2, true), ("pause", 3.4, 3.4, true)]
        );
        assert!(read("{\"pauses\": [1.2, 3.4, 5.0]}").is_empty());
        assert_eq!(read("{\"overlap_intervals\": [[2.1, 5.4], [6, 7]]}"), vec![o(2.1, 5.4), o(6.0, 7.0)]);
        assert_eq!(read("{\"type\": \"overlap\", \"intervals\": [\"2.1-5.4 s\", [6, 7]]}"), vec![o(2.1, 5.4), o(6.0, 7.0)]);
    }

    #[test]
    fn number_words_with_a_time_unit() {
        assert_eq!(read("A pause at three seconds."), vec![("pause", 3.0, 3.0, true)]);
        assert_eq!(read("Both speakers talk from two to five seconds."), vec![("overlap", 2.0, 5.0, false)]);
        assert!(read("A two-second pause.").is_empty());
        assert!(read("At 3 s, one of the speakers pauses for two seconds.").iter().all(|c| c.1 == 3.0));
        assert!(read("There is one pause.").is_empty());
    }

    #[test]
    fn bullets_under_markdown_and_bold_headings() {
        assert_eq!(read("### Pauses\n- 1.2–1.5 s\n- 3.4–3.9 s").len(), 2);
        assert_eq!(read("**Overlapping speech**\n* 2–3 s").len(), 1);
        assert!(read("Some text about pauses\n- 1.2–1.5 s").is_empty());
    }

    #[test]
    fn the_first_seconds_run_from_the_start() {
        assert_eq!(read("Silence for the first 2 seconds."), vec![("pause", 0.0, 2.0, false)]);
        assert_eq!(read("In the first 1.5 s both speakers talk."), vec![("overlap", 0.0, 1.5, false)]);
        assert!(read("The first 2 pauses are short.").is_empty());
    }

    #[test]
    fn batch_equals_one_by_one() {
        let base = ["Overlap from 2 to 5 s.", "No times here.", "Pauses at 1.2 s, 3.4 s and 12 s."];
        let texts: Vec<&str> = (0..1000).map(|i| base[i % 3]).collect();
        let clips: Vec<Option<f64>> = (0..1000).map(|i| if i % 2 == 0 { Some(10.0) } else { None }).collect();
        let a = parse_intervals_batch(&texts, Some(&clips), 1);
        let b = parse_intervals_batch(&texts, Some(&clips), 0);
        assert_eq!(a, b);
        let mut n = 0;
        for (i, t) in texts.iter().enumerate() {
            for c in parse_intervals(t, clips[i]) {
                assert_eq!((a.text_index[n], a.start_s[n], a.outside_clip[n]), (i as i64, c.start_s, c.outside_clip));
                n += 1;
            }
        }
        assert_eq!(n, a.len());
        assert_eq!(n, 334 + 333 * 3);
        // the 12-s pause lies outside a 10-s clip, and is flagged only where the clip is known
        assert!(a.outside_clip.iter().any(|&x| x) && a.outside_clip.iter().any(|&x| !x));
    }
}

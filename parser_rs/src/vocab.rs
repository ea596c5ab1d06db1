//! The words the parser knows: quantity names and their spellings, units, hedges, range and bound
//! words, number words, and the words that name *other* things (sample rate, RT60, LUFS, ...).
//!
//! Every word is lower-cased (ASCII) before lookup; camelCase and snake_case keys are split by the
//! lexer ("F0Mean" → "f0 mean", "pause_rate" → "pause rate"). Multi-word phrases are matched
//! longest-first over word tokens; inside a phrase hyphens and underscores are skipped, "/" reads
//! as "per" and "%" as "percent" ("syllables/s" = "syllables per s").

use crate::claim::{registry, Quantity};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// What a label phrase names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelAtom {
    /// A quantity named outright.
    Q(Quantity),
    /// Fundamental frequency / pitch, mean or s.d. still open ("F0", "pitch").
    F0,
    /// "mean", "average": makes an F0 label the F0 mean.
    Mean,
    /// "SD", "standard deviation", "σ": makes an F0 label the F0 s.d.
    Sd,
    /// A jitter/shimmer variant other than local (RAP, PPQ5, APQ, absolute): not our quantity.
    Variant,
    /// Something else with a number (sample rate, RT60, C50, loudness, MOS, ...).
    Distractor,
    /// "duration", "length", "lasts": the recording's duration, unless the sentence is about pauses.
    Duration,
}

/// A unit as written after a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Db,
    Hz,
    KHz,
    Percent,
    SyllPerSec,
    SyllPerMin,
    Wpm,
    WordsPerSec,
    Pauses,
    PausesPerMin,
    PausesPerSec,
    PerMin,
    PerSec,
    Seconds,
    Ms,
    Minutes,
    /// A unit of something that is not one of our quantities (LUFS, dBFS, kbps, bits, meters, years,
    /// speakers, words, ...): the number is not a claim.
    Other,
}

impl UnitKind {
    pub fn is_time(self) -> bool {
        matches!(self, UnitKind::Seconds | UnitKind::Ms | UnitKind::Minutes)
    }
}

/// Number words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumWord {
    /// zero … nineteen
    Small(u8),
    /// twenty … ninety
    Tens(u8),
    Hundred,
    Thousand,
    Point,
    /// "a"/"an" (only as "a hundred", "a dozen")
    A,
    /// "single" (as in "a single pause")
    Single,
    Dozen,
}

pub mod role {
    pub const FILLER: u64 = 1 << 0; // may stand between a label and a bare number ("is", "of", "the", ...)
    pub const HEDGE: u64 = 1 << 1; // "about", "approximately"
    pub const BOUND_LO: u64 = 1 << 2; // "above", "at least"
    pub const BOUND_HI: u64 = 1 << 3; // "below", "up to"
    pub const BETWEEN: u64 = 1 << 4;
    pub const FROM: u64 = 1 << 5;
    pub const RANGE_TO: u64 = 1 << 6; // "to", "through"
    pub const AND: u64 = 1 << 7;
    pub const OR: u64 = 1 << 8;
    pub const GENERIC: u64 = 1 << 9; // "typical", "usually", "for example": not about this recording
    pub const SLOT: u64 = 1 << 10; // refusals and unfilled slots: "N/A", "unknown", "cannot", "X"
    pub const NEGATOR: u64 = 1 << 11; // "no", "without", "not"
    pub const NEG_ADJ: u64 = 1 << 12; // "noticeable" in "no noticeable pauses"
    pub const NEG_BLOCK: u64 = 1 << 13; // "long" in "no long pauses": not a zero count
    pub const IDENT: u64 = 1 << 14; // "speaker" in "speaker 2": the number is an identifier
    pub const COUNTED: u64 = 1 << 15; // "speakers" in "2 speakers": a count of something else
    pub const COPULA: u64 = 1 << 16; // "is", "are", "was"
    pub const CONJ: u64 = 1 << 17; // "and", "but", "while", "with"
    pub const DUR_NOUN: u64 = 1 << 18; // "clip", "recording" in "a 10-second clip"
    pub const PAUSE_NOUN: u64 = 1 << 19; // "pause(s)", "silence(s)"
    pub const TIME_PREP: u64 = 1 << 20; // "at 2.5 s", "from 1.2 to 3.4 s": timestamps
    pub const LONG: u64 = 1 << 21; // "10 seconds long", "in length"
    pub const NONE_WORD: u64 = 1 << 22; // "none"
    pub const SCORE: u64 = 1 << 23; // "out of", "on a scale"
    pub const ABBREV: u64 = 1 << 24; // "approx." — the full stop does not end the sentence
    pub const NO_PAUSES: u64 = 1 << 25; // "pause-free"
    pub const PLUS_MINUS: u64 = 1 << 26; // "plus or minus"
    pub const REC_NOUN: u64 = 1 << 27; // a noun for the recording / the voice (allowed in a gap)
    pub const SPEECH_CUE: u64 = 1 << 28; // "says", "transcript": what follows in quotes is transcript content
    pub const SPEECH_VERB: u64 = 1 << 29; // "said": counts named by their unit nearby are transcript content
    pub const DET: u64 = 1 << 30; // "the", "its": a new subject after a comma
    pub const RELATIVE: u64 = 1 << 31; // "which", "that": a relative clause, not a new subject
    // SPEC §1 "What counts as a claim", rule 2: the worked example reproduced with its framing
    pub const EXAMPLE_FRAME: u64 = 1 << 32; // "here is an example of the required answer for a different recording"
    pub const THIS_REC: u64 = 1 << 33; // "for the recording you just heard", "for this recording": the example is over
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Entry {
    pub roles: u64,
    pub label: Option<LabelAtom>,
    pub unit: Option<UnitKind>,
    pub num: Option<NumWord>,
    /// Set by the vocabulary for an entry that is at most a filler: no label, unit or number, and
    /// no role the parser acts on beyond counting it as a gap word (see `Machine::on_word`).
    pub plain: bool,
    /// Set by the vocabulary for an entry `Machine::on_word` acts on before the cue words: a pause
    /// or recording noun, a number word, a negator, "pause-free", "none", a label, a unit, a slot.
    pub early: bool,
}

impl Entry {
    #[inline]
    pub fn has(&self, r: u64) -> bool {
        self.roles & r != 0
    }
}

pub struct Vocab {
    words: FxHashMap<Box<[u8]>, u16>,
    /// trie node of each word on its own (index = word id; 0 = none): the first step without a hash
    first: Vec<u32>,
    /// whether each trie node has children (index = node)
    kids: Vec<bool>,
    /// whether each word id is a phrase's second or later word (index = word id)
    continues: Vec<bool>,
    /// open-addressing table of the trie's edges below the root: (`edge_key(node, word)`, child); key 0 = empty
    edge_slots: Vec<(u64, u32)>,
    /// open-addressing word table over [`WordKey`] hashes: each slot holds the hash's top 16 bits
    /// and the word id (0 = empty), so a probe reads 4 bytes and an unknown word almost always stops
    /// at the first slot
    tags: Vec<(u16, u16)>,
    tag_shift: u32,
    /// open-addressing table of the words of at most eight bytes (most of a text's words), keyed by
    /// the word's first eight bytes alone: one probe gives the id and the word's trie node
    short: Vec<ShortSlot>,
    /// the first 16 bytes of each word id (index = id), as in its key (words hold no zero byte,
    /// so these and the tail tell the word's length)
    keys: Vec<[u64; 2]>,
    /// the bytes of each word id past its first 16 (words of 17–32 bytes)
    tails: Vec<Box<[u8]>>,
    /// trie over word ids: (node, word) → child
    edges: FxHashMap<(u32, u16), u32>,
    nodes: Vec<Option<Entry>>,
    pub per_id: u16,
    pub percent_id: u16,
    pub max_phrase_words: usize,
    alias_phrases: Vec<(String, LabelAtom)>,
}

pub const MAX_WORD_BYTES: usize = 32;

/// A slot of [`Vocab`]'s table of short words: the word's bytes as a little-endian u64, zero padded
/// (0 = an empty slot: no word is empty), its id and its trie node on its own.
#[derive(Clone, Copy, Debug, Default)]
struct ShortSlot {
    w0: u64,
    node: u32,
    id: u16,
}

/// Slot of a short word's key in a table of `mask + 1` slots.
#[inline(always)]
fn short_slot(w0: u64, mask: usize) -> usize {
    (w0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
}

/// A lower-cased word packed for lookup: its first 16 bytes as two little-endian u64 (zero
/// padded) and its length. The lexer builds it from two loads of the text (ASCII words are
/// lower-cased by or-ing 0x20 into every byte, which leaves digits and apostrophes as they are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WordKey {
    pub w0: u64,
    pub w1: u64,
    pub len: usize,
}

/// The key of the trie edge from `node` (≥ 1) by `word`: never 0.
#[inline(always)]
fn edge_key(node: u32, word: u16) -> u64 {
    ((node as u64) << 16) | word as u64
}

#[inline(always)]
fn edge_hash(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}

impl WordKey {
    #[inline(always)]
    pub fn new(w0: u64, w1: u64, len: usize) -> Self {
        WordKey { w0, w1, len }
    }

    /// The key of a lower-cased word (its bytes past the 16th are its tail).
    #[inline]
    pub fn of(lower: &[u8]) -> Self {
        let mut head = [0u8; 16];
        let m = lower.len().min(16);
        head[..m].copy_from_slice(&lower[..m]);
        WordKey::new(
            u64::from_le_bytes(head[..8].try_into().unwrap()),
            u64::from_le_bytes(head[8..].try_into().unwrap()),
            lower.len(),
        )
    }

    #[inline(always)]
    fn hash(&self) -> u64 {
        let x = self.w0 ^ self.w1.rotate_left(23) ^ ((self.len as u64) << 58);
        let x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^ (x >> 29)
    }
}

impl Vocab {
    /// A vocabulary with no words (filled by `build`; finished as it is, the lexer's view of an alias).
    fn empty() -> Vocab {
        Vocab {
            words: FxHashMap::default(),
            first: Vec::new(),
            kids: Vec::new(),
            continues: Vec::new(),
            edge_slots: Vec::new(),
            tags: Vec::new(),
            tag_shift: 0,
            short: vec![ShortSlot::default()],
            keys: Vec::new(),
            tails: Vec::new(),
            edges: FxHashMap::default(),
            nodes: vec![None],
            per_id: 0,
            percent_id: 0,
            max_phrase_words: 0,
            alias_phrases: Vec::new(),
        }
    }

    /// The id of a lower-cased word (0 = not in the vocabulary).
    #[inline]
    pub fn word_id(&self, lower: &[u8]) -> u16 {
        if lower.is_empty() || lower.len() > MAX_WORD_BYTES {
            return 0;
        }
        self.lookup(WordKey::of(lower), &lower[lower.len().min(16)..])
    }

    /// The id of the word whose key is `key` and whose bytes past the 16th are `tail`.
    #[inline(always)]
    pub fn lookup(&self, key: WordKey, tail: &[u8]) -> u16 {
        let h = key.hash();
        let tag = (h >> 48) as u16;
        let mask = self.tags.len() - 1;
        let mut k = (h >> self.tag_shift) as usize & mask;
        loop {
            let (t, id) = self.tags[k];
            if id == 0 {
                return 0;
            }
            if t == tag && self.keys[id as usize] == [key.w0, key.w1] && (key.len <= 16 || *self.tails[id as usize] == *tail) {
                return id;
            }
            k = (k + 1) & mask;
        }
    }

    /// The id and the trie node on its own of the word of at most eight bytes whose lower-cased
    /// bytes, zero padded, are `w0` as a little-endian u64 ((0, 0) for a word the vocabulary does
    /// not know).
    #[inline(always)]
    pub fn lookup_short(&self, w0: u64) -> (u16, u32) {
        let mask = self.short.len() - 1;
        let mut k = short_slot(w0, mask);
        loop {
            let s = self.short[k];
            if s.w0 == w0 {
                return (s.id, s.node);
            }
            if s.w0 == 0 {
                return (0, 0);
            }
            k = (k + 1) & mask;
        }
    }

    /// The trie node of word `id` on its own (0 = none).
    #[inline(always)]
    pub fn first_node(&self, id: u16) -> u32 {
        self.first.get(id as usize).copied().unwrap_or(0)
    }

    /// The child of trie node `node` by word `word`, if any: one probe of an open-addressing
    /// table keyed by (node, word).
    #[inline]
    pub fn child(&self, node: u32, word: u16) -> Option<u32> {
        if node == 0 {
            let c = self.first_node(word);
            return if c == 0 { None } else { Some(c) };
        }
        let key = edge_key(node, word);
        let mask = self.edge_slots.len() - 1;
        let mut k = edge_hash(key) & mask;
        loop {
            let (kk, child) = self.edge_slots[k];
            if kk == key {
                return Some(child);
            }
            if kk == 0 {
                return None;
            }
            k = (k + 1) & mask;
        }
    }

    /// Is word `word` the second or a later word of some phrase?
    #[inline]
    pub fn continues_phrases(&self, word: u16) -> bool {
        self.continues.get(word as usize).copied().unwrap_or(false)
    }

    /// Does trie node `node` have children?
    #[inline]
    pub fn has_kids(&self, node: u32) -> bool {
        self.kids[node as usize]
    }

    #[inline]
    pub fn entry(&self, node: u32) -> Option<&Entry> {
        self.nodes[node as usize].as_ref()
    }

    fn intern(&mut self, w: &str) -> u16 {
        if let Some(&id) = self.words.get(w.as_bytes()) {
            return id;
        }
        let id = u16::try_from(self.words.len() + 1).expect("vocabulary exceeds u16");
        self.words.insert(w.as_bytes().to_vec().into_boxed_slice(), id);
        id
    }

    fn add(&mut self, phrase: &str, e: Entry) {
        let mut node = 0u32;
        let mut n = 0;
        for w in phrase.split_whitespace() {
            let id = self.intern(w);
            n += 1;
            node = match self.edges.get(&(node, id)) {
                Some(&c) => c,
                None => {
                    let c = self.nodes.len() as u32;
                    self.nodes.push(None);
                    self.edges.insert((node, id), c);
                    c
                }
            };
        }
        self.max_phrase_words = self.max_phrase_words.max(n);
        let slot = &mut self.nodes[node as usize];
        match slot {
            None => *slot = Some(e),
            Some(old) => {
                old.roles |= e.roles;
                if e.label.is_some() {
                    old.label = e.label;
                }
                if e.unit.is_some() {
                    old.unit = e.unit;
                }
                if e.num.is_some() {
                    old.num = e.num;
                }
            }
        }
    }

    fn roles(&mut self, words: &[&str], r: u64) {
        for w in words {
            self.add(w, Entry { roles: r, ..Default::default() });
        }
    }

    fn labels(&mut self, words: &[&str], a: LabelAtom) {
        for w in words {
            self.add(w, Entry { label: Some(a), ..Default::default() });
        }
    }

    /// A registry alias as the lexer splits it into words (camelCase, "_", "-" and spaces part
    /// words; "/" reads "per", "%" "percent"): the phrase a text must contain.
    fn alias(&mut self, alias: &str, a: LabelAtom) {
        let phrase = alias_phrase(alias);
        self.add(&phrase, Entry { label: Some(a), ..Default::default() });
        self.alias_phrases.push((phrase, a));
    }

    /// The quantity-name phrases the vocabulary holds, as built from the registry's aliases
    /// (phrase, what it names): the parser has no other.
    pub fn alias_phrases(&self) -> &[(String, LabelAtom)] {
        &self.alias_phrases
    }

    fn units(&mut self, words: &[&str], u: UnitKind) {
        for w in words {
            self.add(w, Entry { unit: Some(u), ..Default::default() });
        }
    }
}

/// The words of a registry alias as the lexer reads them from a text: each word token lower-cased,
/// "/" as "per", "%" as "percent", hyphens, underscores and other joining marks dropped. An alias
/// with anything else in it (a number, a full stop) could never be matched: that is a registry
/// error, reported with the alias.
pub fn alias_phrase(alias: &str) -> String {
    use crate::lexer::{lex, p, Kind};
    static EMPTY: OnceLock<Vocab> = OnceLock::new();
    let empty = EMPTY.get_or_init(|| {
        let mut v = Vocab::empty();
        v.finish();
        v
    });
    let mut toks = Vec::new();
    lex(alias, empty, &mut toks);
    let mut words: Vec<String> = Vec::new();
    for t in &toks {
        let raw = &alias[t.start as usize..t.end as usize];
        match t.kind {
            Kind::Word => words.push(raw.chars().filter(|c| !matches!(c, '_' | '{' | '}')).flat_map(char::to_lowercase).collect()),
            Kind::Punct if t.id == p::SLASH => words.push("per".into()),
            Kind::Punct if t.id == p::PERCENT => words.push("percent".into()),
            Kind::Punct if matches!(t.id, p::HYPHEN | p::UNDERSCORE | p::STAR | p::DOLLAR | p::BACKSLASH | p::LBRACE | p::RBRACE) => {}
            _ => panic!("registry alias {alias:?} holds {raw:?}, which a name cannot be matched across"),
        }
    }
    assert!(!words.is_empty(), "registry alias {alias:?} has no word");
    words.join(" ")
}

pub fn vocab() -> &'static Vocab {
    static V: OnceLock<Vocab> = OnceLock::new();
    V.get_or_init(build)
}

fn build() -> Vocab {
    use role::*;
    use LabelAtom::*;
    use Quantity as Qy;
    let mut v = Vocab::empty();
    v.per_id = v.intern("per");
    v.percent_id = v.intern("percent");

    // ---- quantity names: the registry's aliases, nothing else (SPEC §1, "What counts as a claim") --
    for q in Qy::ALL {
        let atom = match q {
            Qy::Duration => Duration,
            _ => Q(q),
        };
        for alias in registry::ALIASES[q as usize] {
            v.alias(alias, atom);
        }
    }
    for w in registry::PITCH_NAMES {
        v.alias(w, F0);
    }
    for w in registry::PITCH_MEAN_WORDS {
        v.alias(w, Mean);
    }
    for w in registry::PITCH_SPREAD_WORDS {
        v.alias(w, Sd);
    }
    v.labels(
        &["rap", "ppq", "ppq5", "ddp", "apq", "apq3", "apq5", "apq11", "dda", "absolute", "abs", "absolute jitter"],
        Variant,
    );

    // ---- things that are not our quantities --------------------------------------------------
    v.labels(
        &[
            "sample rate", "sampling rate", "sample frequency", "sampling frequency", "samplerate", "sampled at",
            "sample rates", "sampling rates", "bit depth", "bitdepth", "bit rate", "bitrate", "bits per sample",
            "channels", "channel count", "number of channels", "rt60", "rt 60", "t60", "t30", "t20", "edt",
            "reverberation time", "reverb time", "reverberation", "reverb", "reverberation level", "decay time", "c50",
            "c80", "d50", "clarity", "clarity index", "drr", "direct to reverberant ratio", "direct to reverberation ratio",
            "sdr", "si sdr", "sisdr", "si snr", "sisnr", "segmental snr", "seg snr", "segsnr",
            "signal to interference ratio", "signal to distortion ratio", "pesq", "stoi", "estoi", "mos", "dnsmos",
            "nisqa", "polqa", "visqol", "mean opinion score", "quality score", "quality rating", "overall quality", "loudness",
            "integrated loudness", "loudness range", "lufs", "lra", "true peak", "peak", "peak level", "peaks", "dbfs",
            "rms", "rms level", "volume", "gain", "noise level", "noise floor", "signal level", "speech level estimation",
            "background noise level", "dynamic range", "crest factor", "thd", "total harmonic distortion", "distortion",
            "frequency range", "frequency response", "bandwidth", "cutoff", "cut off", "low pass", "high pass", "lowpass",
            "highpass", "roll off", "rolloff", "spectral centroid", "spectral rolloff", "spectral roll off",
            "spectral flatness", "spectral tilt", "formant", "formants", "f1", "f2", "f3", "f4", "pitch range",
            "f0 range", "frequency", "hum", "latency", "delay", "intelligibility", "age", "wer", "cer", "accuracy",
            "confidence", "nhr", "noise to harmonics ratio", "energy", "speech level", "speech dynamics",
            "pause duration", "pause durations", "duration of pauses", "duration of the pauses", "duration of each pause",
            "pause length", "pause lengths", "length of pauses", "length of the pauses", "silence duration",
            "speech duration", "reverberation duration", "phonation time", "phonation duration", "syllable duration",
            "utterance duration", "sentence duration", "word duration", "average pause duration",
            "mean pause duration", "total pause duration", "average pause length", "mean pause length", "codec",
            "snr improvement", "sti", "speech transmission index", "nasality", "tokens", "sentence number",
            "range of pitch", "pitch variation range", "vocal range", "frequency band",
        ],
        Distractor,
    );

    // ---- units (after a number; a unit phrase where a label stands is a unit hint or a label) --
    v.units(&["db", "decibel", "decibels", "dbs"], UnitKind::Db);
    v.units(&["hz", "hertz", "cps"], UnitKind::Hz);
    v.units(&["khz", "kilohertz", "k hz"], UnitKind::KHz);
    v.units(&["percent", "per cent", "pct", "percentage", "percentage points", "percents"], UnitKind::Percent);
    v.units(
        &[
            "syllables per second", "syllables per sec", "syllables per s", "syllable per second", "syllable per s",
            "syllables a second", "syllables each second", "syl per s", "syl per sec", "syl per second", "syll per s",
            "syll per sec", "syll per second", "syls per s", "syllables per seconds", "syllables per secs",
            "syllables per sec.", "syllables second", "syllable per sec",
        ],
        UnitKind::SyllPerSec,
    );
    v.units(
        &["syllables per minute", "syllables per min", "syl per min", "syll per min", "syllable per minute"],
        UnitKind::SyllPerMin,
    );
    v.units(
        &["words per minute", "word per minute", "words per min", "wpm", "words a minute", "words per minutes"],
        UnitKind::Wpm,
    );
    v.units(&["words per second", "words per s", "words per sec", "word per second"], UnitKind::WordsPerSec);
    v.units(
        &["pauses", "pause", "silent pauses", "silences", "silent intervals", "pause events", "distinct pauses"],
        UnitKind::Pauses,
    );
    v.units(
        &[
            "pauses per minute", "pause per minute", "pauses per min", "pause per min", "pauses a minute",
            "pauses each minute", "pauses every minute", "pausing per min", "pausing per minute", "pauses per minutes",
            "pausing per minutes",
        ],
        UnitKind::PausesPerMin,
    );
    v.units(
        &[
            "pauses per second", "pause per second", "pauses per s", "pauses per sec", "pausing per s",
            "pausing per second", "pause per s", "pausing per sec",
        ],
        UnitKind::PausesPerSec,
    );
    v.units(
        &["per minute", "per min", "a minute", "each minute", "every minute", "per minutes", "per mins", "minute 1"],
        UnitKind::PerMin,
    );
    v.units(&["per second", "per sec", "per s", "per secs"], UnitKind::PerSec);
    v.units(&["s", "sec", "secs", "second", "seconds"], UnitKind::Seconds);
    v.units(&["ms", "msec", "millisecond", "milliseconds"], UnitKind::Ms);
    v.units(&["min", "mins", "minute", "minutes"], UnitKind::Minutes);
    v.units(
        &[
            "dbfs", "db fs", "db spl", "dba", "db a", "dbc", "db lufs", "db hl", "dbv", "dbu", "lufs", "lkfs", "lu",
            "kbps", "kb per s", "kbit per s", "mbps", "bits", "bit", "channels", "channel", "meters", "meter", "metres",
            "m", "cm", "mm", "years", "year", "yrs", "words", "word", "syllables", "syllable", "times", "x", "samples",
            "frames", "sentences", "sentence", "speakers", "speaker", "voices", "people", "persons", "hours", "hour",
            "days", "points", "stars", "bpm", "mb", "kb", "gb", "segments", "tracks", "dollars", "degrees", "us", "µs",
            "microseconds", "semitones", "semitone", "st", "cents", "octaves", "men", "women", "students", "steps",
            "items", "utterances", "talkers", "pm", "am", "o'clock", "khz sampling", "khz sample rate",
            "db of dynamic range", "mph", "kg", "lbs", "watts",
        ],
        UnitKind::Other,
    );

    // ---- function words -------------------------------------------------------------------------
    v.roles(
        &[
            "is", "are", "was", "were", "be", "been", "being", "of", "at", "the", "a", "an", "in", "this", "that", "its",
            "it", "for", "value", "values", "estimated", "estimate", "estimation", "measured", "measurement", "calculated",
            "computed", "reads", "reading", "equals", "equal", "to", "recording", "recordings", "audio", "clip", "signal",
            "speech", "voice", "speaker's", "appears", "seems", "appear", "seem", "overall", "local", "total",
            "current", "given", "stated", "reported", "detected", "observed", "found", "here", "ratio", "result",
            "results", "figure", "number", "count", "score", "rating", "level", "levels", "has", "have", "shows", "showing", "exhibits", "sits", "stands",
            "registers", "comes", "on", "set", "very", "quite", "fairly", "relatively", "extremely", "only", "just",
            "measures", "measure", "came", "out", "as", "approx", "estimates", "speaker", "talker", "sample",
            "metric", "rate", "mean", "average", "there", "contains", "contain", "has", "had", "recorded", "exactly",
            "precisely", "slightly", "lower", "higher", "low", "high", "moderate", "moderately", "likely", "probably",
            "possibly", "somewhere", "range", "ranges", "ranging", "averages", "averaging", "with", "and", "clip's",
            "recording's", "audio's", "signal's", "voice's", "sample's", "file", "utterance", "would", "could", "say",
            "i", "we", "calculate", "estimated at", "per", "db", "hz", "percent", "dev",
        ],
        FILLER,
    );
    v.roles(
        &[
            "recording", "recordings", "audio", "clip", "signal", "speech", "voice", "speaker", "talker", "sample",
            "file", "utterance", "speaker's", "clip's", "recording's", "audio's", "signal's", "voice's", "sample's",
            "excerpt", "mixture", "snippet", "track",
        ],
        REC_NOUN,
    );
    v.roles(
        &[
            "recording", "clip", "audio", "file", "excerpt", "sample", "snippet", "track", "mixture", "recordings",
            "clips", "audio clip", "sound file", "soundbite", "passage",
        ],
        DUR_NOUN,
    );
    v.roles(
        &[
            "about", "around", "approximately", "approx", "roughly", "nearly", "almost", "circa", "ca", "close to",
            "on the order of", "in the region of", "or so", "some", "approximate", "approximated", "around about",
            "in the vicinity of", "somewhere around", "in the range of", "ish",
        ],
        HEDGE,
    );
    v.roles(
        &[
            "above", "over", "more than", "greater than", "higher than", "at least", "exceeding", "exceeds",
            "in excess of", "upwards of", "beyond", "no less than", "not less than", "minimum of", "a minimum of",
        ],
        BOUND_LO,
    );
    v.roles(
        &[
            "below", "under", "less than", "lower than", "at most", "up to", "no more than", "not more than",
            "fewer than", "maximum of", "a maximum of", "beneath", "not exceeding", "smaller than",
        ],
        BOUND_HI,
    );
    v.roles(&["between", "ranging between", "ranges between", "range between"], BETWEEN);
    v.roles(&["from", "ranging from", "ranges from", "range from", "ranged from"], FROM);
    v.roles(&["to", "through", "thru"], RANGE_TO);
    v.roles(&["and"], AND);
    v.roles(&["or"], OR);
    v.roles(
        &[
            "typical", "typically", "usually", "normally", "generally", "commonly", "ideal", "ideally", "recommended",
            "for example", "for instance", "eg", "such as", "compared to", "compared with", "norm", "norms",
            "expected for", "standard for", "typical for", "normal range", "normal ranges", "reference range",
        ],
        GENERIC,
    );
    v.roles(
        &[
            "cannot", "can't", "cant", "unable", "not available", "not provided", "not specified", "not measurable",
            "not measured", "not determinable", "not determined", "not applicable", "not possible", "impossible",
            "insufficient", "unavailable", "undetermined", "indeterminate", "unknown", "not given", "not reported",
            "not calculable", "not computable", "n per a", "na", "nan", "null", "tbd", "x", "xx", "xxx", "n", "nn",
            "not detected", "not detectable", "not discernible", "not clear", "unclear", "not estimable",
            "cannot be determined", "placeholder", "insert", "not enough", "none provided", "not possible to determine",
            "hard to determine", "difficult to determine", "unmeasurable", "no data", "missing",
        ],
        SLOT,
    );
    v.roles(
        &[
            "no", "without", "not", "never", "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't",
            "hasn't", "haven't", "lacks", "lacking", "free of", "devoid of", "absence of", "zero", "nor", "neither",
            "without any", "no evidence of",
        ],
        NEGATOR,
    );
    v.roles(
        &[
            "any", "noticeable", "discernible", "audible", "apparent", "perceptible", "detectable", "significant",
            "clear", "obvious", "notable", "distinct", "real", "silent", "evident", "observable", "identifiable",
            "measurable", "marked", "discrete", "intentional", "deliberate", "noticeable silent", "appreciable",
            "perceivable", "definite", "actual", "true", "such",
        ],
        NEG_ADJ,
    );
    v.roles(
        &[
            "long", "longer", "lengthy", "extended", "unnatural", "awkward", "unusual", "excessive", "prolonged", "many",
            "much", "frequent", "more", "fewer", "few", "other", "less", "additional", "further", "short", "large",
            "big", "major", "unnecessary", "abrupt", "sudden", "noticeably",
        ],
        NEG_BLOCK,
    );
    v.roles(
        &[
            "speaker", "talker", "sentence", "segment", "track", "channel", "step", "part", "item", "line", "chapter",
            "section", "version", "table", "figure", "fig", "number", "rank", "take", "round", "trial", "question",
            "rung", "prompt", "page", "class", "type", "stage", "option", "mixture", "utterance", "person", "tier",
            "layer", "window", "frame", "turn", "row", "episode", "room", "model", "system", "test", "example",
            "sentences", "speakers", "scenario", "case", "subject", "participant", "file", "clip", "sample", "voice",
            "pause", "grade", "category", "group", "phase", "level", "mode",
        ],
        IDENT,
    );
    v.roles(
        &[
            "speakers", "voices", "people", "persons", "men", "women", "segments", "sentences", "words", "syllables",
            "times", "years", "frames", "samples", "channels", "bits", "tracks", "utterances", "items", "points",
            "parts", "steps", "hours", "days", "dollars", "students", "talkers", "phrases", "clauses", "seconds",
            "miles", "dogs", "languages", "o'clock", "sentence", "word", "syllable", "speaker", "voice", "person",
            "minutes",
        ],
        COUNTED,
    );
    v.roles(
        &[
            "is", "are", "was", "were", "be", "being", "been", "measures", "measured", "reads", "equals", "stands", "sits",
            "comes", "lies", "registers", "shows", "has", "had", "of", "indicates", "reaches", "hovers", "averages",
        ],
        COPULA,
    );
    v.roles(&["and", "but", "while", "whereas", "with", "plus", "also", "alongside", "however"], CONJ);
    v.roles(&["pause", "pauses", "paused", "pausing", "silence", "silences", "break", "breaks", "gap", "gaps"], PAUSE_NOUN);
    v.roles(
        &[
            "at", "from", "until", "till", "by", "after", "before", "starting", "ending", "begins", "ends", "begin",
            "end", "starts", "start", "since", "onset", "offset", "marks", "mark", "timestamp", "timestamps", "time",
            "at around", "at about", "at approximately", "starting at", "ending at", "occurs at", "occur at",
            "ends at", "begins at", "beginning", "between the",
        ],
        TIME_PREP,
    );
    v.roles(&["long", "in length", "in duration", "in total length"], LONG);
    v.roles(&["none", "nil", "none detected", "none observed", "none noted"], NONE_WORD);
    v.roles(&["out of", "on a scale", "on a scale of", "per 5", "per 10"], SCORE);
    v.roles(
        &[
            "approx", "e", "i", "vs", "ca", "est", "avg", "no", "mr", "mrs", "dr", "st", "fig", "std", "dev", "cf",
            "resp", "eg", "ie", "approximately", "min", "sec", "syl", "syll", "freq", "num", "av",
        ],
        ABBREV,
    );
    v.roles(&["pause free", "pausefree", "pauseless", "without pausing", "no pausing"], NO_PAUSES);
    v.roles(&["plus or minus", "plus minus", "give or take"], PLUS_MINUS);
    v.roles(
        &[
            "says", "said", "say", "saying", "utters", "uttered", "transcript", "transcription", "transcribed",
            "transcribed as", "content", "speech content", "spoken content", "text", "sentence", "words", "reads as",
            "quote", "quoted", "utterance", "phrase", "spoken", "line",
        ],
        SPEECH_CUE,
    );
    v.roles(&["says", "said", "saying", "utters", "uttered", "tells", "told", "counted", "counts"], SPEECH_VERB);
    v.roles(&["the", "its", "a", "an", "this", "their", "his", "her", "our", "that"], DET);
    v.roles(&["which", "who", "that", "where", "whose"], RELATIVE);
    v.roles(
        &[
            "here is an example", "here's an example", "here is example", "here is the example", "example of the required answer",
            "example of a required answer", "example of the answer", "example answer",
            "for a different recording", "for another recording", "a different recording",
            "example from the prompt", "example from prompt", "prompt's example", "example recording",
            "in the example", "worked example",
        ],
        EXAMPLE_FRAME,
    );
    v.roles(
        &[
            "recording you just heard", "recording i just heard", "audio you just heard", "clip you just heard",
            "for this recording", "for this audio", "for this clip", "for the provided recording", "for the given recording",
            "for the recording you just heard", "for the present recording", "for the current recording", "this clip", "this audio",
        ],
        THIS_REC,
    );


    // ---- number words ---------------------------------------------------------------------------
    const SMALL: [&str; 20] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ];
    for (i, w) in SMALL.iter().enumerate() {
        v.add(w, Entry { num: Some(NumWord::Small(i as u8)), ..Default::default() });
    }
    const TENS: [&str; 8] = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
    for (i, w) in TENS.iter().enumerate() {
        v.add(w, Entry { num: Some(NumWord::Tens((i as u8 + 2) * 10)), ..Default::default() });
    }
    v.add("hundred", Entry { num: Some(NumWord::Hundred), ..Default::default() });
    v.add("thousand", Entry { num: Some(NumWord::Thousand), ..Default::default() });
    v.add("point", Entry { num: Some(NumWord::Point), ..Default::default() });
    v.add("a", Entry { num: Some(NumWord::A), ..Default::default() });
    v.add("an", Entry { num: Some(NumWord::A), ..Default::default() });
    v.add("single", Entry { num: Some(NumWord::Single), ..Default::default() });
    v.add("dozen", Entry { num: Some(NumWord::Dozen), ..Default::default() });
    v.finish();
    v
}

impl Vocab {
    fn finish(&mut self) {
        // the roles `Machine::on_word` acts on beyond counting a gap word
        let acting = !role::FILLER;
        for e in self.nodes.iter_mut().flatten() {
            e.plain = e.roles & acting == 0 && e.label.is_none() && e.unit.is_none() && e.num.is_none();
            let early_roles = role::PAUSE_NOUN | role::REC_NOUN | role::NEGATOR | role::NO_PAUSES | role::NONE_WORD | role::SLOT;
            e.early = e.roles & early_roles != 0 || e.label.is_some() || e.unit.is_some() || e.num.is_some();
        }
        self.first = vec![0u32; self.words.len() + 2];
        let mut all: Vec<(u32, u16, u32)> = self.edges.iter().map(|(&(n, w), &c)| (n, w, c)).collect();
        all.sort_unstable();
        self.kids = vec![false; self.nodes.len()];
        self.continues = vec![false; self.words.len() + 2];
        let below_root = all.iter().filter(|e| e.0 != 0).count();
        let esize = (below_root * 2).next_power_of_two().max(2);
        self.edge_slots = vec![(0, 0); esize];
        for &(node, word, child) in &all {
            self.kids[node as usize] = true;
            if node != 0 {
                self.continues[word as usize] = true;
            }
            if node == 0 {
                self.first[word as usize] = child;
                continue;
            }
            let key = edge_key(node, word);
            let mut k = edge_hash(key) & (esize - 1);
            while self.edge_slots[k].0 != 0 {
                k = (k + 1) & (esize - 1);
            }
            self.edge_slots[k] = (key, child);
        }
        let size = (self.words.len() * 2).next_power_of_two();
        self.tags = vec![(0, 0); size];
        self.tag_shift = 20;
        assert!(size <= 1 << 20, "word table too large for its hash bits");
        self.keys = vec![[0u64; 2]; self.words.len() + 1];
        self.tails = vec![Box::default(); self.words.len() + 1];
        for (w, &id) in self.words.iter() {
            assert!(!w.is_empty() && w.len() <= MAX_WORD_BYTES, "vocabulary word {:?} of {} bytes", w, w.len());
            let key = WordKey::of(w);
            self.keys[id as usize] = [key.w0, key.w1];
            self.tails[id as usize] = w[w.len().min(16)..].to_vec().into_boxed_slice();
            let h = key.hash();
            let mut k = (h >> self.tag_shift) as usize & (size - 1);
            while self.tags[k].1 != 0 {
                k = (k + 1) & (size - 1);
            }
            self.tags[k] = ((h >> 48) as u16, id);
        }
        // the short words, at most half full
        let short_words: Vec<(u64, u16)> = self.words.iter().filter(|(w, _)| w.len() <= 8).map(|(w, &id)| (WordKey::of(w).w0, id)).collect();
        let size = (short_words.len() * 2).next_power_of_two().max(1);
        self.short = vec![ShortSlot::default(); size];
        for (w0, id) in short_words {
            let mut k = short_slot(w0, size - 1);
            while self.short[k].w0 != 0 {
                k = (k + 1) & (size - 1);
            }
            self.short[k] = ShortSlot { w0, node: self.first[id as usize], id };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_have_ids_and_phrases_resolve() {
        let v = vocab();
        let snr = v.word_id(b"snr");
        assert_ne!(snr, 0);
        let node = v.child(0, snr).unwrap();
        assert_eq!(v.entry(node).unwrap().label, Some(LabelAtom::Q(Quantity::Snr)));
        // "pauses" is a label, a unit and a pause noun at once
        let p = v.child(0, v.word_id(b"pauses")).unwrap();
        let e = v.entry(p).unwrap();
        assert_eq!(e.label, Some(LabelAtom::Q(Quantity::PauseCount)));
        assert_eq!(e.unit, Some(UnitKind::Pauses));
        assert!(e.has(role::PAUSE_NOUN));
        assert_eq!(v.word_id(b"notaword"), 0);
    }
}

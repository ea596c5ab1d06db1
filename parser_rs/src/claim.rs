//! What a claim is: one quantity of the registry (`acousticlaim/quantities.py`), its value in the
//! canonical unit, where it sits in the text, and how it was stated.

/// The 13 quantities, in the order of `acousticlaim.quantities.ALL_KEYS` (a Python test checks
/// that the two lists agree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Quantity {
    Snr = 0,
    Srmr = 1,
    SpeakingRate = 2,
    PauseCount = 3,
    PauseRate = 4,
    F0Mean = 5,
    F0Sd = 6,
    Jitter = 7,
    Shimmer = 8,
    Hnr = 9,
    OverlapRatio = 10,
    ArticulationRate = 11,
    Duration = 12,
}

/// The registry (`acousticlaim/quantities.py`), read at build time by `build.rs`: keys in order,
/// canonical units, aliases, pitch names.
pub mod registry {
    include!(concat!(env!("OUT_DIR"), "/registry.rs"));
}

/// The quantity keys, in code order: the registry's (`Quantity` below is checked against them).
pub const QUANTITY_KEYS: [&str; 13] = registry::KEYS;

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// Each quantity's canonical unit as the registry names it, looked up in [`UNIT_NAMES`] at compile
/// time: a registry unit the parser has no code for stops the build.
const CANONICAL_UNITS: [ValueUnit; 13] = {
    let mut out = [ValueUnit::Db; 13];
    let mut q = 0;
    while q < 13 {
        let mut u = 0;
        let mut found = false;
        while u < UNIT_NAMES.len() {
            if same(registry::UNITS[q], UNIT_NAMES[u]) {
                out[q] = ValueUnit::ALL[u];
                found = true;
            }
            u += 1;
        }
        assert!(found, "a canonical unit of the registry has no ValueUnit");
        q += 1;
    }
    out
};

// The enum's order is the registry's: each variant's key is checked at compile time.
const _: () = {
    let names = [
        "snr", "srmr", "speaking_rate", "pause_count", "pause_rate", "f0_mean", "f0_sd", "jitter", "shimmer", "hnr",
        "overlap_ratio", "articulation_rate", "duration",
    ];
    let mut k = 0;
    while k < 13 {
        assert!(same(registry::KEYS[Quantity::ALL[k] as usize], names[k]), "Quantity enum out of the registry's order");
        k += 1;
    }
};

impl Quantity {
    pub const ALL: [Quantity; 13] = [
        Quantity::Snr,
        Quantity::Srmr,
        Quantity::SpeakingRate,
        Quantity::PauseCount,
        Quantity::PauseRate,
        Quantity::F0Mean,
        Quantity::F0Sd,
        Quantity::Jitter,
        Quantity::Shimmer,
        Quantity::Hnr,
        Quantity::OverlapRatio,
        Quantity::ArticulationRate,
        Quantity::Duration,
    ];

    pub fn key(self) -> &'static str {
        QUANTITY_KEYS[self as usize]
    }

    /// The unit a claim of this quantity is converted to (the registry's canonical unit).
    pub fn canonical_unit(self) -> ValueUnit {
        CANONICAL_UNITS[self as usize]
    }
}

/// The unit a claim's `value` is expressed in. It is the quantity's canonical unit, except for
/// shimmer stated in dB, which is kept in dB (and is not scored as percent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ValueUnit {
    Db = 0,
    Ratio = 1,
    SyllablesPerSecond = 2,
    Count = 3,
    PausesPerMinute = 4,
    Hz = 5,
    Percent = 6,
    Fraction = 7,
    Seconds = 8,
}

/// Names as in `acousticlaim/quantities.py` (`Quantity.unit`).
pub const UNIT_NAMES: [&str; 9] = ["dB", "ratio", "syllables/s", "count", "pauses/min", "Hz", "%", "fraction", "s"];

impl ValueUnit {
    pub const ALL: [ValueUnit; 9] = [
        ValueUnit::Db,
        ValueUnit::Ratio,
        ValueUnit::SyllablesPerSecond,
        ValueUnit::Count,
        ValueUnit::PausesPerMinute,
        ValueUnit::Hz,
        ValueUnit::Percent,
        ValueUnit::Fraction,
        ValueUnit::Seconds,
    ];

    pub fn name(self) -> &'static str {
        UNIT_NAMES[self as usize]
    }
}

/// One numeric claim read from a text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Claim {
    pub quantity: Quantity,
    /// The stated value in `unit` (a range states its midpoint, "±" its central value).
    pub value: f64,
    pub unit: ValueUnit,
    /// Byte span of the unit as written (`None` when the value carried no unit of its own; a unit
    /// named in the label, as in "Jitter (%): 0.5", is reported here too).
    pub unit_text: Option<(u32, u32)>,
    /// Byte span of the value expression (number(s) and unit, or "no pauses").
    pub byte_start: u32,
    pub byte_end: u32,
    /// The same span in characters (Python `str` indices); filled by [`crate::parse`].
    pub char_start: u32,
    pub char_end: u32,
    /// Hedged ("about", "~", "approximately", "±").
    pub approx: bool,
    /// Stated as a range ("10–15 dB", "between 3 and 5").
    pub is_range: bool,
    /// An inequality: +1 "above / at least / >", -1 "below / at most / <", 0 none. The value is the bound.
    pub bound: i8,
}

/// Claim slots: one per quantity plus one for shimmer in dB, so a text states each at most once
/// (a quantity stated twice keeps the last value).
pub const N_SLOTS: usize = 14;
pub const SHIMMER_DB_SLOT: usize = 13;

impl Claim {
    pub fn slot(&self) -> usize {
        if self.quantity == Quantity::Shimmer && self.unit == ValueUnit::Db {
            SHIMMER_DB_SLOT
        } else {
            self.quantity as usize
        }
    }
}

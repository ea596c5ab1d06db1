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

pub const QUANTITY_KEYS: [&str; 13] = [
    "snr",
    "srmr",
    "speaking_rate",
    "pause_count",
    "pause_rate",
    "f0_mean",
    "f0_sd",
    "jitter",
    "shimmer",
    "hnr",
    "overlap_ratio",
    "articulation_rate",
    "duration",
];

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
        match self {
            Quantity::Snr | Quantity::Hnr => ValueUnit::Db,
            Quantity::Srmr => ValueUnit::Ratio,
            Quantity::SpeakingRate | Quantity::ArticulationRate => ValueUnit::SyllablesPerSecond,
            Quantity::PauseCount => ValueUnit::Count,
            Quantity::PauseRate => ValueUnit::PausesPerMinute,
            Quantity::F0Mean | Quantity::F0Sd => ValueUnit::Hz,
            Quantity::Jitter | Quantity::Shimmer => ValueUnit::Percent,
            Quantity::OverlapRatio => ValueUnit::Fraction,
            Quantity::Duration => ValueUnit::Seconds,
        }
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

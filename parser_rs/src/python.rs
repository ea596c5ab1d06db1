//! PyO3 glue: `acousticlaim._parser`. The Python wrapper is `acousticlaim/claims/parser.py`.
//!
//! * Strings that cannot be encoded as UTF-8 (unpaired surrogates) are read with each surrogate
//!   replaced by U+FFFD, which keeps character offsets equal to Python's.
//! * The batch calls release the GIL while parsing; they hold strong references to the input
//!   strings (or Arrow buffers) for that time.
//! * A panic inside the parser becomes a `RuntimeError` (not a crash, not a `PanicException`).

use crate::batch::{parse_batch_parts, unify_unit_texts, Columns, Utf8Bytes};
use crate::{parse, Options, QUANTITY_KEYS, UNIT_NAMES};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Version of the parser crate, so Python can record which parser read a claim.
#[pyfunction]
fn parser_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The quantity keys in code order (code = index).
#[pyfunction]
fn quantity_keys() -> Vec<&'static str> {
    QUANTITY_KEYS.to_vec()
}

/// Each quantity's canonical unit name, in code order (from the registry at build time).
#[pyfunction]
fn canonical_units() -> Vec<&'static str> {
    crate::Quantity::ALL.iter().map(|q| q.canonical_unit().name()).collect()
}

/// The quantity-name phrases of the parser's vocabulary with what each names (a quantity key,
/// "pitch", "pitch_mean_word" or "pitch_spread_word"): all built from the registry's aliases.
#[pyfunction]
fn alias_phrases() -> Vec<(String, &'static str)> {
    use crate::vocab::LabelAtom;
    crate::vocab::vocab()
        .alias_phrases()
        .iter()
        .map(|(p, a)| {
            let name = match a {
                LabelAtom::Q(q) => q.key(),
                LabelAtom::Duration => "duration",
                LabelAtom::F0 => "pitch",
                LabelAtom::Mean => "pitch_mean_word",
                LabelAtom::Sd => "pitch_spread_word",
                LabelAtom::Variant | LabelAtom::Distractor => "other",
            };
            (p.clone(), name)
        })
        .collect()
}

/// A registry alias as the words a text must contain (see `vocab::alias_phrase`).
#[pyfunction]
fn alias_phrase(alias: &str) -> PyResult<String> {
    guard("alias_phrase", || crate::vocab::alias_phrase(alias))
}

/// The names of the units a value can be in (code = index).
#[pyfunction]
fn unit_names() -> Vec<&'static str> {
    UNIT_NAMES.to_vec()
}

fn text_of<'py>(s: &'py Bound<'py, PyString>) -> Cow<'py, str> {
    match s.to_str() {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => Cow::Owned(replace_surrogates(s)),
    }
}

/// A Python string that is not valid Unicode (unpaired surrogates), with each surrogate code point
/// replaced by U+FFFD, so that character offsets stay Python's.
fn replace_surrogates(s: &Bound<'_, PyString>) -> String {
    let utf32 = s
        .call_method1("encode", ("utf-32-le", "surrogatepass"))
        .ok()
        .and_then(|b| b.downcast_into::<PyBytes>().ok());
    match utf32 {
        Some(b) => b
            .as_bytes()
            .chunks_exact(4)
            .map(|c| char::from_u32(u32::from_le_bytes([c[0], c[1], c[2], c[3]])).unwrap_or('\u{fffd}'))
            .collect(),
        None => s.to_string_lossy().into_owned(),
    }
}

fn guard<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        PyRuntimeError::new_err(format!("claim parser failed in {what}: {msg}"))
    })
}

/// Parse one text: a list of tuples
/// (quantity_code, value, unit_code, unit_text|None, start, end, byte_start, byte_end, approx, is_range, bound).
#[pyfunction]
#[pyo3(signature = (text, truncated=false))]
#[allow(clippy::type_complexity)]
fn parse_one(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    truncated: bool,
) -> PyResult<Vec<(u8, f64, u8, Option<String>, u32, u32, u32, u32, bool, bool, i8)>> {
    let t = text_of(text);
    let t: &str = &t;
    let claims = py.allow_threads(|| guard("parse", || parse(t, &Options { truncated })))?;
    Ok(claims
        .iter()
        .map(|c| {
            let ut = c.unit_text.and_then(|(s, e)| t.get(s as usize..e as usize)).map(|s| s.to_string());
            (
                c.quantity as u8,
                c.value,
                c.unit as u8,
                ut,
                c.char_start,
                c.char_end,
                c.byte_start,
                c.byte_end,
                c.approx,
                c.is_range,
                c.bound,
            )
        })
        .collect())
}

/// The bytes of a slice of plain numbers.
fn raw_bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: T is a plain number type (u8, i8, i32, u32, i64, f64); its bytes are its native
    // representation, which numpy reads back with the matching dtype.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// One column of all parts, copied straight into a new `bytes` object.
fn joined<'py, T: Copy>(py: Python<'py>, parts: &[Columns], col: impl Fn(&Columns) -> &[T]) -> PyResult<Bound<'py, PyBytes>> {
    let total: usize = parts.iter().map(|p| std::mem::size_of_val(col(p))).sum();
    PyBytes::new_with(py, total, |buf| {
        let mut at = 0;
        for p in parts {
            let b = raw_bytes(col(p));
            buf[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        }
        Ok(())
    })
}

/// The parts of a batch as a dict of raw little-endian buffers (see parser.py), each column
/// written once, straight from the parts.
fn parts_to_dict<'py>(py: Python<'py>, parts: &[Columns]) -> PyResult<Bound<'py, PyDict>> {
    let (cats, remaps) = unify_unit_texts(parts);
    let d = PyDict::new(py);
    d.set_item("text_index", joined(py, parts, |c| &c.text_index)?)?;
    d.set_item("quantity", joined(py, parts, |c| &c.quantity)?)?;
    d.set_item("value", joined(py, parts, |c| &c.value)?)?;
    d.set_item("unit", joined(py, parts, |c| &c.unit)?)?;
    let n: usize = parts.iter().map(|p| p.len()).sum();
    let unit_text = PyBytes::new_with(py, n * 4, |buf| {
        let mut at = 0;
        for (p, remap) in parts.iter().zip(&remaps) {
            for &c in &p.unit_text {
                let code = if c < 0 { c } else { remap[c as usize] };
                buf[at..at + 4].copy_from_slice(&code.to_ne_bytes());
                at += 4;
            }
        }
        Ok(())
    })?;
    d.set_item("unit_text", unit_text)?;
    d.set_item("start", joined(py, parts, |c| &c.start)?)?;
    d.set_item("end", joined(py, parts, |c| &c.end)?)?;
    d.set_item("byte_start", joined(py, parts, |c| &c.byte_start)?)?;
    d.set_item("byte_end", joined(py, parts, |c| &c.byte_end)?)?;
    d.set_item("approx", joined(py, parts, |c| &c.approx)?)?;
    d.set_item("is_range", joined(py, parts, |c| &c.is_range)?)?;
    d.set_item("bound", joined(py, parts, |c| &c.bound)?)?;
    d.set_item("n_claims", joined(py, parts, |c| &c.n_claims)?)?;
    d.set_item("unit_text_categories", PyList::new(py, &cats)?)?;
    Ok(d)
}

fn mask_of(truncated: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Option<Vec<bool>>> {
    let Some(t) = truncated else { return Ok(None) };
    if t.is_none() {
        return Ok(None);
    }
    let m: Vec<bool> = t.extract()?;
    if m.len() != n {
        return Err(PyValueError::new_err(format!("truncated has {} entries for {} texts", m.len(), n)));
    }
    Ok(Some(m))
}

/// Parse a sequence of `str` into columns (a dict of raw little-endian buffers, see parser.py).
#[pyfunction]
#[pyo3(signature = (texts, truncated=None, threads=0))]
fn parse_many<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    truncated: Option<&Bound<'py, PyAny>>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let n = texts.len()?;
    let mut strings: Vec<Bound<'py, PyString>> = Vec::with_capacity(n);
    for (k, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        match item.downcast_into::<PyString>() {
            Ok(s) => strings.push(s),
            Err(e) => {
                return Err(PyTypeError::new_err(format!(
                    "text {k} is a {}, not a str",
                    e.into_inner().get_type().name()?
                )))
            }
        }
    }
    let views: Vec<Cow<'_, str>> = strings.iter().map(text_of).collect();
    let mask = mask_of(truncated, views.len())?;
    let parts = py.allow_threads(|| guard("parse_many", || parse_batch_parts(&views, mask.as_deref(), threads)))?;
    drop(views);
    parts_to_dict(py, &parts)
}

/// One chunk of an Arrow string array: addresses and sizes (bytes) of its offsets, data and
/// validity buffers (validity address 0 when absent), its offset and its length.
type ArrowChunk = (usize, usize, usize, usize, usize, usize, usize, usize);

/// Parse the chunks of an Arrow string (or large_string, `large`) array in one batch, zero-copy.
/// The wrapper passes `pyarrow.Buffer.address`/`.size` and keeps the array alive in `keepalive`.
/// Null entries parse as empty texts. Text indices run over the chunks in order.
#[pyfunction]
#[pyo3(signature = (chunks, large, keepalive, truncated=None, threads=0))]
fn parse_arrow<'py>(
    py: Python<'py>,
    chunks: Vec<ArrowChunk>,
    large: bool,
    keepalive: &Bound<'py, PyAny>,
    truncated: Option<&Bound<'py, PyAny>>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let _keep = keepalive.clone();
    let width = if large { 8 } else { 4 };
    let total: usize = chunks.iter().map(|c| c.7).sum();
    let mut views: Vec<Utf8Bytes<'_>> = Vec::with_capacity(total);
    for (ci, &(offsets_addr, offsets_size, data_addr, data_size, validity_addr, validity_size, offset, length)) in
        chunks.iter().enumerate()
    {
        if offsets_addr == 0 || offsets_size < (offset + length + 1) * width {
            return Err(PyValueError::new_err(format!(
                "chunk {ci}: offsets buffer holds {offsets_size} bytes, need {}",
                (offset + length + 1) * width
            )));
        }
        if validity_addr != 0 && validity_size * 8 < offset + length {
            return Err(PyValueError::new_err(format!("chunk {ci}: validity bitmap shorter than the array")));
        }
        // SAFETY: the addresses and sizes come from pyarrow buffers of the array held in
        // `keepalive` for the whole call; Arrow buffers are immutable and aligned (to 8 or more).
        let data: &[u8] = if data_size == 0 {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(data_addr as *const u8, data_size) }
        };
        let valid: Option<&[u8]> = if validity_addr != 0 {
            Some(unsafe { std::slice::from_raw_parts(validity_addr as *const u8, validity_size) })
        } else {
            None
        };
        let off = |j: usize| -> i64 {
            if large {
                let s = unsafe { std::slice::from_raw_parts(offsets_addr as *const i64, offsets_size / 8) };
                s[j]
            } else {
                let s = unsafe { std::slice::from_raw_parts(offsets_addr as *const i32, offsets_size / 4) };
                s[j] as i64
            }
        };
        for k in 0..length {
            let j = offset + k;
            if valid.map_or(false, |m| (m[j / 8] >> (j % 8)) & 1 == 0) {
                views.push(Utf8Bytes(b""));
                continue;
            }
            let (s, e) = (off(j), off(j + 1));
            if s < 0 || e < s || e as usize > data.len() {
                return Err(PyValueError::new_err(format!(
                    "chunk {ci}, string {k}: offsets {s}..{e} outside the data buffer"
                )));
            }
            let raw = &data[s as usize..e as usize];
            // checked as UTF-8 (invalid sequences replaced) by the worker that parses it
            views.push(Utf8Bytes(raw));
        }
    }
    let mask = mask_of(truncated, total)?;
    let parts = py.allow_threads(|| guard("parse_arrow", || parse_batch_parts(&views, mask.as_deref(), threads)))?;
    drop(views);
    parts_to_dict(py, &parts)
}

/// Panics on purpose (tests check that a panic becomes a Python exception).
#[pyfunction]
fn _panic_for_test(msg: &str) -> PyResult<()> {
    guard("_panic_for_test", || panic!("{}", msg.to_string()))
}

#[pymodule]
fn _parser(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parser_version, m)?)?;
    m.add_function(wrap_pyfunction!(quantity_keys, m)?)?;
    m.add_function(wrap_pyfunction!(unit_names, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_units, m)?)?;
    m.add_function(wrap_pyfunction!(alias_phrases, m)?)?;
    m.add_function(wrap_pyfunction!(alias_phrase, m)?)?;
    m.add_function(wrap_pyfunction!(parse_one, m)?)?;
    m.add_function(wrap_pyfunction!(parse_many, m)?)?;
    m.add_function(wrap_pyfunction!(parse_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}

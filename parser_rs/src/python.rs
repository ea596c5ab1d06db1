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
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyList, PyString};
use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr};
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
    bytes_written_by(py, total, |out| {
        for p in parts {
            out.put(raw_bytes(col(p)));
        }
    })
}

/// Appends to the buffer of a new `bytes` object, never past its end.
struct BytesWriter {
    buf: *mut u8,
    len: usize,
    at: usize,
}

impl BytesWriter {
    fn put(&mut self, b: &[u8]) {
        assert!(b.len() <= self.len - self.at, "a column written past its size");
        // SAFETY: `buf` holds `len` bytes (see `bytes_written_by`) and `at + b.len() <= len`; the
        // source is another allocation.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), self.buf.add(self.at), b.len()) };
        self.at += b.len();
    }
}

/// A new `bytes` of `len` bytes written by `fill` in order. Unlike `PyBytes::new_with` the buffer is
/// not zeroed first: a batch's columns are tens of megabytes, and writing them twice (zeros, then
/// the values) is a tenth of the time the batch takes. Bytes `fill` leaves unwritten are zeroed.
fn bytes_written_by<'py>(py: Python<'py>, len: usize, fill: impl FnOnce(&mut BytesWriter)) -> PyResult<Bound<'py, PyBytes>> {
    let size = pyo3::ffi::Py_ssize_t::try_from(len).map_err(|_| PyValueError::new_err(format!("a column of {len} bytes")))?;
    // SAFETY: `PyBytes_FromStringAndSize(NULL, n)` returns a new bytes object with a buffer of `n`
    // bytes (or NULL with an exception set, which becomes the error); nothing else sees the object
    // until it is returned, by which time every byte of its buffer has been written.
    unsafe {
        let obj = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), size);
        let bytes = Bound::from_owned_ptr_or_err(py, obj)?.downcast_into_unchecked::<PyBytes>();
        let mut out = BytesWriter { buf: pyo3::ffi::PyBytes_AsString(obj).cast::<u8>(), len, at: 0 };
        fill(&mut out);
        std::ptr::write_bytes(out.buf.add(out.at), 0, len - out.at);
        Ok(bytes)
    }
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
    let unit_text = bytes_written_by(py, n * 4, |out| {
        for (p, remap) in parts.iter().zip(&remaps) {
            let codes: Vec<i32> = p.unit_text.iter().map(|&c| if c < 0 { c } else { remap[c as usize] }).collect();
            out.put(raw_bytes(&codes));
        }
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

/// A text that is not there: `None`, a float NaN (a pandas Series of texts with gaps) or pandas' NA.
/// It states nothing (it is read as an empty text).
fn is_missing(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    if item.is_none() {
        return Ok(true);
    }
    if let Ok(f) = item.downcast::<pyo3::types::PyFloat>() {
        return Ok(f.value().is_nan());
    }
    if item.get_type().name()? != "NAType" {
        return Ok(false);
    }
    // pandas' NA itself (its type's module moves between pandas versions); pandas is imported if
    // one of its values is here
    let modules = item.py().import("sys")?.getattr("modules")?;
    Ok(match modules.get_item("pandas") {
        Ok(pandas) => item.is(&pandas.getattr("NA")?),
        Err(_) => false,
    })
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
                let item = e.into_inner();
                if !is_missing(&item)? {
                    return Err(PyTypeError::new_err(format!("text {k} is a {}, not a str", item.get_type().name()?)));
                }
                strings.push(PyString::new(py, ""));
            }
        }
    }
    let views: Vec<Cow<'_, str>> = strings.iter().map(text_of).collect();
    let mask = mask_of(truncated, views.len())?;
    let parts = py.allow_threads(|| guard("parse_many", || parse_batch_parts(&views, mask.as_deref(), threads)))?;
    drop(views);
    parts_to_dict(py, &parts)
}

// ------------------------------------------------------------------ Arrow C data interface

/// `struct ArrowSchema` of the Arrow C data interface (the layout is the interface's ABI).
#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray` of the Arrow C data interface.
#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

/// The struct a PyCapsule of the Arrow PyCapsule interface holds, after checking that the object
/// is a capsule with exactly that name and a live (not yet released) struct. Anything else is a
/// `TypeError`/`ValueError`, never a dereference: a capsule can only be made in C, so a Python
/// caller cannot hand over an arbitrary address.
fn arrow_struct<'a, T>(obj: &'a Bound<'_, PyAny>, want: &CStr, what: &str) -> PyResult<&'a T> {
    let capsule = obj.downcast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected a PyCapsule named {:?} (from __arrow_c_array__), got a {}",
            want,
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    if capsule.name()? != Some(want) {
        return Err(PyTypeError::new_err(format!("{what}: the capsule is not named {:?}", want)));
    }
    let ptr = capsule.pointer() as *const T;
    if ptr.is_null() {
        return Err(PyValueError::new_err(format!("{what}: the capsule holds no pointer")));
    }
    // SAFETY: a capsule named "arrow_schema"/"arrow_array" holds that struct (the interface's
    // contract); the capsule is kept alive by the caller for as long as the reference is used.
    Ok(unsafe { &*ptr })
}

/// One Arrow string array's texts as byte slices (null entries as empty texts), after checking the
/// schema's type and the array's layout.
fn arrow_texts<'a>(
    ci: usize,
    schema: &ArrowSchema,
    array: &'a ArrowArray,
    views: &mut Vec<Utf8Bytes<'a>>,
) -> PyResult<()> {
    if schema.release.is_none() || array.release.is_none() {
        return Err(PyValueError::new_err(format!("array {ci}: the Arrow schema or array was already released")));
    }
    if schema.format.is_null() {
        return Err(PyValueError::new_err(format!("array {ci}: the Arrow schema has no format")));
    }
    // SAFETY: a live schema's format is a NUL-terminated string (the interface's contract).
    let format = unsafe { CStr::from_ptr(schema.format) }.to_bytes();
    let large = match format {
        b"u" => false,
        b"U" => true,
        other => {
            return Err(PyTypeError::new_err(format!(
                "array {ci}: parse_batch() needs Arrow strings (format 'u' or 'U'), got format {:?}",
                String::from_utf8_lossy(other)
            )))
        }
    };
    if array.n_buffers != 3 || array.buffers.is_null() {
        return Err(PyValueError::new_err(format!(
            "array {ci}: a string array has 3 buffers, this one {}",
            array.n_buffers
        )));
    }
    if array.length < 0 || array.offset < 0 || array.null_count < -1 {
        return Err(PyValueError::new_err(format!(
            "array {ci}: negative length ({}), offset ({}) or null count ({})",
            array.length, array.offset, array.null_count
        )));
    }
    let (length, offset) = (array.length as usize, array.offset as usize);
    if length == 0 {
        return Ok(());
    }
    // SAFETY: `buffers` points to `n_buffers` (= 3) buffer pointers.
    let buffers = unsafe { std::slice::from_raw_parts(array.buffers, 3) };
    let (validity, offsets_ptr, data_ptr) = (buffers[0] as *const u8, buffers[1], buffers[2] as *const u8);
    if offsets_ptr.is_null() {
        return Err(PyValueError::new_err(format!("array {ci}: the offsets buffer is missing")));
    }
    if validity.is_null() && array.null_count > 0 {
        return Err(PyValueError::new_err(format!(
            "array {ci}: {} nulls but no validity bitmap",
            array.null_count
        )));
    }
    let n_offsets = offset + length + 1;
    // SAFETY: the offsets buffer of a valid string array holds offset + length + 1 entries.
    let offset_at: Box<dyn Fn(usize) -> i64 + 'a> = if large {
        let o = unsafe { std::slice::from_raw_parts(offsets_ptr as *const i64, n_offsets) };
        Box::new(move |j| o[j])
    } else {
        let o = unsafe { std::slice::from_raw_parts(offsets_ptr as *const i32, n_offsets) };
        Box::new(move |j| o[j] as i64)
    };
    let (first, last) = (offset_at(offset), offset_at(offset + length));
    if first < 0 || last < first {
        return Err(PyValueError::new_err(format!("array {ci}: offsets run from {first} to {last}")));
    }
    if last > 0 && data_ptr.is_null() {
        return Err(PyValueError::new_err(format!("array {ci}: the data buffer is missing")));
    }
    // SAFETY: the data buffer holds at least the bytes up to the last offset used.
    let data: &'a [u8] = if last == 0 { &[] } else { unsafe { std::slice::from_raw_parts(data_ptr, last as usize) } };
    let valid: Option<&'a [u8]> = if validity.is_null() {
        None
    } else {
        // SAFETY: the bitmap holds a bit for each of offset + length entries.
        Some(unsafe { std::slice::from_raw_parts(validity, (offset + length + 7) / 8) })
    };
    for k in 0..length {
        let j = offset + k;
        if valid.map_or(false, |m| (m[j / 8] >> (j % 8)) & 1 == 0) {
            views.push(Utf8Bytes(b""));
            continue;
        }
        let (s, e) = (offset_at(j), offset_at(j + 1));
        if s < first || e < s || e > last {
            return Err(PyValueError::new_err(format!(
                "array {ci}, string {k}: offsets {s}..{e} outside {first}..{last}"
            )));
        }
        // checked as UTF-8 (invalid sequences replaced) by the worker that parses it
        views.push(Utf8Bytes(&data[s as usize..e as usize]));
    }
    Ok(())
}

/// Parse Arrow string (or large_string) arrays in one batch, zero-copy, through the Arrow PyCapsule
/// interface: `arrays` is a list of `(schema_capsule, array_capsule)` pairs as `__arrow_c_array__()`
/// returns them. The capsules (and so the buffers) stay alive for the whole call. Null entries parse
/// as empty texts. Text indices run over the arrays in order.
#[pyfunction]
#[pyo3(signature = (arrays, truncated=None, threads=0))]
fn parse_arrow<'py>(
    py: Python<'py>,
    arrays: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    truncated: Option<&Bound<'py, PyAny>>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let mut views: Vec<Utf8Bytes<'_>> = Vec::new();
    for (ci, (schema, array)) in arrays.iter().enumerate() {
        let schema: &ArrowSchema = arrow_struct(schema, c"arrow_schema", &format!("array {ci} schema"))?;
        let array: &ArrowArray = arrow_struct(array, c"arrow_array", &format!("array {ci}"))?;
        arrow_texts(ci, schema, array, &mut views)?;
    }
    let mask = mask_of(truncated, views.len())?;
    let parts = py.allow_threads(|| guard("parse_arrow", || parse_batch_parts(&views, mask.as_deref(), threads)))?;
    drop(views);
    parts_to_dict(py, &parts)
}

/// The event types of the interval claims, in code order (from the registry at build time).
#[pyfunction]
fn event_types() -> Vec<&'static str> {
    crate::intervals::EVENT_TYPES.to_vec()
}

/// The event names of the interval parser's vocabulary (phrase, event type): all built from the
/// registry's event aliases.
#[pyfunction]
fn event_phrases() -> Vec<(String, &'static str)> {
    crate::intervals::event_phrases()
}

/// A registry event name as the words a text must contain.
#[pyfunction]
fn event_phrase(alias: &str) -> PyResult<String> {
    guard("event_phrase", || crate::intervals::event_phrase(alias))
}

/// The interval claims of one text: a list of tuples
/// (event, start_s, end_s, point, label, span_start, span_end, reversed, outside_clip).
#[pyfunction]
#[pyo3(signature = (text, clip_s=None))]
#[allow(clippy::type_complexity)]
fn parse_intervals_one(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    clip_s: Option<f64>,
) -> PyResult<Vec<(&'static str, f64, f64, bool, String, u32, u32, bool, bool)>> {
    let t = text_of(text);
    let t: &str = &t;
    let claims = py.allow_threads(|| guard("parse_intervals", || crate::intervals::parse_intervals(t, clip_s)))?;
    Ok(claims
        .iter()
        .map(|c| {
            (
                crate::intervals::EVENT_TYPES[c.event as usize],
                c.start_s,
                c.end_s,
                c.point,
                t[c.label.0 as usize..c.label.1 as usize].to_string(),
                c.char_start,
                c.char_end,
                c.reversed,
                c.outside_clip,
            )
        })
        .collect())
}

/// The interval claims of many texts as a dict of columns (lists), one row per claim; the event
/// as its code into `event_types()`.
#[pyfunction]
#[pyo3(signature = (texts, clip_s=None, threads=0))]
fn parse_intervals_many<'py>(
    py: Python<'py>,
    texts: Vec<Bound<'py, PyString>>,
    clip_s: Option<Vec<Option<f64>>>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(c) = &clip_s {
        if c.len() != texts.len() {
            return Err(PyValueError::new_err(format!("clip_s has {} entries for {} texts", c.len(), texts.len())));
        }
    }
    let views: Vec<Cow<'_, str>> = texts.iter().map(text_of).collect();
    let cols = py.allow_threads(|| {
        guard("parse_intervals_many", || crate::intervals::parse_intervals_batch(&views, clip_s.as_deref(), threads))
    })?;
    let d = PyDict::new(py);
    d.set_item("text_index", cols.text_index)?;
    d.set_item("event", cols.event)?;
    d.set_item("start_s", cols.start_s)?;
    d.set_item("end_s", cols.end_s)?;
    d.set_item("point", cols.point)?;
    d.set_item("label", cols.label)?;
    d.set_item("span_start", cols.span_start)?;
    d.set_item("span_end", cols.span_end)?;
    d.set_item("reversed", cols.reversed)?;
    d.set_item("outside_clip", cols.outside_clip)?;
    Ok(d)
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
    m.add_function(wrap_pyfunction!(event_types, m)?)?;
    m.add_function(wrap_pyfunction!(event_phrases, m)?)?;
    m.add_function(wrap_pyfunction!(event_phrase, m)?)?;
    m.add_function(wrap_pyfunction!(parse_intervals_one, m)?)?;
    m.add_function(wrap_pyfunction!(parse_intervals_many, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}

#![no_main]
//! Any bytes (read as UTF-8 with replacement) must parse without panicking, with spans inside
//! the text and finite values.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let truncated = data.first().map_or(false, |b| b & 1 == 1);
    for c in _parser::parse(&text, &_parser::Options { truncated }) {
        assert!(c.value.is_finite());
        assert!(c.byte_start <= c.byte_end && (c.byte_end as usize) <= text.len());
        assert!(c.char_start <= c.char_end);
    }
});

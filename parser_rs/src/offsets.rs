//! Byte offsets into a text as character offsets (Python `str` indices).

/// Each of `offsets` (byte offsets on character boundaries, in any order) turned into the number of
/// characters before it, in one pass over the text.
pub fn to_char_offsets(text: &str, offsets: &mut [u32]) {
    if text.is_ascii() {
        return;
    }
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_unstable_by_key(|&k| offsets[k]);
    let mut chars = 0u32;
    let mut bytes = text.char_indices().map(|(b, _)| b);
    let mut next = bytes.next();
    for k in order {
        let b = offsets[k] as usize;
        while next.is_some_and(|nb| nb < b) {
            chars += 1;
            next = bytes.next();
        }
        offsets[k] = chars;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_to_chars_in_any_order() {
        // a: byte 0, é: bytes 1-2, 𝄞: bytes 3-6, b: byte 7; the end is byte 8
        let mut o = [7, 0, 1, 3, 8, 3];
        super::to_char_offsets("aé𝄞b", &mut o);
        assert_eq!(o, [3, 0, 1, 2, 4, 2]);
        let mut o = [2, 5];
        super::to_char_offsets("ascii", &mut o);
        assert_eq!(o, [2, 5]);
    }
}

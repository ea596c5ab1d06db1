//! Debug helper: parse texts separated by the ASCII record separator (0x1E) from stdin and print
//! one line per claim: record index, quantity, value, unit, the value span as written, flags.
//! `cargo run --no-default-features --example parse_records < texts.rs`
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    for (k, text) in s.split('\u{1e}').enumerate() {
        let truncated = text.starts_with("\u{1f}");
        let text = text.trim_start_matches('\u{1f}');
        let claims = _parser::parse(text, &_parser::Options { truncated });
        for c in claims {
            let span = &text[c.byte_start as usize..c.byte_end as usize];
            println!(
                "{k}\t{}\t{}\t{}\t{:?}\t{}{}{}",
                c.quantity.key(),
                c.value,
                c.unit.name(),
                span,
                if c.approx { "~" } else { "" },
                if c.is_range { "R" } else { "" },
                match c.bound { 1 => ">", -1 => "<", _ => "" }
            );
        }
    }
}

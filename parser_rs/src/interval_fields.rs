//! Interval claims stated as fields: JSON objects with start/end (or time) fields and markdown
//! tables with start/end (or time) columns. A bare number there is in seconds (or in the unit the
//! key or header names: "start_ms", "Start (ms)"); a duration field ("duration", "length") is not
//! a place in time. The event is named by a type-like field ("type", "event", "label", …), by any
//! other cell or string of the row or object, or by the key the object or list sits under
//! (`{"pauses": [{"start": 1.2, "end": 1.5}]}`, `"overlap": [[2.1, 5.4]]`).

use crate::intervals::{Found, Span};

/// A field's role, read from its key or column header.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Start,
    End,
    /// a time or a range in one field ("time", "interval", "timestamp")
    Time,
    /// a list of times ("times", "timestamps")
    Times,
    /// names the event ("type", "event", "label")
    Name,
    /// a duration, a count, anything else
    Other,
}

/// The words of a key or header: camelCase, "_", "-" and spaces part words; lower-cased.
fn key_words(key: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c.is_alphabetic() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            cur.extend(c.to_lowercase());
            prev_lower = c.is_lowercase();
        } else {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The role of a field and the seconds per unit of its bare numbers.
fn role_of(key: &str) -> (Role, f64) {
    let w = key_words(key);
    let has = |xs: &[&str]| w.iter().any(|x| xs.contains(&x.as_str()));
    let unit = if has(&["ms", "msec", "millisecond", "milliseconds"]) {
        0.001
    } else if has(&["min", "mins", "minute", "minutes"]) {
        60.0
    } else {
        1.0
    };
    let role = if has(&["duration", "durations", "length", "dur", "lasting", "count", "number", "rate", "confidence", "score", "id", "index"]) {
        Role::Other
    } else if has(&["start", "starts", "onset", "begin", "beginning", "from", "starttime", "tstart"]) {
        Role::Start
    } else if has(&["end", "ends", "offset", "stop", "to", "until", "endtime", "tend"]) {
        Role::End
    } else if has(&["times", "timestamps", "intervals", "segments", "windows", "spans", "ranges", "regions", "periods"]) {
        Role::Times
    } else if has(&["time", "timestamp", "interval", "intervals", "at", "t", "when", "position", "range", "timing", "timespan"]) {
        Role::Time
    } else if has(&["type", "event", "events", "label", "kind", "category", "class", "name", "sound", "source", "what", "description", "desc"]) {
        Role::Name
    } else {
        Role::Other
    };
    (role, unit)
}

// ------------------------------------------------------------------ a lenient JSON reader

#[derive(Debug)]
enum J {
    Obj(Vec<(Span, J, Span)>),
    Arr(Vec<(J, Span)>),
    Num(f64),
    /// the span of the string's contents
    Str(Span),
    Lit,
}

struct JsonReader<'t> {
    b: &'t [u8],
    i: usize,
    depth: usize,
}

impl<'t> JsonReader<'t> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<Span> {
        let q = self.b[self.i];
        self.i += 1;
        let s = self.i;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'\n' => return None,
                c if c == q => {
                    let e = self.i;
                    self.i += 1;
                    return Some((s as u32, e as u32));
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn key(&mut self) -> Option<Span> {
        self.ws();
        match self.b.get(self.i)? {
            b'"' | b'\'' => self.string(),
            c if c.is_ascii_alphabetic() || *c == b'_' => {
                let s = self.i;
                while self.i < self.b.len() && (self.b[self.i].is_ascii_alphanumeric() || self.b[self.i] == b'_') {
                    self.i += 1;
                }
                Some((s as u32, self.i as u32))
            }
            _ => None,
        }
    }

    /// The members of an object or a list opened at `self.i`, up to `close`: each read by `member`
    /// (commas between them, a trailing one allowed).
    fn members(&mut self, close: u8, mut member: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.i += 1;
        self.depth += 1;
        loop {
            self.ws();
            match *self.b.get(self.i)? {
                c if c == close => {
                    self.i += 1;
                    break;
                }
                b',' => self.i += 1,
                _ => member(self)?,
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// A value and its span.
    fn value(&mut self) -> Option<(J, Span)> {
        self.ws();
        let s = self.i;
        let c = *self.b.get(self.i)?;
        let j = match c {
            b'{' | b'[' | b'(' if self.depth > 64 => return None,
            b'{' => {
                let mut fields = Vec::new();
                self.members(b'}', |r| {
                    let k = r.key()?;
                    r.ws();
                    if r.b.get(r.i)? != &b':' {
                        return None;
                    }
                    r.i += 1;
                    let (v, vs) = r.value()?;
                    fields.push((k, v, vs));
                    Some(())
                })?;
                J::Obj(fields)
            }
            // and a Python tuple inside a list: [(0.5, 0.8), (4.2, 4.6)]
            b'[' | b'(' if c == b'[' || self.depth > 0 => {
                let mut items = Vec::new();
                self.members(if c == b'[' { b']' } else { b')' }, |r| {
                    items.push(r.value()?);
                    Some(())
                })?;
                J::Arr(items)
            }
            b'"' | b'\'' => J::Str(self.string()?),
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                while self.i < self.b.len() && matches!(self.b[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.i += 1;
                }
                let raw = std::str::from_utf8(&self.b[s..self.i]).ok()?;
                J::Num(raw.parse().ok()?)
            }
            c if c.is_ascii_alphabetic() => {
                while self.i < self.b.len() && self.b[self.i].is_ascii_alphabetic() {
                    self.i += 1;
                }
                match &self.b[s..self.i] {
                    b"true" | b"false" | b"null" | b"True" | b"False" | b"None" | b"NaN" => J::Lit,
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some((j, (s as u32, self.i as u32)))
    }
}

/// What reads a time or a name inside a field: the prose reader's own (see `intervals.rs`).
pub trait FieldText {
    /// The first event named in `span` (event, the span of its words).
    fn name_in(&self, span: Span) -> Option<(u8, Span)>;
    /// The last event named before byte `at` on its line, if nothing but words lie between
    /// ("Overlap: [[2.1, 5.4]]").
    fn name_before(&self, at: u32) -> Option<(u8, Span)>;
    /// The time or range that is all of `span` (`unit`: seconds per bare number):
    /// (start, end if a range, the span of the time).
    fn time_in(&self, span: Span, unit: f64) -> Option<(f64, Option<f64>, Span)>;
    fn text(&self) -> &str;
}

/// A field's value as a time: a number (in the key's unit) or a string holding one.
fn time_of(f: &dyn FieldText, v: &J, vs: Span, unit: f64) -> Option<(f64, Option<f64>, Span)> {
    match v {
        J::Num(x) if x.is_finite() => Some((x * unit, None, vs)),
        J::Str(s) => f.time_in(*s, unit),
        J::Arr(items) if items.len() == 2 && items.iter().all(|(x, _)| matches!(x, J::Num(_) | J::Str(_))) => {
            let (a, None, _) = time_of(f, &items[0].0, items[0].1, unit)? else { return None };
            let (b, None, _) = time_of(f, &items[1].0, items[1].1, unit)? else { return None };
            Some((a, Some(b), vs))
        }
        _ => None,
    }
}

/// The JSON objects and arrays of a text that state intervals: their claims, and the spans of the
/// values read (so that the prose reader does not read them again).
pub fn json_intervals(f: &dyn FieldText, found: &mut Vec<Found>, regions: &mut Vec<Span>) {
    let text = f.text();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'{' && b[i] != b'[' {
            i += 1;
            continue;
        }
        let mut r = JsonReader { b, i, depth: 0 };
        match r.value() {
            Some((j, span)) if matches!(j, J::Obj(_) | J::Arr(_)) => {
                let before = found.len();
                // a list after a name in prose: "Pauses: [(0.5, 0.8), (4.2, 4.6)]"
                let ctx = if matches!(j, J::Arr(_)) { f.name_before(span.0) } else { None };
                walk(f, &j, span, ctx, found);
                if found.len() > before {
                    regions.push(span);
                }
                i = r.i;
            }
            _ => i += 1,
        }
    }
}

/// A name from the context (the key an object or list sits under): event and the key's span.
type Context = Option<(u8, Span)>;

fn walk(f: &dyn FieldText, j: &J, span: Span, ctx: Context, found: &mut Vec<Found>) {
    match j {
        J::Obj(fields) => {
            let (mut start, mut end, mut time) = (None, None, None);
            let mut times = Vec::new();
            let mut name: Context = None;
            let mut other_name: Context = None;
            for (k, v, vs) in fields {
                let key = &f.text()[k.0 as usize..k.1 as usize];
                let (role, unit) = role_of(key);
                match role {
                    Role::Start => start = start.or_else(|| time_of(f, v, *vs, unit)),
                    Role::End => end = end.or_else(|| time_of(f, v, *vs, unit)),
                    Role::Time => time = time.or_else(|| time_of(f, v, *vs, unit)),
                    Role::Times => {
                        if let J::Arr(items) = v {
                            times.extend(items.iter().filter_map(|(x, xs)| time_of(f, x, *xs, unit)));
                        }
                    }
                    Role::Name => {
                        if let J::Str(s) = v {
                            name = name.or_else(|| f.name_in(*s));
                        }
                    }
                    Role::Other => {
                        if let J::Str(s) = v {
                            other_name = other_name.or_else(|| f.name_in(*s));
                        }
                    }
                }
            }
            // {"pause_start": 1.2, "pause_end": 1.5}: the time keys name the event
            let key_named = || {
                fields.iter().find_map(|(k, _, _)| {
                    let key = &f.text()[k.0 as usize..k.1 as usize];
                    matches!(role_of(key).0, Role::Start | Role::End | Role::Time | Role::Times).then(|| key_name(f, *k)).flatten()
                })
            };
            let name = name.or(other_name).or_else(key_named).or(ctx);
            let stated = match (start, end, time) {
                (Some(a), Some(b), _) => Some((a.0, Some(b.0), (a.2 .0.min(b.2 .0), a.2 .1.max(b.2 .1)))),
                (_, _, Some(t)) => Some(t),
                _ => None,
            };
            if let (Some((event, label)), Some((a, b, _))) = (name, stated) {
                found.push(Found { event, start: a, end: b, label, span: join(label, span) });
            }
            if let (Some((event, label)), None) = (name, stated) {
                for (a, b, ts) in times {
                    found.push(Found { event, start: a, end: b, label, span: join(label, ts) });
                }
            }
            // nested values: an object or list under a key that names an event is about that event
            for (k, v, vs) in fields {
                let key = &f.text()[k.0 as usize..k.1 as usize];
                let read_here = match role_of(key).0 {
                    Role::Times => matches!(v, J::Arr(_)),
                    Role::Start | Role::End | Role::Time => time_of(f, v, *vs, 1.0).is_some(),
                    _ => false,
                };
                if matches!(v, J::Obj(_) | J::Arr(_)) && !read_here {
                    walk(f, v, *vs, key_name(f, *k).or(ctx), found);
                }
            }
        }
        // "overlap": [2.1, 5.4] and "Overlap: [2.1, 5.4]": one interval
        J::Arr(items) if ctx.is_some() && items.len() == 2 && items.iter().all(|(v, _)| matches!(v, J::Num(_))) => {
            if let Some((a, b, _)) = time_of(f, j, span, 1.0) {
                let (event, label) = ctx.unwrap();
                found.push(Found { event, start: a, end: b, label, span: join(label, span) });
            }
        }
        J::Arr(items) => {
            for (v, vs) in items {
                match v {
                    // "overlap": [[2.1, 5.4], [6, 7]] or ["2.1-5.4 s", "6-7 s"]
                    J::Arr(_) | J::Str(_) if ctx.is_some() => {
                        if let Some((a, b, _)) = time_of(f, v, *vs, 1.0) {
                            let (event, label) = ctx.unwrap();
                            if b.is_some() || matches!(v, J::Str(_)) {
                                found.push(Found { event, start: a, end: b, label, span: join(label, *vs) });
                                continue;
                            }
                        }
                        walk(f, v, *vs, ctx, found);
                    }
                    J::Obj(_) | J::Arr(_) => walk(f, v, *vs, ctx, found),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// The span from the first to the last byte of two spans.
fn join(a: Span, b: Span) -> Span {
    (a.0.min(b.0), a.1.max(b.1))
}

/// The event a key names ("pauses", "overlap_segments", "noiseEvents"), with the key's span.
fn key_name(f: &dyn FieldText, k: Span) -> Context {
    let key = &f.text()[k.0 as usize..k.1 as usize];
    let words = key_words(key).join(" ");
    crate::intervals::name_in_words(&words).map(|e| (e, k))
}

// ------------------------------------------------------------------ markdown tables

/// The cells of a table line ("| a | b |"): their spans, trimmed.
fn cells(text: &str, s: usize, e: usize) -> Vec<Span> {
    let line = &text[s..e];
    let mut out = Vec::new();
    let mut at = s;
    let inner_start = line.find('|').map_or(0, |k| k + 1);
    let mut parts = line[inner_start..].split('|').collect::<Vec<_>>();
    if line.trim_end().ends_with('|') {
        parts.pop();
    }
    at += inner_start;
    if !line.trim_start().starts_with('|') {
        // "a | b | c": the first cell is before the first pipe
        out.push(trim(text, s, s + inner_start - 1));
    }
    for p in parts {
        out.push(trim(text, at, at + p.len()));
        at += p.len() + 1;
    }
    out
}

fn trim(text: &str, s: usize, e: usize) -> Span {
    let raw = &text[s..e];
    let ls = raw.len() - raw.trim_start().len();
    let t = raw.trim();
    ((s + ls) as u32, (s + ls + t.len()) as u32)
}

fn is_rule(text: &str, c: Span) -> bool {
    let t = &text[c.0 as usize..c.1 as usize];
    !t.is_empty() && t.chars().all(|ch| matches!(ch, '-' | ':' | ' ' | '=' | '+'))
}

/// The markdown tables of a text with start/end (or time) columns: their claims, and their spans.
pub fn table_intervals(f: &dyn FieldText, found: &mut Vec<Found>, regions: &mut Vec<Span>) {
    let text = f.text();
    // the lines, with their spans
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut s = 0;
    for (k, ch) in text.char_indices() {
        if ch == '\n' {
            lines.push((s, k));
            s = k + 1;
        }
    }
    lines.push((s, text.len()));
    let is_row = |&(s, e): &(usize, usize)| text[s..e].matches('|').count() >= 2 || text[s..e].trim_start().starts_with('|');
    let mut k = 0;
    while k < lines.len() {
        if !is_row(&lines[k]) {
            k += 1;
            continue;
        }
        let first = k;
        while k < lines.len() && is_row(&lines[k]) {
            k += 1;
        }
        let block = &lines[first..k];
        let header = cells(text, block[0].0, block[0].1);
        let roles: Vec<(Role, f64)> = header.iter().map(|c| role_of(&text[c.0 as usize..c.1 as usize])).collect();
        let col = |r: Role| roles.iter().position(|x| x.0 == r);
        let (sc, ec, tc, nc) = (col(Role::Start), col(Role::End), col(Role::Time).or(col(Role::Times)), col(Role::Name));
        if !((sc.is_some() && ec.is_some()) || tc.is_some()) {
            continue;
        }
        let before = found.len();
        for &(ls, le) in &block[1..] {
            let row = cells(text, ls, le);
            if row.iter().all(|c| c.0 == c.1 || is_rule(text, *c)) {
                continue;
            }
            let cell = |c: Option<usize>| c.and_then(|c| row.get(c).copied().map(|s| (s, roles[c].1)));
            let time = |c: Option<usize>| cell(c).and_then(|(s, u)| f.time_in(s, u));
            let stated = match (time(sc), time(ec), time(tc)) {
                (Some(a), Some(b), _) => Some((a.0, Some(b.0), (a.2 .0.min(b.2 .0), a.2 .1.max(b.2 .1)))),
                (_, _, Some(t)) => Some(t),
                _ => None,
            };
            let Some((a, b, tspan)) = stated else { continue };
            // the name: in the name column, else in any other cell of the row
            let name = cell(nc).and_then(|(s, _)| f.name_in(s)).or_else(|| {
                row.iter()
                    .enumerate()
                    .filter(|(c, _)| ![sc, ec, tc].contains(&Some(*c)))
                    .find_map(|(_, s)| f.name_in(*s))
            });
            if let Some((event, label)) = name {
                found.push(Found { event, start: a, end: b, label, span: join(label, tspan) });
            }
        }
        if found.len() > before {
            regions.push((block[0].0 as u32, block[block.len() - 1].1 as u32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Option<J> {
        JsonReader { b: text.as_bytes(), i: 0, depth: 0 }.value().map(|(j, _)| j)
    }

    #[test]
    fn the_json_reader_is_lenient_but_not_loose() {
        assert!(matches!(json(r#"{"a": [1, 2.5, "x"], 'b': null, c: true,}"#), Some(J::Obj(f)) if f.len() == 3));
        assert!(matches!(json("[[2.1, 5.4], [6, 7]]"), Some(J::Arr(a)) if a.len() == 2));
        assert!(json("{\"a\": }").is_none());
        assert!(json("[1, 2").is_none());
        assert!(json("{a b}").is_none());
        assert!(json(&"[".repeat(1000)).is_none());
    }

    #[test]
    fn table_cells_with_and_without_outer_pipes() {
        let t = "| a | b c |";
        assert_eq!(cells(t, 0, t.len()).iter().map(|c| &t[c.0 as usize..c.1 as usize]).collect::<Vec<_>>(), vec!["a", "b c"]);
        let t = "a | b | c";
        assert_eq!(cells(t, 0, t.len()).iter().map(|c| &t[c.0 as usize..c.1 as usize]).collect::<Vec<_>>(), vec!["a", "b", "c"]);
    }

    #[test]
    fn keys_and_headers_name_their_roles() {
        assert_eq!(key_words("startTime_s"), vec!["start", "time", "s"]);
        assert_eq!(role_of("start_ms"), (Role::Start, 0.001));
        assert_eq!(role_of("End (s)"), (Role::End, 1.0));
        assert_eq!(role_of("Timestamp"), (Role::Time, 1.0));
        assert_eq!(role_of("pause_duration").0, Role::Other);
        assert_eq!(role_of("Event type").0, Role::Name);
    }
}

//! Bracket expressions of find's regular expressions (`-regex`): sets of
//! bytes, as bitmaps (the C locale).

/// A set of bytes, as a bitmap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteSet([u64; 4]);

impl ByteSet {
    pub fn add(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }
    pub fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }
    pub fn add_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.add(b);
        }
    }
    pub fn negate(&mut self) {
        for w in &mut self.0 {
            *w = !*w;
        }
    }
    /// Adds the other case of every ASCII letter in the set.
    pub fn fold_case(&mut self) {
        for b in b'a'..=b'z' {
            if self.has(b) || self.has(b.to_ascii_uppercase()) {
                self.add(b);
                self.add(b.to_ascii_uppercase());
            }
        }
    }
    /// Adds a POSIX class by name (`alpha`); false if unknown.
    pub fn add_class(&mut self, name: &[u8]) -> bool {
        let f: fn(u8) -> bool = match name {
            b"alpha" => |b| b.is_ascii_alphabetic(),
            b"digit" => |b| b.is_ascii_digit(),
            b"alnum" => |b| b.is_ascii_alphanumeric(),
            b"upper" => |b| b.is_ascii_uppercase(),
            b"lower" => |b| b.is_ascii_lowercase(),
            b"space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
            b"blank" => |b| b == b' ' || b == b'\t',
            b"punct" => |b| b.is_ascii_punctuation(),
            b"print" => |b| (0x20..0x7f).contains(&b),
            b"graph" => |b| (0x21..0x7f).contains(&b),
            b"cntrl" => |b| b < 0x20 || b == 0x7f,
            b"xdigit" => |b| b.is_ascii_hexdigit(),
            _ => return false,
        };
        for b in 0..=255u8 {
            if f(b) {
                self.add(b);
            }
        }
        true
    }
}

/// Parses a bracket expression starting just after `[`: `^` negates,
/// `]` first is literal, ranges, `[:class:]`, `[=c=]` and `[.c.]` of
/// single bytes, and no escapes (a backslash is itself). Returns the set
/// and the index after `]`, or `None` if there is no closing bracket or
/// the class is unknown.
pub fn parse_bracket(p: &[u8], mut i: usize) -> Option<(ByteSet, usize)> {
    let mut set = ByteSet::default();
    let mut neg = false;
    if i < p.len() && p[i] == b'^' {
        neg = true;
        i += 1;
    }
    let start = i;
    loop {
        if i >= p.len() {
            return None;
        }
        let c = p[i];
        if c == b']' && i > start {
            i += 1;
            break;
        }
        // [:class:]
        if c == b'[' && p.get(i + 1) == Some(&b':') {
            if let Some(end) = find_seq(p, i + 2, b":]") {
                if set.add_class(&p[i + 2..end]) {
                    i = end + 2;
                    continue;
                }
                return None;
            }
        }
        // [=c=] and [.c.]: single bytes.
        if c == b'[' && matches!(p.get(i + 1), Some(b'=') | Some(b'.')) {
            let d = p[i + 1];
            if let Some(end) = find_seq(p, i + 2, &[d, b']']) {
                if end == i + 3 {
                    let lo = p[i + 2];
                    set.add(lo);
                    i = end + 2;
                    continue;
                }
            }
        }
        let lo = c;
        i += 1;
        if p.get(i) == Some(&b'-') && i + 1 < p.len() && p[i + 1] != b']' {
            let hi = p[i + 1];
            i += 2;
            if lo <= hi {
                set.add_range(lo, hi);
            }
        } else {
            set.add(lo);
        }
    }
    if neg {
        set.negate();
    }
    Some((set, i))
}

fn find_seq(p: &[u8], from: usize, seq: &[u8]) -> Option<usize> {
    (from..p.len().saturating_sub(seq.len() - 1)).find(|&j| p[j..].starts_with(seq))
}

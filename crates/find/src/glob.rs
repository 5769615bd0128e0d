//! Shell patterns as GNU find matches them: `fnmatch` without
//! `FNM_PATHNAME` or `FNM_PERIOD`, so `*` matches `/` and leading dots, with
//! `FNM_CASEFOLD` for the -i variants. Bytes, not characters (the C locale).

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Glob {
    toks: Vec<Tok>,
    casefold: bool,
}

#[derive(Clone, Debug)]
enum Tok {
    Byte(u8),
    Any,
    Star,
    Set(Box<ByteSet>),
}

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

/// Parses a bracket expression starting just after `[`. Returns the set and
/// the index after `]`, or `None` if there is no closing bracket (then `[`
/// is literal). `negators` are the bytes that negate after `[`.
pub fn parse_bracket(
    p: &[u8],
    mut i: usize,
    negators: &[u8],
    escapes: bool,
) -> Option<(ByteSet, usize)> {
    let mut set = ByteSet::default();
    let mut neg = false;
    if i < p.len() && negators.contains(&p[i]) {
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
        let mut lo = c;
        i += 1;
        if escapes && c == b'\\' && i < p.len() {
            lo = p[i];
            i += 1;
        }
        if p.get(i) == Some(&b'-') && i + 1 < p.len() && p[i + 1] != b']' {
            let mut hi = p[i + 1];
            i += 2;
            if escapes && hi == b'\\' && i < p.len() {
                hi = p[i];
                i += 1;
            }
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

impl Glob {
    pub fn new(pat: &[u8], casefold: bool) -> Glob {
        let mut toks = Vec::new();
        let mut i = 0;
        while i < pat.len() {
            let c = pat[i];
            match c {
                b'*' => {
                    if !matches!(toks.last(), Some(Tok::Star)) {
                        toks.push(Tok::Star);
                    }
                    i += 1;
                }
                b'?' => {
                    toks.push(Tok::Any);
                    i += 1;
                }
                b'[' => match parse_bracket(pat, i + 1, b"!^", true) {
                    Some((mut set, next)) => {
                        if casefold {
                            set.fold_case();
                        }
                        toks.push(Tok::Set(Box::new(set)));
                        i = next;
                    }
                    None => {
                        toks.push(Tok::Byte(b'['));
                        i += 1;
                    }
                },
                b'\\' if i + 1 < pat.len() => {
                    toks.push(Tok::Byte(fold(pat[i + 1], casefold)));
                    i += 2;
                }
                _ => {
                    toks.push(Tok::Byte(fold(c, casefold)));
                    i += 1;
                }
            }
        }
        Glob { toks, casefold }
    }

    /// A pattern with no wildcards: its literal bytes (for a fast compare).
    pub fn literal(&self) -> Option<Vec<u8>> {
        if self.casefold {
            return None;
        }
        self.toks.iter().map(|t| if let Tok::Byte(b) = t { Some(*b) } else { None }).collect()
    }

    pub fn matches(&self, s: &[u8]) -> bool {
        // Iterative matching with one backtrack point per star (the classic
        // linear-ish algorithm; a later star supersedes an earlier one).
        let (mut ti, mut si) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        let t = &self.toks;
        while si < s.len() {
            let c = fold(s[si], self.casefold);
            let ok = match t.get(ti) {
                Some(Tok::Byte(b)) => *b == c,
                Some(Tok::Any) => true,
                Some(Tok::Set(set)) => set.has(c),
                Some(Tok::Star) => {
                    star = Some((ti, si));
                    ti += 1;
                    continue;
                }
                None => false,
            };
            if ok {
                ti += 1;
                si += 1;
            } else if let Some((st, ss)) = star {
                ti = st + 1;
                si = ss + 1;
                star = Some((st, ss + 1));
            } else {
                return false;
            }
        }
        t[ti..].iter().all(|x| matches!(x, Tok::Star))
    }
}

fn fold(b: u8, casefold: bool) -> u8 {
    if casefold {
        b.to_ascii_lowercase()
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(p: &str, s: &str) -> bool {
        Glob::new(p.as_bytes(), false).matches(s.as_bytes())
    }

    #[test]
    fn basics() {
        assert!(m("*.c", "a.c"));
        assert!(m("*.c", ".c"));
        assert!(!m("*.c", "a.h"));
        assert!(m("a*b*c", "aXbYbc"));
        assert!(m("?", "x"));
        assert!(!m("?", ""));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(!m("[^a-c]x", "ax"));
        assert!(m("[]]", "]"));
        assert!(m("[[:digit:]]*", "1abc"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("[", "["));
        assert!(m("*/b", "a/x/b"));
        assert!(Glob::new(b"*.C", true).matches(b"x.c"));
        assert!(Glob::new(b"[A-C]", true).matches(b"b"));
    }
}

//! `--exclude=PATTERN` and `-X FILE`: shell patterns matched against an
//! entry's whole path or any tail of it that starts after a `/`, as GNU
//! du does (so `--exclude=*.o` and `--exclude=build` work at any depth).
//!
//! Like GNU, a pattern without wildcards is not handed to fnmatch: its
//! backslash escapes are removed and the result compared as a string. The
//! two differ only on a trailing backslash (`--exclude='a\'` excludes a
//! file named `a\`, which fnmatch would never match).

use std::ffi::CStr;

use cli::glob::Glob;

#[derive(Clone, Debug, PartialEq)]
enum Pattern {
    Glob(Glob),
    Literal(Vec<u8>),
}

impl Pattern {
    fn new(pattern: &[u8]) -> Pattern {
        if has_wildcards(pattern) {
            // GNU du matches with fnmatch and no flags: '*' crosses '/' and
            // matches a leading '.'.
            Pattern::Glob(Glob::new(pattern, Default::default()))
        } else {
            Pattern::Literal(unescape(pattern))
        }
    }

    fn matches(&self, name: &CStr) -> bool {
        match self {
            Pattern::Glob(g) => g.matches_cstr(name),
            Pattern::Literal(l) => name.to_bytes() == &l[..],
        }
    }
}

/// Whether fnmatch would treat any byte of `p` as special; a backslash
/// hides the byte after it.
fn has_wildcards(p: &[u8]) -> bool {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' if i + 1 < p.len() => i += 1,
            b'?' | b'*' | b'[' | b']' => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Drops each backslash that escapes a following byte (a trailing one stays).
fn unescape(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'\\' && i + 1 < p.len() {
            i += 1;
        }
        out.push(p[i]);
        i += 1;
    }
    out
}

#[derive(Clone, Debug, Default)]
pub struct Exclude {
    patterns: Vec<Pattern>,
}

impl Exclude {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn add(&mut self, pattern: &[u8]) {
        self.patterns.push(Pattern::new(pattern));
    }

    /// Adds the patterns of an `--exclude-from` file: one per line, trailing
    /// white space removed, blank lines ignored.
    pub fn add_lines(&mut self, data: &[u8]) {
        for line in data.split(|&b| b == b'\n') {
            let end = line.iter().rposition(|b| !b.is_ascii_whitespace() && *b != 0x0b);
            if let Some(e) = end {
                self.add(&line[..=e]);
            }
        }
    }

    /// Whether `path` is excluded.
    pub fn matches(&self, path: &[u8]) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        // One NUL-terminated copy of the path: its tails are C strings too.
        cli::glob::with_cstr(path, |c| {
            let b = c.to_bytes_with_nul();
            let tails = (0..b.len() - 1)
                .filter(|&i| b[i] == b'/' && b[i + 1] != b'/' && b[i + 1] != 0)
                .map(|i| i + 1);
            std::iter::once(0).chain(tails).any(|start| {
                let t = CStr::from_bytes_with_nul(&b[start..]).expect("a tail of a C string");
                self.patterns.iter().any(|p| p.matches(t))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excluding(patterns: &[&[u8]]) -> Exclude {
        let mut e = Exclude::default();
        for p in patterns {
            e.add(p);
        }
        e
    }

    #[test]
    fn tails() {
        let e = excluding(&[b"*.o", b"build", b"x/y"]);
        assert!(e.matches(b"src/a.o"));
        assert!(e.matches(b"a/build"));
        assert!(!e.matches(b"a/builder"));
        assert!(e.matches(b"top/x/y"));
        assert!(!e.matches(b"top/xx/y"));
        assert!(e.matches(b"build"));
    }

    #[test]
    fn lines() {
        let mut e = Exclude::default();
        e.add_lines(b"a  \n\n  \nb\r\nc");
        let l = |p: &[u8]| Pattern::Literal(p.to_vec());
        assert_eq!(e.patterns, vec![l(b"a"), l(b"b"), l(b"c")]);
    }

    #[test]
    fn literal_patterns() {
        let e = excluding(&[b"a\\b", b"c\\", b"\\*x"]);
        assert!(e.matches(b"d/ab"));
        assert!(!e.matches(b"d/a\\b"));
        assert!(e.matches(b"d/c\\"));
        assert!(e.matches(b"*x"));
        assert!(!e.matches(b"yx"));
    }
}

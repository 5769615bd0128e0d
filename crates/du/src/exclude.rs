//! `--exclude=PATTERN` and `-X FILE`: shell patterns matched against an
//! entry's whole path or any tail of it that starts after a `/`, as GNU
//! du does (so `--exclude=*.o` and `--exclude=build` work at any depth).

use std::ffi::CStr;

use cli::glob::Glob;

#[derive(Clone, Debug, Default)]
pub struct Exclude {
    patterns: Vec<Glob>,
}

impl Exclude {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn add(&mut self, pattern: &[u8]) {
        // GNU du matches with fnmatch and no flags: '*' crosses '/' and
        // matches a leading '.'.
        self.patterns.push(Glob::new(pattern, Default::default()));
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
                self.patterns.iter().any(|p| p.matches_cstr(t))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails() {
        let mut e = Exclude::default();
        e.add(b"*.o");
        e.add(b"build");
        e.add(b"x/y");
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
        let g = |p: &[u8]| Glob::new(p, Default::default());
        assert_eq!(e.patterns, vec![g(b"a"), g(b"b"), g(b"c")]);
    }
}

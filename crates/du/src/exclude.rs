//! `--exclude=PATTERN` and `-X FILE`: shell patterns matched against an
//! entry's whole path or any tail of it that starts after a `/`, as GNU
//! du does (so `--exclude=*.o` and `--exclude=build` work at any depth).

use crate::glob;

#[derive(Clone, Debug, Default)]
pub struct Exclude {
    patterns: Vec<Vec<u8>>,
}

impl Exclude {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn add(&mut self, pattern: &[u8]) {
        self.patterns.push(pattern.to_vec());
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
        self.patterns.iter().any(|p| matches_tail(p, path))
    }
}

fn matches_tail(pat: &[u8], path: &[u8]) -> bool {
    if glob::matches(pat, path) {
        return true;
    }
    (0..path.len()).any(|i| {
        path[i] == b'/'
            && path.get(i + 1).is_some_and(|&c| c != b'/')
            && glob::matches(pat, &path[i + 1..])
    })
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
        assert_eq!(e.patterns, vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    }
}

//! Shell patterns (`*`, `?`, `[...]`, `\`) as GNU's tools match them: by
//! the C library's fnmatch (`libcw::fnmatch`), the function GNU ls,
//! du and find call, with the flags each tool passes — none for find's
//! `-name`/`-path`/`-lname` and du's `--exclude` (so `*` matches `/` and a
//! leading '.'), case folding for find's `-i` forms, and a leading '.'
//! matched only literally for ls's `-I`/`--hide`.

use std::cell::RefCell;
use std::ffi::{CStr, CString};

use libcw::fnmatch;

/// fnmatch flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// A leading '.' is matched only by a literal '.' (`FNM_PERIOD`).
    pub period: bool,
    /// Letters match either case (`FNM_CASEFOLD`, in the locale).
    pub casefold: bool,
}

/// A pattern, ready to match many names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    pattern: CString,
    flags: i32,
}

impl Glob {
    /// As C sees it, the pattern ends at its first NUL byte (only a
    /// pattern file can hold one).
    pub fn new(pattern: &[u8], flags: Flags) -> Glob {
        let end = memchr::memchr(0, pattern).unwrap_or(pattern.len());
        let pattern = CString::new(&pattern[..end]).expect("no NUL before the end");
        let mut f = 0;
        if flags.period {
            f |= fnmatch::PERIOD;
        }
        if flags.casefold {
            f |= fnmatch::CASEFOLD;
        }
        Glob { pattern, flags: f }
    }

    /// Whether `name` as a whole matches.
    pub fn matches(&self, name: &[u8]) -> bool {
        with_cstr(name, |c| self.matches_cstr(c))
    }

    /// Whether `name` as a whole matches, for a caller that already has
    /// it NUL-terminated (du tries every tail of a path in one buffer).
    pub fn matches_cstr(&self, name: &CStr) -> bool {
        fnmatch::fnmatch(&self.pattern, name, self.flags)
    }
}

/// Whether `name` matches `pattern`, for a pattern used once.
pub fn fnmatch(pattern: &[u8], name: &[u8], flags: Flags) -> bool {
    Glob::new(pattern, flags).matches(name)
}

/// Calls `f` with `bytes` NUL-terminated (cut at a NUL inside, as C would
/// see them), in a per-thread buffer: names are matched by the million,
/// and none of them should cost an allocation.
pub fn with_cstr<R>(bytes: &[u8], f: impl FnOnce(&CStr) -> R) -> R {
    thread_local! {
        static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
    let fill = |buf: &mut Vec<u8>| {
        buf.clear();
        buf.extend_from_slice(&bytes[..end]);
        buf.push(0);
    };
    BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => {
            fill(&mut buf);
            f(CStr::from_bytes_with_nul(&buf).expect("one NUL, at the end"))
        }
        // Called again from inside `f`: a buffer of its own.
        Err(_) => {
            let mut buf = Vec::new();
            fill(&mut buf);
            f(CStr::from_bytes_with_nul(&buf).expect("one NUL, at the end"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Flags = Flags { period: false, casefold: false };
    const PERIOD: Flags = Flags { period: true, casefold: false };
    const CASEFOLD: Flags = Flags { period: false, casefold: true };

    #[test]
    fn wildcards() {
        assert!(fnmatch(b"*.c", b"dir/a.c", NONE));
        assert!(fnmatch(b"*", b".hidden", NONE));
        assert!(!fnmatch(b"*", b".hidden", PERIOD));
        assert!(fnmatch(b".*", b".hidden", PERIOD));
        assert!(fnmatch(b"\\.h", b".h", PERIOD));
        assert!(!fnmatch(b"[.]h", b".h", PERIOD));
        assert!(fnmatch(b"a?c", b"abc", NONE));
        assert!(!fnmatch(b"a?c", b"ac", NONE));
        assert!(fnmatch(b"", b"", NONE));
        assert!(!fnmatch(b"", b"a", NONE));
        assert!(fnmatch(b"*.C", b"x.c", CASEFOLD));
        assert!(fnmatch(b"[A-C]", b"b", CASEFOLD));
        assert!(!fnmatch(b"*.C", b"x.c", NONE));
    }

    #[test]
    fn brackets_and_escapes() {
        assert!(fnmatch(b"[!a-c]x", b"dx", NONE));
        assert!(!fnmatch(b"[!a-c]x", b"bx", NONE));
        assert!(fnmatch(b"[]]", b"]", NONE));
        assert!(fnmatch(b"[a-]", b"-", NONE));
        assert!(fnmatch(b"[[:digit:]]*", b"7up", NONE));
        assert!(fnmatch(b"[[=x=]]", b"x", NONE));
        assert!(fnmatch(b"[[.x.]]", b"x", NONE));
        assert!(fnmatch(b"[", b"[", NONE));
        assert!(fnmatch(b"\\*", b"*", NONE));
        assert!(!fnmatch(b"\\*", b"a", NONE));
        // glibc: an unknown class or a trailing backslash match nothing.
        assert!(!fnmatch(b"[[:foo:]x]", b"x", NONE));
        assert!(!fnmatch(b"a\\", b"a\\", NONE));
    }

    #[test]
    fn nul_ends_the_strings() {
        assert!(fnmatch(b"ab\0cd", b"ab", NONE));
        assert!(Glob::new(b"a*", NONE).matches(b"ax\0y"));
    }
}

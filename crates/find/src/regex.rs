//! `-regex` and `-iregex`: the C library's GNU regex engine, as GNU find
//! runs it (`libcw::regex`). A `-regextype` is a set of syntax bits
//! (findutils' table of names), `-iregex` adds `RE_ICASE`, and a path
//! matches only if the match covers all of it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use libcw::regex as re;

/// A `-regextype`: the syntax bits patterns after it compile with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegexType(re::Syntax);

impl RegexType {
    /// find's default before any `-regextype`: plain Emacs syntax, whose
    /// `.` does not match a newline.
    pub const EMACS: RegexType = RegexType(re::SYNTAX_EMACS);

    /// The `-regextype` names, in the order GNU's error message lists them.
    pub const NAMES: [&'static str; 13] = [
        "findutils-default",
        "ed",
        "emacs",
        "gnu-awk",
        "grep",
        "posix-awk",
        "awk",
        "posix-basic",
        "posix-egrep",
        "egrep",
        "posix-extended",
        "posix-minimal-basic",
        "sed",
    ];

    /// Parses a `-regextype` name (the names find 4.9 accepts).
    pub fn from_name(s: &[u8]) -> Option<RegexType> {
        Some(RegexType(match s {
            // Unlike the default, the type named "findutils-default" lets
            // `.` match a newline.
            b"findutils-default" => re::SYNTAX_EMACS | re::DOT_NEWLINE,
            b"emacs" => re::SYNTAX_EMACS,
            b"ed" | b"sed" | b"posix-basic" => re::SYNTAX_POSIX_BASIC,
            b"posix-minimal-basic" => re::SYNTAX_POSIX_MINIMAL_BASIC,
            b"grep" => re::SYNTAX_GREP,
            b"posix-extended" => re::SYNTAX_POSIX_EXTENDED,
            b"posix-egrep" | b"egrep" => re::SYNTAX_EGREP,
            b"awk" => re::SYNTAX_AWK,
            b"gnu-awk" => re::SYNTAX_GNU_AWK,
            b"posix-awk" => re::SYNTAX_POSIX_AWK,
            _ => return None,
        }))
    }
}

/// A pattern error: the C library's message, in the locale's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError(pub Vec<u8>);

/// A compiled pattern, plus what it takes to compile it again: each walker
/// thread matches with a copy of its own. glibc serializes matches on one
/// compiled pattern (its per-pattern lock is held for the whole match), and
/// in a multibyte locale a match costs microseconds, so one shared pattern
/// would make `-regex` a single-threaded bottleneck of the parallel walk.
#[derive(Debug)]
pub struct Regex {
    id: u64,
    pat: Vec<u8>,
    bits: re::Syntax,
    /// The parse-time compilation (it reports errors), also the fallback.
    shared: re::Regex,
}

thread_local! {
    /// This thread's compiled copies, by pattern id (few: one per -regex).
    static COPIES: RefCell<Vec<(u64, re::Regex)>> = const { RefCell::new(Vec::new()) };
}

impl Regex {
    pub fn new(pat: &[u8], ty: RegexType, casefold: bool) -> Result<Regex, RegexError> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let bits = if casefold { ty.0 | re::ICASE } else { ty.0 };
        let shared = re::Regex::new(pat, bits).map_err(RegexError)?;
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Regex { id, pat: pat.to_vec(), bits, shared })
    }

    /// Whether the pattern matches all of `s`.
    pub fn matches(&self, s: &[u8]) -> bool {
        COPIES.with(|c| {
            let Ok(mut copies) = c.try_borrow_mut() else {
                return self.shared.matches_whole(s);
            };
            if let Some((_, r)) = copies.iter().find(|(id, _)| *id == self.id) {
                return r.matches_whole(s);
            }
            match re::Regex::new(&self.pat, self.bits) {
                Ok(r) => {
                    let m = r.matches_whole(s);
                    copies.push((self.id, r));
                    m
                }
                Err(_) => self.shared.matches_whole(s),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, ty: &str, s: &str) -> bool {
        let ty = RegexType::from_name(ty.as_bytes()).unwrap();
        Regex::new(p.as_bytes(), ty, false).unwrap().matches(s.as_bytes())
    }

    #[test]
    fn types() {
        assert!(!m(".*x", "emacs", "a\nx"));
        assert!(m(".*x", "findutils-default", "a\nx"));
        assert!(m("\\(ab\\)\\1", "emacs", "abab"));
        assert!(m("a+", "posix-basic", "a+"));
        assert!(m("a\\+", "posix-basic", "aaa"));
        assert!(m("a\\|b", "posix-minimal-basic", "a|b"));
        assert!(m("[\\]]", "awk", "]"));
        assert!(m("[\\]]", "posix-extended", "\\]"));
        assert!(m("(x*)*y", "posix-extended", "xxy"));
        assert!(RegexType::from_name(b"help").is_none());
        for n in RegexType::NAMES {
            assert!(RegexType::from_name(n.as_bytes()).is_some(), "{n}");
        }
    }

    #[test]
    fn no_blowup() {
        let long = "a".repeat(200);
        assert!(!m("(a*)*b", "posix-extended", &long));
    }
}

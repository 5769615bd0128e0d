//! The C library's GNU regex interface — `re_set_syntax`,
//! `re_compile_pattern`, `re_match` — the engine GNU find runs for
//! `-regex`. Every dialect `-regextype` names is a set of syntax bits for
//! it, and matching follows the locale of the compiling thread (characters
//! in a multibyte locale, `[[:upper:]]` by `iswupper`, `[[=e=]]` and ranges
//! by the collation tables), so calling it is the only way to agree with
//! find on every pattern.
//!
//! The bit values and `struct re_pattern_buffer` are glibc's `<regex.h>`
//! (without `_REGEX_LARGE_OFFSETS`, as glibc itself is built).

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CStr};
use std::sync::Mutex;

/// `reg_syntax_t`: a set of `RE_*` bits.
pub type Syntax = c_ulong;

/// `\` inside a bracket expression escapes the next character.
pub const BACKSLASH_ESCAPE_IN_LISTS: Syntax = 1;
/// `\+` and `\?` are the operators, `+` and `?` literals.
pub const BK_PLUS_QM: Syntax = 1 << 1;
/// `[[:alpha:]]` and the other classes exist.
pub const CHAR_CLASSES: Syntax = 1 << 2;
/// `^` and `$` are anchors anywhere.
pub const CONTEXT_INDEP_ANCHORS: Syntax = 1 << 3;
/// `*`, `+`, `?` are operators anywhere (an error or literal at the start).
pub const CONTEXT_INDEP_OPS: Syntax = 1 << 4;
/// A repetition operator with nothing to repeat is an error.
pub const CONTEXT_INVALID_OPS: Syntax = 1 << 5;
/// `.` matches a newline.
pub const DOT_NEWLINE: Syntax = 1 << 6;
/// `.` does not match a NUL.
pub const DOT_NOT_NULL: Syntax = 1 << 7;
/// `[^…]` does not match a newline.
pub const HAT_LISTS_NOT_NEWLINE: Syntax = 1 << 8;
/// Intervals (`{m,n}` or `\{m,n\}`) exist.
pub const INTERVALS: Syntax = 1 << 9;
/// No `+`, `?`, `|` at all.
pub const LIMITED_OPS: Syntax = 1 << 10;
/// A newline separates alternatives.
pub const NEWLINE_ALT: Syntax = 1 << 11;
/// `{` and `}` are the interval braces, `\{` `\}` literals.
pub const NO_BK_BRACES: Syntax = 1 << 12;
/// `(` and `)` group, `\(` `\)` are literals.
pub const NO_BK_PARENS: Syntax = 1 << 13;
/// `\1`…`\9` are not back-references.
pub const NO_BK_REFS: Syntax = 1 << 14;
/// `|` is alternation, `\|` a literal.
pub const NO_BK_VBAR: Syntax = 1 << 15;
/// A range whose end sorts before its start is an error.
pub const NO_EMPTY_RANGES: Syntax = 1 << 16;
/// An unmatched `)` is a literal.
pub const UNMATCHED_RIGHT_PAREN_ORD: Syntax = 1 << 17;
/// No POSIX backtracking (the first match, not the longest).
pub const NO_POSIX_BACKTRACKING: Syntax = 1 << 18;
/// No GNU operators (`\w \W \s \S \< \> \b \B \` \'`).
pub const NO_GNU_OPS: Syntax = 1 << 19;
/// A `{` that starts no valid interval is a literal.
pub const INVALID_INTERVAL_ORD: Syntax = 1 << 21;
/// Ignore case.
pub const ICASE: Syntax = 1 << 22;
/// `^` is an anchor right after `(` and `|` (or a newline alternative).
pub const CARET_ANCHORS_HERE: Syntax = 1 << 23;
/// A repetition of a repetition (`a**`) or of nothing is an error.
pub const CONTEXT_INVALID_DUP: Syntax = 1 << 24;

/// `RE_SYNTAX_EMACS`.
pub const SYNTAX_EMACS: Syntax = 0;
const POSIX_COMMON: Syntax =
    CHAR_CLASSES | DOT_NEWLINE | DOT_NOT_NULL | INTERVALS | NO_EMPTY_RANGES;
/// `RE_SYNTAX_POSIX_BASIC` (also ed's and sed's).
pub const SYNTAX_POSIX_BASIC: Syntax = POSIX_COMMON | BK_PLUS_QM | CONTEXT_INVALID_DUP;
/// `RE_SYNTAX_POSIX_MINIMAL_BASIC`.
pub const SYNTAX_POSIX_MINIMAL_BASIC: Syntax = POSIX_COMMON | LIMITED_OPS;
/// `RE_SYNTAX_POSIX_EXTENDED`.
pub const SYNTAX_POSIX_EXTENDED: Syntax = POSIX_COMMON
    | CONTEXT_INDEP_ANCHORS
    | CONTEXT_INDEP_OPS
    | NO_BK_BRACES
    | NO_BK_PARENS
    | NO_BK_VBAR
    | CONTEXT_INVALID_OPS
    | UNMATCHED_RIGHT_PAREN_ORD;
/// `RE_SYNTAX_AWK`.
pub const SYNTAX_AWK: Syntax = BACKSLASH_ESCAPE_IN_LISTS
    | DOT_NOT_NULL
    | NO_BK_PARENS
    | NO_BK_REFS
    | NO_BK_VBAR
    | NO_EMPTY_RANGES
    | DOT_NEWLINE
    | CONTEXT_INDEP_ANCHORS
    | CHAR_CLASSES
    | UNMATCHED_RIGHT_PAREN_ORD
    | NO_GNU_OPS;
/// `RE_SYNTAX_GNU_AWK`.
pub const SYNTAX_GNU_AWK: Syntax =
    (SYNTAX_POSIX_EXTENDED | BACKSLASH_ESCAPE_IN_LISTS | INVALID_INTERVAL_ORD)
        & !(DOT_NOT_NULL | CONTEXT_INDEP_OPS | CONTEXT_INVALID_OPS);
/// `RE_SYNTAX_POSIX_AWK`.
pub const SYNTAX_POSIX_AWK: Syntax = SYNTAX_POSIX_EXTENDED
    | BACKSLASH_ESCAPE_IN_LISTS
    | INTERVALS
    | NO_GNU_OPS
    | INVALID_INTERVAL_ORD;
/// `RE_SYNTAX_GREP`.
pub const SYNTAX_GREP: Syntax =
    (SYNTAX_POSIX_BASIC | NEWLINE_ALT) & !(CONTEXT_INVALID_DUP | DOT_NOT_NULL);
/// `RE_SYNTAX_EGREP` (and `RE_SYNTAX_POSIX_EGREP`, the same bits).
pub const SYNTAX_EGREP: Syntax = (SYNTAX_POSIX_EXTENDED | INVALID_INTERVAL_ORD | NEWLINE_ALT)
    & !(CONTEXT_INVALID_OPS | DOT_NOT_NULL);

/// glibc's `struct re_pattern_buffer` (64 bytes on LP64): the compiled
/// program lives behind `buffer`; the trailing bit-fields (`can_be_null`,
/// `regs_allocated`, `fastmap_accurate`, `no_sub`, `not_bol`, `not_eol`,
/// `newline_anchor`) share one `unsigned int`, which only glibc touches.
#[repr(C)]
struct PatternBuffer {
    buffer: *mut c_void,
    allocated: c_ulong,
    used: c_ulong,
    syntax: Syntax,
    fastmap: *mut c_char,
    translate: *mut u8,
    re_nsub: usize,
    bits: c_uint,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<PatternBuffer>() == 64);

extern "C" {
    fn re_set_syntax(syntax: Syntax) -> Syntax;
    fn re_compile_pattern(
        pattern: *const c_char,
        length: usize,
        buffer: *mut PatternBuffer,
    ) -> *const c_char;
    fn re_match(
        buffer: *mut PatternBuffer,
        string: *const c_char,
        length: c_int,
        start: c_int,
        regs: *mut c_void,
    ) -> c_int;
    fn regfree(buffer: *mut PatternBuffer);
}

/// `re_compile_pattern` reads the process-wide `re_syntax_options`: one
/// compilation at a time, so no other thread's syntax slips in between.
static COMPILE: Mutex<()> = Mutex::new(());

/// A compiled pattern.
pub struct Regex {
    /// Boxed so glibc's buffer never moves; in a cell because `re_match`
    /// takes it mutably (it may fill in the fastmap and bookkeeping bits).
    buf: Box<UnsafeCell<PatternBuffer>>,
}

// SAFETY: the buffer owns its heap memory (the compiled DFA) outright and
// holds no reference to thread-local state, so another thread may use or
// free it.
unsafe impl Send for Regex {}
// SAFETY: after compilation the only access through `&Regex` is re_match,
// and glibc's re_search_stub (behind re_match) takes the DFA's own lock
// (`dfa->lock`) before it reads or writes anything in the buffer or DFA,
// so concurrent matches on one pattern are serialized by glibc itself.
unsafe impl Sync for Regex {}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Regex")
    }
}

impl Regex {
    /// Compiles `pattern` with `syntax` bits and no translate table, as
    /// find does. The error is glibc's message, translated in the locale
    /// (`Invalid regular expression`, `Ungültiger regulärer Ausdruck`).
    pub fn new(pattern: &[u8], syntax: Syntax) -> Result<Regex, Vec<u8>> {
        let re = Regex {
            buf: Box::new(UnsafeCell::new(PatternBuffer {
                buffer: std::ptr::null_mut(),
                allocated: 0,
                used: 0,
                syntax,
                fastmap: std::ptr::null_mut(),
                translate: std::ptr::null_mut(),
                re_nsub: 0,
                bits: 0,
            })),
        };
        let _guard = crate::sync::lock(&COMPILE);
        // SAFETY: re_set_syntax only stores the global; the lock above keeps
        // other compilations from racing it. The pattern pointer and length
        // describe a live slice (glibc reads exactly `length` bytes); the
        // buffer is a valid, exclusively owned re_pattern_buffer with NULL
        // buffer/fastmap/translate, which glibc allocates into.
        let msg = unsafe {
            re_set_syntax(syntax);
            re_compile_pattern(pattern.as_ptr().cast(), pattern.len(), re.buf.get())
        };
        if msg.is_null() {
            Ok(re)
        } else {
            // SAFETY: a non-NULL result is a NUL-terminated message in
            // libc's static storage (or its mapped catalog), never freed.
            Err(unsafe { CStr::from_ptr(msg) }.to_bytes().to_vec())
            // `re` drops here: regfree of a failed compilation is sound
            // (glibc has already freed the DFA and left `buffer` NULL).
        }
    }

    /// How many bytes of `s` the pattern matches from its start (the
    /// longest match), or `None`.
    pub fn match_len(&self, s: &[u8]) -> Option<usize> {
        let len = c_int::try_from(s.len()).ok()?;
        // SAFETY: the buffer holds a successfully compiled pattern; the
        // string pointer and length describe a live slice, which re_match
        // only reads; no registers are asked for. Concurrent calls are
        // serialized by glibc's per-pattern lock (see `Sync` above).
        let r =
            unsafe { re_match(self.buf.get(), s.as_ptr().cast(), len, 0, std::ptr::null_mut()) };
        usize::try_from(r).ok()
    }

    /// Whether the pattern matches all of `s` (find's test).
    pub fn matches_whole(&self, s: &[u8]) -> bool {
        self.match_len(s) == Some(s.len())
    }
}

impl Drop for Regex {
    fn drop(&mut self) {
        // SAFETY: we own the buffer exclusively; it was set up with NULL
        // translate and fastmap (so regfree frees only what glibc
        // allocated) and regfree tolerates a NULL DFA after a failure.
        unsafe { regfree(self.buf.get()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, syn: Syntax, s: &str) -> bool {
        Regex::new(p.as_bytes(), syn).unwrap().matches_whole(s.as_bytes())
    }

    #[test]
    fn dialects() {
        assert!(m(".*\\.c", SYNTAX_EMACS, "./a/b.c"));
        assert!(!m(".*\\.c", SYNTAX_EMACS, "./a/b.cc"));
        assert!(m("\\./\\(a\\|b\\)+", SYNTAX_EMACS, "./abba"));
        assert!(!m(".*x", SYNTAX_EMACS, "a\nx"));
        assert!(m(".*x", SYNTAX_EMACS | DOT_NEWLINE, "a\nx"));
        assert!(m("a{2}", SYNTAX_EMACS, "a{2}"));
        assert!(m("a\\{2,3\\}", SYNTAX_POSIX_BASIC, "aaa"));
        assert!(m("(a|b){2}c?", SYNTAX_POSIX_EXTENDED, "ab"));
        assert!(m("A.C", SYNTAX_POSIX_EXTENDED | ICASE, "abc"));
        assert!(m("[\\]]", SYNTAX_AWK, "]"));
        assert!(m("[\\]]", SYNTAX_POSIX_EXTENDED, "\\]"));
    }

    #[test]
    fn errors() {
        assert!(Regex::new(b"(", SYNTAX_POSIX_EXTENDED).is_err());
        assert!(Regex::new(b"[", SYNTAX_EMACS).is_err());
    }

    #[test]
    fn shared_between_threads() {
        let re = Regex::new(b".*/x[0-9]+", SYNTAX_POSIX_EXTENDED).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let re = &re;
                s.spawn(move || {
                    for i in 0..2000 {
                        let p = format!("./d{t}/x{i}");
                        assert!(re.matches_whole(p.as_bytes()));
                        assert!(!re.matches_whole(format!("./y{i}").as_bytes()));
                    }
                });
            }
        });
    }
}

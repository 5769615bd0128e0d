//! Shell wildcard matching by the C library's `fnmatch(3)`: the function
//! GNU ls (`-I`, `--hide`), du (`--exclude`) and find (`-name`, `-path`…)
//! call, so every corner of the pattern language — `[=c=]` and `[.c.]`,
//! malformed brackets, unknown classes, a trailing backslash,
//! `POSIXLY_CORRECT` turning off `[^…]` — agrees with theirs. It follows
//! the locale the tools set at start: characters in a multibyte locale
//! (case folding by `towlower`, classes by `isw*`, ranges and `[[=e=]]` by
//! collation), bytes once either string is invalid there.

use std::ffi::CStr;

/// Leading '.' only matched by a literal '.' (`FNM_PERIOD`).
pub const PERIOD: i32 = libc::FNM_PERIOD;
/// Letters match either case (`FNM_CASEFOLD`; by `towlower` in a
/// multibyte locale).
pub const CASEFOLD: i32 = libc::FNM_CASEFOLD;

/// Whether `name` matches `pattern` under `flags` ([`PERIOD`], [`CASEFOLD`]).
pub fn fnmatch(pattern: &CStr, name: &CStr, flags: i32) -> bool {
    // SAFETY: both strings are NUL-terminated and live for the call;
    // fnmatch only reads them.
    unsafe { libc::fnmatch(pattern.as_ptr(), name.as_ptr(), flags) == 0 }
}

//! Shell wildcard matching by the C library's `fnmatch(3)`: the function
//! GNU ls (`-I`, `--hide`), du (`--exclude`) and find (`-name`, `-path`…)
//! call, so every corner of the pattern language — `[=c=]` and `[.c.]`,
//! malformed brackets, unknown classes, a trailing backslash,
//! `POSIXLY_CORRECT` turning off `[^…]` — agrees with theirs. The tools
//! never call `setlocale`, so it matches bytes as in the C locale.

use std::ffi::CStr;

/// Leading '.' only matched by a literal '.' (`FNM_PERIOD`).
pub const PERIOD: i32 = libc::FNM_PERIOD;
/// ASCII letters match either case (`FNM_CASEFOLD`).
pub const CASEFOLD: i32 = libc::FNM_CASEFOLD;

/// Whether `name` matches `pattern` under `flags` ([`PERIOD`], [`CASEFOLD`]).
pub fn fnmatch(pattern: &CStr, name: &CStr, flags: i32) -> bool {
    // SAFETY: both strings are NUL-terminated and live for the call;
    // fnmatch only reads them.
    unsafe { libc::fnmatch(pattern.as_ptr(), name.as_ptr(), flags) == 0 }
}

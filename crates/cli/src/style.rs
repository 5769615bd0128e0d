//! The tools' own colours (not LS_COLORS): the `prog:` of error messages
//! and the headings and option names of `--help`, on a terminal only.
//!
//! Colour is used when the stream is a terminal, `NO_COLOR` is unset or
//! empty (<https://no-color.org>), `TERM` is set and not `dumb`, and the
//! tool has not turned it off (`lsr --color=never`). Output to a pipe or a
//! file is never styled, so it stays byte-identical to GNU's.

use std::sync::atomic::{AtomicBool, Ordering};

use owo_colors::OwoColorize;

static OFF: AtomicBool = AtomicBool::new(false);

/// Turns the tools' own colours off for the rest of the run.
pub fn disable() {
    OFF.store(true, Ordering::Relaxed);
}

pub fn disabled() -> bool {
    OFF.load(Ordering::Relaxed)
}

/// Whether the environment allows colour on a terminal: `NO_COLOR`
/// unset or empty, `TERM` set and not `dumb`.
pub fn env_allows(no_color: Option<&[u8]>, term: Option<&[u8]>) -> bool {
    no_color.is_none_or(|v| v.is_empty()) && term.is_some_and(|t| !t.is_empty() && t != b"dumb")
}

/// Whether to style what goes to descriptor `fd`.
pub fn on(fd: i32) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if OFF.load(Ordering::Relaxed) || !libcw::isatty(fd) {
        return false;
    }
    let no_color = std::env::var_os("NO_COLOR");
    let term = std::env::var_os("TERM");
    env_allows(no_color.as_deref().map(|v| v.as_bytes()), term.as_deref().map(|v| v.as_bytes()))
}

/// The `prog` of `prog: message`, bold red when styled.
pub fn error_prefix(prog: &str, styled: bool) -> String {
    if styled {
        format!("{}", prog.bold().red())
    } else {
        prog.to_string()
    }
}

/// `--help`'s styling on a terminal: bold headings, bold option names.
pub struct Help;

impl crate::opts::Styler for Help {
    fn heading(&self, s: &str) -> String {
        format!("{}", s.bold().underline())
    }
    fn option(&self, s: &str) -> String {
        // Style the names, not the argument placeholder.
        let cut = s.find(['=', '[', ' ']).filter(|&k| k > 4).unwrap_or(s.len());
        let (names, arg) = s.split_at(cut);
        format!("{}{}", names.bold(), arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_rules() {
        assert!(env_allows(None, Some(b"xterm")));
        assert!(env_allows(Some(b""), Some(b"xterm")));
        assert!(!env_allows(Some(b"1"), Some(b"xterm")));
        assert!(!env_allows(None, Some(b"dumb")));
        assert!(!env_allows(None, None));
        assert_eq!(error_prefix("ls", false), "ls");
        let s = error_prefix("ls", true);
        assert!(s.starts_with('\x1b') && s.contains("ls") && s.ends_with('m'), "{s:?}");
    }
}

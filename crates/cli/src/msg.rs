//! The program name and GNU-format diagnostics on stderr.

use std::io::Write;
use std::sync::OnceLock;

static NAME: OnceLock<String> = OnceLock::new();

/// Takes the name from argv[0]'s basename, falling back to `default`.
pub fn init_progname(default: &str) {
    let name = std::env::args_os()
        .next()
        .and_then(|a| {
            let p = std::path::PathBuf::from(a);
            p.file_name().map(|n| n.to_string_lossy().into_owned())
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| default.to_string());
    let _ = NAME.set(name);
}

/// Sets the name explicitly (tests, library callers).
pub fn set_progname(name: &str) {
    let _ = NAME.set(name.to_string());
}

pub fn progname() -> &'static str {
    NAME.get().map_or("ringutils", String::as_str)
}

/// Writes `prog: <parts…>\n` to stderr in one write, so parallel walkers'
/// messages never interleave mid-line. Parts are raw bytes because names
/// in messages need not be UTF-8 (they are quoted by the caller). Plain on
/// a terminal too: GNU's messages carry no escape sequences, and scripts
/// that run under a pty (expect, script) compare them.
pub fn error_bytes(parts: &[&[u8]]) {
    let mut line = Vec::with_capacity(128);
    line.extend_from_slice(progname().as_bytes());
    line.extend_from_slice(b": ");
    for p in parts {
        line.extend_from_slice(p);
    }
    line.push(b'\n');
    let _ = std::io::stderr().lock().write_all(&line);
}

/// GNU's close_stdout complaint: `prog: write error` (translated), with
/// the errno's text when there is one.
pub fn write_error(e: Option<libcw::Errno>) {
    let head = crate::locale::tr(c"write error");
    match e {
        Some(e) => error_bytes(&[head, b": ", e.message().as_bytes()]),
        None => error_bytes(&[head]),
    }
}

/// `prog: message`.
pub fn error(message: &str) {
    error_bytes(&[message.as_bytes()]);
}

/// `prog: <msg>\nTry 'prog --help' for more information.` — GNU's form
/// for bad usage.
pub fn usage_error(message: &str) {
    usage_error_bytes(message.as_bytes());
}

/// [`usage_error`] for a message that need not be UTF-8 (getopt names
/// an invalid option byte as it is).
pub fn usage_error_bytes(message: &[u8]) {
    let mut s = Vec::new();
    s.extend_from_slice(progname().as_bytes());
    s.extend_from_slice(b": ");
    s.extend_from_slice(message);
    s.push(b'\n');
    s.extend_from_slice(&try_help());
    let _ = std::io::stderr().lock().write_all(&s);
}

/// GNU's `Try 'prog --help' for more information.` line, translated.
pub fn try_help() -> Vec<u8> {
    crate::locale::trf(c"Try '%s --help' for more information.\n", &[progname().as_bytes()])
}

//! The progress line (`--progress`, beyond GNU): when the walk takes more
//! than a second, `ldu: OPERAND: N entries, SIZE, reading DIR` is redrawn
//! on standard error a few times a second — the operand being walked, what
//! was counted under it so far (each operand starts again from nothing),
//! and the directory a walker entered last — and cleared before any
//! output to the same terminal, before any message, and at the end. By
//! default only when standard error is a terminal; it never goes to
//! standard output, so redirected output has none of it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::sink::Sink;

pub struct Progress {
    /// The operand being walked, counted from 1 (0: none yet); counts
    /// made under an earlier one are dropped.
    operand: AtomicU64,
    entries: AtomicU64,
    bytes: AtomicU64,
    /// The operand's name and the directory entered last.
    names: Mutex<Names>,
    /// Set each time the line is drawn: the next walker to enter a
    /// directory names it (one lock per redraw, not per directory).
    want_dir: AtomicBool,
    done: Mutex<bool>,
    cv: Condvar,
    /// The terminal's width, to keep the line on one row (0: unknown).
    width: usize,
}

#[derive(Default)]
struct Names {
    operand: Vec<u8>,
    dir: Vec<u8>,
}

/// How long a run must take before progress is shown.
const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(200);

impl Progress {
    /// For standard error `width` columns wide (0: not a terminal).
    pub fn new(width: usize) -> Progress {
        Progress {
            operand: AtomicU64::new(0),
            entries: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            names: Mutex::default(),
            want_dir: AtomicBool::new(true),
            done: Mutex::new(false),
            cv: Condvar::new(),
            width,
        }
    }

    /// Operand number `k` (from 1), named `name`, starts: counting starts
    /// again from nothing.
    pub fn start_operand(&self, k: u64, name: &[u8]) {
        let mut n = ringio::sync::lock(&self.names);
        n.operand.clear();
        n.operand.extend_from_slice(name);
        n.dir.clear();
        self.entries.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
        self.operand.store(k, Ordering::Relaxed);
    }

    /// The operand counts are being made for now.
    pub fn operand(&self) -> u64 {
        self.operand.load(Ordering::Relaxed)
    }

    /// Adds a thread's counts made under operand `k` since its last
    /// report (dropped if another operand started meanwhile).
    pub fn add(&self, k: u64, entries: u64, bytes: u64) {
        if k == self.operand() {
            self.entries.fetch_add(entries, Ordering::Relaxed);
            self.bytes.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// A walker enters directory `path`: named on the line if the line
    /// asked since it was last drawn.
    pub fn entering(&self, path: &[u8]) {
        if self.want_dir.load(Ordering::Relaxed) && self.want_dir.swap(false, Ordering::Relaxed) {
            let mut n = ringio::sync::lock(&self.names);
            n.dir.clear();
            n.dir.extend_from_slice(path);
        }
    }

    /// Runs on its own thread until [`Progress::stop`].
    pub fn run(&self, sink: &Sink) {
        let start = Instant::now();
        let mut done = ringio::sync::lock(&self.done);
        loop {
            let (g, _) = ringio::sync::wait_timeout(&self.cv, done, TICK);
            done = g;
            if *done {
                break;
            }
            if start.elapsed() >= DELAY && self.operand() > 0 {
                let line = {
                    let n = ringio::sync::lock(&self.names);
                    text(
                        cli::progname(),
                        &n.operand,
                        self.entries.load(Ordering::Relaxed),
                        self.bytes.load(Ordering::Relaxed),
                        &n.dir,
                        self.width,
                    )
                };
                sink.progress(&line);
                self.want_dir.store(true, Ordering::Relaxed);
            }
        }
        drop(done);
        sink.clear_progress();
    }

    pub fn stop(&self) {
        *ringio::sync::lock(&self.done) = true;
        self.cv.notify_all();
    }
}

/// The line: `PROG: OPERAND: N entries, SIZE, reading DIR`, names with
/// what a terminal can't print as `?` (a name can hold escape sequences),
/// cut to `width` columns (0: no limit), DIR losing its beginning first.
fn text(prog: &str, operand: &[u8], entries: u64, bytes: u64, dir: &[u8], width: usize) -> Vec<u8> {
    let mut head = Vec::new();
    head.extend_from_slice(prog.as_bytes());
    head.extend_from_slice(b": ");
    cli::quote::qmark_into(&mut head, operand);
    let noun = if entries == 1 { "entry" } else { "entries" };
    let human = cli::size::human(bytes, 1024);
    head.extend_from_slice(format!(": {entries} {noun}, {human}").as_bytes());
    let mut d = Vec::new();
    cli::quote::qmark_into(&mut d, dir);
    let cols = cli::quote::display_width;
    // The line must stay shorter than the terminal: a character in its
    // last column leaves the cursor there, and a wrapped line is not
    // cleared by the next redraw.
    let room = if width == 0 { usize::MAX } else { width - 1 };
    if !d.is_empty() {
        const READING: &[u8] = b", reading ";
        let left = room.saturating_sub(cols(&head) + READING.len());
        if cols(&d) <= left {
            head.extend_from_slice(READING);
            head.extend_from_slice(&d);
        } else if left > 4 {
            head.extend_from_slice(READING);
            head.extend_from_slice("…".as_bytes());
            head.extend_from_slice(tail_within(&d, left - 1));
        }
    }
    if cols(&head) > room {
        // Not even the counts fit: the end of the line is cut.
        let mut cut = Vec::new();
        for ch in head.utf8_chunks() {
            for c in ch.valid().chars() {
                let mut b = [0; 4];
                let s = c.encode_utf8(&mut b).as_bytes();
                if cols(&cut) + cols(s) > room {
                    return cut;
                }
                cut.extend_from_slice(s);
            }
        }
        return cut;
    }
    head
}

/// The longest end of `s` at most `cols` columns wide, starting on a
/// character.
fn tail_within(s: &[u8], cols: usize) -> &[u8] {
    let mut start = s.len();
    while start > 0 {
        let mut k = start - 1;
        // Back to the first byte of a UTF-8 sequence.
        while k > 0 && s[k] & 0xc0 == 0x80 {
            k -= 1;
        }
        if cli::quote::display_width(&s[k..]) > cols {
            break;
        }
        start = k;
    }
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::text;

    fn t(op: &[u8], dir: &[u8], width: usize) -> String {
        String::from_utf8(text("ldu", op, 12, 2048, dir, width)).unwrap()
    }

    #[test]
    fn the_line() {
        assert_eq!(t(b"/var", b"/var/lib", 0), "ldu: /var: 12 entries, 2.0K, reading /var/lib");
        assert_eq!(t(b"/var", b"", 0), "ldu: /var: 12 entries, 2.0K");
        assert_eq!(
            t(b"/v\x1b[2J", b"/v\x1b[2J/x", 0),
            "ldu: /v?[2J: 12 entries, 2.0K, reading /v?[2J/x"
        );
        // 80 columns: the line keeps to 79, the directory's start goes.
        let long = format!("/var/{}", "d".repeat(100));
        let s = t(b"/var", long.as_bytes(), 80);
        assert_eq!(s.chars().count(), 79, "{s}");
        assert!(s.starts_with("ldu: /var: 12 entries, 2.0K, reading …d"), "{s}");
        assert!(s.ends_with("dddd"));
        // Too narrow for the directory: left out; narrower still: cut.
        assert_eq!(t(b"/var", b"/var/lib", 30), "ldu: /var: 12 entries, 2.0K");
        assert_eq!(t(b"/var", b"/var/lib", 12), "ldu: /var: ");
    }
}

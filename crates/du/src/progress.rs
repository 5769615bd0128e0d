//! The progress line: when stderr is a terminal and the walk takes more
//! than a second, `N entries, SIZE` is redrawn a few times a second and
//! cleared before any output and at the end.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::sink::Sink;

#[derive(Default)]
pub struct Progress {
    entries: AtomicU64,
    bytes: AtomicU64,
    done: Mutex<bool>,
    cv: Condvar,
}

/// How long a run must take before progress is shown.
const DELAY: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(200);

impl Progress {
    /// Adds a thread's counts since its last report.
    pub fn add(&self, entries: u64, bytes: u64) {
        self.entries.fetch_add(entries, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
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
            if start.elapsed() >= DELAY {
                sink.progress(&text(
                    cli::progname(),
                    self.entries.load(Ordering::Relaxed),
                    self.bytes.load(Ordering::Relaxed),
                ));
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

fn text(prog: &str, entries: u64, bytes: u64) -> String {
    format!("{prog}: {entries} entries, {}", cli::size::human(bytes, 1024))
}

#[cfg(test)]
mod tests {
    #[test]
    fn text() {
        assert_eq!(super::text("ldu", 12, 2048), "ldu: 12 entries, 2.0K");
    }
}

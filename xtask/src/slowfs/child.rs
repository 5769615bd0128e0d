//! An `xtask slowfs` server run as a child process, from its parent's side:
//! its counters file and its end. For the benches, and through `#[path]`
//! for the end-to-end tests, so it names nothing outside itself.
//!
//! `--stats FILE`: on SIGUSR1 the server rewrites FILE (by rename, so a new
//! inode) with one `key value` line a counter; on SIGUSR2 it zeroes them
//! and counts the reset (`resets`).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

/// A running server's counters file.
pub struct StatsFile {
    path: PathBuf,
    pid: i32,
    /// The resets asked for so far.
    resets: u64,
}

impl StatsFile {
    /// The counters file `path` of the server `pid`.
    pub fn new(path: PathBuf, pid: u32) -> StatsFile {
        StatsFile { path, pid: pid as i32, resets: 0 }
    }

    fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill takes no pointers; the pid is our own child's.
        unsafe { libc::kill(self.pid, sig) };
    }

    /// The file's inode and its lines, in order.
    fn read(&self) -> Option<(u64, Vec<(String, String)>)> {
        let ino = std::fs::metadata(&self.path).ok()?.ino();
        let text = std::fs::read_to_string(&self.path).ok()?;
        let lines = text
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Some((ino, lines))
    }

    /// Zeroes the counters; false when the server has not said so within
    /// `limit`.
    pub fn reset(&mut self, limit: Duration) -> bool {
        self.signal(libc::SIGUSR2);
        let want = (self.resets + 1).to_string();
        let acknowledged = poll(limit, || {
            let (_, lines) = self.read()?;
            lines.iter().any(|(k, v)| k == "resets" && *v == want).then_some(())
        });
        if acknowledged.is_some() {
            self.resets += 1;
        }
        acknowledged.is_some()
    }

    /// The counters now, as the server writes them when asked; None when
    /// it has not within `limit`.
    pub fn fresh(&self, limit: Duration) -> Option<Vec<(String, String)>> {
        let before = self.read().map(|(ino, _)| ino);
        self.signal(libc::SIGUSR1);
        poll(limit, || self.read().filter(|(ino, _)| Some(*ino) != before).map(|(_, l)| l))
    }
}

/// Waits up to `limit` for the server to exit (having been asked to
/// unmount), kills it if it has not, and reaps it.
pub fn reap_within(child: &mut Child, limit: Duration) {
    let exited = poll(limit, || child.try_wait().ok().flatten());
    if exited.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// `f`'s first answer, asked every 2 ms for `limit`.
fn poll<T>(limit: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(v) = f() {
            return Some(v);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    None
}

//! What du adds up per entry and per directory: bytes (allocated or
//! apparent), inodes, and the latest time; for `--json`, which gives both
//! byte counts, the other one too.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use cli::timefmt::Timestamp;

/// The time of nothing: less than every real time.
pub const NO_TIME: Timestamp = Timestamp::MIN;

/// du's "disk usage info": one entry's, or a sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dui {
    /// What du counts: disk usage, or the apparent size under
    /// `--apparent-size`.
    pub bytes: u64,
    /// The other of the two (`--json` only, else 0).
    pub alt: u64,
    pub inodes: u64,
    pub time: Timestamp,
}

impl Default for Dui {
    fn default() -> Self {
        Dui { bytes: 0, alt: 0, inodes: 0, time: NO_TIME }
    }
}

impl Dui {
    pub fn add(&mut self, o: &Dui) {
        self.bytes = self.bytes.saturating_add(o.bytes);
        self.alt = self.alt.saturating_add(o.alt);
        self.inodes += o.inodes;
        if o.time > self.time {
            self.time = o.time;
        }
    }

    pub fn plus(mut self, o: &Dui) -> Dui {
        self.add(o);
        self
    }
}

/// A sum that several threads add into (a directory's children).
pub struct Tally {
    bytes: AtomicU64,
    alt: AtomicU64,
    inodes: AtomicU64,
    /// Only touched with `--time`; a lock because a timestamp doesn't fit
    /// one atomic word.
    time: Mutex<Timestamp>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            bytes: AtomicU64::new(0),
            alt: AtomicU64::new(0),
            inodes: AtomicU64::new(0),
            time: Mutex::new(NO_TIME),
        }
    }
}

impl Tally {
    pub fn add(&self, d: &Dui, with_time: bool) {
        // Saturation is not needed: 2^64 bytes is more than any tree holds.
        self.bytes.fetch_add(d.bytes, Ordering::Relaxed);
        // Zero unless --json: no second atomic add on a plain run.
        if d.alt != 0 {
            self.alt.fetch_add(d.alt, Ordering::Relaxed);
        }
        self.inodes.fetch_add(d.inodes, Ordering::Relaxed);
        if with_time {
            let mut t = ringio::sync::lock(&self.time);
            if d.time > *t {
                *t = d.time;
            }
        }
    }

    pub fn get(&self) -> Dui {
        Dui {
            bytes: self.bytes.load(Ordering::Relaxed),
            alt: self.alt.load(Ordering::Relaxed),
            inodes: self.inodes.load(Ordering::Relaxed),
            time: *ringio::sync::lock(&self.time),
        }
    }
}

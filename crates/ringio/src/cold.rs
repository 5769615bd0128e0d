//! Cold-cache detection: the engine notices when metadata operations block
//! on the device and says so, so the executors (the thread pool's workers)
//! and the walk ([`crate::Walkers`]) raise the number of operations in
//! flight, and lower it again once completions are cache-fast.
//!
//! Measured on the project VM (docs/engine.md §5, which says how to
//! re-measure): a
//! warm statx costs 1.3–1.7 µs, a cold one 5–8 µs (mostly the kernel
//! instantiating the inode, on the CPU); the first getdents of a directory
//! costs 4 µs warm and 77–79 µs cold (the directory block is read). Windows
//! of the median separate cleanly (cold p5 ≥ 4.9 µs, warm p95 ≤ 2.0 µs), and
//! the rule "median statx > 2.5 × the cached cost, or median small getdents
//! > 20 µs" (40 µs here, see below) fired in 13/13 cold runs and 0/21 warm ones.
//!
//! Cost on the warm path: two `clock_gettime` (vDSO, no syscall) per
//! fourth statx and per small-directory getdents, and a 16-entry median every
//! 16 samples; no syscalls. The state is process-wide: coldness belongs to
//! the device, not to one thread.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Samples per window; a window's median is one judgement.
const WINDOW: usize = 16;
/// Cold when a window's median statx is above this many times the cached
/// cost (in tenths), warm again below the lower ratio: the gap between
/// them is the hysteresis that keeps the state from flapping.
const COLD_RATIO_X10: u64 = 25;
const WARM_RATIO_X10: u64 = 15;
/// A getdents that returned at most this many bytes reads at most a block
/// or so; a bigger one costs more on the CPU alone, warm (a 64 KiB batch
/// of names), so it would say nothing about the device.
const DENTS_SMALL: usize = 4096;
/// A small getdents above this (median of a window) read the device; below
/// the lower one, it came from the cache. Absolute: a directory block read
/// costs ≥ ~50 µs on any real device, a cached one ~4 µs.
/// (Measured here on a loaded machine, warm: window medians of 9–15 µs for
/// a whole small-directory fill, which may take a second getdents to see
/// the end; cold reads take 77–79 µs at 1–2 threads.)
const DENTS_COLD_NS: u64 = 40_000;
const DENTS_WARM_NS: u64 = 15_000;
/// Warm windows in a row before the cold state is left, and cold ones
/// before it is entered: one window can be a burst of preemption on a
/// loaded machine (seen: a warm walk timed per batch turned cold).
const WARM_STREAK: u32 = 4;
/// Four windows are 256 statx per thread, ~1.5 ms of a cold walk; a warm
/// one under heavy load (load average 6 on 2 vCPUs) showed two windows in
/// a row at 10x the cached cost, never four.
const COLD_STREAK: u32 = 4;

static COLD: AtomicBool = AtomicBool::new(false);
/// The cached cost of one statx: the lowest window median seen (a median
/// is robust to preemption; the lowest is the cache-fast one). Starts
/// unknown (MAX), so the statx rule needs one window first.
static CACHED_STAT_NS: AtomicU64 = AtomicU64::new(u64::MAX);
/// Samples the injected slowness still applies to (see [`Slow`]).
static SLOW_LEFT: AtomicU64 = AtomicU64::new(0);
static SLOW_INIT: std::sync::Once = std::sync::Once::new();

/// The test hook `RINGUTILS_TEST_FAULT=slow:MICROS[@N]`: MICROS are added to the
/// measured latency of the first N samples (all of them without `@N`), as
/// if the device were slow, so a test can see the state rise and fall
/// without a clock threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slow {
    ns: u64,
    samples: u64,
}

impl Slow {
    fn parse(spec: &str) -> Option<Slow> {
        let rest = spec.trim().strip_prefix("slow:")?;
        let (us, n) = match rest.split_once('@') {
            Some((u, n)) => (u, n.trim().parse().ok()?),
            None => (rest, u64::MAX),
        };
        Some(Slow { ns: us.trim().parse::<u64>().ok()?.saturating_mul(1000), samples: n })
    }
}

fn slow() -> Option<Slow> {
    static S: std::sync::OnceLock<Option<Slow>> = std::sync::OnceLock::new();
    *S.get_or_init(|| {
        let s = Slow::parse(crate::env::get().fault.as_deref()?)?;
        SLOW_INIT.call_once(|| SLOW_LEFT.store(s.samples, Ordering::Relaxed));
        Some(s)
    })
}

/// The injected extra latency for one more sample, if any is left.
fn injected() -> u64 {
    match slow() {
        Some(s) => {
            let took =
                SLOW_LEFT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
            if took.is_ok() {
                s.ns
            } else {
                0
            }
        }
        None => 0,
    }
}

/// Whether completions are currently device-slow.
pub fn is_cold() -> bool {
    COLD.load(Ordering::Relaxed)
}

/// Walker threads (or pool workers of a tree walk) to run while cold:
/// 16–64 threads measured best cold on 2 vCPUs (the CPU instantiating
/// inodes and the device both need many requests in flight), 8 was 8–17 %
/// slower, 2 was 60–75 % slower (docs/engine.md §5; `cargo xtask du-floor
/// DIR N` after a cache drop re-measures it).
pub fn cold_depth() -> usize {
    (16 * crate::sys::available_cpus()).clamp(32, 64)
}

/// Pool workers of a listing (lsr) while cold: one directory's listing is
/// CPU-bound and one getdents stream can't feed more than ~8 (8 threads
/// 547 ms, 32 threads 691 ms cold; docs/engine.md §5, `cargo xtask
/// ls-floor DIR N` after a cache drop re-measures it).
pub(crate) fn cold_pool_workers() -> usize {
    8
}

/// A started measurement; [`Timer::stats`] or [`Timer::dents`] ends it.
/// `None` inside when this thread is not sampling right now.
#[must_use]
pub struct Timer(Option<Instant>);

/// Starts timing an operation (or a batch of them).
pub fn start() -> Timer {
    Timer(Some(Instant::now()))
}

/// Starts timing one operation in [`SAMPLE_EVERY`] on this thread: for
/// single operations, where a clock read each would cost a few percent of
/// a warm statx. Single operations, not batches: a batch's average takes
/// in any preemption, a median of single ones does not.
pub fn sample() -> Timer {
    let due = TICK.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n % SAMPLE_EVERY == 0
    });
    Timer(due.then(Instant::now))
}

const SAMPLE_EVERY: u32 = 4;

impl Timer {
    /// `n` statx ran since [`start`].
    pub fn stats(self, n: usize) {
        let Some(t) = self.0 else { return };
        if n == 0 {
            return;
        }
        let ns = t.elapsed().as_nanos() as u64 / n as u64 + injected();
        PROBE.with(|p| p.borrow_mut().stat(ns));
    }

    /// One getdents call returned `bytes` of records since [`start`].
    pub fn dents(self, bytes: usize) {
        self.block(bytes);
    }

    /// A small file was opened, read whole (`bytes`) and closed since
    /// [`start`]: like a small directory's getdents, one block read from
    /// the device when cold (≥ 50 µs), a few µs from the cache (10,000
    /// files of 1–300 bytes: 3–5 µs each, open and close included).
    pub fn small_file(self, bytes: usize) {
        self.block(bytes);
    }

    /// A read of at most a block or so.
    fn block(self, bytes: usize) {
        let Some(t) = self.0 else { return };
        if bytes == 0 || bytes > DENTS_SMALL {
            return;
        }
        let ns = t.elapsed().as_nanos() as u64 + injected();
        PROBE.with(|p| p.borrow_mut().dents(ns));
    }
}

#[derive(Default)]
struct Window {
    v: [u64; WINDOW],
    n: usize,
}

impl Window {
    /// Adds a sample; returns the median when the window is full.
    fn push(&mut self, ns: u64) -> Option<u64> {
        self.v[self.n] = ns;
        self.n += 1;
        if self.n < WINDOW {
            return None;
        }
        self.n = 0;
        let mut s = self.v;
        let (_, m, _) = s.select_nth_unstable(WINDOW / 2);
        Some(*m)
    }
}

/// One thread's recent samples.
#[derive(Default)]
struct Probe {
    stat: Window,
    dents: Window,
    /// The last window medians (0: none yet, which counts as warm).
    stat_med: u64,
    dents_med: u64,
    warm_streak: u32,
    cold_streak: u32,
}

thread_local! {
    static TICK: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    static PROBE: RefCell<Probe> = RefCell::new(Probe::default());
}

impl Probe {
    fn stat(&mut self, ns: u64) {
        if let Some(m) = self.stat.push(ns) {
            CACHED_STAT_NS.fetch_min(m, Ordering::Relaxed);
            self.stat_med = m;
            self.judge();
        }
    }

    fn dents(&mut self, ns: u64) {
        if let Some(m) = self.dents.push(ns) {
            self.dents_med = m;
            self.judge();
        }
    }

    fn judge(&mut self) {
        let c0 = CACHED_STAT_NS.load(Ordering::Relaxed);
        let stat_x10 = |m: u64| if c0 == u64::MAX || c0 == 0 { 0 } else { m * 10 / c0 };
        let cold = stat_x10(self.stat_med) > COLD_RATIO_X10 || self.dents_med > DENTS_COLD_NS;
        let warm = stat_x10(self.stat_med) < WARM_RATIO_X10 && self.dents_med < DENTS_WARM_NS;
        if cold {
            self.warm_streak = 0;
            self.cold_streak += 1;
            if self.cold_streak >= COLD_STREAK && !COLD.load(Ordering::Relaxed) {
                COLD.store(true, Ordering::Relaxed);
            }
        } else if warm {
            self.cold_streak = 0;
            self.warm_streak += 1;
            if self.warm_streak >= WARM_STREAK && COLD.load(Ordering::Relaxed) {
                COLD.store(false, Ordering::Relaxed);
            }
        } else {
            self.warm_streak = 0;
            self.cold_streak = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_specs() {
        assert_eq!(Slow::parse("slow:100"), Some(Slow { ns: 100_000, samples: u64::MAX }));
        assert_eq!(Slow::parse("slow:5@64"), Some(Slow { ns: 5000, samples: 64 }));
        assert_eq!(Slow::parse("enter:EBADF@3"), None);
        assert_eq!(Slow::parse("slow:x"), None);
    }

    #[test]
    fn window_median() {
        let mut w = Window::default();
        for i in 0..WINDOW as u64 - 1 {
            assert_eq!(w.push(100 - i), None);
        }
        assert_eq!(w.push(1), Some(100 - WINDOW as u64 / 2 + 1));
    }
}

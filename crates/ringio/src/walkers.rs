//! The engine policy of a tree walk: how many walker threads run, and the
//! engine each one drives. The walk says what it is (ordered or not, on a
//! high-latency file system or not, threads asked for); this decides how.

use crate::engine::{default_backend, Backend, Config, Engine};
use crate::sys::fs::remote_depth;

/// Listings at least this long are shared among walker threads.
const SHARE_FROM: usize = 1024;
/// Entries per chunk: big enough that the hand-off is noise next to the
/// ~1 µs statx of each entry.
const CHUNK: usize = 256;
/// On a high-latency file system each statx is a round trip (~1 ms through
/// slowfs), so even small listings are worth sharing, in small chunks: a
/// 10,000-file directory in 256-entry chunks kept 40 requests in flight.
const REMOTE_SHARE_FROM: usize = 64;
const REMOTE_CHUNK: usize = 16;

/// A walk's executor policy, decided once per walk.
#[derive(Clone, Copy, Debug)]
pub struct Walkers {
    /// The executor the walk as a whole runs on.
    backend: Backend,
    /// A root is on a high-latency file system.
    remote: bool,
}

impl Walkers {
    /// The policy for a walk whose roots are (`remote`) or are not on a
    /// high-latency file system. `cfg.backend` forces an executor (tests,
    /// benches); otherwise `RINGIO_BACKEND`, else the measured default.
    pub fn new(cfg: &Config, remote: bool) -> Walkers {
        let forced = cfg.backend.or_else(Backend::from_env);
        let backend = match forced {
            Some(b) => b,
            // Inline syscalls (the default on one CPU) would keep one
            // request in flight on a high-latency file system: take worker
            // threads there, unless an executor was asked for.
            None if remote && default_backend() == Backend::Inline => Backend::Threads,
            None => default_backend(),
        };
        Walkers { backend, remote }
    }

    /// The policy for a walk of `roots`: whether any is on a high-latency
    /// file system is found out here (one `statfs` each).
    pub fn for_roots(cfg: &Config, roots: &[Vec<u8>]) -> Walkers {
        let remote = roots.iter().any(|r| {
            std::ffi::CString::new(r.as_slice())
                .ok()
                .and_then(|p| crate::sys::fs::high_latency_path(&p).ok().flatten())
                .is_some()
        });
        Walkers::new(cfg, remote)
    }

    /// Whether a walker thread whose engine is `eng` shares a big listing's
    /// stats with the walk's other threads, and how: `Some((from, chunk))`
    /// shares listings of at least `from` entries in chunks of `chunk`.
    /// Directories are the walker's unit of work, so one huge directory
    /// would be stat'ed by one thread while the others idle: where the
    /// engine runs syscalls inline the threads are the parallelism, and on
    /// a high-latency file system a ring's share of io-wq workers is small.
    pub fn shares_stats(&self, eng: &Engine) -> Option<(usize, usize)> {
        if self.remote {
            Some((REMOTE_SHARE_FROM, REMOTE_CHUNK))
        } else if !eng.concurrent() {
            Some((SHARE_FROM, CHUNK))
        } else {
            None
        }
    }

    /// How many walker threads to run: 1 for an `ordered` walk or under
    /// inline syscalls, else `requested` when not 0, else the CPUs (at most
    /// 8), or on a high-latency file system the in-flight depth.
    pub fn threads(&self, requested: usize, ordered: bool) -> usize {
        if ordered || self.backend == Backend::Inline {
            return 1;
        }
        if requested > 0 {
            return requested;
        }
        let cpus = crate::sys::available_cpus().clamp(1, 8);
        // On a network or FUSE file system each request mostly waits, so
        // the walk wants many directories in flight, not one per CPU: a
        // directory's requests (open, READDIRs) are sequential, and neither
        // executor can overlap them within one thread (getdents64 has no
        // ring opcode). Measured through slowfs at 1 ms (`cargo xtask bench
        // --slowfs 1ms`, the 20k-entry tree): lfind with the ring on 2 threads 2.6 s, on 64 threads 0.17 s.
        if self.remote {
            return remote_depth().max(cpus);
        }
        cpus
    }

    /// How many walker threads a walk may grow to while the device is cold
    /// ([`crate::cold`]): the cold depth, unless the walk is ordered, runs
    /// inline syscalls, was given a thread count, or already runs at least
    /// that many (a high-latency file system).
    pub fn cold_threads(&self, requested: usize, ordered: bool) -> usize {
        let warm = self.threads(requested, ordered);
        if ordered || requested > 0 || self.backend == Backend::Inline {
            return warm;
        }
        warm.max(crate::cold::cold_depth())
    }

    /// Of a walk's `warm` and `cold` thread counts ([`Walkers::threads`],
    /// [`Walkers::cold_threads`]), the one to run now: the cold one while
    /// completions are device-slow, the warm one once they are cache-fast
    /// again (the extra threads then park).
    pub fn active(warm: usize, cold: usize) -> usize {
        if crate::cold::is_cold() {
            cold
        } else {
            warm
        }
    }

    /// The engine of one walker thread (`single`: the walk's only one).
    /// The walker threads are the parallelism, so under `threads` each runs
    /// plain syscalls inline. On a high-latency file system a ring gets more
    /// io-wq workers, so a directory's stat batch is worked on all at once;
    /// so does a pool for the one thread of an ordered walk.
    pub fn engine(&self, single: bool) -> Engine {
        let remote = self.remote;
        let b = match self.backend {
            Backend::Uring => Backend::Uring,
            Backend::Threads if remote && single => Backend::Threads,
            Backend::Threads | Backend::Inline => Backend::Inline,
        };
        // Many walker threads each with a ring: each ring's io-wq gets a
        // share of the depth, not all of it (64 threads x 64 io-wq workers
        // put ~1,000 requests in flight and cost twice the CPU of the pool);
        // big listings are shared among the threads instead (walk's
        // parallel.rs). Measured (lfind -size +1k, tree-20k through slowfs,
        // depth 64): 4 io-wq workers per ring 0.49 s, 16: 0.64 s, 64: 0.84 s.
        let threads =
            (b == Backend::Uring && remote && !single).then(|| (remote_depth() / 16).max(4));
        let cfg = Config { backend: Some(b), threads, ..Config::default() };
        let mut eng = Engine::with_config(cfg);
        if remote {
            eng.raise_depth(remote_depth());
        }
        eng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_shared_where_walkers_run_inline_or_the_fs_is_remote() {
        const { assert!(REMOTE_SHARE_FROM < SHARE_FROM && REMOTE_CHUNK < CHUNK) };
        let inline = Config { backend: Some(Backend::Inline), ..Config::default() };
        let eng = Engine::with_config(inline.clone());
        assert_eq!(Walkers::new(&inline, false).shares_stats(&eng), Some((SHARE_FROM, CHUNK)));
        let remote = Walkers::new(&inline, true).shares_stats(&eng);
        assert_eq!(remote, Some((REMOTE_SHARE_FROM, REMOTE_CHUNK)));
        let pool =
            Engine::with_config(Config { backend: Some(Backend::Threads), ..inline.clone() });
        assert_eq!(Walkers::new(&inline, false).shares_stats(&pool), None);
    }
}

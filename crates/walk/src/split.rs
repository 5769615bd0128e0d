//! Sharing one big directory's stats among the walker threads.
//!
//! Directories are the walker's unit of work, so a single huge directory
//! (a mail spool, a cache) would be stat'ed by one thread while the others
//! idle. When a listing is big and the engines run syscalls inline, its
//! stats are cut into chunks: the owner stats from the front, the chunks
//! go on the shared stack for idle threads (LIFO, so they start from the
//! back), and the owner takes back whatever nobody has started.

use std::ops::Range;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ringio::Statx;

use crate::reader::{stat_range, Listing, Outcome, RawEnt};
use crate::StatNeed;

/// Listings at least this long are shared.
const SPLIT_AT: usize = 1024;
/// Entries per chunk: big enough that the hand-off is noise next to the
/// ~1 µs statx of each entry.
const CHUNK: usize = 256;
/// On a high-latency file system each statx is a round trip (~1 ms through
/// slowfs), so even small listings are worth sharing, in small chunks: a
/// 10,000-file directory in 256-entry chunks kept 40 requests in flight.
const REMOTE_SPLIT_AT: usize = 64;
const REMOTE_CHUNK: usize = 16;

/// (shortest listing to share, entries per chunk).
pub(crate) fn sizes(remote: bool) -> (usize, usize) {
    if remote {
        (REMOTE_SPLIT_AT, REMOTE_CHUNK)
    } else {
        (SPLIT_AT, CHUNK)
    }
}

const PENDING: u8 = 0;
const TAKEN: u8 = 1;

/// The listing while its stats are shared.
struct Names {
    names: Vec<u8>,
    ents: Vec<RawEnt>,
    needs: Vec<StatNeed>,
}

/// One chunk of a shared listing's stats.
pub(crate) struct StatJob {
    dirfd: RawFd,
    names: Arc<Names>,
    range: Range<usize>,
    state: AtomicU8,
    result: Mutex<Option<(Vec<Outcome>, Vec<Statx>)>>,
    done: Condvar,
}

impl StatJob {
    /// Runs the chunk unless another thread already took it; returns
    /// whether this call ran it.
    pub(crate) fn try_run(&self) -> bool {
        if self.state.compare_exchange(PENDING, TAKEN, Ordering::AcqRel, Ordering::Acquire).is_err()
        {
            return false;
        }
        let r = self.range.clone();
        let mut out = vec![Outcome::None; r.len()];
        let mut stx = vec![ringio::sys::statx_zeroed(); r.len()];
        let n = &self.names;
        stat_range(self.dirfd, &n.names, &n.ents[r.clone()], &n.needs[r], &mut out, &mut stx);
        *ringio::sync::lock(&self.result) = Some((out, stx));
        self.done.notify_all();
        true
    }

    fn wait(&self) -> (Vec<Outcome>, Vec<Statx>) {
        let mut g = ringio::sync::lock(&self.result);
        loop {
            if let Some(v) = g.take() {
                return v;
            }
            g = ringio::sync::wait(&self.done, g);
        }
    }
}

/// Stats `list` (whose entries need `needs`) with the help of other
/// threads: `publish` puts the chunks where they can find them. Returns
/// once every stat is in the listing.
pub(crate) fn stat_shared(
    dirfd: RawFd,
    list: &mut Listing,
    needs: Vec<StatNeed>,
    chunk: usize,
    publish: impl FnOnce(Vec<Arc<StatJob>>),
) {
    let n = list.len();
    list.prepare_stats();
    let names = Arc::new(Names {
        names: std::mem::take(&mut list.names),
        ents: std::mem::take(&mut list.ents),
        needs,
    });
    let first = chunk.min(n);
    let jobs: Vec<Arc<StatJob>> = (first..n)
        .step_by(chunk)
        .map(|s| {
            Arc::new(StatJob {
                dirfd,
                names: Arc::clone(&names),
                range: s..(s + chunk).min(n),
                state: AtomicU8::new(PENDING),
                result: Mutex::new(None),
                done: Condvar::new(),
            })
        })
        .collect();
    publish(jobs.clone());
    stat_range(
        dirfd,
        &names.names,
        &names.ents[..first],
        &names.needs[..first],
        &mut list.outcomes[..first],
        &mut list.stx[..first],
    );
    for j in &jobs {
        j.try_run();
        let (out, stx) = j.wait();
        list.outcomes[j.range.clone()].copy_from_slice(&out);
        list.stx[j.range.clone()].copy_from_slice(&stx);
    }
    drop(jobs);
    // The chunks left on the stack still hold the names; copy them back then.
    match Arc::try_unwrap(names) {
        Ok(nm) => {
            list.names = nm.names;
            list.ents = nm.ents;
        }
        Err(shared) => {
            list.names = shared.names.clone();
            list.ents = shared.ents.clone();
        }
    }
}

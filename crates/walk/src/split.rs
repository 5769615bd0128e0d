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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Scratch;
    use std::os::fd::AsRawFd;

    /// A directory of `n` files, file `i` holding `i` bytes, listed.
    fn listing(s: &Scratch, n: usize) -> Listing {
        let mut l = Listing::default();
        for i in 0..n {
            let name = format!("f{i:04}");
            std::fs::write(s.join(&name), vec![b'x'; i]).unwrap();
            l.push(name.as_bytes(), ringio::dtype::REG, 0);
        }
        l
    }

    /// Every entry stat'ed, in its own slot, and the names given back.
    fn check(l: &Listing, n: usize) {
        assert_eq!(l.len(), n);
        for i in 0..n {
            assert_eq!(l.name(i), format!("f{i:04}").as_bytes());
            assert_eq!(l.outcomes[i], Outcome::Ok { followed: false }, "entry {i}");
            assert_eq!(l.stx[i].stx_size, i as u64, "entry {i}'s statx");
        }
    }

    #[test]
    fn nobody_helps_the_owner_does_it_all() {
        let s = Scratch::new("split-alone");
        let mut l = listing(&s, 50);
        let dir = std::fs::File::open(&s.0).unwrap();
        let mut published = 0;
        stat_shared(dir.as_raw_fd(), &mut l, vec![StatNeed::Lstat; 50], 8, |jobs| {
            // Chunks after the owner's first: 8..16, …, 48..50.
            published = jobs.len();
            assert_eq!(jobs.last().unwrap().range, 48..50);
        });
        assert_eq!(published, 6);
        check(&l, 50);
    }

    #[test]
    fn helpers_take_chunks_and_may_keep_them() {
        let s = Scratch::new("split-help");
        let mut l = listing(&s, 100);
        let dir = std::fs::File::open(&s.0).unwrap();
        let kept = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|sc| {
            stat_shared(dir.as_raw_fd(), &mut l, vec![StatNeed::Lstat; 100], 7, |jobs| {
                // Another thread runs every other chunk, from the back, as
                // the LIFO stack would hand them out, and keeps its Arcs
                // (the names go back to the listing by copy then).
                let theirs: Vec<_> = jobs.iter().rev().step_by(2).cloned().collect();
                sc.spawn(move || {
                    let ran = theirs.iter().filter(|j| j.try_run()).count();
                    assert!(ran <= theirs.len());
                });
                kept.lock().unwrap().extend(jobs);
            });
        });
        check(&l, 100);
        // A chunk runs once: whoever comes late is told so.
        assert!(kept.lock().unwrap().iter().all(|j| !j.try_run()));
    }

    #[test]
    fn needs_are_per_entry() {
        let s = Scratch::new("split-needs");
        let mut l = listing(&s, 20);
        let dir = std::fs::File::open(&s.0).unwrap();
        let needs: Vec<_> =
            (0..20).map(|i| if i % 3 == 0 { StatNeed::None } else { StatNeed::Lstat }).collect();
        stat_shared(dir.as_raw_fd(), &mut l, needs, 4, drop);
        for i in 0..20 {
            let want = if i % 3 == 0 { Outcome::None } else { Outcome::Ok { followed: false } };
            assert_eq!(l.outcomes[i], want, "entry {i}");
        }
    }
}

//! The thread-pool executor: worker threads run operations with plain
//! syscalls and post completions back; the caller's thread helps while it
//! waits.
//!
//! Measured on the project machine (docs/engine.md §1): plain
//! statx on 2 threads is the fastest way to stat a warm directory (840 ns/file
//! at 100k files, against ≥ 1236 ns for the best io_uring setup), because
//! io_uring punts every STATX to an io-wq kernel thread at 1.5–2.5× the CPU.
//!
//! Work moves in chunks, not single operations, so the mutex and the wake-ups
//! are paid once per chunk. Workers are spawned lazily on the first batch big
//! enough to share, so a 10-entry listing never pays for a thread start.

use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::Job;
use crate::op::Completion;

/// Batches this small run inline: handing them to a worker costs more than
/// running them.
const INLINE_MAX: usize = 4;
const CHUNK_MAX: usize = 64;

struct State {
    queue: VecDeque<Vec<Job>>,
    /// Completions, one vector per chunk as its worker ran it: handed over
    /// whole rather than appended to one list, since a completion carries
    /// a whole statx and each append copied it again (workers appending
    /// behind a caller that had not collected yet: ~5% of a 100,000-entry
    /// `lsr -al`'s user time).
    done: Vec<Vec<Completion>>,
    /// Completions in `done`.
    done_len: usize,
    /// Emptied completion vectors, for workers to fill next.
    spare: Vec<Vec<Completion>>,
    /// Emptied chunk vectors, recycled so that steady state allocates nothing.
    free: Vec<Vec<Job>>,
    shutdown: bool,
    caller_waiting: bool,
    sleeping: usize,
    /// Workers allowed to take work; those numbered at or above it park
    /// (the cold-cache depth was lowered again).
    active: usize,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
    /// Where workers above `active` wait, apart from `work`, so that a
    /// notify_one meant for a worker that may run never lands on a parked one.
    park: Condvar,
    /// An eventfd to add 1 to after posting completions.
    notify: Option<RawFd>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker never panics while holding the lock (operations don't
        // panic), but if one did, the state is still consistent.
        crate::sync::lock(&self.state)
    }
}

pub(crate) struct ThreadExec {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    max_workers: usize,
    /// `max_workers` while completions are cache-fast; while the device is
    /// cold (crate::cold) the pool grows to `cold_workers`.
    warm_workers: usize,
    cold_workers: usize,
    spawn_failed: bool,
    in_flight: usize,
    /// A helper pool of another executor (see [`ThreadExec::detached`]):
    /// nothing runs on the caller's thread.
    detached: bool,
}

impl ThreadExec {
    /// `max_workers` threads besides the caller (0 means the caller does all
    /// the work in `wait`, which keeps semantics identical when thread
    /// creation is refused).
    pub(crate) fn new(max_workers: usize) -> ThreadExec {
        ThreadExec::build(max_workers, None, false)
    }

    /// A pool that never runs an operation on the caller's thread (neither
    /// small batches at submit nor chunks while waiting), spawns workers
    /// only as operations need them, and after posting completions adds 1
    /// to the eventfd `notify`, so a ring waiting in io_uring_enter (with a
    /// poll on it) wakes up. The io_uring executor hands it the operations
    /// that have no ring opcode on high-latency file systems.
    pub(crate) fn detached(max_workers: usize, notify: RawFd) -> ThreadExec {
        ThreadExec::build(max_workers, Some(notify), true)
    }

    fn build(max_workers: usize, notify: Option<RawFd>, detached: bool) -> ThreadExec {
        ThreadExec {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    done: Vec::new(),
                    done_len: 0,
                    spare: Vec::new(),
                    free: Vec::new(),
                    shutdown: false,
                    caller_waiting: false,
                    sleeping: 0,
                    active: max_workers,
                }),
                work: Condvar::new(),
                done: Condvar::new(),
                park: Condvar::new(),
                notify,
            }),
            workers: Vec::new(),
            max_workers,
            warm_workers: max_workers,
            cold_workers: max_workers,
            spawn_failed: false,
            in_flight: 0,
            detached,
        }
    }

    /// Allows up to `n` workers (spawned lazily as before).
    pub(crate) fn raise_workers(&mut self, n: usize) {
        self.max_workers = self.max_workers.max(n);
        self.warm_workers = self.warm_workers.max(n);
        self.cold_workers = self.cold_workers.max(n);
        self.shared.lock().active = self.max_workers;
        self.shared.park.notify_all();
    }

    /// Lets the pool grow while the device is cold (crate::cold): not for
    /// a pool whose size was fixed by the caller or `RINGIO_THREADS`.
    pub(crate) fn grow_when_cold(&mut self) {
        self.cold_workers = self.cold_workers.max(crate::cold::cold_pool_workers());
    }

    /// Workers allowed now (spawned or still to be).
    pub(crate) fn worker_limit(&self) -> usize {
        self.max_workers
    }

    /// Follows the cold-cache state: more workers while completions are
    /// device-slow, back to the warm count (the extra ones park) once they
    /// are cache-fast. One relaxed load when nothing changes.
    fn follow_cold(&mut self) {
        let want = if crate::cold::is_cold() { self.cold_workers } else { self.warm_workers };
        if want == self.max_workers {
            return;
        }
        self.max_workers = want;
        self.shared.lock().active = want;
        self.shared.park.notify_all();
    }

    pub(crate) fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Spawns the workers (all of them, or for a detached pool as many as
    /// `pending` operations could keep busy).
    fn ensure_workers(&mut self, pending: usize) {
        let want = if self.detached { pending.min(self.max_workers) } else { self.max_workers };
        while !self.spawn_failed && self.workers.len() < want {
            let shared = Arc::clone(&self.shared);
            let b = std::thread::Builder::new()
                .name(format!("ringio-{}", self.workers.len()))
                .stack_size(256 * 1024);
            let me = self.workers.len();
            match b.spawn(move || worker(&shared, me)) {
                Ok(h) => self.workers.push(h),
                // RLIMIT_NPROC, cgroup pids.max, ENOMEM: run with what we have,
                // down to the caller alone.
                Err(_) => self.spawn_failed = true,
            }
        }
    }

    pub(crate) fn submit(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        let n = ops.len();
        if n == 0 {
            return;
        }
        self.follow_cold();
        if n <= INLINE_MAX && self.in_flight == 0 && !self.detached {
            out.extend(ops.drain(..).map(|(t, op)| op.execute_sync(t)));
            return;
        }
        self.ensure_workers(self.in_flight + n);
        if self.detached && self.workers.is_empty() {
            // Not even one thread: the caller runs them after all.
            out.extend(ops.drain(..).map(|(t, op)| op.execute_sync(t)));
            return;
        }
        let parts = 2 * (self.workers.len().min(self.max_workers) + 1);
        let chunk = (n / parts).clamp(1, CHUNK_MAX);
        let mut st = self.shared.lock();
        let mut pushed = 0;
        while !ops.is_empty() {
            let take = chunk.min(ops.len());
            let mut c = st.free.pop().unwrap_or_default();
            c.extend(ops.drain(ops.len() - take..));
            st.queue.push_back(c);
            pushed += 1;
        }
        let wake = st.sleeping.min(pushed);
        drop(st);
        for _ in 0..wake {
            self.shared.work.notify_one();
        }
        self.in_flight += n;
    }

    pub(crate) fn poll(&mut self, out: &mut Vec<Completion>) {
        let mut st = self.shared.lock();
        self.in_flight -= take_done(&mut st, out, self.least_taken(0));
    }

    pub(crate) fn wait(&mut self, min: usize, out: &mut Vec<Completion>) {
        let mut got = 0;
        let mut st = self.shared.lock();
        loop {
            let n = take_done(&mut st, out, self.least_taken(min.saturating_sub(got)));
            self.in_flight -= n;
            got += n;
            if got >= min || self.in_flight == 0 {
                return;
            }
            let help = if self.detached { None } else { st.queue.pop_front() };
            if let Some(mut chunk) = help {
                // Help instead of sleeping: on 2 cores the caller is half the pool.
                drop(st);
                let k = chunk.len();
                out.extend(chunk.drain(..).map(|(t, op)| op.execute_sync(t)));
                self.in_flight -= k;
                got += k;
                st = self.shared.lock();
                st.free.push(chunk);
                continue;
            }
            st.caller_waiting = true;
            st = crate::sync::wait(&self.shared.done, st);
            st.caller_waiting = false;
        }
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// How many finished completions a collection takes at least when
    /// `want` are wanted: a detached pool hands over all of them, since
    /// its owner cleared the wake-up counter and waits in the ring for the
    /// next one (leftovers would wait for a worker's next post).
    fn least_taken(&self, want: usize) -> usize {
        if self.detached {
            usize::MAX
        } else {
            want
        }
    }
}

/// Most emptied completion vectors kept for reuse (each holds at most a
/// chunk's worth).
const SPARE_MAX: usize = 16;

/// Completions handed over at a time beyond what the caller waits for
/// (~75 KB of statx results): the rest stay with the pool for the next
/// call. Handing over all that had piled up while the caller was busy grew
/// the caller's vector to thousands of 300-byte completions — fresh pages
/// to fault in and copy into (57 % of a 10,000-entry `lsr -al`'s page
/// faults), read back after they had left the cache.
pub(crate) const HAND_OVER: usize = 256;

/// Moves finished completions, oldest first, to the end of `to`: at least
/// `want` of them (or all there are), and whole vectors up to
/// [`HAND_OVER`]; returns how many. A
/// completion carries a whole statx (about 300 bytes): when `to` is empty,
/// the first vector is exchanged with it rather than copied, so those
/// completions stay where the worker wrote them.
fn take_done(st: &mut State, to: &mut Vec<Completion>, want: usize) -> usize {
    let want = want.max(HAND_OVER);
    let (mut k, mut n) = (0, 0);
    while k < st.done.len() && (k == 0 || n < want) {
        n += st.done[k].len();
        k += 1;
    }
    let mut done = std::mem::take(&mut st.done);
    for mut v in done.drain(..k) {
        if to.is_empty() {
            std::mem::swap(to, &mut v);
        } else {
            to.append(&mut v);
        }
        if st.spare.len() < SPARE_MAX && v.capacity() > 0 {
            st.spare.push(v);
        }
    }
    // The list keeps its capacity (and what was not taken) for next time.
    st.done = done;
    st.done_len -= n;
    n
}

fn worker(shared: &Shared, me: usize) {
    let mut local: Vec<Completion> = Vec::new();
    let mut st = shared.lock();
    loop {
        if st.shutdown {
            return;
        }
        if me >= st.active {
            st = crate::sync::wait(&shared.park, st);
            continue;
        }
        let Some(mut chunk) = st.queue.pop_front() else {
            st.sleeping += 1;
            st = crate::sync::wait(&shared.work, st);
            st.sleeping -= 1;
            continue;
        };
        drop(st);
        local.extend(chunk.drain(..).map(|(t, op)| op.execute_sync(t)));
        st = shared.lock();
        st.done_len += local.len();
        let next = st.spare.pop().unwrap_or_default();
        st.done.push(std::mem::replace(&mut local, next));
        st.free.push(chunk);
        if st.caller_waiting {
            shared.done.notify_one();
        }
        if let Some(fd) = shared.notify {
            crate::sys::eventfd_add(fd, 1);
        }
    }
}

impl Drop for ThreadExec {
    fn drop(&mut self) {
        {
            let mut st = self.shared.lock();
            st.shutdown = true;
            // Queued operations are dropped unrun; nobody will collect them.
            st.queue.clear();
        }
        self.shared.work.notify_all();
        self.shared.park.notify_all();
        // Joining guarantees no worker still reads a path from the engine's
        // arena when the engine frees it right after this executor.
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

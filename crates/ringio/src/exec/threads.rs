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
    /// CPU work lent to a worker by [`ThreadExec::join`], taken before
    /// operations: (id, the work).
    calls: VecDeque<(u64, Call)>,
    next_call: u64,
}

/// A [`ThreadExec::join`] closure, its lifetime erased to sit in the queue
/// (see the SAFETY note there).
type Call = Box<dyn FnOnce() + Send + 'static>;

/// What a lent closure leaves for the caller of [`ThreadExec::join`].
struct Lent<R> {
    out: Mutex<Option<std::thread::Result<R>>>,
    finished: Finished,
}

/// Set once a lent closure has run to its end.
#[derive(Default)]
struct Finished {
    done: Mutex<bool>,
    cv: Condvar,
}

impl Finished {
    fn set(&self) {
        let mut g = crate::sync::lock(&self.done);
        *g = true;
        self.cv.notify_all();
    }

    fn wait(&self) {
        let mut g = crate::sync::lock(&self.done);
        while !*g {
            g = crate::sync::wait(&self.cv, g);
        }
    }
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
                    calls: VecDeque::new(),
                    next_call: 0,
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
        // Small batches, and every batch of a pool allowed no worker now
        // (a Files pool while warm), run here as they come: queued, the
        // caller would only take them back, through the lock.
        let here = n <= INLINE_MAX || self.max_workers == 0;
        if here && self.in_flight == 0 && !self.detached {
            for (t, op) in ops.drain(..) {
                op.run_into(t, out);
            }
            return;
        }
        self.ensure_workers(self.in_flight + n);
        if self.detached && self.workers.is_empty() {
            // Not even one thread: the caller runs them after all.
            for (t, op) in ops.drain(..) {
                op.run_into(t, out);
            }
            return;
        }
        let parts = 2 * (self.workers.len().min(self.max_workers) + 1);
        let chunk = (n / parts).clamp(1, CHUNK_MAX);
        let mut st = self.shared.lock();
        let mut pushed = 0;
        // Chunks are cut from the end (no shifting of what is left), and
        // queued so that the first operations are taken first: a caller
        // that takes its answers in order (lcat's read-ahead) waits least.
        let mark = st.queue.len();
        while !ops.is_empty() {
            let take = chunk.min(ops.len());
            let mut c = st.free.pop().unwrap_or_default();
            c.extend(ops.drain(ops.len() - take..));
            st.queue.insert(mark, c);
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
                for (t, op) in chunk.drain(..) {
                    op.run_into(t, out);
                }
                self.in_flight -= k;
                got += k;
                st = self.shared.lock();
                st.free.push(chunk);
                if got >= min {
                    // What the workers finished meanwhile waits for the
                    // next call: taken now it would be appended to these.
                    return;
                }
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

    /// Whether [`ThreadExec::join`] can lend work to a worker: one runs or
    /// may be started, and the caller is not a ring relying on this pool.
    pub(crate) fn can_lend(&self) -> bool {
        !self.detached && self.max_workers > 0 && !self.spawn_failed
    }

    /// Runs `a` on a worker while the caller runs `b`, and returns both
    /// results: CPU work beside the caller on a thread the pool has
    /// already started (a tool's serial stretch once its I/O is done),
    /// instead of starting one for it (~20 syscalls and a stack each).
    /// If no worker has taken `a` by the time `b` is done (all busy with
    /// operations, or none could be started), the caller runs it. A panic
    /// in `a` resumes in the caller.
    pub(crate) fn join<RA: Send, RB>(
        &mut self,
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB,
    ) -> (RA, RB) {
        if !self.can_lend() {
            return (a(), b());
        }
        self.ensure_workers(1);
        // Shared by count, not borrowed: the worker's last steps (setting
        // `finished`, waking this thread, unlocking) may come after this
        // thread has seen the job done and left; they touch only what
        // the worker's own count keeps alive.
        let lent = Arc::new(Lent::<RA> { out: Mutex::new(None), finished: Finished::default() });
        let theirs = Arc::clone(&lent);
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(a));
            *crate::sync::lock(&theirs.out) = Some(r);
            theirs.finished.set();
        });
        // SAFETY: the job borrows what `a` borrows, alive until this
        // function returns; and it does not return (nor unwind past
        // `Reclaim`) before the job has either run (`a` has returned or
        // unwound and its result is stored: `finished` is set after) or
        // been taken back out of the queue unrun and dropped. After that the
        // job holds only `theirs`, which owns what it points to. So no
        // thread reaches a borrow of this frame after it ends; the erased
        // lifetime only lets the job wait in a queue whose type can't name
        // this frame.
        let job: Call = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Call>(job) };
        let id = {
            let mut st = self.shared.lock();
            let id = st.next_call;
            st.next_call += 1;
            st.calls.push_back((id, job));
            if st.sleeping > 0 {
                self.shared.work.notify_one();
            }
            id
        };
        let reclaim = Reclaim { shared: &self.shared, id, finished: &lent.finished };
        let rb = b();
        drop(reclaim);
        let ra = crate::sync::lock(&lent.out).take();
        match ra {
            Some(Ok(ra)) => (ra, rb),
            Some(Err(p)) => std::panic::resume_unwind(p),
            // Reclaim runs or waits for the job unless `b` panicked.
            None => unreachable!("a lent job neither ran nor was reclaimed"),
        }
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

/// Moves finished completions, oldest first, to the end of `to`: whole
/// vectors (one per chunk a worker ran), at least one and as few as make
/// `want` (or all there are); returns how many. A completion carries a
/// whole statx (about 300 bytes): when `to` is empty, the first vector is
/// exchanged with it rather than copied, so those completions stay where
/// the worker wrote them, and a caller that waits for one at a time (see
/// `Engine::collect_at_once`) copies none. (Appending every vector that
/// had piled up built batches of thousands — fresh pages to fault in,
/// 57 % of a 10,000-entry `lsr -al`'s page faults — and even four
/// vectors at a time copied 1.6 M instructions' worth there.)
fn take_done(st: &mut State, to: &mut Vec<Completion>, want: usize) -> usize {
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

/// The end of a [`ThreadExec::join`], on every path out of it: the lent
/// job is taken back and run here if no worker has started it (dropped
/// unrun if the caller is unwinding), else waited for.
struct Reclaim<'a> {
    shared: &'a Shared,
    id: u64,
    finished: &'a Finished,
}

impl Drop for Reclaim<'_> {
    fn drop(&mut self) {
        let job = {
            let mut st = self.shared.lock();
            let at = st.calls.iter().position(|(id, _)| *id == self.id);
            at.and_then(|i| st.calls.remove(i)).map(|(_, job)| job)
        };
        match job {
            Some(job) if !std::thread::panicking() => job(),
            Some(job) => drop(job),
            None => self.finished.wait(),
        }
    }
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
        if let Some((_, job)) = st.calls.pop_front() {
            drop(st);
            job();
            st = shared.lock();
            continue;
        }
        let Some(mut chunk) = st.queue.pop_front() else {
            st.sleeping += 1;
            st = crate::sync::wait(&shared.work, st);
            st.sleeping -= 1;
            continue;
        };
        drop(st);
        for (t, op) in chunk.drain(..) {
            op.run_into(t, &mut local);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tid() -> std::thread::ThreadId {
        std::thread::current().id()
    }

    #[test]
    fn join_lends_the_first_closure_to_a_worker() {
        let mut pool = ThreadExec::new(1);
        let here = tid();
        let local = [1u64, 2, 3];
        // `a` borrows from this frame and waits until `b` has started, so
        // it can only finish on another thread.
        let started = std::sync::Barrier::new(2);
        let (a, b) = pool.join(
            || {
                started.wait();
                (local.iter().sum::<u64>(), tid())
            },
            || {
                started.wait();
                tid()
            },
        );
        assert_eq!(a.0, 6);
        assert_ne!(a.1, here, "the lent closure ran on the caller");
        assert_eq!(b, here);
        assert_eq!(pool.workers(), 1);
    }

    #[test]
    fn without_workers_the_caller_runs_both() {
        let mut pool = ThreadExec::new(0);
        let here = tid();
        let (a, b) = pool.join(tid, tid);
        assert_eq!((a, b), (here, here));
        assert_eq!(pool.workers(), 0);
    }

    #[test]
    fn a_job_no_worker_took_is_taken_back() {
        let mut pool = ThreadExec::new(1);
        pool.ensure_workers(1);
        // The only worker is held busy until after `b` returns, so `a`
        // is still queued then and must run on the caller.
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let busy = Arc::new(Finished::default());
        let done = Arc::clone(&busy);
        let hold: Call = Box::new(move || {
            let _ = release_rx.recv();
            done.set();
        });
        {
            let mut st = pool.shared.lock();
            st.calls.push_back((u64::MAX, hold));
            pool.shared.work.notify_one();
        }
        // Let the worker take the holding job first.
        while !pool.shared.lock().calls.is_empty() {
            std::thread::yield_now();
        }
        let here = tid();
        let (a, b) = pool.join(tid, || 7);
        assert_eq!((a, b), (here, 7));
        release_tx.send(()).unwrap();
        busy.wait();
    }

    #[test]
    fn a_panic_in_the_lent_closure_reaches_the_caller() {
        let mut pool = ThreadExec::new(1);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.join(|| panic!("lent"), || 1)
        }));
        assert!(r.is_err());
        // The pool still works afterwards.
        assert_eq!(pool.join(|| 2, || 3), (2, 3));
    }

    #[test]
    fn a_panic_in_the_callers_closure_leaves_nothing_behind() {
        let mut pool = ThreadExec::new(1);
        let data = [5u8; 16];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.join(|| data.len(), || -> usize { panic!("caller") })
        }));
        assert!(r.is_err());
        assert!(pool.shared.lock().calls.is_empty());
        assert_eq!(pool.join(|| data.len(), || 0), (16, 0));
    }
}

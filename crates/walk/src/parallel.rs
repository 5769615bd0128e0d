//! Worker threads sharing a LIFO stack of directories.
//!
//! LIFO keeps the walk depth-first, so the set of open directories stays
//! proportional to depth × threads, and a thread usually continues in the
//! subtree it just read (warm dentries). Roots are walked one after another,
//! as GNU does, each by all threads; the calling thread is one of them.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::fds::Fds;
use crate::reader::{self, Listing, Reader};
use crate::split::{self, StatJob};
use crate::step::{self, Env, Node, Stop};
use crate::{Options, Visitor};

/// A big directory is read, stat'ed and visited this many entries at a
/// time (plus what the last getdents buffer brought), so its memory is
/// bounded — GNU's fts reads at most 100,000 entries at a time for the
/// same reason — and its subdirectories reach the other threads early.
const BATCH: usize = 4096;

/// What the shared stack holds.
enum Work<V: Visitor> {
    /// A directory to read.
    Dir(Node<V>),
    /// A chunk of a big directory's stats (see `split`).
    Stat(Arc<StatJob>),
}

struct Queue<V: Visitor> {
    stack: Vec<Work<V>>,
    /// Threads processing a directory right now.
    busy: usize,
    /// Threads waiting on the condition variable: a notify costs a futex
    /// syscall even with nobody to wake, so it is skipped when this is 0.
    waiting: usize,
    shutdown: bool,
    /// Walker threads allowed to take work (the calling thread is number
    /// 0, always allowed); the others park, counted in `waiting`. It
    /// follows the engine's cold-cache state (see `walk`).
    active: usize,
    /// A thread is asking the feed of a fed walk for a root (one at a
    /// time: the others wait for work on the condition variable).
    feeding: bool,
}

struct Shared<V: Visitor> {
    q: Mutex<Queue<V>>,
    fds: Fds,
    /// Signalled when work is pushed, when the stack drains, and on shutdown.
    cv: Condvar,
    stop: Stop,
}

impl<V: Visitor> Shared<V> {
    /// An empty walk's state: `active` threads may take work, descriptors
    /// budgeted for `fd_threads`.
    fn new(active: usize, fd_threads: usize, fed: bool) -> Shared<V> {
        Shared {
            q: Mutex::new(Queue {
                stack: Vec::new(),
                busy: 0,
                waiting: 0,
                shutdown: false,
                active,
                feeding: false,
            }),
            fds: Fds::new(fd_threads),
            cv: Condvar::new(),
            stop: Stop::new(!fed),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue<V>> {
        ringio::sync::lock(&self.q)
    }
}

/// What the source of a fed walk (`walk_fed`, in `mpi` builds) gives an
/// idle thread.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) enum Fed<V: Visitor> {
    /// A root to walk alongside whatever is being walked.
    Root(Node<V>),
    /// Nothing for now: look at the shared stack again, then ask again.
    Nothing,
    /// The walk is over: queued work is dropped.
    Stop,
}

/// The source of a fed walk's roots, and where it hands queued work back.
pub(crate) trait Feed<V: Visitor>: Sync {
    /// Called by an idle walker thread with its reader (to stat or open
    /// the root) and its visitor state. It may wait a little for a root,
    /// not indefinitely: work the other threads push meanwhile waits.
    /// `busy`: how many directories the other threads are walking.
    fn next(&self, rd: &mut Reader, local: &mut V::Local, busy: usize) -> Fed<V>;
    /// Whether someone else wants some of the queued directories.
    fn wanted(&self) -> bool;
    /// Takes queued directories (the oldest: nearest the roots, the
    /// biggest subtrees) to be walked elsewhere; the walk then finishes
    /// them as done, without reading them (`leave` runs as usual).
    fn give(&self, dirs: &[Node<V>]);
}

/// A fed walk hands back at most this many directories at once.
const MAX_GIVE: usize = 256;

struct Worker<V: Visitor> {
    rd: Reader,
    list: Listing,
    path: step::ChildPath,
    kids: Vec<Work<V>>,
    needs: Vec<crate::StatNeed>,
    local: V::Local,
    /// Whether and how big listings' stats are shared with the other
    /// walker threads (see [`ringio::Walkers::shares_stats`]).
    policy: ringio::Walkers,
    sort: bool,
}

impl<V: Visitor> Worker<V> {
    fn new(opts: &Options, policy: ringio::Walkers, v: &V) -> Self {
        Worker {
            rd: Reader::new(policy.engine(false)),
            list: Listing::default(),
            path: step::ChildPath::default(),
            kids: Vec::new(),
            needs: Vec::new(),
            local: v.local(),
            policy,
            sort: opts.sort,
        }
    }

    /// Reads one directory in batches, visits its entries, and puts the
    /// subdirectories to walk on the shared stack as each batch is done
    /// (in reverse, so the first pops first).
    fn process(&mut self, node: Node<V>, sh: &Shared<V>, v: &V) {
        let stop = &sh.stop;
        if let Some(pin) =
            step::open(&mut self.rd, &sh.fds, &node, &mut self.list, v, &mut self.local)
        {
            let fd = pin.fd;
            let dev_size = step::dev_size(&node);
            let depth = node.depth + 1;
            let own_fds = step::lists_own_fds(&node);
            self.list.clear();
            loop {
                let base = self.list.base + self.list.len();
                self.list.clear();
                self.list.base = base;
                // Our own descriptors, listed: none closes until stat'ed.
                let hold = own_fds.then(crate::fds::hold_closes);
                // Sorted listings are read whole (only fed walks sort here:
                // `walk` sorts in the ordered mode).
                let read = if self.sort {
                    self.rd.read(fd, dev_size, &mut self.list, true).map(|()| true)
                } else {
                    self.rd.read_batch(fd, dev_size, &mut self.list, BATCH)
                };
                let eof = match read {
                    Ok(eof) => eof,
                    Err(e) => {
                        let err = step::read_error(&node, &self.list, e);
                        v.error(&mut self.local, &err, Some(&node.acc));
                        true
                    }
                };
                let need = |name: &[u8], d_type: u8| v.need_stat(name, d_type, depth);
                // Shared stats finish on other threads after the hold is
                // dropped: our own descriptors are stat'ed here, held.
                let share = self.policy.shares_stats(&self.rd.eng).filter(|_| !own_fds);
                if let Some(chunk) = share.filter(|&(at, _)| self.list.len() >= at).map(|s| s.1) {
                    if reader::needs(&self.list, need, &mut self.needs) {
                        let needs = std::mem::take(&mut self.needs);
                        split::stat_shared(fd, &mut self.list, needs, chunk, |jobs| {
                            let mut q = sh.lock();
                            q.stack.extend(jobs.into_iter().map(Work::Stat));
                            if q.waiting > 0 {
                                sh.cv.notify_all();
                            }
                        });
                    } else {
                        self.list.outcomes.clear();
                    }
                } else {
                    step::stat_listing(v, &mut self.rd, fd, &mut self.list, depth);
                }
                drop(hold);
                let env = Env { v, fds: &sh.fds, stop };
                let (list, path, local) = (&self.list, &mut self.path, &mut self.local);
                let kids = &mut self.kids;
                step::entries(env, &node, fd, list, path, local, |k| kids.push(Work::Dir(k)));
                if !self.kids.is_empty() {
                    // Open while its subdirectories are walked (they are
                    // opened relative to it): counted in the budget from
                    // now on. A directory without any is done right after
                    // its listing and never registered.
                    sh.fds.keep(&node);
                }
                self.publish_kids(sh, v);
                if eof || stop.is_set() {
                    break;
                }
            }
            drop(pin);
            step::after_entries(&sh.fds, &node, v, &mut self.local);
        }
        step::finish(&sh.fds, node, v, &mut self.local, stop);
    }

    /// Puts the subdirectories found so far on the shared stack, waking
    /// idle threads.
    fn publish_kids(&mut self, sh: &Shared<V>, v: &V) {
        if self.kids.is_empty() {
            return;
        }
        // Their records first: another thread may print their contents
        // as soon as they are on the stack.
        v.publish(&mut self.local);
        self.kids.reverse();
        let mut q = sh.lock();
        q.stack.append(&mut self.kids);
        if q.waiting > 0 {
            sh.cv.notify_all();
        }
    }

    /// Takes and processes directories. With `until_idle`, returns once the
    /// stack is empty and nobody is busy (the current root is done);
    /// otherwise runs until shutdown.
    /// A fed walk (`feed`) runs until the feed says stop.
    fn run(
        &mut self,
        sh: &Shared<V>,
        v: &V,
        me: usize,
        adapt: &mut dyn FnMut(&Shared<V>),
        feed: Option<&dyn Feed<V>>,
    ) {
        let until_idle = me == 0 && feed.is_none();
        let mut q = sh.lock();
        loop {
            if sh.stop.is_set() && !q.stack.is_empty() {
                q = self.drop_queued(q, sh, v);
            }
            if me >= q.active && !q.shutdown {
                q.waiting += 1;
                q = ringio::sync::wait(&sh.cv, q);
                q.waiting -= 1;
                continue;
            }
            if let Some(feed) = feed.filter(|f| q.stack.len() >= 2 && f.wanted()) {
                let given = oldest_half(&mut q.stack);
                if !given.is_empty() {
                    drop(q);
                    feed.give(&given);
                    for d in given {
                        step::finish(&sh.fds, d, v, &mut self.local, &sh.stop);
                    }
                    q = sh.lock();
                    continue;
                }
            }
            if let Some(work) = q.stack.pop() {
                q = self.work_on(work, q, sh, v, adapt, feed.is_some());
                continue;
            }
            if until_idle && q.busy == 0 {
                return;
            }
            if q.shutdown {
                return;
            }
            if let Some(feed) = feed.filter(|_| !q.feeding) {
                q = self.ask_feed(feed, q, sh, me);
                continue;
            }
            q.waiting += 1;
            q = ringio::sync::wait(&sh.cv, q);
            q.waiting -= 1;
        }
    }

    /// After a quit: drops the queued work (finishing its directories only
    /// closes descriptors). Counted busy meanwhile, so that the root's walk
    /// is not over (and the stop lifted for the next root) before they are
    /// finished.
    fn drop_queued<'q>(
        &mut self,
        mut q: MutexGuard<'q, Queue<V>>,
        sh: &'q Shared<V>,
        v: &V,
    ) -> MutexGuard<'q, Queue<V>> {
        let dropped: Vec<_> = q.stack.drain(..).collect();
        q.busy += 1;
        drop(q);
        for w in dropped {
            // Stat chunks are taken back by their owners.
            if let Work::Dir(n) = w {
                step::finish(&sh.fds, n, v, &mut self.local, &sh.stop);
            }
        }
        let mut q = sh.lock();
        q.busy -= 1;
        sh.cv.notify_all();
        q
    }

    /// Does `work`, taken off the stack, with the lock released meanwhile.
    #[inline]
    fn work_on<'q>(
        &mut self,
        work: Work<V>,
        q: MutexGuard<'q, Queue<V>>,
        sh: &'q Shared<V>,
        v: &V,
        adapt: &mut dyn FnMut(&Shared<V>),
        fed: bool,
    ) -> MutexGuard<'q, Queue<V>> {
        let mut q = q;
        let node = match work {
            Work::Dir(node) => node,
            Work::Stat(job) => {
                drop(q);
                job.try_run();
                drop(job);
                return sh.lock();
            }
        };
        q.busy += 1;
        drop(q);
        self.process(node, sh, v);
        adapt(sh);
        q = sh.lock();
        q.busy -= 1;
        // Wake the others so the root's owner sees the walk of this root
        // is over (a fed walk has no such owner: its feeding thread comes
        // back by itself).
        let done = q.stack.is_empty() && q.busy == 0 && !fed;
        if q.waiting > 0 && done {
            sh.cv.notify_all();
        }
        q
    }

    /// An idle thread of a fed walk asks the feed for a root (with the lock
    /// released meanwhile), and wakes the others when there is news.
    fn ask_feed<'q>(
        &mut self,
        feed: &dyn Feed<V>,
        mut q: MutexGuard<'q, Queue<V>>,
        sh: &'q Shared<V>,
        me: usize,
    ) -> MutexGuard<'q, Queue<V>> {
        q.feeding = true;
        let busy = q.busy;
        drop(q);
        let fed = feed.next(&mut self.rd, &mut self.local, busy);
        q = sh.lock();
        q.feeding = false;
        // Only news wakes the waiting threads: a feed that had nothing
        // comes back every few ms, and waking up to 63 threads for nothing
        // each time cost more CPU than the walk.
        let news = match fed {
            Fed::Root(node) => {
                q.stack.push(Work::Dir(node));
                true
            }
            // Unless this thread is about to park (the walk shrank to its
            // warm threads meanwhile): the others wait while it feeds, and
            // one of them must take the feed over, or nobody ever asks it
            // again — not even for the stop (seen: an MPI rank's walk hung
            // with every thread parked, and the job with it).
            Fed::Nothing => me >= q.active,
            Fed::Stop => {
                sh.stop.quit();
                q.shutdown = true;
                true
            }
        };
        if news && q.waiting > 0 {
            sh.cv.notify_all();
        }
        q
    }
}

/// Takes the older half of the directories on `stack` (at most
/// [`MAX_GIVE`]; none when there is only one), for a fed walk to hand back.
fn oldest_half<V: Visitor>(stack: &mut Vec<Work<V>>) -> Vec<Node<V>> {
    let dirs = stack.iter().filter(|w| matches!(w, Work::Dir(_))).count();
    let mut n = (dirs / 2).min(MAX_GIVE);
    if n == 0 {
        return Vec::new();
    }
    let mut given = Vec::with_capacity(n);
    let mut kept = Vec::with_capacity(stack.len());
    // The bottom of the stack is the oldest work: nearest the roots.
    for w in std::mem::take(stack) {
        match w {
            Work::Dir(d) if n > 0 => {
                n -= 1;
                given.push(d);
            }
            w => kept.push(w),
        }
    }
    *stack = kept;
    given
}

/// Walks with `warm` threads while completions are cache-fast and up to
/// `cold` while the engine says the device is cold (ringio::cold): the
/// extra threads are started by the calling thread the first time the walk
/// turns cold, and park (not taking work) whenever it is warm again, so a
/// warm walk starts no more threads than before.
pub(crate) fn walk<V: Visitor>(
    roots: &[Vec<u8>],
    threads: (usize, usize),
    opts: &Options,
    policy: ringio::Walkers,
    v: &V,
) {
    walk_inner(roots, threads, opts, policy, v, None)
}

/// A walk whose roots come from `feed` while it runs, until the feed says
/// stop (the MPI mode, `dist`: work stolen from other ranks joins the
/// running walk instead of each item starting a walk of its own, so the
/// rank keeps its threads and request slots busy and its engines live).
/// Roots are the feed's to stat and visit; the walk calls `leave` for
/// each when its subtree is done.
#[cfg(feature = "mpi")]
pub(crate) fn walk_fed<V: Visitor>(
    threads: (usize, usize),
    opts: &Options,
    policy: ringio::Walkers,
    v: &V,
    feed: &dyn Feed<V>,
) {
    walk_inner(&[], threads, opts, policy, v, Some(feed))
}

fn walk_inner<V: Visitor>(
    roots: &[Vec<u8>],
    (warm, cold): (usize, usize),
    opts: &Options,
    policy: ringio::Walkers,
    v: &V,
    feed: Option<&dyn Feed<V>>,
) {
    let sh = Shared::<V>::new(warm, cold, feed.is_some());
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        // Starts walker threads until `upto` run (the caller is one).
        let spawn = |upto: usize, handles: &mut Vec<_>| {
            while handles.len() + 1 < upto {
                let (sh, i) = (&sh, handles.len() + 1);
                let b =
                    std::thread::Builder::new().name(format!("walk-{i}")).stack_size(512 * 1024);
                // If a thread can't be created (RLIMIT_NPROC), walk with fewer.
                match b.spawn_scoped(s, move || {
                    let mut w = Worker::new(opts, policy, v);
                    w.run(sh, v, i, &mut |_| {}, feed);
                    v.finish(w.local);
                }) {
                    Ok(h) => handles.push(h),
                    Err(_) => return false,
                }
            }
            true
        };
        spawn(warm, &mut handles);
        let mut can_grow = cold > warm;
        let mut adapt = |sh: &Shared<V>| {
            if !can_grow {
                return;
            }
            let want = ringio::Walkers::active(warm, cold);
            let mut q = sh.lock();
            if q.active == want {
                return;
            }
            q.active = want;
            drop(q);
            if !spawn(want, &mut handles) {
                // Out of threads: walk with those there are.
                sh.lock().active = handles.len() + 1;
                can_grow = false;
            }
            sh.cv.notify_all();
        };
        let mut me = Worker::new(opts, policy, v);
        for r in roots {
            // The previous root is wholly done (`run` returned).
            if !sh.stop.next_root() {
                break;
            }
            let Some(node) = step::root(&mut me.rd, r, opts, v, &mut me.local, &sh.stop) else {
                continue;
            };
            v.publish(&mut me.local);
            sh.lock().stack.push(Work::Dir(node));
            sh.cv.notify_all();
            me.run(&sh, v, 0, &mut adapt, None);
        }
        if feed.is_some() {
            me.run(&sh, v, 0, &mut adapt, feed);
        }
        sh.lock().shutdown = true;
        sh.cv.notify_all();
        for h in handles {
            let _ = h.join();
        }
        v.finish(me.local);
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::{Entry, Visit, WalkError};

    struct Nobody;

    impl Visitor for Nobody {
        type Local = ();
        type Acc = ();
        fn local(&self) {}
        fn need_stat(&self, _: &[u8], _: u8, _: usize) -> crate::StatNeed {
            crate::StatNeed::None
        }
        fn visit(&self, _: &mut (), _: &Entry, _: Option<&()>) -> Visit {
            Visit::Skip
        }
        fn error(&self, _: &mut (), _: &WalkError, _: Option<&()>) {}
    }

    /// The first call (thread 1's) waits until thread 0 waits for it to
    /// come back, then shrinks the walk to one thread (as `adapt` does when
    /// the device turns warm) and has nothing; any later call stops.
    struct ShrinkThenStop<'a> {
        sh: &'a Shared<Nobody>,
        calls: AtomicUsize,
    }

    impl Feed<Nobody> for ShrinkThenStop<'_> {
        fn next(&self, _: &mut Reader, _: &mut (), _: usize) -> Fed<Nobody> {
            if self.calls.fetch_add(1, Ordering::SeqCst) > 0 {
                return Fed::Stop;
            }
            while self.sh.lock().waiting == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.sh.lock().active = 1;
            Fed::Nothing
        }
        fn wanted(&self) -> bool {
            false
        }
        fn give(&self, _: &[Node<Nobody>]) {}
    }

    /// A feeding thread left outside the active threads (the walk shrank
    /// while it fed) hands the feed over: the stop is still seen and the
    /// walk ends (instead of hanging with every thread waiting).
    #[test]
    fn a_feeder_that_parks_hands_the_feed_over() {
        let opts = Options::default();
        let sh = Shared::<Nobody>::new(2, 2, true);
        let feed = ShrinkThenStop { sh: &sh, calls: AtomicUsize::new(0) };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            let (sh, feed, opts) = (&sh, &feed, &opts);
            let one = s.spawn(move || {
                let mut w = Worker::new(opts, ringio::Walkers::new(&opts.engine, false), &Nobody);
                w.run(sh, &Nobody, 1, &mut |_| {}, Some(feed));
            });
            // Thread 0 starts once thread 1 is feeding, so it waits for it.
            while !sh.lock().feeding {
                std::thread::sleep(Duration::from_millis(1));
            }
            let zero = s.spawn(move || {
                let mut w = Worker::new(opts, ringio::Walkers::new(&opts.engine, false), &Nobody);
                w.run(sh, &Nobody, 0, &mut |_| {}, Some(feed));
            });
            let waiter = s.spawn(move || {
                let _ = zero.join();
                let _ = one.join();
                let _ = tx.send(());
            });
            // Only a guard against hanging the test run: the walk either
            // ends at once or never.
            let ended = rx.recv_timeout(Duration::from_secs(60)).is_ok();
            if !ended {
                // Let the threads go so the scope can end, then fail.
                sh.lock().shutdown = true;
                sh.stop.quit();
                sh.cv.notify_all();
            }
            let _ = waiter.join();
            assert!(ended, "the fed walk hung: nobody took the feed over");
        });
        assert_eq!(feed.calls.load(Ordering::SeqCst), 2);
    }
}

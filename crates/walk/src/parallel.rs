//! Worker threads sharing a LIFO stack of directories.
//!
//! LIFO keeps the walk depth-first, so the set of open directories stays
//! proportional to depth × threads, and a thread usually continues in the
//! subtree it just read (warm dentries). Roots are walked one after another,
//! as GNU does, each by all threads; the calling thread is one of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::reader::{self, Listing, Reader};
use crate::split::{self, StatJob};
use crate::step::{self, Node};
use crate::{Options, Visitor};

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
}

struct Shared<V: Visitor> {
    q: Mutex<Queue<V>>,
    /// Signalled when work is pushed, when the stack drains, and on shutdown.
    cv: Condvar,
    stop: AtomicBool,
}

impl<V: Visitor> Shared<V> {
    fn lock(&self) -> MutexGuard<'_, Queue<V>> {
        self.q.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Worker<V: Visitor> {
    rd: Reader,
    list: Listing,
    path: Vec<u8>,
    kids: Vec<Work<V>>,
    needs: Vec<crate::StatNeed>,
    local: V::Local,
    /// (listing length from which stats are shared, chunk size).
    split: (usize, usize),
    remote: bool,
}

impl<V: Visitor> Worker<V> {
    fn new(opts: &Options, remote: bool, v: &V) -> Self {
        Worker {
            rd: Reader::new(opts.thread_engine(remote, false)),
            list: Listing::default(),
            path: Vec::new(),
            kids: Vec::new(),
            needs: Vec::new(),
            local: v.local(),
            split: split::sizes(remote),
            remote,
        }
    }

    /// Reads one directory, visits its entries, and returns (in `kids`) the
    /// subdirectories to walk, in reverse so the first pops first.
    fn process(&mut self, node: Node<V>, sh: &Shared<V>, opts: &Options, v: &V) {
        let stop = &sh.stop;
        self.kids.clear();
        if let Some(fd) =
            step::open_list(&mut self.rd, &node, &mut self.list, opts, v, &mut self.local)
        {
            let depth = node.depth + 1;
            let need = |name: &[u8], d_type: u8| v.need_stat(name, d_type, depth);
            let (split_at, chunk) = self.split;
            // On a high-latency fs a ring's share of io-wq workers is small:
            // big listings are shared among the walker threads there too.
            if (self.rd.inline() || self.remote) && self.list.len() >= split_at {
                reader::needs(&self.list, need, &mut self.needs);
                let needs = std::mem::take(&mut self.needs);
                split::stat_shared(fd, &mut self.list, needs, chunk, |jobs| {
                    let mut q = sh.lock();
                    q.stack.extend(jobs.into_iter().map(Work::Stat));
                    if q.waiting > 0 {
                        sh.cv.notify_all();
                    }
                });
            } else {
                self.rd.stat(fd, &mut self.list, need);
            }
            for i in 0..self.list.len() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if let Some(k) =
                    step::entry(&node, &self.list, i, &mut self.path, v, &mut self.local, stop)
                {
                    self.kids.push(Work::Dir(k));
                }
            }
            step::after_entries(&node, v, &mut self.local);
            self.kids.reverse();
        }
        step::finish(node, v, &mut self.local, stop);
    }

    /// Takes and processes directories. With `until_idle`, returns once the
    /// stack is empty and nobody is busy (the current root is done);
    /// otherwise runs until shutdown.
    fn run(&mut self, sh: &Shared<V>, opts: &Options, v: &V, until_idle: bool) {
        let mut q = sh.lock();
        loop {
            if sh.stop.load(Ordering::Relaxed) {
                // A quit: drop queued work; finishing nodes only closes fds.
                let dropped: Vec<_> = q.stack.drain(..).collect();
                drop(q);
                for w in dropped {
                    // Stat chunks are taken back by their owners.
                    if let Work::Dir(n) = w {
                        step::finish(n, v, &mut self.local, &sh.stop);
                    }
                }
                q = sh.lock();
                sh.cv.notify_all();
            }
            if let Some(work) = q.stack.pop() {
                let node = match work {
                    Work::Dir(node) => node,
                    Work::Stat(job) => {
                        drop(q);
                        job.try_run();
                        drop(job);
                        q = sh.lock();
                        continue;
                    }
                };
                q.busy += 1;
                drop(q);
                self.process(node, sh, opts, v);
                q = sh.lock();
                q.busy -= 1;
                let n = self.kids.len();
                q.stack.append(&mut self.kids);
                // Wake others for new work (this thread takes one kid itself,
                // still holding the lock, so a single kid wakes nobody), or so
                // the root's owner sees the walk of this root is over.
                let done = q.stack.is_empty() && q.busy == 0;
                if q.waiting > 0 && (n > 1 || done) {
                    sh.cv.notify_all();
                }
                continue;
            }
            if until_idle && q.busy == 0 {
                return;
            }
            if q.shutdown {
                return;
            }
            q.waiting += 1;
            q = sh.cv.wait(q).unwrap_or_else(|e| e.into_inner());
            q.waiting -= 1;
        }
    }
}

pub(crate) fn walk<V: Visitor>(
    roots: &[Vec<u8>],
    threads: usize,
    opts: &Options,
    remote: bool,
    v: &V,
) {
    let sh = Shared::<V> {
        q: Mutex::new(Queue { stack: Vec::new(), busy: 0, waiting: 0, shutdown: false }),
        cv: Condvar::new(),
        stop: AtomicBool::new(false),
    };
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for i in 1..threads {
            let sh = &sh;
            let b = std::thread::Builder::new().name(format!("walk-{i}")).stack_size(512 * 1024);
            // If a thread can't be created (RLIMIT_NPROC), walk with fewer.
            if let Ok(h) = b.spawn_scoped(s, move || {
                let mut w = Worker::new(opts, remote, v);
                w.run(sh, opts, v, false);
                v.finish(w.local);
            }) {
                handles.push(h);
            }
        }
        let mut me = Worker::new(opts, remote, v);
        for r in roots {
            if sh.stop.load(Ordering::Relaxed) {
                break;
            }
            let Some(node) = step::root(&mut me.rd, r, opts, v, &mut me.local, &sh.stop) else {
                continue;
            };
            sh.lock().stack.push(Work::Dir(node));
            sh.cv.notify_all();
            me.run(&sh, opts, v, true);
        }
        sh.lock().shutdown = true;
        sh.cv.notify_all();
        for h in handles {
            let _ = h.join();
        }
        v.finish(me.local);
    });
}

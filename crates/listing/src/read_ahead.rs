//! Reading directories ahead on other threads, for a caller that takes
//! their listings in its own order (ls `-R`).
//!
//! On a local file system listing is CPU work (getdents64, statx and the
//! ACL check on cached metadata), so readers on the other cores list ahead
//! while the main thread formats and prints. On a high-latency one the
//! reason is latency: listing one directory through NFS or FUSE is a chain
//! of round trips that cannot overlap: the open (a LOOKUP per path component), OPENDIR,
//! READDIRs, then the entries' requests (those do overlap, 64 at a time).
//! Through slowfs at 1 ms that is ~20 ms per directory whatever the depth,
//! so `lsr -lR` of a tree of 540 directories took 10 s one directory after
//! another. Here a few threads, each with its own [`Source`], list the
//! directories that come next (the top of the caller's pending stack)
//! while the main thread works, and, when asked to, go on into the
//! subdirectories of what they listed (depth first, as the main thread
//! will want them) up to a bound on listings held; the main thread takes
//! the listings in its own order, so output and messages are exactly those
//! of the sequential walk.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use ringio::Errno;

/// Directories queued, being read or read and not yet taken, at most,
/// counting those the readers add on their own.
const HELD: usize = 512;

/// What one reader thread lists with.
pub trait Source {
    /// A directory's listing.
    type Out: Send + 'static;
    /// Lists `path`.
    fn read(&mut self, path: &[u8]) -> Result<Self::Out, Errno>;
    /// The subdirectories of `path` to read ahead next, first first.
    fn subdirs(&self, path: &[u8], out: &Self::Out) -> Vec<Vec<u8>>;
    /// The thread is done with it.
    fn finish(self);
}

struct State<O> {
    /// Paths to read, the most urgent first.
    queue: VecDeque<Vec<u8>>,
    /// Paths being read.
    reading: Vec<Vec<u8>>,
    done: HashMap<Vec<u8>, Result<O, Errno>>,
    /// Every path in `queue`, `reading` or `done`.
    known: HashSet<Vec<u8>>,
    shutdown: bool,
    /// The listing the main thread waits for, and how many readers wait
    /// for work: a condition variable's notify is a futex syscall even
    /// with nobody waiting, which on a local file system (a listing every
    /// few microseconds) cost as much as the listings; and a wake-up for
    /// nothing costs two more (the wake and the sleep again).
    main_waits_for: Option<Vec<u8>>,
    idle: usize,
}

impl<O> Default for State<O> {
    fn default() -> Self {
        State {
            queue: VecDeque::new(),
            reading: Vec::new(),
            done: HashMap::new(),
            known: HashSet::new(),
            shutdown: false,
            main_waits_for: None,
            idle: 0,
        }
    }
}

struct Shared<O> {
    state: Mutex<State<O>>,
    work: Condvar,
    done: Condvar,
}

impl<O> Shared<O> {
    fn lock(&self) -> MutexGuard<'_, State<O>> {
        ringio::sync::lock(&self.state)
    }
}

/// Starts reader number N on the shared state (None if it couldn't).
type Spawn<O> = Box<dyn FnMut(&Arc<Shared<O>>, usize) -> Option<JoinHandle<()>> + Send>;

/// The readers and what they read.
pub struct ReadAhead<O> {
    shared: Arc<Shared<O>>,
    threads: Vec<JoinHandle<()>>,
    spawn: Spawn<O>,
}

impl<O: Send + 'static> ReadAhead<O> {
    /// Starts `readers` threads named `name-N`, each listing with a source
    /// `make` builds on it; with `ahead` they go on into subdirectories on
    /// their own. None if no thread could be started.
    pub fn start<S, F>(readers: usize, name: &str, ahead: bool, make: F) -> Option<ReadAhead<O>>
    where
        S: Source<Out = O>,
        F: Fn() -> S + Clone + Send + 'static,
    {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            done: Condvar::new(),
        });
        let name = name.to_string();
        let mut spawn: Spawn<O> = Box::new(move |sh: &Arc<Shared<O>>, i: usize| {
            let sh = Arc::clone(sh);
            let make = make.clone();
            let b = std::thread::Builder::new().name(format!("{name}-{i}"));
            b.spawn(move || reader(&sh, make(), ahead)).ok()
        });
        let mut threads = Vec::new();
        for i in 0..readers {
            match spawn(&shared, i) {
                Some(h) => threads.push(h),
                None => break,
            }
        }
        if threads.is_empty() {
            return None;
        }
        Some(ReadAhead { shared, threads, spawn })
    }

    /// Runs `readers` threads from now on, starting the missing ones (more
    /// reads in flight when they wait on the device: a cold cache). Fewer
    /// than asked if threads can't be started.
    pub fn grow(&mut self, readers: usize) {
        while self.threads.len() < readers {
            match (self.spawn)(&self.shared, self.threads.len()) {
                Some(h) => self.threads.push(h),
                None => break,
            }
        }
    }

    /// Reader threads running.
    pub fn readers(&self) -> usize {
        self.threads.len()
    }

    /// Asks for `paths` to be read, the first soonest, ahead of what the
    /// readers queued on their own; paths already known are skipped.
    pub fn request(&mut self, paths: &[&[u8]]) {
        let mut st = self.shared.lock();
        let mut added = 0;
        for p in paths.iter().rev() {
            if let Some(i) = st.queue.iter().position(|q| q == p) {
                // Already queued: move it up.
                let q = st.queue.remove(i).expect("index in range");
                st.queue.push_front(q);
            } else if st.known.insert(p.to_vec()) {
                st.queue.push_front(p.to_vec());
                added += 1;
            }
        }
        // Idle readers have an empty queue: only new work is worth a wake,
        // and one reader per new path.
        let wake = st.idle.min(added);
        drop(st);
        match wake {
            0 => {}
            1 => self.shared.work.notify_one(),
            _ => self.shared.work.notify_all(),
        }
    }

    /// The listing of `path` if it was requested: waits while a reader is
    /// on it; a request nobody started yet is withdrawn (None: the caller
    /// reads it itself, at once).
    pub fn take(&mut self, path: &[u8]) -> Option<Result<O, Errno>> {
        let mut st = self.shared.lock();
        loop {
            if let Some(r) = st.done.remove(path) {
                // Room for the readers to go on, which they take as they
                // finish a listing; an idle one has nothing queued, so
                // waking it would only put it back to sleep.
                st.known.remove(path);
                return Some(r);
            }
            if let Some(i) = st.queue.iter().position(|p| p == path) {
                st.queue.remove(i);
                st.known.remove(path);
                return None;
            }
            if !st.reading.iter().any(|p| p == path) {
                return None;
            }
            st.main_waits_for = Some(path.to_vec());
            st = ringio::sync::wait(&self.shared.done, st);
            st.main_waits_for = None;
        }
    }

    /// Stops the readers without waiting for them (the process is ending).
    pub fn abandon(mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        std::mem::forget(std::mem::take(&mut self.threads));
    }
}

impl<O> Drop for ReadAhead<O> {
    fn drop(&mut self) {
        {
            let mut st = self.shared.lock();
            st.shutdown = true;
            st.queue.clear();
        }
        self.shared.work.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn reader<S: Source>(sh: &Shared<S::Out>, mut src: S, ahead: bool) {
    let mut st = sh.lock();
    loop {
        if st.shutdown {
            break;
        }
        // The main thread's requests are put in front: they come first.
        let Some(path) = st.queue.pop_front() else {
            st.idle += 1;
            st = ringio::sync::wait(&sh.work, st);
            st.idle -= 1;
            continue;
        };
        st.reading.push(path.clone());
        drop(st);
        let r = src.read(&path);
        let kids = match (ahead, &r) {
            (true, Ok(l)) => src.subdirs(&path, l),
            _ => Vec::new(),
        };
        st = sh.lock();
        if let Some(i) = st.reading.iter().position(|p| *p == path) {
            st.reading.swap_remove(i);
        }
        if matches!(&r, Err(e) if crate::budget::exhausted(*e)) {
            // Out of descriptors here is not the directory's fault: leave
            // it to the main thread (which then reads it itself), and stop
            // reading ahead on this thread.
            st.known.remove(&path);
            if st.main_waits_for.as_ref() == Some(&path) {
                sh.done.notify_all();
            }
            break;
        }
        let waited = st.main_waits_for.as_ref() == Some(&path);
        st.done.insert(path, r);
        // Depth first: the first subdirectory is read next.
        for k in kids.into_iter().rev() {
            if st.known.len() >= HELD {
                break;
            }
            if st.known.insert(k.clone()) {
                st.queue.push_front(k);
            }
        }
        if waited {
            sh.done.notify_all();
        }
        if !st.queue.is_empty() && st.idle > 0 {
            sh.work.notify_all();
        }
    }
    drop(st);
    src.finish();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// "Lists" a path as its length, counting the reads begun; `a` has
    /// subdirectories `a/x`, `a/y`; `bad` fails; `full` is out of
    /// descriptors.
    #[derive(Clone)]
    struct Fake(Arc<AtomicUsize>);

    impl Source for Fake {
        type Out = usize;
        fn read(&mut self, path: &[u8]) -> Result<usize, Errno> {
            self.0.fetch_add(1, Ordering::SeqCst);
            match path {
                b"bad" => Err(Errno::ENOENT),
                b"full" => Err(Errno::EMFILE),
                _ => Ok(path.len()),
            }
        }
        fn subdirs(&self, path: &[u8], _: &usize) -> Vec<Vec<u8>> {
            if path == b"a" {
                vec![b"a/x".to_vec(), b"a/y".to_vec()]
            } else {
                Vec::new()
            }
        }
        fn finish(self) {}
    }

    /// Waits until `n` reads have begun (a request nobody started yet
    /// would be withdrawn by `take`).
    fn begun(reads: &AtomicUsize, n: usize) {
        while reads.load(Ordering::SeqCst) < n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn listings_come_back_to_whoever_asked_in_any_order() {
        let reads = Arc::new(AtomicUsize::new(0));
        let fake = Fake(Arc::clone(&reads));
        let mut ra = ReadAhead::start(2, "test-read", true, move || fake.clone()).unwrap();
        ra.request(&[b"a", b"bad", b"long/path"]);
        // The three, then a's subdirectories, which the readers go on
        // into on their own.
        begun(&reads, 5);
        assert_eq!(ra.take(b"long/path"), Some(Ok(9)));
        assert_eq!(ra.take(b"bad"), Some(Err(Errno::ENOENT)));
        assert_eq!(ra.take(b"a/y"), Some(Ok(3)));
        assert_eq!(ra.take(b"a"), Some(Ok(1)));
        assert_eq!(ra.take(b"a/x"), Some(Ok(3)));
        // Taken once; never requested: nothing to wait for.
        assert_eq!(ra.take(b"a"), None);
        assert_eq!(ra.take(b"other"), None);
    }

    #[test]
    fn out_of_descriptors_is_left_to_the_caller() {
        let reads = Arc::new(AtomicUsize::new(0));
        let fake = Fake(Arc::clone(&reads));
        let mut ra = ReadAhead::start(1, "test-full", false, move || fake.clone()).unwrap();
        ra.request(&[b"full"]);
        begun(&reads, 1);
        // Not the directory's fault: no listing, the caller reads it.
        assert_eq!(ra.take(b"full"), None);
        ra.abandon();
    }
}

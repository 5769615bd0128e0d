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
//!
//! The readers take the caller's requests first; what they found on their
//! own they take in the order of a depth-first walk ([`WalkKey`]), the
//! order the caller will want it in, so the listings held are the next
//! ones it takes. (Taken as found — the last-found first — readers went
//! deep into whichever subtree was found last while the caller waited for
//! another: `lsr -lR` through slowfs had 2 to 4 of 16 readers busy after
//! the first half second, the bound on listings held filled with ones the
//! caller wanted last.)
//!
//! A subdirectory a reader found is opened from its parent when the
//! parent's listing kept the parent open (a high-latency file system: see
//! `ringio::listdir::Lister::list_in`): one LOOKUP instead of one per
//! component of its path.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use ringio::Errno;

/// Directories queued, being read or read and not yet taken, at most,
/// counting those the readers add on their own. (So also the most parent
/// directories held open for the queued ones to be opened from.)
pub const HELD: usize = 512;

/// What one reader thread lists with.
pub trait Source {
    /// A directory's listing.
    type Out: Send + 'static;
    /// Lists `dir`: by its path, or from its parent's descriptor when
    /// [`Job::parent`] gives one; keeps the directory open in the listing
    /// when `keep` and it may (see [`Source::subdirs`]).
    fn read(&mut self, dir: &Job, keep: bool) -> Result<Self::Out, Errno>;
    /// The subdirectories of `path` to read ahead next, first first, and
    /// the directory itself if its listing kept it open, to open them from.
    fn subdirs(&self, path: &[u8], out: &mut Self::Out) -> (Option<OwnedFd>, Vec<Vec<u8>>);
    /// The thread is done with it.
    fn finish(self);
}

/// What [`ReadAhead::take`] gives for a path.
pub enum Taken<O> {
    /// A reader's listing of it (or why it could not be read).
    Read(Result<O, Errno>),
    /// Nobody read it: the caller does, from the job's parent when there
    /// is one ([`Job::parent`]).
    Yours(Option<Job>),
}

/// A directory to read: its path, and its parent's open descriptor when a
/// reader found it there.
#[derive(Debug)]
pub struct Job {
    pub path: Vec<u8>,
    parent: Option<Arc<OwnedFd>>,
}

/// The longest path the kernel resolves (PATH_MAX counts the NUL).
const PATH_MAX: usize = libc::PATH_MAX as usize;

impl Job {
    #[cfg(test)]
    fn new(path: Vec<u8>) -> Job {
        Job { path, parent: None }
    }

    /// The parent's descriptor and the name in it to open the directory
    /// by, when a reader kept the parent open. Not for a path the kernel
    /// would refuse as too long: the sequential walk opens by path, and
    /// fails there.
    pub fn parent(&self) -> Option<(BorrowedFd<'_>, &[u8])> {
        let at = self.parent.as_ref()?;
        if self.path.len() >= PATH_MAX {
            return None;
        }
        let name = match self.path.iter().rposition(|&b| b == b'/') {
            Some(i) => &self.path[i + 1..],
            None => &self.path[..],
        };
        Some((at.as_fd(), name))
    }
}

/// Whether readers go on into the subdirectories of what they listed, and
/// in which order the caller will want them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoOn {
    /// Only what the caller asks for.
    No,
    /// Subdirectories by name (bytewise).
    ByName,
    /// By name, last first (`ls -r`).
    ByNameReversed,
}

/// A path ordered as a depth-first walk meets it: a directory before what
/// is below it, and below a directory its subdirectories by name, bytewise,
/// or last first when `reversed`. (The caller's order may differ within a
/// directory: another locale's collation, `-t`; the walk order here
/// doesn't know it. Taking siblings exactly backwards, though, sends the
/// readers into the subtrees wanted last: `lsr -lRr` through slowfs took
/// 4.3 s before `reversed`, 1.0 s for `-lR`.)
#[derive(PartialEq, Eq)]
struct WalkKey {
    path: Vec<u8>,
    reversed: bool,
}

impl WalkKey {
    /// What decides between two paths: the first byte where they differ,
    /// the end of one of them, or a `/` that ends a component in one of
    /// them. A path's end (the parent) comes before its `/` (what is below
    /// it); forward, both come before any byte (a shorter name first);
    /// reversed, after every byte, and bytes go backwards.
    fn rank(&self, at: usize) -> u16 {
        match (self.path.get(at), self.reversed) {
            (None, false) => 0,
            (Some(b'/'), false) => 1,
            (Some(&b), false) => u16::from(b) + 2,
            (Some(&b), true) if b != b'/' => 255 - u16::from(b),
            (None, true) => 256,
            (Some(_), true) => 257,
        }
    }
}

impl Ord for WalkKey {
    fn cmp(&self, other: &Self) -> Ordering {
        let same = self.path.iter().zip(&other.path).take_while(|(a, b)| a == b).count();
        self.rank(same).cmp(&other.rank(same))
    }
}

impl PartialOrd for WalkKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Directories waiting for a reader.
#[derive(Default)]
struct Queue {
    /// The caller's requests, the most urgent first.
    asked: VecDeque<Job>,
    /// What readers found, with the parent to open each from.
    found: BTreeMap<WalkKey, Option<Arc<OwnedFd>>>,
    /// Found directories are wanted by name, last first.
    reversed: bool,
}

impl Queue {
    fn pop(&mut self) -> Option<Job> {
        if let Some(j) = self.asked.pop_front() {
            return Some(j);
        }
        let (WalkKey { path, .. }, parent) = self.found.pop_first()?;
        Some(Job { path, parent })
    }

    /// Takes `path` out, if it waits here.
    fn remove(&mut self, path: &[u8]) -> Option<Job> {
        if let Some(i) = self.asked.iter().position(|j| j.path == path) {
            return self.asked.remove(i);
        }
        let key = self.key(path.to_vec());
        let parent = self.found.remove(&key)?;
        Some(Job { path: key.path, parent })
    }

    fn key(&self, path: Vec<u8>) -> WalkKey {
        WalkKey { path, reversed: self.reversed }
    }

    fn is_empty(&self) -> bool {
        self.asked.is_empty() && self.found.is_empty()
    }

    fn clear(&mut self) {
        self.asked.clear();
        self.found.clear();
    }
}

struct State<O> {
    /// Directories to read.
    queue: Queue,
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
            queue: Queue::default(),
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
    /// The directory the caller last read itself and kept open
    /// ([`ReadAhead::adopt`]).
    adopted: Option<(Vec<u8>, Arc<OwnedFd>)>,
}

impl<O: Send + 'static> ReadAhead<O> {
    /// Starts `readers` threads named `name-N`, each listing with a source
    /// `make` builds on it; they go on into subdirectories on their own as
    /// `go_on` says. None if no thread could be started.
    pub fn start<S, F>(readers: usize, name: &str, go_on: GoOn, make: F) -> Option<ReadAhead<O>>
    where
        S: Source<Out = O>,
        F: Fn() -> S + Clone + Send + 'static,
    {
        let mut state = State::default();
        state.queue.reversed = go_on == GoOn::ByNameReversed;
        let ahead = go_on != GoOn::No;
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
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
        Some(ReadAhead { shared, threads, spawn, adopted: None })
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

    /// The caller read `dir` itself (a listing it withdrew: [`Taken::Yours`])
    /// and kept it open: the subdirectories of it requested next are
    /// opened from it, as those a reader found are from theirs. Otherwise
    /// a walk whose caller keeps overtaking the readers (a chain of single
    /// subdirectories) would open every other level by its whole path.
    /// The last one adopted is held; jobs hold it until they are opened.
    pub fn adopt(&mut self, dir: &[u8], fd: OwnedFd) {
        self.adopted = Some((dir.to_vec(), Arc::new(fd)));
    }

    /// The adopted descriptor when `path` is directly below it.
    fn adopted_parent(&self, path: &[u8]) -> Option<Arc<OwnedFd>> {
        let (dir, fd) = self.adopted.as_ref()?;
        let rest = path.strip_prefix(dir.as_slice())?;
        let name = match rest.strip_prefix(b"/") {
            Some(n) => n,
            // "dir/" with its slash: the joined path adds none.
            None if dir.ends_with(b"/") => rest,
            None => return None,
        };
        let single = !name.is_empty() && !name.contains(&b'/');
        single.then(|| Arc::clone(fd))
    }

    /// Asks for `paths` to be read, the first soonest, ahead of what the
    /// readers queued on their own; paths already known are skipped.
    pub fn request(&mut self, paths: &[&[u8]]) {
        let parents: Vec<_> = paths.iter().map(|p| self.adopted_parent(p)).collect();
        let mut st = self.shared.lock();
        let mut added = 0;
        for (p, parent) in paths.iter().zip(parents).rev() {
            if !st.known.contains(*p) {
                st.known.insert(p.to_vec());
                st.queue.asked.push_front(Job { path: p.to_vec(), parent });
                added += 1;
            } else if let Some(q) = st.queue.remove(p) {
                // Already queued: move it up.
                st.queue.asked.push_front(q);
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
    /// on it. A request nobody started yet is withdrawn and comes back as
    /// [`Taken::Yours`], with its parent's descriptor when a reader kept
    /// it: the caller reads it itself, at once, from there (on a slow file
    /// system one LOOKUP instead of one per component of the path).
    pub fn take(&mut self, path: &[u8]) -> Taken<O> {
        let mut st = self.shared.lock();
        loop {
            if !st.known.contains(path) {
                return Taken::Yours(None);
            }
            if let Some(r) = st.done.remove(path) {
                // Room for the readers to go on, which they take as they
                // finish a listing; an idle one has nothing queued, so
                // waking it would only put it back to sleep.
                st.known.remove(path);
                return Taken::Read(r);
            }
            if let Some(job) = st.queue.remove(path) {
                st.known.remove(path);
                return Taken::Yours(Some(job));
            }
            if !st.reading.iter().any(|p| p == path) {
                return Taken::Yours(None);
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
        let Some(job) = st.queue.pop() else {
            st.idle += 1;
            st = ringio::sync::wait(&sh.work, st);
            st.idle -= 1;
            continue;
        };
        st.reading.push(job.path.clone());
        drop(st);
        let mut r = src.read(&job, ahead);
        // The parent is closed once its last subdirectory is open.
        let Job { path, parent } = job;
        drop(parent);
        let (kept, kids) = match (ahead, &mut r) {
            (true, Ok(l)) => src.subdirs(&path, l),
            _ => (None, Vec::new()),
        };
        let kept = kept.map(Arc::new);
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
        for k in kids {
            if st.known.contains(&k) {
                continue;
            }
            let k = st.queue.key(k);
            if st.known.len() >= HELD {
                // Full: a subdirectory the walk meets sooner than the
                // last one waiting takes its place.
                match st.queue.found.last_key_value() {
                    Some((last, _)) if *last > k => {
                        let (gone, _) = st.queue.found.pop_last().expect("not empty");
                        st.known.remove(&gone.path);
                    }
                    _ => continue,
                }
            }
            st.known.insert(k.path.clone());
            st.queue.found.insert(k, kept.clone());
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
        fn read(&mut self, job: &Job, _keep: bool) -> Result<usize, Errno> {
            self.0.fetch_add(1, Ordering::SeqCst);
            match &job.path[..] {
                b"bad" => Err(Errno::ENOENT),
                b"full" => Err(Errno::EMFILE),
                _ => Ok(job.path.len()),
            }
        }
        fn subdirs(&self, path: &[u8], _: &mut usize) -> (Option<OwnedFd>, Vec<Vec<u8>>) {
            if path == b"a" {
                (None, vec![b"a/x".to_vec(), b"a/y".to_vec()])
            } else {
                (None, Vec::new())
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
        let mut ra = ReadAhead::start(2, "test-read", GoOn::ByName, move || fake.clone()).unwrap();
        ra.request(&[b"a", b"bad", b"long/path"]);
        // The three, then a's subdirectories, which the readers go on
        // into on their own.
        begun(&reads, 5);
        let read = |t: Taken<usize>| match t {
            Taken::Read(r) => Some(r),
            Taken::Yours(_) => None,
        };
        assert_eq!(read(ra.take(b"long/path")), Some(Ok(9)));
        assert_eq!(read(ra.take(b"bad")), Some(Err(Errno::ENOENT)));
        assert_eq!(read(ra.take(b"a/y")), Some(Ok(3)));
        assert_eq!(read(ra.take(b"a")), Some(Ok(1)));
        assert_eq!(read(ra.take(b"a/x")), Some(Ok(3)));
        // Taken once; never requested: nothing to wait for.
        assert!(matches!(ra.take(b"a"), Taken::Yours(None)));
        assert!(matches!(ra.take(b"other"), Taken::Yours(None)));
    }

    #[test]
    fn found_directories_wait_in_walk_order_after_the_callers_requests() {
        let mut q = Queue::default();
        for p in ["b", "a-b", "a/z", "a/b/c", "a", "a/b"] {
            q.found.insert(q.key(p.as_bytes().to_vec()), None);
        }
        q.asked.push_back(Job::new(b"z/first".to_vec()));
        q.asked.push_back(Job::new(b"y/second".to_vec()));
        // Withdrawn from either side.
        assert_eq!(q.remove(b"a/z").map(|j| j.path), Some(b"a/z".to_vec()));
        assert_eq!(q.remove(b"y/second").map(|j| j.path), Some(b"y/second".to_vec()));
        assert!(q.remove(b"a/z").is_none());
        let mut order = Vec::new();
        while let Some(j) = q.pop() {
            order.push(String::from_utf8(j.path).unwrap());
        }
        // A directory before what is below it, below it before its next
        // sibling ("a/b/c" before "a-b", though '-' < '/' as bytes).
        assert_eq!(order, ["z/first", "a", "a/b", "a/b/c", "a-b", "b"]);
        assert!(q.is_empty());
    }

    #[test]
    fn reversed_a_directory_still_comes_before_what_is_below_it() {
        let mut q = Queue { reversed: true, ..Queue::default() };
        for p in ["b", "a-b", "a/z", "a/b/c", "a", "a/b", "ab", "a/b/c/d"] {
            q.found.insert(q.key(p.as_bytes().to_vec()), None);
        }
        let mut order = Vec::new();
        while let Some(j) = q.pop() {
            order.push(String::from_utf8(j.path).unwrap());
        }
        // `ls -r`: siblings last first ("ab" > "a-b" > "a"), each followed
        // by its own subtree, again last first.
        assert_eq!(order, ["b", "ab", "a-b", "a", "a/z", "a/b", "a/b/c", "a/b/c/d"]);
    }

    #[test]
    fn the_callers_own_directory_is_the_parent_of_what_it_asks_for_below_it() {
        let reads = Arc::new(AtomicUsize::new(0));
        let fake = Fake(Arc::clone(&reads));
        let mut ra = ReadAhead::start(1, "test-adopt", GoOn::No, move || fake.clone()).unwrap();
        let fd = || OwnedFd::from(std::fs::File::open("/").unwrap());
        ra.adopt(b"a/b", fd());
        let below = |ra: &ReadAhead<usize>, p: &[u8]| ra.adopted_parent(p).is_some();
        assert!(below(&ra, b"a/b/c"));
        assert!(!below(&ra, b"a/b/c/d"), "two levels down");
        assert!(!below(&ra, b"a/bc"), "a sibling sharing the prefix");
        assert!(!below(&ra, b"a/b"), "itself");
        ra.adopt(b"/", fd());
        assert!(below(&ra, b"/etc"));
        ra.adopt(b"x/", fd());
        assert!(below(&ra, b"x/y"));
    }

    #[test]
    fn a_job_opens_from_its_parent_by_its_last_component() {
        let parent = Arc::new(
            ringio::sys::openat_owned(libc::AT_FDCWD, c"/", libc::O_RDONLY | libc::O_DIRECTORY, 0)
                .unwrap(),
        );
        let job = Job { path: b"x/y/name".to_vec(), parent: Some(Arc::clone(&parent)) };
        assert_eq!(job.parent().map(|(_, name)| name), Some(&b"name"[..]));
        // A path the kernel would refuse is opened by path, to fail as the
        // sequential walk does.
        let long = Job { path: vec![b'a'; PATH_MAX], parent: Some(parent) };
        assert!(long.parent().is_none());
        assert!(Job::new(b"x/y".to_vec()).parent().is_none());
    }

    #[test]
    fn out_of_descriptors_is_left_to_the_caller() {
        let reads = Arc::new(AtomicUsize::new(0));
        let fake = Fake(Arc::clone(&reads));
        let mut ra = ReadAhead::start(1, "test-full", GoOn::No, move || fake.clone()).unwrap();
        ra.request(&[b"full"]);
        begun(&reads, 1);
        // Not the directory's fault: no listing, the caller reads it.
        assert!(matches!(ra.take(b"full"), Taken::Yours(None)));
        ra.abandon();
    }
}

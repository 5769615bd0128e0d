//! "List this directory": one directory listed with its entries'
//! requests pipelined behind the getdents batches (ls).
//!
//! The directory is read with getdents64 batches; as each batch arrives,
//! the caller's [`Sink`] builds its entries and pushes what each needs
//! (stat, and for ls `-l` the ACL, link and context questions) to the
//! engine, whose workers run them while the next batch is read: the
//! pipelined strategy measured fastest in docs/engine.md §2. The next
//! batch is held back while more than a window of operations is in
//! flight, since each completion carries a whole statx. The window, the
//! batch sizes, who makes the reads and how many completions are taken at
//! once follow from the executor, and are decided here.
//!
//! A small directory (one first batch of 16 KiB) is handled on an inline
//! engine when the main one hands work to threads: below a few hundred
//! entries a thread hand-off costs more than it saves. On a high-latency
//! file system every request is a round trip, so the main engine takes
//! the directory from the start, with a full-size first batch.

use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

use crate::{Completion, DevIno, DirentIter, Engine, Errno};

// Below the engine's own tokens (crate::whole::WHOLE_PART and
// crate::about::PART), which a wait may bring in the same batch.
const TOK_OPEN: u64 = FIRST_RESERVED_TOKEN;
const TOK_DENTS: u64 = FIRST_RESERVED_TOKEN + 1;
const TOK_CLOSE: u64 = FIRST_RESERVED_TOKEN + 2;
const TOK_FSTAT: u64 = FIRST_RESERVED_TOKEN + 3;

/// Tokens at or above this are the lister's own; a sink's operations use
/// smaller ones.
pub const FIRST_RESERVED_TOKEN: u64 = crate::whole::WHOLE_PART - 16;

/// The directory being listed, as a [`Sink`] sees it.
pub struct Dir<'a> {
    /// The engine to push the entries' operations to (the inline one for
    /// a small directory).
    pub eng: &'a mut Engine,
    /// The open directory: entries are named relative to it.
    pub fd: RawFd,
    /// The directory as the caller named it.
    pub path: &'a [u8],
    /// On a high-latency file system (the engine found out as it opened it).
    remote: bool,
    /// The file system's end-of-directory marks, when the engine learnt
    /// them as it opened the directory.
    ends: Option<[i64; 2]>,
    /// The directory's (dev, ino), when asked for: from its own stat, or
    /// from the sink ([`Dir::identity_from_entry`]).
    id: Option<DevIno>,
    /// The sink said it stats an entry that is the directory itself.
    id_from_entry: bool,
}

impl Dir<'_> {
    /// Called from [`Sink::begin`]: the sink will stat an entry that is
    /// this directory (`.`, as `ls -a` shows it) and hand the stat to
    /// [`Dir::set_identity`], so the lister need not stat the directory
    /// for its identity (one statx a directory of `ls -alR`). Should that
    /// stat not come or fail, the lister stats the directory after all.
    pub fn identity_from_entry(&mut self) {
        self.id_from_entry = true;
    }

    /// The stat of an entry that is this directory (see
    /// [`Dir::identity_from_entry`]).
    pub fn set_identity(&mut self, st: &crate::Statx) {
        self.id = Some(DevIno::of(st));
    }
}

/// The caller's side of a listing: what it builds from each name, and
/// what it asks the engine for.
pub trait Sink {
    /// The directory is open and the first batch read, not yet handed out.
    fn begin(&mut self, dir: &mut Dir<'_>);
    /// A getdents buffer of `bytes` bytes is about to be handed out entry
    /// by entry (a record is at least 24 bytes: reserve room).
    fn batch(&mut self, _bytes: usize) {}
    /// One name of the directory (`.` and `..` included), with getdents'
    /// type and inode number: the per-entry hook, where the caller builds
    /// its own entry and pushes its operations.
    fn entry(&mut self, dir: &mut Dir<'_>, name: &[u8], d_type: u8, ino: u64);
    /// Every entry of the batch was handed out.
    fn batch_done(&mut self, _dir: &mut Dir<'_>) {}
    /// Every entry of the directory was handed out (its end was read, or
    /// reading it failed), once, while operations pushed for the entries
    /// may still run: work that needs every name but none of the results
    /// (ls's name order) can be done here, on the caller's thread, while
    /// the workers finish them — not after, when nothing else runs.
    fn names_done(&mut self, _dir: &mut Dir<'_>) {}
    /// One of the sink's operations completed.
    fn complete(&mut self, dir: &mut Dir<'_>, c: &mut Completion);
}

/// What the lister itself learnt of the directory.
#[derive(Debug, Default)]
pub struct Outcome {
    /// getdents failed part-way (what was read was still handed out).
    pub read_error: Option<Errno>,
    /// (dev, ino) of the directory itself, when asked for.
    pub id: Option<DevIno>,
    /// The directory, still open, when the caller asked to keep it and it
    /// is on a high-latency file system (see [`Lister::list_in`]).
    pub kept: Option<OwnedFd>,
}

/// A lister: one engine, reused for every directory.
pub struct Lister {
    eng: Engine,
    /// An engine for small directories (see `Engine::for_small_jobs`),
    /// when the main one is not to do everything.
    inline: Option<Engine>,
    /// `eng` and `inline` are currently exchanged.
    swapped: bool,
    comps: Vec<Completion>,
}

impl Lister {
    /// A lister whose pool (or the ring's io-wq, on a high-latency file
    /// system) has `threads` workers when given.
    pub fn new(threads: Option<usize>) -> Lister {
        // A listing's stats and attribute questions go out thousands at once.
        let workload = crate::Workload::BigBatches;
        let eng = Engine::with_config(crate::Config { workload, threads, ..Default::default() });
        Lister { eng, inline: Engine::for_small_jobs(), swapped: false, comps: Vec::new() }
    }

    /// The main engine, for the caller's work outside listings.
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.eng
    }

    /// Runs `f` on every completion until nothing is outstanding.
    pub fn drain<F: FnMut(Completion)>(&mut self, mut f: F) {
        let mut v = std::mem::take(&mut self.comps);
        while self.eng.outstanding() > 0 {
            self.eng.wait(1, &mut v);
            for c in v.drain(..) {
                f(c);
            }
        }
        self.comps = v;
    }

    /// Every completion, once nothing is outstanding.
    pub fn collect(&mut self) -> Vec<Completion> {
        let mut all = Vec::new();
        while self.eng.outstanding() > 0 {
            self.eng.wait(self.eng.outstanding(), &mut all);
        }
        all
    }

    /// Lists directory `path` (opened with `open_flags`) through `sink`
    /// (see the module docs); with `want_id`, also stats the directory
    /// itself. Fails only when it can't be opened.
    pub fn list<S: Sink>(
        &mut self,
        path: &[u8],
        open_flags: i32,
        want_id: bool,
        sink: &mut S,
    ) -> Result<Outcome, Errno> {
        self.list_in(None, path, open_flags, (want_id, false), sink)
    }

    /// [`Lister::list`] of `path`, opened relative to its parent when
    /// `parent` gives the parent's open descriptor and the last component
    /// of `path`; with `keep`, a directory on a high-latency file system is
    /// handed back open ([`Outcome::kept`]) for its subdirectories to be
    /// opened from.
    ///
    /// There every path component is a LOOKUP round trip (uncached, as
    /// with NFS's actimeo=0), and a listing is a chain of them before its
    /// first READDIR: opened from its parent it costs one. On a local file
    /// system the full path costs only CPU, and opening from the working
    /// directory lets the engine learn the file system's end marks, so
    /// nothing is kept there.
    pub fn list_in<S: Sink>(
        &mut self,
        parent: Option<(BorrowedFd<'_>, &[u8])>,
        path: &[u8],
        open_flags: i32,
        (want_id, keep): (bool, bool),
        sink: &mut S,
    ) -> Result<Outcome, Errno> {
        let open = match parent {
            Some((at, name)) => (at.as_raw_fd(), name),
            None => (libc::AT_FDCWD, path),
        };
        // Open and read the first (small) batch inline; a directory that
        // ends there is handled inline too.
        let have_inline = self.inline.is_some();
        self.swap_inline(have_inline);
        let r = self.list_with((open, path, open_flags), (want_id, keep), have_inline, sink);
        if self.swapped {
            self.swap_inline(true);
        }
        r
    }

    /// Exchanges the main and the inline engine (when `on` and one exists).
    fn swap_inline(&mut self, on: bool) {
        if let (true, Some(inline)) = (on, self.inline.as_mut()) {
            std::mem::swap(&mut self.eng, inline);
            self.swapped = !self.swapped;
        }
    }

    fn wait_one(&mut self, token: u64) -> Option<Completion> {
        let mut others = std::mem::take(&mut self.comps);
        let c = self.eng.wait_for(token, &mut others);
        others.clear();
        self.comps = others;
        c
    }

    /// Opens the directory and reads its first batch, choosing the engine
    /// that takes the rest. Returns the descriptor, the first batch,
    /// whether the directory is remote and its end marks.
    #[allow(clippy::type_complexity)]
    fn start(
        &mut self,
        ((at, name), flags): ((RawFd, &[u8]), i32),
        inline_first: bool,
    ) -> Result<(RawFd, Option<Completion>, bool, Option<[i64; 2]>), Errno> {
        self.eng.openat(TOK_OPEN, at, name, flags, 0);
        let fd = match self.wait_one(TOK_OPEN) {
            Some(c) => c.fd()?,
            None => return Err(Errno::EINVAL),
        };
        let remote = self.eng.high_latency().is_some();
        // A small directory then ends with one getdents64 where the file
        // system marks its end: one syscall a directory of `ls -R`.
        let ends = self.eng.end_marks(fd);
        if inline_first && remote {
            self.swap_inline(true);
        }
        // Small first batch: a worker starts on the stats sooner (each
        // getdents64 is one READDIR request on a remote one: full size there).
        let first_size = if remote { crate::DEFAULT_DENTS_BUF } else { 16 * 1024 };
        self.eng.getdents_to_end(TOK_DENTS, fd, Vec::with_capacity(first_size), ends);
        let first = self.wait_one(TOK_DENTS);
        let small = first.as_ref().is_some_and(|c| c.eof);
        if inline_first && !small && !remote {
            // A big directory: the rest goes to the main engine.
            self.swap_inline(true);
        }
        Ok((fd, first, remote, ends))
    }

    fn list_with<S: Sink>(
        &mut self,
        (open, path, flags): ((RawFd, &[u8]), &[u8], i32),
        (want_id, keep): (bool, bool),
        inline_first: bool,
        sink: &mut S,
    ) -> Result<Outcome, Errno> {
        let (fd, first, remote, ends) = self.start((open, flags), inline_first)?;
        self.eng.begin_dir(fd, path);
        let mut batch = std::mem::take(&mut self.comps);
        let mut dir =
            Dir { eng: &mut self.eng, fd, path, remote, ends, id: None, id_from_entry: false };
        sink.begin(&mut dir);
        if want_id && !dir.id_from_entry {
            stat_identity(&mut dir);
        }
        let mut out = pump(&mut dir, first, &mut batch, sink);
        if want_id && dir.id.is_none() && dir.id_from_entry {
            // The entry's stat didn't come or failed (a directory that can
            // be read but not searched): the directory's own, now.
            stat_identity(&mut dir);
            batch.clear();
            if let Some(c) = dir.eng.wait_for(TOK_FSTAT, &mut batch) {
                if let Ok(st) = c.stat() {
                    dir.set_identity(st);
                }
            }
        }
        out.id = dir.id;
        if keep && remote {
            // SAFETY: `fd` came from this listing's openat and nothing
            // closes it now that the listing is over (no operation of the
            // engine refers to it: `pump` returned with none outstanding),
            // so the OwnedFd is its one owner.
            out.kept = Some(unsafe { OwnedFd::from_raw_fd(fd) });
        } else {
            // The descriptor was the engine's to close: under the ring that
            // is one more queued operation, not a syscall.
            dir.eng.close(TOK_CLOSE, fd);
            batch.clear();
            dir.eng.wait_for(TOK_CLOSE, &mut batch);
            batch.clear();
        }
        self.comps = batch;
        Ok(out)
    }
}

/// Asks the directory's own (dev, ino).
fn stat_identity(dir: &mut Dir<'_>) {
    // DONT_SYNC: a device and inode number never go stale, so a remote
    // file system need not be asked again (a GETATTR each).
    let flags = libc::AT_EMPTY_PATH | libc::AT_STATX_DONT_SYNC;
    dir.eng.statx(TOK_FSTAT, dir.fd, b"", flags, libc::STATX_INO);
}

/// Reads the rest of the directory, handing each batch to `sink` and its
/// operations' completions back, until nothing is left in flight.
fn pump<S: Sink>(
    dir: &mut Dir<'_>,
    mut first: Option<Completion>,
    batch: &mut Vec<Completion>,
    sink: &mut S,
) -> Outcome {
    let mut out = Outcome::default();
    let mut listing_done = false;
    // The buffer of the next getdents, held back while more than `window`
    // operations are in flight: completions carry a whole statx each, so
    // an unbounded pipeline on a huge directory would hold them all at once.
    let mut next_dents: Option<Vec<u8>> = None;
    let window = dir.eng.stat_window();
    // With worker threads, on a local file system this thread reads the
    // directory itself as soon as the window has room (see
    // `Engine::reads_on_caller`); on a remote one the read is a round trip
    // better left queued.
    let read_here = dir.eng.reads_on_caller() && !dir.remote;
    while first.is_some() || next_dents.is_some() || dir.eng.outstanding() > 0 {
        batch.clear();
        if next_dents.is_some() && dir.eng.ops_in_flight() <= window {
            if let Some(b) = next_dents.take() {
                if read_here {
                    // Hand out what was pushed for the last batch first.
                    dir.eng.submit();
                    batch.push(dir.eng.getdents_now(TOK_DENTS, dir.fd, b, dir.ends));
                } else {
                    dir.eng.getdents_to_end(TOK_DENTS, dir.fd, b, dir.ends);
                }
            }
        }
        if let Some(c) = first.take() {
            batch.push(c);
        } else if batch.is_empty() {
            // While listing, take whatever is ready (the next getdents
            // batch first); once listed, wait for everything at once (a
            // window's worth at a time; requests answered in parts are
            // carried on inside the wait).
            let want = if listing_done {
                dir.eng.outstanding().min(window).min(dir.eng.collect_at_once())
            } else {
                1
            };
            dir.eng.wait(want, batch);
        }
        for c in batch.iter_mut() {
            match c.token {
                TOK_DENTS => {
                    // Entries read before an error are still listed (a
                    // half-readable directory loses nothing).
                    if let Err(e) = c.result {
                        out.read_error = Some(e);
                        listing_done = true;
                    }
                    sink.batch(c.buf().len());
                    for d in DirentIter::new(c.buf()) {
                        sink.entry(dir, d.name, d.d_type, d.ino);
                    }
                    sink.batch_done(dir);
                    if c.eof || listing_done {
                        listing_done = true;
                        sink.names_done(dir);
                    } else {
                        let mut b = c.take_buf();
                        let size = dir.eng.big_dents_buf();
                        if b.capacity() < size {
                            b = Vec::with_capacity(size);
                        }
                        next_dents = Some(b);
                    }
                }
                TOK_FSTAT => {
                    if let Ok(st) = c.stat() {
                        dir.set_identity(st);
                    }
                }
                _ => sink.complete(dir, c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use scratch::Scratch;
    use std::os::unix::ffi::OsStrExt;

    const DIR: i32 = libc::O_RDONLY | libc::O_DIRECTORY;

    /// Collects names and stats the regular files by name.
    #[derive(Default)]
    struct Names {
        /// Says in `begin` that it stats the directory itself, and never does.
        promise_id: bool,
        begun: bool,
        names: Vec<Vec<u8>>,
        sizes: Vec<(usize, u64)>,
        /// (names, completions) seen when `names_done` was called, each time.
        names_done: Vec<(usize, usize)>,
    }

    impl Sink for Names {
        fn begin(&mut self, dir: &mut Dir<'_>) {
            self.begun = true;
            if self.promise_id {
                dir.identity_from_entry();
            }
        }
        fn entry(&mut self, dir: &mut Dir<'_>, name: &[u8], d_type: u8, _ino: u64) {
            let i = self.names.len();
            self.names.push(name.to_vec());
            if d_type == crate::dtype::REG {
                let flags = libc::AT_SYMLINK_NOFOLLOW;
                dir.eng.statx(i as u64, dir.fd, name, flags, libc::STATX_SIZE);
            }
        }
        fn names_done(&mut self, _dir: &mut Dir<'_>) {
            self.names_done.push((self.names.len(), self.sizes.len()));
        }
        fn complete(&mut self, _dir: &mut Dir<'_>, c: &mut Completion) {
            assert!(c.token < FIRST_RESERVED_TOKEN);
            self.sizes.push((c.token as usize, c.stat().unwrap().stx_size));
        }
    }

    #[test]
    fn lists_names_and_hands_back_completions() {
        let s = Scratch::new("pipeline");
        // Enough names for more than one getdents batch.
        for i in 0..3000 {
            std::fs::write(s.join(format!("file-{i:05}")), vec![b'x'; i % 7]).unwrap();
        }
        std::fs::create_dir(s.join("sub")).unwrap();
        let mut l = Lister::new(None);
        let mut sink = Names::default();
        let path = s.0.as_os_str().as_bytes();
        let out = l.list(path, DIR, true, &mut sink).unwrap();
        assert!(sink.begun);
        assert!(out.read_error.is_none());
        let m = std::fs::metadata(&s.0).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(out.id.map(|id| (id.dev, id.ino)), Some((m.dev(), m.ino())));
        // Each stat came back to the entry that asked for it.
        assert_eq!(sink.sizes.len(), 3000);
        for &(i, size) in &sink.sizes {
            let name = std::str::from_utf8(&sink.names[i]).unwrap();
            let n: u64 = name.strip_prefix("file-").unwrap().parse().unwrap();
            assert_eq!(size, n % 7, "{name}");
        }
        // Told once that every name was handed out, before the last stat
        // came back.
        assert_eq!(sink.names_done.len(), 1);
        assert_eq!(sink.names_done[0].0, 3003);
        assert!(sink.names_done[0].1 < 3000, "told after every completion");
        // Every name, dots included, once.
        sink.names.sort();
        sink.names.dedup();
        assert_eq!(sink.names.len(), 3003);
        assert_eq!(&sink.names[..2], [&b"."[..], b".."]);
        // A sink that promised the identity and never gave it: the lister
        // stats the directory after all.
        let mut promising = Names { promise_id: true, ..Names::default() };
        let out = l.list(path, DIR, true, &mut promising).unwrap();
        assert_eq!(out.id.map(|id| (id.dev, id.ino)), Some((m.dev(), m.ino())));
        // Opened from its parent's descriptor by name: the same listing;
        // on a local file system nothing is kept open, even when asked.
        let parent = std::fs::File::open(&s.0).unwrap();
        use std::os::fd::AsFd;
        let mut sub = Names::default();
        let at = Some((parent.as_fd(), &b"sub"[..]));
        let out = l.list_in(at, b"ignored/as/path/sub", DIR, (true, true), &mut sub).unwrap();
        assert_eq!(sub.names.len(), 2);
        let m = std::fs::metadata(s.join("sub")).unwrap();
        assert_eq!(out.id.map(|id| (id.dev, id.ino)), Some((m.dev(), m.ino())));
        assert!(out.kept.is_none());
        // A missing directory: the open's error.
        let gone = s.join("missing");
        let r = l.list(gone.as_os_str().as_bytes(), DIR, false, &mut Names::default());
        assert_eq!(r.err(), Some(Errno::ENOENT));
    }
}

//! A directory-tree walker on ringio for find- and du-style tools.
//!
//! Two modes share one reader:
//! - **parallel** (default): worker threads share a LIFO stack of
//!   directories, as ripgrep's ignore walker and bfs do; measured on the
//!   project machine, 2 threads walk a 171k-entry tree in 44 ms against
//!   82 ms for one (docs/engine.md §3). Output order between
//!   sibling subtrees is then unspecified. A directory of 1024+ entries
//!   has its stats shared among the threads too (`split`), so one huge
//!   directory doesn't run on one core.
//! - **ordered**: one thread, depth-first in directory order (or sorted), the
//!   order GNU find and du produce; used for `-quit`-like semantics and
//!   when the caller asks for determinism.
//!
//! Directories are opened relative to their parent's descriptor (never by
//! re-resolving a full path, which costs a lookup per component — ruinous
//! on network file systems), and a parent's descriptor is closed as soon as
//! every child directory has been opened. Entries are only stat'ed when the
//! visitor asks (d_type from getdents suffices for most of find). With
//! inline engines (the default) stats go straight into the listing, and a
//! stat'ed directory on ext4 is read with one getdents64 call when the last
//! record carries the end-of-directory mark (`ringio::getdents_fill_hinted`).
//!
//! Post-order callbacks (`leave`) run once a directory's whole subtree is
//! done, in whichever thread finished it last, so du can print a directory
//! after all its descendants and find can honour `-depth`.

#![forbid(unsafe_code)]

mod dirs;
mod fds;
mod node;
mod ordered;
mod parallel;
mod reader;
mod split;
mod step;
#[cfg(test)]
mod testing;

use std::os::fd::RawFd;

pub use ringio::{dtype, Backend, Errno, Statx};

/// Which stat an entry needs before `visit` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatNeed {
    /// d_type is enough (the walker still lstat's entries whose d_type is
    /// unknown, since it must know which are directories).
    None,
    /// `lstat`: the entry itself.
    Lstat,
    /// `stat`: follow a symlink; a dangling link is then reported with its
    /// own lstat and `followed == false`, as find -L does.
    Follow,
}

/// What the visitor wants done after seeing an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Descend if this is a directory (ignored otherwise).
    Descend,
    /// Don't descend (find -prune, -maxdepth, -xdev).
    Skip,
    /// Stop the whole walk as soon as possible (find -quit).
    Quit,
}

/// An entry as the visitor sees it; borrowed data lives until the callback returns.
pub struct Entry<'a> {
    /// The path as the user would see it: root operand + "/" + names.
    pub path: &'a [u8],
    /// The last component (for a root: the operand as given).
    pub name: &'a [u8],
    /// 0 for a root.
    pub depth: usize,
    /// The type: from the stat when there is one, else from getdents.
    pub d_type: u8,
    pub ino: u64,
    pub stat: Option<&'a Statx>,
    /// The stat failed (the entry vanished, permission, loop…).
    pub stat_error: Option<Errno>,
    /// The stat describes a symlink's target.
    pub followed: bool,
    /// The directory containing the entry (`AT_FDCWD` for roots) and the
    /// name relative to it: for dirfd-relative work (-execdir, -delete)
    /// that can't be fooled by a symlink swapped into the path.
    pub dirfd: RawFd,
    pub rel_name: &'a [u8],
    /// The entry's position in its directory's listing as read (0 for a
    /// root): with the parent's own index chain this gives the entry's place
    /// in a sequential depth-first walk, which du needs to decide, as GNU
    /// does, which of several hard links to a file counts.
    pub index: usize,
}

impl Entry<'_> {
    pub fn is_dir(&self) -> bool {
        self.d_type == dtype::DIR
    }
}

/// Why part of the tree could not be walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkError {
    /// A root operand could not be stat'ed.
    Root { path: Vec<u8>, errno: Errno },
    /// A directory could not be opened.
    Open { path: Vec<u8>, errno: Errno },
    /// Reading a directory failed part-way (what was read is still visited).
    Read { path: Vec<u8>, errno: Errno },
    /// Following symlinks led back to an ancestor: `path` is the same
    /// directory as `ancestor`.
    Loop { path: Vec<u8>, ancestor: Vec<u8> },
}

impl WalkError {
    pub fn path(&self) -> &[u8] {
        match self {
            WalkError::Root { path, .. }
            | WalkError::Open { path, .. }
            | WalkError::Read { path, .. }
            | WalkError::Loop { path, .. } => path,
        }
    }
}

/// Callbacks of a walk. Methods take `&self` and run on several threads at
/// once; per-thread mutable state (an output buffer) lives in `Local`.
/// `Acc` is a per-directory accumulator that children add into (du sums).
pub trait Visitor: Sync {
    type Local: Send;
    type Acc: Default + Send + Sync;

    /// Whether `after_entries` and `leave` use their entry's `dirfd`. When
    /// false they get `AT_FDCWD` and the whole path, and the walker saves
    /// pinning (and perhaps reopening) the parent's descriptor twice per
    /// directory.
    const DIRFD_AFTER_VISIT: bool = true;

    /// Creates one thread's state.
    fn local(&self) -> Self::Local;

    /// Called with each thread's state when the walk ends.
    fn finish(&self, _local: Self::Local) {}

    /// Decides the stat for an entry before it is visited, from what
    /// getdents told (name, d_type, depth).
    fn need_stat(&self, name: &[u8], d_type: u8, depth: usize) -> StatNeed;

    /// Sees an entry (pre-order). `parent` is the containing directory's
    /// accumulator (`None` for roots).
    fn visit(&self, local: &mut Self::Local, entry: &Entry, parent: Option<&Self::Acc>) -> Visit;

    /// Creates the accumulator of a directory `visit` chose to descend into.
    /// The default is `Acc::default()`; du overrides it to record where the
    /// directory sits in the tree.
    fn make_acc(&self, _dir: &Entry, _parent: Option<&Self::Acc>) -> Self::Acc {
        Self::Acc::default()
    }

    /// Every entry of `dir`'s listing has been visited (its subdirectories
    /// may still be in progress), on the thread that visited them and
    /// before this thread's share of `dir` is marked done; so anything
    /// `visit` buffered in `local` can be published here and is then
    /// guaranteed to be out before `leave(dir)` runs on any thread. Not
    /// called for a directory that could not be opened.
    fn after_entries(&self, _local: &mut Self::Local, _dir: &Entry, _acc: &Self::Acc) {}

    /// A directory's subtree is done (post-order): called for every
    /// directory `visit` returned `Descend` for, even when opening it failed.
    fn leave(
        &self,
        _local: &mut Self::Local,
        _dir: &Entry,
        _acc: &Self::Acc,
        _parent: Option<&Self::Acc>,
    ) {
    }

    /// Something could not be walked; `parent` is the accumulator of the
    /// directory the error belongs to, when there is one.
    fn error(&self, local: &mut Self::Local, err: &WalkError, acc: Option<&Self::Acc>);
}

/// Walk settings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Worker threads; 0 = the CPUs available, at most 8 (1 under the sync backend).
    pub threads: usize,
    /// The engine executor; `None` = ringio's default / `RINGIO_BACKEND`.
    pub backend: Option<Backend>,
    /// One thread, depth-first, GNU order (see the crate docs).
    pub ordered: bool,
    /// Visit each directory's entries sorted by name (byte order).
    pub sort: bool,
    /// Roots are stat'ed following symlinks (find -H/-L, du -H/-L); below
    /// the roots, `need_stat` decides.
    pub follow_roots: bool,
}

impl Options {
    fn backend(&self) -> Backend {
        self.backend.unwrap_or_else(ringio::default_backend)
    }

    fn thread_count(&self, remote: bool) -> usize {
        if self.ordered || self.backend() == Backend::Sync {
            return 1;
        }
        if self.threads > 0 {
            return self.threads;
        }
        let cpus = ringio::sys::available_cpus().clamp(1, 8);
        // On a network or FUSE file system each request mostly waits, so
        // the walk wants many directories in flight, not one per CPU: a
        // directory's requests (open, READDIRs) are sequential, and neither
        // executor can overlap them within one thread (getdents64 has no
        // ring opcode). Measured through slowfs at 1 ms (issue 8, 20k-entry
        // tree): lfind with the ring on 2 threads 2.6 s, on 64 threads 0.17 s.
        if remote {
            return ringio::sys::fs::remote_depth().max(cpus);
        }
        cpus
    }

    /// The executor of each walker thread's own engine: the walker threads
    /// are the parallelism, so under `threads` each runs plain syscalls inline.
    /// On a high-latency file system a ring gets more io-wq workers, so a
    /// directory's stat batch is worked on all at once; so does a pool for
    /// the one thread of an ordered walk.
    fn thread_engine(&self, remote: bool, single: bool) -> ringio::Engine {
        let b = match self.backend() {
            Backend::Uring => Backend::Uring,
            Backend::Threads if remote && single => Backend::Threads,
            Backend::Threads | Backend::Sync => Backend::Sync,
        };
        // Many walker threads each with a ring: each ring's io-wq gets a
        // share of the depth, not all of it (64 threads x 64 io-wq workers
        // put ~1,000 requests in flight and cost twice the CPU of the pool);
        // big listings are shared among the threads instead (parallel.rs).
        // Measured (lfind -size +1k, tree-20k through slowfs, depth 64): 4
        // io-wq workers per ring 0.49 s, 16: 0.64 s, 64: 0.84 s.
        let threads = (b == Backend::Uring && remote && !single)
            .then(|| (ringio::sys::fs::remote_depth() / 16).max(4));
        let cfg = ringio::Config { backend: Some(b), threads, ..ringio::Config::default() };
        let mut eng = ringio::Engine::with_config(cfg);
        if remote {
            eng.raise_depth(ringio::sys::fs::remote_depth());
        }
        eng
    }
}

/// Walks `roots` in order, calling `visitor`. Returns when every root is done
/// or a visit returned [`Visit::Quit`].
pub fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &Options, visitor: &V) {
    let remote = any_remote(roots);
    // Inline syscalls (the default on one CPU) would keep one request in
    // flight on a high-latency file system: take worker threads there,
    // unless an executor was asked for.
    let pooled;
    let opts = if remote
        && opts.backend.is_none()
        && ringio::Backend::from_env().is_none()
        && opts.backend() == Backend::Sync
    {
        pooled = Options { backend: Some(Backend::Threads), ..opts.clone() };
        &pooled
    } else {
        opts
    };
    // Each walker thread needs a few descriptors of its own (its ring, a
    // directory being opened, a reopening hop): under a tight
    // `ulimit -n` fewer threads walk (one, in order, below ~24), rather
    // than all of them failing with EMFILE.
    let threads = opts.thread_count(remote).min(fds::threads_for_limit());
    if threads == 1 {
        ordered::walk(roots, opts, remote, visitor);
    } else {
        parallel::walk(roots, threads, opts, remote, visitor);
    }
}

fn any_remote(roots: &[Vec<u8>]) -> bool {
    roots.iter().any(|r| {
        std::ffi::CString::new(r.as_slice())
            .ok()
            .and_then(|p| ringio::sys::fs::high_latency_path(&p).ok().flatten())
            .is_some()
    })
}

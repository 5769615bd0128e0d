//! The engine: one batch API in front of the executors.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::fd::RawFd;

use crate::arena::Arena;
use crate::exec::{sync::SyncExec, threads::ThreadExec, uring, uring::UringExec, Exec, Job};
use crate::op::{Completion, Op, Token};

/// Which executor runs the operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// io_uring for every operation that has an opcode; the rest inline.
    Uring,
    /// A pool of worker threads doing plain syscalls, the caller helping.
    Threads,
    /// Plain syscalls inline on the caller's thread.
    Sync,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Uring, Backend::Threads, Backend::Sync];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Uring => "uring",
            Backend::Threads => "threads",
            Backend::Sync => "sync",
        }
    }

    pub fn parse(s: &str) -> Option<Backend> {
        match s.trim() {
            "uring" | "io_uring" => Some(Backend::Uring),
            "threads" | "thread" | "pool" => Some(Backend::Threads),
            "sync" | "inline" => Some(Backend::Sync),
            _ => None,
        }
    }

    /// `RINGIO_BACKEND`, when set to a known name.
    pub fn from_env() -> Option<Backend> {
        std::env::var("RINGIO_BACKEND").ok().and_then(|v| Backend::parse(&v))
    }
}

/// Engine settings; `Default` means "decide from the environment and the
/// measurements".
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Force an executor; `None` takes `RINGIO_BACKEND`, else the measured default.
    pub backend: Option<Backend>,
    /// Worker threads for the thread pool besides the caller;
    /// `None` = `RINGIO_THREADS` or CPUs − 1 (at least 1). When set (either
    /// way), raising the depth for a high-latency file system leaves them
    /// (and caps the ring's io-wq workers there).
    pub threads: Option<usize>,
    /// Operations in flight in the ring; `None` = `RINGIO_DEPTH` or 1024.
    pub depth: Option<usize>,
}

/// The executor chosen when nothing forces one.
///
/// Measured on the project machine (2 vCPUs, ext4, Linux 6.18; see the
/// ringio section of the README and docs/engine.md): the thread
/// pool wins every warm metadata workload (statx 100k: pool 2 threads
/// ~840 ns/file vs ≥ 1236 for the best ring), and open/close/getdents gain
/// nothing from the ring. With a single CPU there is nothing to share, so
/// inline syscalls avoid the hand-off cost.
///
/// On high-latency file systems (see [`Engine::adapt_to`]) the pool stays
/// the choice: through a FUSE mount delaying each request 1 ms (`cargo xtask
/// bench --slowfs 1ms`, 2 CPUs) it matched or beat the ring with raised io-wq
/// workers in wall time (lsr -l 10k files 0.42 vs 0.44 s, lfind on a 20k tree
/// 0.15 vs 0.17 s, ldu -s 0.74 vs 0.83 s) at half its CPU; and an engine whose
/// inline executor was only this default becomes a pool there.
pub fn default_backend() -> Backend {
    if let Some(b) = Backend::from_env() {
        return b;
    }
    if crate::sys::available_cpus() >= 2 {
        Backend::Threads
    } else {
        Backend::Sync
    }
}

/// Whether io_uring works here (probed once, by trying).
pub fn uring_available() -> bool {
    uring::caps().is_some()
}

/// The ring setup flags the probe settled on, for `--version` and benches.
pub fn uring_description() -> String {
    match uring::caps() {
        Some(c) => format!("io_uring ({})", c.describe()),
        None => "io_uring unavailable".into(),
    }
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.trim().parse().ok().filter(|&n| n > 0)
}

/// Queues operations, hands them to the executor in batches and returns
/// `(token, result)` completions.
///
/// Operations that are in flight together may run in any order and
/// concurrently; issue a dependent operation (the next write to a pipe, a
/// getdents after its open) only after the previous one's completion.
///
/// The engine is not `Send`: an io_uring set up with SINGLE_ISSUER must be
/// driven from the thread that created it. Parallel walkers create one
/// engine per thread.
pub struct Engine {
    // Field order is drop order: the executor (ring teardown, worker joins)
    // must go before the arena that in-flight operations point into.
    exec: Exec,
    arena: Arena,
    backend: Backend,
    pending: Vec<Job>,
    ready: Vec<Completion>,
    scratch: Vec<Completion>,
    /// The executor was asked for (config or `RINGIO_BACKEND`), not chosen.
    forced: bool,
    /// Worker threads fixed by the config or `RINGIO_THREADS`.
    fixed_workers: Option<usize>,
    /// The depth was raised for a high-latency file system (or the executor
    /// has none to raise): no more checks.
    adapted: bool,
    /// Tokens of directory opens whose descriptor is checked on completion
    /// (see [`Engine::openat`]).
    dir_opens: Vec<Token>,
    _not_send: PhantomData<*const ()>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with the default executor.
    pub fn new() -> Engine {
        Engine::with_config(Config::default())
    }

    /// An engine with the given settings. Never fails: when io_uring is
    /// requested but unusable, the thread pool takes its place silently.
    pub fn with_config(cfg: Config) -> Engine {
        let forced = cfg.backend.is_some() || Backend::from_env().is_some();
        let backend = cfg.backend.unwrap_or_else(default_backend);
        // Counting CPUs reads cgroup files (~10 syscalls): only when needed,
        // so a sync engine (lcat's) costs nothing at start.
        let cpus = || crate::sys::available_cpus();
        let threads = || {
            cfg.threads
                .or_else(|| env_usize("RINGIO_THREADS"))
                .unwrap_or_else(|| cpus().saturating_sub(1).max(1))
        };
        let depth = cfg.depth.or_else(|| env_usize("RINGIO_DEPTH")).unwrap_or(1024);
        let (exec, backend) = match backend {
            Backend::Sync => (Exec::Sync(SyncExec), Backend::Sync),
            Backend::Threads => (Exec::Threads(ThreadExec::new(threads())), Backend::Threads),
            Backend::Uring => match UringExec::new(depth, cpus().max(depth / 64) as u32) {
                Ok(u) => (Exec::Uring(Box::new(u)), Backend::Uring),
                Err(_) => (Exec::Threads(ThreadExec::new(threads())), Backend::Threads),
            },
        };
        Engine {
            exec,
            arena: Arena::new(),
            backend,
            pending: Vec::new(),
            ready: Vec::new(),
            scratch: Vec::new(),
            forced,
            fixed_workers: cfg.threads.or_else(|| env_usize("RINGIO_THREADS")),
            adapted: false,
            dir_opens: Vec::new(),
            _not_send: PhantomData,
        }
    }

    /// The executor actually in use (after any fallback).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Worker threads started so far by the thread-pool executor.
    pub fn worker_threads(&self) -> usize {
        match &self.exec {
            Exec::Threads(t) => t.workers(),
            _ => 0,
        }
    }

    /// Raises the in-flight depth if `fd` lives on a high-latency file system
    /// (FUSE, NFS, SMB, 9p, Ceph, Lustre, …): more pool workers, or more io-wq
    /// workers for the ring, up to `RINGIO_DEPTH` (default 64). Returns the
    /// file system's name when it did. An explicit `RINGIO_THREADS` wins.
    ///
    /// Engines do this by themselves for the directories they open from the
    /// current directory or an absolute path (see [`Engine::openat`]); this
    /// is for descriptors that come from elsewhere.
    pub fn adapt_to(&mut self, fd: RawFd) -> Option<&'static str> {
        let fs = crate::sys::fs::high_latency_fd(fd)?;
        self.raise_depth(crate::sys::fs::remote_depth());
        self.adapted = true;
        Some(fs)
    }

    /// The high-latency file system this engine adapted to, if it did
    /// (by itself, through [`Engine::adapt_to`], or because another engine
    /// of the process found one: see [`crate::sys::fs::seen`]).
    pub fn high_latency(&mut self) -> Option<&'static str> {
        self.follow_process();
        if self.adapted {
            crate::sys::fs::seen()
        } else {
            None
        }
    }

    /// Raises the depth once some engine of the process found a
    /// high-latency file system (one relaxed atomic load per call).
    fn follow_process(&mut self) {
        if !self.adapted && crate::sys::fs::seen().is_some() {
            self.raise_depth(crate::sys::fs::remote_depth());
            self.adapted = true;
        }
    }

    /// A directory opened from the cwd or an absolute path completed: on a
    /// high-latency file system, raise the depth (process-wide).
    fn check_dir(&mut self, fd: RawFd) {
        if crate::sys::fs::note_dir(fd).is_some() {
            self.follow_process();
        }
    }

    /// Allows `depth` operations to be worked on at once: pool workers for
    /// the thread pool (unless `RINGIO_THREADS` fixed them), io-wq workers
    /// for the ring. Inline execution has no depth to raise.
    /// An engine whose inline executor was only the default (one CPU) gets a
    /// thread pool: blocking syscalls that wait on a server want company
    /// even on one CPU.
    ///
    /// Workers fixed by [`Config::threads`] or `RINGIO_THREADS` stay as they
    /// are (and cap the ring's io-wq workers too).
    pub fn raise_depth(&mut self, depth: usize) {
        let n = self.fixed_workers.unwrap_or(depth);
        match &mut self.exec {
            Exec::Threads(t) => t.raise_workers(n),
            Exec::Uring(u) => u.raise_iowq_workers(n as u32),
            Exec::Sync(_) if !self.forced => {
                self.exec = Exec::Threads(ThreadExec::new(n));
                self.backend = Backend::Threads;
            }
            Exec::Sync(_) => {}
        }
    }

    fn push(&mut self, token: Token, op: Op) {
        self.pending.push((token, op));
    }

    /// `openat(dirfd, path, flags | O_CLOEXEC, mode)`; completes with the fd.
    ///
    /// A directory (`O_DIRECTORY`) opened from the current directory or by
    /// an absolute path — where a tool starts its work — is checked on
    /// completion with one `fstatfs`: on a high-latency file system (FUSE,
    /// NFS, …) this and every other engine of the process raise their
    /// in-flight depth, as [`Engine::adapt_to`] does. Once one was found
    /// nothing is checked any more. Directories opened relative to another
    /// directory's descriptor are not checked (they are on its file system
    /// but across mount points).
    pub fn openat(&mut self, token: Token, dirfd: RawFd, path: &[u8], flags: i32, mode: u32) {
        if flags & libc::O_DIRECTORY != 0
            && !self.adapted
            && (dirfd == libc::AT_FDCWD || path.first() == Some(&b'/'))
        {
            self.dir_opens.push(token);
        }
        let path = self.arena.push(path);
        self.push(token, Op::OpenAt { dirfd, path, flags, mode });
    }

    pub fn close(&mut self, token: Token, fd: RawFd) {
        self.push(token, Op::Close { fd });
    }

    /// `statx(dirfd, path, flags, mask)`; flags may hold AT_SYMLINK_NOFOLLOW,
    /// AT_EMPTY_PATH (with an empty path, to stat `dirfd` itself),
    /// AT_STATX_DONT_SYNC, AT_NO_AUTOMOUNT.
    pub fn statx(&mut self, token: Token, dirfd: RawFd, path: &[u8], flags: i32, mask: u32) {
        let path = self.arena.push(path);
        self.push(token, Op::Statx { dirfd, path, flags, mask });
    }

    /// Reads directory entries of the open directory `fd` into `buf`
    /// (cleared first; 64 KiB capacity is allocated if it has less than
    /// 4 KiB). The completion's `eof` says whether the end was reached;
    /// iterate the records with [`crate::DirentIter`] over `buf()`.
    pub fn getdents(&mut self, token: Token, fd: RawFd, buf: Vec<u8>) {
        self.push(token, Op::Getdents { fd, buf });
    }

    /// `readlinkat`; the completion's buffer holds the whole target.
    pub fn readlinkat(&mut self, token: Token, dirfd: RawFd, path: &[u8], buf: Vec<u8>) {
        let path = self.arena.push(path);
        self.push(token, Op::ReadLink { dirfd, path, buf });
    }

    /// Reads extended attribute `name` of `path` (relative to `dirfd`,
    /// following a final symlink when `follow`). With a zero-capacity buffer
    /// it only asks for the value's size. Missing attributes complete with
    /// ENODATA.
    pub fn getxattr(
        &mut self,
        token: Token,
        dirfd: RawFd,
        path: &[u8],
        name: &'static CStr,
        follow: bool,
        buf: Vec<u8>,
    ) {
        // The ring's GETXATTR resolves its path from the cwd; a name relative
        // to a directory descriptor goes through that descriptor's /proc
        // link instead, so it still costs one lookup of the name (an absolute
        // path re-resolves every component: a round trip each on FUSE/NFS).
        if self.backend == Backend::Uring
            && follow
            && dirfd != libc::AT_FDCWD
            && path.first() != Some(&b'/')
            && path.len() < 3800
            && crate::sys::fs::proc_fd_usable()
        {
            let mut p = [0u8; 3840];
            let mut w = &mut p[..];
            use std::io::Write;
            let _ = write!(w, "/proc/self/fd/{dirfd}/");
            let head = 3840 - w.len();
            p[head..head + path.len()].copy_from_slice(path);
            let path = self.arena.push(&p[..head + path.len()]);
            self.push(token, Op::GetXattr { dirfd: libc::AT_FDCWD, path, name, follow, buf });
            return;
        }
        let path = self.arena.push(path);
        self.push(token, Op::GetXattr { dirfd, path, name, follow, buf });
    }

    /// Lists the extended attribute names of `path` (relative to `dirfd`,
    /// following a final symlink when `follow`) into `buf`, NUL after each.
    /// The ring has no opcode for it: under io_uring it runs as a syscall.
    pub fn listxattr(
        &mut self,
        token: Token,
        dirfd: RawFd,
        path: &[u8],
        follow: bool,
        buf: Vec<u8>,
    ) {
        let path = self.arena.push(path);
        self.push(token, Op::ListXattr { dirfd, path, follow, buf });
    }

    /// Reads into `buf`'s spare capacity (appending after its length), at
    /// `offset` or the file position. A short read is returned as is.
    pub fn read(&mut self, token: Token, fd: RawFd, buf: Vec<u8>, offset: Option<u64>) {
        self.push(token, Op::Read { fd, buf, offset });
    }

    /// Writes all of `buf`: short writes are continued by the engine, so the
    /// completion reports either the whole length or an error.
    pub fn write(&mut self, token: Token, fd: RawFd, buf: Vec<u8>, offset: Option<u64>) {
        self.push(token, Op::Write { fd, buf, offset });
    }

    /// One `splice` of up to `len` bytes; short counts are returned as is.
    #[allow(clippy::too_many_arguments)] // mirrors splice(2) one to one
    pub fn splice(
        &mut self,
        token: Token,
        fd_in: RawFd,
        off_in: Option<i64>,
        fd_out: RawFd,
        off_out: Option<i64>,
        len: u32,
        flags: u32,
    ) {
        self.push(token, Op::Splice { fd_in, off_in, fd_out, off_out, len, flags });
    }

    pub fn fadvise(&mut self, token: Token, fd: RawFd, offset: i64, len: i64, advice: i32) {
        self.push(token, Op::Fadvise { fd, offset, len, advice });
    }

    /// Operations pushed or submitted whose completions have not yet been
    /// returned by [`Engine::wait`].
    pub fn outstanding(&self) -> usize {
        self.pending.len() + self.exec.in_flight() + self.ready.len()
    }

    /// Hands pushed operations to the executor without waiting.
    pub fn submit(&mut self) {
        if !self.pending.is_empty() {
            self.follow_process();
            self.exec.submit(&mut self.pending, &mut self.ready);
        }
    }

    /// Submits, then appends at least `min` completions to `out` (fewer only
    /// if fewer are outstanding). Returns how many were appended.
    pub fn wait(&mut self, min: usize, out: &mut Vec<Completion>) -> usize {
        if !self.pending.is_empty() {
            self.follow_process();
            // The executor's wait (or poll) below submits what is left.
            self.exec.submit_for_wait(&mut self.pending, &mut self.ready);
        }
        let before = out.len();
        out.append(&mut self.ready);
        let got = out.len() - before;
        if got < min {
            self.exec.wait(min - got, out);
        } else {
            self.exec.poll(out);
        }
        if !self.dir_opens.is_empty() {
            self.check_dir_opens(&out[before..]);
        }
        self.maybe_reset_arena();
        out.len() - before
    }

    fn check_dir_opens(&mut self, done: &[Completion]) {
        for c in done {
            if let Some(i) = self.dir_opens.iter().position(|&t| t == c.token) {
                self.dir_opens.swap_remove(i);
                if let (Ok(fd), false) = (c.fd(), self.adapted) {
                    self.check_dir(fd);
                }
            }
        }
        if self.adapted {
            self.dir_opens.clear();
        }
    }

    /// Runs until nothing is outstanding, calling `handler` for every
    /// completion; the handler may push more operations.
    pub fn run<F: FnMut(&mut Engine, Completion)>(&mut self, mut handler: F) {
        let mut batch = std::mem::take(&mut self.scratch);
        while self.outstanding() > 0 {
            self.wait(1, &mut batch);
            for c in batch.drain(..) {
                handler(self, c);
            }
        }
        self.scratch = batch;
    }

    /// Pushes nothing itself: convenience for one synchronous-looking call,
    /// waiting for the completion of `token` while keeping any others in
    /// `others`.
    pub fn wait_for(&mut self, token: Token, others: &mut Vec<Completion>) -> Option<Completion> {
        loop {
            if let Some(i) = others.iter().position(|c| c.token == token) {
                return Some(others.swap_remove(i));
            }
            if self.outstanding() == 0 {
                return None;
            }
            self.wait(1, others);
        }
    }

    fn maybe_reset_arena(&mut self) {
        if self.pending.is_empty() && self.exec.in_flight() == 0 {
            self.arena.reset();
        }
    }
}

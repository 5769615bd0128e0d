//! The engine: one batch API in front of the executors.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::fd::RawFd;

use crate::arena::Arena;
use crate::exec::{inline::InlineExec, threads::ThreadExec, uring, uring::UringExec, Exec, Job};
use crate::op::{getdents_fill_hinted, Completion, Data, Op, Splice, Token};

/// Which executor runs the operations. Only the engine, its tests and the
/// benches name one: tools state a [`Workload`], or make requests
/// ([`Engine::about`], [`crate::listdir`], [`crate::Walkers`]) whose
/// answers the engine decides how to get, so the policy lives here alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// io_uring for every operation that has an opcode; the rest inline.
    Uring,
    /// A pool of worker threads doing plain syscalls, the caller helping.
    Threads,
    /// Plain syscalls inline on the caller's thread (`RINGIO_BACKEND=sync`).
    Inline,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Uring, Backend::Threads, Backend::Inline];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Uring => "uring",
            Backend::Threads => "threads",
            Backend::Inline => "sync",
        }
    }

    pub fn parse(s: &str) -> Option<Backend> {
        match s.trim() {
            "uring" | "io_uring" => Some(Backend::Uring),
            "threads" | "thread" | "pool" => Some(Backend::Threads),
            "sync" | "inline" => Some(Backend::Inline),
            _ => None,
        }
    }

    /// `RINGIO_BACKEND`, when set to a known name.
    pub(crate) fn from_env() -> Option<Backend> {
        crate::env::get().backend
    }
}

/// What an engine's operations are like. Tools say this; the engine alone
/// turns it into an executor, a depth and a number of workers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Workload {
    /// Batches of independent operations (a directory's stats, a walk's
    /// opens): the measured default executor ([`default_backend`]).
    #[default]
    Batches,
    /// Batches of thousands (every stat and attribute question of a big
    /// listing at once): as `Batches`, with a ring 4096 deep, so 10,000
    /// stats and ACL checks take a handful of enters (the thread pool
    /// ignores the depth).
    BigBatches,
    /// One dependent chain: each operation needs the previous one's result
    /// (read, then write what was read, …), so worker threads could only add
    /// hand-offs, and on a warm cache io_uring READ/WRITE/SPLICE is never
    /// faster than the syscalls (docs/engine.md: ring SPLICE 42 GB/s vs 60
    /// to /dev/null). Inline syscalls, unless `RINGIO_BACKEND` says otherwise.
    Chain,
    /// Small files read whole, many at once, ahead of the caller (lcat's
    /// read-ahead): per file a statx, then [`Engine::read_whole`]. The
    /// ring: its engine runs both as syscalls on the caller's thread while
    /// the cache is warm, and through the ring once the device is cold (the
    /// figures: [`crate::whole`]). Without io_uring, inline. A pool, when
    /// forced, has no worker until the device is cold: its threads would
    /// only hand every file back and forth.
    Files,
}

impl Workload {
    /// The executor an engine for this workload gets: `RINGIO_BACKEND`, else
    /// the measured choice.
    pub fn backend(self) -> Backend {
        match (Backend::from_env(), self) {
            (Some(b), _) => b,
            (None, Workload::Chain) => Backend::Inline,
            (None, Workload::Files) if uring_available() => Backend::Uring,
            (None, Workload::Files) => Backend::Inline,
            (None, _) => default_backend(),
        }
    }

    /// `--version`'s words for this workload's executor: its name, and
    /// whether `RINGIO_BACKEND` chose it.
    pub fn describe(self) -> String {
        let from = if crate::env::get().backend_set { ", from RINGIO_BACKEND" } else { "" };
        format!("{}{from}", self.backend().name())
    }
}

/// How many extra threads a CPU-bound job (formatting a listing while
/// others read ahead) should start: one per CPU up to `max`, and none on a
/// single CPU or when inline syscalls were asked for (`RINGIO_BACKEND=sync`).
pub fn helper_threads(max: usize) -> usize {
    let cpus = crate::sys::available_cpus();
    if cpus < 2 || Backend::from_env() == Some(Backend::Inline) {
        0
    } else {
        cpus.min(max)
    }
}

/// How many read-ahead threads (each listing directories with its own
/// engine) a job that runs `warm` of them on a warm cache should run now:
/// while the device is cold ([`crate::cold`]), all `max` of them. A cold
/// listing waits on a directory block and then on the inode table blocks
/// its stats need, one reader at a time; it is the number of listings under
/// way that keeps the device busy, not the CPUs. `lsr -alR` of the
/// 170k-entry tree on 2 vCPUs, caches dropped, interleaved medians of 8:
/// 4 readers 1.76–1.81 s, 8: 1.60–1.70, 12: 1.72, 16: 1.59–1.66, the
/// syscall floor (16 threads) 1.42–1.49 (docs/engine.md §5).
pub fn helper_threads_now(warm: usize, max: usize) -> usize {
    if warm == 0 || !crate::cold::is_cold() {
        warm
    } else {
        max.max(warm)
    }
}

/// Pool workers for each of up to `engines` engines working side by side
/// (read-ahead threads with one engine each, besides a main one that keeps
/// the full depth): on a high-latency file system (`remote`) they share
/// about the in-flight depth again, at least 2 each; locally 1, as a pool
/// would only compete with the other engines' threads.
pub(crate) fn workers_each(engines: usize, remote: bool) -> usize {
    if remote {
        (crate::sys::fs::remote_depth() / engines.max(1)).max(2)
    } else {
        1
    }
}

/// How many threads list directories ahead of a listing's caller (`ls
/// -R`), and the pool workers of each one's engine: see
/// [`Engine::list_ahead`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListAhead {
    /// Threads to run while the cache is warm (0: none is worth it).
    pub threads: usize,
    /// Pool workers of each thread's engine.
    pub workers_each: usize,
}

/// Engine settings; `Default` means "decide from the environment and the
/// measurements".
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// What the operations are like: the executor, depth and workers follow.
    pub workload: Workload,
    /// Force an executor (tests and benches); `None` takes `RINGIO_BACKEND`,
    /// else the workload's choice.
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
/// On high-latency file systems (see [`Engine::openat`]) the pool stays
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
        Backend::Inline
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
    // and the operations not yet handed to it must go before the arena
    // their paths point into (and whose chunk counts they release).
    exec: Exec,
    pending: Vec<Job>,
    pub(crate) arena: Arena,
    pub(crate) backend: Backend,
    pub(crate) ready: Vec<Completion>,
    /// Requests answered in parts ([`Engine::about`]).
    pub(crate) asks: crate::about::Asks,
    /// read_whole requests answered in parts ([`Engine::read_whole`]).
    pub(crate) wholes: crate::whole::Wholes,
    scratch: Vec<Completion>,
    /// Completions being sorted into the caller's and the engine's parts
    /// ([`Engine::settle`]).
    settling: Vec<Completion>,
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
    /// File system type per device, for [`Engine::getdents_hinted`].
    fs_types: Vec<(u64, i64)>,
    /// The last directory checked on opening ([`Engine::openat`]) and its
    /// file system's type: its end-of-directory marks come free with the
    /// check ([`Engine::end_marks`]).
    checked_dir: Option<(RawFd, i64)>,
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
    #[cfg_attr(ringutils_small, optimize(size))]
    pub fn with_config(cfg: Config) -> Engine {
        let env = crate::env::get();
        // A chain never wants a pool, not even on a high-latency file system.
        let forced =
            cfg.backend.is_some() || env.backend.is_some() || cfg.workload == Workload::Chain;
        let backend = cfg.backend.unwrap_or_else(|| cfg.workload.backend());
        let (fixed, depth) = match cfg.workload {
            // A chain has one operation in flight: one worker, a small ring,
            // whatever the environment says for batches.
            Workload::Chain => (cfg.threads.or(Some(1)), cfg.depth.unwrap_or(8)),
            Workload::BigBatches => {
                (cfg.threads.or(env.threads), cfg.depth.or(env.depth).unwrap_or(4096))
            }
            Workload::Batches => {
                (cfg.threads.or(env.threads), cfg.depth.or(env.depth).unwrap_or(1024))
            }
            // A file's chain has one operation in flight; callers keep tens
            // of files going.
            Workload::Files => {
                (cfg.threads.or(env.threads), cfg.depth.or(env.depth).unwrap_or(256))
            }
        };
        // Counting CPUs costs a syscall: only when needed, so a sync
        // engine (lcat's) costs nothing at start.
        let cpus = || crate::sys::available_cpus();
        // A Files pool has no worker while warm (see Workload::Files).
        let files = cfg.workload == Workload::Files;
        let threads =
            || fixed.unwrap_or_else(|| if files { 0 } else { cpus().saturating_sub(1).max(1) });
        let (mut exec, backend) = match backend {
            Backend::Inline => (Exec::Inline(InlineExec), Backend::Inline),
            Backend::Threads => (Exec::Threads(ThreadExec::new(threads())), Backend::Threads),
            Backend::Uring => match UringExec::new(depth, cpus().max(depth / 64) as u32) {
                Ok(u) => (Exec::Uring(Box::new(u)), Backend::Uring),
                Err(_) => (Exec::Threads(ThreadExec::new(threads())), Backend::Threads),
            },
        };
        // A pool (or io-wq) sized by the engine grows while the device is
        // cold (crate::cold); one sized by the caller stays as asked.
        match (&mut exec, fixed) {
            (Exec::Threads(t), None) => t.grow_when_cold(),
            (Exec::Uring(u), None) => u.grow_when_cold(),
            _ => {}
        }
        if let (Exec::Uring(u), true) = (&mut exec, files) {
            u.stat_here_while_warm();
        }
        Engine {
            exec,
            arena: Arena::new(),
            backend,
            pending: Vec::new(),
            ready: Vec::new(),
            scratch: Vec::new(),
            settling: Vec::new(),
            forced,
            fixed_workers: fixed,
            adapted: false,
            dir_opens: Vec::new(),
            checked_dir: None,
            fs_types: Vec::new(),
            asks: Default::default(),
            wholes: Default::default(),
            _not_send: PhantomData,
        }
    }

    /// An engine for the few operations of a small job (a directory that
    /// ends in its first getdents): inline syscalls, as below a few hundred
    /// operations a hand-off to a worker costs more than it saves. `None`
    /// when `RINGIO_BACKEND` forces one executor for everything: the
    /// caller's main engine then does it all.
    pub(crate) fn for_small_jobs() -> Option<Engine> {
        if Backend::from_env().is_some() {
            return None;
        }
        Some(Engine::with_config(Config { backend: Some(Backend::Inline), ..Config::default() }))
    }

    /// An engine for a [`Workload`], everything else decided here.
    pub fn for_workload(workload: Workload) -> Engine {
        Engine::with_config(Config { workload, ..Config::default() })
    }

    /// The executor actually in use (after any fallback), for tests and
    /// benches; callers make requests and let the engine decide.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// How many threads (at most `max`) should list directories ahead of
    /// this engine's caller, as it walks the directories this engine has
    /// listed so far. On a high-latency file system listing one directory
    /// is a chain of round trips that can't overlap, so `max` threads, each
    /// engine with a share of the in-flight depth; locally the work is CPU,
    /// so one per CPU up to `cpu_max`, none on one CPU or under inline
    /// syscalls (measured on 2 cores, `lsr -alR` of the 170k-entry tree:
    /// 680 ms sequential, 475 with one reader, 425 with two).
    pub fn list_ahead(&mut self, max: usize, cpu_max: usize) -> ListAhead {
        let remote = self.high_latency().is_some();
        let threads = if remote { max } else { helper_threads(cpu_max) };
        ListAhead { threads, workers_each: workers_each(max, remote) }
    }

    /// Whether operations pushed together are worked on concurrently. When
    /// not, each runs inline as it is submitted: a caller gains nothing from
    /// batching them, and may as well make the calls itself or let other
    /// threads share the work.
    pub(crate) fn concurrent(&self) -> bool {
        self.backend != Backend::Inline
    }

    /// The getdents buffer worth using for the rest of a big directory:
    /// with worker threads, 64 KiB batches keep them fed (docs/engine.md
    /// §2); io_uring runs getdents inline anyway, so bigger batches just
    /// save enters.
    pub(crate) fn big_dents_buf(&self) -> usize {
        match self.backend {
            Backend::Uring => 256 * 1024,
            _ => crate::DEFAULT_DENTS_BUF,
        }
    }

    /// Whether a caller that reads a directory while the engine works on
    /// the entries read so far should make its next getdents itself
    /// ([`Engine::getdents_now`]) rather than queue it: true for the thread
    /// pool, whose workers run operations in order, so a queued read waits
    /// behind the stats pushed before it while the workers then idle
    /// (10,000-entry `lsr -al`: a worker asleep a third of the time). The
    /// ring and inline execution gain nothing from it.
    pub(crate) fn reads_on_caller(&self) -> bool {
        self.backend == Backend::Threads
    }

    /// Most operations worth keeping in flight when each completion carries
    /// a statx: with the thread pool every finished one is a ~300-byte
    /// completion waiting to be collected; io_uring hands completions back
    /// a ring's worth at a time and keeps the rest as small queued requests,
    /// so it can afford a deeper pipeline (10,000-entry `lsr -al`: 20,000
    /// requests, all in flight).
    pub(crate) fn stat_window(&self) -> usize {
        match self.backend {
            Backend::Uring => 32 * 1024,
            _ => 4096,
        }
    }

    /// Most completions worth waiting for at once when each carries a
    /// statx: the ring's wait for more costs an enter each, so it takes
    /// what the window allows; the pool hands over one worker's batch of
    /// ~300-byte completions at a time without copying them, so waiting
    /// for any is best (more at once were appended to the first batch:
    /// copied, and a whole window of 4,096 built a 1.2 MB batch, 57 % of a
    /// 10,000-entry `lsr -al`'s page faults).
    pub(crate) fn collect_at_once(&self) -> usize {
        match self.backend {
            Backend::Uring => self.stat_window(),
            _ => 1,
        }
    }

    /// Whether [`Engine::join`] runs its first closure on a worker thread
    /// of the engine's own (the thread pool's), rather than on the caller
    /// after the second: a caller without one that wants two threads
    /// starts its own.
    pub fn lends_workers(&self) -> bool {
        match &self.exec {
            Exec::Threads(t) => t.can_lend(),
            _ => false,
        }
    }

    /// Runs `a` beside `b` on one of the engine's pool workers and returns
    /// both results (see [`Engine::lends_workers`]; otherwise `a` then `b`
    /// here). For CPU work once the I/O that needed the workers is done:
    /// a worker already started costs nothing to borrow, where a thread of
    /// the caller's own costs ~20 syscalls and a stack. A worker still
    /// busy with operations when `b` ends leaves `a` to the caller.
    pub fn join<RA: Send, RB>(
        &mut self,
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB,
    ) -> (RA, RB) {
        match &mut self.exec {
            Exec::Threads(t) => t.join(a, b),
            _ => (a(), b()),
        }
    }

    /// Worker threads started so far by the thread-pool executor.
    pub fn worker_threads(&self) -> usize {
        match &self.exec {
            Exec::Threads(t) => t.workers(),
            _ => 0,
        }
    }

    /// The executor's current worker limit: the thread pool's workers, or
    /// io-wq's bounded workers for the ring (0 inline). It rises while the
    /// device is cold ([`crate::cold`]) and falls back once completions are
    /// cache-fast. It moves at the next submit.
    pub fn worker_limit(&self) -> usize {
        match &self.exec {
            Exec::Threads(t) => t.worker_limit(),
            Exec::Uring(u) => u.iowq_limit() as usize,
            _ => 0,
        }
    }

    /// The high-latency file system this engine adapted to, if it did
    /// (by itself, or because another engine of the process found one: see
    /// [`crate::sys::fs::seen`]).
    pub(crate) fn high_latency(&mut self) -> Option<&'static str> {
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
        let (remote, fs) = crate::sys::fs::note_dir(fd);
        self.checked_dir = fs.map(|t| (fd, t));
        if remote.is_some() {
            self.follow_process();
        }
    }

    /// The end-of-directory marks of directory `fd` when the engine asked
    /// its file system's type as it opened it ([`Engine::openat`]: the
    /// last such open), for [`Engine::getdents_to_end`]. The directory's
    /// size is not known here, so on ext4 that is the hashed directories'
    /// mark (every directory where the file system indexes them, one-block
    /// ones included); a linear directory is read to the empty getdents64.
    pub(crate) fn end_marks(&mut self, fd: RawFd) -> Option<[i64; 2]> {
        match self.checked_dir.take() {
            Some((f, t)) if f == fd => {
                crate::sys::fs::dir_end_offsets(t, crate::sys::fs::SIZE_UNKNOWN)
            }
            _ => None,
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
            Exec::Inline(_) if !self.forced => {
                self.exec = Exec::Threads(ThreadExec::new(n));
                self.backend = Backend::Threads;
            }
            Exec::Inline(_) => {}
        }
    }

    pub(crate) fn push(&mut self, token: Token, op: Op) {
        self.pending.push((token, op));
    }

    /// `openat(dirfd, path, flags | O_CLOEXEC, mode)`; completes with the fd.
    ///
    /// A directory (`O_DIRECTORY`) opened from the current directory or by
    /// an absolute path — where a tool starts its work — is checked on
    /// completion with one `fstatfs`: on a high-latency file system (FUSE,
    /// NFS, …) this and every other engine of the process raise their
    /// in-flight depth (up to `RINGIO_DEPTH`, default 64). Once one was found
    /// nothing is checked any more. Directories opened relative to another
    /// directory's descriptor are not checked (they are on its file system
    /// but across mount points).
    pub fn openat(&mut self, token: Token, dirfd: RawFd, path: &[u8], flags: i32, mode: u32) {
        if flags & libc::O_DIRECTORY != 0 {
            // What the last check learnt is of an older descriptor, whose
            // number this open may get again.
            self.checked_dir = None;
            if !self.adapted && (dirfd == libc::AT_FDCWD || path.first() == Some(&b'/')) {
                self.dir_opens.push(token);
            }
        }
        let path = self.arena.push(path);
        self.push(token, Op::OpenAt { dirfd, path, flags, mode, regular: false });
    }

    /// `openat(dirfd, name, flags | O_CLOEXEC)` of a directory by its name
    /// in the directory `dirfd`, made at once on the calling thread where
    /// this engine would make it there anyway (inline, nothing queued); None
    /// elsewhere, or for a name longer than a directory entry's, and the
    /// caller queues it ([`Engine::openat`]). A tree walk opens every
    /// directory this way: through the queue (the name's copy, the
    /// operation, its completion) the open cost 840 user-space
    /// instructions, 8 times the call (callgrind, lfind tree).
    pub fn open_dir_now(
        &mut self,
        dirfd: RawFd,
        name: &[u8],
        flags: i32,
    ) -> Option<Result<std::os::fd::OwnedFd, crate::Errno>> {
        const NAME_MAX: usize = 255;
        let relative = dirfd != libc::AT_FDCWD && name.first() != Some(&b'/');
        if self.backend != Backend::Inline || !self.pending.is_empty() || !relative {
            return None;
        }
        if name.len() > NAME_MAX {
            return None;
        }
        let mut buf = [0u8; NAME_MAX + 1];
        buf[..name.len()].copy_from_slice(name);
        // A NUL inside the name: the queued open says EINVAL, as it would.
        let c = std::ffi::CStr::from_bytes_with_nul(&buf[..=name.len()]).ok()?;
        // What the last directory check learnt is of an older descriptor,
        // whose number this open may get again (as in `openat`).
        self.checked_dir = None;
        Some(crate::sys::openat_owned(dirfd, c, flags, 0))
    }

    /// [`Engine::openat`] (read-only, `flags` added) of a path the caller has
    /// just stat'ed as a regular file, to read it ahead. Opening a FIFO or a
    /// device can wait or have effects, so the ring runs other opens inline
    /// (its first attempt forces O_NONBLOCK, which changes what opening a
    /// FIFO means); a regular file's open it may run, in flight with
    /// others. Should the path have become a FIFO or device since the stat
    /// (a rename racing the caller), the ring's open may not wait as a
    /// plain one would: a caller that reads at offsets then meets ESPIPE,
    /// an error, where the FIFO's data would have come.
    pub fn open_regular(&mut self, token: Token, dirfd: RawFd, path: &[u8], flags: i32) {
        let path = self.arena.push(path);
        let flags = flags | libc::O_RDONLY;
        self.push(token, Op::OpenAt { dirfd, path, flags, mode: 0, regular: true });
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
        self.push(token, Op::Getdents { fd, buf, ends: None });
    }

    /// [`Engine::getdents`] of a directory whose end-of-directory marks
    /// are `ends` ([`crate::sys::fs::dir_end_offsets`]): a read whose last
    /// record carries one completes with `eof`, without the getdents64
    /// call that would return 0.
    pub(crate) fn getdents_to_end(
        &mut self,
        token: Token,
        fd: RawFd,
        buf: Vec<u8>,
        ends: Option<[i64; 2]>,
    ) {
        self.push(token, Op::Getdents { fd, buf, ends });
    }

    /// [`Engine::getdents`] run now, on the calling thread, whatever the
    /// executor: its completion is returned rather than queued. For a
    /// caller that reads one directory while the workers run what it
    /// pushed for the entries read so far: queued, the next read waited
    /// behind those operations, and the workers then waited for it.
    pub(crate) fn getdents_now(
        &mut self,
        token: Token,
        fd: RawFd,
        buf: Vec<u8>,
        ends: Option<[i64; 2]>,
    ) -> Completion {
        Op::Getdents { fd, buf, ends }.run_here(token)
    }

    /// [`Engine::getdents`] of a directory whose device and size
    /// (`dev_size`) are known: a read whose last record carries the file
    /// system's end-of-directory mark completes with `eof`, saving the
    /// getdents64 call that would return 0 (one syscall per directory of a
    /// walk; see [`crate::sys::fs::dir_end_offsets`]), on every executor.
    /// Engines on a high-latency file system read inline, whatever their
    /// executor: getdents64 has no ring opcode, a directory's reads are
    /// sequential anyway, and the hand-off and ring wake-up per READDIR
    /// made lfind on a 20k tree through slowfs 0.18 -> 0.41 s. The file
    /// system is asked its type once per device (and not at all on a
    /// high-latency one, where the question is itself a round trip).
    pub fn getdents_hinted(
        &mut self,
        token: Token,
        fd: RawFd,
        mut buf: Vec<u8>,
        dev_size: Option<(u64, u64)>,
    ) {
        match self.getdents_hinted_now(fd, &mut buf, dev_size) {
            Some(r) => {
                let (eof, result) = (r == Ok(true), r.map(|_| buf.len() as u64));
                self.ready.push(Completion { token, result, eof, data: Data::Buf(buf) });
            }
            None => {
                let ends = self.end_offsets(dev_size, fd);
                self.getdents_to_end(token, fd, buf, ends);
            }
        }
    }

    /// [`Engine::getdents_hinted`] where it reads on the calling thread
    /// (the inline executor, or a high-latency file system), made at once
    /// into `buf`: whether the end was reached, or the error. None
    /// elsewhere, `buf` untouched: the read is queued. A walk reads every
    /// directory this way: through the queue (the completion, the wait for
    /// it, the buffer handed back) the read cost ~250 user-space
    /// instructions more per directory (callgrind, lfind tree).
    pub fn getdents_hinted_now(
        &mut self,
        fd: RawFd,
        buf: &mut Vec<u8>,
        dev_size: Option<(u64, u64)>,
    ) -> Option<Result<bool, crate::Errno>> {
        let remote = self.high_latency().is_some();
        if self.backend != Backend::Inline && !remote {
            return None;
        }
        let ends = if remote { None } else { self.end_offsets(dev_size, fd) };
        Some(getdents_fill_hinted(fd, buf, ends.as_ref().map_or(&[], |e| &e[..])))
    }

    /// The `d_off` values marking the end of directory `fd` (on device
    /// `dev`, `size` bytes), when its file system is one whose marks are
    /// known. Not on a high-latency file system (the caller checks), where
    /// asking the type is itself a round trip.
    fn end_offsets(&mut self, dev_size: Option<(u64, u64)>, fd: RawFd) -> Option<[i64; 2]> {
        let (dev, size) = dev_size?;
        let fs = match self.fs_types.iter().find(|(d, _)| *d == dev) {
            Some(&(_, t)) => t,
            None => {
                let t = crate::sys::fs::fs_type(fd).unwrap_or(0);
                self.fs_types.push((dev, t));
                t
            }
        };
        crate::sys::fs::dir_end_offsets(fs, size)
    }

    /// "Stat these entries": each `(slot, name, follow)` of directory
    /// `dirfd` is stat'ed (`lstat_flags`, or `follow_flags` when `follow`)
    /// into `stx[slot]`, and `done(slot, Ok(followed))` or
    /// `done(slot, Err(errno))` told what it gave. A name stat'ed following
    /// links that doesn't resolve (a dangling link) is stat'ed again as
    /// itself, `Ok(false)`, as find -L reports it. Where this engine runs
    /// syscalls inline (a walker whose threads are the parallelism), each
    /// statx is written straight into its slot, with no completion to build
    /// and copy (256 bytes, copied several times on the way through the
    /// engine); otherwise the stats go out as one batch. Waits for every
    /// other operation outstanding too.
    pub fn stat_names<'a>(
        &mut self,
        dirfd: RawFd,
        names: impl Iterator<Item = (usize, &'a CStr, bool)>,
        (lstat_flags, follow_flags): (i32, i32),
        mask: u32,
        stx: &mut [crate::Statx],
        mut done: impl FnMut(usize, Result<bool, crate::Errno>),
    ) {
        if self.backend == Backend::Inline {
            for (slot, name, follow) in names {
                let st = &mut stx[slot];
                let flags = if follow { follow_flags } else { lstat_flags };
                // One statx in a few is timed (two vDSO clock reads, no
                // syscall): the cold-cache detector raises the walk's depth
                // when statx turns device-slow.
                let timer = crate::cold::sample();
                let first = crate::sys::statx(dirfd, name, flags, mask, st);
                timer.stats(1);
                done(
                    slot,
                    match first {
                        Ok(()) => Ok(follow),
                        Err(e) if follow && e == crate::Errno::ENOENT => {
                            crate::sys::statx(dirfd, name, lstat_flags, mask, st).map(|()| false)
                        }
                        Err(e) => Err(e),
                    },
                );
            }
            return;
        }
        let mut follows: Vec<(usize, &CStr)> = Vec::new();
        for (slot, name, follow) in names {
            let flags = if follow { follow_flags } else { lstat_flags };
            if follow {
                follows.push((slot, name));
            }
            self.statx(slot as Token, dirfd, name.to_bytes(), flags, mask);
        }
        let mut retry = Vec::new();
        let mut batch = std::mem::take(&mut self.scratch);
        while self.outstanding() > 0 {
            batch.clear();
            self.wait(1, &mut batch);
            for c in batch.drain(..) {
                let slot = c.token as usize;
                // Slots come in increasing order (the iterator's): sorted.
                let k = follows.binary_search_by_key(&slot, |&(s, _)| s);
                let followed = k.ok().map(|k| follows[k].1);
                match c.stat() {
                    Ok(st) => {
                        stx[slot] = *st;
                        done(slot, Ok(followed.is_some()));
                    }
                    Err(e) if e == crate::Errno::ENOENT && followed.is_some() => {
                        retry.push((slot, followed.unwrap_or_default()));
                    }
                    Err(e) => done(slot, Err(e)),
                }
            }
        }
        // Dangling symlinks under `follow` are reported as themselves.
        for &(slot, name) in &retry {
            self.statx(slot as Token, dirfd, name.to_bytes(), lstat_flags, mask);
        }
        while self.outstanding() > 0 {
            batch.clear();
            self.wait(1, &mut batch);
            for c in batch.drain(..) {
                let slot = c.token as usize;
                match c.stat() {
                    Ok(st) => {
                        stx[slot] = *st;
                        done(slot, Ok(false));
                    }
                    Err(e) => done(slot, Err(e)),
                }
            }
        }
        self.scratch = batch;
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

    /// One `splice`; short counts are returned as is.
    pub fn splice(&mut self, token: Token, s: Splice) {
        self.push(token, Op::Splice(s));
    }

    pub fn fadvise(&mut self, token: Token, fd: RawFd, offset: i64, len: i64, advice: i32) {
        self.push(token, Op::Fadvise { fd, offset, len, advice });
    }

    /// `unlinkat(dirfd, path, flags)` (flags 0, or `AT_REMOVEDIR` for an
    /// empty directory): never follows a symlink in the last component,
    /// and `dirfd` pins the parent, so a rename above it can't redirect
    /// the removal.
    pub fn unlinkat(&mut self, token: Token, dirfd: RawFd, path: &[u8], flags: i32) {
        let path = self.arena.push(path);
        self.push(token, Op::UnlinkAt { dirfd, path, flags });
    }

    /// Operations pushed or submitted whose completions have not yet been
    /// returned by [`Engine::wait`].
    /// Operations handed to (or waiting for) the executor, the parts of
    /// requests among them: what holds completions' memory, which a
    /// listing's window bounds (a request waiting for a descriptor holds
    /// none).
    pub(crate) fn ops_in_flight(&self) -> usize {
        self.pending.len() + self.exec.in_flight() + self.ready.len()
    }

    pub fn outstanding(&self) -> usize {
        // Each read_whole request in parts has exactly one part out.
        self.pending.len() + self.exec.in_flight() + self.ready.len() + self.asks.live
            - self.asks.parts_out
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
        let before = out.len();
        loop {
            let want = min.saturating_sub(out.len() - before);
            let new = out.len();
            self.wait_raw(self.raw_wanted(want), out);
            // The parts of requests answered in parts are the engine's own:
            // they become the caller's completions here, and may lead to
            // more parts (the next loop submits them). Only what this round
            // brought is looked at: the rest was settled already.
            self.settle(new, out);
            if out.len() - before >= min || self.outstanding() == 0 {
                return out.len() - before;
            }
        }
    }

    /// Takes the engine's own parts of requests answered in parts
    /// ([`crate::about`], [`crate::whole`]) out of `out[from..]`, keeping
    /// the caller's completions in order, works each into its request, and
    /// appends the requests now answered: one pass, whichever kinds are out.
    fn settle(&mut self, from: usize, out: &mut Vec<Completion>) {
        self.note_refused(&out[from..]);
        if self.asks.parts_out == 0 && self.wholes.live == 0 {
            return;
        }
        let mut all = std::mem::take(&mut self.settling);
        all.extend(out.drain(from..));
        for c in all.drain(..) {
            // The token space, from the top: about's parts, read_whole's
            // parts, the lister's own tokens, the callers'.
            if c.token >= crate::about::PART {
                self.settle_about_part(c, out);
            } else if c.token >= crate::whole::WHOLE_PART {
                self.settle_whole_part(c, out);
            } else {
                out.push(c);
            }
        }
        self.settling = all;
    }

    /// How many completions of the executor's to wait for when the caller
    /// wants `want` of its own: as many more as requests answered in parts
    /// have parts on average, so that a wait for many costs one enter of
    /// the ring, not one per part of each request.
    fn raw_wanted(&self, want: usize) -> usize {
        if self.asks.parts_out == 0 || want == 0 {
            return want;
        }
        if self.asks.leading_out > 0 {
            // Answers lead to more parts: take them as they come (the
            // ring still reaps a burst per enter), so the next parts go
            // out at once instead of after the slowest of many.
            return 1;
        }
        let raw = self.pending.len() + self.exec.in_flight() + self.ready.len();
        let mine = self.outstanding().max(1);
        (want * raw).div_ceil(mine).clamp(want.min(raw), raw)
    }

    /// [`Engine::wait`] counting every completion, the engine's own parts
    /// too.
    fn wait_raw(&mut self, min: usize, out: &mut Vec<Completion>) -> usize {
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

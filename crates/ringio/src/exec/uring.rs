//! The io_uring executor.
//!
//! Every operation with a ring opcode goes through the ring; getdents64 and
//! readlinkat have none (the getdents patch series was never merged), and
//! lgetxattr / dirfd-relative getxattr have no ring form either, so those run
//! inline as plain syscalls, invisibly to the caller.
//!
//! Invariants that keep memory safe and nothing lost:
//! - every buffer the kernel may touch (paths in the engine arena, the statx
//!   slot, the op's own Vec) stays at a fixed address until its CQE is reaped;
//! - at most `cap` operations are in the ring, and `cap` never exceeds the CQ
//!   size, so the CQ cannot overflow;
//! - a full SQ means submit-and-reap, never dropping the operation (the Zig
//!   lsr's engine drops one stat per directory over ~253 entries that way);
//! - a short WRITE is resubmitted for the rest (measured: io_uring WRITE to a
//!   pipe completes 64 KiB of a 128 KiB write); EINTR/EAGAIN are retried;
//! - on drop, all in-flight operations are reaped before any slot is freed;
//! - an io_uring_enter that fails for good (EBADF, EEXIST, EFAULT, ENXIO,
//!   seccomp's EPERM…: anything but EINTR, and EAGAIN/EBUSY that reaping
//!   does not cure) breaks the ring for this executor, which then never
//!   enters it again (so the kernel never reads an SQE it had not taken)
//!   and runs every operation as a plain syscall: see [`UringExec::salvage`]
//!   for the ones the ring held at that moment.

use std::collections::VecDeque;
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};

use io_uring::{cqueue, opcode, types, IoUring, Probe};

use super::threads::ThreadExec;
use super::Job;
use crate::op::{Completion, Data, Op, Splice, Token};
use crate::sys::{statx_zeroed, Statx};
use crate::Errno;

/// What the kernel accepted when probed once per process.
pub(crate) struct Caps {
    /// The setup-flag set that worked, as a bit set of FLAG_* below.
    pub(crate) flags: u32,
    probe: Probe,
}

const FLAG_SUBMIT_ALL: u32 = 1;
const FLAG_COOP: u32 = 2;
const FLAG_SINGLE_DEFER: u32 = 4;

impl Caps {
    pub(crate) fn describe(&self) -> String {
        let mut v = Vec::new();
        if self.flags & FLAG_SINGLE_DEFER != 0 {
            v.push("SINGLE_ISSUER|DEFER_TASKRUN");
        }
        if self.flags & FLAG_COOP != 0 {
            v.push("COOP_TASKRUN");
        }
        if self.flags & FLAG_SUBMIT_ALL != 0 {
            v.push("SUBMIT_ALL");
        }
        if v.is_empty() {
            "no setup flags".into()
        } else {
            v.join("|")
        }
    }

    fn supports(&self, code: u8) -> bool {
        self.probe.is_supported(code)
    }
}

fn build(flags: u32, entries: u32) -> std::io::Result<IoUring> {
    let mut b = IoUring::builder();
    b.dontfork();
    b.setup_cqsize(entries * 2);
    if flags & FLAG_SUBMIT_ALL != 0 {
        b.setup_submit_all();
    }
    if flags & FLAG_COOP != 0 {
        b.setup_coop_taskrun();
    }
    if flags & FLAG_SINGLE_DEFER != 0 {
        b.setup_single_issuer().setup_defer_taskrun();
    }
    b.build(entries)
}

/// Probes io_uring once: which setup flags the kernel takes (by trying, never
/// by kernel version) and which opcodes it supports. `None` when io_uring is
/// unusable in any way (ENOSYS, EPERM from seccomp or io_uring_disabled,
/// ENOMEM from memlock, a refused register call): the engine then falls back
/// silently.
pub(crate) fn caps() -> Option<&'static Caps> {
    caps_sized(4)
}

/// The ring the probe was made with, when it was made at an engine's size:
/// the engine that asked takes it instead of setting up (and mapping) a
/// second. Only on the thread that made it: a SINGLE_ISSUER ring belongs to
/// its creator, and another thread's enters would fail with EEXIST.
static PROBE_RING: Mutex<Option<(u32, std::thread::ThreadId, IoUring)>> = Mutex::new(None);

/// [`caps`], probing (the first time) with a ring of `entries` that the
/// caller can then take from [`PROBE_RING`].
#[cfg_attr(ringutils_small, optimize(size))]
fn caps_sized(entries: u32) -> Option<&'static Caps> {
    static CAPS: OnceLock<Option<Caps>> = OnceLock::new();
    CAPS.get_or_init(|| {
        let candidates =
            [FLAG_SINGLE_DEFER | FLAG_SUBMIT_ALL, FLAG_COOP | FLAG_SUBMIT_ALL, FLAG_SUBMIT_ALL, 0];
        for flags in candidates {
            let Ok(mut ring) = build(flags, entries) else { continue };
            let mut probe = Probe::new();
            if ring.submitter().register_probe(&mut probe).is_err() {
                return None;
            }
            if !probe.is_supported(opcode::Nop::CODE) {
                return None;
            }
            // A ring that can't complete a NOP (seccomp allowing setup but
            // refusing enter) is no ring at all.
            if !nop_roundtrip(&mut ring) {
                return None;
            }
            if entries > 4 {
                let me = std::thread::current().id();
                *crate::sync::lock(&PROBE_RING) = Some((entries, me, ring));
            }
            return Some(Caps { flags, probe });
        }
        None
    })
    .as_ref()
}

fn nop_roundtrip(ring: &mut IoUring) -> bool {
    let e = opcode::Nop::new().build().user_data(7);
    // SAFETY: a NOP references no memory.
    if unsafe { ring.submission().push(&e) }.is_err() {
        return false;
    }
    if ring.submit_and_wait(1).is_err() {
        return false;
    }
    ring.completion().next().is_some_and(|c| c.user_data() == 7 && c.result() == 0)
}

struct Slot {
    token: Token,
    op: Option<Op>,
    /// The kernel took this slot's SQE and has not completed it: its CQE
    /// may still come, so its memory stays put.
    in_kernel: bool,
    /// Where the kernel writes a STATX result; boxed so its address survives
    /// the slots vector growing.
    stat: Box<Statx>,
    /// Bytes of a WRITE already written (short-write continuation).
    progress: usize,
}

/// Operations with no ring opcode (getdents64, readlinkat, lgetxattr…)
/// once the depth was raised for a high-latency file system: inline they
/// would wait one round trip each, one after another, on the submitting
/// thread (whose FUSE waits are also interrupted whenever io-wq adds a
/// worker, costing a repeated READDIR). They go to a pool whose workers
/// wake the ring through an eventfd the ring polls.
struct Aux {
    pool: ThreadExec,
    /// Declared after `pool`, so the workers are joined before it closes.
    efd: OwnedFd,
    /// A POLL_ADD on `efd` is in the ring.
    armed: bool,
}

/// user_data of the eventfd poll (slot indices are u32).
const AUX_WAKE: u64 = u64::MAX;

pub(crate) struct UringExec {
    ring: ManuallyDrop<IoUring>,
    caps: &'static Caps,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Operations in the kernel (slots in use).
    in_ring: usize,
    /// Submitted by the caller, waiting for room in the ring.
    backlog: VecDeque<Job>,
    /// Most operations allowed in the ring at once (≤ CQ entries).
    cap: usize,
    /// SQEs pushed but not yet handed to the kernel.
    unsubmitted: usize,
    /// Reads, writes and splices in the ring: on pipes, sockets and ttys
    /// these may wait indefinitely, so no enter may wait for more
    /// completions than the caller asked for while any is in flight.
    unbounded: usize,
    /// The kernel cancelled an operation we never cancelled: io-wq could
    /// not start a worker for it (RLIMIT_NPROC reached, as under
    /// `ulimit -u` for an unprivileged user, or a cgroup pids limit), so
    /// every operation the kernel punts would fail the same way. From then
    /// on operations run inline, and the cancelled ones are rerun inline.
    inline_only: bool,
    aux: Option<Aux>,
    /// Stats run on the caller's thread while the cache is warm (see
    /// [`UringExec::stat_here_while_warm`]).
    warm_stats_here: bool,
    /// Non-ring operations on their way to `aux`.
    aux_jobs: Vec<Job>,
    /// user_data of the SQEs pushed and not yet taken by the kernel, oldest
    /// first (the kernel takes them in order).
    sq_order: VecDeque<u64>,
    /// io_uring_enter failed for good: the ring is never entered again.
    broken: bool,
    /// Enters in a row that failed with EAGAIN/EBUSY while nothing completed.
    stalls: u32,
    /// Slots whose operation the kernel still held when the ring broke:
    /// their memory is never freed (the kernel may still write into it).
    orphans: usize,
    /// The injected failure (`RINGUTILS_TEST_FAULT`), if any, and enters so far.
    fault: Option<Fault>,
    /// io-wq's bounded-worker cap now, and what it is while completions
    /// are cache-fast and while the device is cold (crate::cold): a STATX
    /// always runs on an io-wq worker, so this cap is the ring's metadata
    /// parallelism.
    iowq_now: u32,
    iowq_warm: u32,
    iowq_cold: u32,
    enters: u64,
    /// Slots whose completions a reap made, kept for its capacity.
    released: Vec<(u32, bool)>,
}

/// A test hook: `RINGUTILS_TEST_FAULT=enter:ERRNO@N` makes every io_uring_enter
/// after the first N of each ring fail with ERRNO (a name such as `EBADF`
/// or a number), as a ring made unusable after start would (seccomp
/// installed later, a descriptor closed behind the engine's back, a
/// SINGLE_ISSUER ring entered from the wrong thread). The fault suite uses
/// it to check that every tool still finishes with the same output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fault {
    errno: i32,
    after: u64,
}

impl Fault {
    fn from_env() -> Option<Fault> {
        Fault::parse(crate::env::get().fault.as_deref()?)
    }

    fn parse(spec: &str) -> Option<Fault> {
        let rest = spec.trim().strip_prefix("enter:")?;
        let (name, after) = match rest.split_once('@') {
            Some((n, a)) => (n, a.trim().parse().ok()?),
            None => (rest, 0),
        };
        let errno = match name.trim() {
            "EBADF" => libc::EBADF,
            "EEXIST" => libc::EEXIST,
            "EPERM" => libc::EPERM,
            "EFAULT" => libc::EFAULT,
            "ENXIO" => libc::ENXIO,
            "EINVAL" => libc::EINVAL,
            "EOWNERDEAD" => libc::EOWNERDEAD,
            "EAGAIN" => libc::EAGAIN,
            "EBUSY" => libc::EBUSY,
            n => n.parse().ok().filter(|&e: &i32| e > 0)?,
        };
        Some(Fault { errno, after })
    }
}

/// How many EAGAIN/EBUSY enters in a row, with nothing completing in
/// between, make the ring count as broken; after the first few, each retry
/// sleeps a millisecond, so a ring that stays busy costs no CPU meanwhile.
const STALLS_MAX: u32 = 200;
const STALLS_SLEEP_AFTER: u32 = 4;

impl UringExec {
    /// A ring allowing `depth` operations in flight, io-wq capped at
    /// `iowq_workers` per class. Fails when io_uring is unusable.
    #[cfg_attr(ringutils_small, optimize(size))]
    pub(crate) fn new(depth: usize, iowq_workers: u32) -> std::io::Result<UringExec> {
        let entries = depth.clamp(4, 32768).next_power_of_two() as u32;
        let caps =
            caps_sized(entries).ok_or_else(|| std::io::Error::from_raw_os_error(libc::ENOSYS))?;
        let probed = {
            let mut g = crate::sync::lock(&PROBE_RING);
            let mine = g
                .as_ref()
                .is_some_and(|(n, t, _)| *n == entries && *t == std::thread::current().id());
            if mine {
                g.take()
            } else {
                None
            }
        };
        let ring = match probed {
            // The probe's NOP completed and was consumed: the ring is empty.
            Some((_, _, ring)) => ring,
            None => build(caps.flags, entries)?,
        };
        // Measured: the default (8 workers on 2 CPUs) helped nothing. Ignore a
        // refusal: the cap is a tuning, not a requirement.
        let mut max = [iowq_workers, iowq_workers];
        let _ = ring.submitter().register_iowq_max_workers(&mut max);
        let cq = ring.params().cq_entries() as usize;
        let sq = ring.params().sq_entries() as usize;
        Ok(UringExec {
            ring: ManuallyDrop::new(ring),
            caps,
            slots: Vec::new(),
            free: Vec::new(),
            in_ring: 0,
            backlog: VecDeque::new(),
            cap: cq.min(sq * 2).max(1),
            unsubmitted: 0,
            unbounded: 0,
            inline_only: false,
            aux: None,
            warm_stats_here: false,
            aux_jobs: Vec::new(),
            sq_order: VecDeque::new(),
            broken: false,
            stalls: 0,
            orphans: 0,
            fault: Fault::from_env(),
            enters: 0,
            released: Vec::new(),
            iowq_now: iowq_workers,
            iowq_warm: iowq_workers,
            iowq_cold: iowq_workers,
        })
    }

    /// Lets io-wq run up to `n` workers per class (high-latency file
    /// systems, where each punted STATX mostly waits). Best effort.
    /// Also starts the pool for operations without a ring opcode (see
    /// [`Aux`]), unless the kernel lacks POLL_ADD or eventfd fails.
    pub(crate) fn raise_iowq_workers(&mut self, n: u32) {
        self.iowq_warm = self.iowq_warm.max(n);
        self.iowq_cold = self.iowq_cold.max(n);
        self.iowq_now = self.iowq_now.max(n);
        self.set_iowq(self.iowq_now);
        if self.aux.is_none() && self.caps.supports(opcode::PollAdd::CODE) {
            if let Ok(efd) = crate::sys::eventfd() {
                let pool = ThreadExec::detached(n.max(1) as usize, efd.as_raw_fd());
                self.aux = Some(Aux { pool, efd, armed: false });
                // The poll takes a CQ entry besides the slots.
                self.cap = self.cap.saturating_sub(1).max(1);
            }
        }
    }

    /// Runs STATX as a plain syscall on the caller's thread while the
    /// device is warm ([`crate::cold`]): the ring punts every STATX to an
    /// io-wq thread, a hand-off that costs more than the stat (lcat of
    /// 10,000 small files, warm: 63 ms with the stats through io-wq, 48
    /// inline), which only a cold device's waits repay.
    pub(crate) fn stat_here_while_warm(&mut self) {
        self.warm_stats_here = true;
    }

    fn set_iowq(&mut self, n: u32) {
        let mut max = [n, n];
        let _ = self.ring.submitter().register_iowq_max_workers(&mut max);
    }

    /// Lets io-wq grow to the cold depth while the device is cold
    /// (crate::cold), as the thread pool does: not for a ring whose
    /// workers were fixed by the caller or `RINGIO_THREADS`.
    pub(crate) fn grow_when_cold(&mut self) {
        self.iowq_cold = self.iowq_cold.max(crate::cold::cold_depth() as u32);
    }

    /// io-wq's current cap on bounded workers (per class).
    pub(crate) fn iowq_limit(&self) -> u32 {
        self.iowq_now
    }

    /// Follows the cold-cache state: the raised cap while completions are
    /// device-slow, the warm one again once they are cache-fast (io-wq
    /// lets surplus workers exit as they go idle). One relaxed load and
    /// no syscall when nothing changes.
    fn follow_cold(&mut self) {
        let want = if crate::cold::is_cold() { self.iowq_cold } else { self.iowq_warm };
        if want != self.iowq_now {
            self.iowq_now = want;
            self.set_iowq(want);
        }
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.in_ring + self.backlog.len() + self.aux_in_flight()
    }

    fn aux_in_flight(&self) -> usize {
        self.aux.as_ref().map_or(0, |a| a.pool.in_flight())
    }

    /// Hands collected non-ring operations to the pool and makes sure the
    /// ring will wake when they complete.
    fn submit_aux(&mut self, out: &mut Vec<Completion>) {
        let Some(aux) = self.aux.as_mut() else { return };
        if !self.aux_jobs.is_empty() {
            aux.pool.submit(&mut self.aux_jobs, out);
        }
        if aux.pool.in_flight() > 0 && !aux.armed {
            let e = opcode::PollAdd::new(types::Fd(aux.efd.as_raw_fd()), libc::POLLIN as u32)
                .build()
                .user_data(AUX_WAKE);
            if self.broken {
                return;
            }
            aux.armed = true;
            // SAFETY: a poll of a descriptor this executor owns (closed only
            // after the ring is gone) references no memory.
            if !unsafe { self.push_entry(&e, out) } {
                // The ring broke meanwhile: the pool is waited for directly.
                if let Some(aux) = self.aux.as_mut() {
                    aux.armed = false;
                }
            }
        }
    }

    /// Collects what the pool has finished.
    fn poll_aux(&mut self, out: &mut Vec<Completion>) -> usize {
        let Some(aux) = self.aux.as_mut() else { return 0 };
        let before = out.len();
        aux.pool.poll(out);
        out.len() - before
    }

    fn goes_to_ring(&self, op: &Op) -> bool {
        if self.inline_only {
            return false;
        }
        let code = match op {
            // The ring's first, inline attempt at OPENAT opens with
            // O_NONBLOCK forced (and clears it afterwards). For a FIFO that
            // changes what open means: a reader no longer waits for a writer
            // and then reads end-of-file at once (measured: `lcat fifo`
            // printed nothing while `cat fifo` waited). Some devices (ttys,
            // serial lines) differ likewise. Directory opens, the walkers'
            // case, can't meet a FIFO, an explicit O_NONBLOCK asks for
            // that meaning anyway, and a path just stat'ed as a regular file
            // is no FIFO or device (one swapped in since is a race the
            // caller accepts: see Engine::open_regular); every other open
            // runs inline, as a plain syscall, like on the other executors.
            Op::OpenAt { flags, regular, .. } => {
                if !regular && flags & (libc::O_DIRECTORY | libc::O_PATH | libc::O_NONBLOCK) == 0 {
                    return false;
                }
                opcode::OpenAt::CODE
            }
            Op::Close { .. } => opcode::Close::CODE,
            Op::Statx { .. } => {
                if self.warm_stats_here && !crate::cold::is_cold() {
                    return false;
                }
                opcode::Statx::CODE
            }
            // At the file position (offset -1), the ring can't be trusted to
            // move the position: a read that completes asynchronously (FUSE
            // with direct I/O, O_DIRECT) leaves it where it was (measured on
            // 6.18: every READ of a slowfs direct-I/O file returned its first
            // 128 KiB again, and lcat looped forever). Such reads and writes
            // run as plain syscalls; positioned ones use the ring.
            Op::Read { offset: None, .. } | Op::Write { offset: None, .. } => return false,
            Op::Read { .. } => opcode::Read::CODE,
            Op::Write { .. } => opcode::Write::CODE,
            Op::Splice(_) => opcode::Splice::CODE,
            Op::Fadvise { .. } => opcode::Fadvise::CODE,
            Op::UnlinkAt { .. } => opcode::UnlinkAt::CODE,
            // The ring's GETXATTR resolves paths from the cwd and follows links.
            Op::GetXattr { dirfd, path, follow, .. } => {
                // SAFETY: the op is pending, so its arena path is alive.
                let abs = unsafe { path.as_cstr() }.to_bytes().first() == Some(&b'/');
                if !*follow || !(abs || *dirfd == libc::AT_FDCWD) {
                    return false;
                }
                opcode::GetXattr::CODE
            }
            Op::Getdents { .. }
            | Op::ReadLink { .. }
            | Op::ListXattr { .. }
            | Op::About { .. }
            | Op::ReadWhole { .. } => return false,
        };
        self.caps.supports(code)
    }

    pub(crate) fn submit(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        self.submit_deferred(ops, out);
        self.flush(out);
    }

    /// [`UringExec::submit`] for a caller about to wait: the SQEs are left
    /// for the wait's enter, which submits and waits in one system call
    /// (and, should the ring break there, they were never the kernel's).
    pub(crate) fn submit_deferred(&mut self, ops: &mut Vec<Job>, out: &mut Vec<Completion>) {
        self.follow_cold();
        for (token, op) in ops.drain(..) {
            if self.goes_to_ring(&op) {
                self.backlog.push_back((token, op));
            } else if self.aux.is_some() {
                self.aux_jobs.push((token, op));
            } else {
                op.run_into(token, out);
            }
        }
        self.fill(out);
        self.submit_aux(out);
    }

    /// Moves backlog operations into free slots and SQEs, up to `cap`.
    fn fill(&mut self, out: &mut Vec<Completion>) {
        if self.inline_only {
            for (t, op) in self.backlog.drain(..) {
                op.run_into(t, out);
            }
            return;
        }
        while self.in_ring < self.cap {
            let Some((token, op)) = self.backlog.pop_front() else { break };
            let idx = match self.free.pop() {
                Some(i) => i,
                None => {
                    self.slots.push(Slot {
                        token: 0,
                        op: None,
                        in_kernel: false,
                        stat: Box::new(statx_zeroed()),
                        progress: 0,
                    });
                    (self.slots.len() - 1) as u32
                }
            };
            let slot = &mut self.slots[idx as usize];
            slot.token = token;
            slot.progress = 0;
            if may_block(&op) {
                self.unbounded += 1;
            }
            slot.op = Some(op);
            self.in_ring += 1;
            self.push_sqe(idx, out);
        }
    }

    /// Builds and queues the SQE for slot `idx` (first issue or a retry);
    /// on a broken ring, runs it inline instead.
    fn push_sqe(&mut self, idx: u32, out: &mut Vec<Completion>) {
        if self.broken {
            if self.slots[idx as usize].op.is_some() {
                let c = self.run_slot_inline(idx);
                out.push(c);
            }
            return;
        }
        let slot = &mut self.slots[idx as usize];
        slot.in_kernel = false;
        let Some(op) = slot.op.as_mut() else { return };
        let entry = match op {
            Op::OpenAt { dirfd, path, flags, mode, .. } => {
                opcode::OpenAt::new(types::Fd(*dirfd), path.as_ptr())
                    .flags(*flags | libc::O_CLOEXEC)
                    .mode(*mode)
                    .build()
            }
            Op::Close { fd } => opcode::Close::new(types::Fd(*fd)).build(),
            Op::Statx { dirfd, path, flags, mask } => opcode::Statx::new(
                types::Fd(*dirfd),
                path.as_ptr(),
                (&mut *slot.stat as *mut Statx).cast::<types::statx>(),
            )
            .flags(*flags)
            .mask(*mask)
            .build(),
            Op::Read { fd, buf, offset } => {
                let len = buf.len();
                let spare = (buf.capacity() - len).min(u32::MAX as usize) as u32;
                // SAFETY: pointer arithmetic within the vector's allocation.
                let p = unsafe { buf.as_mut_ptr().add(len) };
                opcode::Read::new(types::Fd(*fd), p, spare)
                    .offset(offset.unwrap_or(u64::MAX))
                    .build()
            }
            Op::Write { fd, buf, offset } => {
                let rest = &buf[slot.progress..];
                let len = rest.len().min(u32::MAX as usize) as u32;
                let off = offset.map_or(u64::MAX, |o| o + slot.progress as u64);
                opcode::Write::new(types::Fd(*fd), rest.as_ptr(), len).offset(off).build()
            }
            Op::Splice(Splice { fd_in, off_in, fd_out, off_out, len, flags }) => {
                opcode::Splice::new(
                    types::Fd(*fd_in),
                    off_in.unwrap_or(-1),
                    types::Fd(*fd_out),
                    off_out.unwrap_or(-1),
                    *len,
                )
                .flags(*flags)
                .build()
            }
            Op::Fadvise { fd, offset, len, advice } => {
                opcode::Fadvise::new(types::Fd(*fd), *len, *advice).offset(*offset as u64).build()
            }
            Op::UnlinkAt { dirfd, path, flags } => {
                opcode::UnlinkAt::new(types::Fd(*dirfd), path.as_ptr()).flags(*flags).build()
            }
            Op::GetXattr { path, name, buf, .. } => {
                buf.clear();
                opcode::GetXattr::new(
                    name.as_ptr(),
                    buf.as_mut_ptr().cast(),
                    path.as_ptr(),
                    buf.capacity().min(u32::MAX as usize) as u32,
                )
                .build()
            }
            Op::Getdents { .. }
            | Op::ReadLink { .. }
            | Op::ListXattr { .. }
            | Op::About { .. }
            | Op::ReadWhole { .. } => {
                unreachable!("never sent to the ring")
            }
        }
        .user_data(idx as u64);
        // SAFETY: everything the SQE points at is owned by this slot (its
        // op's buffer, its boxed statx) or by the engine arena, and stays put
        // until the CQE with this user_data is reaped (see module docs).
        if !unsafe { self.push_entry(&entry, out) } && self.slots[idx as usize].op.is_some() {
            // Cannot happen: a ring that broke meanwhile ran every slot the
            // kernel did not hold (this one included). Belt and braces.
            let c = self.run_slot_inline(idx);
            out.push(c);
        }
    }

    /// Queues `e`; a full SQ is handed to the kernel (and completions
    /// reaped into `out`) until it has room: never dropped. Returns false
    /// (nothing queued) when the ring is or becomes broken.
    ///
    /// # Safety
    /// Whatever `e` points at must stay valid until its CQE is reaped.
    unsafe fn push_entry(
        &mut self,
        e: &io_uring::squeue::Entry,
        out: &mut Vec<Completion>,
    ) -> bool {
        loop {
            if self.broken {
                return false;
            }
            // SAFETY: the caller keeps what `e` points at alive until its
            // completion (this function's contract).
            if unsafe { self.ring.submission().push(e) }.is_ok() {
                self.unsubmitted += 1;
                self.sq_order.push_back(e.get_user_data());
                return true;
            }
            self.flush(out);
            self.reap(out);
        }
    }

    /// io_uring_enter, through the test hook; afterwards notes which SQEs
    /// the kernel took.
    fn enter(&mut self, to_submit: u32, min: u32, flags: u32) -> std::io::Result<usize> {
        self.enters += 1;
        let r = match self.fault {
            Some(f) if self.enters > f.after => Err(std::io::Error::from_raw_os_error(f.errno)),
            // SAFETY: plain enter with no argument struct.
            _ => unsafe {
                self.ring.submitter().enter::<libc::sigset_t>(to_submit, min, flags, None)
            },
        };
        let left = self.ring.submission().len();
        while self.sq_order.len() > left {
            if let Some(ud) = self.sq_order.pop_front() {
                if let Some(slot) = self.slots.get_mut(ud as usize) {
                    slot.in_kernel = true;
                }
            }
        }
        self.unsubmitted = left;
        r
    }

    /// What to do after an enter failed: true to try again at once (EINTR),
    /// false to go back to reaping (EAGAIN/EBUSY: completions must be taken
    /// first, with a pause once that keeps not helping), or the ring breaks
    /// (every other error, or a stall that lasts).
    fn enter_failed(&mut self, e: &std::io::Error, out: &mut Vec<Completion>) -> bool {
        match e.raw_os_error() {
            Some(libc::EINTR) => true,
            Some(libc::EAGAIN | libc::EBUSY) if self.stalls < STALLS_MAX => {
                self.stalls += 1;
                if self.stalls > STALLS_SLEEP_AFTER {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                false
            }
            _ => {
                self.salvage(out);
                false
            }
        }
    }

    /// Hands queued SQEs to the kernel.
    fn flush(&mut self, out: &mut Vec<Completion>) {
        while self.unsubmitted > 0 && !self.broken {
            let n = self.ring.submission().len() as u32;
            match self.enter(n, 0, 0) {
                // Nothing taken though there was something to take: go
                // back to reaping, as for EBUSY.
                Ok(0) => {
                    if !self.enter_failed(&std::io::Error::from_raw_os_error(libc::EBUSY), out) {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    if !self.enter_failed(&e, out) {
                        return;
                    }
                }
            }
        }
    }

    /// The ring broke: from now on every operation runs as a plain syscall,
    /// and the ring is never entered again. What it held is settled here:
    /// - completions already posted are reaped as usual;
    /// - SQEs the kernel never took, and operations waiting for a slot,
    ///   are run inline: they were never the kernel's;
    /// - operations the kernel took and has not completed may still be
    ///   carried out, and may still write into their buffers. Their slots
    ///   are kept forever (never freed, never reused). Those that can be
    ///   repeated without harm (statx, getxattr, reads and writes at an
    ///   offset, fadvise, opens) are run again inline into fresh buffers; a
    ///   second descriptor may then leak if the kernel's open completes
    ///   too. A close is the kernel's to finish (its descriptor number
    ///   stays taken until then, so it can't close another file) and
    ///   reports success. A splice can be neither repeated nor known: it
    ///   reports EIO. (Waits submit and wait in one enter, so an operation
    ///   waited for alone, as lcat's are, is never in that state.)
    fn salvage(&mut self, out: &mut Vec<Completion>) {
        if self.broken {
            return;
        }
        self.broken = true;
        self.inline_only = true;
        self.reap(out);
        self.sq_order.clear();
        self.unsubmitted = 0;
        if let Some(aux) = self.aux.as_mut() {
            // Its poll will never be seen: the pool is waited for directly.
            aux.armed = false;
        }
        for idx in 0..self.slots.len() as u32 {
            let slot = &mut self.slots[idx as usize];
            if slot.op.is_none() {
                continue;
            }
            if !slot.in_kernel {
                let c = self.run_slot_inline(idx);
                out.push(c);
                continue;
            }
            let token = slot.token;
            let blocking = slot.op.as_ref().is_some_and(may_block);
            let redo = slot.op.as_ref().map(|op| redo(op, slot.progress));
            // The slot keeps its op (and buffers) for the kernel.
            self.orphans += 1;
            if blocking {
                self.unbounded -= 1;
            }
            self.in_ring -= 1;
            let c = match redo {
                Some(Redo::Run(op)) => op.run_here(token),
                Some(Redo::Write { fd, buf, offset, done }) => {
                    finish_write_inline(token, fd, buf, offset, done)
                }
                Some(Redo::Closed) => {
                    Completion { token, result: Ok(0), eof: false, data: Data::None }
                }
                Some(Redo::Unknown) | None => Completion {
                    token,
                    result: Err(Errno(libc::EIO)),
                    eof: false,
                    data: Data::None,
                },
            };
            out.push(c);
        }
        for (t, op) in self.backlog.drain(..) {
            op.run_into(t, out);
        }
    }

    /// Completes slot `idx`'s operation (which the kernel does not hold)
    /// with plain syscalls and frees the slot.
    fn run_slot_inline(&mut self, idx: u32) -> Completion {
        let slot = &mut self.slots[idx as usize];
        let token = slot.token;
        let op = slot.op.take();
        let done = slot.progress;
        self.release(idx, op.as_ref().is_some_and(may_block));
        match op {
            Some(Op::Write { fd, buf, offset }) if done > 0 => {
                finish_write_inline(token, fd, buf, offset, done)
            }
            Some(op) => op.run_here(token),
            None => {
                Completion { token, result: Err(Errno(libc::EIO)), eof: false, data: Data::None }
            }
        }
    }

    /// Slot `idx`'s operation is over (its completion made): the slot is
    /// free again, and a read, write or splice no longer bounds the waits.
    fn release(&mut self, idx: u32, blocking: bool) {
        if blocking {
            self.unbounded -= 1;
        }
        self.in_ring -= 1;
        self.free.push(idx);
    }

    /// Reaps every available CQE, resubmitting retries and short writes.
    /// Returns how many completions were appended to `out`.
    fn reap(&mut self, out: &mut Vec<Completion>) -> usize {
        let mut got = 0;
        let mut again: Vec<u32> = Vec::new();
        let mut released = std::mem::take(&mut self.released);
        {
            let cq = self.ring.completion();
            for cqe in cq {
                if cqe.user_data() == AUX_WAKE {
                    if let Some(aux) = self.aux.as_mut() {
                        aux.armed = false;
                        crate::sys::eventfd_clear(aux.efd.as_raw_fd());
                    }
                    continue;
                }
                let idx = cqe.user_data() as u32;
                let slot = &mut self.slots[idx as usize];
                slot.in_kernel = false;
                let blocking = slot.op.as_ref().is_some_and(may_block);
                let done = if cqe.result() == -libc::ECANCELED {
                    // See `inline_only`: rerun it here, where it cannot be
                    // refused for lack of a kernel worker.
                    self.inline_only = true;
                    let Some(op) = slot.op.take() else { continue };
                    let token = slot.token;
                    match (op, slot.progress) {
                        (Op::Write { fd, buf, offset }, done) if done > 0 => {
                            finish_write_inline(token, fd, buf, offset, done)
                        }
                        (op, _) => op.run_here(token),
                    }
                } else {
                    match finish(slot, &cqe) {
                        Some(c) => c,
                        None => {
                            again.push(idx);
                            continue;
                        }
                    }
                };
                out.push(done);
                got += 1;
                // Released after the queue is let go (it borrows the ring).
                released.push((idx, blocking));
            }
        }
        for (idx, blocking) in released.drain(..) {
            self.release(idx, blocking);
        }
        self.released = released;
        if got > 0 {
            self.stalls = 0;
        }
        for idx in again {
            self.push_sqe(idx, out);
        }
        got + self.poll_aux(out)
    }

    pub(crate) fn poll(&mut self, out: &mut Vec<Completion>) {
        self.flush(out);
        self.enter_getevents(0, out);
        self.reap(out);
        self.fill(out);
        self.submit_aux(out);
        self.flush(out);
    }

    /// io_uring_enter with GETEVENTS (submitting what is queued): needed
    /// under DEFER_TASKRUN for any completion to be posted at all. A failure
    /// is handled by [`UringExec::enter_failed`].
    fn enter_getevents(&mut self, min: u32, out: &mut Vec<Completion>) {
        while !self.broken {
            let to_submit = self.ring.submission().len() as u32;
            match self.enter(to_submit, min, 1 /* GETEVENTS */) {
                Ok(_) => return,
                Err(e) => {
                    if !self.enter_failed(&e, out) {
                        return;
                    }
                }
            }
        }
    }

    pub(crate) fn wait(&mut self, min: usize, out: &mut Vec<Completion>) {
        // Counted from `out`: reaping, filling (inline reruns) and SQ-full
        // retries all append completions.
        let before = out.len();
        loop {
            self.reap(out);
            self.fill(out);
            let got = out.len() - before;
            if got >= min || self.in_flight() == 0 {
                self.flush(out);
                return;
            }
            if self.in_ring == 0 {
                // Only the pool is working: wait for it directly.
                if let Some(aux) = self.aux.as_mut() {
                    aux.pool.wait(min - got, out);
                }
                continue;
            }
            self.submit_aux(out);
            let aux_busy = self.aux_in_flight() > 0;
            // Ask for everything still wanted in one enter, and when the caller
            // wants just "some", for a quarter of what is in flight: each enter
            // costs a syscall, and io-wq completes STATX in bursts anyway.
            // 10k pipelined stats then cost tens of enters, not ~900. Not
            // while the pool works: its wake-up is one CQE among them.
            let greedy = if self.unbounded == 0 && !aux_busy { self.in_ring / 4 } else { 0 };
            let want = (min - got).max(greedy).min(self.in_ring).max(1) as u32;
            self.enter_getevents(want, out);
        }
    }
}

/// The rest of a write the ring had partly done, written inline; the
/// completion reports the whole length or the error, as a ring write does.
fn finish_write_inline(
    token: Token,
    fd: std::os::fd::RawFd,
    buf: Vec<u8>,
    offset: Option<u64>,
    done: usize,
) -> Completion {
    let off = offset.map(|o| o + done as u64);
    let result = match crate::sys::write_all(fd, &buf[done..], off) {
        Ok(_) => Ok(buf.len() as u64),
        Err((_, e)) => Err(e),
    };
    Completion { token, result, eof: false, data: Data::Buf(buf) }
}

fn may_block(op: &Op) -> bool {
    matches!(op, Op::Read { .. } | Op::Write { .. } | Op::Splice(_))
}

/// How an operation the kernel held when the ring broke is settled (see
/// [`UringExec::salvage`]).
enum Redo {
    /// Run this equivalent operation (fresh buffers) inline.
    Run(Op),
    /// Write the rest of a positioned write from a copy of its buffer.
    Write { fd: std::os::fd::RawFd, buf: Vec<u8>, offset: Option<u64>, done: usize },
    /// A close: the kernel finishes it.
    Closed,
    /// Neither repeatable nor knowable.
    Unknown,
}

fn redo(op: &Op, done: usize) -> Redo {
    let fresh = |buf: &Vec<u8>| {
        let mut v = Vec::with_capacity(buf.capacity());
        v.extend_from_slice(buf);
        v
    };
    match op {
        Op::OpenAt { dirfd, path, flags, mode, regular } => Redo::Run(Op::OpenAt {
            dirfd: *dirfd,
            path: path.clone(),
            flags: *flags,
            mode: *mode,
            regular: *regular,
        }),
        Op::Statx { dirfd, path, flags, mask } => {
            Redo::Run(Op::Statx { dirfd: *dirfd, path: path.clone(), flags: *flags, mask: *mask })
        }
        Op::GetXattr { dirfd, path, name, follow, buf } => Redo::Run(Op::GetXattr {
            dirfd: *dirfd,
            path: path.clone(),
            name,
            follow: *follow,
            buf: Vec::with_capacity(buf.capacity()),
        }),
        Op::Read { fd, buf, offset: Some(o) } => {
            Redo::Run(Op::Read { fd: *fd, buf: fresh(buf), offset: Some(*o) })
        }
        Op::Write { fd, buf, offset: Some(o) } => {
            Redo::Write { fd: *fd, buf: buf.clone(), offset: Some(*o), done }
        }
        Op::Fadvise { fd, offset, len, advice } => {
            Redo::Run(Op::Fadvise { fd: *fd, offset: *offset, len: *len, advice: *advice })
        }
        Op::Close { .. } => Redo::Closed,
        // Whether the kernel removed the name is unknowable: running it
        // again could only report ENOENT for a removal that happened.
        _ => Redo::Unknown,
    }
}

/// Turns a CQE into a completion, or `None` when the operation must be
/// reissued (EINTR/EAGAIN, or the rest of a short write).
fn finish(slot: &mut Slot, cqe: &cqueue::Entry) -> Option<Completion> {
    let res = cqe.result();
    if res == -libc::EINTR || res == -libc::EAGAIN {
        return None;
    }
    let op = slot.op.as_mut()?;
    if let Op::Write { buf, .. } = op {
        if res > 0 {
            slot.progress += res as usize;
            if slot.progress < buf.len() {
                return None;
            }
        }
    }
    let token = slot.token;
    let op = slot.op.take()?;
    let result = if res < 0 { Err(Errno(-res)) } else { Ok(res as u64) };
    let data = match op {
        Op::Statx { .. } if res >= 0 => Data::Stat(*slot.stat),
        Op::Read { mut buf, .. } => {
            if res > 0 {
                // SAFETY: the kernel wrote res bytes after the old length.
                unsafe { buf.set_len(buf.len() + res as usize) };
            }
            Data::Buf(buf)
        }
        Op::GetXattr { mut buf, .. } => {
            if res > 0 {
                let n = (res as usize).min(buf.capacity());
                // SAFETY: the kernel wrote n bytes into the buffer.
                unsafe { buf.set_len(n) };
            }
            Data::Buf(buf)
        }
        Op::Write { buf, .. } => {
            let progress = slot.progress;
            return Some(Completion {
                token,
                result: write_result(res, progress, buf.len()),
                eof: false,
                data: Data::Buf(buf),
            });
        }
        _ => Data::None,
    };
    Some(Completion { token, result, eof: false, data })
}

/// A write's final result: the error if any part failed (as the sync
/// executor reports it), EIO if a 0-byte completion stalled it, otherwise the
/// bytes written, which is then the whole buffer.
fn write_result(res: i32, progress: usize, len: usize) -> Result<u64, Errno> {
    if res < 0 {
        Err(Errno(-res))
    } else if res == 0 && progress < len {
        Err(Errno(libc::EIO))
    } else {
        Ok(progress as u64)
    }
}

impl Drop for UringExec {
    fn drop(&mut self) {
        // Reap everything the kernel still holds before the slots (and the
        // engine's arena, dropped after this executor) are freed.
        self.backlog.clear();
        let mut sink = Vec::new();
        let mut spins = 0;
        while self.in_ring > 0 && spins < 1_000_000 && !self.broken {
            self.flush(&mut sink);
            self.enter_getevents(1, &mut sink);
            if self.reap(&mut sink) == 0 {
                spins += 1;
            }
            sink.clear();
        }
        if self.in_ring > 0 || self.orphans > 0 {
            // The kernel would not give the operations back: leak their
            // buffers rather than let it write into freed memory.
            std::mem::forget(std::mem::take(&mut self.slots));
        }
        // SAFETY: the ring is dropped exactly once, here.
        unsafe { ManuallyDrop::drop(&mut self.ring) };
    }
}

#[cfg(test)]
mod tests {
    use super::Fault;

    #[test]
    fn fault_specs() {
        let f = |s| Fault::parse(s);
        assert_eq!(f("enter:EBADF@3"), Some(Fault { errno: libc::EBADF, after: 3 }));
        assert_eq!(f("enter:EEXIST"), Some(Fault { errno: libc::EEXIST, after: 0 }));
        assert_eq!(f("enter:22@1"), Some(Fault { errno: 22, after: 1 }));
        assert_eq!(f("enter:EWHAT@1"), None);
        assert_eq!(f("setup:EBADF"), None);
        assert_eq!(f("enter:EBADF@x"), None);
    }
}

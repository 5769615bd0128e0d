//! The operations the engine executes, and the completions it hands back.

use std::os::fd::RawFd;

use crate::arena::PathPtr;
use crate::sys::{self, Statx};
use crate::Errno;

/// The caller's tag for one operation; every pushed operation produces
/// exactly one [`Completion`] carrying it.
pub type Token = u64;

/// One `splice(2)` of up to `len` bytes from `fd_in` to `fd_out`; an
/// offset of `None` is the descriptor's own position (a pipe has no other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Splice {
    pub fd_in: RawFd,
    pub off_in: Option<i64>,
    pub fd_out: RawFd,
    pub off_out: Option<i64>,
    pub len: u32,
    pub flags: u32,
}

impl Splice {
    /// From `fd_in` to `fd_out` at their own positions, without flags.
    pub fn new(fd_in: RawFd, fd_out: RawFd, len: u32) -> Splice {
        Splice { fd_in, off_in: None, fd_out, off_out: None, len, flags: 0 }
    }
}

/// One operation, with everything the kernel will read or write owned by it
/// (buffers) or by the engine's arena (paths).
pub(crate) enum Op {
    OpenAt {
        dirfd: RawFd,
        path: PathPtr,
        flags: i32,
        mode: u32,
        /// The caller has just stat'ed the path as a regular file (see
        /// [`crate::Engine::open_regular`]).
        regular: bool,
    },
    Close {
        fd: RawFd,
    },
    Statx {
        dirfd: RawFd,
        path: PathPtr,
        flags: i32,
        mask: u32,
    },
    Getdents {
        fd: RawFd,
        buf: Vec<u8>,
        /// The file system's end-of-directory marks, when known
        /// ([`getdents_fill_hinted`]).
        ends: Option<[i64; 2]>,
    },
    ReadLink {
        dirfd: RawFd,
        path: PathPtr,
        buf: Vec<u8>,
    },
    GetXattr {
        dirfd: RawFd,
        path: PathPtr,
        name: &'static std::ffi::CStr,
        follow: bool,
        buf: Vec<u8>,
    },
    ListXattr {
        dirfd: RawFd,
        path: PathPtr,
        follow: bool,
        buf: Vec<u8>,
    },
    /// Everything [`crate::Ask`] wants of one entry, as one job on one
    /// thread (see [`crate::about`]): its completion carries an
    /// [`crate::About`].
    About {
        dirfd: RawFd,
        path: PathPtr,
        d_type: u8,
        ask: crate::Ask,
    },
    Read {
        fd: RawFd,
        buf: Vec<u8>,
        offset: Option<u64>,
    },
    /// Open, read to the end, close, as one job (see [`crate::whole`]):
    /// its completion carries a [`crate::Whole`].
    ReadWhole {
        dirfd: RawFd,
        path: PathPtr,
        flags: i32,
        buf: Vec<u8>,
        limit: usize,
    },
    Write {
        fd: RawFd,
        buf: Vec<u8>,
        offset: Option<u64>,
    },
    Splice(Splice),
    Fadvise {
        fd: RawFd,
        offset: i64,
        len: i64,
        advice: i32,
    },
    /// `unlinkat(dirfd, path, flags)`: flags 0 or `AT_REMOVEDIR`.
    UnlinkAt {
        dirfd: RawFd,
        path: PathPtr,
        flags: i32,
    },
}

impl Op {
    /// [`Op::run_here`], appending the completion to `out`: a stat is
    /// written by the kernel straight into its completion's place in
    /// `out`, where built on the stack and moved its 256 bytes were copied
    /// twice more on the way (the worker threads' share of a 100,000-entry
    /// `lsr -al`).
    pub(crate) fn run_into(self, token: Token, out: &mut Vec<Completion>) {
        match self.into_in_place() {
            Ok(job) => {
                out.push(Completion::pending(token));
                job.run(out.last_mut().expect("a completion was just pushed"));
            }
            Err(op) => out.push(op.run_here(token)),
        }
    }

    /// The operations whose result is big (a statx), apart: they run into
    /// a completion's place.
    fn into_in_place(self) -> Result<InPlace, Op> {
        match self {
            Op::Statx { dirfd, path, flags, mask } => {
                Ok(InPlace::Stat { dirfd, path, flags, mask })
            }
            Op::About { dirfd, path, d_type, ask } => {
                Ok(InPlace::About { dirfd, path, d_type, ask })
            }
            op => Err(op),
        }
    }

    /// Runs the operation with plain syscalls on the calling thread.
    /// The reference implementation every executor must agree with.
    pub(crate) fn run_here(self, token: Token) -> Completion {
        let op = match self.into_in_place() {
            Ok(job) => {
                let mut c = Completion::pending(token);
                job.run(&mut c);
                return c;
            }
            Err(op) => op,
        };
        // By reference: the hold on the path must last through the syscall
        // (each arm's binding is dropped at the end of the arm).
        let cstr = |path: &PathPtr| {
            // SAFETY: this operation holds the path (see arena.rs) until it
            // is dropped, after the syscall that reads it.
            unsafe { path.as_cstr() }
        };
        let (result, data) = match op {
            Op::OpenAt { dirfd, path, flags, mode, .. } => {
                (sys::openat(dirfd, cstr(&path), flags, mode).map(|fd| fd as u64), Data::None)
            }
            Op::Close { fd } => (sys::close(fd).map(|()| 0), Data::None),
            Op::Statx { .. } | Op::About { .. } => unreachable!("taken by into_in_place"),
            Op::Getdents { fd, mut buf, ends } => {
                let r = getdents_fill_hinted(fd, &mut buf, ends.as_ref().map_or(&[], |e| &e[..]));
                let eof = matches!(r, Ok(true));
                let res = r.map(|_| buf.len() as u64);
                return Completion { token, result: res, eof, data: Data::Buf(buf) };
            }
            Op::ReadLink { dirfd, path, mut buf } => {
                let r = sys::readlinkat(dirfd, cstr(&path), &mut buf);
                (r.map(|n| n as u64), Data::Buf(buf))
            }
            Op::GetXattr { dirfd, path, name, follow, mut buf } => {
                let r = sys::getxattrat(dirfd, cstr(&path), name, follow, &mut buf);
                (r.map(|n| n as u64), Data::Buf(buf))
            }
            Op::ListXattr { dirfd, path, follow, mut buf } => {
                let r = sys::listxattrat(dirfd, cstr(&path), follow, &mut buf);
                (r.map(|n| n as u64), Data::Buf(buf))
            }
            Op::Read { fd, mut buf, offset } => {
                let r = sys::read(fd, &mut buf, offset);
                (r.map(|n| n as u64), Data::Buf(buf))
            }
            Op::ReadWhole { dirfd, path, flags, buf, limit } => {
                (Ok(0), Data::Whole(crate::whole::run(dirfd, cstr(&path), flags, buf, limit)))
            }
            Op::Write { fd, buf, offset } => {
                let r = sys::write_all(fd, &buf, offset).map(|n| n as u64).map_err(|(_, e)| e);
                (r, Data::Buf(buf))
            }
            Op::Splice(Splice { fd_in, mut off_in, fd_out, mut off_out, len, flags }) => {
                let r = sys::splice(
                    fd_in,
                    off_in.as_mut(),
                    fd_out,
                    off_out.as_mut(),
                    len as usize,
                    flags,
                );
                (r.map(|n| n as u64), Data::None)
            }
            Op::Fadvise { fd, offset, len, advice } => {
                (sys::fadvise(fd, offset, len, advice).map(|()| 0), Data::None)
            }
            Op::UnlinkAt { dirfd, path, flags } => {
                (sys::unlinkat(dirfd, cstr(&path), flags).map(|()| 0), Data::None)
            }
        };
        Completion { token, result, eof: false, data }
    }
}

/// An operation run into a completion's place.
enum InPlace {
    Stat { dirfd: RawFd, path: PathPtr, flags: i32, mask: u32 },
    About { dirfd: RawFd, path: PathPtr, d_type: u8, ask: crate::Ask },
}

impl InPlace {
    /// Runs it into `c`, a [`Completion::pending`] one.
    fn run(self, c: &mut Completion) {
        match self {
            InPlace::Stat { dirfd, path, flags, mask } => {
                c.data = Data::Stat(sys::statx_zeroed());
                let Data::Stat(st) = &mut c.data else { unreachable!("set just above") };
                // SAFETY: this job holds the path (see arena.rs) until it is
                // dropped at the end of this arm, after the syscall.
                let name = unsafe { path.as_cstr() };
                let t = crate::cold::sample();
                let r = sys::statx(dirfd, name, flags, mask, st);
                t.stats(1);
                if let Err(e) = r {
                    c.data = Data::None;
                    c.result = Err(e);
                }
            }
            InPlace::About { dirfd, path, d_type, ask } => {
                // SAFETY: as above: the path outlives every syscall of the job.
                let name = unsafe { path.as_cstr() };
                crate::about::run_joined(dirfd, name, d_type, ask, c);
            }
        }
    }
}

/// Reads directory entries into `buf` until it is nearly full or the
/// directory ends. Returns whether the end was seen. A small directory thus
/// costs one operation (two getdents64 calls, the second returning 0), which
/// halves the round trips of a walk. Callers that know how the file system
/// marks the end of the directory ([`crate::sys::fs::dir_end_offsets`])
/// pass the marks: a read whose last record's `d_off` is one of
/// `end_offsets` reached the end, and the getdents64 call that would return
/// 0 is saved (one syscall per directory of a walk).
pub fn getdents_fill_hinted(
    fd: RawFd,
    buf: &mut Vec<u8>,
    end_offsets: &[i64],
) -> Result<bool, Errno> {
    buf.clear();
    if buf.capacity() < MIN_DENTS_BUF {
        buf.reserve(DEFAULT_DENTS_BUF);
    }
    // A fill of a small directory is the read that brings its block in
    // (or finds it cached): the cold-cache detector's second signal.
    let t = crate::cold::start();
    let r = fill_loop(fd, buf, end_offsets);
    if r.is_ok() {
        t.dents(buf.len());
    }
    r
}

fn fill_loop(fd: RawFd, buf: &mut Vec<u8>, end_offsets: &[i64]) -> Result<bool, Errno> {
    loop {
        let start = buf.len();
        match sys::getdents64(fd, buf) {
            Ok(0) => return Ok(true),
            Ok(_) => {
                if !end_offsets.is_empty()
                    && last_d_off(&buf[start..]).is_some_and(|o| end_offsets.contains(&o))
                {
                    return Ok(true);
                }
                if buf.capacity() - buf.len() < buf.capacity() / 2 {
                    return Ok(false);
                }
            }
            // EINVAL after progress only means the next entry doesn't fit.
            Err(e) if e == Errno::EINVAL && !buf.is_empty() => return Ok(false),
            Err(e) => return Err(e),
        }
    }
}

/// The `d_off` of the last linux_dirent64 record in `recs`.
fn last_d_off(recs: &[u8]) -> Option<i64> {
    let mut pos = 0;
    let mut last = None;
    while pos + 19 <= recs.len() {
        let off = i64::from_ne_bytes(recs[pos + 8..pos + 16].try_into().ok()?);
        let reclen = u16::from_ne_bytes([recs[pos + 16], recs[pos + 17]]) as usize;
        if reclen == 0 {
            break;
        }
        last = Some(off);
        pos += reclen;
    }
    last
}

/// Measured: 64 KiB is enough; bigger buffers buy nothing on ext4
/// (docs/engine.md §2), and slow file systems want one READDIR
/// request per 64 KiB rather than per 1 KiB.
pub const DEFAULT_DENTS_BUF: usize = 64 * 1024;
const MIN_DENTS_BUF: usize = 4096;

/// What an operation produced besides its integer result.
///
/// The stat result is stored inline rather than boxed: copying 256 bytes is
/// cheaper than an allocation per file, which the hot path must not make.
#[allow(clippy::large_enum_variant)]
pub enum Data {
    None,
    Stat(Statx),
    Buf(Vec<u8>),
    About(crate::About),
    Whole(crate::Whole),
}

/// The outcome of one operation.
pub struct Completion {
    pub token: Token,
    /// The integer result: a descriptor for opens, a byte count for
    /// reads/writes/getdents/readlink/getxattr/splice, 0 otherwise.
    pub result: Result<u64, Errno>,
    /// For getdents: the end of the directory was reached.
    pub eof: bool,
    pub data: Data,
}

impl Completion {
    /// A completion to run an operation into: no result yet.
    pub(crate) fn pending(token: Token) -> Completion {
        Completion { token, result: Ok(0), eof: false, data: Data::None }
    }

    /// The descriptor an open produced.
    pub fn fd(&self) -> Result<RawFd, Errno> {
        self.result.map(|v| v as RawFd)
    }

    /// The descriptor an open produced, owned: it closes when dropped, on
    /// every path. Taken once: the completion then says EBADF, so no second
    /// owner can be made of it.
    pub fn take_fd(&mut self) -> Result<std::os::fd::OwnedFd, Errno> {
        let fd = self.fd()?;
        self.result = Err(Errno(libc::EBADF));
        use std::os::fd::FromRawFd;
        // SAFETY: the engine's open returned `fd` to this completion alone,
        // and the result was just cleared, so this is its only owner.
        Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
    }

    /// The stat result of a statx operation.
    pub fn stat(&self) -> Result<&Statx, Errno> {
        match (&self.result, &self.data) {
            (Err(e), _) => Err(*e),
            (Ok(_), Data::Stat(st)) => Ok(st),
            (Ok(_), Data::About(a)) if a.stat_done => Ok(&a.stat),
            (Ok(_), _) => Err(Errno::EINVAL),
        }
    }

    /// What an [`crate::Engine::about`] request found, besides the stat
    /// ([`Completion::stat`]).
    pub fn about(&mut self) -> Option<&mut crate::About> {
        match &mut self.data {
            Data::About(a) => Some(a),
            _ => None,
        }
    }

    /// Takes what an [`crate::Engine::read_whole`] request got (once).
    pub fn take_whole(&mut self) -> Option<crate::Whole> {
        match std::mem::replace(&mut self.data, Data::None) {
            Data::Whole(w) => Some(w),
            other => {
                self.data = other;
                None
            }
        }
    }

    /// Takes the buffer an operation owned back (getdents, readlink,
    /// getxattr, read, write), empty if it had none; reuse it for the next
    /// operation to avoid allocating.
    pub fn take_buf(&mut self) -> Vec<u8> {
        match std::mem::replace(&mut self.data, Data::None) {
            Data::Buf(b) => b,
            other => {
                self.data = other;
                Vec::new()
            }
        }
    }

    /// The filled part of the operation's buffer.
    pub fn buf(&self) -> &[u8] {
        match &self.data {
            Data::Buf(b) => b,
            _ => &[],
        }
    }
}

//! Thin wrappers over the plain syscalls the engine (and its callers) use.
//!
//! Each wrapper retries `EINTR` itself, so no caller ever sees it: a signal
//! arriving mid-walk must not turn into a spurious "Interrupted system call".
//!
//! Only what the engine runs or decides with lives here (stat, open,
//! getdents, xattrs, read/write/splice, the kernel copy paths, file-system
//! kinds, eventfds, the CPU count). The C library's other services the
//! tools need — users, time, locale, fnmatch, regex, the allocator,
//! signals, standard descriptors — are the `libcw` crate's.

pub mod fs;

/// The raw read loop behind [`crate::Engine::getdents_hinted`], for
/// measurements of the syscall floor (xtask); tools use the engine's
/// operation, which decides where and whether the hint applies.
pub use crate::op::getdents_fill_hinted;

use std::ffi::CStr;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::Errno;

/// A raw syscall return value as a `Result` (see [`Errno::check`]).
fn check(ret: libc::c_long) -> Result<usize, Errno> {
    Errno::check(ret)
}

pub mod copy;

/// The kernel's `struct statx`, as libc defines it.
pub type Statx = libc::statx;

/// A file's identity: its device (as `makedev` packs it) and inode
/// numbers. Two names lead to the same file when their keys are equal;
/// hard-link counting and directory-loop detection key on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevIno {
    pub dev: u64,
    pub ino: u64,
}

impl DevIno {
    /// The key of a stat result (it needs `STATX_INO`; the device numbers
    /// come with every statx).
    pub fn of(st: &Statx) -> DevIno {
        DevIno { dev: libc::makedev(st.stx_dev_major, st.stx_dev_minor), ino: st.stx_ino }
    }
}

/// An all-zero `statx`, the starting value of every stat slot.
pub fn statx_zeroed() -> Statx {
    // SAFETY: statx is a plain C struct of integers, for which all-zero bytes are a
    // valid value.
    unsafe { std::mem::zeroed() }
}

fn retry<F: FnMut() -> libc::c_long>(mut f: F) -> Result<usize, Errno> {
    loop {
        match check(f()) {
            Err(e) if e == Errno::EINTR => continue,
            r => return r,
        }
    }
}

pub fn openat(dirfd: RawFd, path: &CStr, flags: i32, mode: u32) -> Result<RawFd, Errno> {
    // SAFETY: path is a valid NUL-terminated string for the duration of the call.
    retry(|| unsafe { libc::openat(dirfd, path.as_ptr(), flags | libc::O_CLOEXEC, mode) as _ })
        .map(|fd| fd as RawFd)
}

/// [`openat`] for a caller that owns the descriptor outright: it closes
/// when the `OwnedFd` drops, on every path, with no `close` to forget.
pub fn openat_owned(
    dirfd: RawFd,
    path: &CStr,
    flags: i32,
    mode: u32,
) -> Result<std::os::fd::OwnedFd, Errno> {
    use std::os::fd::FromRawFd;
    let fd = openat(dirfd, path, flags, mode)?;
    // SAFETY: fd was just opened and nothing else holds it.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// Closes a descriptor. EINTR is not retried: on Linux the fd is released
/// whatever close returns, and retrying could close a descriptor another
/// thread has just been given.
pub fn close(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: closing an integer descriptor touches no memory of ours.
    match check(unsafe { libc::close(fd) } as _) {
        Err(e) if e == Errno::EINTR => Ok(()),
        r => r.map(|_| ()),
    }
}

pub fn statx(
    dirfd: RawFd,
    path: &CStr,
    flags: i32,
    mask: u32,
    out: &mut Statx,
) -> Result<(), Errno> {
    // SAFETY: path is NUL-terminated and out is a valid, exclusive statx buffer.
    retry(|| unsafe { libc::statx(dirfd, path.as_ptr(), flags, mask, out) as _ }).map(|_| ())
}

/// One `getdents64` call appending to `buf` (between `len` and `capacity`).
/// Returns the number of bytes added; 0 means end of directory.
pub fn getdents64(fd: RawFd, buf: &mut Vec<u8>) -> Result<usize, Errno> {
    let len = buf.len();
    let spare = buf.capacity() - len;
    // SAFETY: the kernel writes at most `spare` bytes into the vector's spare
    // capacity, which is allocated and exclusively ours.
    let n = match retry(|| unsafe {
        libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr().add(len), spare) as _
    }) {
        Ok(n) => n,
        // The directory was removed while open (a shell's deleted working
        // directory): Linux says ENOENT, POSIX says readdir reaches its end,
        // and glibc's readdir — hence GNU ls, find and du — reports the end.
        // Nothing was written.
        Err(e) if e == Errno::ENOENT => 0,
        Err(e) => return Err(e),
    };
    // SAFETY: the kernel initialised exactly n bytes after len.
    unsafe { buf.set_len(len + n) };
    Ok(n)
}

/// `readlinkat` into `buf` (replacing its contents); grows the buffer until
/// the whole target fits, so long targets are never silently truncated.
pub fn readlinkat(dirfd: RawFd, path: &CStr, buf: &mut Vec<u8>) -> Result<usize, Errno> {
    if buf.capacity() < 256 {
        buf.reserve(256);
    }
    loop {
        buf.clear();
        let cap = buf.capacity();
        // SAFETY: the kernel writes at most cap bytes into the vector's buffer.
        let n = retry(|| unsafe {
            libc::readlinkat(dirfd, path.as_ptr(), buf.as_mut_ptr().cast(), cap) as _
        })?;
        if n < cap {
            // SAFETY: n bytes were written by the kernel.
            unsafe { buf.set_len(n) };
            return Ok(n);
        }
        buf.reserve(cap * 2);
    }
}

/// Reads an extended attribute of `path` relative to `dirfd`. An empty
/// `buf` capacity asks only for the size. Uses `getxattrat` (Linux 6.13)
/// and falls back to `[l]getxattr` on `/proc/self/fd/N/path` where it is
/// missing, so callers never need a full path.
pub fn getxattrat(
    dirfd: RawFd,
    path: &CStr,
    name: &CStr,
    follow: bool,
    buf: &mut Vec<u8>,
) -> Result<usize, Errno> {
    static NO_GETXATTRAT: AtomicBool = AtomicBool::new(false);
    const SYS_GETXATTRAT: libc::c_long = 464;

    #[repr(C)]
    struct XattrArgs {
        value: u64,
        size: u32,
        flags: u32,
    }
    xattr_call(
        &NO_GETXATTRAT,
        buf,
        |p, cap| {
            let mut args = XattrArgs { value: p as u64, size: cap as u32, flags: 0 };
            // SAFETY: path and name are NUL-terminated; args points at a live
            // struct whose value/size describe the vector's allocated capacity.
            retry(|| unsafe {
                libc::syscall(
                    SYS_GETXATTRAT,
                    dirfd,
                    path.as_ptr(),
                    at_flags(follow),
                    name.as_ptr(),
                    &mut args as *mut XattrArgs,
                    std::mem::size_of::<XattrArgs>(),
                ) as _
            })
        },
        |p, cap| {
            let full = proc_path(dirfd, path);
            // SAFETY: full and name are NUL-terminated; the kernel writes at
            // most cap bytes at p, the vector's allocation.
            retry(|| unsafe {
                if follow {
                    libc::getxattr(full.as_ptr(), name.as_ptr(), p.cast(), cap) as _
                } else {
                    libc::lgetxattr(full.as_ptr(), name.as_ptr(), p.cast(), cap) as _
                }
            })
        },
    )
}

/// Lists the extended attribute names of `path` relative to `dirfd` into
/// `buf` (each name ends in a NUL), growing it when the list doesn't fit.
/// Uses `listxattrat` (Linux 6.13) and falls back to `[l]listxattr` on
/// `/proc/self/fd/N/path` where it is missing.
pub fn listxattrat(
    dirfd: RawFd,
    path: &CStr,
    follow: bool,
    buf: &mut Vec<u8>,
) -> Result<usize, Errno> {
    static NO_LISTXATTRAT: AtomicBool = AtomicBool::new(false);
    const SYS_LISTXATTRAT: libc::c_long = 465;
    if buf.capacity() < 256 {
        buf.reserve(256);
    }
    loop {
        let r = xattr_call(
            &NO_LISTXATTRAT,
            buf,
            |p, cap| {
                // SAFETY: path is NUL-terminated; the kernel writes at most
                // cap bytes at p, the vector's allocation.
                retry(|| unsafe {
                    libc::syscall(SYS_LISTXATTRAT, dirfd, path.as_ptr(), at_flags(follow), p, cap)
                        as _
                })
            },
            |p, cap| {
                let full = proc_path(dirfd, path);
                // SAFETY: full is NUL-terminated; the kernel writes at most cap bytes at p.
                retry(|| unsafe {
                    if follow {
                        libc::listxattr(full.as_ptr(), p.cast(), cap) as _
                    } else {
                        libc::llistxattr(full.as_ptr(), p.cast(), cap) as _
                    }
                })
            },
        );
        match r {
            // The list grew past the buffer: try again with room for more.
            Err(e) if e == Errno(libc::ERANGE) && buf.capacity() < 1 << 20 => {
                buf.reserve(buf.capacity() * 4)
            }
            r => return r,
        }
    }
}

fn at_flags(follow: bool) -> libc::c_int {
    if follow {
        0
    } else {
        libc::AT_SYMLINK_NOFOLLOW
    }
}

/// One attribute call into `buf`'s capacity: `at` (an `*xattrat` syscall,
/// Linux 6.13) unless the kernel lacks it — learnt from its first ENOSYS
/// and remembered in `missing` — else `by_path` (the path-based call on
/// `/proc/self/fd/N/path`). Both get the buffer's pointer and capacity;
/// `buf`'s length becomes what the kernel wrote.
fn xattr_call(
    missing: &AtomicBool,
    buf: &mut Vec<u8>,
    at: impl FnOnce(*mut u8, usize) -> Result<usize, Errno>,
    by_path: impl FnOnce(*mut u8, usize) -> Result<usize, Errno>,
) -> Result<usize, Errno> {
    buf.clear();
    let (p, cap) = (buf.as_mut_ptr(), buf.capacity());
    let mut r = Err(Errno::ENOSYS);
    if !missing.load(Ordering::Relaxed) && cfg!(target_arch = "x86_64") {
        r = at(p, cap);
        if r == Err(Errno::ENOSYS) {
            missing.store(true, Ordering::Relaxed);
        }
    }
    if r == Err(Errno::ENOSYS) {
        r = by_path(p, cap);
    }
    let n = r?;
    // SAFETY: the kernel wrote n bytes, at most cap (none when cap == 0).
    unsafe { buf.set_len(n.min(cap)) };
    Ok(n)
}

fn proc_path(dirfd: RawFd, path: &CStr) -> std::ffi::CString {
    let p = path.to_bytes();
    let v = if dirfd == libc::AT_FDCWD || p.first() == Some(&b'/') {
        p.to_vec()
    } else {
        let mut v = format!("/proc/self/fd/{dirfd}/").into_bytes();
        v.extend_from_slice(p);
        v
    };
    std::ffi::CString::new(v).unwrap_or_default()
}

/// `pread` when `offset` is given, `read` otherwise; appends to `buf`'s spare capacity.
pub fn read(fd: RawFd, buf: &mut Vec<u8>, offset: Option<u64>) -> Result<usize, Errno> {
    let len = buf.len();
    let spare = buf.capacity() - len;
    // SAFETY: the kernel writes at most `spare` bytes into the spare capacity.
    let n = retry(|| unsafe {
        let p = buf.as_mut_ptr().add(len).cast();
        match offset {
            Some(off) => libc::pread(fd, p, spare, off as libc::off_t) as _,
            None => libc::read(fd, p, spare) as _,
        }
    })?;
    // SAFETY: n bytes were initialised by the kernel.
    unsafe { buf.set_len(len + n) };
    Ok(n)
}

/// One `write`/`pwrite` call; may be short.
pub fn write_once(fd: RawFd, data: &[u8], offset: Option<u64>) -> Result<usize, Errno> {
    // SAFETY: data is a valid readable slice for the duration of the call.
    retry(|| unsafe {
        match offset {
            Some(off) => libc::pwrite(fd, data.as_ptr().cast(), data.len(), off as _) as _,
            None => libc::write(fd, data.as_ptr().cast(), data.len()) as _,
        }
    })
}

/// Writes all of `data`, continuing after short writes and waiting out
/// `EAGAIN` on non-blocking descriptors. Returns the bytes written before an
/// error together with the error, so callers can report what was lost.
pub fn write_all(
    fd: RawFd,
    mut data: &[u8],
    mut offset: Option<u64>,
) -> Result<usize, (usize, Errno)> {
    let total = data.len();
    while !data.is_empty() {
        match write_once(fd, data, offset) {
            Ok(0) => return Err((total - data.len(), Errno(libc::EIO))),
            Ok(n) => {
                data = &data[n..];
                offset = offset.map(|o| o + n as u64);
            }
            Err(e) if e == Errno::EAGAIN => wait_writable(fd),
            Err(e) => return Err((total - data.len(), e)),
        }
    }
    Ok(total)
}

fn wait_writable(fd: RawFd) {
    let mut p = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
    // SAFETY: p is a valid pollfd array of length 1.
    unsafe { libc::poll(&mut p, 1, -1) };
}

pub fn splice(
    fd_in: RawFd,
    off_in: Option<&mut i64>,
    fd_out: RawFd,
    off_out: Option<&mut i64>,
    len: usize,
    flags: u32,
) -> Result<usize, Errno> {
    let pin = off_in.map_or(std::ptr::null_mut(), |o| o as *mut i64);
    let pout = off_out.map_or(std::ptr::null_mut(), |o| o as *mut i64);
    // SAFETY: the offset pointers are null or point at live i64s owned by the caller.
    retry(|| unsafe { libc::splice(fd_in, pin, fd_out, pout, len, flags) as _ })
}

/// `unlinkat(2)`: `flags` 0, or `AT_REMOVEDIR`.
pub fn unlinkat(dirfd: RawFd, path: &CStr, flags: i32) -> Result<(), Errno> {
    // SAFETY: path is a valid NUL-terminated string for the duration of the call.
    retry(|| unsafe { libc::unlinkat(dirfd, path.as_ptr(), flags) as _ }).map(|_| ())
}

pub fn fadvise(fd: RawFd, offset: i64, len: i64, advice: i32) -> Result<(), Errno> {
    // SAFETY: no memory is passed to the kernel.
    let r = unsafe { libc::posix_fadvise(fd, offset, len, advice) };
    if r != 0 {
        Err(Errno(r))
    } else {
        Ok(())
    }
}

/// A non-blocking, close-on-exec eventfd with counter 0.
pub fn eventfd() -> Result<std::os::fd::OwnedFd, Errno> {
    use std::os::fd::FromRawFd;
    // SAFETY: eventfd takes no pointers.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: fd is a fresh descriptor nothing else owns.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// Adds `n` to eventfd `fd`'s counter (a full counter, EAGAIN, is fine:
/// the reader has a wake-up pending anyway).
pub fn eventfd_add(fd: RawFd, n: u64) {
    let b = n.to_ne_bytes();
    // SAFETY: writes 8 bytes from a live local array.
    unsafe { libc::write(fd, b.as_ptr().cast(), 8) };
}

/// Resets eventfd `fd`'s counter to 0 (non-blocking).
pub fn eventfd_clear(fd: RawFd) {
    let mut b = [0u8; 8];
    // SAFETY: reads at most 8 bytes into a live local array.
    unsafe { libc::read(fd, b.as_mut_ptr().cast(), 8) };
}

/// Number of CPUs this process may run on (affinity-aware), at least 1.
///
/// `sched_getaffinity`, cached: std's `available_parallelism` also reads
/// cgroup quota files, about 15 syscalls that a 10-file `ls` should not
/// pay (and the engine asks twice), and its cgroup parser is 10 KB of
/// every binary. The mask grows until the kernel's CPU count fits
/// (EINVAL: more than the 1,024 CPUs of a `cpu_set_t`).
pub fn available_cpus() -> usize {
    use std::sync::OnceLock;
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| {
        let mut words = 16;
        while words <= 1 << 16 {
            let mut mask = vec![0u64; words];
            let bytes = words * 8;
            // SAFETY: the kernel writes at most `bytes` bytes into `mask`,
            // which is live and that long; the raw call returns how many it
            // wrote (glibc's wrapper hides that).
            let r = check(unsafe {
                libc::syscall(libc::SYS_sched_getaffinity, 0, bytes, mask.as_mut_ptr())
            });
            match r {
                Ok(written) => {
                    let words = written.div_ceil(8).min(words);
                    let n: u32 = mask[..words].iter().map(|w| w.count_ones()).sum();
                    return (n as usize).max(1);
                }
                Err(e) if e.0 == libc::EINVAL => words *= 4,
                Err(_) => break,
            }
        }
        1
    })
}

/// `fstat` through statx with AT_EMPTY_PATH.
pub fn fstatx(fd: RawFd, mask: u32) -> Result<Statx, Errno> {
    let mut st = statx_zeroed();
    statx(fd, c"", libc::AT_EMPTY_PATH, mask, &mut st)?;
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn available_cpus_counts_the_affinity_mask() {
        // SAFETY: cpu_set_t is a plain bit array; all-zero is valid.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: set is a valid, writable cpu_set_t of the size passed.
        let r =
            unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
        assert_eq!(r, 0);
        // SAFETY: CPU_COUNT only reads the set.
        let want = unsafe { libc::CPU_COUNT(&set) } as usize;
        assert_eq!(available_cpus(), want.max(1));
    }
}

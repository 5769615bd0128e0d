//! The few system calls std does not wrap, and the byte views of the
//! protocol structures. Every `unsafe` block of xtask (slowfs, the
//! benchmarks' wait4/getrusage/statfs) lives in this file, each small and
//! with the reason it is sound next to it; the rest of xtask uses ringio
//! and libcw.

use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use super::proto;

/// Plain-old-data: a `#[repr(C)]` struct made only of integers (and arrays
/// of them) with no implicit padding, so every byte of it is initialised
/// and every bit pattern is a valid value.
///
/// # Safety
/// Implement only for types with exactly those properties.
pub unsafe trait Pod: Copy + Default + 'static {}

macro_rules! pod {
    ($($t:ty),* $(,)?) => {$(
        // SAFETY: the type is #[repr(C)], holds only u16/u32/u64/i32 fields
        // and arrays of them, and proto.rs asserts its size equals the sum of
        // its fields (the C header's size), so it has no padding bytes.
        unsafe impl Pod for $t {}
    )*};
}

pod!(
    proto::InHeader,
    proto::OutHeader,
    proto::InitIn,
    proto::InitOut,
    proto::Attr,
    proto::EntryOut,
    proto::AttrOut,
    proto::ForgetIn,
    proto::BatchForgetIn,
    proto::ForgetOne,
    proto::OpenIn,
    proto::OpenOut,
    proto::ReleaseIn,
    proto::ReadIn,
    proto::GetxattrIn,
    proto::GetxattrOut,
    proto::Kstatfs,
    proto::InterruptIn,
    proto::Dirent,
);

/// The bytes of a protocol structure, to append to a reply.
pub fn as_bytes<T: Pod>(v: &T) -> &[u8] {
    // SAFETY: T: Pod has no padding, so all size_of::<T>() bytes behind the
    // reference are initialised; the slice borrows `v` and cannot outlive it.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

/// Reads a protocol structure from the front of `bytes` (any alignment);
/// None when `bytes` is too short.
pub fn read_struct<T: Pod>(bytes: &[u8]) -> Option<T> {
    if bytes.len() < std::mem::size_of::<T>() {
        return None;
    }
    // SAFETY: the length was checked above, read_unaligned copes with any
    // alignment, and every bit pattern is a valid T (T: Pod).
    Some(unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<T>()) })
}

fn cstr(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn check_size(r: libc::ssize_t) -> io::Result<usize> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

pub const MS_RDONLY: u64 = libc::MS_RDONLY;
pub const MS_NOSUID: u64 = libc::MS_NOSUID;
pub const MS_NODEV: u64 = libc::MS_NODEV;

/// mount(2).
pub fn mount(source: &str, target: &Path, fstype: &str, flags: u64, data: &str) -> io::Result<()> {
    let source = CString::new(source)?;
    let target = cstr(target)?;
    let fstype = CString::new(fstype)?;
    let data = CString::new(data)?;
    // SAFETY: all four pointers are NUL-terminated strings alive for the
    // duration of the call; the kernel copies them.
    check(unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            flags as libc::c_ulong,
            data.as_ptr().cast(),
        )
    })
    .map(drop)
}

/// umount2(2), lazily (MNT_DETACH) when asked.
pub fn umount(target: &Path, lazy: bool) -> io::Result<()> {
    let target = cstr(target)?;
    let flags = if lazy { libc::MNT_DETACH } else { 0 };
    // SAFETY: `target` is a NUL-terminated string alive for the call.
    check(unsafe { libc::umount2(target.as_ptr(), flags) }).map(drop)
}

/// lgetxattr(2) into `buf`; an empty `buf` asks for the value's size.
pub fn lgetxattr(path: &CStr, name: &CStr, buf: &mut [u8]) -> io::Result<usize> {
    let ptr = if buf.is_empty() { std::ptr::null_mut() } else { buf.as_mut_ptr() };
    // SAFETY: path and name are NUL-terminated; ptr is null with size 0 or
    // points to buf.len() writable bytes borrowed for the call.
    check_size(unsafe { libc::lgetxattr(path.as_ptr(), name.as_ptr(), ptr.cast(), buf.len()) })
}

/// llistxattr(2) into `buf`; an empty `buf` asks for the list's size.
pub fn llistxattr(path: &CStr, buf: &mut [u8]) -> io::Result<usize> {
    let ptr = if buf.is_empty() { std::ptr::null_mut() } else { buf.as_mut_ptr() };
    // SAFETY: as for lgetxattr: ptr is null with size 0 or valid for
    // buf.len() bytes, path is NUL-terminated.
    check_size(unsafe { libc::llistxattr(path.as_ptr(), ptr.cast(), buf.len()) })
}

/// File system statistics, the fields FUSE_STATFS reports.
pub struct FsStats {
    pub blocks: u64,
    pub bfree: u64,
    pub bavail: u64,
    pub files: u64,
    pub ffree: u64,
    pub bsize: u64,
    pub namelen: u64,
    pub frsize: u64,
}

/// statvfs(3) of the file system holding `path`.
pub fn statvfs(path: &Path) -> io::Result<FsStats> {
    let p = cstr(path)?;
    // SAFETY: statvfs is plain integers; all-zero is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: p is NUL-terminated, st is a valid, writable statvfs.
    check(unsafe { libc::statvfs(p.as_ptr(), &mut st) })?;
    Ok(FsStats {
        blocks: st.f_blocks,
        bfree: st.f_bfree,
        bavail: st.f_bavail,
        files: st.f_files,
        ffree: st.f_ffree,
        bsize: st.f_bsize,
        namelen: st.f_namemax,
        frsize: st.f_frsize,
    })
}

/// The effective user and group ids, for the mount's user_id/group_id.
pub fn euid_egid() -> (u32, u32) {
    // SAFETY: geteuid and getegid cannot fail and touch no memory.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// A pipe, both ends close-on-exec: (read end, write end).
pub fn pipe() -> io::Result<(File, File)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: fds is a writable array of two ints, as pipe2 requires.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: pipe2 succeeded, so both fds are open and owned by nobody else.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

/// fork(2): Some(child pid) in the parent, None in the child. Call only
/// while the process has a single thread (before any server thread starts).
pub fn fork() -> io::Result<Option<u32>> {
    // SAFETY: the caller guarantees the process is single-threaded, so the
    // child inherits no lock held by another thread.
    let pid = check(unsafe { libc::fork() })?;
    Ok(if pid == 0 { None } else { Some(pid as u32) })
}

/// setsid(2): detaches a daemon from its terminal's session.
pub fn setsid() -> io::Result<()> {
    // SAFETY: setsid takes no arguments and touches no memory.
    check(unsafe { libc::setsid() }).map(drop)
}

/// Points stdin, stdout and stderr at `file` (a daemon's log or /dev/null).
pub fn redirect_stdio(file: &File) -> io::Result<()> {
    for target in 0..3 {
        // SAFETY: dup2 on an open fd we borrow; replacing fds 0-2 is what a
        // daemon means to do, and std's handles refer to them by number.
        check(unsafe { libc::dup2(file.as_raw_fd(), target) })?;
    }
    Ok(())
}

/// A set of signals blocked in this thread (and in every thread it spawns
/// afterwards) so that they are only received by [`Signals::wait`].
pub struct Signals {
    set: libc::sigset_t,
}

impl Signals {
    pub fn block(signals: &[libc::c_int]) -> io::Result<Signals> {
        // SAFETY: sigset_t is plain data; sigemptyset initialises it below.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: set is a valid sigset_t we own.
        unsafe { libc::sigemptyset(&mut set) };
        for &s in signals {
            // SAFETY: as above; s is a signal number from libc's constants.
            check(unsafe { libc::sigaddset(&mut set, s) })?;
        }
        // SAFETY: set is initialised; a null old-set pointer is allowed.
        let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(Signals { set })
    }

    /// Waits up to `timeout` for one of the blocked signals.
    pub fn wait(&self, timeout: Duration) -> Option<libc::c_int> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: set and ts are valid for the call; a null siginfo pointer
        // is allowed.
        let r = unsafe { libc::sigtimedwait(&self.set, std::ptr::null_mut(), &ts) };
        (r > 0).then_some(r)
    }
}

/// Sets the calling thread's timer slack (how late the kernel may wake it
/// from a timed wait, 50 µs by default) to `ns`.
pub fn set_timer_slack(ns: u64) -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument and touches no
    // memory of ours.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) }).map(drop)
}

/// Opens /dev/fuse read-write (close-on-exec, like every std open).
pub fn open_fuse_device() -> io::Result<OwnedFd> {
    let f = std::fs::OpenOptions::new().read(true).write(true).open("/dev/fuse")?;
    Ok(OwnedFd::from(f))
}

/// kill(2): `sig` to process `pid`, or to process group `-pid`. (Also for
/// `cargo xtask bench --slowfs`, which signals the server and its runs.)
pub fn kill(pid: i32, sig: i32) -> io::Result<()> {
    // SAFETY: kill takes no pointers.
    check(unsafe { libc::kill(pid, sig) }).map(|_| ())
}

/// The file-system magic number of `path` (statfs's `f_type`).
pub fn fs_magic(path: &CStr) -> io::Result<u64> {
    // SAFETY: statfs is plain old data; all-zero is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: path is NUL-terminated and st a valid, exclusive out pointer.
    check(unsafe { libc::statfs(path.as_ptr(), &mut st) })?;
    #[allow(clippy::unnecessary_cast)]
    Ok(st.f_type as u64)
}

/// User + system CPU time of this process and its reaped children.
pub fn cpu_used() -> Duration {
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    let mut total = Duration::ZERO;
    for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
        // SAFETY: rusage is plain old data; all-zero is a valid value.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: who is valid and ru a valid, exclusive out pointer.
        unsafe { libc::getrusage(who, &mut ru) };
        total += tv(ru.ru_utime) + tv(ru.ru_stime);
    }
    total
}

/// Clock ticks per second, the unit of /proc/PID/stat times.
pub fn clock_ticks() -> u64 {
    // SAFETY: sysconf takes no pointers.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64
}

/// Waits for child `pid` to end; returns its wait status and the user +
/// system CPU time it used (wait4).
pub fn wait_child(pid: i32) -> io::Result<(i32, Duration)> {
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain old data; all-zero is a valid value.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: status and ru are valid, exclusive out pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            return Ok((status, tv(ru.ru_utime) + tv(ru.ru_stime)));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_round_trip_through_bytes() {
        let h = proto::OutHeader { len: 16, error: -2, unique: 0x0102_0304_0506_0708 };
        let bytes = as_bytes(&h).to_vec();
        assert_eq!(bytes.len(), 16);
        let back: proto::OutHeader = read_struct(&bytes).unwrap();
        assert_eq!((back.len, back.error, back.unique), (16, -2, 0x0102_0304_0506_0708));
        // Unaligned and short input.
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&bytes);
        let back: proto::OutHeader = read_struct(&shifted[1..]).unwrap();
        assert_eq!(back.unique, h.unique);
        assert!(read_struct::<proto::OutHeader>(&bytes[..15]).is_none());
    }

    #[test]
    fn xattr_size_query_on_a_missing_file_fails_cleanly() {
        let p = CString::new("/nonexistent/slowfs-test").unwrap();
        let n = CString::new("user.x").unwrap();
        let e = lgetxattr(&p, &n, &mut []).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    }
}

//! Wrappers `lfind` needs beyond the engine's operations: deleting relative
//! to a directory descriptor, access checks, user and group lookups through the name service, a Ctrl-C flag, and running a child
//! process inside a directory given by descriptor (-execdir).

use std::ffi::CStr;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use super::retry;
use crate::errno::Errno;

/// `unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0)`: never follows a
/// symlink in `name`'s last component, and `dirfd` pins the parent.
pub fn unlinkat(dirfd: RawFd, name: &CStr, dir: bool) -> Result<(), Errno> {
    let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::unlinkat(dirfd, name.as_ptr(), flags) as _ }).map(|_| ())
}

/// `faccessat(dirfd, name, mode, 0)`: whether the real user may access the
/// file (following symlinks, as access(2) does).
pub fn access(dirfd: RawFd, name: &CStr, mode: i32) -> Result<(), Errno> {
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::faccessat(dirfd, name.as_ptr(), mode, 0) as _ }).map(|_| ())
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Installs a SIGINT handler that only sets a flag ([`interrupted`]), so a
/// long walk can stop cleanly: output flushed, children waited for. No
/// SA_RESTART, but every wrapper retries EINTR anyway.
pub fn catch_sigint() {
    // SAFETY: sa is a plain C struct; the handler only stores to an atomic,
    // which is async-signal-safe.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// Whether SIGINT arrived since [`catch_sigint`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Ends the process as SIGINT would (status 130 in the shell, and a parent
/// shell sees the child died of the signal), after the caller cleaned up.
pub fn die_of_sigint() -> ! {
    // SAFETY: resetting and raising a signal, then exiting if it was
    // somehow blocked; no memory is involved.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(libc::SIGINT);
        libc::_exit(130)
    }
}

/// Makes `cmd`'s child start in the directory open as `dirfd` (fchdir
/// between fork and exec), so -execdir runs where the walker really is even
/// if a path component was swapped for a symlink meanwhile. `dirfd` must stay
/// open until the command is spawned.
pub fn command_in_dir(cmd: &mut std::process::Command, dirfd: RawFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only
    // calls fchdir, which is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fchdir(dirfd) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// The process's file mode creation mask (read by setting and restoring it).
pub fn umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is restored at once.
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m as u32
    }
}

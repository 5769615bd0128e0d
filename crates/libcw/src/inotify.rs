//! Waiting until a file is opened (inotify's `IN_OPEN`), for the tests of
//! a directory moved away while a walk is inside it (GNU's
//! `move-dir-while-traversing`): the test renames the directory the moment
//! the tool opens it.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A watch for the opening of one file or directory (of anything in it,
/// for a directory).
pub struct OpenWatch {
    fd: OwnedFd,
}

impl OpenWatch {
    pub fn new(path: &Path) -> io::Result<OpenWatch> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: plain syscall; the result is checked before it is owned.
        let raw = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: `c` is NUL-terminated and outlives the call.
        if unsafe { libc::inotify_add_watch(fd.as_raw_fd(), c.as_ptr(), libc::IN_OPEN) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OpenWatch { fd })
    }

    /// Waits up to `ms` milliseconds for an opening; whether one came.
    pub fn wait(&self, ms: i32) -> io::Result<bool> {
        let mut p = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, for the duration of the call.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            return Ok(false);
        }
        let mut buf = [0u8; 4096];
        // SAFETY: `buf` is writable for its whole length.
        let r = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(true)
    }
}

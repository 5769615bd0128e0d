//! Permission checks as the kernel would decide them for the real user
//! (find's -readable, -writable, -executable).

use std::ffi::CStr;
use std::os::fd::RawFd;

use crate::retry;
use crate::Errno;

/// `faccessat(dirfd, name, mode, 0)`: whether the real user may access the
/// file (following symlinks, as access(2) does).
pub fn access(dirfd: RawFd, name: &CStr, mode: i32) -> Result<(), Errno> {
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::faccessat(dirfd, name.as_ptr(), mode, 0) as _ }).map(|_| ())
}

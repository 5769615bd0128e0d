//! `Errno`: the error every operation reports, and the text GNU tools print for it.

use std::fmt;

/// A raw `errno` value returned by the kernel for one operation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

impl Errno {
    pub const ENOENT: Errno = Errno(libc::ENOENT);
    pub const EACCES: Errno = Errno(libc::EACCES);
    pub const ENOTDIR: Errno = Errno(libc::ENOTDIR);
    pub const ELOOP: Errno = Errno(libc::ELOOP);
    pub const EINTR: Errno = Errno(libc::EINTR);
    pub const EAGAIN: Errno = Errno(libc::EAGAIN);
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    pub const ENODATA: Errno = Errno(libc::ENODATA);
    pub const EPIPE: Errno = Errno(libc::EPIPE);
    pub const EMFILE: Errno = Errno(libc::EMFILE);
    pub const ENOSYS: Errno = Errno(libc::ENOSYS);

    /// The calling thread's current `errno`.
    pub fn last() -> Errno {
        Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO))
    }

    /// The C library's message for this errno, exactly as `strerror` gives it
    /// ("No such file or directory"), without Rust's " (os error N)" suffix,
    /// because the tools print messages byte-identical to GNU's.
    pub fn message(self) -> String {
        let mut buf = [0u8; 256];
        // SAFETY: buf is a valid writable buffer of the given length; the XSI
        // strerror_r (libc's binding) NUL-terminates what it writes there.
        let r = unsafe { libc::strerror_r(self.0, buf.as_mut_ptr().cast(), buf.len()) };
        if r != 0 {
            return format!("Unknown error {}", self.0);
        }
        let s = std::ffi::CStr::from_bytes_until_nul(&buf).unwrap_or_default();
        s.to_string_lossy().into_owned()
    }

    pub fn into_io(self) -> std::io::Error {
        std::io::Error::from_raw_os_error(self.0)
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Errno({}: {})", self.0, self.message())
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Errno {}

impl From<Errno> for std::io::Error {
    fn from(e: Errno) -> Self {
        e.into_io()
    }
}

impl Errno {
    /// A raw syscall return value (`-1` with errno set) as a `Result`.
    pub fn check(ret: libc::c_long) -> Result<usize, Errno> {
        if ret < 0 {
            Err(Errno::last())
        } else {
            Ok(ret as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_matches_strerror() {
        assert_eq!(Errno::ENOENT.message(), "No such file or directory");
        assert_eq!(Errno::EACCES.to_string(), "Permission denied");
    }
}

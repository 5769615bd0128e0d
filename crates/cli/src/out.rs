//! Buffered standard output with GNU's failure behaviour.
//!
//! The print phase formats into one large buffer and writes it with as few
//! `write`s as possible. A closed pipe (`| head`) ends the process silently
//! by SIGPIPE, as GNU tools do — unless the parent ignored SIGPIPE, in which
//! case the write error is reported. Any other write failure (`> /dev/full`)
//! is reported as `prog: write error: <strerror>` and the tool exits with its
//! failure status.

use std::os::fd::RawFd;

use libcw::Errno;
use ringio::sys;

/// A buffered writer on a descriptor (stdout by default).
pub struct Out {
    fd: RawFd,
    buf: Vec<u8>,
    limit: usize,
    error: Option<Errno>,
    written: u64,
}

/// Flush once this much is buffered, unless a caller asks for a different
/// limit: big enough that writes are rare, small enough that `| head` stops
/// a long listing early.
pub const DEFAULT_LIMIT: usize = 256 * 1024;

impl Default for Out {
    fn default() -> Self {
        Out::stdout()
    }
}

impl Out {
    pub fn stdout() -> Out {
        Out::new(1, DEFAULT_LIMIT)
    }

    pub fn new(fd: RawFd, limit: usize) -> Out {
        Out {
            fd,
            buf: Vec::with_capacity(limit.min(1 << 20) + 4096),
            limit,
            error: None,
            written: 0,
        }
    }

    pub fn fd(&self) -> RawFd {
        self.fd
    }

    /// The buffer, to format into directly; call [`Out::maybe_flush`] after.
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Appends bytes, flushing when the buffer is past its limit.
    pub fn write(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        self.maybe_flush();
    }

    pub fn maybe_flush(&mut self) {
        if self.buf.len() >= self.limit {
            self.flush();
        }
    }

    /// Writes out everything buffered. After a failure, further output is
    /// discarded and the first error is kept for [`Out::finish`].
    pub fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        self.written += self.buf.len() as u64;
        if self.error.is_none() {
            if let Err((_, e)) = sys::write_all(self.fd, &self.buf, None) {
                if e == Errno::EPIPE && !libcw::sigpipe::ignored_at_start() {
                    libcw::sigpipe::die();
                }
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }

    /// Bytes handed to the descriptor so far (not counting the buffer):
    /// the output offset of `buf()[0]`, for formats that report byte
    /// positions (`ls --dired`).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<Errno> {
        self.error
    }

    /// Flushes and reports a write failure GNU-style. Returns false if
    /// output was lost (the caller then exits with its failure status).
    pub fn finish(&mut self) -> bool {
        self.flush();
        match self.error {
            None => true,
            Some(e) => {
                crate::msg::write_error(Some(e));
                false
            }
        }
    }
}

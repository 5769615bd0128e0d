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
        let buf = std::mem::take(&mut self.buf);
        self.put(&buf);
        self.buf = buf;
        self.buf.clear();
    }

    /// Writes out everything buffered, then `b`: one write, and `b` is not
    /// copied when nothing was buffered (a thread's block of finished
    /// records, as find's walker threads hand theirs over).
    pub fn flush_with(&mut self, b: &[u8]) {
        if self.buf.is_empty() {
            self.put(b);
        } else {
            self.buf.extend_from_slice(b);
            self.flush();
        }
    }

    /// Writes `b` to the descriptor, unless an earlier write failed.
    fn put(&mut self, b: &[u8]) {
        if b.is_empty() {
            return;
        }
        self.written += b.len() as u64;
        if self.error.is_none() {
            if let Err((_, e)) = sys::write_all(self.fd, b, None) {
                if e == Errno::EPIPE && !libcw::sigpipe::ignored_at_start() {
                    libcw::sigpipe::die();
                }
                self.error = Some(e);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsRawFd;

    /// What `f` writes through an `Out` on a temporary file.
    fn written(f: impl FnOnce(&mut Out)) -> Vec<u8> {
        let path = std::env::temp_dir().join(format!("cli-out-{}", std::process::id()));
        let file = std::fs::File::create(&path).unwrap();
        let mut o = Out::new(file.as_raw_fd(), 1 << 20);
        f(&mut o);
        assert!(o.finish());
        let mut got = Vec::new();
        std::fs::File::open(&path).unwrap().read_to_end(&mut got).unwrap();
        std::fs::remove_file(&path).unwrap();
        got
    }

    #[test]
    fn flush_with_writes_the_buffer_then_the_block() {
        let got = written(|o| {
            o.flush_with(b"one\n");
            o.write(b"two\n");
            o.flush_with(b"three\n");
            o.write(b"four\n");
            assert_eq!(o.written(), 14);
        });
        assert_eq!(got, b"one\ntwo\nthree\nfour\n");
    }
}

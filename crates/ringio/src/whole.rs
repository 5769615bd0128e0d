//! "Read this small file whole": open it, read it to its end, close it
//! ([`Engine::read_whole`]), answered by one completion carrying a
//! [`Whole`].
//!
//! `cat *.log` of many small files asks this of each file after a stat
//! said it is a small regular file. How it is answered is the engine's
//! decision, per request, from the cold-cache state ([`crate::cold`]):
//!
//! - Warm: one job, every call on one thread (on a ring engine, the
//!   caller's). As separate operations (open, positioned reads, close
//!   through the ring) each file took four trips through the caller, which
//!   takes every answer in order and was what bounded the run. One job also
//!   reads at the file's own position, so nothing is seeked before a file
//!   is handed on.
//! - Cold, on a ring engine: in parts, the open, positioned reads and the
//!   close through the ring, tens of files in flight, joined here into the
//!   request's one completion. One job at a time would wait for the device
//!   file after file; a pool's threads each wait for one, and hand off.
//!
//! 10,000 files of 1–300 bytes (`lcat flat-10000/* > /dev/null`), 2 vCPUs,
//! interleaved medians, 2026-12-02. Warm: 47.5 ms this way, 58.0 in parts
//! through the ring, 45–49 as jobs inline or on a pool, against 41.7 for a
//! program that only opens, reads and closes the files in order. Caches
//! dropped: 162 ms this way, 162 in parts, 284 on a pool of 8 threads, 584
//! inline (GNU cat 676).
//!
//! The detector's signal here is the job's own time: a small file read
//! from the cache costs a few µs, from the device a block read (≥ 50 µs).
//! Once cold, a ring engine's parts time nothing, so it stays cold for the
//! rest of its run (a run that began on a cold cache is mostly cold).

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};

use crate::engine::{Backend, Engine};
use crate::op::{Completion, Data, Token};
use crate::sys;
use crate::Errno;

/// Tokens of the engine's parts of read_whole requests are at or above
/// this and below [`crate::about::PART`]; the callers' tokens and the
/// lister's ([`crate::listdir::FIRST_RESERVED_TOKEN`]) are below it.
pub(crate) const WHOLE_PART: Token = 1 << 62;
const STEP_BITS: u32 = 2;
const OPEN: u64 = 0;
const READ: u64 = 1;
const CLOSE: u64 = 2;

fn part(slot: u32, step: u64) -> Token {
    WHOLE_PART | ((slot as u64) << STEP_BITS) | step
}

/// A request answered in parts.
struct Slot {
    token: Token,
    buf: Vec<u8>,
    limit: usize,
    fd: Option<OwnedFd>,
    err: Option<WholeError>,
}

/// The engine's book of read_whole requests answered in parts.
#[derive(Default)]
pub(crate) struct Wholes {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Requests not yet completed (each has exactly one part out).
    pub(crate) live: usize,
}

impl Engine {
    /// Reads `path`, which the caller has just stat'ed as a small regular
    /// file, whole: open (read-only, `flags` added), reads into `buf` until
    /// one returns 0, close (see the module docs for how). The completion's
    /// [`Completion::take_whole`] has the bytes, or, should the file have
    /// grown past `limit` bytes, those read so far and the open descriptor.
    /// Its `result` is always `Ok`: errors are in the [`Whole`], with the
    /// step they came from. Tokens must be below 2⁶².
    pub fn read_whole(
        &mut self,
        token: Token,
        dirfd: RawFd,
        path: &[u8],
        flags: i32,
        buf: Vec<u8>,
        limit: usize,
    ) {
        debug_assert!(token < WHOLE_PART, "token {token:#x} uses the engine's bits");
        if self.backend != Backend::Uring || !crate::cold::is_cold() {
            let path = self.arena.push(path);
            self.push(token, crate::op::Op::ReadWhole { dirfd, path, flags, buf, limit });
            return;
        }
        let slot = Slot { token, buf, limit, fd: None, err: None };
        let i = match self.wholes.free.pop() {
            Some(i) => {
                self.wholes.slots[i as usize] = slot;
                i
            }
            None => {
                self.wholes.slots.push(slot);
                (self.wholes.slots.len() - 1) as u32
            }
        };
        self.wholes.live += 1;
        self.open_regular(part(i, OPEN), dirfd, path, flags);
    }

    /// Works one of the engine's parts of a read_whole request (a token
    /// with [`WHOLE_PART`]) into its request: its next part goes out, or
    /// the request, now answered, is appended to `out`.
    pub(crate) fn settle_whole_part(&mut self, mut c: Completion, out: &mut Vec<Completion>) {
        let i = ((c.token & !WHOLE_PART) >> STEP_BITS) as u32;
        let step = c.token & ((1 << STEP_BITS) - 1);
        if let Some(done) = self.whole_step(i, step, &mut c) {
            self.wholes.live -= 1;
            self.wholes.free.push(i);
            out.push(done);
        }
    }

    /// Works one part's completion into request `i`: its next part, or its
    /// answer.
    fn whole_step(&mut self, i: u32, step: u64, c: &mut Completion) -> Option<Completion> {
        let s = &mut self.wholes.slots[i as usize];
        match step {
            OPEN => match c.take_fd() {
                Ok(fd) => {
                    let raw = fd.as_raw_fd();
                    s.fd = Some(fd);
                    let buf = std::mem::take(&mut s.buf);
                    self.read(part(i, READ), raw, buf, Some(0));
                    None
                }
                Err(e) => {
                    s.err = Some(WholeError::Open(e));
                    Some(self.whole_done(i, None))
                }
            },
            READ => {
                s.buf = c.take_buf();
                let fd = s.fd.as_ref().map_or(-1, |f| f.as_raw_fd());
                match c.result {
                    Ok(0) => self.whole_close(i),
                    Ok(_) if s.buf.len() == s.buf.capacity() && s.buf.len() >= s.limit => {
                        // Positioned reads leave the file position alone:
                        // set it where the caller reads on.
                        match sys::copy::seek_to(fd, s.buf.len() as u64) {
                            Ok(_) => {
                                let fd = s.fd.take();
                                Some(self.whole_done(i, fd))
                            }
                            Err(e) => {
                                s.err = Some(WholeError::Read(e));
                                s.fd = None;
                                Some(self.whole_done(i, None))
                            }
                        }
                    }
                    Ok(_) => {
                        if s.buf.len() == s.buf.capacity() {
                            s.buf.reserve(s.buf.capacity().max(4096));
                        }
                        let at = s.buf.len() as u64;
                        let buf = std::mem::take(&mut s.buf);
                        self.read(part(i, READ), fd, buf, Some(at));
                        None
                    }
                    Err(e) => {
                        s.err = Some(WholeError::Read(e));
                        self.whole_close(i)
                    }
                }
            }
            _ => {
                // A read error is the one reported; a close error only
                // after a clean read.
                if let (None, Err(e)) = (s.err, c.result) {
                    s.err = Some(WholeError::Close(e));
                }
                Some(self.whole_done(i, None))
            }
        }
    }

    /// Closes request `i`'s file through the ring; the answer comes with
    /// the close's completion (at once, should there be no descriptor).
    fn whole_close(&mut self, i: u32) -> Option<Completion> {
        match self.wholes.slots[i as usize].fd.take() {
            Some(fd) => {
                self.close(part(i, CLOSE), fd.into_raw_fd());
                None
            }
            None => Some(self.whole_done(i, None)),
        }
    }

    /// Request `i`'s answer: `Partial` with `fd`, else `Done`.
    fn whole_done(&mut self, i: u32, fd: Option<OwnedFd>) -> Completion {
        let s = &mut self.wholes.slots[i as usize];
        let buf = std::mem::take(&mut s.buf);
        let whole = match fd {
            Some(fd) => Whole::Partial(buf, fd),
            None => Whole::Done(buf, s.err.take()),
        };
        Completion { token: s.token, result: Ok(0), eof: false, data: Data::Whole(whole) }
    }
}

/// Where reading a file whole failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WholeError {
    Open(Errno),
    Read(Errno),
    /// After a clean read: the bytes are all there, the close failed.
    Close(Errno),
}

/// What an [`Engine::read_whole`](crate::Engine::read_whole) request got.
#[derive(Debug)]
pub enum Whole {
    /// Everything up to a read that returned 0, then the error that ended
    /// it, if any: after a read error, the bytes read before it; after an
    /// open error, none.
    Done(Vec<u8>, Option<WholeError>),
    /// It grew past the request's limit (it was small when stat'ed): the
    /// bytes read so far and the descriptor, its position right after
    /// them, for the caller to read on from.
    Partial(Vec<u8>, OwnedFd),
}

/// Runs one request on this thread: opens `path` (read-only, `flags`
/// added), reads into `buf`'s spare capacity until a read returns 0,
/// growing `buf` as the file turns out bigger, and hands back a
/// [`Whole::Partial`] once `buf` is full at `limit` bytes or more.
///
/// Each file is read until a read returns 0: a size from a stat is a
/// hint (the file may have grown or shrunk since), and a short read is not
/// the end on every file system.
pub(crate) fn run(dirfd: RawFd, path: &CStr, flags: i32, mut buf: Vec<u8>, limit: usize) -> Whole {
    // The cold-cache detector's signal for a job that stats nothing and
    // lists nothing: a small file's read costs a device read when cold.
    let t = crate::cold::start();
    let fd = match sys::openat(dirfd, path, flags | libc::O_RDONLY, 0) {
        // SAFETY: the descriptor was just opened and nothing else holds it.
        Ok(fd) => unsafe { OwnedFd::from_raw_fd(fd) },
        Err(e) => return Whole::Done(buf, Some(WholeError::Open(e))),
    };
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
    loop {
        if buf.len() == buf.capacity() {
            if buf.len() >= limit {
                return Whole::Partial(buf, fd);
            }
            buf.reserve(buf.capacity().max(4096));
        }
        match sys::read(raw, &mut buf, None) {
            Ok(0) => break,
            Ok(_) => {}
            // The read's error is the one reported; the close's is not.
            Err(e) => return Whole::Done(buf, Some(WholeError::Read(e))),
        }
    }
    let err = sys::close(fd.into_raw_fd()).err().map(WholeError::Close);
    t.small_file(buf.len());
    Whole::Done(buf, err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn scratch(name: &str, data: &[u8]) -> std::ffi::CString {
        let dir = std::env::temp_dir().join(format!("ringio-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        std::ffi::CString::new(p.into_os_string().into_encoded_bytes()).unwrap()
    }

    #[test]
    fn reads_to_the_end_whatever_the_buffer() {
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let p = scratch("whole", &data);
        for cap in [0, 1, 100, 10_000, 10_001, 20_000] {
            match run(libc::AT_FDCWD, &p, 0, Vec::with_capacity(cap), 1 << 20) {
                Whole::Done(b, None) => assert_eq!(b, data, "capacity {cap}"),
                other => panic!("capacity {cap}: {other:?}"),
            }
        }
    }

    #[test]
    fn past_the_limit_the_rest_is_the_callers() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7) as u8).collect();
        let p = scratch("partial", &data);
        let Whole::Partial(mut b, fd) = run(libc::AT_FDCWD, &p, 0, Vec::with_capacity(4096), 8192)
        else {
            panic!("not partial")
        };
        assert!(b.len() >= 8192 && b.len() < data.len());
        // The descriptor is positioned right after the bytes handed back.
        b.reserve(data.len());
        while sys::read(fd.as_raw_fd(), &mut b, None).unwrap() > 0 {
            b.reserve(4096);
        }
        assert_eq!(b, data);
    }

    #[test]
    fn errors_say_where() {
        let missing = c"/nonexistent/ringio-whole";
        assert!(matches!(
            run(libc::AT_FDCWD, missing, 0, Vec::new(), 10),
            Whole::Done(b, Some(WholeError::Open(e))) if b.is_empty() && e == Errno(libc::ENOENT)
        ));
        // A directory opens read-only and fails at its first read.
        assert!(matches!(
            run(libc::AT_FDCWD, c"/", 0, Vec::with_capacity(16), 10),
            Whole::Done(_, Some(WholeError::Read(e))) if e == Errno(libc::EISDIR)
        ));
    }
}

//! The copy loop: for each operand, open → fstat → guard → copy by the
//! fastest method the (input, output) pair allows, every byte in order.
//!
//! Methods, chosen per operand (docs/engine.md §4):
//! - formatting options → read large chunks, format with [`Formatter`],
//!   write large chunks;
//! - output is a pipe → raise its capacity to 1 MiB (best effort), then
//!   splice a file through a private 1 MiB pipe, or an input pipe
//!   straight into it;
//! - output is /dev/null → splice through a private 1 MiB pipe (60 GB/s
//!   measured, sendfile 51);
//! - output is a regular file → copy_file_range from a regular file, then
//!   sendfile; splice from a pipe through a private pipe;
//! - output is a socket → sendfile from a regular file, splice from a pipe
//!   through a private pipe;
//! - anything else (terminals, /dev/full, …), inputs that can't be spliced
//!   (terminals, directories, files whose size is 0 like /proc's), and every
//!   case where a fast method fails → read/write with a large buffer.
//!
//! No fast method's 0 ends a non-pipe input: splice, sendfile and
//! copy_file_range report 0 where read(2) reports the error (a FUSE file
//! in direct I/O mode whose read fails part-way: the kernel takes the short
//! reply as the end of the file and sendfile says 0, read says EIO). So
//! the end of such an input is only believed from read/write's read
//! returning 0 — one read syscall per operand. A pipe's 0 is its end: no
//! writer is left, read would say the same.
//!
//! A fast method that fails for any reason hands over to read/write, which
//! continues from the same file position (the kernel advances it by exactly
//! what was moved) and then meets the real error on the side it belongs to:
//! a read error is the input's, a write error is fatal. Nothing is lost: a
//! private pipe is drained before the hand-over.
//!
//! All I/O runs through the ringio engine (open, read, write, splice,
//! fadvise, close), one operation at a time: each depends on the previous
//! one, and writes to the same descriptor must stay in order. The calls
//! without an engine operation (fstat, lseek, sendfile, copy_file_range,
//! pipe sizing) use `ringio::sys::copy`.

use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};

use ringio::sys::copy::{self as kc, Stat};
use ringio::{Completion, Data, Engine, Errno, Splice, Workload};

use crate::error::{Error, Fatal, FileError, FileErrorKind};
use crate::format::{FormatOpts, Formatter};

const STDIN: RawFd = 0;
const STDOUT: RawFd = 1;

/// Bytes per read on the read/write path: measured 28–31 GB/s to
/// /dev/null at 128 KiB–1 MiB; larger buffers only cost cache.
const READ_SIZE: usize = 256 * 1024;
/// Bytes per read when formatting, and the formatted output written once
/// this much is pending: the chunk read, the formatter's tables and the
/// output it writes then stay in the core's cache. 100 MB of text, `lcat
/// -n` to /dev/null (hyperfine, 2 vCPUs): 256 KiB chunks 84–110 ms, most of
/// it the kernel copying into a buffer evicted since it was last written;
/// 64 KiB 55–73 ms (-A and -bs alike, and through a pipe 161 -> 99 ms);
/// 32 KiB no better (docs/engine.md §4).
const FORMAT_CHUNK: usize = 64 * 1024;
/// Output gathered from many small files is written once this much is
/// pending: one write for many files.
const FLUSH_AT: usize = 256 * 1024;
/// The pipe capacity asked for (the unprivileged maximum by default).
const PIPE_SIZE: usize = 1 << 20;
/// Bytes requested per splice: one full pipe.
const SPLICE_CHUNK: usize = PIPE_SIZE;
/// Bytes requested per copy_file_range / sendfile call.
const KERNEL_COPY_CHUNK: usize = 1 << 30;
/// Regular files at least this big get POSIX_FADV_SEQUENTIAL (a doubled
/// readahead window); for smaller ones the hint costs more than it saves.
const FADVISE_MIN: i64 = 1 << 20;
/// Inputs smaller than this don't justify growing the output pipe.
const GROW_PIPE_MIN: i64 = 64 * 1024;

/// What a descriptor is, as far as choosing a copy method goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Regular,
    Directory,
    Fifo,
    Socket,
    DevNull,
    Other,
}

impl Kind {
    pub fn of(st: &Stat) -> Kind {
        match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::Regular,
            libc::S_IFDIR => Kind::Directory,
            libc::S_IFIFO => Kind::Fifo,
            libc::S_IFSOCK => Kind::Socket,
            libc::S_IFCHR if kc::is_dev_null(st) => Kind::DevNull,
            _ => Kind::Other,
        }
    }
}

/// Why a copy stopped early.
enum Stop {
    /// Reading the input failed: report it, go on with the next operand.
    Input(Errno),
    /// Writing the output failed: fatal.
    Output(Errno),
}

/// How a fast method ended.
enum Fast {
    /// The input reached its end; everything was delivered.
    Done,
    /// The method failed or looks unreliable: read/write takes over from
    /// the current position.
    Fallback,
}

/// The engine the copy loop runs on: cat's operations form one dependent
/// chain (read, then write what was read, …); ringio picks the executor
/// for that (see [`Workload::Chain`]).
pub fn engine() -> Engine {
    Engine::for_workload(Workload::Chain)
}

/// The copy loop's state across operands.
pub struct Cat {
    eng: Engine,
    done: Vec<Completion>,
    fmt: Option<Formatter>,
    out_kind: Kind,
    out_dev: u64,
    out_ino: u64,
    /// Reused read buffer.
    inbuf: Vec<u8>,
    /// Formatted output not yet written.
    outbuf: Vec<u8>,
    /// The output pipe's capacity was already dealt with.
    pipe_grown: bool,
    /// The private pipe for splicing to /dev/null, made on first use.
    private_pipe: Option<(OwnedFd, OwnedFd)>,
    used_stdin: bool,
}

impl Cat {
    /// Examines standard output and sets up the loop.
    pub fn new(opts: FormatOpts, eng: Engine) -> Result<Cat, Fatal> {
        if libcw::stdfds::was_closed(STDOUT) {
            return Err(Fatal::StdoutStat(Errno(libc::EBADF)));
        }
        let st = kc::fstat(STDOUT).map_err(Fatal::StdoutStat)?;
        Ok(Cat::with_output(opts, eng, &st))
    }

    fn with_output(opts: FormatOpts, eng: Engine, out: &Stat) -> Cat {
        Cat {
            eng,
            done: Vec::new(),
            fmt: opts.any().then(|| Formatter::new(opts)),
            out_kind: Kind::of(out),
            out_dev: out.st_dev,
            out_ino: out.st_ino,
            inbuf: Vec::new(),
            outbuf: Vec::new(),
            pipe_grown: false,
            private_pipe: None,
            used_stdin: false,
        }
    }

    /// Waits for the one outstanding operation.
    fn complete(&mut self) -> Completion {
        loop {
            if let Some(c) = self.done.pop() {
                return c;
            }
            if self.eng.outstanding() == 0 {
                // Cannot happen: every pushed operation completes once.
                return Completion {
                    token: 0,
                    result: Err(Errno(libc::EIO)),
                    eof: false,
                    data: Data::None,
                };
            }
            self.eng.wait(1, &mut self.done);
        }
    }

    /// Standard output's (device, inode) when it is a regular file, the
    /// case where an input may be the output.
    pub fn output_id(&self) -> Option<(u64, u64)> {
        (self.out_kind == Kind::Regular).then_some((self.out_dev, self.out_ino))
    }

    /// Copies one operand (`-` is standard input) to standard output.
    pub fn operand(&mut self, name: &[u8]) -> Result<(), Error> {
        let file_err = |kind| Error::File(FileError { name: name.to_vec(), kind });
        self.flush_raw()?;
        let stdin = name == b"-";
        let fd = if stdin {
            self.used_stdin = true;
            if libcw::stdfds::was_closed(STDIN) {
                // The runtime put /dev/null there; GNU cat finds it closed.
                return Err(file_err(FileErrorKind::Stat(Errno(libc::EBADF))));
            }
            STDIN
        } else {
            self.eng.openat(0, libc::AT_FDCWD, name, libc::O_RDONLY, 0);
            self.complete().fd().map_err(|e| file_err(FileErrorKind::Open(e)))?
        };
        self.copy_and_close(name, fd, !stdin)
    }

    /// An operand read ahead whole (see [`crate::ahead`]): its bytes, then
    /// the error that ended it, if any.
    pub fn whole(
        &mut self,
        name: &[u8],
        data: &[u8],
        err: Option<FileErrorKind>,
    ) -> Result<(), Error> {
        self.emit(data)?;
        match err {
            None => Ok(()),
            Some(kind) => Err(Error::File(FileError { name: name.to_vec(), kind })),
        }
    }

    /// An operand read ahead in part: `data`, then the rest from `fd`
    /// (positioned after it) as any operand is copied.
    pub fn partial(&mut self, name: &[u8], data: &[u8], fd: OwnedFd) -> Result<(), Error> {
        self.emit(data)?;
        self.flush_raw()?;
        self.copy_and_close(name, fd.into_raw_fd(), true)
    }

    /// Bytes read ahead, formatted or as they are, into the output buffer
    /// (written once it holds [`FLUSH_AT`]: one write for many small files).
    fn emit(&mut self, data: &[u8]) -> Result<(), Fatal> {
        match self.fmt.as_mut() {
            Some(f) => f.feed(data, &mut self.outbuf),
            None => self.outbuf.extend_from_slice(data),
        }
        if self.outbuf.len() >= FLUSH_AT {
            self.flush().map_err(Fatal::Write)?;
        }
        Ok(())
    }

    /// Writes bytes read ahead before an operand copied straight to the
    /// output (formatted output keeps collecting in order).
    fn flush_raw(&mut self) -> Result<(), Fatal> {
        if self.fmt.is_none() {
            self.flush().map_err(Fatal::Write)?;
        }
        Ok(())
    }

    /// Copies the open `fd`, then closes it when `close`.
    fn copy_and_close(&mut self, name: &[u8], fd: RawFd, close: bool) -> Result<(), Error> {
        let file_err = |kind| Error::File(FileError { name: name.to_vec(), kind });
        let result = self.copy_fd(fd);
        let closed = if close {
            self.eng.close(0, fd);
            self.complete().result
        } else {
            Ok(0)
        };
        match result {
            Ok(()) => closed.map(|_| ()).map_err(|e| file_err(FileErrorKind::Close(e))),
            Err(CopyError::File(kind)) => Err(file_err(kind)),
            Err(CopyError::Fatal(f)) => Err(Error::Fatal(f)),
        }
    }

    fn copy_fd(&mut self, fd: RawFd) -> Result<(), CopyError> {
        let mut st = kc::fstat(fd).map_err(|e| CopyError::File(FileErrorKind::Stat(e)))?;
        let kind = Kind::of(&st);
        if self.out_kind == Kind::Regular && st.st_dev == self.out_dev && st.st_ino == self.out_ino
        {
            // Output still buffered would already be in the file had it been
            // written as it was produced (GNU writes formatted output at
            // least once per file): write it, then look at the size again.
            if !self.outbuf.is_empty() {
                self.flush().map_err(|e| CopyError::Fatal(Fatal::Write(e)))?;
                st = kc::fstat(fd).map_err(|e| CopyError::File(FileErrorKind::Stat(e)))?;
            }
            // GNU's rule: refuse while unread bytes remain, since every byte
            // written would become another byte to read. A file read to its
            // end (or emptied by `>`) is harmless.
            let pos = kc::position(fd).map_or(-1, |p| p as i64);
            if pos < st.st_size {
                return Err(CopyError::File(FileErrorKind::InputIsOutput));
            }
        }
        if kind == Kind::Regular && st.st_size >= FADVISE_MIN {
            self.eng.fadvise(0, fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL);
            let _ = self.complete(); // a hint: failure changes nothing
        }
        let r = if self.fmt.is_some() {
            self.maybe_grow_pipe(kind, st.st_size);
            self.formatted(fd, kind == Kind::Regular)
        } else {
            self.raw(fd, kind, &st)
        };
        r.map_err(|s| match s {
            Stop::Input(e) => CopyError::File(FileErrorKind::Read(e)),
            Stop::Output(e) => CopyError::Fatal(Fatal::Write(e)),
        })
    }

    /// Grows the output pipe to 1 MiB once, when there is enough data to
    /// gain from it: a 64 KiB pipe forces a wake-up of the reader every
    /// 64 KiB, and on this VM that cost 2–8× in throughput (research §5b).
    fn maybe_grow_pipe(&mut self, input: Kind, size: i64) {
        if self.pipe_grown || self.out_kind != Kind::Fifo {
            return;
        }
        if input == Kind::Regular && size < GROW_PIPE_MIN {
            return;
        }
        self.pipe_grown = true;
        if kc::pipe_size(STDOUT).is_ok_and(|s| s < PIPE_SIZE) {
            // EPERM (per-user pipe limit) or EBUSY just leave the pipe as is.
            let _ = kc::set_pipe_size(STDOUT, PIPE_SIZE);
        }
    }

    /// Copies without formatting.
    fn raw(&mut self, fd: RawFd, kind: Kind, st: &Stat) -> Result<(), Stop> {
        // Regular files reporting size 0 are often generated on read
        // (/proc, /sys) and some refuse or mis-handle splice: read them.
        let file = kind == Kind::Regular && st.st_size > 0;
        let pipe = kind == Kind::Fifo;
        let fast = match (self.out_kind, file, pipe) {
            (Kind::Fifo, true, _) => {
                self.maybe_grow_pipe(kind, st.st_size);
                self.splice_via_pipe(fd, true)?
            }
            (Kind::Fifo, _, true) => {
                self.maybe_grow_pipe(kind, st.st_size);
                self.splice_to(fd, STDOUT)
            }
            (Kind::DevNull, true, _) => self.splice_via_pipe(fd, true)?,
            (Kind::DevNull | Kind::Regular | Kind::Socket, _, true) => {
                self.splice_via_pipe(fd, false)?
            }
            (Kind::Regular, true, _) => match self.kernel_copy(fd, true) {
                Fast::Done => Fast::Done,
                Fast::Fallback => self.kernel_copy(fd, false),
            },
            (Kind::Socket, true, _) => self.kernel_copy(fd, false),
            _ => Fast::Fallback,
        };
        match fast {
            Fast::Done => Ok(()),
            Fast::Fallback => self.read_write(fd),
        }
    }

    /// Splices the pipe `fd_in` straight into the pipe `fd_out` until end
    /// of input (pipe to pipe moves buffers; it is cheap under both locks).
    fn splice_to(&mut self, fd_in: RawFd, fd_out: RawFd) -> Fast {
        loop {
            self.eng.splice(0, Splice::new(fd_in, fd_out, SPLICE_CHUNK as u32));
            match self.complete().result {
                Ok(0) => return Fast::Done,
                Ok(_) => {}
                Err(_) => return Fast::Fallback,
            }
        }
    }

    /// Splices `fd_in` to stdout through a private pipe: the pages are
    /// referenced, never copied. Splice needs a pipe on one side, but even
    /// where the input or output is one, going through a private pipe is
    /// faster when the other side is shared with another process: the
    /// costly half (page lookups, or releasing/writing pages) then runs
    /// without holding the shared pipe's lock, so the process at the other
    /// end keeps working (measured, 1 GiB: `lcat f | lcat >/dev/null` 60 ->
    /// 28 ms, and 2x less system time for `lcat f | lcat > file`). `sized`:
    /// the input is a regular file with a non-zero size, not a pipe, so
    /// splice's 0 is checked by read (module docs).
    /// Fails only if bytes already taken from the input could not be
    /// delivered.
    fn splice_via_pipe(&mut self, fd_in: RawFd, sized: bool) -> Result<Fast, Stop> {
        if self.private_pipe.is_none() {
            match kc::pipe() {
                Ok((r, w)) => {
                    let _ = kc::set_pipe_size(w.as_raw_fd(), PIPE_SIZE);
                    self.private_pipe = Some((r, w));
                }
                Err(_) => return Ok(Fast::Fallback),
            }
        }
        let (r, w) = match &self.private_pipe {
            Some((r, w)) => (r.as_raw_fd(), w.as_raw_fd()),
            None => return Ok(Fast::Fallback),
        };
        loop {
            self.eng.splice(0, Splice::new(fd_in, w, SPLICE_CHUNK as u32));
            let mut n = match self.complete().result {
                // A sized input's 0 is confirmed by read (module docs).
                Ok(0) if sized => return Ok(Fast::Fallback),
                Ok(0) => return Ok(Fast::Done),
                Ok(n) => n,
                Err(_) => return Ok(Fast::Fallback),
            };
            while n > 0 {
                self.eng.splice(0, Splice::new(r, STDOUT, n as u32));
                match self.complete().result {
                    Ok(m) if m > 0 => n -= m,
                    _ => {
                        // Hand what is in the pipe to read/write; drop the
                        // pipe so a later operand doesn't find stale bytes.
                        let rescued = self.rescue_private_pipe(r, n);
                        self.private_pipe = None;
                        return rescued.map(|()| Fast::Fallback);
                    }
                }
            }
        }
    }

    /// Moves the `left` bytes the private pipe still holds to stdout with
    /// plain read/write; a failure there is a write error (those bytes
    /// were taken from the input and can't be delivered).
    fn rescue_private_pipe(&mut self, r: RawFd, mut left: u64) -> Result<(), Stop> {
        // A pipe read returns what is there without waiting for more, and
        // we only read while bytes are known to be there.
        while left > 0 {
            match self.read_chunk(r) {
                Ok(n) if n > 0 => left = left.saturating_sub(n as u64),
                Ok(_) => return Err(Stop::Output(Errno(libc::EIO))),
                Err(Stop::Input(e) | Stop::Output(e)) => return Err(Stop::Output(e)),
            }
            self.write_inbuf()?;
        }
        Ok(())
    }

    /// copy_file_range (`cfr`) or sendfile from a regular file to stdout.
    fn kernel_copy(&mut self, fd: RawFd, cfr: bool) -> Fast {
        loop {
            let r = if cfr {
                kc::copy_file_range(fd, STDOUT, KERNEL_COPY_CHUNK)
            } else {
                kc::sendfile(STDOUT, fd, KERNEL_COPY_CHUNK)
            };
            match r {
                // Not the end until read says so (module docs): read/write
                // goes on from here and meets the end, or the error.
                Ok(0) | Err(_) => return Fast::Fallback,
                Ok(_) => {}
            }
        }
    }

    /// Reads a chunk into `inbuf` (replacing its contents): [`FORMAT_CHUNK`]
    /// when formatting, else [`READ_SIZE`] (the read fills the buffer's
    /// capacity; a run formats all its operands or none).
    fn read_chunk(&mut self, fd: RawFd) -> Result<usize, Stop> {
        let size = if self.fmt.is_some() { FORMAT_CHUNK } else { READ_SIZE };
        let mut buf = std::mem::take(&mut self.inbuf);
        buf.clear();
        if buf.capacity() < size {
            buf.reserve_exact(size);
        }
        self.eng.read(0, fd, buf, None);
        let mut c = self.complete();
        self.inbuf = c.take_buf();
        c.result.map(|n| n as usize).map_err(Stop::Input)
    }

    /// Writes all of `inbuf`.
    fn write_inbuf(&mut self) -> Result<(), Stop> {
        let buf = std::mem::take(&mut self.inbuf);
        self.eng.write(0, STDOUT, buf, None);
        let mut c = self.complete();
        self.inbuf = c.take_buf();
        c.result.map(|_| ()).map_err(Stop::Output)
    }

    /// Plain read/write until end of input.
    fn read_write(&mut self, fd: RawFd) -> Result<(), Stop> {
        while self.read_chunk(fd)? > 0 {
            self.write_inbuf()?;
        }
        Ok(())
    }

    /// Read, format, write.
    fn formatted(&mut self, fd: RawFd, regular: bool) -> Result<(), Stop> {
        loop {
            // Before a read that may block (terminal, pipe), deliver what is
            // formatted so far: an interactive `cat -n` echoes each line.
            if !regular && !self.outbuf.is_empty() {
                self.flush().map_err(Stop::Output)?;
            }
            if self.read_chunk(fd)? == 0 {
                return Ok(());
            }
            if let Some(f) = self.fmt.as_mut() {
                f.feed(&self.inbuf, &mut self.outbuf);
            }
            if self.outbuf.len() >= FORMAT_CHUNK {
                self.flush().map_err(Stop::Output)?;
            }
        }
    }

    /// Writes pending formatted output.
    pub fn flush(&mut self) -> Result<(), Errno> {
        if self.outbuf.is_empty() {
            return Ok(());
        }
        let buf = std::mem::take(&mut self.outbuf);
        self.eng.write(0, STDOUT, buf, None);
        let mut c = self.complete();
        self.outbuf = c.take_buf();
        self.outbuf.clear();
        c.result.map(|_| ())
    }

    /// Ends the run: flushes, and closes standard input if it was read (as
    /// GNU does, so a closed stdin is reported).
    pub fn finish(&mut self) -> Result<(), FinishError> {
        if let Some(f) = self.fmt.as_mut() {
            f.finish(&mut self.outbuf);
        }
        self.flush().map_err(|e| FinishError::Fatal(Fatal::Write(e)))?;
        if self.used_stdin {
            self.used_stdin = false;
            if libcw::stdfds::was_closed(STDIN) {
                return Err(FinishError::CloseStdin(Errno(libc::EBADF)));
            }
            self.eng.close(0, STDIN);
            if let Err(e) = self.complete().result {
                return Err(FinishError::CloseStdin(e));
            }
        }
        Ok(())
    }
}

/// An operand's failure before it is given its name.
enum CopyError {
    File(FileErrorKind),
    Fatal(Fatal),
}

/// What [`Cat::finish`] can report.
#[derive(Debug)]
pub enum FinishError {
    Fatal(Fatal),
    /// `closing standard input: …`
    CloseStdin(Errno),
}

//! Standard descriptors that were closed when the program started.
//!
//! Run as `lsr >&-`, the first directory the tool opens would become
//! descriptor 1, and the listing would be "written" into it (or, for a
//! file opened read-write, really written). As gnulib's stdopen does, each
//! closed standard descriptor is occupied at start by `/dev/null` opened in
//! the direction that fails: reads from 0 and writes to 1 and 2 then fail
//! with EBADF, exactly as on the closed descriptor, and nothing the tool
//! opens later can land there. Which ones were closed is remembered, for
//! messages that GNU words differently in that case.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `1 << fd`: fd was closed at start; bit 7: [`guard`] has run.
static CLOSED: AtomicU8 = AtomicU8::new(0);
const DONE: u8 = 0x80;

/// Occupies closed descriptors 0, 1 and 2 (see the module docs). Call
/// first thing, before anything opens a file (from `.init_array`); later
/// calls do nothing.
pub fn guard() {
    if CLOSED.load(Ordering::Relaxed) & DONE != 0 {
        return;
    }
    let mut closed = DONE;
    // One poll tells which are closed (POLLNVAL), as std's own start-up
    // check does, instead of a fcntl per descriptor.
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    // SAFETY: fds is a valid array of 3 pollfd; a zero timeout never blocks.
    let r = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    if r < 0 {
        CLOSED.store(closed, Ordering::Relaxed);
        return;
    }
    for p in fds {
        if p.revents & libc::POLLNVAL == 0 {
            continue;
        }
        let fd = p.fd;
        closed |= 1 << fd;
        // Write-only for stdin (reads fail), read-only for the outputs
        // (writes fail), both with EBADF.
        let flags = if fd == 0 { libc::O_WRONLY } else { libc::O_RDONLY };
        // SAFETY: the path is a NUL-terminated literal. Lower descriptors
        // are open (or were just occupied), so open returns `fd` itself; it
        // is deliberately left without O_CLOEXEC so children inherit the
        // same situation, as they would have the closed descriptor.
        let got = unsafe { libc::open(c"/dev/null".as_ptr(), flags) };
        if got >= 0 && got != fd {
            // SAFETY: closing the descriptor just opened.
            unsafe { libc::close(got) };
        }
    }
    CLOSED.store(closed, Ordering::Relaxed);
}

/// Whether descriptor `fd` (0, 1 or 2) was closed when [`guard`] ran.
pub fn was_closed(fd: i32) -> bool {
    (0..3).contains(&fd) && CLOSED.load(Ordering::Relaxed) & (1 << fd) != 0
}

/// Points descriptor `fd` at `/dev/null` (write-only), returning a copy
/// of what it was (close-on-exec), or `None` when that fails. For the
/// ranks of an MPI job other than rank 0: they must not write to the
/// job's stdout or stderr (rank 0 prints everything), yet keep a way to
/// report a fatal error of their own.
pub fn mute(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) on a descriptor number only creates a
    // new descriptor or fails; no memory is involved.
    let saved = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if saved < 0 {
        return None;
    }
    // SAFETY: `saved` was just created by this process and is owned by
    // nothing else.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    // SAFETY: the path is a NUL-terminated literal.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if null < 0 {
        return None;
    }
    // SAFETY: both are open descriptors of this process; dup2 replaces
    // `fd` atomically (no window where it is closed).
    let r = unsafe { libc::dup2(null, fd) };
    // SAFETY: closing the descriptor opened above, which nothing else uses.
    unsafe { libc::close(null) };
    (r >= 0).then_some(saved)
}

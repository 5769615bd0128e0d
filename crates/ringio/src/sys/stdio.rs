//! Which standard descriptors were closed when the process started.
//!
//! Rust's runtime opens /dev/null on any of fds 0–2 that is closed before
//! `main` runs, so `lcat f >&-` would "succeed" into /dev/null where GNU
//! tools report `standard output: Bad file descriptor`. [`record`] runs from
//! `.init_array` (see `cli::stdio_hook!`), before the runtime does that, and
//! remembers the truth.

use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `1 << fd` set: fd was closed at start. Bit 7: recorded.
static CLOSED: AtomicU8 = AtomicU8::new(0);

/// Records which of fds 0, 1, 2 are closed; meant to run from `.init_array`.
pub extern "C" fn record() {
    let mut bits = 0x80u8;
    for fd in 0..3 {
        // SAFETY: F_GETFD only queries the descriptor's flags.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            bits |= 1 << fd;
        }
    }
    CLOSED.store(bits, Ordering::Relaxed);
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the process
/// started; false if nothing was recorded.
pub fn closed_at_start(fd: i32) -> bool {
    (0..3).contains(&fd) && CLOSED.load(Ordering::Relaxed) & (1 << fd) != 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn record_sees_open_descriptors() {
        super::record();
        // The test harness runs with all three open.
        assert!(!super::closed_at_start(0) || !super::closed_at_start(1));
        assert!(!super::closed_at_start(5));
    }
}

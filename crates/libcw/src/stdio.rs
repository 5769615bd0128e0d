//! Which standard descriptors were closed when the process started.
//!
//! Rust's runtime opens /dev/null on any of fds 0–2 that is closed before
//! `main` runs, so `lcat f >&-` would "succeed" into /dev/null where GNU
//! tools report `standard output: Bad file descriptor`. [`record`] runs from
//! `.init_array` (see `cli::stdio_hook!`), before the runtime does that, and
//! remembers the truth.

/// Records which of fds 0, 1, 2 are closed; meant to run from `.init_array`.
/// The work is [`super::stdfds::guard`]'s (idempotent, so it doesn't matter
/// whether this or `super::at_start` runs first): it also occupies the
/// closed ones, so nothing the tool opens later lands on them.
pub extern "C" fn record() {
    super::stdfds::guard();
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed when the process
/// started; false if nothing was recorded.
pub fn closed_at_start(fd: i32) -> bool {
    super::stdfds::was_closed(fd)
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

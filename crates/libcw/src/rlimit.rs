//! Resource limits the tools adjust for themselves.

/// Raises the soft limit on open descriptors to the hard limit and returns
/// the new soft limit (the old one if raising failed).
///
/// The walker keeps one descriptor per directory level it is inside (it
/// opens children relative to their parent), so a tree deeper than the soft
/// limit — often 1024 — would fail with EMFILE where GNU's fts copes; the
/// hard limit is usually far higher.
pub fn raise_nofile() -> u64 {
    // SAFETY: rlimit is a plain C struct of integers; all-zero is valid.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: rl is a valid, writable rlimit for getrlimit to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 {
        return 0;
    }
    if rl.rlim_cur < rl.rlim_max {
        let want = libc::rlimit { rlim_cur: rl.rlim_max, rlim_max: rl.rlim_max };
        // SAFETY: want is a valid rlimit read by setrlimit.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &want) } == 0 {
            return want.rlim_cur as u64;
        }
    }
    rl.rlim_cur as u64
}

/// The soft limit on open descriptors (`ulimit -Sn`); 1024 if unknown.
pub fn nofile_soft() -> u64 {
    // SAFETY: rlimit is a plain C struct of integers; all-zero is valid.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: rl is a valid, writable rlimit for getrlimit to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 {
        return 1024;
    }
    rl.rlim_cur as u64
}

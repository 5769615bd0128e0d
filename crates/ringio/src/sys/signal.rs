//! Signals the tools handle themselves: a SIGINT flag that lets a long
//! walk stop cleanly (find), and ending the process by a signal's default
//! action once the caller has cleaned up (SIGINT, SIGPIPE).

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Installs a SIGINT handler that only sets a flag ([`interrupted`]), so a
/// long walk can stop cleanly: output flushed, children waited for. No
/// SA_RESTART, but every wrapper retries EINTR anyway.
pub fn catch_sigint() {
    // SAFETY: sa is a plain C struct; the handler only stores to an atomic,
    // which is async-signal-safe.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
    }
}

/// Whether SIGINT arrived since [`catch_sigint`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Ends the process as signal `sig` would (status 128 + sig in the shell,
/// and a parent shell sees the child died of the signal): its default
/// action restored, unblocked and raised; exits with 128 + sig if it still
/// returns.
pub fn die_of(sig: libc::c_int) -> ! {
    // SAFETY: resetting and raising a signal, then exiting if it was
    // somehow blocked; no memory is involved.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
        libc::_exit(128 + sig)
    }
}

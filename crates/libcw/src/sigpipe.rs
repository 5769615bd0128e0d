//! SIGPIPE handling that matches GNU tools.
//!
//! Rust's runtime ignores SIGPIPE before `main`, which would turn
//! `lsr | head -1` into a "Broken pipe" error. GNU tools die silently of the
//! signal — unless their parent ignored it, in which case they report the
//! write error. To tell the two apart, the disposition is recorded by an
//! `.init_array` constructor (see `cli::main!`), which runs before the
//! Rust runtime changes it.

use std::sync::atomic::{AtomicU8, Ordering};

/// 0 = not recorded, 1 = default at start, 2 = ignored at start.
static AT_START: AtomicU8 = AtomicU8::new(0);

/// Records the disposition; meant to run from `.init_array`.
pub extern "C" fn record() {
    // SAFETY: querying the current action with a null new-action pointer
    // and a valid out-pointer.
    let ignored = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    };
    AT_START.store(if ignored { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the parent had SIGPIPE ignored (unknown counts as default).
pub fn ignored_at_start() -> bool {
    AT_START.load(Ordering::Relaxed) == 2
}

/// Puts SIGPIPE back to the default action unless the parent ignored it.
pub fn restore() {
    if !ignored_at_start() {
        // SAFETY: setting a standard disposition for one signal.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
}

/// Ends the process the way a GNU tool ends on a closed pipe: by SIGPIPE.
pub fn die() -> ! {
    super::signal::die_of(libc::SIGPIPE)
}

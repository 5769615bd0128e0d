//! A full-screen program's hold on its terminal (ldu --browse): raw mode,
//! and the terminal given back exactly as it was on every way out — a
//! normal exit, SIGINT/SIGTERM/SIGHUP/SIGQUIT, a panic, and around a stop
//! (SIGTSTP, with the screen set up again on SIGCONT).
//!
//! The restore runs inside signal handlers, so it is only async-signal-safe
//! calls: `write` of a fixed byte string (leave the alternate screen, show
//! the cursor) and `tcsetattr` with the settings saved on entry.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::signal::install;
use crate::Errno;

/// The terminal's settings before raw mode.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// The terminal's descriptor (-1: none held).
static FD: AtomicI32 = AtomicI32::new(-1);
/// What is written to leave the full screen (set once by `hold`).
static LEAVE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LEAVE_LEN: AtomicUsize = AtomicUsize::new(0);
/// The program was stopped and continued: the screen must be set up again.
static RESUMED: AtomicBool = AtomicBool::new(false);

/// Signals that end the program: the terminal is restored, then the
/// signal's default action runs.
const ENDING: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Gives the terminal back: the leave sequence, then the saved settings.
/// Async-signal-safe.
fn give_back() {
    let fd = FD.load(Ordering::Relaxed);
    if fd < 0 {
        return;
    }
    let p = LEAVE.load(Ordering::Relaxed);
    let n = LEAVE_LEN.load(Ordering::Relaxed);
    // SAFETY: `p` is null or points at a 'static byte string of length n
    // (set once in `hold`); write and tcsetattr are async-signal-safe and
    // read only that string and the saved termios.
    unsafe {
        if !p.is_null() {
            libc::write(fd, p.cast(), n);
        }
        if let Some(t) = SAVED.get() {
            libc::tcsetattr(fd, libc::TCSADRAIN, t);
        }
    }
}

extern "C" fn on_ending(sig: libc::c_int) {
    give_back();
    // SAFETY: resetting and re-raising the signal, which is blocked while
    // this handler runs and so is delivered, fatally, as it returns.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn on_stop(_: libc::c_int) {
    give_back();
    // SAFETY: the default action of SIGTSTP stops the process; it is
    // unblocked for that, and the handler is put back once continued.
    unsafe {
        libc::signal(libc::SIGTSTP, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTSTP);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(libc::SIGTSTP);
        // Continued.
        install(libc::SIGTSTP, on_stop);
    }
    RESUMED.store(true, Ordering::Relaxed);
}

extern "C" fn on_cont(_: libc::c_int) {
    RESUMED.store(true, Ordering::Relaxed);
}

/// Takes hold of terminal `fd`: saves its settings (the first time), puts
/// it in raw mode, and makes sure `leave` is written and the settings
/// restored on any ending signal, on a panic, and before a stop.
pub fn hold(fd: RawFd, leave: &'static [u8]) -> Result<(), Errno> {
    // SAFETY: termios is a plain C struct that tcgetattr fills.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: t is a valid, writable termios.
    if unsafe { libc::tcgetattr(fd, &mut t) } != 0 {
        return Err(Errno::last());
    }
    let saved = *SAVED.get_or_init(|| t);
    LEAVE.store(leave.as_ptr().cast_mut(), Ordering::Relaxed);
    LEAVE_LEN.store(leave.len(), Ordering::Relaxed);
    FD.store(fd, Ordering::Relaxed);
    for sig in ENDING {
        install(sig, on_ending);
    }
    install(libc::SIGTSTP, on_stop);
    install(libc::SIGCONT, on_cont);
    static HOOKED: std::sync::Once = std::sync::Once::new();
    HOOKED.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            give_back();
            prev(info);
        }));
    });
    raw(fd, saved)
}

fn raw(fd: RawFd, saved: libc::termios) -> Result<(), Errno> {
    let mut r = saved;
    // SAFETY: r is a valid termios; cfmakeraw only edits it.
    unsafe { libc::cfmakeraw(&mut r) };
    // SAFETY: r is a valid termios for tcsetattr to read.
    if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, &r) } != 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// Raw mode again (after a stop, when [`resumed`] said so).
pub fn again() -> Result<(), Errno> {
    match (FD.load(Ordering::Relaxed), SAVED.get()) {
        (fd, Some(&t)) if fd >= 0 => raw(fd, t),
        _ => Ok(()),
    }
}

/// Whether the program was continued after a stop since last asked.
pub fn resumed() -> bool {
    RESUMED.swap(false, Ordering::Relaxed)
}

/// Gives the terminal back (the leave sequence, the saved settings) and
/// lets go of it: signals then keep their handlers but restore nothing.
pub fn release() {
    give_back();
    FD.store(-1, Ordering::Relaxed);
}

/// Stops the program as Ctrl-Z would (in raw mode the key is only a
/// byte): the terminal is given back first, and [`resumed`] says when it
/// runs again.
pub fn suspend() {
    // SAFETY: raising a signal whose handler (`on_stop`) is installed.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
}

/// Ends the program by `sig` after giving the terminal back (Ctrl-C in
/// raw mode, where the key is only a byte).
pub fn die_of(sig: libc::c_int) -> ! {
    release();
    crate::signal::die_of(sig)
}

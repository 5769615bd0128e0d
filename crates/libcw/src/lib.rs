//! libcw: safe wrappers of the C library's services that the tools use and
//! the I/O engine does not — user and group names, local time and `TZ`,
//! the locale (collation, wide characters, `strftime`, message catalogs),
//! `fnmatch`, POSIX regex, the allocator's out-of-memory exit, signals,
//! and the standard descriptors as they were before Rust's runtime ran.
//!
//! With `ringio::sys` (the engine's syscall layer), this is the only place
//! the tools' `unsafe` lives: cli, walk, ls, find, du and cat say
//! `#![forbid(unsafe_code)]`. (The binaries can't: `cli::main!`'s C `main` and its
//! `.init_array` hooks expand `no_mangle`/`link_section` items in them.
//! xtask, a development tool, keeps its own in `slowfs/sys.rs`.) Each
//! `unsafe` block says why it is sound in a `// SAFETY:` comment. Wrappers
//! that make a syscall retry `EINTR` themselves, as `ringio::sys`'s do.
//!
//! The dependency runs one way: libcw uses ringio's `Errno` and lock helper;
//! the engine needs nothing from here.

pub mod access;
mod errno;
pub mod fnmatch;
#[cfg(feature = "inotify")]
pub mod inotify;
pub mod locale;
pub mod mem;
#[cfg(feature = "mpi")]
pub mod mpisend;
pub mod proc;
pub mod regex;
pub mod rlimit;
#[cfg(feature = "seccomp")]
pub mod seccomp;
pub mod signal;
pub mod sigpipe;
pub mod stdfds;
pub mod sync;
pub mod term;
pub mod time;
pub mod users;

use std::ffi::CStr;
use std::os::fd::RawFd;

pub use errno::Errno;

/// Runs a syscall wrapper until it returns something other than EINTR;
/// `-1` becomes the thread's errno.
fn retry<F: FnMut() -> libc::c_long>(mut f: F) -> Result<usize, Errno> {
    loop {
        let r = f();
        if r >= 0 {
            return Ok(r as usize);
        }
        match Errno::last() {
            Errno::EINTR => continue,
            e => return Err(e),
        }
    }
}

/// What every tool does before Rust's runtime starts (run from
/// `.init_array`, see `cli::main!`): record SIGPIPE's inherited
/// disposition and occupy closed standard descriptors ([`stdfds::guard`]).
pub extern "C" fn at_start() {
    sigpipe::record();
    stdfds::guard();
}

/// `unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0)`: never follows a
/// symlink in `name`'s last component, and `dirfd` pins the parent.
pub fn unlinkat(dirfd: RawFd, name: &CStr, dir: bool) -> Result<(), Errno> {
    let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::unlinkat(dirfd, name.as_ptr(), flags) as _ }).map(|_| ())
}

/// Whether `fd` is a terminal (never after [`forget_terminals`]).
pub fn isatty(fd: RawFd) -> bool {
    if NO_TERMINALS.load(std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(fd) == 1 }
}

static NO_TERMINALS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on [`isatty`] says no: for a rank of an MPI job, whose stdout
/// and stderr Open MPI's mpirun makes pseudo-terminals whatever its own
/// output is (a file, a pipe), so a terminal there means nothing about
/// where the bytes end up; answering as for a file keeps the output
/// what a redirected single-process run prints (no `?` for a newline in
/// a name, no du progress line).
pub fn forget_terminals() {
    NO_TERMINALS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The terminal width of `fd` from TIOCGWINSZ, if it is a terminal.
pub fn terminal_width(fd: RawFd) -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes one winsize struct into ws.
    unsafe {
        let mut ws: libc::winsize = std::mem::zeroed();
        if libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) == 0 && ws.ws_col > 0 {
            Some(ws.ws_col as usize)
        } else {
            None
        }
    }
}

/// The effective user ID (tests skip permission cases as root).
pub fn euid() -> u32 {
    // SAFETY: geteuid takes no arguments and cannot fail.
    unsafe { libc::geteuid() }
}

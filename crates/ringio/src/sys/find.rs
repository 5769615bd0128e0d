//! Wrappers `lfind` needs beyond the engine's operations: deleting relative
//! to a directory descriptor, access checks, local time, user and group
//! lookups through the name service, a Ctrl-C flag, and running a child
//! process inside a directory given by descriptor (-execdir).

use std::ffi::CStr;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

use super::retry;
use crate::errno::Errno;

/// `unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0)`: never follows a
/// symlink in `name`'s last component, and `dirfd` pins the parent.
pub fn unlinkat(dirfd: RawFd, name: &CStr, dir: bool) -> Result<(), Errno> {
    let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::unlinkat(dirfd, name.as_ptr(), flags) as _ }).map(|_| ())
}

/// `faccessat(dirfd, name, mode, 0)`: whether the real user may access the
/// file (following symlinks, as access(2) does).
pub fn access(dirfd: RawFd, name: &CStr, mode: i32) -> Result<(), Errno> {
    // SAFETY: name is NUL-terminated for the duration of the call.
    retry(|| unsafe { libc::faccessat(dirfd, name.as_ptr(), mode, 0) as _ }).map(|_| ())
}

/// Broken-down local time: the fields find's `-printf` and `-ls` print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    /// 0..=11
    pub mon: u32,
    /// 1..=31
    pub mday: u32,
    pub hour: u32,
    pub min: u32,
    pub sec: u32,
    /// 0 = Sunday
    pub wday: u32,
    /// 0..=365
    pub yday: u32,
    pub isdst: i32,
    /// Seconds east of UTC.
    pub gmtoff: i64,
    /// Zone abbreviation ("UTC").
    pub zone: Vec<u8>,
}

/// Reads `TZ` / `/etc/localtime` once; call before threads use [`localtime`].
pub fn tzset() {
    extern "C" {
        fn tzset();
    }
    // SAFETY: tzset takes no arguments and initialises libc's zone state.
    unsafe { tzset() }
}

/// `localtime_r(secs)`, or `None` outside the C library's range.
pub fn localtime(secs: i64) -> Option<Tm> {
    let t: libc::time_t = secs;
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; the reentrant variant
    // writes only into tm.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    let zone = if tm.tm_zone.is_null() {
        Vec::new()
    } else {
        // SAFETY: tm_zone points at a NUL-terminated string in libc's zone
        // tables, which stay alive (tzset is not called again).
        unsafe { CStr::from_ptr(tm.tm_zone) }.to_bytes().to_vec()
    };
    Some(Tm {
        year: tm.tm_year as i64 + 1900,
        mon: tm.tm_mon as u32,
        mday: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        min: tm.tm_min as u32,
        sec: tm.tm_sec as u32,
        wday: tm.tm_wday as u32,
        yday: tm.tm_yday as u32,
        isdst: tm.tm_isdst,
        gmtoff: tm.tm_gmtoff,
        zone,
    })
}

/// `mktime`: seconds since the epoch of a local date and time (for
/// -daystart and -newermt dates).
pub fn mktime(year: i64, mon: u32, mday: u32, hour: u32, min: u32, sec: u32) -> Option<i64> {
    // SAFETY: tm is a plain C struct for which all-zero bytes are valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = (year - 1900) as i32;
    tm.tm_mon = mon as i32;
    tm.tm_mday = mday as i32;
    tm.tm_hour = hour as i32;
    tm.tm_min = min as i32;
    tm.tm_sec = sec as i32;
    tm.tm_isdst = -1;
    // SAFETY: tm is a valid, exclusive struct tm.
    let t = unsafe { libc::mktime(&mut tm) };
    (t != -1).then_some(t)
}

/// The current time as (seconds, nanoseconds) since the epoch.
pub fn now() -> (i64, u32) {
    // SAFETY: ts is a plain C struct for which all-zero bytes are valid.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime fills the valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec, ts.tv_nsec as u32)
}

/// The name service's answer for one user or group.
pub struct Account {
    pub name: Vec<u8>,
    pub id: u32,
}

fn grow(buf: &mut Vec<u8>) -> bool {
    if buf.len() >= 1 << 20 {
        return false;
    }
    let n = buf.len() * 2;
    buf.resize(n, 0);
    true
}

/// `getpwuid_r` / `getpwnam_r`.
pub fn user(uid: Option<u32>, name: Option<&CStr>) -> Option<Account> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: passwd is a plain C struct; all-zero is a valid value.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut res: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: pw, buf (with its true length) and res are valid for the
        // call; name is NUL-terminated.
        let r = unsafe {
            match (uid, name) {
                (Some(u), _) => {
                    libc::getpwuid_r(u, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut res)
                }
                (None, Some(n)) => libc::getpwnam_r(
                    n.as_ptr(),
                    &mut pw,
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    &mut res,
                ),
                (None, None) => return None,
            }
        };
        if r == libc::ERANGE && grow(&mut buf) {
            continue;
        }
        if r != 0 || res.is_null() || pw.pw_name.is_null() {
            return None;
        }
        // SAFETY: pw_name points into buf, NUL-terminated, still alive.
        let name = unsafe { CStr::from_ptr(pw.pw_name) }.to_bytes().to_vec();
        return Some(Account { name, id: pw.pw_uid });
    }
}

/// `getgrgid_r` / `getgrnam_r`.
pub fn group(gid: Option<u32>, name: Option<&CStr>) -> Option<Account> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: group is a plain C struct; all-zero is a valid value.
        let mut gr: libc::group = unsafe { std::mem::zeroed() };
        let mut res: *mut libc::group = std::ptr::null_mut();
        // SAFETY: gr, buf (with its true length) and res are valid for the
        // call; name is NUL-terminated.
        let r = unsafe {
            match (gid, name) {
                (Some(g), _) => {
                    libc::getgrgid_r(g, &mut gr, buf.as_mut_ptr().cast(), buf.len(), &mut res)
                }
                (None, Some(n)) => libc::getgrnam_r(
                    n.as_ptr(),
                    &mut gr,
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    &mut res,
                ),
                (None, None) => return None,
            }
        };
        if r == libc::ERANGE && grow(&mut buf) {
            continue;
        }
        if r != 0 || res.is_null() || gr.gr_name.is_null() {
            return None;
        }
        // SAFETY: gr_name points into buf, NUL-terminated, still alive.
        let name = unsafe { CStr::from_ptr(gr.gr_name) }.to_bytes().to_vec();
        return Some(Account { name, id: gr.gr_gid });
    }
}

/// The terminating signal that arrived (0: none).
static SIGNALLED: AtomicI32 = AtomicI32::new(0);
/// The command running now (-exec, -ok: one at a time), 0 when none,
/// [`SPAWNING`] while it is being started.
static CHILD: AtomicI32 = AtomicI32::new(0);
const SPAWNING: i32 = -1;

/// The signals that end lfind early.
const ENDING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work: atomics, kill, signal, raise.
    SIGNALLED.store(sig, Ordering::Relaxed);
    let pid = CHILD.load(Ordering::Relaxed);
    if pid == SPAWNING {
        // `spawn_child` passes it on once the pid is known.
        return;
    }
    // SAFETY: plain signal syscalls with no memory involved.
    unsafe {
        if pid > 0 {
            // A command is running: pass the signal on (so it doesn't
            // outlive us) and end once it has ended (see `wait_child`).
            libc::kill(pid, sig);
        } else {
            // Nothing to wait for: end now, as the default action would
            // (GNU find has no handler). The signal is blocked while this
            // handler runs, so it is delivered, fatally, as it returns.
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Handles SIGINT, SIGTERM and SIGHUP (each unless the parent had it
/// ignored): with no command running, the process ends at once, by the
/// signal, exactly as without a handler; while an -exec/-ok command runs,
/// the signal is passed on to it and the process ends by the same signal
/// as soon as the command has ended, so no child outlives lfind.
pub fn catch_signals() {
    for sig in ENDING {
        // SAFETY: sa and old are plain C structs; the handler only touches
        // atomics and async-signal-safe syscalls.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Whether an ending signal arrived (while a command was running).
pub fn interrupted() -> bool {
    SIGNALLED.load(Ordering::Relaxed) != 0
}

/// Spawns `cmd` as the running command. An ending signal that arrives
/// while it is being started is passed on as soon as its pid is known (the
/// signal mask is left alone: the child inherits it).
pub fn spawn_child(cmd: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    CHILD.store(SPAWNING, Ordering::SeqCst);
    let r = cmd.spawn();
    match &r {
        Ok(c) => {
            CHILD.store(c.id() as i32, Ordering::SeqCst);
            let sig = SIGNALLED.load(Ordering::SeqCst);
            if sig != 0 {
                // SAFETY: signalling our own, unreaped child.
                unsafe { libc::kill(c.id() as i32, sig) };
            }
        }
        Err(_) => {
            CHILD.store(0, Ordering::SeqCst);
            if interrupted() {
                die_of_signal();
            }
        }
    }
    r
}

/// Waits for the running command. The pid stays recorded until the child
/// has ended but is not yet reaped (so a signal can never be passed on to
/// an unrelated process that reused the pid); if an ending signal arrived
/// meanwhile, the process then ends by it.
pub fn wait_child(child: &mut std::process::Child) -> std::io::Result<std::process::ExitStatus> {
    let pid = child.id();
    loop {
        // SAFETY: info is a plain C struct waitid fills; WNOWAIT leaves the
        // child to be reaped by `child.wait()` below.
        let r = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT)
        };
        if r == 0 || Errno::last() != Errno::EINTR {
            break;
        }
    }
    CHILD.store(0, Ordering::Relaxed);
    let st = child.wait();
    if interrupted() {
        die_of_signal();
    }
    st
}

/// Ends the process by the signal that interrupted it (SIGINT if none
/// did): status 128+N in the shell, and a parent sees the signal.
pub fn die_of_signal() -> ! {
    let sig = match SIGNALLED.load(Ordering::Relaxed) {
        0 => libc::SIGINT,
        s => s,
    };
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

/// Makes `cmd`'s child start in the directory open as `dirfd` (fchdir
/// between fork and exec), so -execdir runs where the walker really is even
/// if a path component was swapped for a symlink meanwhile. `dirfd` must stay
/// open until the command is spawned.
pub fn command_in_dir(cmd: &mut std::process::Command, dirfd: RawFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only
    // calls fchdir, which is async-signal-safe and touches no memory.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fchdir(dirfd) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// The process's file mode creation mask (read by setting and restoring it).
pub fn umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is restored at once.
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m as u32
    }
}

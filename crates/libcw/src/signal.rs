//! Signals the tools handle themselves: lfind's SIGINT/SIGTERM/SIGHUP,
//! passed on to a running -exec command so it doesn't outlive lfind, and
//! ending the process by a signal's default action (SIGINT, SIGPIPE).

use std::sync::atomic::{AtomicI32, Ordering};

use crate::Errno;

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
/// signal, exactly as without a handler (so a write blocked on a full pipe
/// can't restart forever); while an -exec/-ok command runs, the signal is
/// passed on to it and the process ends by the same signal as soon as the
/// command has ended, so no child outlives lfind.
pub fn catch_signals() {
    for sig in ENDING {
        install(sig, on_signal);
    }
}

extern "C" fn on_signal_noted(sig: libc::c_int) {
    SIGNALLED.store(sig, Ordering::Relaxed);
}

/// Handles SIGINT, SIGTERM and SIGHUP by only noting them (see
/// [`interrupted`]): for a rank of an MPI job, which mpirun ends with
/// SIGTERM when another rank died and which must then say the output is
/// incomplete and abort the job itself (a second later mpirun sends
/// SIGKILL anyway). Replaces [`catch_signals`]' handler.
pub fn note_signals() {
    for sig in ENDING {
        install(sig, on_signal_noted);
    }
}

/// Installs `f` for `sig` (restarting interrupted calls) unless the signal
/// was ignored when the program started: a shell's background job, or
/// `nohup`, keeps ignoring what it was told to. `f` must make only
/// async-signal-safe calls.
pub(crate) fn install(sig: libc::c_int, f: extern "C" fn(libc::c_int)) {
    // SAFETY: sa and old are plain C structs; the handlers only make
    // async-signal-safe calls and touch atomics.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction == libc::SIG_IGN
        {
            return;
        }
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = f as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = libc::SA_RESTART;
        libc::sigaction(sig, &sa, std::ptr::null_mut());
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
/// did).
pub fn die_of_signal() -> ! {
    match SIGNALLED.load(Ordering::Relaxed) {
        0 => die_of(libc::SIGINT),
        s => die_of(s),
    }
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

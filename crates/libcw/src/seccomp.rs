//! Refusing io_uring to a child process, for tests of the engine's
//! fallback: a seccomp filter that makes chosen io_uring syscalls fail with
//! a chosen errno, as container runtimes do (Docker's default profile:
//! EPERM; older kernels or filters: ENOSYS).

use std::process::Command;

/// io_uring_setup, io_uring_enter, io_uring_register (the same numbers on
/// every architecture since they were added after the unification).
pub const IO_URING_SETUP: u32 = 425;
pub const IO_URING_ENTER: u32 = 426;
pub const IO_URING_REGISTER: u32 = 427;

const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
const AUDIT_ARCH_AARCH64: u32 = 0xc000_00b7;

/// The BPF program: syscalls in `nrs` return `errno`, the rest run.
fn program(nrs: &[u32], errno: i32) -> Option<Vec<libc::sock_filter>> {
    let arch = if cfg!(target_arch = "x86_64") {
        AUDIT_ARCH_X86_64
    } else if cfg!(target_arch = "aarch64") {
        AUDIT_ARCH_AARCH64
    } else {
        return None;
    };
    let n = u8::try_from(nrs.len()).ok().filter(|&n| n < 250)?;
    let stmt = |code: u16, k: u32| libc::sock_filter { code, jt: 0, jf: 0, k };
    let jeq = |k: u32, jt: u8, jf: u8| libc::sock_filter { code: 0x15, jt, jf, k };
    let mut f = vec![
        stmt(0x20, 4), // ld [arch]
        jeq(arch, 1, 0),
        stmt(0x06, SECCOMP_RET_ALLOW),
        stmt(0x20, 0), // ld [nr]
    ];
    for (i, &nr) in nrs.iter().enumerate() {
        // Jump over the remaining tests and the ALLOW to the ERRNO return.
        let to_errno = n - i as u8;
        f.push(jeq(nr, to_errno, 0));
    }
    f.push(stmt(0x06, SECCOMP_RET_ALLOW));
    f.push(stmt(0x06, SECCOMP_RET_ERRNO | (errno as u32 & 0xffff)));
    Some(f)
}

/// Makes `cmd`'s child run with syscalls `nrs` failing with `errno`
/// (installed between fork and exec, with no_new_privs). Returns false,
/// leaving `cmd` unchanged, on an architecture this doesn't know.
pub fn deny_in_child(cmd: &mut Command, nrs: &[u32], errno: i32) -> bool {
    use std::os::unix::process::CommandExt;
    let Some(filter) = program(nrs, errno) else { return false };
    // SAFETY: the closure runs in the forked child before exec; it only
    // calls prctl (async-signal-safe) with a filter program built before
    // the fork, which it borrows without allocating.
    unsafe {
        cmd.pre_exec(move || {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, &prog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    true
}

//! io_uring unavailable in every way a user meets it: output identical to
//! the normal run, nothing on stderr, on every tool, whether the backend is
//! chosen (default) or forced to `uring`.

use std::sync::Mutex;

use ringio::sys::seccomp::{IO_URING_ENTER, IO_URING_REGISTER, IO_URING_SETUP};

use super::{every_tool_args, lines_sorted, root, skip, small_tree, Case, Prog, TOOLS};
use crate::util;

/// Runs every tool on the small tree normally, then under `restrict`, with
/// the default backend and with `uring` forced: same stdout, empty stderr,
/// status 0.
fn same_as_normal(what: &str, restrict: &dyn Fn(Case) -> Case) {
    assert_refused(what, restrict);
    let t = small_tree();
    for (tool, _) in TOOLS {
        let case = Case::new(tool, every_tool_args(tool)).cwd(t.path());
        let normal = case.run(Prog::Ours(Some("sync")));
        assert_eq!(normal.code(), Some(0), "{tool} normal run: {}", normal.err());
        let restricted = restrict(case);
        for backend in [None, Some("uring"), Some("threads")] {
            let got = restricted.run(Prog::Ours(backend));
            let ctx = format!(
                "{what}: {tool} [{backend:?}] {:?}\nstdout:\n{}\nstderr:\n{}",
                restricted.printable_args(),
                got.out(),
                got.err()
            );
            assert_eq!(got.code(), Some(0), "{ctx}");
            assert!(got.stderr.is_empty(), "{ctx}");
            if tool == "lfind" || tool == "ldu" {
                assert_eq!(lines_sorted(&got.stdout), lines_sorted(&normal.stdout), "{ctx}");
            } else {
                assert_eq!(got.stdout, normal.stdout, "{ctx}");
            }
        }
    }
}

/// Proves the condition is really in place: `lsr --version` names the
/// io_uring setup it probed, or says it is unavailable.
fn assert_refused(what: &str, restrict: &dyn Fn(Case) -> Case) {
    let v = restrict(Case::new("lsr", ["--version"])).run(Prog::Ours(None));
    assert!(
        v.out().contains("io_uring unavailable"),
        "{what}: the probe still works:\n{}",
        v.out()
    );
}

fn seccomp_usable() -> bool {
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        skip("seccomp cases", "no filter for this architecture");
        return false;
    }
    true
}

/// Docker's default profile: EPERM for all three io_uring syscalls.
#[test]
fn seccomp_eperm_all() {
    if !seccomp_usable() {
        return;
    }
    same_as_normal("seccomp EPERM", &|c| {
        c.seccomp(&[IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER], libc::EPERM)
    });
}

/// A filter (or a kernel) without io_uring at all: ENOSYS.
#[test]
fn seccomp_enosys_all() {
    if !seccomp_usable() {
        return;
    }
    same_as_normal("seccomp ENOSYS", &|c| {
        c.seccomp(&[IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER], libc::ENOSYS)
    });
}

/// Setup allowed, io_uring_register alone refused (the probe registers).
#[test]
fn seccomp_register_refused() {
    if !seccomp_usable() {
        return;
    }
    same_as_normal("io_uring_register refused", &|c| c.seccomp(&[IO_URING_REGISTER], libc::EPERM));
}

/// Setup and register allowed, io_uring_enter refused: a ring that can't
/// run anything.
#[test]
fn seccomp_enter_refused() {
    if !seccomp_usable() {
        return;
    }
    same_as_normal("io_uring_enter refused", &|c| c.seccomp(&[IO_URING_ENTER], libc::EPERM));
}

const SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

/// Cases that set the sysctl run one at a time.
static SYSCTL_LOCK: Mutex<()> = Mutex::new(());

/// Sets `kernel.io_uring_disabled` and puts the old value back on drop
/// (also when the case fails).
struct Disabled {
    old: String,
}

impl Disabled {
    fn set(value: &str) -> Option<Disabled> {
        let old = std::fs::read_to_string(SYSCTL).ok()?;
        std::fs::write(SYSCTL, value).ok()?;
        Some(Disabled { old: old.trim().to_string() })
    }
}

impl Drop for Disabled {
    fn drop(&mut self) {
        std::fs::write(SYSCTL, &self.old).expect("restore kernel.io_uring_disabled");
    }
}

/// `sysctl kernel.io_uring_disabled=2`: io_uring refused to everyone.
/// Kernel-wide, so it holds the suite's kernel-state lock exclusively
/// (syscall-counting tests wait) and is kept short: the fixture and the
/// normal runs happen before it is set.
#[test]
fn sysctl_disabled_for_everyone() {
    if !root() || std::fs::metadata(SYSCTL).is_err() {
        skip("io_uring_disabled=2", "needs root and a kernel with the sysctl (6.6+)");
        return;
    }
    let _serial = SYSCTL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let t = small_tree();
    let mut normal = Vec::new();
    for (tool, _) in TOOLS {
        let case = Case::new(tool, every_tool_args(tool)).cwd(t.path());
        normal.push((case.clone(), case.run(Prog::Ours(Some("sync")))));
    }
    let mut got = Vec::new();
    {
        let _kernel = util::kernel_state_exclusive();
        let Some(_off) = Disabled::set("2") else {
            skip("io_uring_disabled=2", "the sysctl is not writable here");
            return;
        };
        assert_refused("io_uring_disabled=2", &|c| c);
        for (case, _) in &normal {
            for backend in [None, Some("uring")] {
                got.push(case.run(Prog::Ours(backend)));
            }
        }
    }
    for (i, r) in got.iter().enumerate() {
        let (case, want) = &normal[i / 2];
        let ctx = format!("io_uring_disabled=2: {} run {i}: {}", case.tool, r.err());
        assert_eq!(r.code(), Some(0), "{ctx}");
        assert!(r.stderr.is_empty(), "{ctx}");
        assert_eq!(lines_sorted(&r.stdout), lines_sorted(&want.stdout), "{ctx}");
    }
}

/// `kernel.io_uring_disabled=1`: refused to unprivileged users outside
/// io_uring_group (root keeps it, so other tests on the machine are not
/// affected); the tools run as nobody.
#[test]
fn sysctl_disabled_for_unprivileged() {
    if !root() || std::fs::metadata(SYSCTL).is_err() {
        skip("io_uring_disabled=1", "needs root and a kernel with the sysctl (6.6+)");
        return;
    }
    let _serial = SYSCTL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(_off) = Disabled::set("1") else {
        skip("io_uring_disabled=1", "the sysctl is not writable here");
        return;
    };
    same_as_normal("io_uring_disabled=1 (unprivileged)", &|c| c.unprivileged());
}

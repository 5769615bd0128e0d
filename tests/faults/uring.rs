//! io_uring unavailable in every way a user meets it: output identical to
//! the normal run, nothing on stderr, on every tool, whether the backend is
//! chosen (default) or forced to `uring`.

use std::sync::Mutex;

use libcw::seccomp::{IO_URING_ENTER, IO_URING_REGISTER, IO_URING_SETUP};

use super::{every_tool_args, small_tree};
use crate::util::{self, lines_sorted, root, skip, Case, Prog, TOOLS};

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

/// [`same_as_normal`] with `calls` refused with `errno` by a seccomp
/// filter, where one can be installed.
fn refused_by_seccomp(what: &str, calls: &[u32], errno: i32) {
    if seccomp_usable() {
        same_as_normal(what, &|c| c.seccomp(calls, errno));
    }
}

/// Docker's default profile: EPERM for all three io_uring syscalls.
#[test]
fn seccomp_eperm_all() {
    refused_by_seccomp(
        "seccomp EPERM",
        &[IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER],
        libc::EPERM,
    );
}

/// A filter (or a kernel) without io_uring at all: ENOSYS.
#[test]
fn seccomp_enosys_all() {
    refused_by_seccomp(
        "seccomp ENOSYS",
        &[IO_URING_SETUP, IO_URING_ENTER, IO_URING_REGISTER],
        libc::ENOSYS,
    );
}

/// Setup allowed, io_uring_register alone refused (the probe registers).
#[test]
fn seccomp_register_refused() {
    refused_by_seccomp("io_uring_register refused", &[IO_URING_REGISTER], libc::EPERM);
}

/// Setup and register allowed, io_uring_enter refused: a ring that can't
/// run anything.
#[test]
fn seccomp_enter_refused() {
    refused_by_seccomp("io_uring_enter refused", &[IO_URING_ENTER], libc::EPERM);
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

/// The lock of the sysctl cases, for case `what`; None (after saying why)
/// where the sysctl can't be set: not root, or a kernel before 6.6.
fn sysctl_case(what: &str) -> Option<std::sync::MutexGuard<'static, ()>> {
    if !root() || std::fs::metadata(SYSCTL).is_err() {
        skip(what, "needs root and a kernel with the sysctl (6.6+)");
        return None;
    }
    Some(ringio::sync::lock(&SYSCTL_LOCK))
}

/// `sysctl kernel.io_uring_disabled=2`: io_uring refused to everyone.
/// Kernel-wide, so it holds the suite's kernel-state lock exclusively
/// (syscall-counting tests wait) and is kept short: the fixture and the
/// normal runs happen before it is set.
#[test]
fn sysctl_disabled_for_everyone() {
    let Some(_serial) = sysctl_case("io_uring_disabled=2") else { return };
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
    let Some(_serial) = sysctl_case("io_uring_disabled=1") else { return };
    let Some(_off) = Disabled::set("1") else {
        skip("io_uring_disabled=1", "the sysctl is not writable here");
        return;
    };
    same_as_normal("io_uring_disabled=1 (unprivileged)", &|c| c.unprivileged());
}

/// A ring that becomes unusable after start: `RINGUTILS_TEST_FAULT=enter:E@N`
/// (the executor's test hook) makes every io_uring_enter after the N-th
/// fail with E — EBADF, EEXIST, EPERM (seccomp installed later) or a
/// never-ending EAGAIN. The engine must finish the work it holds as plain
/// syscalls: every tool's output is the normal run's, status 0, nothing on
/// stderr, and nothing spins (a hang is caught by the deadline and fails
/// the case; no timing is measured).
#[test]
fn ring_breaks_after_start() {
    let t = super::Scratch::new("ring-breaks", "64m");
    let root = t.join("t");
    for d in 0..12 {
        let dir = root.join(format!("d{d:02}/sub"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..40 {
            std::fs::write(dir.join(format!("f{f:02}")), vec![b'x'; f * 100]).unwrap();
        }
        std::os::unix::fs::symlink("sub/f01", root.join(format!("d{d:02}/link"))).unwrap();
    }
    let big: Vec<u8> = (0..3u32 << 20).map(|i| (i % 253) as u8).collect();
    std::fs::write(root.join("big"), &big).unwrap();
    let out = t.join("out");
    let cases = [
        Case::new("lsr", ["-lR", "t"]),
        Case::new("lsr", ["-la", "t/d00/sub"]),
        Case::new("lfind", ["t", "-printf", "%p %s %y %l\n"]),
        Case::new("ldu", ["-a", "t"]),
        Case::new("lcat", ["t/big", "t/d03/sub/f39", "t/big"]),
        Case::new("lcat", ["-n", "t/big", "-", "t/d00/sub/f10"]).redirect("<t/big"),
        Case::new("lcat", ["t/big", "t/d01/sub/f20"]).redirect(&format!(">{}", out.display())),
    ];
    let hooked = |c: &Case, spec: &str| {
        let mut c = c.clone().cwd(t.path()).env("RINGUTILS_TEST_FAULT", spec);
        c.deadline = std::time::Duration::from_secs(60);
        c
    };
    for case in &cases {
        let case = case.clone().cwd(t.path());
        let normal = case.run(Prog::Ours(Some("sync")));
        let normal_file = std::fs::read(&out).unwrap_or_default();
        assert_eq!(normal.code(), Some(0), "{} normal run: {}", case.tool, normal.err());
        for spec in [
            "enter:EBADF@0",
            "enter:EBADF@1",
            "enter:EBADF@2",
            "enter:EEXIST@3",
            "enter:EPERM@5",
            "enter:EBADF@9",
            "enter:EEXIST@20",
            "enter:EAGAIN@4",
        ] {
            let got = hooked(&case, spec).run(Prog::Ours(Some("uring")));
            let ctx = format!(
                "{spec}: {} {:?}\nstderr:\n{}",
                case.tool,
                case.printable_args(),
                got.err()
            );
            assert_eq!(got.code(), Some(0), "{ctx}");
            assert!(got.stderr.is_empty(), "{ctx}");
            if case.tool == "lfind" || case.tool == "ldu" {
                assert_eq!(lines_sorted(&got.stdout), lines_sorted(&normal.stdout), "{ctx}");
            } else {
                assert!(got.stdout == normal.stdout, "{ctx}: stdout differs");
            }
            let file = std::fs::read(&out).unwrap_or_default();
            assert!(file == normal_file, "{ctx}: the output file differs");
        }
    }
    // The hook really takes the ring away: with the fault from the first
    // enter, the only io_uring_enter reaching the kernel is the probe's
    // (one NOP per process, before any engine's ring exists).
    if !util::require("strace", "ring_breaks_after_start") {
        return;
    }
    let o = std::process::Command::new("strace")
        .args(["-f", "-c", "-e", "trace=io_uring_enter,io_uring_setup", "-o"])
        .arg(t.join("strace.txt"))
        .arg(util::ours("lsr"))
        .args(["-lR", "t"])
        .current_dir(t.path())
        .env("RINGIO_BACKEND", "uring")
        .env("RINGUTILS_TEST_FAULT", "enter:EBADF@0")
        .output()
        .unwrap();
    assert!(o.status.success());
    let counts = std::fs::read_to_string(t.join("strace.txt")).unwrap();
    assert!(counts.contains("io_uring_setup"), "no ring was set up:\n{counts}");
    let enters: u64 = counts
        .lines()
        .find(|l| l.ends_with(" io_uring_enter"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(enters <= 1, "the ring was entered {enters} times:\n{counts}");
}

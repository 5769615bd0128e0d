//! File systems that misbehave: EIO from getdents, stat, readlink, open
//! and read, and names that vanish between readdir and stat — served by
//! the slowfs FUSE mirror (`cargo xtask slowfs --inject-eio`/`--vanish`,
//! no latency) — and /proc and /sys files whose size lies.

use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::command_lines;
use crate::slowmount;
use crate::util::{self, compare_case, skip, Case, TempDir};

/// A slowfs mount, unmounted on drop.
pub struct Mount {
    xtask: PathBuf,
    child: Child,
    mp: PathBuf,
}

impl Mount {
    /// Mounts `src` on `mp` with these faults and this latency per metadata
    /// request (`0`, `5ms`…); None (after saying why) where FUSE can't be.
    pub fn start(src: &Path, mp: &Path, faults: &[&str], latency: &str) -> Option<Mount> {
        if let Some(why) = slowmount::unusable() {
            slowmount::fuse_missing("misbehaving file systems", &why);
            return None;
        }
        let Some(xtask) = util::xtask_bin() else {
            panic!("misbehaving file systems: the xtask binary could not be built");
        };
        let mut args: Vec<&OsStr> = vec!["--latency".as_ref(), latency.as_ref()];
        for f in faults {
            match f.strip_prefix("vanish:") {
                Some(name) => args.extend([OsStr::new("--vanish"), OsStr::new(name)]),
                None => args.extend([OsStr::new("--inject-eio"), OsStr::new(f)]),
            }
        }
        let child = match slowmount::start(&xtask, src, mp, &args) {
            Ok(c) => c,
            Err(e) => {
                util::prerequisite_missing(
                    "misbehaving file systems",
                    &format!("slowfs could not mount: {e}"),
                );
                return None;
            }
        };
        Some(Mount { xtask, child, mp: mp.to_path_buf() })
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new(&self.xtask)
            .arg("slowfs")
            .arg("--umount")
            .arg(&self.mp)
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// The mirrored tree and its faults.
fn source(t: &TempDir) -> PathBuf {
    let src = t.join("src");
    util::build_tree(
        t.path(),
        &[
            "d:src/d/deeper",
            "f:src/d/ok:fine\n",
            "f:src/d/badstat:never seen\n",
            "f:src/d/gone:deleted meanwhile\n",
            "l:src/d/badlink:ok",
            "f:src/d/badopen:unopenable\n",
            "f:src/d/deeper/x:x\n",
            "d:src/unopenable",
            "f:src/unopenable/inside:hidden\n",
            "d:src/big",
        ],
    );
    for i in 0..300 {
        std::fs::write(src.join(format!("big/e{i:03}")), b"").unwrap();
    }
    // 3 MiB, readable up to 1 MiB.
    let data: Vec<u8> = (0..3u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(src.join("half"), data).unwrap();
    src
}

const FAULTS: &[&str] = &[
    "stat:badstat",
    "readlink:badlink",
    "open:badopen",
    "opendir:unopenable",
    "readdir:big@100",
    "read:half@1048576",
    "vanish:gone",
];

/// EIO from every kind of request, and a vanishing name: each tool prints
/// what it could read and reports the rest exactly as GNU does (messages,
/// exit status), on every backend.
#[test]
fn eio_and_vanishing_names() {
    let t = TempDir::new("misfs");
    let src = source(&t);
    let mp = t.join("mnt");
    let Some(_m) = Mount::start(&src, &mp, FAULTS, "0") else { return };
    let cases: &[(&str, &[&str])] = &command_lines::tools("faults/eio_and_vanishing_names", 15);
    for (tool, args) in cases {
        compare_case(&Case::new(tool, *args).cwd(&mp), true);
    }
    // GNU du 9.1 loses an operand directory whose getdents fails part-way
    // when there are other operands: no line, no message, status 0 (alone,
    // it prints both, as here). ldu reports it in every case.
    for b in util::BACKENDS {
        let got = Case::new("ldu", ["-s", "big", "d"]).cwd(&mp).run(util::Prog::Ours(Some(b)));
        assert_eq!(got.code(), Some(1), "[{b}] {}", got.err());
        assert!(got.err().contains("du: big: Input/output error\n"), "[{b}] {}", got.err());
        assert!(got.out().lines().any(|l| l.ends_with("\tbig")), "[{b}] {}", got.out());
        assert!(got.out().lines().any(|l| l.ends_with("\td")), "[{b}] {}", got.out());
    }
}

/// Files whose stated size lies: /proc files say 0 bytes and hold more,
/// /sys files say 4096 and hold less. lcat reads to end of file, not to
/// st_size, so its output is GNU cat's.
#[test]
fn proc_and_sys_sizes_lie() {
    let candidates = [
        "/proc/version",
        "/proc/filesystems",
        "/proc/sys/kernel/ostype",
        "/proc/sys/kernel/osrelease",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
    ];
    let files: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|p| std::fs::read(p).is_ok_and(|d| !d.is_empty()))
        .collect();
    if files.is_empty() {
        skip("/proc sizes", "no /proc or /sys files readable here");
        return;
    }
    for f in &files {
        compare_case(&Case::new("lcat", [f]), true);
        compare_case(&Case::new("lcat", ["-A", f]), true);
    }
    compare_case(&Case::new("lcat", &files), true);
    // Bigger than any one read, and still size 0.
    if std::fs::read("/proc/self/maps").is_ok() {
        let got = Case::new("lcat", ["/proc/self/maps"]).run(util::Prog::Ours(None));
        assert_eq!(got.code(), Some(0), "{}", got.err());
        assert!(got.out().lines().count() > 5, "short /proc/self/maps:\n{}", got.out());
    }
}

/// A file whose reads fail part-way (EIO from byte 64 KiB of 200 KiB, in
/// direct I/O): FUSE takes the short reply before the failure as the end
/// of the file, and splice and sendfile then return 0 where read(2)
/// returns EIO. lcat must not take that 0 for the end (a truncated copy
/// with status 0): like GNU cat it reports `cat: bad: Input/output error`,
/// exits 1 and still copies the next operand — into a pipe, a file,
/// /dev/null and a terminal, from an operand and from standard input,
/// with and without formatting, on every backend.
#[test]
fn read_error_part_way_is_not_the_end() {
    let t = TempDir::new("misfs-read");
    let src = t.join("src");
    std::fs::create_dir(&src).unwrap();
    // Text, so a terminal shows it as it is.
    let text: String =
        (0..5500).map(|i| format!("line {i:06} of the half-readable file\n")).collect();
    assert!(text.len() > 150 * 1024);
    std::fs::write(src.join("bad"), &text).unwrap();
    std::fs::write(src.join("good"), "first\n").unwrap();
    std::fs::write(src.join("good2"), "last\n").unwrap();
    let mp = t.join("mnt");
    let Some(_m) = Mount::start(&src, &mp, &["read:bad@65536"], "0") else { return };
    let ops = ["good", "bad", "good2"];
    // Into a pipe.
    for args in [&ops[..], &["-n", "good", "bad", "good2"], &["good", "-", "good2"]] {
        let c = Case::new("lcat", args).cwd(&mp).redirect("<bad");
        let want = compare_case(&c, true);
        assert_eq!(want.code(), Some(1), "GNU cat {args:?}: {}", want.err());
        assert!(want.err().contains(": Input/output error\n"), "GNU cat {args:?}: {}", want.err());
    }
    // Into /dev/null.
    compare_case(&Case::new("lcat", ops).cwd(&mp).redirect(">/dev/null"), true);
    compare_case(&Case::new("lcat", ["-", "good2"]).cwd(&mp).redirect("<bad >/dev/null"), true);
    // Into a file (on another file system: copy_file_range refuses, then
    // sendfile), and through `| cat > file`.
    let out = t.join("out");
    let file_cases = [
        Case::new("lcat", ops).cwd(&mp).redirect(&format!(">{}", out.display())),
        Case::new("lcat", ["-E", "good", "bad", "good2"])
            .cwd(&mp)
            .redirect(&format!(">{}", out.display())),
        Case::new("lcat", ops)
            .cwd(&mp)
            .script(&format!("(TOOL) | cat > {}; exit ${{PIPESTATUS[0]}}", out.display())),
    ];
    for c in &file_cases {
        let want = c.run(util::Prog::Gnu);
        let want_file = std::fs::read(&out).unwrap();
        assert_eq!(want.code(), Some(1), "GNU: {}", want.err());
        assert!(want_file.ends_with(b"last\n") || want_file.ends_with(b"last$\n"));
        for b in util::BACKENDS {
            let got = c.run(util::Prog::Ours(Some(b)));
            let got_file = std::fs::read(&out).unwrap();
            let what = format!("{:?} {:?} [{b}]", c.printable_args(), c.script);
            assert_eq!(got.code(), want.code(), "{what}: status; stderr {}", got.err());
            assert_eq!(got.err(), want.err(), "{what}: stderr");
            assert!(
                got_file == want_file,
                "{what}: {} bytes, GNU {}",
                got_file.len(),
                want_file.len()
            );
        }
    }
    // On a terminal: script(1) gives the pty; stdout and stderr both land
    // on it, and the status is echoed after.
    if !util::require("script", "lcat read error on a terminal") {
        return;
    }
    let run_tty = |prog: &str, backend: &str| {
        let mut cmd = Command::new("script");
        cmd.arg("-qec")
            .arg(format!("(exec -a cat {prog} good bad good2); echo status $?"))
            .arg("/dev/null")
            .current_dir(&mp)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("LC_ALL", "C")
            .env("TERM", "xterm")
            .env("NO_COLOR", "1")
            .env("SHELL", "/bin/bash")
            .env("RINGIO_BACKEND", backend)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let child = cmd.spawn().unwrap();
        util::wait_bounded(child, util::DEADLINE, &format!("{prog} on a pty [{backend}]"))
    };
    let want = run_tty("/usr/bin/cat", "sync");
    assert!(want.out().ends_with("status 1\r\n"), "GNU on a pty: {}", want.out());
    for b in util::BACKENDS {
        let got = run_tty(&util::ours("lcat").display().to_string(), b);
        assert!(
            got.stdout == want.stdout,
            "[{b}] on a pty: {} bytes, GNU {}; tail {:?}",
            got.stdout.len(),
            want.stdout.len(),
            &got.out()[got.out().len().saturating_sub(200)..]
        );
    }
}

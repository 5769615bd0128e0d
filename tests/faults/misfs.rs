//! File systems that misbehave: EIO from getdents, stat, readlink, open
//! and read, and names that vanish between readdir and stat — served by
//! the slowfs FUSE mirror (`cargo xtask slowfs --inject-eio`/`--vanish`,
//! no latency) — and /proc and /sys files whose size lies.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{compare, skip, Case};
use crate::slowmount;
use crate::util::{self, TempDir};

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
            skip("misbehaving file systems", &why);
            return None;
        }
        let Some(xtask) = util::xtask_bin() else {
            skip("misbehaving file systems", "the xtask binary could not be built");
            return None;
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
                skip("misbehaving file systems", &format!("slowfs could not mount: {e}"));
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
    let cases: &[(&str, &[&str])] = &[
        ("lsr", &["-l", "d"]),
        ("lsr", &["d", "big"]),
        ("lsr", &["-lR", "."]),
        ("lsr", &["-l", "d/badlink", "d/badstat", "d/ok"]),
        ("lfind", &["."]),
        ("lfind", &[".", "-printf", "%p %s %y\n"]),
        ("lfind", &[".", "-depth", "-name", "*a*"]),
        ("ldu", &["-a", "."]),
        ("ldu", &["-s", "big"]),
        ("ldu", &["-s", "d", "unopenable"]),
        ("lfind", &["big", "d", "unopenable"]),
        ("lsr", &["big", "d", "unopenable"]),
        ("lcat", &["half"]),
        ("lcat", &["d/ok", "d/badopen", "half", "d/ok"]),
        ("lcat", &["-n", "half"]),
    ];
    for (tool, args) in cases {
        compare(&Case::new(tool, *args).cwd(&mp), true);
    }
    // GNU du 9.1 loses an operand directory whose getdents fails part-way
    // when there are other operands: no line, no message, status 0 (alone,
    // it prints both, as here). ldu reports it in every case.
    for b in util::BACKENDS {
        let got = Case::new("ldu", ["-s", "big", "d"]).cwd(&mp).run(super::Prog::Ours(Some(b)));
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
        compare(&Case::new("lcat", [f]), true);
        compare(&Case::new("lcat", ["-A", f]), true);
    }
    compare(&Case::new("lcat", &files), true);
    // Bigger than any one read, and still size 0.
    if std::fs::read("/proc/self/maps").is_ok() {
        let got = Case::new("lcat", ["/proc/self/maps"]).run(super::Prog::Ours(None));
        assert_eq!(got.code(), Some(0), "{}", got.err());
        assert!(got.out().lines().count() > 5, "short /proc/self/maps:\n{}", got.out());
    }
}

//! Starting `cargo xtask slowfs` from the tests: shared by the slow-fs
//! comparisons (tests/slowfs.rs), the fault suite's misbehaving file
//! systems (tests/faults/misfs.rs) and xtask's own slowfs tests
//! (xtask/tests/slowfs.rs, which include this file by path), so it uses
//! nothing but std.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Why a FUSE file system cannot be mounted here, if it cannot.
pub fn unusable() -> Option<String> {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let euid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1).map(str::to_string));
    if euid.as_deref() != Some("0") {
        return Some("not running as root (mount(2) of a FUSE file system needs it)".into());
    }
    if let Err(e) = fs::OpenOptions::new().read(true).write(true).open("/dev/fuse") {
        return Some(format!("/dev/fuse: {e}"));
    }
    None
}

/// Whether `mp` is a mount point now.
pub fn mounted(mp: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let want = mp.as_os_str().as_bytes();
    let text = fs::read("/proc/self/mountinfo").unwrap_or_default();
    text.split(|&b| b == b'\n').any(|line| {
        let f: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        // Our test paths have no characters mountinfo escapes.
        f.len() > 4 && f[4] == want
    })
}

/// Runs `xtask slowfs MP --source SRC ARGS…` in the foreground and waits
/// until it says the mount is ready; Err with its stderr if it never does.
pub fn start(xtask: &Path, src: &Path, mp: &Path, args: &[&OsStr]) -> Result<Child, String> {
    fs::create_dir_all(mp).unwrap();
    let mut child = Command::new(xtask)
        .arg("slowfs")
        .arg(mp)
        .arg("--source")
        .arg(src)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run xtask slowfs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    if line.trim() == "ready" {
        return Ok(child);
    }
    let mut err = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let _ = child.wait();
    Err(err.trim().to_string())
}

/// FUSE can't be had here: under `CI=true` (where `cargo xtask test`
/// provides root and /dev/fuse) that fails the test; elsewhere the skip is
/// printed and appended to the file `RINGUTILS_TEST_SKIP_LOG` names, which
/// `cargo xtask test` lists after the run.
pub fn fuse_missing(test: &str, why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: no FUSE mount: {why} (CI=true makes a skip a failure)");
    }
    eprintln!("SKIPPED {test}: no FUSE mount: {why}");
    if let Some(path) = std::env::var_os("RINGUTILS_TEST_SKIP_LOG") {
        use std::io::Write;
        if let Ok(mut f) = fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = f.write_all(format!("{test}: no FUSE mount: {why}\n").as_bytes());
        }
    }
}

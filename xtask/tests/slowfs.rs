//! `cargo xtask slowfs` end to end: mount a mirror of a small tree of
//! awkward files with 1 ms latency, check GNU ls/find/du/cat see through it
//! exactly what they see on the source, and check the request counters.
//! Skipped, with a message, where FUSE cannot be mounted (not root, no
//! /dev/fuse, mount(2) refused).

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

#[path = "../../tests/slowmount.rs"]
mod slowmount;

use scratch::Scratch;
use slowmount::mounted;

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

/// A test's scratch directory: the source tree `src`, the mount point
/// `mnt`, the server's counters file `stats`. Removed at the end, once
/// nothing is mounted on it: never while a mount is live, which would
/// reach through it.
struct Site {
    dir: Option<Scratch>,
    src: PathBuf,
    mnt: PathBuf,
    stats: PathBuf,
}

impl Site {
    /// None, after saying why, where FUSE cannot be mounted here.
    fn new(tag: &str, what: &str) -> Option<Site> {
        if let Some(why) = slowmount::unusable() {
            slowmount::fuse_missing(what, &why);
            return None;
        }
        let dir = Scratch::new(&format!("slowfs-{tag}"));
        let (src, mnt, stats) = (dir.join("src"), dir.join("mnt"), dir.join("stats"));
        Some(Site { dir: Some(dir), src, mnt, stats })
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        if mounted(&self.mnt) {
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
        if mounted(&self.mnt) {
            std::mem::forget(self.dir.take());
        }
    }
}

/// A running `xtask slowfs` in the foreground.
struct Server {
    child: Child,
    mp: PathBuf,
}

impl Server {
    /// Starts the server; None (after printing why) when the kernel refuses
    /// the mount for lack of privilege, so the test can skip.
    fn start(src: &Path, mp: &Path, extra: &[&str]) -> Option<Server> {
        let extra: Vec<&OsStr> = extra.iter().map(OsStr::new).collect();
        let child = match slowmount::start(Path::new(XTASK), src, mp, &extra) {
            Ok(c) => c,
            Err(err) if err.contains("mount(2)") && err.contains("Operation not permitted") => {
                slowmount::fuse_missing("xtask slowfs", &err);
                return None;
            }
            Err(err) => panic!("slowfs did not become ready: {err}"),
        };
        assert!(mounted(mp), "ready, but {} is not in mountinfo", mp.display());
        Some(Server { child, mp: mp.to_path_buf() })
    }

    /// `xtask slowfs --umount`, then waits for the server to exit and
    /// returns its stderr.
    fn umount(mut self) -> String {
        let st = Command::new(XTASK).arg("slowfs").arg("--umount").arg(&self.mp).status().unwrap();
        assert!(st.success(), "--umount failed");
        let stderr = wait_exit(&mut self.child);
        assert!(!mounted(&self.mp), "still mounted after --umount");
        stderr
    }
}

/// Waits up to 20 s for a server to exit successfully; returns its stderr.
fn wait_exit(child: &mut Child) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            assert!(st.success(), "slowfs exited with {st}: {err}");
            return err;
        }
        assert!(Instant::now() < deadline, "slowfs did not exit after unmount");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Only reached when a test fails while mounted.
        if mounted(&self.mp) {
            let _ = Command::new(XTASK).arg("slowfs").arg("--umount").arg(&self.mp).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Deterministic bytes for the large file.
fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The tree under `root/tree`: names with spaces, a newline and invalid
/// UTF-8, symbolic links (relative, to a directory, dangling, absolute), a
/// hard link, a FIFO, an empty file and directory, a 1 MiB file, xattrs
/// and an ACL where the tools to set them exist, and 64 files for the
/// concurrency check. Returns the regular files (relative to `root`).
fn build_tree(root: &Path) -> Vec<PathBuf> {
    let t = root.join("tree");
    let name = |b: &[u8]| PathBuf::from(OsStr::from_bytes(b));
    fs::create_dir_all(t.join("dir one/nested/deep")).unwrap();
    fs::create_dir_all(t.join("empty dir")).unwrap();
    fs::create_dir_all(t.join("many")).unwrap();
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![
        ("plain.txt".into(), b"plain\n".to_vec()),
        ("with space.txt".into(), b"spaced out\n".to_vec()),
        ("new\nline".into(), b"two\nlines\n".to_vec()),
        (name(b"bad-\xff\xfe-utf8"), b"\xff\xfe not utf-8\n".to_vec()),
        ("empty".into(), Vec::new()),
        ("big.bin".into(), noise(1 << 20)),
        ("dir one/inner".into(), b"inner\n".to_vec()),
        ("dir one/nested/deep/leaf".into(), b"leaf\n".to_vec()),
    ];
    for i in 0..64 {
        files.push((format!("many/f{i:02}").into(), format!("{i}\n").into_bytes()));
    }
    for (p, data) in &files {
        fs::write(t.join(p), data).unwrap();
    }
    symlink("plain.txt", t.join("link to plain")).unwrap();
    symlink("dir one", t.join("link-to-dir")).unwrap();
    symlink("missing target", t.join("dangling")).unwrap();
    symlink("/nonexistent/abs target", t.join("absolute")).unwrap();
    symlink(name(b"bad-\xff\xfe-utf8"), t.join("dir one/link-to-bad")).unwrap();
    fs::hard_link(t.join("plain.txt"), t.join("dir one/hard link")).unwrap();
    assert!(Command::new("mkfifo").arg(t.join("fifo")).status().unwrap().success());
    if have("setfattr") {
        for (target, attr, value) in [
            ("plain.txt", "user.colour", "blue"),
            ("dir one", "user.kind", "directory"),
            ("big.bin", "user.empty", ""),
        ] {
            let st = Command::new("setfattr")
                .args(["-n", attr, "-v", value])
                .arg(t.join(target))
                .status()
                .unwrap();
            assert!(st.success(), "setfattr on {target}");
        }
    } else {
        eprintln!("note: setfattr not found (Debian package attr); no xattrs in the tree");
    }
    if have("setfacl") {
        let st = Command::new("setfacl")
            .args(["-m", "u:nobody:r"])
            .arg(t.join("with space.txt"))
            .status()
            .unwrap();
        assert!(st.success(), "setfacl");
    }
    // Fixed times, so ls shows years, not hours, and nothing depends on "now".
    let st = Command::new("touch").args(["-h", "-d", "2001-02-03 04:05:06"]).arg(&t).status();
    assert!(st.unwrap().success());
    files.into_iter().map(|(p, _)| Path::new("tree").join(p)).collect()
}

/// Runs `cmd args` in `dir` with the C locale; returns (status, stdout, stderr).
fn run(dir: &Path, cmd: &str, args: &[&OsStr]) -> (i32, Vec<u8>, Vec<u8>) {
    let out = Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env_remove("LS_COLORS")
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

fn same_output(src: &Path, mnt: &Path, cmd: &str, args: &[&str]) {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let a = run(src, cmd, &args);
    let b = run(mnt, cmd, &args);
    assert!(!a.1.is_empty() || cmd == "getfattr", "{cmd} {args:?} printed nothing");
    if a != b {
        panic!(
            "{cmd} {args:?} differs through the mount.\n--- source (exit {}):\n{}{}\n--- mount (exit {}):\n{}{}",
            a.0,
            String::from_utf8_lossy(&a.1),
            String::from_utf8_lossy(&a.2),
            b.0,
            String::from_utf8_lossy(&b.1),
            String::from_utf8_lossy(&b.2)
        );
    }
}

fn stats_value(stats: &str, key: &str) -> u64 {
    stats
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn gnu_tools_see_the_source_through_a_slow_mount() {
    let Some(site) = Site::new("gnu", "xtask slowfs") else { return };
    let (src, mnt, stats_file) = (site.src.clone(), site.mnt.clone(), site.stats.clone());
    fs::create_dir_all(&src).unwrap();
    let regular = build_tree(&src);
    let stats_arg = stats_file.to_str().unwrap();
    let Some(server) = Server::start(&src, &mnt, &["--latency", "1ms", "--stats", stats_arg])
    else {
        return;
    };

    // Every request is delayed: ten stats of one file cost ten lookups.
    let t = Instant::now();
    for _ in 0..10 {
        fs::symlink_metadata(mnt.join("tree/plain.txt")).unwrap();
    }
    assert!(t.elapsed() >= Duration::from_millis(10), "no latency: {:?}", t.elapsed());

    same_output(&src, &mnt, "ls", &["-laR", "tree"]);
    same_output(&src, &mnt, "ls", &["-laRi", "--time-style=full-iso", "tree"]);
    same_output(&src, &mnt, "ls", &["-lL", "tree/link to plain", "tree/link-to-dir"]);
    same_output(&src, &mnt, "find", &["tree"]);
    same_output(
        &src,
        &mnt,
        "find",
        &["tree", "-printf", "%p|%y|%Y|%s|%b|%m|%n|%i|%U|%G|%T@|%C@|%l\\n"],
    );
    same_output(&src, &mnt, "find", &["-L", "tree", "-type", "f", "-size", "+1k"]);
    same_output(&src, &mnt, "du", &["-s", "tree"]);
    same_output(&src, &mnt, "du", &["-a", "--apparent-size", "tree"]);
    same_output(&src, &mnt, "du", &["-ab", "tree"]);
    if have("getfattr") {
        same_output(&src, &mnt, "getfattr", &["-R", "-h", "-d", "-m", "-", "tree"]);
    }
    // Last: reading through the mount updates the source's access times.
    let mut cat_args: Vec<&str> = regular.iter().map(|p| p.to_str().unwrap_or("")).collect();
    cat_args.retain(|p| !p.is_empty()); // the invalid UTF-8 name is read below
    same_output(&src, &mnt, "cat", &cat_args);
    for p in &regular {
        assert_eq!(fs::read(mnt.join(p)).unwrap(), fs::read(src.join(p)).unwrap(), "{p:?}");
    }

    // 64 threads stat 64 files at once: with PARALLEL_DIROPS their lookups
    // in the one directory are all in flight together.
    let barrier = Arc::new(Barrier::new(64));
    let t = Instant::now();
    let threads: Vec<_> = (0..64)
        .map(|i| {
            let b = Arc::clone(&barrier);
            let p = mnt.join(format!("tree/many/f{i:02}"));
            std::thread::spawn(move || {
                for _ in 0..5 {
                    b.wait();
                    fs::symlink_metadata(&p).unwrap();
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    let concurrent = t.elapsed();

    let summary = server.umount();
    assert!(summary.contains("requests"), "no summary on stderr: {summary}");
    let stats = fs::read_to_string(&stats_file).unwrap();
    eprintln!("64×5 concurrent lstats took {concurrent:?}\n{stats}");
    assert_eq!(stats_value(&stats, "final"), 1, "{stats}");
    for key in ["requests", "lookup", "getattr", "opendir", "readdir", "readlink", "open", "read"] {
        assert!(stats_value(&stats, key) > 0, "{key} is 0:\n{stats}");
    }
    if have("getfattr") {
        assert!(stats_value(&stats, "getxattr") > 0 && stats_value(&stats, "listxattr") > 0);
    }
    let max = stats_value(&stats, "max_in_flight");
    assert!(max > 1, "concurrent lstats never overlapped: max in flight {max}\n{stats}");
    assert_eq!(stats_value(&stats, "in_flight"), 0, "{stats}");
}

#[test]
fn daemon_mode_and_signals_unmount_cleanly() {
    let Some(site) = Site::new("daemon", "xtask slowfs") else { return };
    let (src, mnt, stats_file) = (site.src.clone(), site.mnt.clone(), site.stats.clone());
    fs::create_dir_all(src.join("d")).unwrap();
    fs::write(src.join("d/f"), "x").unwrap();
    fs::create_dir_all(&mnt).unwrap();
    let stats_arg = stats_file.to_str().unwrap();

    // --daemon: returns after "ready" with the mount live.
    let out = Command::new(XTASK)
        .arg("slowfs")
        .arg(&mnt)
        .arg("--source")
        .arg(&src)
        .args(["--latency", "0.5ms", "--jitter", "0.2ms", "--daemon", "--stats"])
        .arg(&stats_file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("mount(2)") && stderr.contains("Operation not permitted") {
        slowmount::fuse_missing("daemon_mode_and_signals_unmount_cleanly", &stderr);
        return;
    }
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ready\n");
    assert!(mounted(&mnt));
    assert_eq!(fs::read_to_string(mnt.join("d/f")).unwrap(), "x");
    // A second server on the same mount point is refused.
    let again = Command::new(XTASK).arg("slowfs").arg(&mnt).arg("--source").arg(&src).output();
    assert!(!again.unwrap().status.success());
    // While busy (a process sits in the mount), --umount detaches lazily.
    let mut busy = Command::new("sleep").arg("1").current_dir(mnt.join("d")).spawn().unwrap();
    let st = Command::new(XTASK).arg("slowfs").arg("--umount").arg(&mnt).status().unwrap();
    assert!(st.success());
    assert!(!mounted(&mnt));
    busy.wait().unwrap();
    // The daemon writes its final counters once the mount is released.
    let deadline = Instant::now() + Duration::from_secs(20);
    let stats = loop {
        let s = fs::read_to_string(&stats_file).unwrap_or_default();
        if stats_value(&s, "final") == 1 {
            break s;
        }
        assert!(Instant::now() < deadline, "daemon never wrote final stats: {s}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(stats_value(&stats, "lookup") >= 2, "{stats}");
    assert!(stats_value(&stats, "read") >= 1, "{stats}");
    // --umount of something that is not a slowfs mount is refused.
    let st = Command::new(XTASK).arg("slowfs").arg("--umount").arg(&mnt).output().unwrap();
    assert!(!st.status.success());

    // A signal to a caller waiting on a slow request interrupts it: the
    // server answers EINTR at once instead of after the 3 s latency.
    let Some(server) = Server::start(&src, &mnt, &["--latency", "3s", "--stats", stats_arg]) else {
        return;
    };
    let t = Instant::now();
    let st = Command::new("timeout").args(["-s", "INT", "0.3", "stat"]).arg(mnt.join("d")).status();
    assert!(!st.unwrap().success());
    assert!(t.elapsed() < Duration::from_secs(2), "not interrupted: {:?}", t.elapsed());
    server.umount();
    let stats = fs::read_to_string(&stats_file).unwrap();
    assert_eq!(stats_value(&stats, "interrupted"), 1, "{stats}");

    // --cache: the kernel keeps entries and attributes, so repeated stats
    // cost no requests.
    let Some(server) = Server::start(&src, &mnt, &["--cache", "60", "--stats", stats_arg]) else {
        return;
    };
    for _ in 0..20 {
        fs::symlink_metadata(mnt.join("d/f")).unwrap();
    }
    server.umount();
    let stats = fs::read_to_string(&stats_file).unwrap();
    assert!(stats_value(&stats, "lookup") <= 2, "{stats}");
    assert!(stats_value(&stats, "getattr") <= 2, "{stats}");

    // Foreground server, stopped by SIGINT (Ctrl-C) and SIGTERM.
    for sig in ["-INT", "-TERM"] {
        let Some(mut server) = Server::start(&src, &mnt, &["--latency", "1ms"]) else { return };
        fs::symlink_metadata(mnt.join("d/f")).unwrap();
        let pid = server.child.id().to_string();
        assert!(Command::new("kill").args([sig, &pid]).status().unwrap().success());
        let err = wait_exit(&mut server.child);
        assert!(!mounted(&mnt), "still mounted after kill {sig}");
        assert!(err.contains("unmounted"), "{err}");
    }
}

/// `xtask du-floor DIR 16` on `dir` (16 threads statting every entry: one
/// process asking for up to 16 requests at once), spawned.
fn du_floor(dir: &Path) -> Child {
    Command::new(XTASK)
        .args(["du-floor"])
        .arg(dir)
        .arg("16")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Its total (the tree's KiB, every entry counted) once it succeeded.
fn du_floor_total(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "du-floor: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    text.split('\t').next().unwrap_or_default().to_string()
}

#[test]
fn per_client_cap_holds_each_process_to_k_without_refusing() {
    const K: u64 = 4;
    let Some(site) = Site::new("per-client", "xtask slowfs --per-client") else { return };
    let (src, mnt, stats_file) = (site.src.clone(), site.mnt.clone(), site.stats.clone());
    // 8 × 300 files: each walk below makes thousands of requests, at most
    // K per millisecond, so the two walked together overlap for a second.
    for d in 0..8 {
        let dir = src.join(format!("d{d}"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..300 {
            fs::write(dir.join(format!("f{f}")), "x").unwrap();
        }
    }
    let want = du_floor_total(du_floor(&src));
    let stats_arg = stats_file.to_str().unwrap();
    let k = K.to_string();
    let Some(server) =
        Server::start(&src, &mnt, &["--latency", "1ms", "--per-client", &k, "--stats", stats_arg])
    else {
        return;
    };
    // One process alone, then two at once; every request is answered (the
    // totals match the source's), none refused.
    let alone = du_floor(&mnt);
    let a = alone.id();
    assert_eq!(du_floor_total(alone), want);
    let (first, second) = (du_floor(&mnt), du_floor(&mnt));
    let (b, c) = (first.id(), second.id());
    assert_eq!(du_floor_total(first), want);
    assert_eq!(du_floor_total(second), want);
    server.umount();

    let stats = fs::read_to_string(&stats_file).unwrap();
    let client = |pid: u32, key: &str| stats_value(&stats, &format!("client.{pid}.{key}"));
    for pid in [a, b, c] {
        // The process's 16 threads are one client (their thread ids are
        // grouped by thread group): it asked for more than K at once, had
        // exactly K in service at most, and the rest waited.
        assert!(client(pid, "requests") > 2400, "client {pid}:\n{stats}");
        assert!(client(pid, "max_outstanding") > K, "client {pid} never exceeded K:\n{stats}");
        assert_eq!(client(pid, "max_in_service"), K, "client {pid}:\n{stats}");
        assert!(client(pid, "queued") > 0, "client {pid}:\n{stats}");
    }
    assert_eq!(stats_value(&stats, "per_client"), K, "{stats}");
    assert_eq!(stats_value(&stats, "client_max_in_service"), K, "{stats}");
    // The cap is per client, not global: the two processes walking
    // together had 2K in service between them.
    assert_eq!(stats_value(&stats, "in_service_max"), 2 * K, "{stats}");
    assert_eq!(stats_value(&stats, "in_flight"), 0, "{stats}");
}

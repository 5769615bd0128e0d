//! lfind against GNU find 4.9 (/usr/bin/find): record sets (order where it
//! is semantic), exit status and messages, under every engine backend.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use crate::command_lines;
use crate::util::{
    build_tree, chmod, compare, compare_sorted, raw_name, Cases, Run, Stderr, TempDir,
};

/// Seconds since the epoch now.
fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn touch(p: &Path, flag: &str, secs: i64) {
    let st = Command::new("touch")
        .arg("-h")
        .arg(flag)
        .arg("-d")
        .arg(format!("@{secs}"))
        .arg(p)
        .status()
        .unwrap();
    assert!(st.success());
}

/// A tree with every file type, nasty names, sizes around the unit
/// boundaries, links (hard, soft, dangling, looping, to a directory) and
/// timestamps spread over days.
fn nasty() -> TempDir {
    let t = TempDir::new("find");
    let r = t.path();
    let mid = "x".repeat(1000);
    let big = "y".repeat(4097);
    let spec: Vec<String> = vec![
        "d:a/b/c".into(),
        "d:a/B2".into(),
        "d:empty".into(),
        "d:.hidden".into(),
        "f:.hidden/.dot:x".into(),
        "f:a/file.c:hello".into(),
        "f:a/b/x.C:".into(),
        "f:a/b/c/deep.txt:0123456789".into(),
        "f:a/b/c/other.c:int main;".into(),
        "f:-lead:x".into(),
        "f:sp ace:1".into(),
        "f:emptyfile:".into(),
        "f:s511:".to_string() + &"z".repeat(511),
        "f:s512:".to_string() + &"z".repeat(512),
        "f:s513:".to_string() + &"z".repeat(513),
        format!("f:s1000:{mid}"),
        format!("f:a/big:{big}"),
        "f:a/B2/k.c:c".into(),
        "f:x*y:star".into(),
        "f:q[1]:bracket".into(),
        "l:a/link:file.c".into(),
        "l:dangling:nowhere".into(),
        "l:loop:loop".into(),
        "l:ldir:a".into(),
        "l:a/b/up:../..".into(),
        "h:a/hard:a/file.c".into(),
        "p:fifo".into(),
        "f:exe:#!/bin/sh".into(),
        "m:exe:755".into(),
        "f:setuid:".into(),
        "m:setuid:4755".into(),
        "f:ro:".into(),
        "m:ro:444".into(),
        "f:wo:".into(),
        "m:wo:222".into(),
        "f:gw:".into(),
        "m:gw:664".into(),
        "d:sticky".into(),
        "m:sticky:1777".into(),
    ];
    let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
    build_tree(r, &spec);
    std::fs::write(raw_name(r, b"new\nline"), b"nl").unwrap();
    std::fs::write(raw_name(r, b"bad\xff\xfeutf8"), b"bad").unwrap();
    std::fs::write(raw_name(r, b"tab\there"), b"").unwrap();
    let _ = std::os::unix::net::UnixListener::bind(r.join("sock")).unwrap();
    let big1m = std::fs::File::create(r.join("a/sparse")).unwrap();
    big1m.set_len(1024 * 1024 + 1).unwrap();
    // Owned by ids nobody has.
    std::fs::write(r.join("orphan"), b"o").unwrap();
    let st = Command::new("chown").arg("-h").arg("12345:54321").arg(r.join("orphan")).status();
    assert!(st.unwrap().success());
    // Ages: well away from day/minute boundaries.
    let n = now();
    touch(&r.join("s511"), "-m", n - 3 * 86400 - 3600);
    touch(&r.join("s512"), "-m", n - 86400 - 3600);
    touch(&r.join("s513"), "-m", n - 7200);
    touch(&r.join("s1000"), "-a", n - 10 * 86400 - 3600);
    touch(&r.join("a/file.c"), "-m", n - 40 * 86400);
    touch(&r.join("a/big"), "-m", n - 400 * 86400);
    touch(&r.join("dangling"), "-m", n - 2 * 86400 - 3600);
    // Settle directory atimes (relatime updates them on the first read).
    let _ = Command::new("find")
        .arg(r)
        .arg("-type")
        .arg("d")
        .arg("-exec")
        .arg("ls")
        .arg("{}")
        .arg("+")
        .output();
    t
}

// The tests of what is matched and printed run again in C.UTF-8,
// en_US.UTF-8, de_DE.UTF-8 and ja_JP.UTF-8, whole, on every backend
// (`util::in_locales!`: `find::printf_and_ls::ja_jp` …); those about
// exec, deletion, permissions, signals, pipes and syscalls stay in C.
// About 6 s per locale on an idle core.
crate::util::in_locales!(
    name_patterns_at_fnmatch_corners,
    names_types_operators,
    depth_and_traversal_options,
    stat_tests,
    printf_and_ls,
    errors_and_messages,
    names_with_bytes_in_messages,
);

fn args(v: &[&str]) -> Vec<Vec<u8>> {
    v.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn run_in(dir: &Path, v: &[&str]) -> Run {
    Run { args: args(v), ..Run::default() }.cwd(dir)
}

/// Every case in `cases` against GNU (record sets, exact stderr), from the
/// tree's root with `.` and explicit starting points.
fn cases(dir: &Path, cases: &[&[&str]]) -> usize {
    check_all(cases.iter().map(|c| run_in(dir, c)), compare_sorted)
}

/// Runs every comparison, then fails listing all that differed (not just
/// the first), so one run shows every deviation.
fn check_all(
    runs: impl Iterator<Item = Run>,
    cmp: fn(&str, &Run, Stderr) -> std::process::Output,
) -> usize {
    let mut c = Cases::new("lfind");
    for r in runs {
        c.run(move || {
            cmp("lfind", &r, Stderr::Exact);
        });
    }
    let n = c.count();
    c.finish();
    n
}

#[test]
fn name_patterns_at_fnmatch_corners() {
    let t = TempDir::new("find-glob");
    build_tree(t.path(), crate::util::GLOB_NAMES);
    let runs = crate::util::GLOB_PATTERNS.iter().flat_map(|p| {
        let path = format!("./{p}");
        [
            run_in(t.path(), &[".", "-name", p]),
            run_in(t.path(), &[".", "-iname", p]),
            run_in(t.path(), &[".", "-path", &path]),
        ]
    });
    check_all(runs, compare_sorted);
}

#[test]
fn names_types_operators() {
    let t = nasty();
    cases(t.path(), &command_lines::section("find/names_types_operators", 65));
}

#[test]
fn depth_and_traversal_options() {
    let t = nasty();
    cases(t.path(), &command_lines::section("find/depth_and_traversal_options", 29));
}

#[test]
fn stat_tests() {
    let t = nasty();
    let ino = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(t.join("a/file.c")).unwrap().ino().to_string()
    };
    let n = now();
    let at = format!("@{}", n - 2 * 86400);
    cases(
        t.path(),
        &[
            &["-size", "+4k"],
            &["-size", "-1k"],
            &["-size", "1"],
            &["-size", "2"],
            &["-size", "-2"],
            &["-size", "+1"],
            &["-size", "512c"],
            &["-size", "+511c"],
            &["-size", "-513c"],
            &["-size", "+0"],
            &["-size", "0"],
            &["-size", "1M"],
            &["-size", "+1M"],
            &["-size", "-1M"],
            &["-size", "2M"],
            &["-size", "1G"],
            &["-size", "-1G"],
            &["-size", "5w"],
            &["-size", "+500w"],
            &["-size", "1k"],
            &["-size", "+4k", "-name", "*g"],
            &["-name", "s5*", "-size", "+1"],
            &["-empty"],
            &["-not", "-empty"],
            &["-type", "d", "-empty"],
            &["-links", "2"],
            &["-links", "+1"],
            &["-links", "-2"],
            &["-inum", &ino],
            &["-inum", "-1"],
            &["-samefile", "a/file.c"],
            &["-samefile", "a/link"],
            &["-L", ".", "-samefile", "a/file.c"],
            &["-perm", "644"],
            &["-perm", "-u+x"],
            &["-perm", "/o+w"],
            &["-perm", "-444"],
            &["-perm", "/111"],
            &["-perm", "/4000"],
            &["-perm", "-1000"],
            &["-perm", "u=rw,go=r"],
            &["-perm", "/u=w,g=w"],
            &["-perm", "-g+w,u+w"],
            &["-perm", "a+r"],
            &["-perm", "/0"],
            &["-perm", "755", "-o", "-perm", "0777"],
            &["-user", "root"],
            &["-group", "root"],
            &["-user", "0"],
            &["-uid", "0"],
            &["-uid", "+100"],
            &["-gid", "-1"],
            &["-gid", "54321"],
            &["-nouser"],
            &["-nogroup"],
            &["-newer", "a/file.c"],
            &["-anewer", "s1000"],
            &["-cnewer", "s511"],
            &["-newer", "a/link"],
            &["-H", ".", "-newer", "a/link"],
            &["-newermt", "2020-01-01"],
            &["-newermt", &at],
            &["-newermt", "2020-01-01 10:00:00"],
            &["-newerat", &at],
            &["-newermm", "s512"],
            &["-newercm", "s512"],
            &["-neweram", "s1000"],
            &["-not", "-newerma", "s1000"],
            &["-mtime", "0"],
            &["-mtime", "1"],
            &["-mtime", "+1"],
            &["-mtime", "-3"],
            &["-mtime", "3"],
            &["-mtime", "+30"],
            &["-mtime", "+365"],
            &["-mmin", "-60"],
            &["-mmin", "+100"],
            &["-mmin", "-130"],
            &["-atime", "+2"],
            &["-atime", "-1"],
            &["-amin", "+60"],
            &["-ctime", "0"],
            &["-cmin", "-30"],
            &["-ctime", "+0"],
            &["-daystart", "-mtime", "1"],
            &["-daystart", "-mtime", "-2"],
            &["-daystart", "-mtime", "+3"],
            &["-fstype", "tmpfs"],
            &["-fstype", "ext4"],
            &["-fstype", "nosuchfs"],
            &["-readable"],
            &["-writable"],
            &["-executable"],
            &["-true"],
            &["-false"],
        ],
    );
}

/// -used: days from a file's last status change to its last access. The
/// access times are set now, so the change is now too and each file's gap
/// is its offset (kept away from day boundaries); GNU 4.9 never matches a
/// file accessed before its change, counts an access at the change as day
/// 1, and compares +N/-N against the exact gap.
#[test]
fn used_days() {
    let t = TempDir::new("find-used");
    let d = t.path();
    std::fs::write(d.join("fresh"), b"").unwrap();
    let n = now();
    for (name, off) in [("before", -86400 - 3600), ("h7", 7 * 3600), ("d1h12", 86400 + 12 * 3600)] {
        std::fs::write(d.join(name), b"").unwrap();
        touch(&d.join(name), "-a", n + off);
    }
    std::fs::write(d.join("d2h12"), b"").unwrap();
    touch(&d.join("d2h12"), "-a", n + 2 * 86400 + 12 * 3600);
    let mut v: Vec<Vec<&str>> = Vec::new();
    for k in ["0", "1", "2", "3", "-0", "-1", "-2", "+0", "+1", "+2", "1.5", "+0.5", "-2.5"] {
        v.push(vec!["-type", "f", "-used", k]);
    }
    let v: Vec<&[&str]> = v.iter().map(|a| a.as_slice()).collect();
    cases(d, &v);
}

#[test]
fn printf_and_ls() {
    let t = nasty();
    cases(t.path(), &command_lines::section("find/printf_and_ls", 22));
    // Warnings at parse time.
    cases(t.path(), &[&["-maxdepth", "0", "-printf", "%z\\q\n"]]);
}

#[test]
fn output_files() {
    let t = nasty();
    std::fs::remove_file(t.join("orphan")).unwrap();
    let out_g = TempDir::new("find-out");
    let out_o = TempDir::new("find-out");
    let mk = |o: &Path| {
        let f = |n: &str| o.join(n).to_str().unwrap().to_string();
        vec![
            "-fprint".to_string(),
            f("p"),
            "-fprint0".into(),
            f("p0"),
            "-fprintf".into(),
            f("pf"),
            "%p %s\n".into(),
            "-fls".into(),
            f("ls"),
            "-fprint".into(),
            f("p"),
        ]
    };
    let run = |prog: &str, out: &Path| {
        let st = Command::new(prog)
            .arg(".")
            .args(mk(out))
            .current_dir(t.path())
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .status()
            .unwrap();
        st.code()
    };
    assert_eq!(run("find", out_g.path()), run(env!("CARGO_BIN_EXE_lfind"), out_o.path()));
    for n in ["p", "p0", "pf", "ls"] {
        let a = std::fs::read(out_g.join(n)).unwrap();
        let b = std::fs::read(out_o.join(n)).unwrap();
        assert_eq!(crate::util::sorted_records(&a), crate::util::sorted_records(&b), "file {n}");
    }
}

#[test]
fn quit_and_order() {
    let t = nasty();
    // -quit: exactly GNU's output, in order.
    for c in command_lines::section("find/quit_and_order", 7) {
        compare("lfind", &run_in(t.path(), c), Stderr::Exact);
    }
    // -depth prints children before parents (ordered walk: GNU's order).
    for c in [&["-depth"][..], &["-depth", "-type", "d"], &["a", "-depth", "-printf", "%d %p\n"]] {
        compare("lfind", &run_in(t.path(), c), Stderr::Exact);
    }
}

#[test]
fn exec_family() {
    let t = nasty();
    cases(t.path(), &command_lines::section("find/exec_family", 15));
    // -ok/-okdir read answers from stdin, prompts on stderr: exact.
    for c in [
        &["-name", "*.c", "-ok", "echo", "yes", "{}", ";"][..],
        &["-name", "*.c", "-okdir", "echo", "{}", ";"],
    ] {
        let r = run_in(t.path(), c).stdin(b"y\nn\nyes\n");
        compare("lfind", &r, Stderr::Exact);
    }
}

/// The listing of a tree (type, path, size) to compare after -delete/-exec.
fn listing(dir: &Path) -> Vec<u8> {
    let o = Command::new("find")
        .arg(".")
        .arg("-printf")
        .arg("%y %p %s\n")
        .current_dir(dir)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let mut v = crate::util::sorted_records(&o.stdout);
    v.dedup();
    v.join(&b'\n')
}

/// Runs GNU and ours (every backend) on fresh copies of a tree, compares
/// stdout records, status, stderr records and the trees afterwards.
fn scratch(make: &dyn Fn() -> TempDir, a: &[&str]) {
    let g = make();
    let want = run_in(g.path(), a).exec(Path::new("/usr/bin/find"), "find", None);
    let want_tree = listing(g.path());
    for b in crate::util::BACKENDS {
        let o = make();
        let got = run_in(o.path(), a).exec(&crate::util::ours("lfind"), "find", Some(b));
        let ctx = || crate::util::context(&format!("[{b}] {a:?}"), &want, &got);
        crate::util::assert_same(&got, &want, Stderr::Exact, crate::util::Order::Records, &ctx);
        assert_eq!(
            String::from_utf8_lossy(&want_tree),
            String::from_utf8_lossy(&listing(o.path())),
            "{}",
            ctx()
        );
    }
}

#[test]
fn delete_and_mutating_exec() {
    for a in command_lines::section("find/delete_and_mutating_exec", 12) {
        scratch(&nasty, a);
    }
}

#[test]
fn errors_and_messages() {
    let t = nasty();
    cases(t.path(), &command_lines::section("find/errors_and_messages", 92));
    // POSIXLY_CORRECT silences every one of them.
    let posix = |v: &[&str]| run_in(t.path(), v).env("POSIXLY_CORRECT", "1");
    check_all(
        [
            posix(&["-warn", "-name", "a/b", "-maxdepth", "1"]),
            posix(&["-path", "a/"]),
            posix(&["-warn", "-d", "-maxdepth", "1"]),
        ]
        .into_iter(),
        compare_sorted,
    );
}

#[test]
fn unreadable_directories() {
    let t = TempDir::new("find-perm");
    build_tree(
        t.path(),
        &[
            "d:top/open/sub",
            "f:top/open/f:x",
            "d:top/closed/inner",
            "f:top/closed/secret:s",
            "d:top/noexec/x",
            "f:top/noexec/y:1",
            "f:top/ro:r",
            "f:top/rw:w",
            "f:top/exe:e",
        ],
    );
    chmod(&t.join("top/closed"), 0o000);
    chmod(&t.join("top/noexec"), 0o644);
    chmod(&t.join("top/ro"), 0o444);
    chmod(&t.join("top/rw"), 0o666);
    chmod(&t.join("top/exe"), 0o755);
    for c in command_lines::section("find/unreadable_directories", 12) {
        let r = run_in(t.path(), c).unprivileged();
        compare_sorted("lfind", &r, Stderr::Exact);
    }
}

#[test]
fn deeper_than_path_max() {
    // 30 levels × 201 bytes > PATH_MAX (4096): built with relative
    // mkdir/cd steps, since no full path works there.
    let deep = |levels: usize, leaves: bool| {
        let t = TempDir::new("find-deep");
        // perl's chdir takes the relative name as is (a shell's cd may
        // rebuild the full path and fail with ENAMETOOLONG).
        let script = format!(
            "my $seg = '0' x 200; for my $i (0..{levels}-1) {{ \
               mkdir(\"d$seg$i\") && chdir(\"d$seg$i\") or die \"$!\"; \
               if ({leaves} && $i % 10 == 9) {{ open(my $f, '>', 'leaf') or die; print $f \"leaf\\n\"; }} }}",
            leaves = if leaves { 1 } else { 0 }
        );
        let st = Command::new("perl").arg("-e").arg(script).current_dir(t.path()).status();
        assert!(st.unwrap().success());
        t
    };
    let t = deep(30, true);
    cases(t.path(), &command_lines::section("find/deeper_than_path_max", 5));
    scratch(&|| deep(25, false), &["-mindepth", "1", "-delete"]);
}

#[test]
fn names_with_bytes_in_messages() {
    let t = TempDir::new("find-bytes");
    std::fs::create_dir(raw_name(t.path(), b"d\nx\xff")).unwrap();
    chmod(&raw_name(t.path(), b"d\nx\xff"), 0o000);
    let r = Run { args: vec![b".".to_vec()], ..Run::default() }.cwd(t.path()).unprivileged();
    compare_sorted("lfind", &r, Stderr::Exact);
    let _ = std::ffi::OsStr::from_bytes(b"");
}

/// `-s` (not in GNU): each directory's entries sorted, one thread, so the
/// output is the same on every backend and run, and the records are GNU's.
#[test]
fn sorted_walk() {
    let t = nasty();
    let gnu = run_in(t.path(), &["-print"]).exec(Path::new("/usr/bin/find"), "find", None);
    let mut first: Option<Vec<u8>> = None;
    for b in crate::util::BACKENDS {
        let o =
            run_in(t.path(), &["-s", "-print"]).exec(&crate::util::ours("lfind"), "find", Some(b));
        assert_eq!(
            crate::util::sorted_records(&o.stdout),
            crate::util::sorted_records(&gnu.stdout)
        );
        if let Some(f) = &first {
            assert_eq!(f, &o.stdout, "[{b}] -s output differs between backends");
        }
        first = Some(o.stdout);
    }
    let out = first.unwrap();
    // Siblings appear in byte order.
    let s = String::from_utf8_lossy(&out);
    let top: Vec<&str> = s.lines().filter(|l| l.matches('/').count() == 1).collect();
    let mut sorted = top.clone();
    sorted.sort();
    assert_eq!(top, sorted);
}

/// The parallel walk keeps GNU's pre-order where it matters to scripts
/// (`find | cpio -p`, `while read d; do mkdir …`): a directory's record
/// comes before every record from inside it, whichever thread read it —
/// also with -print0, -fprint, a stat test, and several operands. Sibling
/// subtrees may interleave. (Threads kept their records in per-thread
/// buffers and often printed a directory after its contents.)
#[test]
fn parallel_walk_prints_parents_first() {
    let t = wide();
    let cases: &[&[&str]] = &command_lines::section("find/parallel_walk_prints_parents_first", 5);
    for b in crate::util::BACKENDS {
        for c in cases {
            // Several runs: the fault was a race, seen in 4 of 6 runs.
            for _ in 0..4 {
                let o = run_in(t.path(), c).exec(&crate::util::ours("lfind"), "find", Some(b));
                assert!(o.status.success(), "[{b}] {c:?}");
                let out = if c.contains(&"-fprint") {
                    std::fs::read(t.join("out")).unwrap()
                } else {
                    o.stdout
                };
                let sep = if c.contains(&"-print0") { 0 } else { b'\n' };
                let recs: Vec<&[u8]> = out.split(|&x| x == sep).filter(|r| !r.is_empty()).collect();
                assert!(recs.len() > 300, "[{b}] {c:?}: {} records", recs.len());
                let at: std::collections::HashMap<&[u8], usize> =
                    recs.iter().enumerate().map(|(i, r)| (*r, i)).collect();
                for (i, r) in recs.iter().enumerate() {
                    let Some(slash) = r.iter().rposition(|&x| x == b'/') else { continue };
                    if let Some(&p) = at.get(&r[..slash]) {
                        assert!(
                            p < i,
                            "[{b}] {c:?}: {} printed before its directory",
                            String::from_utf8_lossy(r)
                        );
                    }
                }
            }
        }
    }
}

/// A wide tree (about 6,000 entries) for the stream and syscall tests.
fn wide() -> TempDir {
    let t = TempDir::new("find-wide");
    for a in 0..20 {
        for b in 0..15 {
            let d = t.join(format!("d{a}/e{b}"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..20 {
                std::fs::write(d.join(format!("f{f}.c")), vec![b'x'; f * 300]).unwrap();
            }
        }
    }
    t
}

/// `| head`: the walk ends by SIGPIPE as GNU's does, on every backend.
#[test]
fn closed_pipe_ends_walk() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let t = wide();
    for b in crate::util::BACKENDS {
        let mut child = Command::new(crate::util::ours("lfind"))
            .arg(t.path())
            .env("RINGIO_BACKEND", b)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        out.read_exact(&mut first).unwrap();
        drop(out);
        let st = child.wait().unwrap();
        assert!(st.signal() == Some(libc::SIGPIPE) || st.success(), "[{b}] {st:?}");
    }
}

/// Ctrl-C: the walk stops, a running -exec child is waited for, and the
/// process ends by SIGINT (status 130 in a shell).
#[test]
fn sigint_stops_cleanly() {
    use std::os::unix::process::ExitStatusExt;
    let t = wide();
    let child = Command::new(crate::util::ours("lfind"))
        .arg(t.path())
        .args(["-name", "f1.c", "-exec", "sleep", "0.2", ";"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let st = Command::new("kill").arg("-INT").arg(child.id().to_string()).status().unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGINT), "{:?}", out.status);
}

/// Syscalls: no more than GNU find's for the same walk (counted from strace -f).
#[test]
fn syscalls_no_more_than_gnu() {
    if !crate::util::require("strace", "syscalls_no_more_than_gnu") {
        return;
    }
    let t = wide();
    let count = |prog: &Path, args: &[&str], backend: Option<&str>| -> u64 {
        let out_file = t.path().with_extension(format!("strace-{}", args.len()));
        let mut c = Command::new("strace");
        // Counts are for the C locale: setlocale reads locale files otherwise.
        c.env("LC_ALL", "C");
        c.arg("-f").arg("-c").arg("-o").arg(&out_file).arg(prog).arg(t.path()).args(args);
        c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        if let Some(b) = backend {
            c.env("RINGIO_BACKEND", b);
        }
        assert!(c.status().unwrap().success());
        let text = std::fs::read_to_string(&out_file).unwrap();
        let _ = std::fs::remove_file(&out_file);
        let total = text.lines().find(|l| l.ends_with("total")).unwrap().to_string();
        let cols: Vec<&str> = total.split_whitespace().collect();
        cols[3].parse().unwrap()
    };
    for args in [&[][..], &["-type", "f", "-name", "*.c"], &["-size", "+4k"]] {
        let gnu = count(Path::new("/usr/bin/find"), args, None);
        for b in ["threads", "sync"] {
            let ours = count(&crate::util::ours("lfind"), args, Some(b));
            assert!(ours <= gnu, "[{b}] {args:?}: {ours} syscalls vs GNU's {gnu}");
        }
    }
}

/// `> /dev/full`: GNU's two messages and status 1, for stdout and -fprint.
#[test]
fn full_disk() {
    let t = nasty();
    for extra in [&[][..], &["-fprint", "/dev/full"]] {
        let run = |prog: &Path, b: Option<&str>| {
            let mut c = Command::new(prog);
            c.arg(".").args(extra).current_dir(t.path()).env("LC_ALL", "C");
            c.stdout(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
            if let Some(b) = b {
                c.env("RINGIO_BACKEND", b);
            }
            c.output().unwrap()
        };
        let g = run(Path::new("/usr/bin/find"), None);
        for b in crate::util::BACKENDS {
            let o = run(&crate::util::ours("lfind"), Some(b));
            assert_eq!(g.status.code(), o.status.code(), "[{b}] {extra:?}");
            assert_eq!(
                String::from_utf8_lossy(&g.stderr).replace("/usr/bin/find:", "find:"),
                String::from_utf8_lossy(&o.stderr).replace("lfind:", "find:"),
                "[{b}] {extra:?}"
            );
        }
    }
}

/// `-files0-from`: starting points from a NUL-separated list (a file or
/// standard input), empty names reported in their place, the list's own
/// errors, and what can't be combined with it.
#[test]
fn files0_from() {
    let t = nasty();
    let lists = TempDir::new("find-files0");
    let l = |name: &str, data: &[u8]| {
        let p = lists.join(name);
        std::fs::write(&p, data).unwrap();
        p.to_str().unwrap().to_string()
    };
    let plain = l("plain", b"a/file.c\0a/b\0missing\0ldir");
    let holes = l("holes", b"a/file.c\0\0a/b\0\0");
    let empty = l("empty", b"");
    let dash = l("dash", b"-lead\0-\0");
    let gone = lists.join("gone'x").to_str().unwrap().to_string();
    let dir = lists.path().to_str().unwrap().to_string();
    let mut runs: Vec<Run> = [
        vec!["-files0-from", &plain],
        vec!["-files0-from", &plain, "-maxdepth", "0"],
        vec!["-L", "-files0-from", &plain, "-maxdepth", "0", "-printf", "%p %y\n"],
        vec!["-name", "*.c", "-files0-from", &plain],
        vec!["-files0-from", &holes],
        vec!["-files0-from", &holes, "-quit"],
        vec!["-files0-from", &empty],
        vec!["-files0-from", &dash],
        vec!["-files0-from", &empty, "-files0-from", &plain],
        vec!["-files0-from", &gone],
        vec!["-files0-from", &dir],
        vec!["-files0-from"],
        vec![".", "-files0-from", &plain],
        vec!["a", ".", "-files0-from", &plain],
    ]
    .iter()
    .map(|a| run_in(t.path(), a))
    .collect();
    for (stdin, args) in [
        (&b"a/b\0\0-lead"[..], &["-files0-from", "-"][..]),
        (b"a/b\0", &["-files0-from", "-", "-ok", "echo", "{}", ";"]),
        (b"a/b\0", &["-files0-from", "-", "-okdir", "echo", "{}", ";"]),
    ] {
        let mut r = run_in(t.path(), args);
        r.stdin = Some(stdin.to_vec());
        runs.push(r);
    }
    check_all(runs.into_iter(), compare_sorted);
}

/// Error messages come out between the output lines they follow, as with
/// GNU's error(), which flushes stdout first: compared with stderr and
/// stdout on one pipe (single-threaded, where the order is defined).
#[test]
fn messages_interleave_with_output() {
    let t = nasty();
    for args in [
        &["a/file.c", "missing", "ldir", "-maxdepth", "0"][..],
        &["-j1", ".", "-name", "s5*", "-print", "-newer", "missing"],
        &["-j1", "a", "missing", "-name", "*.c"],
    ] {
        let run = |prog: &std::path::Path, skip_j: bool| {
            let a: Vec<&str> = args.iter().copied().filter(|x| !(skip_j && *x == "-j1")).collect();
            let out = Command::new("sh")
                .arg("-c")
                .arg("exec \"$0\" \"$@\" 2>&1")
                .arg(prog)
                .args(&a)
                .current_dir(t.path())
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).replace("lfind:", "find:")
        };
        let gnu = run(std::path::Path::new("find"), true);
        let ours = run(&crate::util::ours("lfind"), false);
        assert_eq!(ours, gnu, "args {args:?}");
    }
}

/// Random patterns over the regex metacharacters of every dialect (groups,
/// alternation, intervals, back-references, GNU's assertions, brackets
/// with backslashes), under every -regextype, against GNU: lfind runs the
/// same glibc engine with the same syntax bits, so every pattern — valid
/// or not — must give the same matches or the same message. Seeded, so a
/// failure repeats.
#[test]
fn regex_random_patterns() {
    let t = TempDir::new("find-rx");
    build_tree(
        t.path(),
        &[
            "d:a/b",
            "f:a/b/ab:",
            "f:a/aab:",
            "f:a/a{2}:",
            "f:a/x|y:",
            "f:a/(a):",
            "f:a/a\\b:",
            "f:a/]:",
            "f:a/b+:",
            "f:a/ba:",
            "f:a/abab:",
            "f:a/a\nb:",
        ],
    );
    const TYPES: &[&str] = &[
        "findutils-default",
        "emacs",
        "posix-basic",
        "posix-minimal-basic",
        "posix-extended",
        "posix-egrep",
        "egrep",
        "grep",
        "awk",
        "gnu-awk",
        "posix-awk",
        "ed",
        "sed",
    ];
    const ATOMS: &[&str] = &[
        "a", "b", ".", "*", "+", "?", "\\+", "\\?", "|", "\\|", "(", ")", "\\(", "\\)", "{2}",
        "{1,", "\\{1\\}", "{,2}", "[ab]", "[^a]", "[\\]]", "[]a]", "\\1", "\\b", "\\B", "\\`",
        "\\'", "\\<", "\\>", "\\w", "\\W", "^", "$", "]", "}", "/", ".*", "{1}", "\\{2\\}", "{0}",
        "\\n",
    ];
    let mut rng = crate::util::Rng(0x9e37_79b9_7f4a_7c15);
    let mut next = |n: usize| rng.below(n);
    let mut c = Cases::new("lfind");
    for ty in TYPES {
        for _ in 0..40 {
            let mut p = String::from([".*", "\\./a/", "./a/b/", ""][next(4)]);
            for _ in 0..1 + next(5) {
                p.push_str(ATOMS[next(ATOMS.len())]);
            }
            let r = run_in(t.path(), &["-regextype", ty, "-regex", &p]);
            c.run(move || {
                compare_sorted("lfind", &r, Stderr::Exact);
            });
        }
    }
    c.finish();
}

/// A symlink whose target path runs through a regular file (`link ->
/// file/x`, ENOTDIR) is a broken link to GNU find: `-xtype l` is true,
/// `%Y` is `N`, no error without -L; under -L the walk reports it and
/// still lists it as the link (beside dangling and looping links).
#[test]
fn links_through_files() {
    let t = TempDir::new("find-enotdir");
    build_tree(
        t.path(),
        &[
            "f:file:",
            "l:link:file/x",
            "l:dang:nowhere",
            "l:loop:loop",
            "l:self:.",
            "d:d",
            "l:d/up:../file/y/z",
        ],
    );
    cases(t.path(), &command_lines::section("find/links_through_files", 19));
}

/// %h, %f and %P of starting points that end in slashes (only a starting
/// point can): GNU drops the trailing slashes before taking the directory
/// part, except after a one-byte name or when all is slashes.
#[test]
fn printf_names_with_trailing_slashes() {
    // Run from a subdirectory of the temp tree, so `..//` walks the test's
    // own files and not the shared temp dir, which changes while GNU's and
    // our runs happen.
    let t = TempDir::new("find-slashes");
    build_tree(t.path(), &["d:w/a/b", "d:w/ab/c", "d:w/x/a", "d:w/x/ab", "f:w/f:"]);
    let w = t.join("w");
    let fmt = "[%p|%h|%f|%P|%H]\n";
    let mut runs = Vec::new();
    for root in [
        "a/", "a//", "a///", "ab/", "ab//", "./ab/", "./a//", "x/a/", "x/ab//", "x/./", ".", "./",
        ".//", ".///", "..//", "a/./", "a/.//", ".//a/", "f",
    ] {
        runs.push(run_in(&w, &[root, "-maxdepth", "1", "-printf", fmt]));
    }
    for root in ["/", "//", "///", "/tmp/", "//tmp//"] {
        runs.push(run_in(&w, &[root, "-maxdepth", "0", "-printf", fmt]));
    }
    check_all(runs.into_iter(), compare_sorted);
}

/// -execdir/-okdir refuse a PATH that searches the current directory (`.`,
/// an empty entry) or a relative one, before walking; -exec doesn't care.
#[test]
fn execdir_insecure_path() {
    let t = nasty();
    let mut runs = Vec::new();
    for path in [
        ".:/usr/bin:/bin",
        "/usr/bin::/bin",
        ":/usr/bin:/bin",
        "/usr/bin:/bin:",
        "",
        "rel:/usr/bin:/bin",
        "/usr/bin:/bin:./x",
        "/usr/bin:./:/bin",
        "~/bin:/usr/bin:/bin",
        "/usr/bin:/bin:rel:.",
        "/usr/bin:/bin",
    ] {
        for a in command_lines::section("find/execdir_insecure_path", 5) {
            // Quoted names in messages are 'x' in C and ‘x’ in UTF-8 locales:
            // find's quoting in messages is another change, so C only there.
            let first_bad = path.split(':').find(|e| !e.starts_with('/'));
            let quoted = a[1] == "-exec" || first_bad.is_some_and(|e| !e.is_empty() && e != ".");
            let locales: &[&str] = if quoted { &["C"] } else { &["C", "C.UTF-8"] };
            for l in locales {
                runs.push(run_in(t.path(), a).env("PATH", path).env("LC_ALL", l));
            }
        }
    }
    check_all(runs.into_iter(), compare_sorted);
}

/// -ok/-okdir: what -print wrote before comes out before the question (GNU
/// flushes stdout before prompting): stdout and stderr on one pipe.
#[test]
fn ok_prompt_follows_output() {
    let t = nasty();
    for args in [
        &["a", "-print", "-name", "*.c", "-ok", "echo", "{}", ";"][..],
        &["a", "-name", "*.c", "-print", "-okdir", "echo", "{}", ";", "-print"],
        &["a", "-printf", "%p\\n", "-type", "f", "-ok", "true", ";"],
    ] {
        let run = |prog: &std::path::Path, backend: &str| {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg("exec \"$0\" \"$@\" 2>&1")
                .arg(prog)
                .args(args)
                .current_dir(t.path())
                .env("LC_ALL", "C")
                .env("RINGIO_BACKEND", backend)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"y\nn\ny\ny\nn\ny\ny\n").unwrap();
            let out = child.wait_with_output().unwrap();
            String::from_utf8_lossy(&out.stdout).replace("lfind:", "find:")
        };
        let gnu = run(std::path::Path::new("/usr/bin/find"), "");
        for b in crate::util::BACKENDS {
            let ours = run(&crate::util::ours("lfind"), b);
            assert_eq!(ours, gnu, "[{b}] args {args:?}");
        }
    }
}

/// -fprint/-fprint0/-fprintf/-fls naming one file several times, also
/// through a hard link, a symlink or another spelling: one stream (GNU
/// shares it by device and inode), nothing truncated or overwritten.
#[test]
fn output_files_shared_by_identity() {
    let t = TempDir::new("find-shared");
    build_tree(t.path(), &["d:a/b/c", "f:a/x:1", "f:a/b/y:22", "f:a/b/c/z:333"]);
    let run = |prog: &Path, ordered: bool, backend: &str| -> (Option<i32>, Vec<u8>, Vec<u8>) {
        let o = TempDir::new("find-shared-out");
        std::fs::write(o.join("o1"), b"old contents that must go").unwrap();
        std::fs::hard_link(o.join("o1"), o.join("o2")).unwrap();
        std::os::unix::fs::symlink(o.join("o1"), o.join("o3")).unwrap();
        std::fs::write(o.join("p1"), b"").unwrap();
        std::os::unix::fs::symlink("p1", o.join("p2")).unwrap();
        let f = |n: &str| o.join(n).to_str().unwrap().to_string();
        let mut c = Command::new(prog);
        if ordered {
            c.args(["-j", "1"]);
        }
        let st = c
            .arg("a")
            .args(["-fprint", &f("o1"), "-fprint0", &f("o2"), "-fprintf", &f("o3"), "F %p %s\n"])
            .args(["-fls", &format!("{}/./o1", o.path().display())])
            .args(["-fprint", &f("p1"), "-fprintf", &f("p2"), "%d\n"])
            .current_dir(t.path())
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("RINGIO_BACKEND", backend)
            .status()
            .unwrap();
        (st.code(), std::fs::read(o.join("o1")).unwrap(), std::fs::read(o.join("p1")).unwrap())
    };
    let gnu = run(Path::new("/usr/bin/find"), false, "");
    for b in crate::util::BACKENDS {
        let ours = run(&crate::util::ours("lfind"), true, b);
        assert_eq!(
            (ours.0, String::from_utf8_lossy(&ours.1), String::from_utf8_lossy(&ours.2)),
            (gnu.0, String::from_utf8_lossy(&gnu.1), String::from_utf8_lossy(&gnu.2)),
            "[{b}] -j 1"
        );
        let ours = run(&crate::util::ours("lfind"), false, b);
        assert_eq!(ours.0, gnu.0);
        for (g, o) in [(&gnu.1, &ours.1), (&gnu.2, &ours.2)] {
            assert_eq!(crate::util::sorted_records(g), crate::util::sorted_records(o), "[{b}]");
        }
    }
}

/// Symbolic -perm modes as GNU works them out: from 0, once for files and
/// once for directories (`X` adds execute bits on directories, or after an
/// earlier change set some), operators chained, set-id bits kept off
/// directories unless named.
#[test]
fn perm_symbolic_arithmetic() {
    let t = TempDir::new("find-perm");
    let modes = [
        "0", "100", "010", "001", "111", "644", "755", "700", "711", "2755", "4755", "1777",
        "6755", "070", "020", "060", "2000", "4000", "1000", "6000", "2010", "777",
    ];
    let mut spec = Vec::new();
    for m in modes {
        spec.push(format!("f:f{m}:"));
        spec.push(format!("m:f{m}:{m}"));
        spec.push(format!("d:d{m}"));
    }
    let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
    build_tree(t.path(), &spec);
    for m in modes {
        chmod(&t.join(format!("d{m}")), u32::from_str_radix(m, 8).unwrap());
    }
    let mut runs = Vec::new();
    for p in [
        "g+wX-w",
        "u=rwX",
        "a+X,u-x",
        "u+x,g+X",
        "a+X",
        "X",
        "+X",
        "=X",
        "u=X",
        "go=X",
        "a+x,u+X",
        "u+r,g=u",
        "u=rwx,g=u-w",
        "o=g",
        "g+s",
        "u+s",
        "=s",
        "a=s",
        "o+s",
        "+t",
        "o+t",
        "u+t",
        "a=rX,u+w",
        "u-X",
        "g=s,u=X",
        "+rw,-w",
        "u=rx,o=u-x,g=o",
        "ug=rwX,o=",
        "=755",
        "a=,u=rwX",
        "u=",
        "a-X",
        "+s,g-s",
    ] {
        for kind in ["", "-", "/"] {
            runs.push(run_in(t.path(), &[".", "-perm", &format!("{kind}{p}")]));
        }
    }
    for bad in ["u", "u+w,", ",u+w", "u+w,,g+w", "ug", "u+q", "u=7", "+9", "=1234567"] {
        runs.push(run_in(t.path(), &[".", "-perm", bad]));
    }
    check_all(runs.into_iter(), compare_sorted);
}

/// -ls/-fls widen the owner, group and size columns after a wider value and
/// keep them wide, so a line's bytes depend on the lines before it: the
/// walk is GNU's order whenever they are in the expression.
#[test]
fn ls_columns_widen_in_gnu_order() {
    let t = TempDir::new("find-lswide");
    let mut spec = Vec::new();
    for d in 0..6 {
        spec.push(format!("d:d{d}/s{d}"));
        for f in 0..4 {
            spec.push(format!("f:d{d}/s{d}/f{f}:x"));
        }
    }
    let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
    build_tree(t.path(), &spec);
    // Ids without names print as numbers, ten digits wide; a long group
    // name where the system has one.
    let own = |p: &str, ids: &str| {
        let st = Command::new("chown").arg(ids).arg(t.join(p)).status().unwrap();
        assert!(st.success());
    };
    own("d1/s1/f2", "4000000000");
    own("d3/s3", "0:4000000001");
    if Command::new("getent").args(["group", "messagebus"]).output().unwrap().status.success() {
        own("d4/s4/f1", "0:messagebus");
    }
    own("d0/s0/f0", "0:54321");
    own("d0/s0/f2", "54321:0");
    own("d0/s0/f3", "0:400000001");
    std::fs::File::create(t.join("d2/s2/f3")).unwrap().set_len(123_456_789_012).unwrap();
    std::fs::File::create(t.join("d5/f9")).unwrap().set_len(9_876_543_210_987).unwrap();
    let out = TempDir::new("find-lswide-out");
    let fls = out.join("fls").to_str().unwrap().to_string();
    let mut runs = Vec::new();
    for a in [
        &["-ls"][..],
        &["d0", "d3", "d1", "-ls"],
        &["-name", "f*", "-ls"],
        &["-type", "d", "-ls", "-o", "-print"],
        &["-fls", "/dev/stdout"],
        &["-fls", &fls, "-ls"],
        &["d0/s0/f0", "d0/s0/f1", "d0/s0/f3", "d0/s0/f1", "-ls"],
        &["d0/s0/f2", "d0/s0/f1", "-ls"],
        &["d1/s1/f2", "d0/s0/f2", "d0/s0/f1", "d3/s3", "d0/s0/f0", "d0/s0/f3", "-ls"],
    ] {
        runs.push(run_in(t.path(), a));
    }
    check_all(runs.into_iter(), compare);
}

/// -newermt and friends read dates in GNU's parse_datetime grammar: for
/// each date, GNU's `date -d` (same parser) gives the instant P; files
/// with mtimes P and P+1ns (or P-3s and P+3s for dates relative to now)
/// must split as `-newermt` says, for lfind and GNU find alike, in UTC
/// and Europe/Berlin; dates neither can read fail alike.
#[test]
fn newer_dates_in_gnu_grammar() {
    if !Path::new("/usr/share/zoneinfo/Europe/Berlin").exists() {
        crate::util::prerequisite_missing("newer_dates_in_gnu_grammar", "tzdata");
        return;
    }
    // (date, relative to now)
    let dates: &[(&str, bool)] = &[
        ("1991-12-14 01:01+01:00", false),
        ("1969-12-31T23:59:59Z", false),
        ("2023-01-15", false),
        ("2023-01-15 14:30", false),
        ("2023-01-15 14:30:05", false),
        ("2023-01-15 14:30:05.25", false),
        ("2023-01-15T14:30:05,5", false),
        ("2023-01-15T14:30:05+0530", false),
        ("2023-01-15T14:30:05-08:00", false),
        ("2023-07-01 12:00", false),
        ("2023-07-01 12:00 UTC", false),
        ("2023-07-01 12:00 GMT", false),
        ("2023-07-01 12:00 EST", false),
        ("2023-07-01 12:00 EDT", false),
        ("2023-07-01 12:00 PST", false),
        ("2023-07-01 12:00 JST", false),
        ("2023-07-01 12:00 Z", false),
        ("2023-07-01 12:00 A", false),
        ("2023-07-01 12:00 UTC+3", false),
        ("2023-07-01 12:00 UTC-5:30", false),
        ("2023-07-01 12:00 +0100", false),
        ("2023-07-01 12:00 -0700", false),
        ("2023-03-26 02:30", false),
        ("2023-10-29 02:30", false),
        ("Thu, 14 Dec 1991 01:01:00 +0100", false),
        ("Sat, 14 Dec 1991 01:01:00 GMT", false),
        ("14 Dec 1991", false),
        ("Dec 14 1991", false),
        ("December 14, 1991", false),
        ("14 December 1991 3pm", false),
        ("14-Dec-1991", false),
        ("Dec-14-1991", false),
        ("12/14/1991", false),
        ("1991/12/14", false),
        ("12/14/91", false),
        ("12/14/68", false),
        ("91-12-14", false),
        ("19911214", false),
        ("19911214 1530", false),
        ("1991-12-14 3:30pm", false),
        ("1991-12-14 12am", false),
        ("1991-12-14 12:15 p.m.", false),
        ("1991-12-14 (a comment) 10:00", false),
        ("1991-12-14 10:00 +2 hours", false),
        ("1991-12-14 10:00 2 days ago", false),
        ("1991-12-14 +1 month", false),
        ("1991-01-31 +1 month", false),
        ("1991-12-14 last year", false),
        ("1991-12-14 next week", false),
        ("1991-12-14 third day", false),
        ("1991-12-14 1.5 seconds ago", false),
        ("1991-12-14 10:00 -90 minutes", false),
        ("1991-12-14 fortnight", false),
        ("@0", false),
        ("@1700000000", false),
        ("@1700000000.123456789", false),
        ("@-1.5", false),
        ("@1e3", false),
        ("", false),
        ("today", true),
        ("now", true),
        ("yesterday", true),
        ("tomorrow", true),
        ("2 days ago", true),
        ("+1 hour", true),
        ("-3 weeks", true),
        ("last week", true),
        ("next month", true),
        ("this year", true),
        ("1 year ago", true),
        ("90 min ago", true),
        ("friday", false),
        ("next friday", false),
        ("last monday", false),
        ("this sunday", false),
        ("2 tuesday", false),
        ("wed", false),
        ("sunday 10:00", false),
        ("noon", false),
        ("midnight", false),
        ("10:00", false),
        ("10pm", false),
        ("1030", false),
        ("14 Dec", false),
        ("Dec 14", false),
        ("1991-02-30", false),
        ("24:00", false),
        ("0:30am", false),
        ("13pm", false),
        ("1991-12-14 25:00", false),
        ("garbage", false),
        ("1991-12-14 10:00 CET", false),
        ("2023-07-01 12:00 CEST", false),
        ("2023-07-01 12:00 CET", false),
        ("TZ=\"Europe/Berlin\" 2023-07-01 12:00", false),
        ("TZ=\"America/New_York\" 2023-01-15 09:00", false),
        ("TZ=\"UTC0\" 2023-01-15", false),
        ("TZ=\"Asia/Tokyo\" tomorrow", true),
        ("1991-12-14 10:00 UTC 1 day ago", false),
        ("jan 1 2000 00:00:00 UTC", false),
        ("1 Jan 2000 00:00 GMT-2", false),
        ("2000-01-01 00:00 dst", false),
    ];
    let t = TempDir::new("find-dates");
    let mut checked = 0;
    let mut failures = Vec::new();
    for tz in ["UTC", "Europe/Berlin"] {
        for (i, (d, rel)) in dates.iter().enumerate() {
            let out = Command::new("date")
                .args(["-d", d, "+%s %N"])
                .env("TZ", tz)
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            let run = |prog: &Path, args: &[&str]| {
                let o = Command::new(prog)
                    .args(args)
                    .current_dir(t.path())
                    .env("TZ", tz)
                    .env("LC_ALL", "C")
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr)
                    .replace("/usr/bin/find:", "find:")
                    .replace("lfind:", "find:");
                (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), err)
            };
            let (a, b) = (format!("c{i}a"), format!("c{i}b"));
            if out.status.success() {
                let txt = String::from_utf8_lossy(&out.stdout);
                let mut it = txt.split_whitespace();
                let s: i64 = it.next().unwrap().parse().unwrap();
                let ns: i64 = it.next().unwrap().parse().unwrap();
                let (ta, tb) =
                    if *rel { ((s - 3, ns), (s + 3, ns)) } else { ((s, ns), (s, ns + 1)) };
                for (n, (ts, tn)) in [(&a, ta), (&b, tb)] {
                    let total = ts as i128 * 1_000_000_000 + tn as i128;
                    let sign = if total < 0 { "-" } else { "" };
                    let (whole, frac) = (total.abs() / 1_000_000_000, total.abs() % 1_000_000_000);
                    std::fs::write(t.join(n), b"").unwrap();
                    let st = Command::new("touch")
                        .args(["-m", "-d", &format!("@{sign}{whole}.{frac:09}")])
                        .arg(t.join(n))
                        .status()
                        .unwrap();
                    assert!(st.success());
                }
            }
            let args = [a.as_str(), b.as_str(), "-newermt", d];
            let args: Vec<&str> =
                if out.status.success() { args.to_vec() } else { vec![".", "-newermt", d] };
            let gnu = run(Path::new("/usr/bin/find"), &args);
            let ours = run(&crate::util::ours("lfind"), &args);
            checked += 1;
            let want_ok = !out.status.success() || gnu.1 == format!("{b}\n");
            if ours != gnu || !want_ok {
                failures.push(format!(
                    "TZ={tz} {d:?}: gnu {gnu:?} ours {ours:?} date {:?}",
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} dates differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A directory bind-mounted below itself (GNU's du tests' setup): GNU's
/// find reports the repeated directory as a file system loop, and goes on
/// (status 1), whether or not it stats the directories and follows links.
#[test]
fn bind_mount_cycles() {
    const TEST: &str = "find bind_mount_cycles";
    let t = TempDir::new("find-bind");
    build_tree(t.path(), &["d:a/b/c", "f:a/f:x", "d:v/a/b/c", "f:v/a/b/g:yy", "f:v/a/h:z"]);
    let Some(_m1) = crate::util::BindMount::new(TEST, &t.join("a"), &t.join("a/b")) else {
        return;
    };
    let Some(_m2) = crate::util::BindMount::new(TEST, &t.join("v/a"), &t.join("v/a/b/c")) else {
        return;
    };
    cases(t.path(), &command_lines::section("find/bind_mount_cycles", 13));
}

/// GNU's tests/du/long-sloop.sh for find: under -L (or -follow) a chain
/// of directories each holding a symlink to the next is followed until the
/// path runs through more than 40 symlinks, where GNU's whole-path stat
/// fails with ELOOP.
#[test]
fn symlink_chain_longer_than_one_resolution_follows() {
    let t = crate::util::symlink_chain("find-sloop");
    cases(
        t.path(),
        &command_lines::section("find/symlink_chain_longer_than_one_resolution_follows", 8),
    );
}

/// GNU's tests/du/move-dir-while-traversing.sh for find: `T/U/3/a/b` is
/// moved to `T/U/3/b` as soon as find opens it; going back up from it,
/// GNU's fts sees its `..` is no longer `T/U/3/a` and fails, and find
/// names the starting point and skips the remaining ones (status 1).
/// Compared: stderr, the status, and which of the starting points' own
/// records are printed (what else comes before the failure depends on
/// timing).
#[test]
fn directory_moved_during_the_walk() {
    let args = ["T/U", "d2"];
    let gnu = Path::new(crate::util::gnu("lfind"));
    let mv = |prog: &Path, args: &[&str], backend| {
        crate::util::run_while_moving(prog, "find", args, backend)
    };
    let tops = |out: &[u8]| -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = out
            .split(|&c| c == b'\n')
            .filter(|n| crate::util::MOVING_TOPS.iter().any(|x| x.as_bytes() == *n))
            .map(<[u8]>::to_vec)
            .collect();
        v.sort();
        v
    };
    let want = mv(gnu, &args, None);
    assert_eq!(want.status.code(), Some(1), "GNU find: {}", String::from_utf8_lossy(&want.stderr));
    for b in crate::util::BACKENDS {
        for extra in [&[][..], &["-j1"]] {
            let mut a: Vec<&str> = extra.to_vec();
            a.extend(args);
            let got = mv(&crate::util::ours("lfind"), &a, Some(b));
            let ctx = || crate::util::context(&format!("lfind [{b}] {a:?}"), &want, &got);
            assert_eq!(got.status.code(), want.status.code(), "{}", ctx());
            assert_eq!(got.stderr, want.stderr, "{}", ctx());
            assert_eq!(tops(&got.stdout), tops(&want.stdout), "{}", ctx());
        }
    }
}

/// bfs's tests common/H_samefile_broken and H_samefile_notdir (its
/// `links` tree), and the other primaries that stat a reference file:
/// under -H and -L a reference that is a link which can't be followed
/// (dangling, or through a non-directory) is taken as the link itself, as
/// GNU's fallback_stat does; other errors still fail.
#[test]
fn reference_files_that_are_links() {
    let t = TempDir::new("find-ref-links");
    build_tree(
        t.path(),
        &[
            "d:links/deeply/nested/dir",
            "f:links/file:",
            "l:links/symlink:file",
            "h:links/hardlink:links/file",
            "l:links/broken:nowhere",
            "l:links/notdir:symlink/file",
            "f:links/deeply/nested/file:",
            "l:links/deeply/nested/link:file",
            "l:links/deeply/nested/broken:nowhere",
            "l:links/skip:deeply/nested",
        ],
    );
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for follow in ["-H", "-L", "-P"] {
        for (prim, reference) in [
            ("-samefile", "links/broken"),
            ("-samefile", "links/notdir"),
            ("-samefile", "links/symlink"),
            ("-samefile", "links/deeply/nested/broken"),
            ("-samefile", "links/nope"),
            ("-newer", "links/broken"),
            ("-anewer", "links/notdir"),
            ("-cnewer", "links/broken"),
            ("-newermm", "links/notdir"),
            ("-newerac", "links/broken"),
            ("-newer", "links/file/x"),
        ] {
            runs.push(vec![follow, "links", prim, reference]);
        }
    }
    let runs: Vec<&[&str]> = runs.iter().map(|r| r.as_slice()).collect();
    cases(t.path(), &runs);
}

/// GNU's tests/find/files0-from.sh: -ok and -okdir read their answers
/// from standard input, so a -files0-from list that is standard input is
/// refused — as `-`, and under another name (`FILE < FILE`, a link to it,
/// `/dev/stdin`), which GNU finds by comparing (dev, ino) with fstat(0).
#[test]
fn files0_from_standard_input_with_ok() {
    let script = r#"
        for c in "-files0-from in -ok echo {} ;" "-files0-from inlink -ok echo {} ;" \
                 "-files0-from /dev/stdin -okdir echo {} ;" "-files0-from - -ok echo {} ;"; do
            find $c < in; echo "rc=$?"
        done
        find -files0-from in -ok echo {} \; < inlink; echo "rc=$?"
        find -files0-from in -exec echo {} \; < in; echo "rc=$?"
        find -files0-from nope -ok echo {} \; < in; echo "rc=$?"
        find -files0-from in -ok echo {} \; < /dev/null; echo "rc=$?"
    "#;
    let setup = |d: &Path| {
        std::fs::write(d.join("in"), b".").unwrap();
        std::os::unix::fs::symlink("in", d.join("inlink")).unwrap();
    };
    crate::util::compare_script("lfind", script, &setup, Stderr::Exact, false);
}

/// A `)` where an expression should start, or right after an operator,
/// with -daystart and -files0-from in between (GNU makes no predicate of
/// those two, but names the last predicate after them): GNU's messages.
#[test]
fn closing_parentheses_where_an_expression_should_start() {
    let t = TempDir::new("find-parens");
    let lines = [
        "-files0-from - ) -print",
        "-files0-from - )",
        "-files0-from /dev/null -maxdepth 1 )",
        "-files0-from /dev/null ! )",
        "-files0-from /dev/null -print -o )",
        ". -print -and )",
        ". -not )",
        ". -print , )",
        ". ( -print -o )",
        ". ( ! )",
        ". -print -o -daystart",
        ". ! -daystart",
        ". -daystart )",
        ". ( -daystart -print )",
        ". -print -a -daystart -o -print",
        ". ( -daystart ) -o -print",
        ". -true -daystart -a -daystart )",
        ". ( -daystart",
        ". -true -o -daystart",
        ". -print )",
        ". ( -print ) )",
        ". -maxdepth 0 -daystart -print",
    ];
    let runs: Vec<Vec<&str>> = lines.iter().map(|l| l.split(' ').collect()).collect();
    let runs: Vec<&[&str]> = runs.iter().map(|r| r.as_slice()).collect();
    cases(t.path(), &runs);
}

/// `lfind /proc -size +0`: nothing about its own descriptors vanishing
/// (see du's proc_walk_reports_nothing_of_its_own).
#[test]
fn proc_walk_reports_nothing_of_its_own() {
    crate::util::proc_walk_quiet_about_itself("lfind", &["/proc", "-size", "+0"]);
}

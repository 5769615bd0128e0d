//! ldu against GNU du 9.1 (/usr/bin/du), differentially: the same command
//! on the same tree under every engine backend must give the same lines
//! (in any order between sibling subtrees — checked by
//! `util::post_order` to never put a directory before its
//! contents), the same messages and the same exit status.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::command_lines;
use crate::util::{self, build_tree, compare_unordered, Run, Stderr, TempDir};

/// Differential cases run (each under every backend), for the report.
static CASES: AtomicUsize = AtomicUsize::new(0);

fn sep_and_fields(args: &[Vec<u8>]) -> (u8, usize) {
    let null = args.iter().any(|a| a == b"-0" || a == b"--null");
    let time = args.iter().any(|a| a == b"--time" || a.starts_with(b"--time="));
    (if null { 0 } else { b'\n' }, if time { 2 } else { 1 })
}

/// Compares one run; `one_operand` also checks our post-order. Under
/// `util::in_locale` a failure is recorded and the test goes on.
fn check(run: Run, one_operand: bool) {
    CASES.fetch_add(1, Ordering::Relaxed);
    let (sep, fields) = sep_and_fields(&run.args);
    let post = move |out: &[u8]| {
        if one_operand {
            util::post_order(out, sep, fields)
        } else {
            Ok(())
        }
    };
    util::soft(move || {
        compare_unordered("ldu", &run, Stderr::Exact, sep, &post);
    });
}

// The listing tests run again in C.UTF-8, en_US.UTF-8, de_DE.UTF-8 and
// ja_JP.UTF-8, whole, on every backend (`util::in_locales!`:
// `du::sizes_and_units::de_de` …), each comparison through `util::soft`
// (in `check`) so one run lists every difference in a locale; the tests of hard links,
// mounts, permissions, deep trees and syscalls stay in C. About 4 s per
// locale on an idle core.
util::in_locales!(
    basic_listings,
    sizes_and_units,
    thresholds,
    time_columns,
    excludes,
    exclude_patterns_at_fnmatch_corners,
    errors_and_missing_operands,
    usage_errors,
);

/// `du ARGS` in `dir`, one operand (or none).
fn one(dir: &Path, args: &[&str]) {
    check(Run::new(args).cwd(dir), true)
}

/// `du ARGS` in `dir`, several operands.
fn many(dir: &Path, args: &[&str]) {
    check(Run::new(args).cwd(dir), false)
}

/// [`one`] for each command line of `section` (of command_lines/du.txt),
/// which holds `count`.
fn one_each(dir: &Path, section: &str, count: usize) {
    for args in command_lines::section(section, count) {
        one(dir, args);
    }
}

/// [`many`] for each command line of `section`, which holds `count`.
fn many_each(dir: &Path, section: &str, count: usize) {
    for args in command_lines::section(section, count) {
        many(dir, args);
    }
}

fn report(test: &str) {
    eprintln!("{test}: {} differential cases so far", CASES.load(Ordering::Relaxed));
}

/// A tree with most of what du must get right: nested directories, empty
/// ones, sparse and partly sparse files, hard links within a directory,
/// across sibling subtrees and out of the tree, symlinks to files and
/// directories, a symlink loop, a dangling link, a FIFO, odd names.
fn fixture() -> TempDir {
    let t = TempDir::new("du");
    build_tree(
        t.path(),
        &[
            "d:t/a/b/c",
            "d:t/a/d",
            "d:t/e/f/g/h",
            "d:t/empty",
            "f:t/a/one:1",
            "f:t/a/b/two:22",
            "f:t/a/b/c/three:333",
            "f:t/e/four:4444",
            "f:t/e/f/g/h/deep:deep",
            "f:t/top:top",
            "h:t/a/b/c/one-link:t/a/one",
            "h:t/e/one-link2:t/a/one",
            "h:t/a/same-dir-link:t/a/one",
            "h:t/e/f/four-link:t/e/four",
            "l:t/a/to-one:one",
            "l:t/to-b:a/b",
            "l:t/a/b/up:..",
            "l:t/dangling:nowhere",
            "p:t/fifo",
            "d:o",
            "f:o/plain:p",
            "h:o/link-into-t:t/e/four",
        ],
    );
    let big = vec![b'x'; 100_000];
    std::fs::write(t.join("t/a/d/big"), &big).unwrap();
    let f = std::fs::File::create(t.join("t/e/sparse")).unwrap();
    f.set_len(50 << 20).unwrap();
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(t.join("t/e/f/part-sparse"))
        .unwrap();
    use std::io::Write;
    (&f).write_all(&big).unwrap();
    f.set_len(20 << 20).unwrap();
    std::fs::write(util::raw_name(&t.join("t/e"), b"new\nline"), b"n").unwrap();
    std::fs::write(util::raw_name(&t.join("t/e"), b"bad\xffutf8"), b"b").unwrap();
    std::fs::write(t.join("t/e/sp ace"), b"s").unwrap();
    t
}

#[test]
fn basic_listings() {
    let t = fixture();
    let d = t.path();
    one_each(d, "du/basic_listings", 28);
    report("basic_listings");
}

#[test]
fn sizes_and_units() {
    let t = fixture();
    let d = t.path();
    one_each(d, "du/sizes_and_units", 44);
    for (var, val) in [
        ("BLOCK_SIZE", "1"),
        ("BLOCK_SIZE", "K"),
        ("BLOCK_SIZE", "human-readable"),
        ("BLOCK_SIZE", "x"),
        ("BLOCK_SIZE", "2x"),
        ("BLOCK_SIZE", ""),
        ("BLOCK_SIZE", "99999999999999999999"),
        ("DU_BLOCK_SIZE", "512"),
        ("DU_BLOCK_SIZE", "si"),
        ("DU_BLOCK_SIZE", "0x"),
        ("DU_BLOCK_SIZE", "1Z"),
        ("DU_BLOCK_SIZE", "3Kx"),
        ("DU_BLOCK_SIZE", " K"),
        ("BLOCKSIZE", "4K"),
        ("POSIXLY_CORRECT", "1"),
    ] {
        check(Run::new(["-a", "t"]).cwd(d).env(var, val), true);
    }
    check(Run::new(["-k", "t"]).cwd(d).env("BLOCK_SIZE", "1"), true);
    check(Run::new(["-a", "t"]).cwd(d).env("DU_BLOCK_SIZE", "1M").env("BLOCK_SIZE", "1"), true);
    report("sizes_and_units");
}

#[test]
fn thresholds() {
    let t = fixture();
    let d = t.path();
    one_each(d, "du/thresholds", 12);
    report("thresholds");
}

#[test]
fn hard_links_and_repeated_operands() {
    let t = fixture();
    let d = t.path();
    many_each(d, "du/hard_links_and_repeated_operands", 16);
    one_each(d, "du/hard_links_one_operand", 5);
    report("hard_links_and_repeated_operands");
}

/// Many hard links scattered over sibling subtrees: which link counts must
/// be the one GNU's sequential walk meets first, whatever order the
/// parallel walk meets them in.
#[test]
fn hard_links_across_sibling_subtrees() {
    let t = TempDir::new("du-links");
    let r = t.join("r");
    for i in 0..40 {
        let dir = r.join(format!("d{i}/sub{}", i % 3));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("own"), vec![b'o'; 5000 * (i % 4 + 1)]).unwrap();
    }
    for j in 0..30 {
        let first = r.join(format!("d{}/sub{}/f{j}", j % 40, j % 3));
        std::fs::write(&first, vec![b'x'; 4096 * (j % 5 + 1)]).unwrap();
        for k in 1..4 {
            let i = (j * 7 + k * 13) % 40;
            let other = r.join(format!("d{i}/sub{}/l{j}-{k}", i % 3));
            let _ = std::fs::hard_link(&first, other);
        }
    }
    let d = t.path();
    one_each(d, "du/hard_links_across_sibling_subtrees", 6);
    many(d, &["-a", "r/d5", "r"]);
    many(d, &["r/d20", "r/d3", "r"]);
    report("hard_links_across_sibling_subtrees");
}

#[test]
fn symlinks() {
    let t = fixture();
    let d = t.path();
    one_each(d, "du/symlinks", 16);
    many_each(d, "du/symlinks_several_operands", 5);
    report("symlinks");
}

#[test]
fn time_columns() {
    let t = fixture();
    let d = t.path();
    // Fixed times so the test does not depend on when it runs; read the
    // tree once so relatime has nothing left to update.
    let st = Command::new("touch")
        .args(["-h", "-d", "2001-02-03 04:05:06.789", "t/a/b/two", "t/e/four"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new("touch")
        .args(["-d", "1999-12-31 23:59:59", "t/top"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(st.success());
    let _ = Command::new("/usr/bin/du").args(["-aL", "t", "o"]).current_dir(d).output().unwrap();
    one_each(d, "du/time_columns", 20);
    for (style, tz) in [
        ("full-iso", "UTC"),
        ("posix-iso", "UTC"),
        ("posix-full-iso", "UTC"),
        ("locale", "UTC"),
        ("+%H:%M", "UTC"),
        ("+%Y\n%H", "UTC"),
        ("bogus", "UTC"),
        ("full-iso", "America/New_York"),
        ("full-iso", "Asia/Kolkata"),
        ("full-iso", "XYZ+3:30"),
    ] {
        check(Run::new(["--time", "-a", "t"]).cwd(d).env("TIME_STYLE", style).env("TZ", tz), true);
    }
    check(
        Run::new(["--time", "--time-style=long-iso", "t"]).cwd(d).env("TIME_STYLE", "full-iso"),
        true,
    );
    report("time_columns");
}

#[test]
fn excludes() {
    let t = fixture();
    let d = t.path();
    std::fs::write(t.join("pats"), b"*.c\nfour*  \n\n   \nt/a/b\n").unwrap();
    std::fs::write(t.join("t/a/x.c"), b"cc").unwrap();
    one_each(d, "du/excludes", 17);
    check(Run::new(["-X", "-", "-a", "t"]).cwd(d).stdin(b"*.c\nb\n"), true);
    report("excludes");
}

/// --exclude at the corners of fnmatch, and of GNU's literal patterns (one
/// without wildcards is unescaped and compared as a string: `a\` then
/// excludes a file named `a\`, which fnmatch would not).
#[test]
fn exclude_patterns_at_fnmatch_corners() {
    let t = TempDir::new("du-glob");
    build_tree(t.path(), &["d:g"]);
    build_tree(&t.join("g"), util::GLOB_NAMES);
    for p in util::GLOB_PATTERNS {
        one(t.path(), &["-a", "--exclude", p, "g"]);
    }
    report("exclude_patterns_at_fnmatch_corners");
}

#[test]
fn files0_from() {
    let t = fixture();
    let d = t.path();
    std::fs::write(t.join("list"), b"t/a\0t/e/four\0nope\0t/a/b\0").unwrap();
    std::fs::write(t.join("list-bad"), b"t/a\0\0t/top\0\0").unwrap();
    std::fs::write(t.join("list-noterm"), b"t/e\0t/top").unwrap();
    std::fs::write(t.join("list-empty"), b"").unwrap();
    many_each(d, "du/files0_from", 9);
    check(Run::new(["--files0-from=-", "-c"]).cwd(d).stdin(b"t/a\0-\0t/e\0"), false);
    check(Run::new(["--files0-from=-"]).cwd(d).stdin(b""), false);
    report("files0_from");
}

#[test]
fn errors_and_missing_operands() {
    let t = fixture();
    let d = t.path();
    many_each(d, "du/errors_and_missing_operands", 6);
    report("errors_and_missing_operands");
}

#[test]
fn unreadable_directories_as_unprivileged_user() {
    let t = fixture();
    let d = t.path();
    build_tree(
        d,
        &[
            "d:u/closed/inner",
            "f:u/closed/inner/x:x",
            "f:u/closed/y:y",
            "d:u/no-exec/sub",
            "f:u/no-exec/f:f",
            "d:u/no-read/sub",
            "f:u/no-read/f:f",
            "d:u/open/deeper/closed2",
            "f:u/open/deeper/closed2/z:z",
            "f:u/open/ok:ok",
        ],
    );
    util::chmod(&d.join("u/closed"), 0o000);
    util::chmod(&d.join("u/no-exec"), 0o644);
    util::chmod(&d.join("u/no-read"), 0o311);
    util::chmod(&d.join("u/open/deeper/closed2"), 0o700);
    for args in command_lines::section("du/unreadable_directories_as_unprivileged_user", 8) {
        check(Run::new(args).cwd(d).unprivileged(), true);
    }
    check(Run::new(["u/closed", "u/open", "nope"]).cwd(d).unprivileged(), false);
    report("unreadable_directories_as_unprivileged_user");
}

#[test]
fn usage_errors() {
    let t = fixture();
    let d = t.path();
    many_each(d, "du/usage_errors", 63);
    check(Run::new(["t", "-s"]).cwd(d).env("POSIXLY_CORRECT", "1"), false);
    report("usage_errors");
}

/// `-x` against a real mount point: a tmpfs mounted inside the tree.
#[test]
fn one_file_system_with_a_mount_point() {
    let t = fixture();
    let d = t.path();
    let mnt = t.join("t/mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&mnt)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        util::skipped("one_file_system_with_a_mount_point", "cannot mount a tmpfs here");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _guard = Unmount(&mnt);
    build_tree(&mnt, &["d:inner/deeper", "f:inner/deeper/file:content", "f:top:t"]);
    std::fs::write(mnt.join("inner/big"), vec![b'm'; 300_000]).unwrap();
    std::os::unix::fs::symlink("mnt/inner", t.join("t/to-mnt")).unwrap();
    one_each(d, "du/one_file_system_with_a_mount_point", 9);
    many(d, &["-x", "t/mnt", "t"]);
    report("one_file_system_with_a_mount_point");
}

#[test]
fn names_and_output_errors() {
    let t = fixture();
    let d = t.path();
    // Operands with odd names are printed raw, as GNU does.
    let run = Run {
        args: vec![b"-a".to_vec(), b"t/e/new\nline".to_vec(), b"t/e/bad\xffutf8".to_vec()],
        ..Run::default()
    }
    .cwd(d);
    check(run, false);
    let run = Run { args: vec![b"nope\nwith\xffbytes".to_vec()], ..Run::default() }.cwd(d);
    check(run, false);
    // A full disk is an error; a closed pipe ends the run quietly.
    let full = Command::new("sh")
        .arg("-c")
        .arg(format!("{} -a t > /dev/full", util::ours("ldu").display()))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(full.status.code(), Some(1));
    assert!(
        // GNU du flushes every line, so close_stdout finds the error
        // already recorded and prints no errno (faults/output.rs compares
        // the message with GNU's byte for byte).
        full.stderr.ends_with(b"du: write error\n") || full.stderr.ends_with(b"ldu: write error\n"),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
    let pipe = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} -a t | head -1 >/dev/null; echo ${{PIPESTATUS:-ok}}",
            util::ours("ldu").display()
        ))
        .current_dir(d)
        .output()
        .unwrap();
    assert!(pipe.stderr.is_empty(), "{}", String::from_utf8_lossy(&pipe.stderr));
    let _ = d.join("x").as_os_str().as_bytes();
    report("names_and_output_errors");
}

/// Hard links are remembered only when a file has several: a tree of
/// single-link files is walked without touching the link table. Checked
/// by syscall count: one statx per entry plus the operand, nothing more.
#[test]
fn syscalls_stay_per_entry() {
    if !util::require("strace", "syscalls_stay_per_entry") {
        return;
    }
    let t = TempDir::new("du-sys");
    for i in 0..20 {
        let dir = t.join(format!("r/d{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for j in 0..25 {
            std::fs::write(dir.join(format!("f{j}")), b"x").unwrap();
        }
    }
    let entries: u64 = 20 + 20 * 25;
    let r = t.join("r");
    for backend in ["sync", "threads"] {
        let env = [("RINGIO_BACKEND", backend)];
        let Some(run) = crate::syscalls::count_syscalls(
            &util::ours("ldu"),
            &["-s".as_ref(), r.as_os_str()],
            &env,
        ) else {
            return;
        };
        // The operand, each entry once, and std's 4 looks at the cgroup
        // CPU quota (the loader's fstats are newfstatat, not counted).
        let stats = run.get("statx");
        assert!(
            stats <= entries + 1 + 4,
            "{backend}: {stats} stats for {entries} entries: {:?}",
            run.calls
        );
        // A directory is opened once; the loader and std add a few opens.
        assert!(run.get("openat") <= 21 + 8, "{backend}: {:?}", run.calls);
        // One getdents64 call per directory where the file system marks
        // the end in the last record (ext4); else one more to see the end.
        let marks_end = util::on_ext4(t.path());
        let limit = if marks_end { 21 } else { 2 * 21 };
        assert!(run.get("getdents64") <= limit, "{backend}: {:?}", run.calls);
    }
}

/// A directory big enough that its stats are shared among the walker's
/// threads (walk's split at 1024 entries), with links and subdirectories
/// among the files.
#[test]
fn big_flat_directory() {
    let t = TempDir::new("du-flat");
    let r = t.join("r");
    std::fs::create_dir_all(&r).unwrap();
    for i in 0..3000 {
        let p = r.join(format!("f{i:04}"));
        match i % 50 {
            7 => std::fs::create_dir_all(p.join("sub")).unwrap(),
            13 => std::os::unix::fs::symlink(format!("f{:04}", i - 13), &p).unwrap(),
            17 => std::os::unix::fs::symlink("missing", &p).unwrap(),
            29 if i > 100 => std::fs::hard_link(r.join(format!("f{:04}", i - 100)), &p).unwrap(),
            _ => std::fs::write(&p, vec![b'z'; (i % 9) * 700]).unwrap(),
        }
    }
    let d = t.path();
    one_each(d, "du/big_flat_directory", 6);
    report("big_flat_directory");
}

/// `-h`/`--si` rounding at the edges (GNU rounds up, shows one decimal
/// below 10, carries 1023.95K to 1.0M), on apparent sizes, which can be
/// any byte count (sparse files make big ones cheap).
#[test]
fn human_rounding_edges() {
    let t = TempDir::new("du-human");
    let r = t.join("r");
    std::fs::create_dir_all(&r).unwrap();
    let sizes: &[u64] = &[
        0,
        1,
        999,
        1000,
        1001,
        1023,
        1024,
        1025,
        1500,
        9999,
        10000,
        10239,
        10240,
        10241,
        102_399,
        102_400,
        1_048_063,
        1_048_575,
        1_048_576,
        1_048_577,
        9_999_999,
        10_000_000,
        10_485_759,
        10_485_760,
        1_073_741_823,
        1_073_741_824,
        1_099_511_627_775,
        10_995_116_277_759,
    ];
    for s in sizes {
        let f = std::fs::File::create(r.join(format!("s{s}"))).unwrap();
        f.set_len(*s).unwrap();
    }
    let d = t.path();
    one_each(d, "du/human_rounding_edges", 9);
    report("human_rounding_edges");
}

/// A tree deeper than a 1024-descriptor soft limit and than PATH_MAX: the
/// walker holds a descriptor per level and opens relative to it, and ldu
/// raises the soft limit to the hard one, so it copes as GNU's fts does.
#[test]
fn deeper_than_the_descriptor_limit_and_path_max() {
    let t = TempDir::new("du-deep");
    let ok = Command::new("perl")
        .arg("-e")
        .arg(r#"mkdir "deep"; chdir "deep"; for (1..1500) { mkdir "dd"; chdir "dd"; open F, ">f"; print F "x" x ($_ % 5000); close F; }"#)
        .current_dir(t.path())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        util::prerequisite_missing("deeper_than_the_descriptor_limit_and_path_max", "perl");
        return;
    }
    for args in [&["-s", "deep"][..], &["deep"], &["-a", "--apparent-size", "deep"]] {
        let cmd = |prog: &str| {
            let mut c = Command::new("sh");
            c.arg("-c").arg(r#"ulimit -Sn 1024 && exec "$@""#).arg("sh").arg(prog).args(args);
            c.current_dir(t.path()).env("LC_ALL", "C");
            c.output().unwrap()
        };
        let want = cmd("/usr/bin/du");
        let ours = util::ours("ldu");
        let got = cmd(ours.to_str().unwrap());
        CASES.fetch_add(1, Ordering::Relaxed);
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{args:?}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert!(got.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&got.stderr));
        assert!(
            util::sorted_records_by(&got.stdout, b'\n')
                == util::sorted_records_by(&want.stdout, b'\n'),
            "{args:?}: output differs"
        );
    }
    report("deeper_than_the_descriptor_limit_and_path_max");
}

/// GNU's tests/du/bind-mount-dir-cycle.sh and -v2.sh, and around them: a
/// directory bind-mounted below itself is its ancestor again, which du
/// leaves out silently (GNU: a mount point is in the cycle); a walk from
/// below the mount point finds no cycle until the mount leads back up.
#[test]
fn bind_mount_cycles() {
    const TEST: &str = "bind_mount_cycles";
    let t = TempDir::new("du-bind");
    build_tree(t.path(), &["d:a/b/c", "f:a/f:x", "d:v/a/b/c", "f:v/a/b/g:yy", "f:v/a/h:z"]);
    let Some(_m1) = util::BindMount::new(TEST, &t.join("a"), &t.join("a/b")) else { return };
    let Some(_m2) = util::BindMount::new(TEST, &t.join("v/a"), &t.join("v/a/b/c")) else { return };
    let d = t.path();
    one_each(d, "du/bind_mount_cycles", 12);
    many(d, &["a", "a/b"]);
    many(d, &["-s", "v/a/b", "v/a"]);
    report(TEST);
}

/// GNU's tests/du/long-sloop.sh: under -L, a chain of directories each
/// holding a symlink to the next is followed until the path from the
/// working directory runs through more symlinks than one resolution may
/// (40), where GNU's whole-path stat fails with ELOOP.
#[test]
fn symlink_chain_longer_than_one_resolution_follows() {
    let t = util::symlink_chain("du-sloop");
    let d = t.path();
    for args in
        [&["-L", "1"][..], &["-La", "1"], &["-L", "-s", "1"], &["1"], &["-H", "1"], &["-L", "l1"]]
    {
        one(d, args);
    }
    report("symlink_chain_longer_than_one_resolution_follows");
}

/// GNU's tests/du/move-dir-while-traversing.sh: `T/U/3/a/b` is moved to
/// `T/U/3/b` as soon as du opens it. Going back up from it, GNU's fts finds
/// its `..` is no longer `T/U/3/a` and fails: "fts_read failed", nothing
/// more of that operand, the next operand as usual, status 1. Compared:
/// stderr, the status, and which of the operands' own lines are printed
/// (what comes before the failure depends on timing).
#[test]
fn directory_moved_during_the_walk() {
    let args = ["-a", "T/U", "d2"];
    let gnu = Path::new(util::gnu("ldu"));
    let mv = |prog: &Path, backend| util::run_while_moving(prog, "du", &args, backend);
    let tops = |out: &[u8]| -> Vec<Vec<u8>> {
        out.split(|&c| c == b'\n')
            .filter_map(|l| l.iter().position(|&c| c == b'\t').map(|t| l[t + 1..].to_vec()))
            .filter(|n| util::MOVING_TOPS.iter().any(|x| x.as_bytes() == n.as_slice()))
            .collect()
    };
    let want = mv(gnu, None);
    assert_eq!(want.status.code(), Some(1), "GNU du: {}", String::from_utf8_lossy(&want.stderr));
    for b in util::BACKENDS {
        let got = mv(&util::ours("ldu"), Some(b));
        CASES.fetch_add(1, Ordering::Relaxed);
        let ctx = || util::context(&format!("ldu [{b}] {args:?}"), &want, &got);
        assert_eq!(got.status.code(), want.status.code(), "{}", ctx());
        assert_eq!(got.stderr, want.stderr, "{}", ctx());
        assert_eq!(tops(&got.stdout), tops(&want.stdout), "{}", ctx());
    }
    report("directory_moved_during_the_walk");
}

/// `ldu -s /proc`: what vanishes between listing and stat is reported, as
/// GNU's fts reports it, but hardly ever the walk's own descriptors
/// (`/proc/PID/fd`, `fdinfo`, once per thread under `task/`), opened and
/// closed by the other walker threads: closes wait while such a directory
/// is read (dozens of such lines per run before; GNU prints 4, for the
/// one descriptor its fts closes before its stats).
#[test]
fn proc_walk_reports_nothing_of_its_own() {
    util::proc_walk_quiet_about_itself("ldu", &["-s", "/proc"]);
}

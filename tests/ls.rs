//! lsr against GNU ls (coreutils 9.1, LC_ALL=C, TZ=UTC) on trees built
//! here: every case runs our binary under every engine backend and GNU's
//! once and compares stdout, exit status and stderr byte for byte. The
//! main tests run again in the other four locales (see `in_locales!`).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use crate::command_lines;
use crate::util::{build_tree, compare, have, raw_name, same_bytes, Cases, Run, Stderr, TempDir};

/// The fixture tree lives one level down, so that `..` (listed by -a) is
/// ours and stable while other tests create directories in /tmp.
struct Fixture {
    _t: TempDir,
    root: std::path::PathBuf,
}

impl Fixture {
    fn path(&self) -> &Path {
        &self.root
    }
}

/// A tree with every file type, awkward names, odd modes and times.
fn fixture() -> Fixture {
    let t = TempDir::new("ls");
    let root = t.join("fx");
    std::fs::create_dir(&root).unwrap();
    crate::util::chmod(&root, 0o755);
    let r = root.as_path();
    build_tree(
        r,
        &[
            "d:dir",
            "d:dir/sub",
            "f:dir/sub/deep.txt:deep",
            "f:dir/a.txt:hello",
            "f:dir/b.TXT:",
            "f:dir/c.tar.gz:zz",
            "f:dir/.dot:",
            "f:plain:abc",
            "f:exec.sh:#!/bin/sh\n",
            "m:exec.sh:755",
            "f:setuid:",
            "m:setuid:4755",
            "f:setgid:",
            "m:setgid:2755",
            "f:suid-noexec:",
            "m:suid-noexec:4644",
            "d:sticky",
            "m:sticky:1777",
            "d:otherw",
            "m:otherw:777",
            "d:stickyonly",
            "m:stickyonly:1755",
            "f:odd:",
            "m:odd:7000",
            "l:link:plain",
            "l:dangling:nowhere",
            "l:dirlink:dir",
            "l:loop1:loop2",
            "l:loop2:loop1",
            "l:execlink:exec.sh",
            "h:hard:plain",
            "p:fifo",
            "f:.hidden:",
            "f:backup~:",
            "f:.hidden~:",
            "f:-dash:",
            "f:a b:",
            "f:it's:",
            "f:v1.10:",
            "f:v1.9:",
            "f:v1.9.tar.gz:",
            "f:x.tar.gz:",
            "f:UPPER.TXT:",
            "f:star*:",
            "f:eq=:",
            "f:at@:",
            "f:pipe|:",
            "f:colon\\:x:",
        ],
    );
    std::fs::write(raw_name(r, b"new\nline"), b"").unwrap();
    std::fs::write(raw_name(r, b"tab\there"), b"").unwrap();
    std::fs::write(raw_name(r, b"ctl\x01x"), b"").unwrap();
    std::fs::write(raw_name(r, b"bad\xffutf8"), b"").unwrap();
    std::fs::write(raw_name(r, b"esc\x1b[31mred"), b"").unwrap();
    std::fs::write(raw_name(r, &[b'L'; 255]), b"").unwrap();
    // Sizes around the human-readable boundaries, and a sparse file.
    for (name, size) in
        [("s1023", 1023u64), ("s1024", 1024), ("s1025", 1025), ("s10239", 10239), ("s1m", 1 << 20)]
    {
        let f = std::fs::File::create(r.join(name)).unwrap();
        f.set_len(size).unwrap();
    }
    let f = std::fs::File::create(r.join("sparse")).unwrap();
    f.set_len(5 << 30).unwrap();
    std::fs::write(r.join("dense"), vec![7u8; 70_000]).unwrap();
    // A socket.
    let _ = std::os::unix::net::UnixListener::bind(r.join("sock"));
    // Devices (root only; otherwise skipped silently).
    let _ = Command::new("mknod").arg(r.join("chardev")).args(["c", "1", "3"]).status();
    let _ = Command::new("mknod").arg(r.join("blockdev")).args(["b", "7", "200"]).status();
    // Old, future and fixed times.
    touch(r, "plain", "2001-02-03 04:05:06.123456789");
    touch(r, "v1.9", "1970-01-01 00:00:00");
    touch(r, "v1.10", "2100-01-01 00:00:00");
    touch(r, "s1024", "2020-06-15 12:00:00");
    touch(r, "exec.sh", "-1 day");
    // Owners: a name from /etc/passwd, and ids nobody knows.
    let _ = Command::new("chown").arg("65534:65534").arg(r.join("s1025")).status();
    let _ = Command::new("chown").arg("123456:654321").arg(r.join("s1m")).status();
    let _ = Command::new("chown").args(["-h", "4242:0"]).arg(r.join("link")).status();
    // ACLs (the `+` of -l): setfacl is a prerequisite `cargo xtask test`
    // installs; without it both tools see no ACL and the marker goes untested.
    if !have("setfacl") {
        crate::util::prerequisite_missing("ls fixture", "setfacl (acl) for the ACL entries");
    } else {
        std::fs::write(r.join("acl-file"), b"").unwrap();
        std::fs::create_dir(r.join("acl-dir")).unwrap();
        let _ = Command::new("setfacl").args(["-m", "u:nobody:r"]).arg(r.join("acl-file")).status();
        let _ = Command::new("setfacl")
            .args(["-d", "-m", "u:nobody:r"])
            .arg(r.join("acl-dir"))
            .status();
    }
    // Settle directory atimes so GNU's read and ours see the same ones.
    let _ = Command::new("ls").arg("-laR").arg(t.path()).output();
    Fixture { _t: t, root }
}

fn touch(root: &Path, name: &str, when: &str) {
    let st = Command::new("touch").args(["-h", "-d", when]).arg(root.join(name)).status().unwrap();
    assert!(st.success());
}

fn ls(dir: &Path, args: &[&str]) {
    compare("lsr", &Run::new(args).cwd(dir), Stderr::Exact);
}

fn ls_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) {
    let mut r = Run::new(args).cwd(dir);
    for (k, v) in env {
        r = r.env(k, v);
    }
    compare("lsr", &r, Stderr::Exact);
}

impl Cases {
    fn ls(&mut self, dir: &Path, args: &[&str]) {
        let (d, a): (std::path::PathBuf, Vec<String>) =
            (dir.to_path_buf(), args.iter().map(|s| s.to_string()).collect());
        self.run(move || {
            let v: Vec<&str> = a.iter().map(String::as_str).collect();
            ls(&d, &v)
        });
    }

    fn ls_env(&mut self, dir: &Path, args: &[&str], env: &[(&str, &str)]) {
        let d = dir.to_path_buf();
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let e: Vec<(String, String)> =
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        self.run(move || {
            let v: Vec<&str> = a.iter().map(String::as_str).collect();
            let ev: Vec<(&str, &str)> = e.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            ls_env(&d, &v, &ev)
        });
    }
}

// The tests below that shape what is printed (order, names, columns,
// sizes, times, messages) run again in C.UTF-8, en_US.UTF-8, de_DE.UTF-8
// and ja_JP.UTF-8, whole, on every backend (`util::in_locales!`:
// `ls::listings_match_gnu::de_de` …). Those about kernels, syscalls,
// permissions, pipes and sizes of directories stay in C: nothing there
// depends on the locale. A debug-build run of all of these takes about
// 20 s per locale on an idle core.
crate::util::in_locales!(
    listings_match_gnu,
    ignore_patterns_match_gnu,
    colors_from_ls_colors,
    environment_variables,
    operands_and_errors,
    usage_errors,
    quoting_styles_cover_every_byte,
    terminal_behaviour,
    version_sort_corners,
    random_option_combinations,
    ascii_names_in_collation_order,
);

#[test]
fn listings_match_gnu() {
    let t = fixture();
    let mut c = Cases::new("listings");
    for args in command_lines::section("ls/listings", 220) {
        c.ls(t.path(), args);
    }
    c.finish();
}

/// -I and --hide (FNM_PERIOD) at the corners of fnmatch.
#[test]
fn ignore_patterns_match_gnu() {
    let t = TempDir::new("ls-glob");
    build_tree(t.path(), crate::util::GLOB_NAMES);
    let mut c = Cases::new("ignore patterns");
    for p in crate::util::GLOB_PATTERNS {
        c.ls(t.path(), &["-A", "-I", p]);
        c.ls(t.path(), &["--hide", p]);
    }
    c.finish();
}

/// File systems without d_type: every entry's type comes from a stat.
#[test]
fn listings_without_d_type() {
    let t = fixture();
    let mut c = Cases::new("no-dtype");
    for args in command_lines::section("ls/listings_without_d_type", 10) {
        c.ls_env(t.path(), args, &[("RINGUTILS_TEST_IGNORE_DTYPE", "1"), ("TERM", "xterm")]);
    }
    c.finish();
}

#[test]
fn colors_from_ls_colors() {
    let mut c = Cases::new("colors");
    let t = fixture();
    let cases: &[&str] = &[
        "di=01;31:ln=01;36:*.txt=01;32:*.TXT=04",
        "ln=target:or=41:mi=45",
        "ex=00:fi=33:no=35",
        "su=01:sg=02:st=03:ow=04:tw=05:pi=06:so=07:bd=08:cd=09:mh=44",
        "ca=01;31",
        "lc=\\e[:rc=m:ec=\\e[0m",
        "lc=<:rc=>",
        "*.gz=\\x41\\101^[:*~=1",
        "rs=0:cl=\\e[K:do=01",
        "no=01;33",
        "",
    ];
    for lsc in cases {
        for args in [
            &["--color=always"][..],
            &["-l", "--color=always"],
            &["-C", "-F", "--color=always"],
            &["-lD", "--color=always"],
        ] {
            c.ls_env(t.path(), args, &[("LS_COLORS", lsc)]);
        }
    }
    // Unparsable values and unknown keys turn colour off with a warning.
    c.ls_env(t.path(), &["--color=always"], &[("LS_COLORS", "zz=1")]);
    c.ls_env(t.path(), &["--color=always"], &[("LS_COLORS", "di")]);
    // Without LS_COLORS: the terminal name decides.
    for term in ["xterm", "xterm-256color", "dumb", "vt100", "screen.linux", ""] {
        c.ls_env(t.path(), &["--color=always", "-F"], &[("TERM", term)]);
    }
    c.ls_env(t.path(), &["--color=always"], &[("COLORTERM", "truecolor")]);
    c.finish();
}

#[test]
fn environment_variables() {
    let mut c = Cases::new("env");
    let t = fixture();
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "60")]);
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "junk")]);
    c.ls_env(t.path(), &["-C", "-w", "30"], &[("COLUMNS", "60")]);
    c.ls_env(t.path(), &["-C"], &[("TABSIZE", "4")]);
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "0")]);
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "0x30")]);
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "-5")]);
    c.ls_env(t.path(), &["-C"], &[("COLUMNS", "99999999999999999999")]);
    c.ls_env(t.path(), &["-C"], &[("TABSIZE", "x")]);
    c.ls_env(t.path(), &["-C"], &[("TABSIZE", "0x3")]);
    c.ls_env(t.path(), &["-l"], &[("TIME_STYLE", "long-iso")]);
    c.ls_env(t.path(), &["-l"], &[("TIME_STYLE", "+%s")]);
    c.ls_env(t.path(), &["-l"], &[("TIME_STYLE", "bogus")]);
    c.ls_env(t.path(), &["-l"], &[("QUOTING_STYLE", "c")]);
    c.ls_env(t.path(), &[], &[("QUOTING_STYLE", "shell-always")]);
    c.ls_env(t.path(), &[], &[("QUOTING_STYLE", "bogus")]);
    c.ls_env(t.path(), &["-ls"], &[("LS_BLOCK_SIZE", "1M")]);
    c.ls_env(t.path(), &["-ls"], &[("BLOCK_SIZE", "human-readable")]);
    // The environment is read leniently, as GNU's human_options does.
    c.ls_env(t.path(), &["-ls"], &[("BLOCK_SIZE", "2x")]);
    c.ls_env(t.path(), &["-ls"], &[("LS_BLOCK_SIZE", "x")]);
    c.ls_env(t.path(), &["-l"], &[("TIME_STYLE", "lo")]);
    c.ls_env(t.path(), &["-l"], &[("TIME_STYLE", "posix-long-iso")]);
    c.ls_env(t.path(), &["-ls"], &[("POSIXLY_CORRECT", "1")]);
    c.ls_env(t.path(), &["-l"], &[("TZ", "America/New_York")]);
    c.ls_env(t.path(), &["-l", "--full-time"], &[("TZ", "Asia/Kolkata")]);
    c.finish();
}

#[test]
fn operands_and_errors() {
    let mut c = Cases::new("operands");
    let t = fixture();
    let d = t.path();
    c.ls(d, &["missing"]);
    c.ls(d, &["plain", "missing", "dir"]);
    c.ls(d, &["dir", "plain", "sticky", "exec.sh"]);
    c.ls(d, &["-l", "dir", "plain", "link"]);
    c.ls(d, &["dir"]);
    c.ls(d, &["dir", "dir"]);
    c.ls(d, &["plain", "plain"]);
    c.ls(d, &["-R", "dir"]);
    c.ls(d, &["-t", "plain", "v1.9", "v1.10", "dir"]);
    c.ls(d, &["-r", "dir", "sticky", "otherw"]);
    c.ls(d, &["-U", "dir", "plain", "sticky"]);
    c.ls(d, &["--", "-dash"]);
    c.ls(d, &["-l", "loop1"]);
    c.ls(d, &["loop1/x"]);
    c.ls(d, &["-L", "loop1"]);
    c.ls(d, &["-L", "dangling"]);
    c.ls(d, &["plain/"]);
    c.ls(d, &["dir/", "dir/sub/"]);
    c.ls(d, &[""]);
    c.ls(d, &["new\nline", "ctl\x01x"]);
    c.ls(d, &["-R", "--quoting-style=c", "dir"]);
    c.ls(d, &["-b", "-R", "."]);
    // Not /tmp: other tests create and remove entries there concurrently,
    // changing its link count and mtime between the two runs.
    c.ls(d, &["-ld", "/", "/usr", "/bin", "."]);
    c.ls(d, &["-lL", "dangling", "loop1", "link"]);
    c.ls(d, &["-RL", "dir"]);
    c.ls(d, &["missing\nname", "it's gone", "$x", "tab\there2", "-"]);
    c.ls(d, &["-l", "gone\x01", "plain"]);
    c.ls(d, &["--", "--", "-"]);
    // Directory operands widen the files' block and inode columns, as in GNU.
    c.ls(d, &["-s", "--block-size=1", "plain", "dir"]);
    c.ls(d, &["-si", "--block-size=1", "link", "dir", "sticky"]);
    c.finish();
}

#[test]
fn usage_errors() {
    let mut c = Cases::new("usage");
    let t = fixture();
    let d = t.path();
    for args in command_lines::section("ls/usage_errors", 52) {
        c.ls(d, args);
    }
    for bs in [
        "K",
        "KB",
        "KiB",
        "k",
        "kB",
        "1k",
        "2K",
        "M",
        "MB",
        "G",
        "GB",
        "TiB",
        "1000",
        "512",
        "B",
        "0x10",
        "010",
        "'1",
        "'K",
        "1.5K",
        "0.5K",
        "Ki",
        "iB",
        "human",
        "s",
        "9999999999999999999999",
        "-1",
        "",
        "b",
        "1b",
        "KD",
        "1KD",
        "kiB",
        "Kib",
        "K ",
        " 1K",
        "+1K",
        "1e",
        "1Z",
        "1R",
        "0K",
        "08",
        "0x",
        "1T",
    ] {
        let arg = format!("--block-size={bs}");
        c.ls(d, &["-ls", &arg]);
    }
    c.ls(d, &["-l"]);
    c.finish();
}

#[test]
fn many_entries() {
    let mut c = Cases::new("many");
    let t = TempDir::new("ls-many");
    for i in 0..5000 {
        std::fs::write(t.join(format!("f{i:05}-{}", "x".repeat(i % 37))), b"").unwrap();
    }
    for args in
        [&[][..], &["-l"], &["-C"], &["-x", "-w", "120"], &["-m"], &["-lt"], &["-lS"], &["-v"]]
    {
        c.ls(t.path(), args);
    }
    c.finish();
}

/// A directory big enough for the long format's two-thread paths (its
/// measures taken beside the sort from 16,384 entries, its rows formatted
/// by two threads from 32,768; `long.rs`): every line must still be GNU's,
/// in order, with widths taken over all of them.
#[test]
fn long_listing_of_a_big_directory() {
    use std::os::unix::fs::PermissionsExt;
    let mut c = Cases::new("big-long");
    let tmp = TempDir::new("ls-big-long");
    // One level down: `-a` lists `..`, which must not be /tmp, whose link
    // count and time change as other tests make and remove directories
    // there (one case failed so under load: `..` with 29 links, then 30).
    let t = tmp.join("d");
    std::fs::create_dir(&t).unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    for i in 0..40_000usize {
        let name = match i % 5 {
            0 => format!("f{i:05}"),
            1 => format!("F {i} x"),
            2 => format!("é{i}ü"),
            3 => format!("{}-{i}", "n".repeat(i % 41)),
            _ => format!("z{i}.c"),
        };
        let path = t.join(&name);
        match i % 997 {
            0 => std::os::unix::fs::symlink(format!("target-{i}"), &path).unwrap(),
            1 => std::fs::create_dir(&path).unwrap(),
            _ => {
                let f = std::fs::File::create(&path).unwrap();
                f.set_len((i as u64 * 7919) % 3_000_000).unwrap();
                if i % 13 == 0 {
                    f.set_modified(old).unwrap();
                }
                if i % 1000 == 7 {
                    std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o4755))
                        .unwrap();
                }
            }
        }
    }
    // One ACL: every mode then gets its marker column.
    if have("setfacl") {
        let _ = Command::new("setfacl").args(["-m", "u:nobody:r"]).arg(t.join("f00005")).status();
    }
    for args in command_lines::section("ls/long_listing_of_a_big_directory", 12) {
        c.ls(&t, args);
        c.ls_env(&t, args, &[("LC_ALL", "en_US.UTF-8")]);
    }
    c.finish();
}

/// Directories whose names are all printable ASCII, which a non-C
/// collation sorts from a table of the locale's first-level weights
/// instead of `strxfrm` keys (`collate.rs`, `ascii_ranks`): every
/// punctuation mark, case and digit mix, names equal but for ignorable
/// characters, names alike beyond 16 characters, and a directory of
/// 20,000 (its order taken while the stats run, its rows formatted by two
/// threads).
fn ascii_names_in_collation_order() {
    let t = TempDir::new("ls-ascii-coll");
    let small = t.join("small");
    let big = t.join("big");
    std::fs::create_dir(&small).unwrap();
    std::fs::create_dir(&big).unwrap();
    let printable: Vec<u8> = (0x20u8..0x7f).filter(|&c| c != b'/').collect();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    for i in 0..1500 {
        let len = 1 + next(12);
        let pool: &[u8] = match i % 4 {
            0 => &printable,
            1 => b"aAbB-._ 0123$~",
            2 => b"file-.txt0123456789",
            _ => b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_",
        };
        let mut name: Vec<u8> = (0..len).map(|_| pool[next(pool.len())]).collect();
        if name == b"." || name == b".." {
            name.push(b'x');
        }
        let _ = std::fs::write(small.join(std::ffi::OsStr::from_bytes(&name)), b"");
    }
    for n in ["a-b", "a.b", "ab", "a_b", "A-B", "Ab", "aB", "$a", "a$", "-", "--", ".x", "x."] {
        let _ = std::fs::write(small.join(n), b"");
    }
    for i in 0..20_000 {
        let name = match i % 4 {
            0 => format!("file-{i:07}.txt"),
            1 => format!("File_{:07}-{}", i * 7 % 20_000, i % 3),
            2 => format!("same-prefix-long-long-long-{i}"),
            _ => format!(".hidden.{}", i * 13 % 20_000),
        };
        std::fs::write(big.join(name), b"").unwrap();
    }
    for args in [&["-a"][..], &["-al"], &["-ar"], &["-aS"], &["-A1"], &["-alt"]] {
        ls(&small, args);
        ls(&big, args);
    }
}

#[test]
fn dt_unknown_free_paths_and_deep_trees() {
    let mut c = Cases::new("deep");
    let t = TempDir::new("ls-deep");
    let mut p = t.path().to_path_buf();
    for i in 0..12 {
        p = p.join(format!("level{i}"));
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("f"), b"x").unwrap();
    }
    c.ls(t.path(), &["-R"]);
    c.ls(t.path(), &["-lR"]);
    c.finish();
}

/// `-R` while the device looks cold (latency added to what ringio's
/// detector measures): the read-ahead then runs all the readers it may, each
/// going on into subdirectories on its own, and the listings still come
/// out in GNU's order, forward and reversed.
#[test]
fn recursive_listing_read_ahead_while_cold() {
    let mut c = Cases::new("cold -R");
    let t = TempDir::new("ls-cold-r");
    let root = t.join("r");
    for a in 0..12 {
        for b in 0..4 {
            let d = root.join(format!("a{a:02}")).join(format!("b{b}"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..25 {
                std::fs::write(d.join(format!("f{f:02}")), vec![b'x'; f * 7]).unwrap();
            }
            std::fs::create_dir(d.join(format!("c{b}"))).unwrap();
        }
    }
    let _ = Command::new("ls").arg("-laR").arg(t.path()).output();
    for args in [&["-R", "r"][..], &["-alR", "r"], &["-lRr", "r"], &["-lRt", "r"]] {
        c.ls_env(t.path(), args, &[("RINGUTILS_TEST_FAULT", "slow:500")]);
    }
    c.finish();
}

#[test]
fn unprivileged_permission_errors() {
    if !crate::util::require("setpriv", "unprivileged_permission_errors") {
        return;
    }
    let t = TempDir::new("ls-perm");
    let r = t.path();
    build_tree(
        r,
        &[
            "d:open",
            "f:open/x:",
            "d:closed",
            "f:closed/y:",
            "m:closed:000",
            "d:noexec",
            "f:noexec/z:",
            "f:noexec/w:",
            "m:noexec:644",
            "d:deep",
            "d:deep/locked",
            "m:deep/locked:000",
        ],
    );
    for args in command_lines::section("ls/unprivileged_permission_errors", 13) {
        // setpriv runs the binaries by path, so program names in messages
        // differ; compare stdout, status and whether stderr is empty.
        compare("lsr", &Run::new(args).cwd(r).unprivileged(), Stderr::Presence);
    }
}

/// Every byte in three positions, in every quoting style.
#[test]
fn quoting_styles_cover_every_byte() {
    let mut c = Cases::new("bytes");
    let t = TempDir::new("ls-bytes");
    for b in 1u8..=255 {
        if b == b'/' {
            continue;
        }
        for name in
            [vec![b], vec![b'a', b, b'b'], vec![b, b'z'], vec![b'x', b'\'', b], vec![b'\'', b]]
        {
            if name == b"." || name == b".." {
                continue;
            }
            let _ = std::fs::write(raw_name(t.path(), &name), b"");
        }
    }
    // Every style GNU accepts (its own list, the one its usage error
    // prints: `usage_errors` compares that message with GNU's).
    for style in cli::quote::Style::NAMES {
        let q = format!("--quoting-style={style}");
        c.ls(t.path(), &[&q, "-a"]);
        c.ls(t.path(), &[&q, "-aF"]);
        c.ls(t.path(), &[&q, "-aC", "-w", "100"]);
        c.ls(t.path(), &[&q, "-aq", "-x"]);
    }
    c.finish();
}

/// Runs a command line under a pseudo-terminal (util-linux `script`) and
/// returns what the terminal received.
fn on_tty(prog: &str, args: &[&[u8]], cwd: &Path, env: &[(&str, &str)]) -> Vec<u8> {
    on_sized_tty(prog, args, cwd, env, None)
}

/// [`on_tty`] on a terminal `cols` wide when given (set by `stty` inside
/// the session; `script` without a terminal of its own makes one of width
/// 0, which GNU takes as no width at all).
fn on_sized_tty(
    prog: &str,
    args: &[&[u8]],
    cwd: &Path,
    env: &[(&str, &str)],
    cols: Option<u16>,
) -> Vec<u8> {
    let mut cmd = match cols {
        Some(n) => format!("stty cols {n} rows 24 && "),
        None => String::new(),
    };
    cmd.push_str("exec -a ls ");
    cmd.push_str(prog);
    for a in args {
        cmd.push(' ');
        cmd.push('\'');
        for &b in *a {
            if b == b'\'' {
                cmd.push_str("'\\''");
            } else {
                cmd.push(b as char);
            }
        }
        cmd.push('\'');
    }
    let mut c = Command::new("script");
    c.args(["-qec"]).arg(std::ffi::OsStr::from_bytes(&latin1(&cmd))).arg("/dev/null");
    c.current_dir(cwd).env_clear();
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("TZ", "UTC");
    c.env("LC_ALL", crate::util::current_locale());
    c.env("TERM", "xterm");
    // script runs the line with $SHELL (else /bin/sh, dash here, whose
    // `exec` has no -a: GNU and ours would print the same error).
    c.env("SHELL", "/bin/bash");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    assert!(
        !o.stdout.windows(9).any(|w| w == b"not found"),
        "the pty command did not run: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    o.stdout
}

/// The command string was built from bytes pushed as chars; turn it back.
fn latin1(s: &str) -> Vec<u8> {
    s.chars().map(|c| c as u32 as u8).collect()
}

#[test]
fn terminal_behaviour() {
    if !crate::util::require("script", "terminal_behaviour") {
        return;
    }
    let t = fixture();
    let ours = env!("CARGO_BIN_EXE_lsr");
    let cases: &[&[&[u8]]] = &[
        &[],
        &[b"-l"],
        &[b"-a"],
        &[b"-x"],
        &[b"-m"],
        &[b"-1"],
        &[b"-F"],
        &[b"--color=auto"],
        &[b"--color=auto", b"-l"],
        &[b"--hyperlink=auto", b"-1"],
        &[b"--classify=auto"],
        &[b"-N"],
        &[b"-w", b"50"],
        &[b"new\nline", b"esc\x1b[31mred", b"ctl\x01x", b"it's", b"dir"],
        &[b"-R", b"dir"],
    ];
    for env in [&[("COLUMNS", "80")][..], &[("COLUMNS", "132")], &[]] {
        for args in cases {
            let want = on_tty("/usr/bin/ls", args, t.path(), env);
            for b in crate::util::BACKENDS {
                let mut e = env.to_vec();
                e.push(("RINGIO_BACKEND", b));
                let got = on_tty(ours, args, t.path(), &e);
                same_bytes(&format!("tty {args:?} {env:?} [{b}]"), &want, &got);
            }
        }
    }
    // No raw control character of a name ever reaches the terminal, even
    // where GNU would print it (--show-control-chars, --zero): a deliberate
    // difference.
    let guarded: [&[&[u8]]; 4] = [
        &[b"-1"],
        &[b"--show-control-chars"],
        &[b"--zero"],
        &[b"-N", b"--show-control-chars", b"-l"],
    ];
    for args in guarded {
        let got = on_tty(ours, args, t.path(), &[]);
        assert!(!got.windows(2).any(|w| w == b"\x1b["), "escape sequence leaked with {args:?}");
        assert!(!got.contains(&0x01), "control byte leaked with {args:?}");
    }
}

#[test]
fn head_closes_pipe_quietly() {
    let t = TempDir::new("ls-pipe");
    for i in 0..3000 {
        std::fs::write(t.join(format!("file-with-a-long-name-{i:06}")), b"").unwrap();
    }
    let ours = env!("CARGO_BIN_EXE_lsr");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("'{ours}' -l | head -1; echo \"status ${{PIPESTATUS:-x}}\""))
        .current_dir(t.path())
        .output()
        .unwrap();
    assert!(o.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.starts_with(b"total "));
    // Out of space: an error and status 2, like GNU.
    if Path::new("/dev/full").exists() {
        let f = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(ours)
            .env("LC_ALL", "C")
            .arg("-l")
            .current_dir(t.path())
            .stdout(f)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("write error"));
    }
}

/// Plain `lsr` to a pipe and `lsr -1` must not stat anything.
#[test]
fn no_stat_without_need() {
    if !crate::util::require("strace", "no_stat_without_need") {
        return;
    }
    let t = TempDir::new("ls-nostat");
    for i in 0..500 {
        std::fs::write(t.join(format!("f{i}")), b"").unwrap();
    }
    std::fs::create_dir(t.join("d")).unwrap();
    let ours = env!("CARGO_BIN_EXE_lsr");
    for args in [&[][..], &["-1"], &["-a"], &["-U"], &["-r"], &["-p"], &["--file-type"], &["-C"]] {
        for b in ["sync", "threads"] {
            let o = Command::new("strace")
                .env("LC_ALL", "C")
                .args([
                    "-f",
                    "-qq",
                    "-e",
                    "trace=statx,newfstatat,lstat,stat,fstatat64",
                    "-o",
                    "/dev/stderr",
                ])
                .arg(ours)
                .args(args)
                .env("RINGIO_BACKEND", b)
                .current_dir(t.path())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            // The dynamic loader's probes use absolute paths; ours are relative.
            let stats = err
                .lines()
                .filter(|l| {
                    l.contains("stat") && !l.contains("AT_EMPTY_PATH") && !l.contains(", \"/")
                })
                .count();
            assert!(stats == 0, "{args:?} [{b}] stat'ed {stats} times:\n{err}");
        }
    }
}

/// The io_uring backend keeps `lsr -al` of 10,000 files under 100 syscalls.
#[test]
fn uring_syscall_budget() {
    if !crate::util::require("strace", "uring_syscall_budget") {
        return;
    }
    if !ringio::uring_available() {
        crate::util::skipped("uring_syscall_budget", &ringio::uring_description());
        return;
    }
    let t = TempDir::new("ls-budget");
    for i in 0..10_000 {
        std::fs::write(t.join(format!("file-{i:07}.txt")), b"").unwrap();
    }
    let ours = env!("CARGO_BIN_EXE_lsr");
    let o = Command::new("strace")
        .env("LC_ALL", "C")
        .args(["-f", "-c", "-o", "/dev/stderr"])
        .arg(ours)
        .arg("-al")
        .env("RINGIO_BACKEND", "uring")
        // The budget is the C locale's: from the caller's LANG (C.UTF-8
        // here) setlocale would add ~75 calls loading locale files.
        .env("LC_ALL", "C")
        .env_remove("LD_LIBRARY_PATH")
        .current_dir(t.path())
        .stdout(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let total: u64 = err
        .lines()
        .find(|l| l.trim_end().ends_with("total"))
        .and_then(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok()))
        .unwrap_or(u64::MAX);
    assert!(total <= 100, "lsr -al (uring) made {total} syscalls:\n{err}");
}

fn ours_out(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lsr"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .output()
        .unwrap()
}

#[test]
fn tree_output() {
    let t = TempDir::new("ls-tree");
    build_tree(
        t.path(),
        &["d:a", "d:a/b", "f:a/b/deep:", "f:a/x:", "f:top:", "d:c", "l:a/link:../c", "f:.hid:"],
    );
    for b in crate::util::BACKENDS {
        let o = Command::new(env!("CARGO_BIN_EXE_lsr"))
            .args(["--tree", "-F"])
            .current_dir(t.path())
            .env("RINGIO_BACKEND", b)
            .output()
            .unwrap();
        let want =
            "./\n├── a/\n│   ├── b/\n│   │   └── deep\n│   ├── link -> ../c/\n│   └── x\n├── c/\n└── top\n";
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "[{b}]");
    }
    let o = ours_out(t.path(), &["--tree=1", "a"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "a\n├── b\n├── link -> ../c\n└── x\n");
    let o = ours_out(t.path(), &["--tree", "-a", "c"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "c\n");
}

#[test]
fn json_output() {
    let t = TempDir::new("ls-json");
    build_tree(t.path(), &["d:d", "f:d/f:abc", "l:d/l:f", "l:d/dang:nowhere"]);
    std::fs::write(raw_name(&t.join("d"), b"q\"\n\xff"), b"").unwrap();
    let o = ours_out(t.path(), &["--json=lines", "d"]);
    let s = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 4, "{s}");
    assert!(lines.iter().all(|l| l.starts_with('{') && l.ends_with('}')));
    let f = lines.iter().find(|l| l.contains("\"name\":\"f\"")).unwrap();
    assert!(
        f.contains("\"type\":\"file\"")
            && f.contains("\"size\":3")
            && f.contains("\"path\":\"d/f\"")
    );
    let l = lines.iter().find(|l| l.contains("\"name\":\"l\"")).unwrap();
    assert!(l.contains("\"target\":\"f\"") && l.contains("\"target_ok\":true"), "{l}");
    let d = lines.iter().find(|l| l.contains("\"name\":\"dang\"")).unwrap();
    assert!(d.contains("\"target_ok\":false"));
    let q = lines.iter().find(|l| l.contains("name_bytes")).unwrap();
    assert!(q.contains("\\\"\\n\u{fffd}") && q.contains("[113,34,10,255]"), "{q}");
    let o = ours_out(t.path(), &["--json=lines", "-R"]);
    assert_eq!(String::from_utf8(o.stdout).unwrap().lines().count(), 5);
}

#[test]
fn icons_prefix_names() {
    let t = TempDir::new("ls-icons");
    build_tree(t.path(), &["d:src", "f:main.rs:", "f:notes.txt:"]);
    let o = ours_out(t.path(), &["--icons=always", "-1"]);
    let s = String::from_utf8(o.stdout).unwrap();
    assert_eq!(s, "\u{e7a8} main.rs\n\u{f15c} notes.txt\n\u{f07b} src\n");
    let o = ours_out(t.path(), &["--icons=auto", "-1"]);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "main.rs\nnotes.txt\nsrc\n");
}

/// Symlink loops under -RL: only ancestors are refused, as GNU does, and
/// messages interleave with the listing the same way when both streams go
/// to one place (GNU flushes stdout before each message).
#[test]
fn loops_and_interleaved_errors() {
    let t = TempDir::new("ls-loops");
    let r = t.path();
    build_tree(
        r,
        &[
            "d:x/y",
            "d:z",
            "l:z/lx:../x",
            "l:z/ly:../x/y",
            "l:x/y/up:..",
            "l:x/dangle:nope",
            "f:x/f:",
        ],
    );
    let mut c = Cases::new("loops");
    for args in
        [&["-RL", "."][..], &["-RL", "x", "z"], &["-R", "."], &["-lRL", "z"], &["-L", "-l", "x"]]
    {
        c.ls(r, args);
    }
    c.finish();
    let merged = |prog: &str, args: &str| {
        // bash: dash's `exec` has no -a.
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!("exec -a ls {prog} {args} 2>&1"))
            .current_dir(r)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        (o.stdout, o.status.code())
    };
    for args in ["-RL .", "-lL x", "-R . missing", "missing x/f"] {
        let want = merged("/usr/bin/ls", args);
        let got = merged(env!("CARGO_BIN_EXE_lsr"), args);
        assert!(
            want == got,
            "{args}:\n--- gnu ---\n{}\n--- ours ---\n{}",
            String::from_utf8_lossy(&want.0),
            String::from_utf8_lossy(&got.0)
        );
    }
}

/// `-v` against GNU's filevercmp on names chosen to hit its corners.
#[test]
fn version_sort_corners() {
    let t = TempDir::new("ls-ver");
    for n in [
        "a~",
        "a",
        "a1",
        "a01",
        "a001",
        "a1b",
        "a1.5",
        "a1.10",
        "1.0~rc1",
        "1.0",
        "1.0.1",
        "1.0a",
        ".hidden1",
        ".hidden10",
        ".hidden2",
        "foo-1.2.tar.gz",
        "foo-1.10.tar.gz",
        "foo-1.10.tar.bz2",
        "a.b.c",
        "00",
        "0",
        "~",
        "-",
        "x.~1~",
        "x.~10~",
        "x.~2~",
        "abc.txt",
        "abc.TXT",
        "abc1.txt",
        "lib2.so.10",
        "lib2.so.9",
        "z9",
        "z10",
        "z010",
        "Z1",
        "_a",
        "#1",
        "%2",
        "a-b",
        "a_b",
        "a.1",
        "a.1.2",
        "a..b",
        "v0.0",
        "v0.00",
        "v00",
    ] {
        std::fs::write(t.join(n), b"").unwrap();
    }
    let mut c = Cases::new("version");
    for args in [&["-va"][..], &["-vr"], &["-vA", "-1"], &["--sort=version", "-x", "-w", "60"]] {
        c.ls(t.path(), args);
    }
    c.finish();
}

#[test]
fn help_and_version() {
    let t = TempDir::new("ls-help");
    let o = ours_out(t.path(), &["--help", "-l", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("Usage: lsr [OPTION]... [FILE]..."));
    let o = ours_out(t.path(), &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("lsr (ringutils) "));
}

/// Random combinations of options (fixed seed), each against GNU.
#[test]
fn random_option_combinations() {
    let t = fixture();
    const POOL: &[&str] = &[
        "-a",
        "-A",
        "-l",
        "-1",
        "-C",
        "-x",
        "-m",
        "-R",
        "-d",
        "-r",
        "-t",
        "-S",
        "-X",
        "-v",
        "-U",
        "-c",
        "-u",
        "-h",
        "--si",
        "-k",
        "-s",
        "-i",
        "-n",
        "-g",
        "-o",
        "-G",
        "-F",
        "-p",
        "-Q",
        "-b",
        "-q",
        "-N",
        "-L",
        "-H",
        "--full-time",
        "--group-directories-first",
        "-B",
        "--color=always",
        "--file-type",
        "--quoting-style=shell",
        "--quoting-style=shell-escape",
        "--quoting-style=c",
        "--quoting-style=escape",
        "-w",
        "-T",
        "--time-style=long-iso",
        "--time-style=iso",
        "--sort=width",
        "--hyperlink=always",
        "--zero",
        "--author",
        "-Z",
        "-I",
        "--hide",
        "--indicator-style=slash",
        "-D",
    ];
    let mut rng = crate::util::Rng(0x5eed_1234_abcd_0001);
    let mut next = move || rng.next();
    let mut c = Cases::new("random");
    for _ in 0..250 {
        let n = 1 + (next() % 4) as usize;
        let mut args: Vec<String> = Vec::new();
        for _ in 0..n {
            let o = POOL[(next() % POOL.len() as u64) as usize];
            args.push(o.to_string());
            match o {
                "-w" => args.push(["0", "20", "47", "80", "200"][(next() % 5) as usize].into()),
                "-T" => args.push(["0", "1", "4", "8"][(next() % 4) as usize].into()),
                "-I" | "--hide" => {
                    args.push(["*.txt", "s*", "[a-d]*", ".*"][(next() % 4) as usize].into())
                }
                _ => {}
            }
        }
        if next() % 3 == 0 {
            args.push(
                ["dir", "dirlink", "plain", "link", "dangling", "sticky"][(next() % 6) as usize]
                    .into(),
            );
        }
        let v: Vec<&str> = args.iter().map(String::as_str).collect();
        c.ls_env(t.path(), &v, &[("TERM", "xterm")]);
    }
    c.finish();
}

/// SELinux contexts (the `security.selinux` attribute, set here by hand
/// since the machine runs no SELinux): `.` after the mode in -l for a
/// labelled file without an ACL, `+` when it has both, the context under
/// -Z (left-aligned in -l, right-aligned otherwise, `?` for none and for
/// "unlabeled"), a symlink's own label. The directory is labelled too, as
/// on an SELinux system: under io_uring contexts are only asked for in
/// labelled directories.
#[test]
fn selinux_contexts() {
    let t = TempDir::new("ls-selinux");
    let r = t.join("d");
    std::fs::create_dir_all(r.join("sub")).unwrap();
    for f in ["plain", "labelled", "long", "unlab", "both", "sub/inner"] {
        std::fs::write(r.join(f), b"x").unwrap();
    }
    std::os::unix::fs::symlink("labelled", r.join("link")).unwrap();
    let label = |p: &str, v: &str, follow: bool| {
        let mut c = Command::new("setfattr");
        if !follow {
            c.arg("-h");
        }
        let st = c.args(["-n", "security.selinux", "-v", v]).arg(r.join(p)).status();
        st.is_ok_and(|s| s.success())
    };
    if !label(".", "system_u:object_r:tmp_t:s0", true) {
        crate::util::skipped("selinux_contexts", "security.selinux can't be set here");
        return;
    }
    label("labelled", "system_u:object_r:user_home_t:s0", true);
    label("long", "unconfined_u:object_r:a_much_longer_type_name_t:s0-s0:c0.c1023", true);
    label("unlab", "unlabeled", true);
    label("both", "system_u:object_r:tmp_t:s0", true);
    label("sub", "system_u:object_r:tmp_t:s0", true);
    label("link", "system_u:object_r:symlink_t:s0", false);
    let _ = Command::new("setfacl").args(["-m", "u:nobody:r"]).arg(r.join("both")).status();
    let mut c = Cases::new("selinux");
    for args in command_lines::section("ls/selinux_contexts", 13) {
        c.ls(&r, args);
    }
    c.finish();
}

/// Debian's `eval "$(dircolors -b)"`: the LS_COLORS value it exports.
fn dircolors_default() -> String {
    let o = Command::new("dircolors").arg("-b").env_clear().output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let v = text
        .lines()
        .find_map(|l| l.strip_prefix("LS_COLORS='"))
        .and_then(|l| l.split_once("';"))
        .map(|(v, _)| v.to_string());
    v.unwrap_or_else(|| panic!("dircolors -b printed no LS_COLORS: {text}"))
}

/// GNU's clear-to-end-of-line rule with colour: `\e[K` follows a coloured
/// name only when the name, printed from column `start` with width `w`,
/// may wrap (`start / L != (start + w - 1) / L`), where L is COLUMNS (or
/// the terminal's width, else 80) — consulted in long format too once
/// --color asks for colour — and where, in long format, GNU counts
/// `start` only from the end of the owner/group/author/context columns
/// when any is printed. /usr/bin-like names and long link targets around
/// columns 80 and 120, under dircolors' defaults and none.
#[test]
fn clear_to_end_of_line_with_colour() {
    let t = TempDir::new("ls-clreol");
    let d = t.join("bin");
    std::fs::create_dir(&d).unwrap();
    for n in (20..130).step_by(3) {
        let name = format!("{}-{}", "activate-global-python-argcomplete", "x".repeat(n - 20));
        let p = d.join(&name[..n.min(name.len())]);
        std::fs::write(&p, b"#!/bin/sh\n").unwrap();
        crate::util::chmod(&p, 0o755);
    }
    for n in [30usize, 45, 60, 70, 75, 80, 85, 95, 110] {
        let target = format!("/usr/lib/python3/dist-packages/{}", "t".repeat(n));
        std::os::unix::fs::symlink(&target, d.join(format!("dangling{n}"))).unwrap();
        std::os::unix::fs::symlink(format!("../{}", "d".repeat(n)), d.join(format!("rel{n}")))
            .unwrap();
    }
    std::fs::create_dir(t.join("d".repeat(110))).unwrap();
    for n in [30usize, 60, 95] {
        std::os::unix::fs::symlink("/usr/bin/env", d.join(format!("env{}", "e".repeat(n))))
            .unwrap();
    }
    let dircolors = dircolors_default();
    let mut c = Cases::new("clear to end of line");
    for ls_colors in [dircolors.as_str(), ""] {
        for columns in ["120", "80", "100", "", "0", "zz"] {
            for args in command_lines::section("ls/clear_to_end_of_line_with_colour", 10) {
                let mut a = args.to_vec();
                a.push("bin");
                c.ls_env(t.path(), &a, &[("LS_COLORS", ls_colors), ("COLUMNS", columns)]);
            }
        }
    }
    // The common interactive case: a terminal that reports no size
    // (script's pty) with COLUMNS=120, and --color=auto.
    if !have("script") {
        crate::util::prerequisite_missing("clear_to_end_of_line_with_colour", "script(1)");
    } else {
        let ours = env!("CARGO_BIN_EXE_lsr");
        for columns in ["120", "80"] {
            let env = [("LS_COLORS", dircolors.as_str()), ("COLUMNS", columns)];
            for args in
                [&[&b"-l"[..], b"--color=auto", b"bin"][..], &[b"--color=auto", b"-1", b"bin"]]
            {
                let want = on_tty("/usr/bin/ls", args, t.path(), &env);
                let got = on_tty(ours, args, t.path(), &env);
                same_bytes(&format!("tty {args:?} COLUMNS={columns}"), &want, &got);
            }
        }
    }
    c.finish();
}

/// Column fitting (-C, -x, -m) against GNU over every width from 1 to 40
/// and name sets of varied sizes and lengths (fixed seed): GNU counts no
/// gap after the last column (`ls -w4 -x a b` is `a  b`, coreutils'
/// tests/ls/w-option.sh) and -m wraps by its own rule. The layout does
/// not depend on the engine, so ours runs on the default backend only.
#[test]
fn column_fitting_over_widths() {
    let mut rng = crate::util::Rng(0xc01_5eed_0042);
    let mut failed = Vec::new();
    let mut cases = 0;
    for set in 0..10 {
        let t = TempDir::new("ls-fit");
        // The first sets are GNU's own corner: one-character names.
        let n = if set < 2 { 2 + set } else { 1 + rng.below(14) };
        for i in 0..n {
            let len = if set < 2 { 1 } else { 1 + rng.below(12) };
            let name: String =
                std::iter::once((b'a' + i as u8) as char).chain((1..len).map(|_| 'x')).collect();
            std::fs::write(t.join(&name), b"").unwrap();
        }
        for w in 1..=40 {
            let w = w.to_string();
            for args in
                [&["-C", "-T0"][..], &["-x", "-T0"], &["-m"], &["-C"], &["-x", "-F"], &["-C", "-i"]]
            {
                let mut a: Vec<&str> = vec!["-w", &w];
                a.extend_from_slice(args);
                let run = Run::new(&a).cwd(t.path());
                let want = run.exec(Path::new(crate::util::gnu("lsr")), "ls", None);
                let got = run.exec(&crate::util::ours("lsr"), "ls", None);
                cases += 1;
                if (&got.stdout, got.status.code(), &got.stderr)
                    != (&want.stdout, want.status.code(), &want.stderr)
                {
                    failed.push(crate::util::context(&format!("{n} names, {a:?}"), &want, &got));
                }
            }
        }
    }
    assert!(
        cases > 2000 && failed.is_empty(),
        "{} of {cases} differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// A bind mount of a directory below itself (root): GNU's -R refuses the
/// directory it has already listed above (`ls: a/b: not listing
/// already-listed directory`, status 2) by the open directory's device and
/// inode, with or without -L. The mount lives in the scratch directory and
/// is undone however the test ends.
#[test]
fn recursion_into_a_bind_mount_of_an_ancestor() {
    if !crate::util::root() {
        crate::util::skip("recursion_into_a_bind_mount_of_an_ancestor", "not root (mount --bind)");
        return;
    }
    let t = TempDir::new("ls-bind");
    let r = t.path();
    build_tree(r, &["d:a/b", "d:a/c", "f:a/f:x", "l:a/c/up:../..", "l:a/self:."]);
    let a = r.join("a");
    let ok = Command::new("mount").arg("--bind").arg(&a).arg(a.join("b")).status();
    if !ok.is_ok_and(|s| s.success()) {
        crate::util::skip("recursion_into_a_bind_mount_of_an_ancestor", "mount --bind failed");
        return;
    }
    // Dropped before `t`: the mount is gone before the directory is removed.
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let st = Command::new("umount").arg(&self.0).status();
            if !st.is_ok_and(|s| s.success()) {
                let _ = Command::new("umount").arg("-l").arg(&self.0).status();
            }
        }
    }
    let _mounted = Unmount(a.join("b"));
    let mut c = Cases::new("bind-loop");
    for args in command_lines::section("ls/recursion_into_a_bind_mount_of_an_ancestor", 11) {
        c.ls(r, args);
    }
    c.finish();
}

/// A tree deeper than PATH_MAX (made by relative mkdir and `cd -P`, as no path
/// reaches its bottom): GNU stats each entry by its path from the working
/// directory, so an entry whose path is too long gets "cannot access …:
/// File name too long" and a row of `?` (its type from d_type, `total` not
/// counting it), and a directory among them "cannot open directory". Each
/// level holds names of three lengths, so the limit is crossed by files,
/// links and directories at different depths.
#[test]
fn paths_longer_than_path_max() {
    let t = TempDir::new("ls-pathmax");
    let d = "d".repeat(90);
    let long = "x".repeat(150);
    let script = format!(
        "for i in $(seq 48); do mkdir {d} && ln -s f l && : > f && : > {long} && cd -P {d} || exit 1; done"
    );
    let st = Command::new("sh").arg("-c").arg(&script).current_dir(t.path()).status().unwrap();
    assert!(st.success(), "building the deep tree failed");
    let mut c = Cases::new("path-max");
    for args in [
        &["-lR", &d][..],
        &["-R", &d],
        &["-laR", &d],
        &["-FR", &d],
        &["-iR", &d],
        &["-sR", &d],
        &["-lRL", &d],
        &["-R", "--color=always", &d],
        &["-lR", "--color=always", &d],
    ] {
        c.ls(t.path(), args);
    }
    c.finish();
}

/// `-L` through a chain of 400 symbolic links (`N/s -> ../N+1`): the
/// kernel follows at most 40 in one path, and GNU stats entries by their
/// path from the working directory, so an entry 41 links down is "Too many
/// levels of symbolic links" (a `?` row, no descent) even though it is one
/// link away from the directory being listed.
#[test]
fn symlink_chains_past_the_kernel_limit() {
    let t = TempDir::new("ls-chain");
    let r = t.path();
    for i in 1..=401 {
        std::fs::create_dir(r.join(i.to_string())).unwrap();
    }
    for i in 1..=400 {
        std::os::unix::fs::symlink(format!("../{}", i + 1), r.join(format!("{i}/s"))).unwrap();
        if i % 7 == 0 {
            std::fs::write(r.join(format!("{i}/f")), b"").unwrap();
        }
    }
    let chain = |n: usize| {
        std::iter::once("1").chain(std::iter::repeat_n("s", n)).collect::<Vec<_>>().join("/")
    };
    let (all, at39, at40) = (chain(400), chain(39), chain(40));
    let mut c = Cases::new("chain");
    for args in [
        &["-L", &all][..],
        &["-lL", &all],
        &["-RL", "1"],
        &["-lRL", "1"],
        &["-FRL", "1"],
        &["-RL", "-i", "1"],
        &["-RL", "--color=always", "1"],
        &["-lL", &at39],
        &["-lL", &at40],
        &["-L", "-F", &at40],
        &["-l", &at40],
        &["-lR", "1"],
    ] {
        c.ls(r, args);
    }
    c.finish();
}

/// The line length on a terminal: its width (TIOCGWINSZ) wins over
/// COLUMNS, which GNU reads (and warns about) only where the terminal
/// gives no width; -w wins over both.
#[test]
fn terminal_width_over_columns() {
    if !have("script") || !have("stty") {
        crate::util::prerequisite_missing("terminal_width_over_columns", "script(1), stty(1)");
        return;
    }
    let t = TempDir::new("ls-ttywidth");
    for i in 0..40 {
        std::fs::write(t.join(format!("name-{i:02}{}", "x".repeat(i % 9))), b"").unwrap();
    }
    let ours = env!("CARGO_BIN_EXE_lsr");
    let mut n = 0;
    for cols in [Some(80), Some(50), Some(132), None] {
        for env in [&[][..], &[("COLUMNS", "200")], &[("COLUMNS", "30")], &[("COLUMNS", "junk")]] {
            let cases: [&[&[u8]]; 5] =
                [&[], &[b"-x"], &[b"-m"], &[b"-C", b"-w", b"60"], &[b"-l", b"--color=always"]];
            for args in cases {
                let want = on_sized_tty("/usr/bin/ls", args, t.path(), env, cols);
                let got = on_sized_tty(ours, args, t.path(), env, cols);
                n += 1;
                same_bytes(&format!("tty of {cols:?} columns, {env:?} {args:?}"), &want, &got);
            }
        }
    }
    // The width really is the terminal's: 80 columns lay out differently
    // from COLUMNS=200 (else the comparisons above prove nothing).
    let narrow = on_sized_tty("/usr/bin/ls", &[], t.path(), &[("COLUMNS", "200")], Some(80));
    let wide = on_sized_tty("/usr/bin/ls", &[], t.path(), &[("COLUMNS", "200")], None);
    assert!(narrow != wide && n == 80, "the pty's size did not take");
}

/// A file with capabilities under `ca=` in LS_COLORS (root, for setcap):
/// Debian's GNU ls is built without libcap, so it never sees one and
/// colours such a file as an executable, or as a plain file when not
/// executable; lsr does the same and asks no attribute for it (no
/// getxattr per file: counted under strace on the inline backend).
#[test]
fn capabilities_coloured_as_gnu_without_libcap() {
    if !crate::util::root() {
        crate::util::skip("capabilities_coloured_as_gnu_without_libcap", "not root (setcap)");
        return;
    }
    if !have("setcap") || !have("strace") {
        crate::util::prerequisite_missing(
            "capabilities_coloured_as_gnu_without_libcap",
            "setcap (libcap2-bin), strace",
        );
        return;
    }
    let t = TempDir::new("ls-cap");
    let r = t.path();
    build_tree(
        r,
        &["f:cap-exec:", "m:cap-exec:755", "f:cap-plain:", "f:plain:", "d:dir", "f:dir/cap:"],
    );
    for f in ["cap-exec", "cap-plain", "dir/cap"] {
        let ok = Command::new("setcap").arg("cap_net_raw+ep").arg(r.join(f)).status();
        if !ok.is_ok_and(|s| s.success()) {
            crate::util::skip("capabilities_coloured_as_gnu_without_libcap", "setcap failed here");
            return;
        }
    }
    let mut c = Cases::new("cap");
    for colours in ["ca=30;41", "ca=30;41:ex=01;32", "ca=30;41:ex=:fi=01;33", "di=:ca=30;41"] {
        for args in [
            &["--color=always"][..],
            &["--color=always", "-l"],
            &["--color=always", "-F", ".", "dir"],
        ] {
            c.ls_env(r, args, &[("LS_COLORS", colours)]);
        }
    }
    c.finish();
    let o = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/stderr"])
        .arg(env!("CARGO_BIN_EXE_lsr"))
        .arg("--color=always")
        .current_dir(r)
        .env("LC_ALL", "C")
        .env("LS_COLORS", "ca=30;41")
        .env("RINGIO_BACKEND", "sync")
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&o.stderr);
    // strace 6.1 has no name for getxattrat (464, 0x1d0) and its kin.
    let asked = trace.lines().filter(|l| l.contains("xattr") || l.contains("syscall_0x1d")).count();
    assert!(trace.contains("statx(") && asked == 0, "{asked} attribute queries:\n{trace}");
}

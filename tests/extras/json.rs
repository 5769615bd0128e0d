//! The JSON of `lsr --json`, `ldu --json` and `lfind -json`, parsed by
//! jq and compared field by field with what GNU's tools say of the same
//! files: `stat`, `date`, `du -B1`/`du -b`/`du --inodes`, `find -printf`.
//! Times are checked in a zone with a half-hour offset and summer time,
//! so an offset taken from the wrong place can't pass.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{gnu, have_jq, jq, run, text};
use crate::util::{build_tree, raw_name, TempDir, BACKENDS};

/// A zone half an hour off UTC, with summer time.
const ZONE: &str = "America/St_Johns";

/// Every file type, odd modes, a hard link, a sparse file, times in both
/// halves of the year, a name that is not UTF-8.
fn fixture() -> TempDir {
    let t = TempDir::new("extras-json");
    build_tree(
        t.path(),
        &[
            "d:j/sub/deeper",
            "f:j/plain:hello",
            "f:j/sub/inner:abc",
            "f:j/sub/deeper/x:x",
            "h:j/sub/hard:j/plain",
            "l:j/link:plain",
            "l:j/dangling:nowhere",
            "p:j/fifo",
            "f:j/setuid:s",
            "m:j/setuid:4755",
            "f:j/sticky-dir-file:",
            "m:j/sub:1777",
            "f:j/Ünïcode name:u",
            "f:j/quote\"back\\slash:q",
        ],
    );
    std::fs::write(raw_name(&t.join("j"), b"bad\xff\xfename"), b"raw").unwrap();
    // A sparse file: apparent size and disk usage differ.
    let f = std::fs::File::create(t.join("j/sparse")).unwrap();
    f.set_len(3 << 20).unwrap();
    for (p, d) in
        [("j/plain", "2023-01-15 12:00:00.123456789"), ("j/sub/inner", "2023-07-15 08:30:00.5")]
    {
        let st =
            std::process::Command::new("touch").args(["-d", d]).arg(t.join(p)).status().unwrap();
        assert!(st.success());
    }
    // Reading a directory or a link the first time after a change moves
    // its atime (relatime): read them all now (ls -l reads the links), so
    // the tools' runs change nothing.
    let st = std::process::Command::new("ls").arg("-lR").arg(t.join("j")).output().unwrap();
    assert!(st.status.success());
    t
}

/// `secs.nnnnnnnnn` (stat's `%.9Y`) as nanoseconds.
fn ns(s: &str) -> i128 {
    let (a, b) = s.split_once('.').unwrap_or((s, "0"));
    let b = format!("{b:0<9}");
    a.parse::<i128>().unwrap() * 1_000_000_000 + b[..9].parse::<i128>().unwrap()
}

/// What `date` says the ISO 8601 form of `ns` is, in `ZONE`.
fn iso(ns: i128) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    let o = gnu(
        "date",
        Path::new("/"),
        &["-d", &format!("@{secs}.{frac:09}"), "+%Y-%m-%dT%H:%M:%S.%N%:z"],
        &[("TZ", ZONE)],
    );
    text(&o.stdout).trim_end_matches('\n').to_string()
}

/// stat's `%F` as the JSON's type word.
fn type_word(f: &str) -> &'static str {
    match f {
        "regular file" | "regular empty file" => "file",
        "directory" => "directory",
        "symbolic link" => "symlink",
        "fifo" => "fifo",
        "socket" => "socket",
        "character special file" => "char",
        "block special file" => "block",
        other => panic!("stat %F {other}"),
    }
}

/// jq's end of a filter that picks fields: one line each object, the
/// fields apart by US (jq's @tsv would escape a name's backslashes).
const JOIN: &str = "map(tostring) | join(\"\\u001f\")";

/// The fields every file object has, from jq: `.[]` or `.` (JSON Lines)
/// picks the objects.
const FIELDS: &str = "[.path, .type, .size, .blocks, .mode, .mode_octal, .mode_string, \
     .nlink, .inode, .uid, .user, .gid, .group, .atime_sec, .atime_nsec, .mtime_sec, \
     .mtime_nsec, .mtime, .ctime_sec, .ctime_nsec, .btime_sec, (.target // \"\"), \
     (.path_bytes // [] | map(tostring) | join(\",\"))]";

/// A jq line's fields.
fn split(line: &str) -> Vec<&str> {
    line.split('\u{1f}').collect()
}

/// Seconds and nanoseconds (two fields of the JSON) as nanoseconds.
fn sec_nsec(sec: &str, nsec: &str) -> i128 {
    sec.parse::<i128>().unwrap() * 1_000_000_000 + nsec.parse::<i128>().unwrap()
}

/// Checks the objects jq read (`rows`, by FIELDS) against stat, for
/// paths as `dir`-relative names; `lsr` adds atime, which a reading
/// tool may change (not for these files: nothing reads them).
fn check_files(dir: &Path, rows: &[String], what: &str) -> usize {
    let mut n = 0;
    for r in rows {
        let f = split(r);
        assert_eq!(f.len(), 23, "{what}: {r}");
        let path_bytes: Vec<u8> = if f[22].is_empty() {
            f[0].as_bytes().to_vec()
        } else {
            f[22].split(',').map(|b| b.parse().unwrap()).collect()
        };
        let path = std::ffi::OsStr::from_bytes(&path_bytes);
        // stat can be given a non-UTF-8 name through a glob-free shell: run
        // it directly with the bytes.
        let stat_of = |fmt: &str| -> String {
            let o = std::process::Command::new("stat")
                .args(["-c", fmt, "--"])
                .arg(path)
                .current_dir(dir)
                .env("TZ", ZONE)
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            assert!(o.status.success(), "{what}: stat {path:?}: {}", text(&o.stderr));
            text(&o.stdout).trim_end_matches('\n').to_string()
        };
        let s = stat_of("%F|%s|%b|%a|%A|%h|%i|%u|%U|%g|%G|%.9X|%.9Y|%.9Z|%W|%N");
        let s: Vec<&str> = s.split('|').collect();
        let ctx = format!("{what}: {path:?}\n{r}\n{s:?}");
        assert_eq!(f[1], type_word(s[0]), "type {ctx}");
        assert_eq!(f[2], s[1], "size {ctx}");
        assert_eq!(f[3], s[2], "blocks {ctx}");
        let octal = u32::from_str_radix(s[3], 8).unwrap();
        assert_eq!(f[4], octal.to_string(), "mode {ctx}");
        assert_eq!(f[5], format!("{octal:04o}"), "mode_octal {ctx}");
        assert_eq!(f[6], s[4], "mode_string {ctx}");
        assert_eq!(&f[7..13], &s[5..11], "links, inode, ids {ctx}");
        assert_eq!(sec_nsec(f[13], f[14]), ns(s[11]), "atime {ctx}");
        let m = ns(s[12]);
        assert_eq!(sec_nsec(f[15], f[16]), m, "mtime_sec, mtime_nsec {ctx}");
        assert_eq!(f[17], iso(m), "mtime {ctx}");
        assert_eq!(sec_nsec(f[18], f[19]), ns(s[13]), "ctime {ctx}");
        match s[14] {
            "0" => assert_eq!(f[20], "null", "btime {ctx}"),
            b => assert_eq!(f[20], b, "btime {ctx}"),
        }
        if s[0] == "symbolic link" {
            let t = std::fs::read_link(dir.join(path)).unwrap();
            assert_eq!(f[21].as_bytes(), t.as_os_str().as_bytes(), "target {ctx}");
        } else {
            assert_eq!(f[21], "", "target {ctx}");
        }
        n += 1;
    }
    n
}

/// `lsr --json` (an array) and `--json=lines`, with -R and as a tree,
/// every object's fields against stat's; every entry once.
#[test]
fn lsr_fields_are_stats() {
    if !have_jq("extras::json::lsr_fields_are_stats") {
        return;
    }
    let t = fixture();
    let mut names: Vec<Vec<u8>> = std::fs::read_dir(t.join("j"))
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    names.sort();
    for b in BACKENDS {
        // How many objects: j's entries; with -R and the tree, everything
        // under j as find counts it (the tree with j itself); three.
        let all = text(&gnu("find", t.path(), &["j"], &[]).stdout).lines().count();
        for (args, filter, count) in [
            (&["--json", "j"][..], ".[]", names.len()),
            (&["--json=lines", "-R", "j"], ".", all - 1),
            (&["--json", "--tree", "j"], "..|objects|select(.path)", all),
            (&["--json=lines", "--tree", "j"], ".", all),
            (&["--json", "-d", "j/plain", "j/link", "j/sub"], ".[]", 3),
        ] {
            let o = run("lsr", t.path(), args, b, &[("TZ", ZONE)]);
            assert!(o.status.success(), "{args:?} [{b}]: {}", text(&o.stderr));
            let rows = jq(&format!("{filter} | {FIELDS} | {JOIN}"), &o.stdout);
            let what = format!("lsr {args:?} [{b}]");
            let n = check_files(t.path(), &rows, &what);
            let mut paths = jq(&format!("{filter} | .path"), &o.stdout);
            paths.sort();
            let before = paths.len();
            paths.dedup();
            assert_eq!(before, paths.len(), "{what}: an entry twice");
            assert_eq!(n, count, "{what}");
        }
        // The array form is one document (jq -s on JSON Lines gives the
        // same objects), and nesting: a directory's children under it.
        let a = run("lsr", t.path(), &["--json", "--tree", "j"], b, &[]);
        let l = run("lsr", t.path(), &["--json=lines", "--tree", "j"], b, &[]);
        let nested =
            jq("[..|objects|select(.path)|del(.children)|.path]|sort|join(\" \")", &a.stdout);
        let flat = jq("[.path]|join(\" \")", &l.stdout);
        let mut flat: Vec<String> = flat;
        flat.sort();
        assert_eq!(nested[0], flat.join(" "), "[{b}]");
        let kids = jq(".[0].children[] | select(.name==\"sub\") | .children | map(.name) | sort | join(\",\")", &a.stdout);
        assert_eq!(kids, ["deeper,hard,inner"], "[{b}]");
        let depth = jq("select(.path==\"j/sub/deeper/x\") | .depth", &l.stdout);
        assert_eq!(depth, ["3"], "[{b}]");
    }
}

/// The name that is not UTF-8: given lossily and exactly.
#[test]
fn names_that_are_not_utf8() {
    if !have_jq("extras::json::names_that_are_not_utf8") {
        return;
    }
    let t = fixture();
    let o = run("lsr", t.path(), &["--json", "j"], "sync", &[]);
    let bytes =
        jq(".[] | select(.name_bytes) | .name_bytes | map(tostring) | join(\",\")", &o.stdout);
    assert_eq!(bytes, ["98,97,100,255,254,110,97,109,101"]);
    let lossy = jq(".[] | select(.name_bytes) | .name", &o.stdout);
    assert_eq!(lossy, ["bad\u{fffd}\u{fffd}name"]);
    let q = jq(".[] | select(.name|startswith(\"quote\")) | .name", &o.stdout);
    assert_eq!(q, ["quote\"back\\slash"]);
}

/// `ldu --json`: every line's object against GNU du's three counts for
/// the same path (`-B1`, `-b`, `--inodes`), hard links counted once,
/// with `-a`, `-s`, `-c`, `-S` and `--time`, on every backend.
#[test]
fn ldu_counts_are_dus() {
    if !have_jq("extras::json::ldu_counts_are_dus") {
        return;
    }
    let t = fixture();
    let gnu_counts = |args: &[&str], unit: &[&str]| -> BTreeMap<String, String> {
        let a = [unit, args].concat();
        let o = gnu("du", t.path(), &a, &[]);
        text(&o.stdout)
            .lines()
            .map(|l| {
                let (n, p) = l.split_once('\t').unwrap();
                (p.to_string(), n.to_string())
            })
            .collect()
    };
    for b in BACKENDS {
        for args in [
            &["j"][..],
            &["-a", "j"],
            &["-s", "j", "j/sub"],
            &["-c", "-a", "j"],
            &["-S", "j"],
            &["-a", "-b", "j"],
            &["--inodes", "-d", "1", "j"],
            &["-a", "-L", "j"],
            &["-a", "-x", "--exclude=*inner", "j"],
        ] {
            for form in ["--json", "--json=lines"] {
                let mut a = vec![form];
                a.extend_from_slice(args);
                let o = run("ldu", t.path(), &a, b, &[]);
                let g = gnu("du", t.path(), args, &[]);
                assert_eq!(o.status.code(), g.status.code(), "{a:?} [{b}]: {}", text(&o.stderr));
                assert_eq!(text(&o.stderr).replace("ldu:", "du:"), text(&g.stderr), "{a:?} [{b}]");
                let pick = if form == "--json" { ".[]" } else { "." };
                let rows = jq(
                    &format!(
                        "{pick} | [(.path // \"total\"), .size, .apparent_size, .inodes] | {JOIN}"
                    ),
                    &o.stdout,
                );
                // Each count from du with nothing else asked of the measure.
                let plain: Vec<&str> =
                    args.iter().copied().filter(|a| *a != "-b" && *a != "--inodes").collect();
                let disk = gnu_counts(&plain, &["-B1"]);
                let apparent = gnu_counts(&plain, &["-b"]);
                let inodes = gnu_counts(&plain, &["--inodes"]);
                // The lines du prints, whatever it counts.
                let shown = gnu_counts(args, &[]);
                assert_eq!(rows.len(), shown.len(), "{a:?} [{b}]\n{}", text(&o.stdout));
                for r in &rows {
                    let f = split(r);
                    let p = f[0];
                    assert_eq!(Some(f[1]), disk.get(p).map(String::as_str), "{a:?} [{b}] size {p}");
                    assert_eq!(
                        Some(f[2]),
                        apparent.get(p).map(String::as_str),
                        "{a:?} [{b}] apparent {p}"
                    );
                    assert_eq!(
                        Some(f[3]),
                        inodes.get(p).map(String::as_str),
                        "{a:?} [{b}] inodes {p}"
                    );
                }
                let totals = jq(&format!("{pick} | select(.total) | .total"), &o.stdout);
                assert_eq!(totals.len(), usize::from(args.contains(&"-c")), "{a:?} [{b}]");
            }
        }
        // --time: the latest mtime below each directory, as du gives it.
        let o = run("ldu", t.path(), &["--json", "--time", "j"], b, &[("TZ", ZONE)]);
        let rows =
            jq(&format!(".[] | [.path, .mtime_sec, .mtime_nsec, .mtime] | {JOIN}"), &o.stdout);
        let g = gnu("du", t.path(), &["--time", "--time-style=+%s.%N", "j"], &[]);
        let want: BTreeMap<String, i128> = text(&g.stdout)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[2].to_string(), ns(f[1]))
            })
            .collect();
        assert_eq!(rows.len(), want.len(), "[{b}]");
        for r in rows {
            let f = split(&r);
            let w = want[f[0]];
            assert_eq!(sec_nsec(f[1], f[2]), w, "[{b}] {}", f[0]);
            assert_eq!(f[3], iso(w), "[{b}] {}", f[0]);
        }
        // An empty run is still one document.
        let o = run("ldu", t.path(), &["--json", "-t", "1T", "j"], b, &[]);
        assert_eq!(text(&o.stdout), "[]\n", "[{b}]");
    }
}

/// `lfind -json`: one object per match, fields against GNU `find
/// -printf` of the same files; `-fjson FILE` composes with the
/// expression as `-fprint` does; an action, so no `-print` is added.
#[test]
fn lfind_fields_are_finds() {
    if !have_jq("extras::json::lfind_fields_are_finds") {
        return;
    }
    let t = fixture();
    let printf =
        "%p\\t%y\\t%s\\t%b\\t%m\\t%M\\t%n\\t%i\\t%U\\t%u\\t%G\\t%g\\t%T@\\t%d\\t%f\\t%l\\n";
    let g = gnu("find", t.path(), &["j", "-printf", printf], &[]);
    let want: BTreeMap<String, Vec<String>> = text(&g.stdout)
        .lines()
        .map(|l| {
            let f: Vec<String> = l.split('\t').map(str::to_string).collect();
            (f[0].clone(), f)
        })
        .collect();
    let letter = |w: &str| match w {
        "file" => "f",
        "directory" => "d",
        "symlink" => "l",
        "fifo" => "p",
        "socket" => "s",
        "char" => "c",
        "block" => "b",
        _ => "?",
    };
    for b in BACKENDS {
        for extra in [&[][..], &["-s"][..], &["-j", "1"][..]] {
            let mut a: Vec<&str> = extra.to_vec();
            a.extend_from_slice(&["j", "-json"]);
            let o = run("lfind", t.path(), &a, b, &[("TZ", ZONE)]);
            assert!(o.status.success(), "{a:?} [{b}]: {}", text(&o.stderr));
            let rows = jq(
                &format!(
                    "[.path, .type, .size, .blocks, .mode_octal, .mode_string, .nlink, .inode, \
                     .uid, .user, .gid, .group, .mtime_sec, .mtime_nsec, .depth, .name, \
                     (.target // \"\"), .mtime] | {JOIN}"
                ),
                &o.stdout,
            );
            assert_eq!(rows.len(), want.len(), "{a:?} [{b}]");
            for r in rows {
                let f = split(&r);
                let Some(w) = want.get(f[0]) else {
                    // The name that is not UTF-8: jq shows it lossily.
                    assert!(f[0].contains('\u{fffd}'), "{a:?} [{b}]: {r}");
                    continue;
                };
                let ctx = format!("{a:?} [{b}]: {r}\n{w:?}");
                assert_eq!(letter(f[1]), w[1], "type {ctx}");
                assert_eq!((f[2], f[3]), (w[2].as_str(), w[3].as_str()), "size {ctx}");
                assert_eq!(
                    u32::from_str_radix(f[4], 8).unwrap(),
                    u32::from_str_radix(&w[4], 8).unwrap(),
                    "mode {ctx}"
                );
                assert_eq!(f[5], w[5], "mode_string {ctx}");
                assert_eq!(&f[6..12], &w[6..12], "links, inode, ids {ctx}");
                assert_eq!(sec_nsec(f[12], f[13]), ns(&w[12]), "mtime {ctx}");
                assert_eq!(f[17], iso(ns(&w[12])), "mtime iso {ctx}");
                assert_eq!(
                    (f[14], f[15], f[16]),
                    (w[13].as_str(), w[14].as_str(), w[15].as_str()),
                    "depth, name, target {ctx}"
                );
            }
        }
        // Composing: files to standard output, directories into a file,
        // nothing printed by default.
        let out = t.join(format!("dirs-{b}.json"));
        let out_s = out.to_str().unwrap();
        let o = run(
            "lfind",
            t.path(),
            &["j", "-type", "f", "-json", "-o", "-type", "d", "-fjson", out_s],
            b,
            &[],
        );
        assert!(o.status.success(), "[{b}]: {}", text(&o.stderr));
        let types = jq(".type", &o.stdout);
        assert!(!types.is_empty() && types.iter().all(|t| t == "file"), "[{b}] {types:?}");
        let dirs = jq(".path", &std::fs::read(&out).unwrap());
        let g = gnu("find", t.path(), &["j", "-type", "d"], &[]);
        let mut want_dirs: Vec<String> = text(&g.stdout).lines().map(str::to_string).collect();
        let mut dirs = dirs;
        dirs.sort();
        want_dirs.sort();
        assert_eq!(dirs, want_dirs, "[{b}]");
    }
}

/// JSON output never depends on the terminal: no colours, no `?` for
/// control characters (they are escaped), the same bytes on a pty as in
/// a pipe (lsr, ldu).
#[test]
fn the_same_on_a_terminal() {
    if !crate::util::have("script") {
        crate::util::prerequisite_missing("extras::json::the_same_on_a_terminal", "script(1)");
        return;
    }
    let t = fixture();
    std::fs::write(raw_name(&t.join("j"), b"ctl\x1b[31m"), b"").unwrap();
    for (tool, args) in
        [("lsr", &["--json", "--color=auto", "j"][..]), ("ldu", &["--json=lines", "-a", "j"])]
    {
        let r = crate::util::Run::new(args).cwd(t.path());
        let pipe = r.exec(&crate::util::ours(tool), tool, Some("sync"));
        let tty = crate::util::exec_on_tty(&r, &crate::util::ours(tool), tool, Some("sync"));
        let tty_out = text(&tty.stdout).replace("\r\n", "\n");
        // ldu's lines come in walk order: compare them sorted.
        let mut a: Vec<&str> = tty_out.lines().collect();
        let p = text(&pipe.stdout);
        let mut b: Vec<&str> = p.lines().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{tool} {args:?}");
        assert!(!tty_out.contains('\x1b'), "{tool}: a raw escape on the terminal");
    }
}

/// `--json -RL` refuses an ancestor met again as `ls -RL` does (GNU's
/// message and status), instead of following the loop until the kernel's
/// limit; each entry once.
#[test]
fn recursion_stops_at_loops() {
    if !have_jq("extras::json::recursion_stops_at_loops") {
        return;
    }
    let t = TempDir::new("extras-json-loop");
    build_tree(t.path(), &["d:l/a/b", "l:l/a/up:..", "l:l/a/b/self:.", "f:l/f:x"]);
    let g = gnu("ls", t.path(), &["-RL", "l"], &[]);
    for b in BACKENDS {
        let o = run("lsr", t.path(), &["--json", "-RL", "l"], b, &[]);
        assert_eq!(o.status.code(), g.status.code(), "[{b}]");
        assert_eq!(text(&o.stderr).replace("lsr:", "ls:"), text(&g.stderr), "[{b}]");
        let paths = jq(".[].path", &o.stdout);
        assert_eq!(paths, ["l/a", "l/f", "l/a/b", "l/a/up", "l/a/b/self"], "[{b}]");
    }
}

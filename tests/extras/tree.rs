//! `lsr --tree`: every row against GNU `ls -ld` of the same file, each
//! directory's entries in the order GNU `ls` lists them with the same
//! options, the rows present against GNU `find`, loops under `-L`, and
//! the options a tree refuses.

use std::collections::BTreeMap;
use std::path::Path;

use super::{gnu, run, text};
use crate::util::{build_tree, TempDir, BACKENDS};

/// The pieces a tree row's drawing is made of, four columns each.
const PIECES: [&str; 4] = ["├── ", "└── ", "│   ", "    "];

/// One row: how deep, the name (and ` -> target`, notes) after the
/// drawing, and the long format's columns before it.
#[derive(Debug)]
struct Row {
    level: usize,
    name: String,
    fields: Vec<String>,
}

/// Splits a row of `lsr --tree` into its `fields` leading columns, the
/// drawing's depth and the rest.
fn parse_row(line: &str, fields: usize) -> Row {
    let mut rest = line;
    let mut cols = Vec::new();
    for _ in 0..fields {
        let t = rest.trim_start_matches(' ');
        let end = t.find(' ').unwrap_or(t.len());
        cols.push(t[..end].to_string());
        rest = &t[end..];
    }
    if fields > 0 {
        rest = rest.strip_prefix(' ').unwrap_or(rest);
    }
    let mut level = 0;
    while let Some(p) = PIECES.iter().find(|p| rest.starts_with(**p)) {
        rest = &rest[p.len()..];
        level += 1;
    }
    Row { level, name: rest.to_string(), fields: cols }
}

/// The rows of a tree with each one's path (the operand joined with the
/// names of the rows above it).
fn paths(out: &str, fields: usize) -> Vec<(String, Row)> {
    let mut stack: Vec<String> = Vec::new();
    let mut v = Vec::new();
    for line in out.lines() {
        let row = parse_row(line, fields);
        let name = bare(&row.name);
        stack.truncate(row.level);
        let path = match stack.last() {
            Some(p) => format!("{p}/{name}"),
            None => name,
        };
        stack.push(path.clone());
        v.push((path, row));
    }
    v
}

/// A row's name without colours, hyperlinks, ` -> target`, a note or a
/// `-F` mark (no name of these fixtures ends in one).
fn bare(name: &str) -> String {
    let plain = strip_escapes(name);
    let n = plain.split(" -> ").next().unwrap_or(&plain);
    let n = n.split("  [").next().unwrap_or(n);
    n.trim_end_matches(['/', '@', '*', '|', '=', '>']).to_string()
}

/// `s` without SGR sequences (`ESC [ … m`) and OSC 8 hyperlinks
/// (`ESC ] … BEL`).
fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('[') => {
                for c in it.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            Some(']') => {
                for c in it.by_ref() {
                    if c == '\x07' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Each directory's entries, in the order the tree shows them.
fn children(rows: &[(String, Row)]) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, row) in rows {
        if row.level == 0 {
            m.entry(path.clone()).or_default();
            continue;
        }
        let (dir, name) = path.rsplit_once('/').unwrap();
        m.entry(dir.to_string()).or_default().push(name.to_string());
    }
    m
}

/// Files of several sizes, times, extensions and version numbers, hidden
/// ones, a link, an empty directory: every sort order gives another order.
fn fixture() -> TempDir {
    let t = TempDir::new("extras-tree");
    build_tree(
        t.path(),
        &[
            "d:t/src/sub",
            "d:t/empty",
            "d:t/.hdir",
            "f:t/.hdir/inside:x",
            "f:t/.hidden:xx",
            "f:t/src/b.rs:xxx",
            "f:t/src/a10.txt:x",
            "f:t/src/a9.txt:xxxxxxxxx",
            "f:t/src/sub/z.c:",
            "f:t/src/sub/y.h:yyyyyy",
            "f:t/Zeta:zz",
            "f:t/alpha.tar.gz:aaaaaaaaaaaaaaaaaaaa",
            "l:t/link:src",
            "l:t/src/dangling:nowhere",
        ],
    );
    // Distinct times, not in name order.
    let times = [
        ("t/src/b.rs", "2021-01-01"),
        ("t/src/a10.txt", "2023-01-01"),
        ("t/src/a9.txt", "2022-01-01"),
        ("t/src/sub/z.c", "2020-06-01"),
        ("t/src/sub/y.h", "2020-07-01"),
        ("t/Zeta", "2019-01-01"),
        ("t/alpha.tar.gz", "2024-01-01"),
        ("t/empty", "2018-01-01"),
        ("t/src/sub", "2017-01-01"),
        ("t/src", "2016-01-01"),
    ];
    for (p, d) in times {
        let st = std::process::Command::new("touch")
            .args(["-h", "-d", d])
            .arg(t.path().join(p))
            .status()
            .unwrap();
        assert!(st.success());
    }
    t
}

/// GNU `ls -1 OPTS DIR`'s names, `.` and `..` left out (a tree has none).
fn gnu_order(dir: &Path, path: &str, opts: &[&str]) -> Vec<String> {
    let mut args = vec!["-1"];
    args.extend_from_slice(opts);
    args.push(path);
    let o = gnu("ls", dir, &args, &[]);
    assert!(o.status.success(), "ls {args:?}: {}", text(&o.stderr));
    text(&o.stdout).lines().filter(|l| *l != "." && *l != "..").map(str::to_string).collect()
}

/// Every directory's entries come in the order GNU `ls` gives them with
/// the same sort and hiding options, every directory below is entered,
/// on every backend.
#[test]
fn each_directory_in_gnus_order() {
    let t = fixture();
    let sorts: &[&[&str]] = &[
        &[],
        &["-t"],
        &["-S"],
        &["-r"],
        &["-X"],
        &["-v"],
        &["-tr"],
        &["-Sr"],
        &["-U"],
        &["--group-directories-first"],
        &["--sort=width"],
        &["-a"],
        &["-A", "-t"],
        &["-c"],
        &["-I", "*.rs"],
    ];
    for b in BACKENDS {
        for opts in sorts {
            let mut args = vec!["--tree"];
            args.extend_from_slice(opts);
            args.push("t");
            let o = run("lsr", t.path(), &args, b, &[]);
            assert!(o.status.success(), "{args:?} [{b}]: {}", text(&o.stderr));
            let out = text(&o.stdout);
            let rows = paths(&out, 0);
            let kids = children(&rows);
            // Every directory shown (not a link to one) was entered, and
            // lists its entries in GNU's order.
            let mut dirs = 0;
            for (path, _) in &rows {
                let meta = std::fs::symlink_metadata(t.path().join(path)).unwrap();
                if meta.is_dir() {
                    dirs += 1;
                    let want = gnu_order(t.path(), path, opts);
                    let got = kids.get(path).cloned().unwrap_or_default();
                    assert_eq!(got, want, "{args:?} [{b}]: {path}\n{out}");
                }
            }
            assert!(dirs >= 4, "{args:?} [{b}]\n{out}");
        }
    }
}

/// `-l` in the tree: each row's columns are GNU `ls -ld`'s for that
/// file (aligned over the whole tree), the name follows the drawing, and
/// links show their targets; with colours, `-F` and hyperlinks, the name
/// part is GNU's byte for byte.
#[test]
fn long_rows_are_gnus() {
    let t = fixture();
    // The options, and how many columns come before the drawing.
    let cases: &[(&[&str], usize)] = &[
        (&["-l"], 7),
        (&["-lS"], 7),
        (&["-lia"], 8),
        (&["-ln", "--full-time"], 8),
        (&["-lh", "-s"], 8),
        (&["-lF", "--color=always", "--hyperlink=always"], 7),
        (&["-o", "-t", "--color=always"], 6),
    ];
    for b in BACKENDS {
        for (opts, fields) in cases {
            let fields = *fields;
            let mut args = vec!["--tree", "--time-style=long-iso"];
            args.extend_from_slice(opts);
            args.push("t");
            let o = run("lsr", t.path(), &args, b, &[]);
            assert!(o.status.success(), "{args:?} [{b}]: {}", text(&o.stderr));
            let out = text(&o.stdout);
            let mut gnu_args: Vec<&str> = args[1..args.len() - 1].to_vec();
            gnu_args.push("-d");
            let rows = paths(&out, fields);
            assert!(rows.len() > 8, "{out}");
            for (path, row) in &rows {
                // GNU, in the file's directory, on its name: the same
                // columns, and the same name (coloured, linked, marked).
                let (dir, name) = match path.rsplit_once('/') {
                    Some((d, n)) => (t.path().join(d), n.to_string()),
                    None => (t.path().to_path_buf(), path.clone()),
                };
                let g = gnu("ls", &dir, &[&gnu_args[..], &["--", &name]].concat(), &[]);
                let g = text(&g.stdout);
                let grow = parse_row(g.trim_end_matches('\n'), fields);
                assert_eq!(row.fields, grow.fields, "{args:?} [{b}]: {path}\n{out}\n{g}");
                let strip = |s: &str| s.trim_start_matches("\x1b[0m").to_string();
                assert_eq!(strip(&row.name), strip(&grow.name), "{args:?} [{b}]: {path}");
            }
            // One column for every row's drawing: the long format's widths
            // are the whole tree's (no wide characters in these names).
            let starts: Vec<usize> = out
                .lines()
                .skip(1)
                .map(|l| {
                    let at = l.find(['├', '└', '│']).unwrap();
                    let before = &l[..at];
                    // Blank pieces of deeper rows come before their branch.
                    before.trim_end_matches(' ').chars().count()
                })
                .collect();
            assert!(starts.windows(2).all(|w| w[0] == w[1]), "{args:?} [{b}]: misaligned\n{out}");
        }
    }
}

/// The rows shown: the depth limit (`--tree=N`, `--level=N`, the last
/// given), hidden entries, `-d`: against GNU `find` on the same tree.
#[test]
fn rows_present_as_find_finds_them() {
    let t = fixture();
    let hide = ["(", "-name", ".*", "!", "-name", "t", "-prune", ")", "-o"];
    let cases: &[(&[&str], &[&str])] = &[
        (&["--tree"], &["-print"]),
        (&["--tree=1"], &["-maxdepth", "1"]),
        (&["--tree", "--level=2"], &["-maxdepth", "2"]),
        (&["--tree=5", "--level=1"], &["-maxdepth", "1"]),
        (&["--level=3", "--tree=1"], &["-maxdepth", "1"]),
        (&["--tree=0"], &["-maxdepth", "0"]),
        (&["--tree", "-d"], &["-type", "d"]),
        (&["--tree", "-d", "--level=1"], &["-maxdepth", "1", "-type", "d"]),
    ];
    for b in BACKENDS {
        for (ours, find) in cases {
            for all in [false, true] {
                let mut args = ours.to_vec();
                if all {
                    args.push("-a");
                }
                args.push("t");
                let o = run("lsr", t.path(), &args, b, &[]);
                assert!(o.status.success(), "{args:?} [{b}]: {}", text(&o.stderr));
                let out = text(&o.stdout);
                let mut got: Vec<String> = paths(&out, 0).into_iter().map(|(p, _)| p).collect();
                got.sort();
                let mut fa: Vec<&str> = vec!["t"];
                if !all {
                    // find's -maxdepth first, as it wants global options.
                    let (depth, rest) = match find.first() {
                        Some(&"-maxdepth") => (&find[..2], &find[2..]),
                        _ => (&find[..0], *find),
                    };
                    fa.extend_from_slice(depth);
                    fa.extend_from_slice(&hide);
                    fa.extend_from_slice(if rest.is_empty() { &["-print"] } else { rest });
                    if !rest.is_empty() && !rest.contains(&"-print") {
                        fa.push("-print");
                    }
                } else {
                    fa.extend_from_slice(find);
                }
                let f = gnu("find", t.path(), &fa, &[]);
                let mut want: Vec<String> = text(&f.stdout).lines().map(str::to_string).collect();
                want.sort();
                assert_eq!(got, want, "{args:?} [{b}] vs find {fa:?}\n{out}");
            }
        }
    }
}

/// A short tree shows where links lead, as `find -printf %l` reads them.
#[test]
fn links_show_their_targets() {
    let t = fixture();
    for b in BACKENDS {
        for extra in [&[][..], &["-F"], &["--color=always"]] {
            let mut args = vec!["--tree"];
            args.extend_from_slice(extra);
            args.push("t");
            let o = run("lsr", t.path(), &args, b, &[]);
            let out = text(&o.stdout);
            for (path, row) in paths(&out, 0) {
                let f = gnu("find", t.path(), &[&path, "-maxdepth", "0", "-printf", "%l"], &[]);
                let target = text(&f.stdout);
                let name = strip_escapes(&row.name);
                let shown = name.split_once(" -> ").map(|(_, t)| t.trim_end_matches('/'));
                if target.is_empty() {
                    assert_eq!(shown, None, "{args:?} [{b}]: {path}\n{out}");
                } else {
                    assert_eq!(shown, Some(target.as_str()), "{args:?} [{b}]: {path}\n{out}");
                }
            }
        }
    }
}

/// Under `-L` a directory met again below itself is shown, marked and
/// not entered; the messages about what can't be reached are GNU `ls
/// -L`'s, printed after the whole tree (they never split its lines),
/// and the status is GNU's for them.
#[test]
fn loops_under_dereference() {
    let t = TempDir::new("extras-tree-loop");
    build_tree(
        t.path(),
        &[
            "d:l/a/b",
            "l:l/a/up:..",
            "l:l/a/b/self:.",
            "l:l/dang:nowhere",
            "l:l/loop:loop",
            "f:l/f:x",
        ],
    );
    // GNU stats every entry where it needs their types (-F, -R, colours): as a tree does.
    let g = gnu("ls", t.path(), &["-L", "-F", "l"], &[]);
    for b in BACKENDS {
        // Both streams into one pipe, as on a terminal.
        let o = crate::util::Run::new([
            "-c",
            &format!("exec {} --tree -L l 2>&1", crate::util::ours("lsr").display()),
        ])
        .cwd(t.path())
        .exec(Path::new("/bin/sh"), "sh", Some(b));
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), g.status.code(), "[{b}]\n{out}");
        let lines: Vec<&str> = out.lines().collect();
        let first_msg = lines.iter().position(|l| l.starts_with("lsr: ")).unwrap_or(lines.len());
        assert!(lines[first_msg..].iter().all(|l| l.starts_with("lsr: ")), "[{b}]\n{out}");
        let msgs: String = lines[first_msg..].iter().map(|l| format!("{}\n", &l[3..])).collect();
        let gmsgs: String = text(&g.stderr).lines().map(|l| format!("{}\n", &l[2..])).collect();
        assert_eq!(msgs, gmsgs, "[{b}]");
        let rows = paths(&lines[..first_msg].join("\n"), 0);
        let marked: Vec<&str> = rows
            .iter()
            .filter(|(_, r)| r.name.ends_with("[recursive, not followed]"))
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(marked, ["l/a/b/self", "l/a/up"], "[{b}]\n{out}");
        // The unreachable entries keep their place in the tree.
        for p in ["l/dang", "l/loop", "l/f", "l/a/b"] {
            assert!(rows.iter().any(|(q, _)| q == p), "[{b}]: {p} missing\n{out}");
        }
    }
}

/// What a tree can't honour is refused with a message that says why
/// (status 2 and the "Try" line, as GNU's usage errors), never ignored.
#[test]
fn refusals() {
    let t = TempDir::new("extras-tree-refuse");
    let cases: &[(&[&str], &str)] = &[
        (&["--tree", "-C"], "--tree draws one entry per line"),
        (&["--tree", "-x"], "--tree draws one entry per line"),
        (&["-m", "--tree"], "--tree draws one entry per line"),
        (&["--tree", "--format=commas"], "--tree draws one entry per line"),
        (&["--tree", "-lD"], "--dired gives Emacs"),
        (&["--tree", "--dired"], "--dired gives Emacs"),
        (&["--level=2"], "--level limits the depth of --tree"),
        (&["--level=2", "--json"], "--level limits the depth of --tree"),
        (&["--tree=x"], "invalid tree depth: 'x'"),
        (&["--tree", "--level=-1"], "invalid tree depth: '-1'"),
    ];
    for (args, msg) in cases {
        let o = run("lsr", t.path(), args, "sync", &[]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(err.starts_with(&format!("lsr: {msg}")), "{args:?}: {err}");
    }
    // A layout means nothing to JSON: accepted there (documented).
    let o = run("lsr", t.path(), &["--tree", "-C", "--json"], "sync", &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Columns by default on a terminal are no refusal: the tree is drawn.
    if crate::util::have("script") {
        build_tree(t.path(), &["d:x/y", "f:x/y/z:"]);
        let r = crate::util::Run::new(["--tree", "x"]).cwd(t.path());
        let o = crate::util::exec_on_tty(&r, &crate::util::ours("lsr"), "lsr", Some("sync"));
        assert_eq!(text(&o.stdout), "x\r\n└── y\r\n    └── z\r\n");
    }
}

/// Icons in the tree: each name's glyph after the drawing.
#[test]
fn icons_in_the_tree() {
    let t = fixture();
    for b in BACKENDS {
        let o = run("lsr", t.path(), &["--tree", "--icons=always", "t"], b, &[]);
        let out = text(&o.stdout);
        let glyphs = [
            ("src", "\u{f07b}"),
            ("b.rs", "\u{e7a8}"),
            ("a9.txt", "\u{f15c}"),
            ("link", "\u{f0c1}"),
        ];
        for (name, glyph) in glyphs {
            let row = format!("── {glyph} {name}");
            assert!(
                out.lines().any(|l| l.ends_with(&row) || l.contains(&format!("{row} -> "))),
                "[{b}] {name}: {out}"
            );
        }
    }
}

//! Locale differential tests for what the per-area suites left over:
//! find's numeric arguments read by strtod in LC_NUMERIC, -ok's answers by
//! rpmatch, quote marks around option values in errors, LS_COLORS suffix
//! matching outside ASCII, du's names on a terminal, cat's missing-file
//! message; each against GNU in the five locales.

use std::path::Path;
use std::process::Command;

use crate::command_lines;
use crate::util::*;

/// Runs each (tool, argument list) in each locale in `dir` (with `stdin`
/// when given), comparing stdout, stderr and status with GNU's by `cmp`.
fn each_locale(
    name: &'static str,
    dir: &Path,
    cases: &[(&'static str, Vec<Vec<u8>>)],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
    cmp: Cmp,
) {
    let mut c = Cases::new(name);
    for l in locales(name) {
        for (tool, args) in cases {
            let tool = *tool;
            let mut run = Run::new(args.clone()).cwd(dir).env("LC_ALL", l);
            for (k, v) in env {
                run = run.env(k, v);
            }
            if let Some(s) = stdin {
                run = run.stdin(s);
            }
            c.run(move || {
                cmp(tool, &run, Stderr::Exact);
            });
        }
    }
    c.finish();
}

type Cmp = fn(&str, &Run, Stderr) -> std::process::Output;

fn strs(args: &[&str]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.as_bytes().to_vec()).collect()
}

fn touch(dir: &Path, args: &[&str]) {
    let st = Command::new("touch").args(args).current_dir(dir).status().unwrap();
    assert!(st.success(), "touch {args:?}");
}

/// The time tests' numbers go through strtod in LC_NUMERIC, whole argument
/// or error (gnulib's xstrtod): de_DE takes `-30,5` and rejects `-30.5`,
/// hex floats take the locale's point too, and white space, `inf`,
/// overflow and a subnormal underflow behave as C's strtod says.
#[test]
fn find_time_numbers_by_strtod() {
    let t = TempDir::new("loc-left-strtod");
    let d = t.path();
    // new: now; old: three days back; fut: read two days after its change.
    touch(d, &["new"]);
    touch(d, &["-d", "3 days ago", "old"]);
    touch(d, &["fut"]);
    touch(d, &["-a", "-d", "now + 2 days", "fut"]);
    let nums = [
        "-30.5",
        "-30,5",
        "+30,5",
        "30,5",
        "-3,05e1",
        "-3.05e1",
        "-0x1e,8p0",
        "-0x1e.8p0",
        "-0x1Ep0",
        " -30",
        "-30 ",
        "\t-30",
        "-inf",
        "+INFINITY",
        "1e400",
        "1e-320",
        "-1e-400",
        "",
        "-,5",
        "-.5",
        "-30,",
        "-30.",
        "+-30",
        "-+30",
        "- 30",
        "x",
        "1,5,",
        "١",
    ];
    let mut cases = Vec::new();
    for n in nums {
        cases.push(("lfind", strs(&[".", "-mmin", n])));
    }
    for (p, n) in [
        ("-mtime", "-1,5"),
        ("-mtime", "-1.5"),
        ("-mtime", "+2,5"),
        ("-atime", "+2,5"),
        ("-atime", "-0.5"),
        ("-amin", "-30,5"),
        ("-amin", "+30.5"),
        ("-cmin", "-30,5"),
        ("-cmin", "-30.5"),
        ("-ctime", "-0,5"),
        ("-ctime", "-0.5"),
        ("-used", "+1,5"),
        ("-used", "+1.5"),
        ("-used", "-0x1,8p1"),
        ("-used", "1e400"),
    ] {
        cases.push(("lfind", strs(&[".", p, n])));
    }
    cases.push(("lfind", strs(&[".", "-daystart", "-mtime", "-1,5"])));
    cases.push(("lfind", strs(&[".", "-daystart", "-mtime", "-1.5"])));
    // Sorted: the parallel walk may print "." after its entries.
    each_locale("find_time_numbers_by_strtod", d, &cases, None, &[], compare_sorted);
}

/// -ok and -okdir take an answer as GNU's yesno does: the line without its
/// newline through rpmatch, so LC_MESSAGES' YESEXPR decides (de_DE adds
/// `j`, ja_JP `はい` and the full-width `ｙ`; nothing takes a blank first).
#[test]
fn find_ok_answers_by_rpmatch() {
    let t = TempDir::new("loc-left-ok");
    let d = t.path();
    for f in ["f1", "f2", "f3"] {
        std::fs::write(d.join(f), b"").unwrap();
    }
    let answers: &[&[u8]] = &[
        b"y\n",
        b"Y\n",
        b"j\n",
        b"J\n",
        b"ja\n",
        b"n\n",
        "はい\n".as_bytes(),
        "ハイ\n".as_bytes(),
        "ｙ\n".as_bytes(),
        "Ｙ\n".as_bytes(),
        "いいえ\n".as_bytes(),
        b"+\n",
        b"1\n",
        b" y\n",
        b"\n",
        b"x\n",
        b"\xff\n",
        b"y",
        b"",
        b"\0y\n",
    ];
    let mut c = Cases::new("find_ok_answers_by_rpmatch");
    for l in locales("find_ok_answers_by_rpmatch") {
        for a in answers {
            for action in ["-ok", "-okdir"] {
                // Three files, so the answer is read, then EOF twice (or
                // the next lines of a multi-line answer).
                let args = strs(&[".", "-type", "f", action, "echo", "hit", "{}", ";"]);
                let mut input = a.to_vec();
                input.extend_from_slice(b"y\n");
                let run = Run::new(args).cwd(d).env("LC_ALL", l).stdin(&input);
                // Both read the one directory, so readdir order gives each
                // file the same answer on both sides.
                c.run(move || {
                    compare("lfind", &run, Stderr::Exact);
                });
            }
        }
    }
    c.finish();
}

/// Option values and types in errors go through quote()'s `locale` style,
/// GNU's quote(): the -regextype list quotes every valid type as it quotes
/// the bad value (‘…’ in UTF-8 locales, '…' with `\'` in C), and so do the
/// argmatch lists and the other value messages of ls, du and find. In
/// UTF-8 locales this needs `cli::quote`'s locale marks as well.
#[test]
fn quoted_values_in_errors() {
    let t = TempDir::new("loc-left-quoted");
    let d = t.path();
    std::fs::write(d.join("f"), b"x").unwrap();
    let mut cases = Vec::new();
    for ty in ["foo", "it's", "é", "a\\b", "-x"] {
        cases.push(("lfind", strs(&["f", "-regextype", ty])));
    }
    for (tool, args) in command_lines::tools("locales/quoted_values_in_errors", 12) {
        cases.push((tool, strs(args)));
    }
    each_locale("quoted_values_in_errors", d, &cases, None, &[], compare);
}

/// LS_COLORS suffixes match as GNU ls 9.1's do: case folded in ASCII only
/// (`*.äbc` colours `x.äBC` but not `x.ÄBC`, in every locale), the entry
/// given last winning among those that differ only in case.
#[test]
fn ls_colors_suffixes_fold_ascii_only() {
    let t = TempDir::new("loc-left-colors");
    let d = t.path();
    for n in [
        &b"x.JPG"[..],
        b"x.jpg",
        b"x.Jpg",
        "x.ÄBC".as_bytes(),
        "x.äbc".as_bytes(),
        "x.äBC".as_bytes(),
        "x.ÄbC".as_bytes(),
        b"x.abc",
        b"x.ABC",
        "x.İ".as_bytes(),
        b"x.i",
        b"x.I",
        "x.ǅ".as_bytes(),
        b"x.\xffBC",
        b"x.\xffbc",
    ] {
        std::fs::write(raw_name(d, n), b"").unwrap();
    }
    let mut cases = Vec::new();
    for colors in [
        "*.jpg=01;35:*.äbc=01;36:*.JPG=01;34",
        "*.JPG=01;34:*.jpg=01;35",
        "*.jpg=01;35:*.JPG=01;34:*.jpg=01;33",
        "*.äBC=01;36",
        "*.ÄBC=01;36",
        "*BC=01;32:*.äbc=01;36",
        "*.jpg=01;35:*JPG=01;34",
        "*.i=01;31",
        "*.İ=01;31",
        "*.ǆ=01;31",
        "*bc=01;31:*.ÄBC=01;32",
    ] {
        // -U: the directory's order on both sides, whatever the collation.
        cases.push(("lsr", colors, strs(&["-U", "-1", "--color=always"])));
    }
    let mut c = Cases::new("ls_colors_suffixes_fold_ascii_only");
    for l in locales("ls_colors_suffixes_fold_ascii_only") {
        for (tool, colors, args) in &cases {
            let run = Run::new(args.clone()).cwd(d).env("LC_ALL", l).env("LS_COLORS", colors);
            let tool = *tool;
            c.run(move || {
                compare(tool, &run, Stderr::Exact);
            });
        }
    }
    c.finish();
}

/// Runs `cmd` under `sh` on a terminal (script(1)) in `dir`: what the
/// terminal showed, stdout and stderr together, with `\r\n` line ends.
fn on_tty(dir: &Path, locale: &str, cmd: &str, backend: Option<&str>) -> Vec<u8> {
    let mut c = Command::new("script");
    c.arg("-qec").arg(format!("sh -c '{cmd}'")).arg("/dev/null");
    c.current_dir(dir).env_clear();
    c.env("PATH", "/usr/bin:/bin").env("LC_ALL", locale).env("TZ", "UTC");
    if let Some(b) = backend {
        c.env("RINGIO_BACKEND", b);
    }
    c.stdin(std::process::Stdio::null()).output().unwrap().stdout
}

/// Names for the terminal tests: printable ones, then bytes that are
/// printable in no locale (or only in UTF-8 ones).
fn tty_fixture(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    let d = t.path().join("d");
    std::fs::create_dir(&d).unwrap();
    for n in [
        &b"plain"[..],
        b"a b",
        "é".as_bytes(),
        "日本".as_bytes(),
        b"\xff",
        b"nl\nx",
        b"\x1b[31m",
        b"tab\t",
        b"c1\xc2\x80x",
        b"trunc\xe6\x97",
        b"a\xe6\x97b",
        b"zw\xe2\x80\x8bsp",
        b"e\xcc\x81",
        b"\xc3\xa9\xff",
    ] {
        std::fs::write(raw_name(&d, n), b"").unwrap();
    }
    t
}

/// du on a terminal. GNU du writes names raw there; ldu, by design (see
/// the README), masks the bytes GNU find masks on a terminal with `?`. So
/// names printable in the locale must come out as GNU du's (é and 日本 in
/// UTF-8 locales), and every name as GNU find's `%p` shows it: raw where
/// printable, `?` per byte that is not (é is `??` in C, as GNU find has
/// it). Small runs: no progress line (that needs a second on stderr).
#[test]
fn du_names_on_a_terminal() {
    if !require("script", "du_names_on_a_terminal") {
        return;
    }
    let t = tty_fixture("loc-left-du-tty");
    let dir = t.path();
    let du = ours("ldu");
    let du = du.display();
    let mut c = Cases::new("du_names_on_a_terminal");
    for l in locales("du_names_on_a_terminal") {
        let utf8 = l.contains("UTF-8");
        let printable = if utf8 { "d/plain \"d/a b\" d/é d/日本" } else { "d/plain \"d/a b\"" };
        let want_raw = on_tty(dir, l, &format!("du -a {printable}"), None);
        let want_masked = on_tty(dir, l, "find d/* -prune -printf \"0\\t%p\\n\"", None);
        for b in BACKENDS {
            let got_raw = on_tty(dir, l, &format!("{du} -a {printable}"), Some(b));
            let got_masked = on_tty(dir, l, &format!("{du} d/*"), Some(b));
            let (wr, gr) = (want_raw.clone(), got_raw);
            c.run(move || {
                same_bytes(&format!("ldu [{b}] {l} printable names on a tty"), &wr, &gr);
            });
            let (wm, gm) = (want_masked.clone(), got_masked);
            c.run(move || {
                same_bytes(
                    &format!("ldu [{b}] {l} names on a tty as GNU find masks them"),
                    &wm,
                    &gm,
                );
            });
        }
    }
    c.finish();
}

/// find on a terminal masks what can't be printed as GNU find does, by
/// character in the locale: é raw in UTF-8 locales and `??` in C, one `?`
/// for an unprintable character (U+0080) or a sequence cut short, one per
/// invalid byte; -print and -printf's %p and %f alike.
#[test]
fn find_names_on_a_terminal() {
    if !require("script", "find_names_on_a_terminal") {
        return;
    }
    let t = tty_fixture("loc-left-find-tty");
    let dir = t.path();
    let find = ours("lfind");
    let find = find.display();
    let mut c = Cases::new("find_names_on_a_terminal");
    for l in locales("find_names_on_a_terminal") {
        // Operands, each one -pruned: the order is the shell's on both sides.
        for args in ["d/* -prune", "d/* -prune -printf \"[%p|%f]\\n\""] {
            let want = on_tty(dir, l, &format!("find {args}"), None);
            for b in BACKENDS {
                let got = on_tty(dir, l, &format!("{find} {args}"), Some(b));
                let want = want.clone();
                c.run(move || {
                    same_bytes(&format!("lfind [{b}] {l} {args} on a tty"), &want, &got);
                });
            }
        }
    }
    c.finish();
}

/// cat names a file as GNU's quotef does: shell-escape quoting only when
/// needed, and "needed" follows the locale: `''$'\303\251'` in C, a bare é
/// in UTF-8 ones. du's --exclude-from names its file the same way. (The
/// UTF-8 cases need `cli::quote`'s locale-aware printability.)
#[test]
fn cat_and_du_quotef_names() {
    let t = TempDir::new("loc-left-quotef");
    let d = t.path();
    std::fs::write(d.join("f"), b"x").unwrap();
    let mut cases = Vec::new();
    for n in ["é", "日本", "a b", "it's", "nl\nx", "\u{202e}rtl", "\u{200b}"] {
        cases.push(("lcat", strs(&[n])));
        cases.push(("lcat", strs(&["f", &format!("/nonexistent/{n}")])));
        cases.push(("ldu", strs(&[&format!("--exclude-from={n}"), "f"])));
    }
    cases.push(("lcat", vec![b"\xff".to_vec()]));
    cases.push(("lcat", vec![b"\xc3\xa9\xff".to_vec()]));
    each_locale("cat_and_du_quotef_names", d, &cases, None, &[], compare);
}

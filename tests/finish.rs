//! What users of coreutils replacements expect around the tools: option
//! tables that match what the binaries accept (and cover GNU's options),
//! `--version` naming the engine, messages under a symlinked name, and
//! colour on a terminal only when the environment allows it.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use cli::opts::{Arg, Complete, Opt};

use crate::util::{self, TempDir};

/// A value an option of this shape will take (it need not be valid:
/// only getopt's verdict matters here).
fn value_for(arg: &str, complete: Complete, file: &Path) -> Vec<u8> {
    if let Complete::Words(w) = complete {
        return w[0].as_bytes().to_vec();
    }
    match arg {
        "F" | "FILE" | "REFERENCE" => file.as_os_str().as_bytes().to_vec(),
        "SIZE" => b"1K".to_vec(),
        "PATTERN" => b"x".to_vec(),
        _ => b"1".to_vec(),
    }
}

fn run(tool: &str, args: &[Vec<u8>], cwd: &Path) -> Output {
    Command::new(util::ours(tool))
        .args(args.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

const GETOPT_COMPLAINTS: &[&str] =
    &["unrecognized option", "invalid option", "is ambiguous", "requires an argument"];

/// Runs every spelling of every option of a getopt tool's table.
fn check_getopt_table<I: Copy>(tool: &str, opts: &[Opt<I>], operand: &str) -> usize {
    let t = TempDir::new("opts");
    let file = t.join("f");
    std::fs::write(&file, b"x\n").unwrap();
    let mut n = 0;
    for o in opts {
        let mut spellings: Vec<Vec<Vec<u8>>> = Vec::new();
        let value = |a: &str| value_for(a, o.complete, &file);
        if let Some(c) = o.short {
            let flag = format!("-{}", c as char).into_bytes();
            spellings.push(match o.arg {
                Arg::Required(a) => vec![flag, value(a)],
                _ => vec![flag],
            });
        }
        if let Some(l) = o.long {
            let flag = format!("--{l}");
            match o.arg {
                Arg::None => spellings.push(vec![flag.into_bytes()]),
                Arg::Required(a) => {
                    spellings.push(vec![flag.clone().into_bytes(), value(a)]);
                    spellings.push(vec![[flag.as_bytes(), b"=", &value(a)].concat()]);
                }
                Arg::Optional(a) => {
                    spellings.push(vec![flag.clone().into_bytes()]);
                    spellings.push(vec![[flag.as_bytes(), b"=", &value(a)].concat()]);
                }
            }
        }
        for mut args in spellings {
            args.push(operand.as_bytes().to_vec());
            let out = run(tool, &args, t.path());
            let err = String::from_utf8_lossy(&out.stderr);
            for c in GETOPT_COMPLAINTS {
                assert!(!err.contains(c), "{tool} {args:?}: {err}");
            }
            n += 1;
        }
    }
    n
}

/// Every option in each table is accepted by its binary, in every
/// spelling (the other direction holds by construction: the parsers only
/// know options through the tables).
#[test]
fn every_table_option_is_accepted() {
    let n = check_getopt_table("lsr", ls::help::OPTIONS, ".")
        + check_getopt_table("ldu", du::usage::OPTIONS, ".")
        + check_getopt_table("lcat", cat::args::OPTIONS, "f");
    eprintln!("{n} option spellings accepted");
}

/// Every lfind primary in the table is accepted where it belongs.
#[test]
fn every_find_primary_is_accepted() {
    use find::primaries::{Args, Kind, PRIMARIES};
    let t = TempDir::new("primaries");
    std::fs::write(t.join("f"), b"x\n").unwrap();
    let file = t.join("f");
    let s = |v: &str| v.as_bytes().to_vec();
    for p in PRIMARIES {
        let name = match p.name {
            "-newerXY" => "-newermm",
            "-Olevel" => "-O2",
            n => n,
        };
        let mut args: Vec<Vec<u8>> = Vec::new();
        let mut tail: Vec<Vec<u8>> = Vec::new();
        match p.kind {
            Kind::Leading => args.push(s(name)),
            Kind::Operator => match name {
                "(" => tail = vec![s("("), s("-true"), s(")")],
                "!" | "-not" => tail = vec![s(name), s("-false")],
                _ => tail = vec![s("-true"), s(name), s("-true")],
            },
            _ => tail.push(s(name)),
        }
        let target = if p.kind == Kind::Leading { &mut args } else { &mut tail };
        match p.args {
            Args::None => {}
            // The list names the starting point (and replaces the operand).
            Args::One(..) if name == "-files0-from" => {
                std::fs::write(t.join("list"), b"f\0").unwrap();
                target.push(t.join("list").as_os_str().as_bytes().to_vec());
            }
            Args::One(a, c) => target.push(value_for(a, c, &file)),
            Args::Two(_, _) => {
                target.push(t.join("out").as_os_str().as_bytes().to_vec());
                target.push(s("%p\\n"));
            }
            Args::Command => {
                target.extend([s("true"), s("{}"), s(";")]);
            }
        }
        // Leading options go before the starting point, the rest after it;
        // -delete gets a file of its own.
        if name == "-delete" {
            std::fs::write(t.join("victim"), b"").unwrap();
            args.push(s("victim"));
        } else if name != "-files0-from" {
            args.push(s("f"));
        }
        args.extend(tail);
        let out = run("lfind", &args, t.path());
        let err = String::from_utf8_lossy(&out.stderr);
        if name == "-context" && !std::path::Path::new("/sys/fs/selinux/enforce").exists() {
            // Refused without SELinux, in GNU's words.
            assert!(err.contains("invalid predicate -context: SELinux is not enabled."), "{err}");
            continue;
        }
        assert!(
            !err.contains("unknown predicate") && !err.contains("invalid predicate"),
            "lfind {args:?}: {err}"
        );
        if !matches!(p.id, find::primaries::Id::Debug) {
            assert!(out.status.success(), "lfind {args:?}: {err}");
        }
    }
}

/// Option names in GNU's `--help` (the option column only).
fn gnu_getopt_options(help: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        if !t.starts_with('-') || line.len() - t.len() < 2 {
            continue;
        }
        let column = t.split("  ").next().unwrap_or_default();
        for tok in column.split([',', ' ']) {
            let tok = tok.split(['=', '[']).next().unwrap_or_default();
            if tok.len() > 1 && tok.starts_with('-') {
                names.push(tok.to_string());
            }
        }
    }
    names
}

fn table_names<I>(opts: &[Opt<I>]) -> Vec<String> {
    let mut v = Vec::new();
    for o in opts {
        if let Some(c) = o.short {
            v.push(format!("-{}", c as char));
        }
        if let Some(l) = o.long {
            v.push(format!("--{l}"));
        }
    }
    v
}

fn gnu_help(prog: &str) -> Option<String> {
    let o = Command::new(prog).arg("--help").env("LC_ALL", "C").output().ok()?;
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Scans GNU's own `--help` for the options it documents and reports
/// which we lack: none may be missing, except those left out on purpose
/// (find's -context and -files0-from).
#[test]
fn gnu_options_we_lack() {
    let mut missing_all = Vec::new();
    for (gnu, ours) in [
        ("/usr/bin/ls", table_names(ls::help::OPTIONS)),
        ("/usr/bin/du", table_names(du::usage::OPTIONS)),
        ("/usr/bin/cat", table_names(cat::args::OPTIONS)),
    ] {
        let Some(help) = gnu_help(gnu) else {
            crate::util::prerequisite_missing("gnu_options_we_lack", gnu);
            continue;
        };
        let theirs = gnu_getopt_options(&help);
        assert!(theirs.len() > 8, "{gnu}: too few options found: {theirs:?}");
        let missing: Vec<&String> = theirs.iter().filter(|n| !ours.contains(n)).collect();
        let extra: Vec<&String> = ours.iter().filter(|n| !theirs.contains(n)).collect();
        eprintln!("{gnu}: {} options; we lack {missing:?}; beyond GNU: {extra:?}", theirs.len());
        missing_all.extend(missing.into_iter().map(|m| format!("{gnu} {m}")));
    }
    if let Some(help) = gnu_help("/usr/bin/find") {
        let ours: Vec<&str> = find::primaries::PRIMARIES.iter().map(|p| p.name).collect();
        let mut theirs = Vec::new();
        for line in help.lines() {
            // The usage line, and the indented lists of each group.
            if !(line.starts_with("Usage:") || line.starts_with("      ")) {
                continue;
            }
            for tok in line.split_whitespace() {
                // `[-H]` in the usage line; `[-/]MODE` is an argument.
                let tok = match tok.strip_prefix('[') {
                    Some(t) => match t.strip_suffix(']') {
                        Some(t) => t,
                        None => continue,
                    },
                    None => tok,
                };
                if tok.len() > 1 && tok.starts_with('-') && !theirs.contains(&tok.to_string()) {
                    theirs.push(tok.to_string());
                }
            }
        }
        assert!(theirs.len() > 50, "find: too few primaries found: {theirs:?}");
        const NOT_ASKED_FOR: &[&str] = &["-context", "-files0-from"];
        let missing: Vec<&String> = theirs.iter().filter(|n| !ours.contains(&n.as_str())).collect();
        eprintln!("/usr/bin/find: {} primaries; we lack {missing:?}", theirs.len());
        missing_all.extend(
            missing
                .into_iter()
                .filter(|m| !NOT_ASKED_FOR.contains(&m.as_str()))
                .map(|m| format!("find {m}")),
        );
    }
    assert!(missing_all.is_empty(), "GNU options we lack: {missing_all:?}");
}

/// `--version` names the tool, the GNU tool it stands for, and the engine
/// backend this machine uses (the forced one under RINGIO_BACKEND).
#[test]
fn version_names_the_engine() {
    for (tool, flag) in
        [("lsr", "--version"), ("ldu", "--version"), ("lcat", "--version"), ("lfind", "-version")]
    {
        let o =
            Command::new(util::ours(tool)).arg(flag).env_remove("RINGIO_BACKEND").output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success());
        assert!(text.starts_with(&format!("{tool} (ringutils) {}\n", env!("CARGO_PKG_VERSION"))));
        let engine = text.lines().find(|l| l.starts_with("engine: ")).expect("an engine line");
        assert!(engine.contains("io_uring"), "{engine}");
        let o = Command::new(util::ours(tool))
            .arg(flag)
            .env("RINGIO_BACKEND", "sync")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("\nengine: sync, from RINGIO_BACKEND ("), "{text}");
    }
}

/// Installed under GNU's names (a symlink `ls` → lsr), the tools speak
/// with that name, byte for byte as GNU's do.
#[test]
fn symlinked_as_gnu_names() {
    let t = TempDir::new("names");
    for (tool, gnu, args) in [
        ("lsr", "ls", &["x"][..]),
        ("lfind", "find", &["x"]),
        ("ldu", "du", &["x"]),
        ("lcat", "cat", &["x"]),
        ("lsr", "ls", &["--bogus"]),
        ("ldu", "du", &["-y", "x"]),
        ("lcat", "cat", &["--numb"]),
        ("lfind", "find", &[".", "-bogus"]),
    ] {
        let link = t.join(gnu);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(util::ours(tool), &link).unwrap();
        let ours = Command::new(&link)
            .args(args)
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        use std::os::unix::process::CommandExt;
        let theirs = Command::new(util::gnu(tool))
            .arg0(gnu)
            .args(args)
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&ours.stderr);
        assert!(err.starts_with(&format!("{gnu}: ")), "{err}");
        assert_eq!(err, String::from_utf8_lossy(&theirs.stderr), "{gnu} {args:?}");
        assert_eq!(ours.status.code(), theirs.status.code(), "{gnu} {args:?}");
    }
    let o = Command::new(t.join("cat")).arg("x").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stderr), "cat: x: No such file or directory\n");
    let o = Command::new(t.join("ls")).arg("x").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "ls: cannot access 'x': No such file or directory\n"
    );
}

/// Runs `cmd` (a shell command) with a terminal as stdin/stdout/stderr;
/// returns what the terminal showed (with its \r\n line ends).
fn on_tty(cmd: &str, cwd: &Path, env: &[(&str, &str)]) -> Vec<u8> {
    let mut c = Command::new("script");
    c.args(["-qec", cmd, "/dev/null"]).current_dir(cwd).env_clear();
    // script runs $SHELL; dash (the default /bin/sh) has no `exec -a`.
    c.env("SHELL", "/bin/bash");
    c.env("PATH", "/usr/local/bin:/usr/bin:/bin").env("LC_ALL", "C").env("TZ", "UTC");
    // script runs the command with $SHELL (sh without it), and dash's exec
    // has no -a: both sides would print the same error and compare equal.
    c.env("SHELL", "/bin/bash");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.stdin(Stdio::null()).output().unwrap().stdout;
    assert!(
        !out.windows(9).any(|w| w == b"not found"),
        "the pty command did not run: {}",
        String::from_utf8_lossy(&out)
    );
    out
}

fn has_escape(b: &[u8]) -> bool {
    b.contains(&0x1b)
}

/// `--color=auto` on a terminal: GNU's rules (TERM is consulted only when
/// LS_COLORS is empty; TERM=dumb then means no colour) compared with GNU
/// ls itself, and NO_COLOR (beyond GNU) turns auto off.
#[test]
fn color_auto_follows_term_and_no_color() {
    if !util::require("script", "color_auto_follows_term_and_no_color") {
        return;
    }
    let t = TempDir::new("colour");
    std::fs::create_dir(t.join("dir")).unwrap();
    std::fs::write(t.join("file"), b"").unwrap();
    let lsr = util::ours("lsr");
    let lsr = lsr.display();
    for env in [
        &[("TERM", "xterm")][..],
        &[("TERM", "dumb")],
        &[],
        &[("TERM", "dumb"), ("LS_COLORS", "di=01;31")],
        &[("TERM", "dumb"), ("COLORTERM", "truecolor")],
        &[("TERM", "xterm"), ("LS_COLORS", "")],
    ] {
        for args in ["--color=auto", "--color=always", "--color=never", "-l --color=auto"] {
            let gnu = on_tty(&format!("exec -a ls /usr/bin/ls {args}"), t.path(), env);
            let ours = on_tty(&format!("exec -a ls {lsr} {args}"), t.path(), env);
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&gnu),
                "{args} {env:?}"
            );
        }
    }
    let plain = on_tty(&format!("{lsr} --color=auto"), t.path(), &[("TERM", "xterm")]);
    assert!(has_escape(&plain));
    for no_color in ["1", "yes"] {
        let env = [("TERM", "xterm"), ("NO_COLOR", no_color)];
        assert!(!has_escape(&on_tty(&format!("{lsr} --color=auto"), t.path(), &env)));
        // An explicit request still wins.
        assert!(has_escape(&on_tty(&format!("{lsr} --color=always"), t.path(), &env)));
    }
    // NO_COLOR set but empty does not count.
    let env = [("TERM", "xterm"), ("NO_COLOR", "")];
    assert!(has_escape(&on_tty(&format!("{lsr} --color=auto"), t.path(), &env)));
}

/// Messages and `--help` on a terminal: GNU never colours either, so a
/// message is GNU's bytes there too (a missing operand, a bad option and
/// its "Try" line, compared with GNU's tool under the same name), and
/// `--help` carries no escape sequence, its text the same as through a pipe.
#[test]
fn messages_and_help_plain_on_a_terminal() {
    if !util::require("script", "messages_and_help_plain_on_a_terminal") {
        return;
    }
    let t = TempDir::new("plain-tty");
    let tty = [("TERM", "xterm"), ("COLORTERM", "truecolor")];
    for (tool, bad) in
        [("lsr", "--bogus"), ("ldu", "--bogus"), ("lcat", "--bogus"), ("lfind", "-bogus")]
    {
        let gnu = util::gnu(tool);
        let name = util::gnu_name(tool);
        let bin = util::ours(tool);
        let bin = bin.display();
        for args in ["missing", bad] {
            let want = on_tty(&format!("exec -a {name} {gnu} {args} >/dev/null"), t.path(), &tty);
            let got = on_tty(&format!("exec -a {name} {bin} {args} >/dev/null"), t.path(), &tty);
            assert!(
                want.starts_with(format!("{name}: ").as_bytes()),
                "{tool} {args}: GNU said {want:?}"
            );
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{tool} {args} on a terminal"
            );
        }
        let help = if tool == "lfind" { "-help" } else { "--help" };
        let shown = on_tty(&format!("{bin} {help}"), t.path(), &tty);
        assert!(!has_escape(&shown), "{tool} {help}: {}", String::from_utf8_lossy(&shown));
        let piped = Command::new(util::ours(tool)).arg(help).output().unwrap().stdout;
        assert!(piped.len() > 200, "{tool} {help} printed too little");
        assert_eq!(
            String::from_utf8_lossy(&shown).replace("\r\n", "\n"),
            String::from_utf8_lossy(&piped)
        );
    }
}

/// `--help` of the getopt tools lists every table entry, in GNU's layout.
#[test]
fn help_lists_every_option() {
    fn check<I>(tool: &str, opts: &[Opt<I>]) {
        let o = Command::new(util::ours(tool)).arg("--help").output().unwrap();
        let help = String::from_utf8(o.stdout).unwrap();
        assert!(help.starts_with(&format!("Usage: {tool} [OPTION]...")), "{help}");
        for op in opts {
            let label = match (op.short, op.long) {
                (Some(c), Some(l)) => format!("  -{}, --{l}", c as char),
                (Some(c), None) => format!("  -{}", c as char),
                (None, Some(l)) => format!("      --{l}"),
                (None, None) => unreachable!(),
            };
            assert!(help.lines().any(|l| l.starts_with(&label)), "{tool}: {label:?} missing");
        }
        assert!(help.lines().all(|l| l.len() <= 80), "{tool}: a line over 80 columns");
    }
    check("lsr", ls::help::OPTIONS);
    check("ldu", du::usage::OPTIONS);
    check("lcat", cat::args::OPTIONS);
    let o = Command::new(util::ours("lfind")).arg("--help").output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    for p in find::primaries::PRIMARIES {
        let name = if p.name == "(" { "( EXPR )" } else { p.name };
        if !p.name.starts_with("--") {
            assert!(help.contains(name), "lfind: {name} missing from --help");
        }
    }
}

/// Every prefix of every long option GNU's ls, du and cat list in their
/// `--help`, on both sides: getopt's verdict (an ambiguity's candidates in
/// GNU's table order, unrecognized, needs an argument…) in the same words
/// and with the same status. lfind has single-dash primaries and no
/// prefixes: a double-dash word is an unknown predicate, as in GNU find.
/// (Before lsr took GNU's table order, eight of its prefixes differed.)
#[test]
fn long_option_prefixes_as_gnu() {
    let t = TempDir::new("prefixes");
    let mut failed = Vec::new();
    let mut ambiguous = 0;
    for tool in ["lsr", "ldu", "lcat"] {
        let gnu = util::gnu(tool);
        let name = util::gnu_name(tool);
        let help = Command::new(gnu).arg("--help").env("LC_ALL", "C").output().unwrap().stdout;
        let help = String::from_utf8_lossy(&help);
        let mut prefixes: Vec<String> = Vec::new();
        for w in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            let Some(long) = w.strip_prefix("--").filter(|l| l.len() > 1) else { continue };
            for k in 1..=long.len() {
                prefixes.push(format!("--{}", &long[..k]));
            }
        }
        prefixes.sort();
        prefixes.dedup();
        assert!(prefixes.len() > 50, "{tool}: too few options read from GNU's --help");
        // lsr's own options widen some prefixes (`--t`: '--tree' after
        // GNU's three); the ls crate's unit tests check those messages.
        let own: &[&str] = if tool == "lsr" { &["--icons", "--tree", "--json"] } else { &[] };
        for p in prefixes.iter().filter(|p| !own.iter().any(|o| o.starts_with(p.as_str()))) {
            let run = util::Run::new([p.as_str()]).cwd(t.path()).stdin(b"");
            let want = run.exec(Path::new(gnu), name, None);
            let got = run.exec(&util::ours(tool), name, None);
            if want.stderr.windows(9).any(|w| w == b"ambiguous") {
                ambiguous += 1;
            }
            if (&got.stderr, got.status.code()) != (&want.stderr, want.status.code()) {
                failed.push(util::context(&format!("{tool} {p}"), &want, &got));
            }
        }
    }
    for p in ["--h", "--help=1", "--name", "--print", "--v", "--x"] {
        let run = util::Run::new([".", p]).cwd(t.path());
        let want = run.exec(Path::new("/usr/bin/find"), "find", None);
        let got = run.exec(&util::ours("lfind"), "find", None);
        if (&got.stderr, got.status.code()) != (&want.stderr, want.status.code()) {
            failed.push(util::context(&format!("lfind . {p}"), &want, &got));
        }
    }
    assert!(ambiguous > 20, "only {ambiguous} ambiguous prefixes: the test lost its point");
    assert!(failed.is_empty(), "{} differ:\n{}", failed.len(), failed.join("\n"));
}

//! Names: every byte 1–255 as a one-byte name, 255-byte names, names with
//! escape sequences. Through pipes, every tool prints exactly what GNU
//! prints; on a terminal (a pty from script(1)), no tool ever sends a raw
//! control byte — in its output or in any message.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::command_lines;
use crate::util::{self, compare_case, Case, TempDir};

const ESCAPES: &[&[u8]] = &[
    b"red\x1b[31mtext\x1b[0m",
    b"title\x1b]0;pwned\x07",
    b"clear\x1b[2J\x1b[H",
    b"csi\x9b31m",
    b"c1\xc2\x9bm",
    b"bell\x07and\x08back",
    b"new\nline",
    b"carriage\rreturn",
    b"tab\there",
    b"del\x7f",
];

/// `parent/n`: the one-byte names, two 255-byte names, the escape names,
/// and a directory with an escape name holding some of them again.
fn names_tree(parent: &Path) -> PathBuf {
    let root = parent.join("n");
    std::fs::create_dir(&root).unwrap();
    for b in 1u8..=255 {
        if b == b'/' || b == b'.' {
            continue;
        }
        std::fs::write(util::raw_name(&root, &[b]), [b]).unwrap();
    }
    std::fs::write(root.join("L".repeat(255)), b"long\n").unwrap();
    let mut long = vec![b'\x1b'; 1];
    long.extend(std::iter::repeat_n(b'x', 253));
    long.push(0xff);
    std::fs::write(util::raw_name(&root, &long), b"").unwrap();
    for e in ESCAPES {
        std::fs::write(util::raw_name(&root, e), b"esc\n").unwrap();
    }
    let sub = util::raw_name(&root, b"dir\x1b[7mreverse");
    std::fs::create_dir(&sub).unwrap();
    for e in &ESCAPES[..4] {
        std::fs::write(util::raw_name(&sub, e), b"").unwrap();
    }
    std::os::unix::fs::symlink(
        util::os(b"target\x1b[5mblink"),
        util::raw_name(&root, b"link\x1bE"),
    )
    .unwrap();
    root
}

/// Through pipes, byte for byte as GNU (messages included).
#[test]
fn every_byte_like_gnu() {
    let t = TempDir::new("names");
    names_tree(t.path());
    let cases: &[(&str, &[&str])] = &command_lines::tools("faults/every_byte_like_gnu", 11);
    for (tool, args) in cases {
        compare_case(&Case::new(tool, *args).cwd(t.path()), true);
    }
    // Every name as an operand, existing or not.
    let mut ops: Vec<Vec<u8>> = Vec::new();
    for b in 1u8..=255 {
        if b != b'/' && b != b'.' {
            ops.push([b"n/".as_slice(), &[b]].concat());
        }
    }
    for e in ESCAPES {
        ops.push([b"n/".as_slice(), e].concat());
        ops.push([b"n/missing-".as_slice(), e].concat());
    }
    for tool in ["lsr", "lfind", "ldu", "lcat"] {
        let mut args = ops.clone();
        if tool == "lfind" {
            args.extend([b"-maxdepth".to_vec(), b"0".to_vec()]);
        }
        compare_case(&Case::new(tool, &args).cwd(t.path()), true);
    }
}

/// Bytes that must never reach a terminal raw: C0 controls but tab and the
/// line ends, DEL, and the C1 range.
fn raw_controls(out: &[u8]) -> Vec<(usize, u8)> {
    out.iter()
        .enumerate()
        .filter(|&(_, &b)| {
            (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || (0x7f..0xa0).contains(&b)
        })
        .map(|(i, &b)| (i, b))
        .collect()
}

/// On a terminal (script(1) runs each command on a pty, stdout and stderr
/// both on it), nothing escapes: names are quoted or masked by every tool,
/// in listings and in messages. (GNU du writes names raw to a terminal;
/// ldu masks them as GNU find does.)
#[test]
fn nothing_raw_on_a_terminal() {
    if !util::require("script", "names on a terminal") {
        return;
    }
    let t = TempDir::new("names-tty");
    names_tree(t.path());
    let missing: Vec<String> =
        ESCAPES.iter().map(|e| format!("\"$(printf 'n/missing-{}')\"", printf_escape(e))).collect();
    let missing = missing.join(" ");
    let runs = [
        ("lsr", "n".to_string()),
        ("lsr", "-l n".to_string()),
        ("lsr", "-R n".to_string()),
        ("lsr", "--show-control-chars n".to_string()),
        ("lsr", format!("n/* {missing}")),
        ("lfind", "n".to_string()),
        ("lfind", "n -ls".to_string()),
        ("lfind", "n -printf '%p %f %h %l\\n'".to_string()),
        ("lfind", format!("{missing} n -maxdepth 0")),
        ("ldu", "-a n".to_string()),
        ("ldu", missing.clone()),
        ("lcat", format!("n/dir* {missing}")),
        ("lcat", "-v n/red*".to_string()),
    ];
    for (tool, args) in runs {
        for backend in ["uring", "threads", "sync"] {
            let script = t.join("run.sh");
            std::fs::write(
                &script,
                format!(
                    "cd {}\nRINGIO_BACKEND={backend} exec {} {args}\n",
                    t.path().display(),
                    util::ours(tool).display()
                ),
            )
            .unwrap();
            let mut cmd = Command::new("script");
            cmd.arg("-qec").arg(format!("sh {}", script.display())).arg("/dev/null");
            // NO_COLOR: the tools' own colours (the program name in
            // messages) are escape sequences by design; every other one
            // would have come from a name.
            cmd.env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("LC_ALL", "C")
                .env("TERM", "xterm")
                .env("NO_COLOR", "1");
            let child = cmd
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .process_group(0)
                .spawn()
                .unwrap();
            let what = format!("{tool} {args} [{backend}] on a pty");
            let r = util::wait_bounded(child, util::DEADLINE, &what);
            assert!(!r.stdout.is_empty(), "{what}: no output");
            let bad = raw_controls(&r.stdout);
            assert!(
                bad.is_empty(),
                "{what}: raw control bytes {:?} in:\n{}",
                &bad[..bad.len().min(10)],
                String::from_utf8_lossy(&r.stdout)
            );
        }
    }
}

/// `name` for printf(1)'s format: octal escapes for everything but
/// plain letters and digits.
fn printf_escape(name: &[u8]) -> String {
    name.iter()
        .map(
            |&b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("\\{b:03o}")
                }
            },
        )
        .collect()
}

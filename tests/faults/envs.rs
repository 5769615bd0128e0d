//! Hostile environment values: absurd COLUMNS, TZ, LS_COLORS, BLOCK_SIZE
//! (and LS_/DU_BLOCK_SIZE), TIME_STYLE, TABSIZE, QUOTING_STYLE,
//! POSIXLY_CORRECT. Each tool does what GNU's does with the same value —
//! uses it, falls back, or refuses it with GNU's message and status — and
//! never panics.

use crate::util::{self, compare_case, Case, TempDir};

fn tree() -> TempDir {
    let t = TempDir::new("envs");
    util::build_tree(
        t.path(),
        &[
            "d:t/sub",
            "f:t/a.x:aaaa",
            "f:t/b.tar.gz:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
            "f:t/sub/c:c",
            "l:t/link:a.x",
            "l:t/dangling:nowhere",
            "f:t/exe:#!/bin/sh\n",
            "m:t/exe:755",
        ],
    );
    for i in 0..30 {
        std::fs::write(t.join(format!("t/file-{i:02}-{}", "w".repeat(i % 7))), vec![b'z'; i * 700])
            .unwrap();
    }
    // Fixed times, so TZ is what decides the printed dates.
    let st = std::process::Command::new("touch")
        .args(["-h", "-d", "2001-02-03 04:05:06.789 UTC"])
        .args(std::fs::read_dir(t.join("t")).unwrap().map(|e| e.unwrap().path()))
        .arg(t.join("t"))
        .status()
        .unwrap();
    assert!(st.success());
    t
}

/// Compares every (tool args) in `runs` with `var` set to each of `values`.
fn sweep(t: &TempDir, var: &str, values: &[&str], runs: &[(&'static str, &[&str])]) {
    for v in values {
        for (tool, args) in runs {
            compare_case(&Case::new(tool, *args).cwd(t.path()).env(var, v), true);
        }
    }
}

const HUGE: &str = "99999999999999999999999999999999999999999";

#[test]
fn columns() {
    let t = tree();
    let long_digits = "9".repeat(300);
    let values = ["", "0", "1", "2", "-1", "abc", "80x", "65536", "2147483648", HUGE, &long_digits];
    sweep(
        &t,
        "COLUMNS",
        &values,
        &[("lsr", &["-C", "t"]), ("lsr", &["-x", "t"]), ("lsr", &["-m", "t"])],
    );
}

#[test]
fn tabsize() {
    let t = tree();
    let values = ["", "0", "1", "-1", "abc", "4", HUGE];
    sweep(&t, "TABSIZE", &values, &[("lsr", &["-C", "-w", "60", "t"])]);
}

#[test]
fn tz() {
    let t = tree();
    let long = "A".repeat(5000);
    let values = [
        "",
        ":",
        "garbage",
        "UTC0",
        "UTC+99999",
        "<+14>-14",
        "EST5EDT,M3.2.0,M11.1.0",
        ":/etc/passwd",
        "/nonexistent/zone",
        "Europe/../../../../etc/passwd",
        "America/New_York",
        &long,
    ];
    sweep(
        &t,
        "TZ",
        &values,
        &[
            ("lsr", &["-l", "--time-style=full-iso", "t"]),
            ("lsr", &["-l", "t"]),
            ("lfind", &["t", "-printf", "%p %t %TY-%Tm-%Td %TH:%TM %TZ\n"]),
            ("lfind", &["t", "-name", "a.x", "-ls"]),
            ("ldu", &["--time", "-a", "t"]),
        ],
    );
}

#[test]
fn ls_colors() {
    let t = tree();
    let long = "di=01;34:".repeat(2000);
    let values = [
        "",
        "garbage",
        ":::",
        "=:=:",
        "di=01;34:*.x=:ln=target",
        "*.=31:*=32",
        "rs=\\e:lc=\\x1b[:rc=m",
        "no=\\",
        "fi=\\q\\x\\xZZ\\1234",
        "ex=^[:or=^?:mi=^",
        "*.gz=38;5;999999",
        &long,
    ];
    sweep(&t, "LS_COLORS", &values, &[("lsr", &["--color=always", "-l", "t"])]);
}

#[test]
fn block_sizes() {
    let t = tree();
    let values = [
        "",
        "0",
        "-1",
        "1",
        "abc",
        "1Z",
        "1kB",
        "'1k",
        "0x10",
        "human-readable",
        "si",
        "18446744073709551616",
        HUGE,
    ];
    sweep(
        &t,
        "BLOCK_SIZE",
        &values,
        &[("lsr", &["-s", "t"]), ("lsr", &["-l", "t"]), ("ldu", &["-a", "t"])],
    );
    // The tool-specific variables and BLOCKSIZE: the interesting values.
    let few = ["", "abc", "1kB", "human-readable", HUGE];
    sweep(&t, "LS_BLOCK_SIZE", &few, &[("lsr", &["-s", "t"]), ("lsr", &["-l", "t"])]);
    sweep(&t, "DU_BLOCK_SIZE", &few, &[("ldu", &["-a", "t"])]);
    sweep(&t, "BLOCKSIZE", &few, &[("lsr", &["-l", "t"]), ("ldu", &["t"])]);
}

#[test]
fn time_style() {
    let t = tree();
    let values = [
        "",
        "garbage",
        "+",
        "+%",
        "+%Y%%%",
        "+%s\n%Y",
        "posix-garbage",
        "iso",
        "full-iso",
        "long-iso",
        "locale",
        "posix-iso",
    ];
    sweep(&t, "TIME_STYLE", &values, &[("lsr", &["-l", "t"]), ("ldu", &["--time", "t"])]);
    // Absurd field widths: GNU ls prints the seconds instead of a text
    // longer than 1000 bytes; ours too.
    let wide = ["+%1000Y", "+%1001Y", "+%99999999999Y", "+%-99999999999999999999999d"];
    sweep(&t, "TIME_STYLE", &wide, &[("lsr", &["-l", "t"])]);
    // GNU du pads to any width, streaming gigabytes for this one; ldu
    // clamps a field to 4096 columns (a deliberate difference).
    let got = Case::new("ldu", ["--time", "t"])
        .cwd(t.path())
        .env("TIME_STYLE", "+%99999999999Y")
        .run(util::Prog::Ours(None));
    assert_eq!(got.code(), Some(0), "{}", got.err());
    let line = got.out().lines().next().unwrap_or_default().to_string();
    assert!(line.len() > 4096 && line.len() < 4200, "{} bytes", line.len());
}

#[test]
fn quoting_and_posix() {
    let t = tree();
    sweep(&t, "QUOTING_STYLE", &["", "garbage", "c", "escape", "shell-always"], &[("lsr", &["t"])]);
    sweep(
        &t,
        "POSIXLY_CORRECT",
        &["", "1"],
        &[
            ("lsr", &["-s", "t"]),
            ("ldu", &["t"]),
            ("lfind", &["t", "-size", "1"]),
            ("lcat", &["t/a.x"]),
        ],
    );
}

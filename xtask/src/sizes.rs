//! `cargo xtask bench --sizes [BIN…] [-n N]`: how big our binaries are
//! beside GNU's, the Zig lsr's and the peers', and where their bytes go.
//!
//! The breakdown is cargo-bloat's (installed with `cargo install` when
//! missing), per crate and per function. It needs symbols, and the release
//! profile strips them, so it reads the `profiling` build: the release
//! profile with line tables and symbols kept, the same code (the report
//! shows both builds' `.text` so a difference would be seen). Both are
//! built in their own target directories; the release binaries the other
//! benches time are not touched.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::bench::{self, words};
use crate::peers::{self, human, sizes_table, Infos, SizeRow, OUR_BINS, ZIG_LSR};

/// The profile cargo-bloat reads (Cargo.toml: release + symbols).
const PROFILE: &str = "profiling";

struct Options {
    bins: Vec<String>,
    top: usize,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options { bins: Vec::new(), top: 20 };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sizes" => {}
            "-n" | "--top" => {
                o.top = crate::parse_runs(it.next()).map_err(|_| "-n needs a positive number")?
            }
            b if OUR_BINS.contains(&b) => o.bins.push(b.into()),
            other => {
                return Err(format!(
                    "bench --sizes: unknown argument '{other}' (binaries: {OUR_BINS:?}; -n N)"
                ))
            }
        }
    }
    if o.bins.is_empty() {
        o.bins.push("lsr".into());
    }
    Ok(o)
}

/// Installs cargo-bloat when `cargo bloat` is not there.
fn ensure_bloat() -> Result<(), String> {
    let there = Command::new(env!("CARGO"))
        .args(["bloat", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !there {
        eprintln!("bench --sizes: installing cargo-bloat (cargo install --locked cargo-bloat)");
        crate::cargo(&["install", "--locked", "cargo-bloat"])?;
    }
    Ok(())
}

/// `cargo bloat --profile profiling --bin BIN ARGS…`'s table.
fn bloat(bin: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO"))
        .args(["bloat", "--profile", PROFILE, "--bin", bin])
        .args(args)
        .current_dir(crate::workspace_root())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo bloat: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo bloat --bin {bin} {} failed", args.join(" ")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Every binary the benches compare: ours, GNU's four, the Zig lsr and
/// each peer of `benches/workloads.txt` found here (by its first label);
/// and the labels of those not installed.
fn binaries() -> Result<(Vec<SizeRow>, Vec<String>), String> {
    let release = crate::target_dir().join("release");
    // Each of ours, and each peer, is compared with GNU's tool for its job.
    let gnu = |group: &str| format!("GNU {group}");
    let mut rows: Vec<SizeRow> = OUR_BINS
        .iter()
        .zip(bench::GROUPS)
        .map(|(b, g)| SizeRow::new(b, &release.join(b), Some(&gnu(g))))
        .collect();
    let mut missing: Vec<(String, String)> = Vec::new();
    let mut add = |tool: &str, prog: &str, group: &str, rows: &mut Vec<SizeRow>| {
        match peers::which_peer(prog) {
            Some(path) if !rows.iter().any(|r| r.path == path) => {
                rows.push(SizeRow::new(tool, &path, Some(&gnu(group))))
            }
            Some(_) => {}
            None => missing.push((peers::bare(tool), prog.into())),
        }
    };
    for g in bench::GROUPS {
        add(&gnu(g), g, g, &mut rows);
    }
    add(ZIG_LSR, "lsr", "ls", &mut rows);
    for w in bench::load("workloads.txt", &bench::GROUPS.map(String::from), None)? {
        for (label, template) in &w.cmds {
            let prog = words(template).into_iter().next().unwrap_or_default();
            if !crate::bench::is_floor(label) && !prog.starts_with('{') {
                add(label, &prog, &w.group, &mut rows);
            }
        }
    }
    // A label missing on one line may be found on another (`fd -g` after `fd`).
    missing.retain(|(tool, _)| !rows.iter().any(|r| &r.tool == tool));
    // Each workload names its peers again: one mention each (not `dedup`,
    // which only merges neighbours: `eza; lsd; eza; lsd; …`).
    let mut seen = std::collections::HashSet::new();
    missing.retain(|m| seen.insert(m.clone()));
    let missing = missing.into_iter().map(|(t, p)| format!("{t} ({p})")).collect();
    Ok((rows, missing))
}

/// The floor row's label: what any binary of ours starts from.
const FLOOR: &str = "floor: Rust std, release profile";

/// A program that only prints through std, built with the release
/// profile's settings (fat LTO, one codegen unit, panic=abort, stripped):
/// the bytes every Rust binary built this way carries before any code of
/// its own (std's formatting, panic and backtrace-printing machinery),
/// which on stable Rust can't be left out. Ours also link GCC's static
/// unwinder (build.rs, ~24 KB), which this doesn't.
fn size_floor() -> Result<PathBuf, String> {
    let dir = crate::target_dir().join("bench");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let src = dir.join("size_floor.rs");
    let program = "fn main() {\n    match std::env::args().nth(1).as_deref() {\n        \
                   Some(\"--version\") => println!(\"size floor {}\", env!(\"FLOOR_RUSTC\")),\n        \
                   _ => println!(\"{}\", std::env::args().count()),\n    }\n}\n";
    fs::write(&src, program).map_err(|e| format!("{}: {e}", src.display()))?;
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let v = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .map_err(|e| format!("{rustc}: {e}"))?;
    let v = String::from_utf8_lossy(&v.stdout);
    let out = dir.join("size-floor");
    let status = std::process::Command::new(&rustc)
        .args(["--edition", "2021", "-C", "opt-level=3", "-C", "panic=abort", "-C", "lto=fat"])
        .args(["-C", "codegen-units=1", "-C", "strip=symbols", "-o"])
        .arg(&out)
        .arg(&src)
        .env("FLOOR_RUSTC", v.split_whitespace().nth(1).unwrap_or("?"))
        .status()
        .map_err(|e| format!("{rustc}: {e}"))?;
    if !status.success() {
        return Err(format!("{rustc} could not build {}", src.display()));
    }
    Ok(out)
}

pub fn main(args: &[String]) -> Result<(), String> {
    let o = parse_args(args)?;
    ensure_bloat()?;
    crate::cargo(&["build", "--release", "--bins"])?;
    let mut infos = Infos::default();
    let (mut rows, mut missing) = binaries()?;
    rows.push(SizeRow::new(FLOOR, &size_floor()?, Some("GNU ls")));
    // The small build where this machine can make it (a nightly with
    // rust-src); otherwise the table says why it is not there.
    match crate::small::build() {
        Ok(dir) => {
            for (b, g) in OUR_BINS.iter().zip(bench::GROUPS) {
                let label = format!("{b}, small build");
                rows.push(SizeRow::new(&label, &dir.join(b), Some(&format!("GNU {g}"))));
            }
        }
        Err(why) => missing.push(format!("small build ({why})")),
    }
    let mut s = String::from("# `cargo xtask bench --sizes`\n\n");
    // The date, machine and commit lines of the benches' header.
    for line in crate::machine::header(&crate::fixtures::default_dir()).lines() {
        if ["- date", "- machine", "- commit"].iter().any(|p| line.starts_with(p)) {
            let _ = writeln!(s, "{line}");
        }
    }
    if !missing.is_empty() {
        let _ = writeln!(s, "- not installed: {}", missing.join("; "));
    }
    let _ = writeln!(
        s,
        "\n### Binary sizes\n\nOurs: this commit's release build. size = the file; .text = the \
         code section; ×GNU and ×Zig lsr = size / the size of GNU's tool for the same job, of \
         the Zig lsr; also loads = shared libraries beyond the C runtime, whose code is not in \
         the file; `{FLOOR}` = a program that only prints through std, built as ours are (the \
         size of std's share, which stable Rust can't leave out); `small build` = `cargo xtask \
         install --small`'s binaries (a nightly toolchain rebuilds std with panics that abort \
         at once, which drops the backtrace printer and unwind tables; start-up code optimized for size, the rest as in the release build).\n\n{}",
        sizes_table(&rows, &mut infos)
    );
    for bin in &o.bins {
        let n = o.top.to_string();
        let crates = bloat(bin, &["--crates", "--split-std", "-n", &n])?;
        let functions = bloat(bin, &["-n", &n])?;
        let text = |dir: &str| {
            let p: PathBuf = crate::target_dir().join(dir).join(bin);
            crate::elf::read(&p).map_or("?".into(), |e| human(e.text))
        };
        let _ = writeln!(
            s,
            "\n### Where {bin}'s bytes go\n\n`cargo bloat --profile {PROFILE} --bin {bin}` \
             (cargo-bloat's attribution by symbol name: `std` with `--split-std` is core, alloc \
             and std's own crates such as the backtrace printer's gimli and addr2line; functions \
             inlined into another count for it). .text: {} in the release build, {} in the \
             {PROFILE} build it reads.\n\nPer crate (top {n}):\n\n```\n{}```\n\nPer function (top {n}):\n\n```\n{}```",
            text("release"),
            text(PROFILE),
            crates.trim_end().to_string() + "\n",
            functions.trim_end().to_string() + "\n",
        );
    }
    print!("{s}");
    let dir = crate::target_dir().join("bench");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("sizes.md");
    fs::write(&path, &s).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("bench: wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args_of;

    #[test]
    fn sizes_arguments() {
        let o = parse_args(&args_of("--sizes")).unwrap();
        assert_eq!((o.bins, o.top), (vec!["lsr".to_string()], 20));
        let o = parse_args(&args_of("--sizes ldu lcat -n 5")).unwrap();
        assert_eq!((o.bins, o.top), (vec!["ldu".to_string(), "lcat".to_string()], 5));
        assert!(parse_args(&args_of("--sizes ls")).is_err());
        assert!(parse_args(&args_of("--sizes -n 0")).is_err());
    }

    #[test]
    fn every_peer_of_the_workloads_is_listed_or_missing() {
        let (rows, missing) = binaries().unwrap();
        let lsr = rows.iter().find(|r| r.tool == "lsr").unwrap();
        assert_eq!(lsr.versus.as_deref(), Some("GNU ls"));
        for b in OUR_BINS {
            assert!(rows.iter().any(|r| r.tool == b), "{b}");
        }
        for t in ["GNU ls", "GNU find", "GNU du", "GNU cat", ZIG_LSR, "bfs", "fd", "eza"] {
            let listed = rows.iter().any(|r| r.tool == t);
            let named = missing.iter().any(|m| m.starts_with(&format!("{t} (")));
            assert!(listed || named, "{t}: {missing:?}");
        }
    }
}

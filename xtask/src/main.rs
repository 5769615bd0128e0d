//! `cargo xtask <task>`: the project's developer tasks.
//!
//! - `test`: installs what the tests need (Debian packages) and runs the
//!   whole test suite; this is the command README.md and `.ci/run` give.
//! - `fixtures`: builds the deterministic benchmark file sets (fixtures.rs).
//! - `bench`: times our tools against GNU and the peers found on the machine,
//!   on the workloads listed in `benches/workloads.txt` (bench.rs); with
//!   `--slowfs LATENCY`, through a slowfs mount (benches/slowfs.txt,
//!   bench_slowfs.rs).
//! - `dist`: man pages and shell completions from the tools' option
//!   tables, into `target/dist/` (dist.rs).
//! - `install`: the tools (a release build, or with `--small` the small
//!   build: small.rs), their man pages and completions under a prefix,
//!   where man and the shells look (install.rs).
//! - `bench --sizes`: binary sizes beside GNU's and the peers', and
//!   cargo-bloat's breakdown of ours (sizes.rs, peers.rs, elf.rs).
//! - `bench --cold`: the same on a dropped page cache, with the device's
//!   counters and limits (cold.rs, device.rs).
//! - `du-floor`, `ls-floor`: minimal walkers, the benches' floor rows
//!   (floor.rs, ls_floor.rs).
//! - `scaleout`: lfind and ldu as MPI jobs of 1–8 ranks against the
//!   single-process tool, through slowfs with a per-client cap
//!   (scaleout.rs).
//! - `bench-engine`: times ringio's executors directly, in an optimized
//!   build of this crate (engine_bench.rs).
//! - `gnu-tests`: GNU's own test suites of ls, du, cat and find, run with
//!   GNU's binaries and then with ours swapped in (gnu_tests.rs).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod bench_docs;
mod bench_slowfs;
mod cat_floor;
mod cold;
mod device;
mod dist;
mod elf;
mod engine_bench;
mod fixtures;
mod floor;
mod gnu_tests;
mod install;
mod ls_floor;
mod machine;
mod peers;
mod scaleout;
mod setup;
mod sizes;
mod slowfs;
mod small;
mod strace;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  test [ARGS…]        install test prerequisites, then run every test (ARGS go to cargo test),
                      then the MPI tests (--features mpi) and gnu-tests (with ARGS only
                      if one names mpi, or gnu)
  gnu-tests [GROUP…] [--cache DIR]
                      GROUP: ls, du, cat, find, find-dejagnu or all (default; root only):
                      GNU's own test suites (coreutils tests/ls, tests/du, misc/cat-*;
                      findutils tests/find and DejaGnu), built once from the installed
                      versions' Debian sources into DIR (default
                      /var/cache/ringutils/gnu-tests), run with GNU's binaries and then
                      with ours in their place; fails when ours fails or skips a test
                      GNU's passes; table to stdout and target/gnu-tests.md
  slowfs …            a FUSE mirror that delays metadata requests (cargo xtask slowfs --help)
  fixtures [--dir D] [SET…]
                      build the benchmark fixtures (default: all sets, in target/fixtures);
                      SET: flat, flat-10 … flat-100000, tree, tree-20k, big, text
  bench [GROUP…] [--quick] [--runs N] [--dir D] [--only TEXT] [--strace|--no-strace] [--backends]
                      GROUP: ls, find, du, cat or all (default); builds release binaries,
                      times ours against GNU and installed peers (benches/workloads.txt;
                      peers are looked up in $RINGUTILS_BENCH_PEERS or ../shared/peers/bin
                      first, then on PATH; each is named with its version and size);
                      tables go to stdout and target/bench/GROUP.md; --quick (~1 min a
                      group): 3 rounds, no strace, no forced-backend rows, peers slower
                      than 1 s untimed (--strace / --backends bring those back)
  bench --sizes [BIN…] [-n N]
                      BIN: lsr (default), lfind, ldu, lcat: file and .text sizes of ours,
                      GNU's, the Zig lsr's and the peers', then cargo-bloat's top N crates
                      and functions of BIN (installs cargo-bloat if missing; reads the
                      `profiling` build: release code with symbols); table to stdout and
                      target/bench/sizes.md
  bench … --docs      (any bench task, scaleout, bench-engine) afterwards rewrite
                      docs/benchmarks.md from the tables in target/bench/
  bench --cold [GROUP…] [--runs N] [--threads 2,16,64] [--dir D] [--only TEXT] [--no-probe]
                      GROUP: du, find, ls, cat or all (root only): every run on a dropped page
                      cache (benches/cold.txt), interleaved; device reads, bytes and busy
                      time per run from /proc/diskstats, a floor row (minimal walker at its
                      best thread count) and the device's own limit from an O_DIRECT probe;
                      table to stdout and target/bench/cold.md
  bench --slowfs LATENCY [GROUP…] [--runs N] [--cap SECS] [--depths 16,256] [--only TEXT] [--ours]
                      GROUP: ls, find, du or all: the same through a slowfs mount of the
                      fixtures (benches/slowfs.txt): time, FUSE requests by type and the
                      concurrency achieved (--ours: our rows only, no minute-long GNU runs);
                      table to stdout and target/bench/slowfs.md
  scaleout [--bin-dir D] [--ranks 1,2,4,8] [--runs N] [--independent] …
                      lfind and ldu -s on the tree fixture through slowfs (1 ms, at most 8
                      requests in service per process), single-process vs `mpirun -n N`;
                      speedup table to stdout and target/bench/scaleout.md
                      (cargo xtask scaleout --help)
  dist [--dir D]       man pages and bash/zsh/fish completions for the four tools,
                      from their option tables (default: target/dist)
  install [--prefix DIR] [--bin-dir DIR | --small]
                      build the four tools (release) and install them into DIR/bin
                      (default ~/.local), their man pages into DIR/share/man/man1 and
                      their completions where bash-completion, zsh and fish look under
                      DIR/share; --bin-dir: install the binaries in DIR, no build;
                      --small: the small build (a nightly toolchain with rust-src
                      rebuilds std without the backtrace printer: lsr 595 KB, as fast)
  bench-engine [--quick] [--runs N] [--dir D]
                      times ringio's executors on flat dirs (open+getdents, +statx,
                      openat+close); table to stdout and target/bench/engine.md
  du-floor DIR [THREADS]
                      the least work any du -s does: one getdents64 per directory and
                      one statx per entry on THREADS threads (default: the CPUs), no
                      bookkeeping; the du bench's `floor` row (build with --release);
                      --names: getdents only (find's floor); --ls: + listxattr per entry
  cat-floor [--stat] FILE…
                      the least work a cat of small files does: open, read to the end
                      and close each in order, the bytes written in large writes; the
                      cat bench's floor rows; --stat: each name statx'ed first, as a
                      cat that gathers many files into one write must (an open could
                      wait on a FIFO)
  ls-floor [--complete] DIR [THREADS]
                      the least work a GNU-identical ls -al does: getdents64 + statx +
                      listxattr per entry on THREADS threads (default 2); ls's floor row;
                      --complete: + keep, sort (bytes), measure, format on 2 threads and
                      print (GNU's LC_ALL=C ls -al output): a complete listing's floor";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let r = match task.as_str() {
        "test" => test(&rest),
        "slowfs" => slowfs::main(&rest),
        "fixtures" => fixtures::main(&rest),
        "bench" => bench_docs::after(&rest, bench::main),
        "dist" => dist::main(&rest),
        "install" => install::main(&rest),
        "scaleout" => bench_docs::after(&rest, scaleout::main),
        "bench-engine" => bench_docs::after(&rest, engine_bench::main),
        "du-floor" => floor::main(&rest),
        "ls-floor" => ls_floor::main(&rest),
        "cat-floor" => cat_floor::main(&rest),
        "gnu-tests" => gnu_tests::main(&rest),
        engine_bench::INNER => engine_bench::inner(&rest),
        "" | "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown task '{other}' (try: cargo xtask help)")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every test, on every engine backend: the ringio suite loops over the
/// backends itself, and the end-to-end tests run each binary once per
/// `RINGIO_BACKEND` value.
fn test(extra: &[String]) -> Result<(), String> {
    setup::ensure_test_packages()?;
    // The tests log what they skipped here (tests/util.rs `skipped`): a
    // passing test's stderr is hidden, so the list is printed after the run.
    let skip_log = target_dir().join("test-skips.log");
    let _ = std::fs::remove_file(&skip_log);
    // `--tests`, not `--all-targets`: the latter also runs the four
    // binaries (C mains without a harness, `test = false`) with the filter
    // as their operand, so `cargo xtask test mpi` failed with "lcat: mpi:
    // No such file or directory".
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--tests"])
        .args(extra)
        .env("RINGUTILS_TEST_SKIP_LOG", &skip_log)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    report_skips(&skip_log);
    if !status.success() {
        return Err("tests failed".into());
    }
    // Doc tests are not part of --tests.
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--doc"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("doc tests failed".into());
    }
    // A filtered run (`cargo xtask test du::`) skips these unless it names them.
    let named = |what: &str| extra.is_empty() || extra.iter().any(|a| a.contains(what));
    if named("mpi") {
        mpi_tests()?;
    }
    if named("gnu") {
        gnu_tests::main(&[])?;
    }
    Ok(())
}

/// The MPI tests (tests/mpi.rs, `--features mpi`): after installing Open
/// MPI and libclang where missing. Without them the tests are skipped
/// with a message, except under `CI=true`, where that fails.
fn mpi_tests() -> Result<(), String> {
    if !setup::ensure_mpi() {
        let msg = format!("MPI tests need {}", setup::MPI_PACKAGES.join(" "));
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err(msg);
        }
        eprintln!("xtask: SKIPPED: {msg}");
        return Ok(());
    }
    let status = Command::new(env!("CARGO"))
        .args(["test", "--features", "mpi", "--test", "integration", "mpi::"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("MPI tests failed".into())
    }
}

/// Prints the skips the tests logged, if any.
fn report_skips(log: &Path) {
    let Ok(text) = std::fs::read_to_string(log) else { return };
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.dedup();
    if lines.is_empty() {
        return;
    }
    eprintln!("\nxtask: {} test parts SKIPPED (see {}):", lines.len(), log.display());
    for l in lines {
        eprintln!("  {l}");
    }
}

/// The workspace root (this crate lives in `<root>/xtask`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent directory")
        .to_path_buf()
}

/// Where cargo puts build products: `CARGO_TARGET_DIR` or `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                workspace_root().join(d)
            }
        }
        _ => workspace_root().join("target"),
    }
}

/// Runs `cargo ARGS` in the workspace root, failing on a non-zero exit.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed", args.join(" ")))
    }
}

/// A command line of the words of `s`, for the parsers' tests.
#[cfg(test)]
fn args_of(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// A command line word by word, where a long option's value may be
/// attached (`--runs=3`) or the next word (`--runs 3`).
pub struct Words<'a> {
    it: std::slice::Iter<'a, String>,
    /// The attached value of the option just read.
    inline: Option<String>,
}

impl<'a> Words<'a> {
    pub fn new(args: &'a [String]) -> Words<'a> {
        Words { it: args.iter(), inline: None }
    }

    /// The next word; of `--flag=value`, the flag.
    pub fn next_word(&mut self) -> Option<String> {
        let a = self.it.next()?;
        match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => {
                self.inline = Some(v.to_string());
                Some(f.to_string())
            }
            _ => {
                self.inline = None;
                Some(a.clone())
            }
        }
    }

    /// The value of `flag`, the option just read.
    pub fn value(&mut self, flag: &str) -> Result<String, String> {
        self.inline
            .clone()
            .or_else(|| self.it.next().cloned())
            .ok_or(format!("{flag} needs a value"))
    }
}

/// Parses the value of `--cap`: seconds, `s` optional, more than none.
pub fn parse_cap(v: &str) -> Result<std::time::Duration, String> {
    v.trim_end_matches('s')
        .parse()
        .ok()
        .filter(|&s: &f64| s > 0.0)
        .map(std::time::Duration::from_secs_f64)
        .ok_or(format!("--cap: bad number of seconds '{v}'"))
}

/// Takes the word `a` of a bench's command line into `groups` if it names
/// one of the `known` groups, or `all`; false for any other word.
pub fn take_group(groups: &mut Vec<String>, known: &[&str], a: &str) -> bool {
    if a == "all" {
        groups.extend(known.iter().map(|g| g.to_string()));
    } else if known.contains(&a) {
        groups.push(a.into());
    } else {
        return false;
    }
    true
}

/// The groups a bench runs: those named, or every one when none was.
pub fn settle_groups(groups: &mut Vec<String>, known: &[&str]) {
    if groups.is_empty() {
        groups.extend(known.iter().map(|g| g.to_string()));
    }
    groups.dedup();
}

/// Parses the value of `--runs`.
pub fn parse_runs(v: Option<&String>) -> Result<usize, String> {
    v.and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .ok_or_else(|| "--runs needs a positive number".to_string())
}

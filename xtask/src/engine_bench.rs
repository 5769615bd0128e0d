//! `cargo xtask bench-engine`: ringio's executors timed directly on the flat
//! fixture directories, through the engine's public API.
//!
//! The timing runs in an optimized build: `bench-engine` builds this crate
//! with `--release` and re-executes itself as `bench-engine-inner`, so the
//! engine is measured as the tools will use it, not as a debug build.
//!
//! Workloads per directory (each timed whole, in-process, with `Instant`;
//! engine setup happens once per variant, outside the timing):
//! - `list`: openat + getdents until EOF + close;
//! - `list+statx`: the same, pushing one statx (AT_SYMLINK_NOFOLLOW,
//!   STATX_BASIC_STATS) per entry as each getdents buffer arrives;
//! - `open+close`: openat + close of every file (names listed beforehand),
//!   with at most a window of opens outstanding.

use std::fmt::Write as _;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ringio::{Backend, Completion, Config, DirentIter, Engine};

use crate::fixtures::{self, Set};
use crate::machine::{ForeignLoad, BUSY_CORES};

pub const INNER: &str = "bench-engine-inner";

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// An executor configuration: one column of the table.
struct Variant {
    name: &'static str,
    backend: Backend,
    depth: Option<usize>,
}

const VARIANTS: [Variant; 5] = [
    Variant { name: "sync", backend: Backend::Inline, depth: None },
    Variant { name: "threads", backend: Backend::Threads, depth: None },
    Variant { name: "uring", backend: Backend::Uring, depth: None },
    Variant { name: "uring d256", backend: Backend::Uring, depth: Some(256) },
    Variant { name: "uring d4096", backend: Backend::Uring, depth: Some(4096) },
];

#[derive(Clone, Copy)]
enum Work {
    List,
    ListStat,
    OpenClose,
}

impl Work {
    const ALL: [Work; 3] = [Work::List, Work::ListStat, Work::OpenClose];
    fn name(self) -> &'static str {
        match self {
            Work::List => "list (open+getdents+close)",
            Work::ListStat => "list+statx (pipelined)",
            Work::OpenClose => "openat+close every file",
        }
    }
}

/// `cargo xtask bench-engine`: build optimized, then run the inner task.
pub fn main(args: &[String]) -> Result<(), String> {
    crate::cargo(&["build", "--release", "-p", "xtask"])?;
    let exe = crate::target_dir().join("release").join("xtask");
    let status = std::process::Command::new(&exe)
        .arg(INNER)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err("bench-engine failed".into())
    }
}

pub fn inner(args: &[String]) -> Result<(), String> {
    let mut runs = None;
    let mut quick = false;
    let mut dir = fixtures::default_dir();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--runs" => runs = Some(crate::parse_runs(it.next())?),
            "--dir" => dir = PathBuf::from(it.next().ok_or("--dir needs a value")?),
            other => return Err(format!("bench-engine: unknown argument '{other}'")),
        }
    }
    let runs = runs.unwrap_or(if quick { 3 } else { 10 });
    let mut dirs = Vec::new();
    for n in SIZES {
        dirs.push((n, fixtures::ensure(&dir, Set::Flat(n))?));
    }
    let mut engines: Vec<(&Variant, Engine)> = Vec::new();
    for v in &VARIANTS {
        let e = Engine::with_config(Config {
            backend: Some(v.backend),
            depth: v.depth,
            ..Config::default()
        });
        if e.backend() != v.backend {
            eprintln!(
                "bench-engine: {} unavailable here ({}); column skipped",
                v.name,
                ringio::uring_description()
            );
            continue;
        }
        engines.push((v, e));
    }
    // results[work][size] = per-variant samples
    let mut table: Vec<Row> = Vec::new();
    for &(n, ref path) in &dirs {
        let names = list_names(path)?;
        if names.len() != n {
            return Err(format!("{}: {} entries, expected {n}", path.display(), names.len()));
        }
        let dir = open_dir(path)?;
        let dirfd = dir.as_raw_fd();
        for work in Work::ALL {
            eprintln!(
                "bench-engine: flat-{n}: {} × {} variants × {runs} runs",
                work.name(),
                engines.len()
            );
            let mut samples = vec![Vec::new(); engines.len()];
            let load = ForeignLoad::start();
            // One warm-up round, then interleaved rounds.
            for round in 0..=runs {
                for (i, (_, eng)) in engines.iter_mut().enumerate() {
                    let t = Instant::now();
                    let count = match work {
                        Work::List => list(eng, path, false)?,
                        Work::ListStat => list(eng, path, true)?,
                        Work::OpenClose => open_close(eng, dirfd, &names)?,
                    };
                    let d = t.elapsed();
                    if count != n {
                        return Err(format!(
                            "{}: {} counted {count} of {n}",
                            work.name(),
                            engines[i].0.name
                        ));
                    }
                    if round > 0 {
                        samples[i].push(d);
                    }
                }
            }
            table.push((work, n, samples, load.cores()));
        }
        drop(dir);
    }
    let report =
        render(&dir, runs, &engines.iter().map(|(v, _)| v.name).collect::<Vec<_>>(), &table);
    print!("{report}");
    let out = crate::target_dir().join("bench");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let path = out.join("engine.md");
    std::fs::write(&path, report).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("bench-engine: wrote {}", path.display());
    Ok(())
}

fn list_names(path: &Path) -> Result<Vec<Vec<u8>>, String> {
    let rd = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(rd.filter_map(|e| e.ok()).map(|e| e.file_name().as_bytes().to_vec()).collect())
}

fn open_dir(path: &Path) -> Result<OwnedFd, String> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    ringio::sys::openat_owned(libc::AT_FDCWD, &c, libc::O_RDONLY | libc::O_DIRECTORY, 0)
        .map_err(|e| format!("{}: {e}", path.display()))
}

const T_OPEN: u64 = u64::MAX;
const T_DENTS: u64 = u64::MAX - 1;
const T_CLOSE: u64 = u64::MAX - 2;

fn wait_one(eng: &mut Engine, token: u64, out: &mut Vec<Completion>) -> Result<Completion, String> {
    eng.wait_for(token, out).ok_or_else(|| format!("token {token} never completed"))
}

/// Opens the directory, reads it to the end (pushing a statx per entry as
/// each buffer arrives when `stat`), closes it; returns the entries seen.
fn list(eng: &mut Engine, path: &Path, stat: bool) -> Result<usize, String> {
    let mut out = Vec::new();
    eng.openat(
        T_OPEN,
        libc::AT_FDCWD,
        path.as_os_str().as_bytes(),
        libc::O_RDONLY | libc::O_DIRECTORY,
        0,
    );
    let fd = wait_one(eng, T_OPEN, &mut out)?.fd().map_err(|e| format!("open: {e:?}"))?;
    eng.getdents(T_DENTS, fd, Vec::new());
    let (mut entries, mut stats, mut err) = (0usize, 0usize, None);
    let mask = libc::STATX_BASIC_STATS;
    eng.run(|eng, mut c| {
        if c.token == T_DENTS {
            if let Err(e) = c.result {
                err = Some(format!("getdents: {e:?}"));
                return;
            }
            for d in DirentIter::new(c.buf()).filter(|d| !d.is_dot_or_dotdot()) {
                entries += 1;
                if stat {
                    eng.statx(entries as u64, fd, d.name, libc::AT_SYMLINK_NOFOLLOW, mask);
                }
            }
            if !c.eof {
                let buf = c.take_buf();
                eng.getdents(T_DENTS, fd, buf);
            }
        } else if c.stat().is_ok() {
            stats += 1;
        } else {
            err = Some(format!("statx: {:?}", c.result));
        }
    });
    eng.close(T_CLOSE, fd);
    wait_one(eng, T_CLOSE, &mut out)?.result.map_err(|e| format!("close: {e:?}"))?;
    if let Some(e) = err {
        return Err(e);
    }
    if stat && stats != entries {
        return Err(format!("{stats} stats for {entries} entries"));
    }
    Ok(entries)
}

/// openat + close of every name, at most `window` opens outstanding (the fd
/// limit); returns the files opened.
fn open_close(eng: &mut Engine, dirfd: i32, names: &[Vec<u8>]) -> Result<usize, String> {
    let window = (libcw::rlimit::nofile_soft() as usize).saturating_sub(64).clamp(16, 4096);
    const CLOSE_BIT: u64 = 1 << 63;
    let (mut next, mut opened, mut open_now) = (0usize, 0usize, 0usize);
    let mut out = Vec::new();
    while opened < names.len() || eng.outstanding() > 0 {
        while next < names.len() && open_now < window {
            eng.openat(next as u64, dirfd, &names[next], libc::O_RDONLY, 0);
            next += 1;
            open_now += 1;
        }
        out.clear();
        eng.wait(1, &mut out);
        for c in &out {
            if c.token & CLOSE_BIT != 0 {
                c.result.map_err(|e| format!("close: {e:?}"))?;
                open_now -= 1;
            } else {
                let fd = c.fd().map_err(|e| format!("openat: {e:?}"))?;
                opened += 1;
                eng.close(c.token | CLOSE_BIT, fd);
            }
        }
    }
    Ok(opened)
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 10.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// A table row: workload, files, samples per variant, other processes'
/// load meanwhile (cores).
type Row = (Work, usize, Vec<Vec<Duration>>, f64);

fn render(dir: &Path, runs: usize, variants: &[&str], table: &[Row]) -> String {
    let mut s = String::from("# `cargo xtask bench-engine`\n\n");
    s.push_str(&crate::machine::header(dir));
    let _ = writeln!(
        s,
        "- method: in-process (`--release` build), engine set up once per column outside the timing; \
         1 warm-up round, then {runs} rounds running every column in turn; cells are **min** / median ms; \
         `uring` = depth 1024 (the default), `dN` = depth N; statx: AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS; \
         other load = cores used by other processes meanwhile (⚠ ≥ {BUSY_CORES}: medians inflated)\n"
    );
    let _ =
        writeln!(s, "| workload | files | {} | fastest (min) | other load |", variants.join(" | "));
    let _ = writeln!(s, "|---|---:|{}---|---:|", "---:|".repeat(variants.len()));
    for (work, n, samples, load) in table {
        let mut cells = Vec::new();
        let mut best: Option<(Duration, &str)> = None;
        for (v, smp) in variants.iter().zip(samples) {
            let mut sorted = smp.clone();
            sorted.sort();
            let k = sorted.len();
            let (min, med) = (sorted[0], (sorted[(k - 1) / 2] + sorted[k / 2]) / 2);
            if best.is_none_or(|(b, _)| min < b) {
                best = Some((min, v));
            }
            cells.push(format!("**{}** / {}", ms(min), ms(med)));
        }
        let fastest = best.map_or_else(String::new, |(d, v)| {
            format!("{v} ({:.0} ns/file)", d.as_nanos() as f64 / *n as f64)
        });
        let warn = if *load >= BUSY_CORES { " ⚠" } else { "" };
        let _ = writeln!(
            s,
            "| {} | {n} | {} | {fastest} | {load:.2}{warn} |",
            work.name(),
            cells.join(" | ")
        );
    }
    s
}

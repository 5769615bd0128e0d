//! `cargo xtask scaleout`: the MPI scale-out table (docs/mpi.md), shown on one
//! machine. A parallel file system caps each client node's metadata
//! requests in flight (Lustre: 8), so one node walks a huge tree no faster
//! however many threads it runs, and N nodes should walk it N times as
//! fast. Here the fixtures are mounted through `xtask slowfs` with a
//! latency per request and `--per-client K`, which gives every process K
//! slots; each MPI rank is a process, so it stands for one client node.
//!
//! Rows, run in turn (A B C … A B C …) and reported by their median:
//! - the tool started without mpirun (the single-process tool, one client);
//! - `mpirun -n N TOOL` for each N of `--ranks`, when the binaries are an
//!   MPI build (probed: `mpirun -n 2 ldu -s DIR` prints one line, not two);
//! - with `--independent` (or when the binaries are not an MPI build), N
//!   separate processes each walking a share of the tree's subdirectories:
//!   what N clients give without any coordination, which shows the cap is
//!   per client.
//!
//! Each run's stdout goes to a file: MPI rows must print what the
//! single-process tool prints (lfind: the same lines in any order; ldu -s:
//! the same bytes). The server's counters are read after each run:
//! requests, clients seen, and the most requests in service at once
//! (N ranks reach N·K).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench_slowfs::Mount;
use crate::fixtures::{self, Set};
use crate::slowfs::sys;

pub const USAGE: &str = "\
usage: cargo xtask scaleout [OPTIONS]

Walks the `tree` fixture (~170k entries) through a slowfs mount with a
per-client cap, as the single-process tool and as MPI jobs of N ranks; prints
a markdown table (also written to target/bench/scaleout.md).

options:
  --bin-dir DIR     use DIR/lfind and DIR/ldu (e.g. another worktree's
                    target/release of an `--features mpi` build) instead of
                    building them here with `cargo build --release --features
                    mpi` (into target/mpi)
  --ranks LIST      ranks per MPI row (default 1,2,4,8)
  --runs N          rounds (default 3); each row's median is reported
  --latency DUR     slowfs delay per metadata request (default 1ms)
  --per-client K    slowfs slots per client (default 8, Lustre's
                    max_rpcs_in_flight)
  --tools LIST      find, du or both (default find,du)
  --independent     add rows of N independent single-process tools, each on
                    a share of the subdirectories (always there when the
                    binaries are not an MPI build)
  --cap SECS        kill a run after SECS (default 600)
  --dir D           fixtures directory (default target/fixtures)

Skips, with a message, when mpirun is not installed (Debian: openmpi-bin).";

struct Options {
    bin_dir: Option<PathBuf>,
    ranks: Vec<usize>,
    runs: usize,
    latency: String,
    per_client: usize,
    tools: Vec<Tool>,
    independent: bool,
    cap: Duration,
    dir: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tool {
    Find,
    Du,
}

impl Tool {
    fn bin(self) -> &'static str {
        match self {
            Tool::Find => "lfind",
            Tool::Du => "ldu",
        }
    }

    /// Arguments before the operands.
    fn args(self) -> &'static [&'static str] {
        match self {
            Tool::Find => &[],
            Tool::Du => &["-s"],
        }
    }

    fn shown(self) -> &'static str {
        match self {
            Tool::Find => "lfind tree",
            Tool::Du => "ldu -s tree",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Started without mpirun.
    Single,
    /// `mpirun -n N`.
    Mpi(usize),
    /// N separate processes, each on a share of the subdirectories.
    Independent(usize),
}

impl Mode {
    fn label(self) -> String {
        match self {
            Mode::Single => "single process".into(),
            Mode::Mpi(n) => format!("mpirun -n {n}"),
            Mode::Independent(n) => format!("{n} independent processes"),
        }
    }

    /// Clients (processes) the mode walks with.
    fn clients(self) -> usize {
        match self {
            Mode::Single => 1,
            Mode::Mpi(n) | Mode::Independent(n) => n,
        }
    }
}

fn parse_list(flag: &str, v: &str) -> Result<Vec<usize>, String> {
    v.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim().parse().ok().filter(|&n: &usize| n > 0))
        .collect::<Option<Vec<_>>>()
        .filter(|l| !l.is_empty())
        .ok_or(format!("{flag}: bad list '{v}' (e.g. 1,2,4,8)"))
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        bin_dir: None,
        ranks: vec![1, 2, 4, 8],
        runs: 3,
        latency: "1ms".into(),
        per_client: 8,
        tools: vec![Tool::Find, Tool::Du],
        independent: false,
        cap: Duration::from_secs(600),
        dir: fixtures::default_dir(),
    };
    let mut words = crate::Words::new(args);
    while let Some(flag) = words.next_word() {
        let flag = flag.as_str();
        let mut value = || words.value(flag);
        match flag {
            "-h" | "--help" => return Ok(None),
            "--bin-dir" => o.bin_dir = Some(PathBuf::from(value()?)),
            "--ranks" => o.ranks = parse_list(flag, &value()?)?,
            "--runs" => o.runs = crate::parse_runs(Some(&value()?))?,
            "--latency" => o.latency = value()?,
            "--per-client" => {
                o.per_client = value()?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--per-client needs a positive number")?
            }
            "--tools" => {
                let v = value()?;
                o.tools = v
                    .split(',')
                    .map(|t| match t.trim() {
                        "find" | "lfind" => Some(Tool::Find),
                        "du" | "ldu" => Some(Tool::Du),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .filter(|l| !l.is_empty())
                    .ok_or(format!("--tools: bad list '{v}' (find, du)"))?;
            }
            "--independent" => o.independent = true,
            "--cap" => o.cap = crate::parse_cap(&value()?)?,
            "--dir" => o.dir = PathBuf::from(value()?),
            other => return Err(format!("scaleout: unknown argument '{other}' (see --help)")),
        }
    }
    Ok(Some(o))
}

/// The path of `cmd` on PATH, if it is there.
fn which(cmd: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(cmd)).find(|p| p.is_file())
}

fn is_root() -> bool {
    sys::euid_egid().0 == 0
}

/// `mpirun` and the options every job gets: more ranks than cores
/// (`--oversubscribe`, the machine may have 2), and root allowed only when
/// we are root.
fn mpirun(mpirun: &Path, n: usize) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec![mpirun.into()];
    if is_root() {
        v.push("--allow-run-as-root".into());
    }
    v.extend(["--oversubscribe", "-n"].map(OsString::from));
    v.push(n.to_string().into());
    v
}

/// The binaries: `--bin-dir`, or an `--features mpi` release build of this
/// workspace in target/mpi (its own directory, so the default release
/// binaries the other benches use are not rebuilt each time).
fn binaries(o: &Options) -> Result<PathBuf, String> {
    if let Some(d) = &o.bin_dir {
        // ldu even for find alone: it is what tells an MPI build apart.
        for bin in ["lfind", "ldu"] {
            let p = d.join(bin);
            if !p.is_file() {
                return Err(format!("scaleout: {} not found", p.display()));
            }
        }
        return fs::canonicalize(d).map_err(|e| format!("{}: {e}", d.display()));
    }
    let target = crate::target_dir().join("mpi");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--features", "mpi", "--bins", "--target-dir"])
        .arg(&target)
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("scaleout: `cargo build --release --features mpi` failed; without the \
                    feature here, point --bin-dir at an MPI build's target/release"
            .into());
    }
    Ok(target.join("release"))
}

/// Whether `bin` (ldu) is an MPI build: as one job of two ranks it prints
/// one total; a plain build run twice by mpirun prints two.
fn is_mpi_build(mpirun_path: &Path, ldu: &Path, dir: &Path) -> Result<bool, String> {
    let argv = mpirun(mpirun_path, 2);
    let out = Command::new("timeout")
        .args(["-k", "5", "60"])
        .args(&argv)
        .arg(ldu)
        .arg("-s")
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run mpirun: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "scaleout: `mpirun -n 2 {} -s {}` failed ({}): {}",
            ldu.display(),
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(stdout.lines().count() == 1)
}

/// The tree cut into `n` shares for N independent walkers: its entries,
/// with the heaviest directory replaced by its own entries until none
/// weighs more than a quarter of a share, dealt by weight (entries below, + 1) largest
/// first onto the lightest share. Every entry but the root and the split
/// directories is walked once. Counted on the source, so the mount sees
/// none of it.
fn shares(source_tree: &Path, n: usize) -> Vec<Vec<PathBuf>> {
    fn count(p: &Path) -> u64 {
        let Ok(rd) = fs::read_dir(p) else { return 0 };
        rd.flatten()
            .map(|e| 1 + if e.file_type().is_ok_and(|t| t.is_dir()) { count(&e.path()) } else { 0 })
            .sum()
    }
    // (weight, path, is a directory)
    let children = |p: &Path| -> Vec<(u64, PathBuf, bool)> {
        let mut v: Vec<(u64, PathBuf, bool)> = fs::read_dir(p)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                let dir = e.file_type().is_ok_and(|t| t.is_dir());
                let w = if dir { count(&e.path()) + 1 } else { 1 };
                (w, e.path(), dir)
            })
            .collect();
        v.sort_by(|a, b| a.1.cmp(&b.1));
        v
    };
    let n = n.max(1);
    let mut units = children(source_tree);
    let total: u64 = units.iter().map(|u| u.0).sum();
    let most = (total / (4 * n as u64)).max(1);
    loop {
        let heaviest = units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.2 && u.0 > most)
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
            .map(|(i, _)| i);
        let Some(i) = heaviest else { break };
        let (_, dir, _) = units.remove(i);
        units.extend(children(&dir));
    }
    units.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<(u64, Vec<PathBuf>)> = vec![(0, Vec::new()); n];
    for (w, p, _) in units {
        let lightest = out.iter_mut().min_by_key(|s| s.0).expect("n >= 1");
        lightest.0 += w;
        lightest.1.push(p);
    }
    out.into_iter().map(|(_, v)| v).collect()
}

struct Row {
    tool: Tool,
    mode: Mode,
    /// One command line per process started.
    argvs: Vec<Vec<OsString>>,
}

struct Sample {
    wall: Duration,
    /// User + system CPU of the row's processes (mpirun's ranks included:
    /// reaped descendants count), and of the FUSE server meanwhile.
    cpu: Duration,
    server_cpu: Duration,
    requests: u64,
    clients: u64,
    in_service_max: u64,
    /// Fewest and most requests one client made: how evenly the ranks
    /// shared the walk.
    spread: (u64, u64),
    /// Whether stdout matched the single-process tool's (None: not
    /// comparable, as for independent rows).
    same: Option<bool>,
}

/// Runs the row's processes at once; Err on a failure or the cap.
fn run_once(row: &Row, cap: Duration, scratch: &Path) -> Result<(Duration, Vec<PathBuf>), String> {
    let mut children: Vec<(Child, PathBuf, PathBuf)> = Vec::new();
    let t = Instant::now();
    for (i, argv) in row.argvs.iter().enumerate() {
        let out = scratch.join(format!("out-{i}"));
        let err = scratch.join(format!("err-{i}"));
        let f = |p: &Path| fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let child = Command::new(&argv[0])
            .args(&argv[1..])
            .env("LC_ALL", "C")
            .env_remove("RINGIO_BACKEND")
            .env_remove("RINGIO_DEPTH")
            .env_remove("RINGIO_THREADS")
            .stdin(Stdio::null())
            .stdout(f(&out)?)
            .stderr(f(&err)?)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot run {:?}: {e}", argv[0]))?;
        children.push((child, out, err));
    }
    let mut failure = None;
    let mut left = children.len();
    let mut done = vec![false; children.len()];
    let mut wall = Duration::ZERO;
    while left > 0 {
        for (i, (c, _, err)) in children.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            if let Some(st) = c.try_wait().map_err(|e| format!("wait: {e}"))? {
                done[i] = true;
                left -= 1;
                wall = t.elapsed();
                if !st.success() && failure.is_none() {
                    let text = fs::read_to_string(err).unwrap_or_default();
                    let first: String =
                        text.lines().next().unwrap_or("").chars().take(160).collect();
                    failure = Some(format!("{} exited with {st}: {first}", row.mode.label()));
                }
            }
        }
        if left > 0 && t.elapsed() > cap {
            // SIGTERM first: mpirun passes it on to its ranks, which are
            // not all in its process group.
            for sig in [libc::SIGTERM, libc::SIGKILL] {
                for (i, (c, _, _)) in children.iter().enumerate() {
                    if !done[i] {
                        let _ = sys::kill(-(c.id() as i32), sig);
                    }
                }
                std::thread::sleep(Duration::from_secs(2));
            }
            for (i, (c, _, _)) in children.iter_mut().enumerate() {
                if !done[i] {
                    let _ = c.wait();
                }
            }
            return Err(format!("{}: killed after {:.0} s", row.mode.label(), cap.as_secs_f64()));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    if let Some(f) = failure {
        return Err(f);
    }
    Ok((wall, children.into_iter().map(|(_, out, _)| out).collect()))
}

/// lfind's lines sorted (ranks may print in another order than one process
/// does); ldu -s's bytes as they are.
fn normalized(tool: Tool, bytes: Vec<u8>) -> Vec<u8> {
    if tool == Tool::Du {
        return bytes;
    }
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.sort_unstable();
    lines.join(&b'\n')
}

fn median(v: &[Duration]) -> Option<Duration> {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied()
}

fn num(m: &HashMap<String, String>, k: &str) -> u64 {
    m.get(k).and_then(|v| v.parse().ok()).unwrap_or(0)
}

pub fn main(args: &[String]) -> Result<(), String> {
    let Some(o) = parse_args(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let Some(mpirun_path) = which("mpirun") else {
        println!(
            "scaleout: SKIPPED: mpirun is not installed (Debian: apt-get install openmpi-bin \
             libopenmpi-dev libclang-dev)"
        );
        return Ok(());
    };
    let tree = fixtures::ensure(&o.dir, Set::Tree)?;
    let bins = binaries(&o)?;
    let out_dir = crate::target_dir().join("bench");
    let scratch = out_dir.join(format!("scaleout-{}", std::process::id()));
    fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let source = fs::canonicalize(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    let mnt = out_dir.join("scaleout-mnt");
    let stats = out_dir.join("scaleout-stats");

    // Probed on a small directory of the source, not through the mount.
    let probe_dir = scratch.join("probe");
    fs::create_dir_all(probe_dir.join("d")).map_err(|e| format!("{}: {e}", probe_dir.display()))?;
    let mpi = is_mpi_build(&mpirun_path, &bins.join("ldu"), &probe_dir)?;
    if !mpi {
        eprintln!(
            "scaleout: {} is not an MPI build (mpirun -n 2 ldu -s printed two totals): \
             measuring N independent processes instead",
            bins.display()
        );
    }
    let header = crate::machine::header(&o.dir);
    let cap_arg = ["--per-client".to_string(), o.per_client.to_string()];
    let mut m = Mount::start(&source, &mnt, &o.latency, &stats, &cap_arg)?;
    let result = measure_all(&o, &mut m, &mpirun_path, &bins, &tree, &scratch, mpi);
    m.stop();
    let (rows, foreign) = result?;
    let _ = fs::remove_dir_all(&scratch);
    let report = render(&header, &o, &bins, mpi, &rows, foreign);
    print!("{report}");
    let path = out_dir.join("scaleout.md");
    fs::write(&path, &report).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("scaleout: wrote {}", path.display());
    Ok(())
}

type Measured = (Row, Vec<Sample>, Option<String>);

fn measure_all(
    o: &Options,
    m: &mut Mount,
    mpirun_path: &Path,
    bins: &Path,
    tree: &Path,
    scratch: &Path,
    mpi: bool,
) -> Result<(Vec<Measured>, f64), String> {
    let rows = rows(o, &m.mnt, mpirun_path, bins, tree, mpi)?;
    let load = crate::machine::ForeignLoad::start();
    let server0 = m.cpu();
    let mut res: Vec<Measured> = rows.into_iter().map(|r| (r, Vec::new(), None)).collect();
    // The single-process tool's stdout, per tool: what MPI rows must print.
    let mut reference: HashMap<&'static str, Vec<u8>> = HashMap::new();
    for round in 0..o.runs {
        eprintln!("scaleout: round {} of {}", round + 1, o.runs);
        for (row, samples, failed) in res.iter_mut() {
            if failed.is_some() {
                continue;
            }
            m.reset()?;
            let (cpu0, server0) = (sys::cpu_used(), m.cpu());
            let (wall, outs) = match run_once(row, o.cap, scratch) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("scaleout:   {} {}: {e}", row.tool.shown(), row.mode.label());
                    *failed = Some(e);
                    continue;
                }
            };
            let stats = m.snapshot_map()?;
            let same = match row.mode {
                Mode::Independent(_) => None,
                _ => {
                    let out =
                        fs::read(&outs[0]).map_err(|e| format!("{}: {e}", outs[0].display()))?;
                    let out = normalized(row.tool, out);
                    let want = reference.entry(row.tool.bin()).or_insert_with(|| out.clone());
                    Some(*want == out)
                }
            };
            let cpu = sys::cpu_used().saturating_sub(cpu0);
            let s = sample(wall, cpu, m.cpu().saturating_sub(server0), &stats, same);
            log_sample(row, &s);
            samples.push(s);
        }
    }
    let secs = load.elapsed().as_secs_f64().max(1e-3);
    // The server is our unreaped child: its CPU shows up as foreign.
    let foreign = (load.cores() - (m.cpu() - server0).as_secs_f64() / secs).max(0.0);
    Ok((res, foreign))
}

/// The rows to measure: per tool, the single process on the whole tree,
/// then each rank count under mpirun (an MPI build) or as independent
/// processes on shares of the tree.
fn rows(
    o: &Options,
    mnt: &Path,
    mpirun_path: &Path,
    bins: &Path,
    tree: &Path,
    mpi: bool,
) -> Result<Vec<Row>, String> {
    let root = fs::canonicalize(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    let on_mount = |p: &Path| mnt.join(p.strip_prefix(&root).unwrap_or(p));
    let mnt_tree = on_mount(tree);
    let mut rows: Vec<Row> = Vec::new();
    for &tool in &o.tools {
        let bin: OsString = bins.join(tool.bin()).into();
        let cmd = |ops: &[PathBuf]| -> Vec<OsString> {
            let mut v = vec![bin.clone()];
            v.extend(tool.args().iter().map(OsString::from));
            v.extend(ops.iter().map(|p| p.clone().into_os_string()));
            v
        };
        let whole = cmd(std::slice::from_ref(&mnt_tree));
        rows.push(Row { tool, mode: Mode::Single, argvs: vec![whole.clone()] });
        if mpi {
            for &n in &o.ranks {
                let mut argv = mpirun(mpirun_path, n);
                argv.extend(whole.iter().cloned());
                rows.push(Row { tool, mode: Mode::Mpi(n), argvs: vec![argv] });
            }
        }
        if !mpi || o.independent {
            for &n in o.ranks.iter().filter(|&&n| n > 1) {
                let argvs = shares(tree, n)
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .map(|s| cmd(&s.iter().map(|p| on_mount(p)).collect::<Vec<_>>()))
                    .collect();
                rows.push(Row { tool, mode: Mode::Independent(n), argvs });
            }
        }
    }
    Ok(rows)
}

/// A run's numbers, the server's counters among them.
fn sample(
    wall: Duration,
    cpu: Duration,
    server_cpu: Duration,
    stats: &HashMap<String, String>,
    same: Option<bool>,
) -> Sample {
    let per_client: Vec<u64> = stats
        .iter()
        .filter(|(k, _)| k.starts_with("client.") && k.ends_with(".requests"))
        .filter_map(|(_, v)| v.parse().ok())
        .filter(|&n| n > 0)
        .collect();
    Sample {
        wall,
        cpu,
        server_cpu,
        requests: num(stats, "requests"),
        clients: stats.iter().filter(|(k, v)| k.ends_with(".requests") && v.as_str() != "0").count()
            as u64,
        in_service_max: num(stats, "in_service_max"),
        spread: (
            per_client.iter().copied().min().unwrap_or(0),
            per_client.iter().copied().max().unwrap_or(0),
        ),
        same,
    }
}

fn log_sample(row: &Row, s: &Sample) {
    eprintln!(
        "scaleout:   {} {}: {:.2} s (CPU {:.1} s, server {:.1} s), {} requests, {} \
         clients, at most {} in service{}",
        row.tool.shown(),
        row.mode.label(),
        s.wall.as_secs_f64(),
        s.cpu.as_secs_f64(),
        s.server_cpu.as_secs_f64(),
        s.requests,
        s.clients,
        s.in_service_max,
        if s.same == Some(false) { ", OUTPUT DIFFERS" } else { "" }
    );
}

/// What a row's speedup should reach, and whether it did: one rank no
/// slower than the single process; n clients 80% of n times faster.
fn target(mode: Mode, mpi: bool, speedup: Option<f64>) -> (String, Option<&'static str>) {
    let n = mode.clients() as f64;
    match (mode, mpi) {
        (Mode::Single, true) => {
            ("1 rank no slower".to_string(), speedup.map(|x| if x <= 1.0 { "yes" } else { "no" }))
        }
        (Mode::Single, false) => ("(base)".to_string(), None),
        _ if n == 1.0 => ("(base)".to_string(), None),
        _ => {
            (format!("≥ {:.1}×", 0.8 * n), speedup.map(|x| if x >= 0.8 * n { "yes" } else { "no" }))
        }
    }
}

/// Whether a row printed what the single process printed, in every run.
fn same_output(samples: &[Sample]) -> String {
    let same = samples.iter().filter_map(|x| x.same).collect::<Vec<_>>();
    if same.is_empty() {
        "–".to_string()
    } else if same.iter().all(|&b| b) {
        "yes".to_string()
    } else {
        format!("NO ({} of {})", same.iter().filter(|&&b| !b).count(), same.len())
    }
}

fn render(
    header: &str,
    o: &Options,
    bins: &Path,
    mpi: bool,
    rows: &[Measured],
    foreign: f64,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# `cargo xtask scaleout`\n");
    s.push_str(header);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let _ = writeln!(
        s,
        "- slowfs: {} per metadata request, no caching, at most {} requests in service per \
         client (process)\n- binaries: {}{}\n- runs: {} rounds, rows interleaved; median wall \
         time (for mpirun rows, its own start-up of ~0.35 s included); CPU: user + system\n- \
         speedup: of MPI rows and the single process against `mpirun -n 1`, of independent \
         processes against the single process\n- other processes used {foreign:.2} \
         cores on average meanwhile",
        o.latency,
        o.per_client,
        bins.display(),
        if mpi { " (MPI build)" } else { " (not an MPI build: independent processes instead)" },
        o.runs,
    );
    if o.ranks.iter().any(|&n| n > cpus) {
        let _ = writeln!(
            s,
            "- {cpus} CPUs: rows with more processes than that are oversubscribed \
             (`--oversubscribe`); they share the CPUs with the FUSE server"
        );
    }
    s.push('\n');
    s.push_str(
        "| command | run as | clients | median s | runs | speedup | target | met | CPU s tools \
         / server | requests (per client) | most in service | output = single |\n",
    );
    s.push_str("|---|---|--:|--:|--:|--:|---|---|--:|--:|--:|---|\n");
    for tool in &o.tools {
        let of = |mode: Mode| {
            rows.iter()
                .find(|(r, _, _)| r.tool == *tool && r.mode == mode)
                .and_then(|(_, v, _)| median(&v.iter().map(|x| x.wall).collect::<Vec<_>>()))
        };
        // MPI rows (and the single-process one) against one rank;
        // independent processes against the single-process tool.
        let rank1 = if mpi { of(Mode::Mpi(1)) } else { of(Mode::Single) };
        for (row, samples, failed) in rows.iter().filter(|(r, _, _)| r.tool == *tool) {
            let base = match row.mode {
                Mode::Independent(_) => of(Mode::Single),
                _ => rank1,
            };
            let med = median(&samples.iter().map(|x| x.wall).collect::<Vec<_>>());
            let mid = samples.iter().find(|x| Some(x.wall) == med);
            let speedup = match (base, med) {
                (Some(b), Some(t)) if !t.is_zero() => Some(b.as_secs_f64() / t.as_secs_f64()),
                _ => None,
            };
            let (target, met) = target(row.mode, mpi, speedup);
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                tool.shown(),
                row.mode.label(),
                mid.map_or("–".into(), |x| x.clients.to_string()),
                med.map_or_else(
                    || failed.clone().unwrap_or("–".into()),
                    |t| format!("{:.2}", t.as_secs_f64())
                ),
                samples.len(),
                speedup.map_or("–".into(), |x| format!("{x:.2}×")),
                target,
                met.unwrap_or("–"),
                mid.map_or("–".into(), |x| format!(
                    "{:.1} / {:.1}",
                    x.cpu.as_secs_f64(),
                    x.server_cpu.as_secs_f64()
                )),
                mid.map_or("–".into(), |x| if x.clients > 1 {
                    format!("{} ({}–{})", x.requests, x.spread.0, x.spread.1)
                } else {
                    x.requests.to_string()
                }),
                mid.map_or("–".into(), |x| x.in_service_max.to_string()),
                same_output(samples),
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args_of as args;

    #[test]
    fn arguments() {
        let o = parse_args(&[]).unwrap().unwrap();
        assert_eq!((o.ranks.as_slice(), o.runs, o.per_client), (&[1, 2, 4, 8][..], 3, 8));
        assert_eq!(o.tools, [Tool::Find, Tool::Du]);
        let o = parse_args(&args("--ranks 1,3 --runs=5 --tools du --per-client 2 --independent"))
            .unwrap()
            .unwrap();
        assert_eq!((o.ranks.as_slice(), o.runs, o.per_client), (&[1, 3][..], 5, 2));
        assert_eq!(o.tools, [Tool::Du]);
        assert!(o.independent);
        assert!(parse_args(&args("--ranks 0")).is_err());
        assert!(parse_args(&args("--tools ls")).is_err());
        assert!(parse_args(&args("--bogus")).is_err());
        assert!(parse_args(&args("--help")).unwrap().is_none());
    }

    #[test]
    fn shares_split_the_heaviest_directories_and_balance() {
        let scratch = scratch::Scratch::new("scaleout-shares");
        let d = scratch.path();
        for (sub, files) in [("a/x", 6), ("a/y", 2), ("b", 3), ("c", 1)] {
            fs::create_dir_all(d.join(sub)).unwrap();
            for i in 0..files {
                fs::write(d.join(sub).join(format!("f{i}")), "").unwrap();
            }
        }
        fs::write(d.join("top"), "").unwrap();
        // Total weight 18, two shares: nothing may weigh more than 2, so a
        // (11) is split into x and y, then x (7), b (4) and y (3); c (2)
        // stays whole.
        let s = shares(d, 2);
        let mut all: Vec<PathBuf> = s.iter().flatten().cloned().collect();
        all.sort();
        let mut want: Vec<PathBuf> = (0..6).map(|i| d.join(format!("a/x/f{i}"))).collect();
        want.extend((0..2).map(|i| d.join(format!("a/y/f{i}"))));
        want.extend((0..3).map(|i| d.join(format!("b/f{i}"))));
        want.extend([d.join("c"), d.join("top")]);
        want.sort();
        assert_eq!(all, want);
        // 12 units, c weighing 2: 7 + 1 and 6 + 2 (or the same weights).
        let weight = |v: &Vec<PathBuf>| v.len() + usize::from(v.contains(&d.join("c")));
        let w: Vec<usize> = s.iter().map(weight).collect();
        assert_eq!(w.iter().sum::<usize>(), 14, "{s:?}");
        assert!(w.iter().all(|&x| x == 7), "{s:?}");
    }

    #[test]
    fn find_output_compares_as_a_set_and_du_exactly() {
        assert_eq!(
            normalized(Tool::Find, b"b\na\n".to_vec()),
            normalized(Tool::Find, b"a\nb\n".to_vec())
        );
        assert_ne!(
            normalized(Tool::Du, b"b\na\n".to_vec()),
            normalized(Tool::Du, b"a\nb\n".to_vec())
        );
    }
}

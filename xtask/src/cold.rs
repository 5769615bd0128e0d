//! `cargo xtask bench --cold [GROUP…]`: the tools on a cold page cache.
//!
//! Method, per workload of `benches/cold.txt` (the format of
//! workloads.txt, plus `{THREADS}` in `floor` rows): every command runs
//! once warm to check it works; then `runs` rounds run every command once
//! in turn (A B C A B C …). Before every timed run: `sync`, `echo 3 >
//! /proc/sys/vm/drop_caches`, then the command's binary and its shared
//! libraries are read back in (so only the fixtures are cold, not the
//! program) and the machine gets 300 ms to settle. Around each run the
//! counters of the fixtures' block device in `/proc/diskstats` give the
//! read requests, bytes read and the time the device was busy.
//!
//! A `floor` row of the file is run once per thread count (`--threads`,
//! default 2,16,64), and the table shows the best of them: the minimal
//! walker at the depth that works best cold. The `device` row is what the
//! device alone would need for the floor's requests and bytes, from an
//! O_DIRECT probe of its IOPS at depth 32 and its sequential bandwidth
//! (device.rs); the `binds` column says, per row, whether the CPUs or the
//! device were saturated, or neither (the tool waited on too few requests).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::{self, median, ms, Row, Selection, Stdout, Workload};
use crate::device::{self, Device, DiskStats, Limits};
use crate::fixtures::{self, Set};
use crate::machine::{ForeignLoad, BUSY_CORES};
use crate::peers::{sizes_section, with_version, Infos};

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";
/// The cold groups.
const GROUPS: [&str; 4] = ["du", "find", "ls", "cat"];

struct Options {
    sel: Selection,
    threads: Vec<usize>,
    probe: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options { sel: Selection::new(3), threads: vec![2, 16, 64], probe: true };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if o.sel.take(a, &GROUPS, || it.next().cloned().ok_or(format!("{a} needs a value")))? {
            continue;
        }
        match a.as_str() {
            "--cold" => {}
            "--runs" => o.sel.runs = crate::parse_runs(it.next())?,
            "--no-probe" => o.probe = false,
            "--threads" => {
                let v = it.next().ok_or("--threads needs a list, e.g. 2,16,64")?;
                o.threads = v
                    .split(',')
                    .map(|t| t.trim().parse().ok().filter(|&n: &usize| n > 0))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("--threads: bad list {v:?}"))?;
            }
            other => {
                return Err(format!(
                    "bench --cold: unknown argument '{other}' (groups: {GROUPS:?})"
                ))
            }
        }
    }
    crate::settle_groups(&mut o.sel.groups, &GROUPS);
    Ok(o)
}

/// Replaces each `floor` line of `w` by one line per thread count, with
/// `{THREADS}` filled in and the count in the label (`floor 16`).
fn expand_floors(w: &Workload, threads: &[usize]) -> Workload {
    let mut cmds = Vec::new();
    for (label, cmd) in &w.cmds {
        if bench::is_floor(label) && cmd.contains("{THREADS}") {
            for t in threads {
                cmds.push((format!("{label} {t}"), cmd.replace("{THREADS}", &t.to_string())));
            }
        } else {
            cmds.push((label.clone(), cmd.clone()));
        }
    }
    Workload {
        group: w.group.clone(),
        title: w.title.clone(),
        stdout: w.stdout,
        locale: w.locale.clone(),
        cmds,
        notes: w.notes.clone(),
    }
}

/// The absolute paths in `ldd`'s output (the libraries a program maps).
fn ldd_paths(text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter_map(|l| {
            let l = l.split_once("=>").map_or(l, |(_, r)| r);
            l.split_whitespace().next().filter(|w| w.starts_with('/')).map(PathBuf::from)
        })
        .collect()
}

/// The files to read back after dropping the caches: the program and its libraries.
fn program_files(prog: &Path) -> Vec<PathBuf> {
    let mut v = vec![prog.to_path_buf()];
    if let Ok(o) = Command::new("ldd").arg(prog).stderr(Stdio::null()).output() {
        v.extend(ldd_paths(&String::from_utf8_lossy(&o.stdout)));
    }
    v
}

/// `sync; echo 3 > drop_caches`, then the program's files read back, then a pause.
fn go_cold(files: &[PathBuf]) -> Result<(), String> {
    let _ = Command::new("sync").status();
    fs::write(DROP_CACHES, "3\n").map_err(|e| format!("{DROP_CACHES}: {e}"))?;
    for f in files {
        let _ = fs::read(f);
    }
    std::thread::sleep(Duration::from_millis(300));
    Ok(())
}

struct Run {
    wall: Duration,
    cpu: Duration,
    disk: Option<DiskStats>,
    /// CPUs other processes kept busy during the run, on average.
    foreign: f64,
}

struct Measured {
    row: Row,
    failed: Option<String>,
    runs: Vec<Run>,
}

impl Measured {
    fn median_wall(&self) -> Option<Duration> {
        (self.failed.is_none() && !self.runs.is_empty())
            .then(|| median(&self.runs.iter().map(|r| r.wall).collect::<Vec<_>>()))
    }
    fn median_cpu(&self) -> Duration {
        median(&self.runs.iter().map(|r| r.cpu).collect::<Vec<_>>())
    }
    fn median_foreign(&self) -> f64 {
        let mut v: Vec<f64> = self.runs.iter().map(|r| r.foreign).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    }
    /// Medians of each disk counter over the runs.
    fn median_disk(&self) -> Option<DiskStats> {
        let d: Vec<DiskStats> = self.runs.iter().filter_map(|r| r.disk).collect();
        (!d.is_empty()).then(|| DiskStats {
            reads: median_u64(d.iter().map(|x| x.reads).collect()),
            sectors: median_u64(d.iter().map(|x| x.sectors).collect()),
            busy_ms: median_u64(d.iter().map(|x| x.busy_ms).collect()),
        })
    }
}

fn median_u64(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    match v.len() {
        0 => 0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

/// What a run was limited by: the device (busy nearly all the time), the
/// CPUs (nearly all of them busy: `CPU` when the command used them,
/// `CPU (shared)` when other processes' `foreign` cores made up the rest),
/// or neither (it waited with too little in flight: latency-bound).
fn binds(
    wall: Duration,
    cpu: Duration,
    foreign: f64,
    busy: Option<Duration>,
    cpus: usize,
) -> &'static str {
    let w = wall.as_secs_f64().max(1e-9);
    let dev = busy.map_or(0.0, |b| b.as_secs_f64() / w);
    let own = cpu.as_secs_f64() / (w * cpus.max(1) as f64);
    let all = own + foreign / cpus.max(1) as f64;
    if dev >= 0.85 && dev >= all {
        "device"
    } else if own >= 0.85 {
        "CPU"
    } else if all >= 0.85 {
        "CPU (shared)"
    } else {
        "latency"
    }
}

/// Whether a row is one thread count of the `floor` row (`floor 16`, as
/// [`expand_floors`] labels them), rather than a reference of another kind
/// (`floor: complete ls -alR`: the syscalls and the output), which is shown
/// as a row of its own.
fn is_floor_variant(label: &str) -> bool {
    label.strip_prefix("floor ").is_some_and(|n| n.parse::<usize>().is_ok())
}

/// The index of the floor candidate with the least median wall time.
fn best_floor(rows: &[Measured]) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, m)| m.row.reference && is_floor_variant(&m.row.label))
        .filter_map(|(i, m)| Some((i, m.median_wall()?)))
        .min_by_key(|&(_, t)| t)
        .map(|(i, _)| i)
}

fn ratio(a: Duration, b: Option<Duration>) -> String {
    b.filter(|b| !b.is_zero())
        .map_or(String::new(), |b| format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64()))
}

pub fn main(args: &[String]) -> Result<(), String> {
    let o = parse_args(args)?;
    if fs::OpenOptions::new().write(true).open(DROP_CACHES).is_err() {
        return Err(format!(
            "bench --cold needs root: it drops the page cache before every run \
             (sync; echo 3 > {DROP_CACHES}), and this process cannot write it"
        ));
    }
    let started = Instant::now();
    let workloads = o.sel.load("cold.txt")?;
    let sets: BTreeSet<Set> = workloads
        .iter()
        .flat_map(|w| w.cmds.iter().flat_map(|(_, c)| bench::sets_needed(c)))
        .collect();
    for s in &sets {
        fixtures::ensure(&o.sel.dir, *s)?;
    }
    if o.probe {
        // The device probe's fallback target (see device::probe).
        fixtures::ensure(&o.sel.dir, Set::Big)?;
    }
    crate::cargo(&["build", "--release", "--bins"])?;
    crate::cargo(&["build", "--release", "-p", "xtask"])?;
    let ours_dir = crate::target_dir().join("release");
    let dev = match device::of_path(&o.sel.dir) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("bench --cold: no device counters: {e}");
            None
        }
    };
    let probed = match (&dev, o.probe) {
        (Some(d), true) => {
            eprintln!("bench --cold: probing {} (O_DIRECT reads, ~4 s)", d.name);
            match device::probe(d, &o.sel.dir.join(Set::Big.name())) {
                Ok(l) => Some(l),
                Err(e) => {
                    eprintln!("bench --cold: device probe failed: {e}");
                    None
                }
            }
        }
        _ => None,
    };
    let limits = probed.as_ref().map(|(l, _)| *l);
    let probed_path = probed.map(|(_, p)| p);
    let header = crate::machine::header(&o.sel.dir);
    let mut cache = HashMap::new();
    let mut files: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    let mut results = Vec::new();
    for w in &workloads {
        let w = expand_floors(w, &o.threads);
        // Our default backend and the ring: the forced threads/sync rows
        // would double the (slow) cold runs for little.
        let rows: Vec<Row> = bench::resolve(&w, &ours_dir, &mut cache)?
            .into_iter()
            .filter(|r| matches!(r.backend, None | Some("uring")))
            .collect();
        eprintln!("bench --cold: {} ({} commands × {} cold runs)", w.title, rows.len(), o.sel.runs);
        let load = ForeignLoad::start();
        let res = measure(rows, &o.sel.dir, w.stdout, o.sel.runs, dev.as_ref(), &mut files)?;
        results.push((w, res, load.cores()));
    }
    let report = render(
        &header,
        &o,
        dev.as_ref(),
        limits.as_ref().zip(probed_path.as_deref()),
        &results,
        started.elapsed(),
    );
    print!("{report}");
    let out_dir = crate::target_dir().join("bench");
    fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let path = out_dir.join("cold.md");
    fs::write(&path, &report).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("bench --cold: wrote {} ({:.0} s)", path.display(), started.elapsed().as_secs_f64());
    Ok(())
}

fn measure(
    rows: Vec<Row>,
    cwd: &Path,
    mode: Stdout,
    runs: usize,
    dev: Option<&Device>,
    files: &mut HashMap<PathBuf, Vec<PathBuf>>,
) -> Result<Vec<Measured>, String> {
    let mut res: Vec<Measured> =
        rows.into_iter().map(|row| Measured { row, failed: None, runs: Vec::new() }).collect();
    for m in &mut res {
        match bench::run_once(&m.row, cwd, Stdout::DevNull, Stdio::null(), false) {
            Ok(s) if s.code == 0 => {}
            Ok(s) => m.failed = Some(format!("exit {}", s.code)),
            Err(e) => m.failed = Some(e),
        }
        if let Some(f) = &m.failed {
            eprintln!("bench --cold:   {} failed: {f}", m.row.label);
        }
        let prog = PathBuf::from(&m.row.argv[0]);
        files.entry(prog.clone()).or_insert_with(|| program_files(&prog));
    }
    for round in 0..runs {
        for m in res.iter_mut().filter(|m| m.failed.is_none()) {
            go_cold(&files[&PathBuf::from(&m.row.argv[0])])?;
            let before = dev.and_then(device::read_stats);
            let load = ForeignLoad::start();
            let s = bench::run_once(&m.row, cwd, mode, Stdio::null(), false);
            let foreign = load.cores();
            let after = dev.and_then(device::read_stats);
            match s {
                Ok(s) if s.code == 0 => {
                    let disk = before.zip(after).map(|(b, a)| a.since(&b));
                    m.runs.push(Run { wall: s.wall, cpu: s.cpu, disk, foreign });
                }
                Ok(s) => m.failed = Some(format!("exit {} (flaky)", s.code)),
                Err(e) => m.failed = Some(e),
            }
        }
        eprintln!("bench --cold:   round {}/{runs} done", round + 1);
    }
    Ok(res)
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

fn device_lines(dev: Option<&Device>, limits: Option<(&Limits, &Path)>) -> String {
    let Some(d) = dev else {
        return "- device: not found (no disk counters)\n".into();
    };
    let q = |f: &str| {
        fs::read_to_string(format!("/sys/block/{}/queue/{f}", d.disk))
            .map_or_else(|_| "?".into(), |s| s.trim().to_string())
    };
    let mut s = format!(
        "- device: /dev/{} (disk {}{}), scheduler `{}`, rotational {}, nr_requests {}\n",
        d.name,
        d.disk,
        if d.slaves.is_empty() { String::new() } else { format!(", on {}", d.slaves.join(" ")) },
        q("scheduler"),
        q("rotational"),
        q("nr_requests"),
    );
    if let Some((l, path)) = limits {
        let _ = writeln!(
            s,
            "- device probe (O_DIRECT reads spread over `{}`): 4 KiB random reads \
             {:.1}k IOPS at depth 1, {:.1}k at depth 32; sequential 1 MiB reads at depth 4 {:.0} MB/s",
            path.display(),
            l.iops_1 / 1e3,
            l.iops_32 / 1e3,
            l.seq_bw / 1e6
        );
    }
    s
}

type Results = [(Workload, Vec<Measured>, f64)];

fn render(
    header: &str,
    o: &Options,
    dev: Option<&Device>,
    probe: Option<(&Limits, &Path)>,
    results: &Results,
    took: Duration,
) -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut s = String::new();
    let _ = writeln!(s, "# `cargo xtask bench --cold`\n");
    s.push_str(header);
    s.push_str(&device_lines(dev, probe));
    let limits = probe.map(|(l, _)| l);
    s.push_str(&method(o, cpus, took));
    let _ = writeln!(
        s,
        "| workload | tool | median ms | min | max | cpu ms | reads | MB | busy ms | device ms | binds | ×GNU | ×floor | ×best peer |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|");
    let mut details = String::new();
    let mut infos = Infos::default();
    for (w, rows, load) in results {
        workload_rows(&mut s, w, rows, *load, limits, cpus, &mut infos);
        run_details(&mut details, w, rows);
    }
    let _ = writeln!(s, "\nPer run:\n{details}");
    let _ = writeln!(s, "- load average at end: {}", crate::machine::loadavg());
    let ran =
        crate::bench::binaries_run(results.iter().flat_map(|(_, rows, _)| rows).map(|m| &m.row));
    s.push_str(&sizes_section(&ran, &mut infos));
    s
}

/// The method paragraph: how every number of the table was measured.
fn method(o: &Options, cpus: usize, took: Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "- method: per workload, 1 warm check run, then {} rounds running every command once in turn, \
         each run after `sync; echo 3 > {DROP_CACHES}`, the program and its libraries read back in, \
         and 300 ms; wall = spawn + wait with `Instant`; cpu = user + sys of the child (`wait4`); \
         reads / MB / busy = deltas of the device's `/proc/diskstats` read requests, sectors × 512 \
         and io_ticks over the run (medians over the runs; other processes' I/O on the device counts too)\n\
         - `floor` = the minimal walker (xtask du-floor / ls-floor) at the thread count with the best \
         median among {:?}; `device` = the time the floor's reads and bytes need at the probed \
         depth-32 IOPS or sequential bandwidth, whichever binds\n\
         - binds: `device` when the device was busy ≥ 85% of the run, `CPU` when the command used \
         ≥ 85% of the {cpus} CPUs, `CPU (shared)` when it and other processes together did (median \
         over the runs of the other processes' CPU, from /proc/stat), else `latency` (too little in \
         flight to saturate either)\n\
         - took {:.0} s in all\n",
        o.sel.runs,
        o.threads,
        took.as_secs_f64()
    );
    s
}

/// One workload's rows of the table: every command, then the floor and
/// the time the device needs for the floor's reads.
fn workload_rows(
    s: &mut String,
    w: &Workload,
    rows: &[Measured],
    load: f64,
    limits: Option<&Limits>,
    cpus: usize,
    infos: &mut Infos,
) {
    let gnu = rows.iter().find(|m| m.row.gnu).and_then(Measured::median_wall);
    let best = rows
        .iter()
        .filter(|m| !m.row.ours && !m.row.reference)
        .filter_map(Measured::median_wall)
        .min();
    let floor_i = best_floor(rows);
    let floor = floor_i.and_then(|i| rows[i].median_wall());
    let busy = if load >= BUSY_CORES {
        format!(" ⚠ other processes used {load:.1} cores")
    } else {
        String::new()
    };
    let mut first = true;
    let mut title = || {
        let t =
            if first { format!("{}{busy}", w.title.replace('|', "\\|")) } else { String::new() };
        first = false;
        t
    };
    let mut cells = |label: String, m: &Measured| -> String {
        let Some(med) = m.median_wall() else {
            let why = m.failed.clone().unwrap_or_else(|| "no samples".into());
            return format!("| {} | {label} | {why} | | | | | | | | | | | |\n", title());
        };
        let walls: Vec<Duration> = m.runs.iter().map(|r| r.wall).collect();
        let disk = m.median_disk();
        let busy = disk.map(|d| Duration::from_millis(d.busy_ms));
        let dev_t = disk.zip(limits).map(|(d, l)| ms(l.time_for(d.reads, d.bytes())));
        format!(
            "| {} | {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            title(),
            ms(med),
            ms(*walls.iter().min().unwrap()),
            ms(*walls.iter().max().unwrap()),
            ms(m.median_cpu()),
            disk.map_or("–".into(), |d| d.reads.to_string()),
            disk.map_or("–".into(), |d| mb(d.bytes())),
            disk.map_or("–".into(), |d| d.busy_ms.to_string()),
            dev_t.unwrap_or_else(|| "–".into()),
            binds(med, m.median_cpu(), m.median_foreign(), busy, cpus),
            ratio(med, gnu),
            ratio(med, floor),
            if m.row.ours || m.row.reference { ratio(med, best) } else { String::new() },
        )
    };
    for m in rows.iter().filter(|m| !m.row.reference) {
        let label = match (m.row.ours, m.row.backend) {
            (true, None) => format!("**{}**", m.row.label),
            (true, Some(_)) => m.row.label.clone(),
            (false, _) => with_version(&m.row.label, infos.get(&m.row.prog).number()),
        };
        s.push_str(&cells(label, m));
    }
    if let Some(i) = floor_i {
        let others: Vec<String> = rows
            .iter()
            .filter(|m| m.row.reference && is_floor_variant(&m.row.label))
            .map(|m| {
                let t = m.row.label.rsplit(' ').next().unwrap_or("?");
                format!("{t}: {}", m.median_wall().map_or("failed".into(), ms))
            })
            .collect();
        let f = &rows[i];
        let label = format!(
            "floor ({} threads; {})",
            f.row.label.rsplit(' ').next().unwrap_or("?"),
            others.join(", ")
        );
        s.push_str(&cells(label, f));
        if let (Some(l), Some(d)) = (limits, f.median_disk()) {
            let t = l.time_for(d.reads, d.bytes());
            let _ = writeln!(
                s,
                "| | device (the floor's reads and bytes) | {} | | | | {} | {} | | | | {} | {} | {} |",
                ms(t),
                d.reads,
                mb(d.bytes()),
                ratio(t, gnu),
                ratio(t, floor),
                ratio(t, best),
            );
        }
    }
    for m in rows.iter().filter(|m| m.row.reference && !is_floor_variant(&m.row.label)) {
        s.push_str(&cells(m.row.label.clone(), m));
    }
}

/// Every run of a workload's commands, for the list after the table.
fn run_details(details: &mut String, w: &Workload, rows: &[Measured]) {
    let _ = writeln!(details, "\n`{}`:\n", w.title);
    for m in rows.iter().filter(|m| m.failed.is_none()) {
        let runs: Vec<String> = m
            .runs
            .iter()
            .map(|r| match r.disk {
                Some(d) => format!(
                    "{} ms ({} reads, {} MB, busy {} ms, others {:.1} CPUs)",
                    ms(r.wall),
                    d.reads,
                    mb(d.bytes()),
                    d.busy_ms,
                    r.foreign
                ),
                None => format!("{} ms (others {:.1} CPUs)", ms(r.wall), r.foreign),
            })
            .collect();
        let _ = writeln!(details, "- {}: `{}`: {}", m.row.label, m.row.shown, runs.join("; "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_workloads_parse_and_expand() {
        let ws = bench::read("cold.txt").unwrap();
        assert_eq!(ws.len(), 7);
        for w in &ws {
            assert!(GROUPS.contains(&w.group.as_str()), "{}", w.title);
            assert!(w.cmds.iter().any(|(l, _)| l.starts_with("GNU")), "{}: no GNU row", w.title);
            let e = expand_floors(w, &[2, 16]);
            let floors: Vec<&str> =
                e.cmds.iter().filter(|(l, _)| is_floor_variant(l)).map(|(l, _)| &l[..]).collect();
            // cat's has none (see cold.txt).
            let want: &[&str] = if w.group == "cat" { &[] } else { &["floor 2", "floor 16"] };
            assert_eq!(floors, want, "{}", w.title);
            for (_, c) in &e.cmds {
                assert!(!c.contains("{THREADS}"));
                bench::expand(c, Path::new("/x"), bench::needs_shell(c)).unwrap();
            }
        }
    }

    #[test]
    fn ldd_output_gives_library_paths() {
        let text = "\tlinux-vdso.so.1 (0x00007ffc)\n\
                    \tlibselinux.so.1 => /lib/x86_64-linux-gnu/libselinux.so.1 (0x00007f)\n\
                    \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n\
                    \t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n\
                    \tlibgone.so => not found\n";
        assert_eq!(
            ldd_paths(text),
            [
                "/lib/x86_64-linux-gnu/libselinux.so.1",
                "/lib/x86_64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median_u64(vec![5, 1, 3]), 3);
        assert_eq!(median_u64(vec![4, 1, 3, 10]), 3);
        assert_eq!(median_u64(vec![]), 0);
        let s = Duration::from_secs;
        assert_eq!(ratio(s(3), Some(s(2))), "1.50×");
        assert_eq!(ratio(s(3), None), "");
        assert_eq!(ratio(s(3), Some(Duration::ZERO)), "");
    }

    #[test]
    fn what_binds() {
        let ms = Duration::from_millis;
        // 1.6 s of CPU in 0.85 s on 2 CPUs: 94%.
        assert_eq!(binds(ms(850), ms(1600), 0.0, Some(ms(480)), 2), "CPU");
        // The device busy 91% of the run.
        assert_eq!(binds(ms(265), ms(360), 0.1, Some(ms(241)), 2), "device");
        // Neither: one thread waiting on one read at a time.
        assert_eq!(binds(ms(1400), ms(1500), 0.2, Some(ms(700)), 2), "latency");
        assert_eq!(binds(ms(1400), ms(1500), 0.0, None, 2), "latency");
        // 54% ours + 1.4 of 2 cores used by others.
        assert_eq!(binds(ms(1400), ms(1500), 1.4, Some(ms(700)), 2), "CPU (shared)");
    }

    fn measured(label: &str, reference: bool, walls: &[u64]) -> Measured {
        Measured {
            row: Row {
                label: label.into(),
                shown: String::new(),
                argv: vec!["x".into()],
                prog: "x".into(),
                backend: None,
                locale: "C".into(),
                ours: false,
                gnu: false,
                reference,
            },
            failed: None,
            runs: walls
                .iter()
                .map(|&w| Run {
                    wall: Duration::from_millis(w),
                    cpu: Duration::ZERO,
                    disk: None,
                    foreign: 0.0,
                })
                .collect(),
        }
    }

    #[test]
    fn best_floor_is_the_least_median_among_floors() {
        let rows = [
            measured("GNU du", false, &[100, 100, 100]),
            measured("floor 2", true, &[1300, 1400, 1350]),
            measured("floor 16", true, &[900, 700, 2000]),
            measured("floor 64", true, &[800, 850, 820]),
            // Faster, but a reference of another kind: not a candidate.
            measured("floor: names only", true, &[10, 10, 10]),
        ];
        assert_eq!(best_floor(&rows), Some(3));
        assert_eq!(best_floor(&rows[..1]), None);
    }
}

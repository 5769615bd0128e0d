//! `cargo xtask bench --slowfs LATENCY`: our tools against GNU and the peers
//! on a slow file system — the fixtures seen through a `cargo xtask slowfs`
//! mount that delays every metadata request by LATENCY with caching off.
//!
//! Method: the release binaries are built, the fixtures directory is
//! mounted (a foreground `xtask slowfs` child, unmounted at the end), and
//! each workload of `benches/slowfs.txt` runs with the mount as its working
//! directory. Before every run the server's counters are zeroed (SIGUSR2);
//! after it they are read back (SIGUSR1): FUSE requests by type, and the
//! most requests that were waiting at once (the achieved concurrency). Each
//! run is killed at the time cap and reported as "> cap". Rows run `--runs`
//! times in turn (A B C A B C …), except that a row whose first run took
//! longer than [`SLOW_ROW`] runs once: GNU tools take a minute or more here.
//! Our rows are repeated per executor and in-flight depth.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::bench::{self, Selection, Workload};
use crate::fixtures::{self, Set};
use crate::peers::{sizes_section, with_version, Infos, Ran};
use crate::slowfs::child::{self, StatsFile};
use crate::slowfs::sys;

/// The groups `bench --slowfs` has rows for.
const GROUPS: [&str; 3] = ["ls", "find", "du"];
/// A row whose first run took longer than this runs only once.
const SLOW_ROW: Duration = Duration::from_secs(10);
/// Executors our rows are repeated with (the inline one keeps a single
/// request in flight by design, so it would only measure the latency).
const BACKENDS: [&str; 2] = ["threads", "uring"];

struct Options {
    latency: String,
    sel: Selection,
    cap: Duration,
    depths: Vec<usize>,
    /// Only our rows (re-measuring them without waiting minutes for GNU's).
    ours_only: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        latency: String::new(),
        sel: Selection::new(3),
        cap: Duration::from_secs(300),
        depths: vec![16, 256],
        ours_only: false,
    };
    let mut words = crate::Words::new(args);
    while let Some(flag) = words.next_word() {
        let flag = flag.as_str();
        if o.sel.take(flag, &GROUPS, || words.value(flag))? {
            continue;
        }
        let mut value = || words.value(flag);
        match flag {
            "--slowfs" => o.latency = value()?,
            "--runs" => o.sel.runs = crate::parse_runs(Some(&value()?))?,
            "--quick" => o.sel.runs = 1,
            "--cap" => o.cap = crate::parse_cap(&value()?)?,
            "--depths" => {
                let v = value()?;
                o.depths = v
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.trim().parse().ok().filter(|&n: &usize| n > 0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(format!("--depths: bad list '{v}' (e.g. 16,256)"))?;
            }
            "--no-strace" => {}
            "--ours" => o.ours_only = true,
            other => {
                return Err(format!(
                    "bench --slowfs: unknown argument '{other}' (groups: ls, find, du or all)"
                ))
            }
        }
    }
    if o.latency.is_empty() {
        return Err("--slowfs needs a latency, e.g. --slowfs 1ms".into());
    }
    crate::settle_groups(&mut o.sel.groups, &GROUPS);
    Ok(o)
}

/// The slowfs server: a foreground `xtask slowfs` child of this process
/// (also `cargo xtask scaleout`'s, scaleout.rs).
pub(crate) struct Mount {
    child: Child,
    pub(crate) mnt: PathBuf,
    stats: StatsFile,
}

impl Mount {
    /// Mounts `source` on `mnt`; `extra` are more `xtask slowfs` options.
    pub(crate) fn start(
        source: &Path,
        mnt: &Path,
        latency: &str,
        stats: &Path,
        extra: &[String],
    ) -> Result<Mount, String> {
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        fs::create_dir_all(mnt).map_err(|e| format!("{}: {e}", mnt.display()))?;
        let log_path = stats.with_extension("log");
        let log =
            fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
        let _ = fs::remove_file(stats);
        let mut child = Command::new(exe)
            .arg("slowfs")
            .arg(mnt)
            .arg("--source")
            .arg(source)
            .args(["--latency", latency, "--stats"])
            .arg(stats)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start slowfs: {e}"))?;
        // Wait for "ready" (or the child's exit) on its stdout.
        let out = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_default();
        let stats = StatsFile::new(stats.to_path_buf(), child.id());
        let mut m = Mount { child, mnt: mnt.to_path_buf(), stats };
        if line.trim() != "ready" {
            let log = fs::read_to_string(log_path).unwrap_or_default();
            m.stop();
            return Err(format!("slowfs did not come up: {}", log.trim()));
        }
        Ok(m)
    }

    /// Zeroes the server's counters and waits until it has.
    pub(crate) fn reset(&mut self) -> Result<(), String> {
        if self.stats.reset(Duration::from_secs(5)) {
            Ok(())
        } else {
            Err("slowfs did not acknowledge a counter reset".into())
        }
    }

    /// The counters now.
    fn snapshot(&self) -> Result<Counters, String> {
        self.snapshot_map().map(|m| Counters::from_map(&m))
    }

    /// The stats file's `key value` lines now.
    pub(crate) fn snapshot_map(&self) -> Result<HashMap<String, String>, String> {
        let lines = self.stats.fresh(Duration::from_secs(5));
        lines.map(|l| l.into_iter().collect()).ok_or("slowfs did not write its counters".into())
    }

    /// CPU time the server has used (user + system).
    pub(crate) fn cpu(&self) -> Duration {
        let stat =
            fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the parenthesised command name; utime and stime are 14 and 15.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<u64> = rest.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        let hz = sys::clock_ticks() as f64;
        let ticks = f.get(10).copied().unwrap_or(0) + f.get(11).copied().unwrap_or(0);
        Duration::from_secs_f64(ticks as f64 / hz)
    }

    /// Unmounts (SIGTERM makes the server unmount and exit) and reaps it.
    pub(crate) fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        let _ = sys::kill(self.child.id() as i32, libc::SIGTERM);
        child::reap_within(&mut self.child, Duration::from_secs(10));
        let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What the server counted during one run.
#[derive(Clone, Debug, Default)]
struct Counters {
    requests: u64,
    max_in_flight: u64,
    /// (request type, count), busiest first.
    by_type: Vec<(String, u64)>,
}

const NOT_OPCODES: [&str; 12] = [
    "latency_ns",
    "jitter_ns",
    "read_latency_ns",
    "cache_ns",
    "elapsed_s",
    "resets",
    "requests",
    "max_in_flight",
    "in_flight",
    "interrupted",
    "mean_late_us",
    "final",
];

impl Counters {
    fn from_map(m: &HashMap<String, String>) -> Counters {
        let num = |k: &str| m.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
        let mut by_type: Vec<(String, u64)> = m
            .iter()
            .filter(|(k, _)| !NOT_OPCODES.contains(&k.as_str()))
            .filter_map(|(k, v)| Some((k.clone(), v.parse().ok()?)))
            .collect();
        by_type.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Counters { requests: num("requests"), max_in_flight: num("max_in_flight"), by_type }
    }

    fn by_type_text(&self) -> String {
        self.by_type.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
    }
}

/// One row: a command and the environment it runs with.
struct Row {
    label: String,
    shown: String,
    argv: Vec<OsString>,
    env: Vec<(&'static str, String)>,
    ours: bool,
    gnu: bool,
    /// A reference walker (`floor…`): what the others' ×floor is against.
    floor: bool,
}

fn resolve(w: &Workload, ours_dir: &Path, depths: &[usize]) -> Result<Vec<Row>, String> {
    let mut rows: Vec<Row> = Vec::new();
    for (label, template) in &w.cmds {
        if rows.iter().any(|r| &r.label == label) {
            continue;
        }
        let ours = template.contains("{OURS:");
        let mut found = true;
        for stage in template.split('|') {
            let Some(prog) = bench::words(stage).into_iter().next() else { continue };
            found &= bench::which_peer(&bench::expand(&prog, ours_dir, false)?).is_some();
        }
        if !found {
            continue;
        }
        let argv: Vec<OsString> = if bench::needs_shell(template) {
            vec!["sh".into(), "-c".into(), bench::expand(template, ours_dir, true)?.into()]
        } else {
            let mut v = Vec::new();
            for (i, word) in bench::words(template).iter().enumerate() {
                let e = bench::expand(word, ours_dir, false)?;
                v.push(if i == 0 {
                    bench::which_peer(&e).map(PathBuf::into_os_string).unwrap_or(e.into())
                } else {
                    e.into()
                });
            }
            v
        };
        let shown = bench::words(template)
            .iter()
            .map(|w| {
                let w = w.replace("{OURS:", "{");
                let mut s = w.clone();
                for set in Set::all() {
                    s = s.replace(&format!("{{{}}}", set.placeholder()), &set.name());
                }
                s.replace(['{', '}'], "")
            })
            .collect::<Vec<_>>()
            .join(" ");
        let gnu = label.starts_with("GNU");
        let floor = bench::is_floor(label);
        let mk = |label: String, env: Vec<(&'static str, String)>| Row {
            label,
            shown: shown.clone(),
            argv: argv.clone(),
            env,
            ours,
            gnu,
            floor,
        };
        rows.push(mk(label.clone(), Vec::new()));
        if ours {
            for b in BACKENDS {
                rows.push(mk(format!("{label} [{b}]"), vec![("RINGIO_BACKEND", b.into())]));
            }
            for &d in depths {
                for b in BACKENDS {
                    rows.push(mk(
                        format!("{label} [{b}, depth {d}]"),
                        vec![("RINGIO_BACKEND", b.into()), ("RINGIO_DEPTH", d.to_string())],
                    ));
                }
            }
        }
    }
    Ok(rows)
}

struct Sample {
    wall: Duration,
    cpu: Duration,
    server_cpu: Duration,
    /// Exit status; None when the run was killed at the cap.
    code: Option<i32>,
    /// Bytes of stdout and their FNV-1a hash.
    out: (u64, u64),
    counters: Counters,
    stderr: String,
}

/// Kills process group `pgid` unless cancelled before `cap` elapses.
struct Watchdog {
    state: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    fn start(pgid: libc::pid_t, cap: Duration) -> Watchdog {
        let state = Arc::new((Mutex::new(false), Condvar::new()));
        let s = Arc::clone(&state);
        let thread = std::thread::spawn(move || {
            let (lock, cv) = &*s;
            let t = Instant::now();
            let mut done = lock.lock().unwrap();
            while !*done {
                let left = cap.saturating_sub(t.elapsed());
                if left.is_zero() {
                    let _ = sys::kill(-pgid, libc::SIGKILL);
                    return true;
                }
                done = cv.wait_timeout(done, left).unwrap().0;
            }
            false
        });
        Watchdog { state, thread: Some(thread) }
    }

    /// Stops the watchdog; true if it fired.
    fn cancel(mut self) -> bool {
        *self.state.0.lock().unwrap() = true;
        self.state.1.notify_all();
        self.thread.take().is_some_and(|t| t.join().unwrap_or(false))
    }
}

fn run_once(row: &Row, m: &mut Mount, cap: Duration, tmp: &Path) -> Result<Sample, String> {
    m.reset()?;
    let cpu0 = m.cpu();
    let err_file = fs::File::create(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let mut cmd = Command::new(&row.argv[0]);
    cmd.args(&row.argv[1..])
        .current_dir(&m.mnt)
        .env("LC_ALL", "C")
        .env_remove("RINGIO_BACKEND")
        .env_remove("RINGIO_DEPTH")
        .env_remove("RINGIO_THREADS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err_file)
        .process_group(0);
    for (k, v) in &row.env {
        cmd.env(k, v);
    }
    let t = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {:?}: {e}", row.argv[0]))?;
    let pid = child.id() as libc::pid_t;
    let dog = Watchdog::start(pid, cap);
    let mut pipe = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = (0u64, 0xcbf2_9ce4_8422_2325u64);
        let mut buf = vec![0u8; 256 * 1024];
        while let Ok(n @ 1..) = pipe.read(&mut buf) {
            out.0 += n as u64;
            out.1 =
                buf[..n].iter().fold(out.1, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        }
        out
    });
    let (status, cpu) = sys::wait_child(pid).map_err(|e| format!("wait4: {e}"))?;
    let wall = t.elapsed();
    let capped = dog.cancel();
    // Whatever else the command started (a pipeline's other stages) goes too.
    let _ = sys::kill(-pid, libc::SIGKILL);
    let out = reader.join().unwrap_or_default();
    let counters = m.snapshot()?;
    let code = if capped {
        None
    } else if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        Some(128 + libc::WTERMSIG(status))
    };
    let stderr = fs::read_to_string(tmp).unwrap_or_default();
    Ok(Sample { wall, cpu, server_cpu: m.cpu().saturating_sub(cpu0), code, out, counters, stderr })
}

struct Measured {
    row: Row,
    samples: Vec<Sample>,
    failed: Option<String>,
}

impl Measured {
    fn capped(&self) -> bool {
        self.samples.iter().any(|s| s.code.is_none())
    }

    /// The sample with the median wall time (the upper one of two).
    fn median(&self) -> Option<&Sample> {
        let mut v: Vec<&Sample> = self.samples.iter().collect();
        v.sort_by_key(|s| s.wall);
        v.get(v.len() / 2).copied()
    }
}

fn measure(
    rows: Vec<Row>,
    m: &mut Mount,
    o: &Options,
    tmp: &Path,
) -> Result<Vec<Measured>, String> {
    let mut res: Vec<Measured> =
        rows.into_iter().map(|row| Measured { row, samples: Vec::new(), failed: None }).collect();
    for round in 0..o.sel.runs {
        for r in res.iter_mut() {
            if r.failed.is_some() || r.capped() {
                continue;
            }
            if round > 0 && r.samples.first().is_some_and(|s| s.wall > SLOW_ROW) {
                continue;
            }
            let s = run_once(&r.row, m, o.cap, tmp)?;
            let secs = s.wall.as_secs_f64();
            match s.code {
                None => {
                    eprintln!("bench:   {}: > {:.0} s (capped)", r.row.label, o.cap.as_secs_f64())
                }
                Some(0) => eprintln!(
                    "bench:   {}: {secs:.3} s, {} requests, {} in flight",
                    r.row.label, s.counters.requests, s.counters.max_in_flight
                ),
                Some(c) => {
                    let first = s.stderr.lines().next().unwrap_or("").chars().take(100);
                    let first: String = first.collect();
                    eprintln!("bench:   {} failed (exit {c}): {first}", r.row.label);
                    r.failed = Some(format!("exit {c}"));
                    continue;
                }
            }
            r.samples.push(s);
        }
    }
    Ok(res)
}

/// Entries below a fixture set's root (the root itself not counted).
fn count_entries(p: &Path) -> u64 {
    let Ok(rd) = fs::read_dir(p) else { return 0 };
    rd.flatten()
        .map(|e| {
            1 + if e.file_type().is_ok_and(|t| t.is_dir()) { count_entries(&e.path()) } else { 0 }
        })
        .sum()
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.3}")
    } else {
        format!("{s:.1}")
    }
}

pub fn main(args: &[String]) -> Result<(), String> {
    let o = parse_args(args)?;
    let workloads = o.sel.load("slowfs.txt")?;
    let mut sets: Vec<Set> = workloads
        .iter()
        .flat_map(|w| w.cmds.iter().flat_map(|(_, c)| bench::sets_needed(c)))
        .collect();
    sets.sort();
    sets.dedup();
    let mut entries = HashMap::new();
    for s in &sets {
        let p = fixtures::ensure(&o.sel.dir, *s)?;
        entries.insert(s.name(), count_entries(&p));
    }
    let (ours_dir, out_dir) = bench::build_for(&workloads)?;
    let source =
        fs::canonicalize(&o.sel.dir).map_err(|e| format!("{}: {e}", o.sel.dir.display()))?;
    let mnt = out_dir.join("slowfs-mnt");
    let stats = out_dir.join("slowfs-stats");
    let tmp = out_dir.join(format!(".slowfs-stderr-{}", std::process::id()));
    let header = crate::machine::header(&o.sel.dir);
    let mut m = Mount::start(&source, &mnt, &o.latency, &stats, &[])?;
    eprintln!(
        "bench: slowfs mirrors {} on {} ({} per request)",
        source.display(),
        mnt.display(),
        o.latency
    );
    let mut results = Vec::new();
    for w in &workloads {
        let mut rows = resolve(w, &ours_dir, &o.depths)?;
        if o.ours_only {
            rows.retain(|r| r.ours || r.floor);
        }
        eprintln!(
            "bench: {}: {} ({} commands, up to {} runs)",
            w.group,
            w.title,
            rows.len(),
            o.sel.runs
        );
        let load = crate::machine::ForeignLoad::start();
        let server0 = m.cpu();
        let res = measure(rows, &mut m, &o, &tmp)?;
        // The server is our unreaped child: its CPU shows up as foreign.
        let secs = load_secs(&load);
        let foreign = (load.cores() - (m.cpu() - server0).as_secs_f64() / secs).max(0.0);
        let n = bench::sets_needed(&w.cmds.iter().map(|(_, c)| c.as_str()).collect::<String>())
            .first()
            .and_then(|s| entries.get(&s.name()).copied())
            .unwrap_or(0);
        results.push((w, res, n, foreign));
    }
    m.stop();
    let _ = fs::remove_file(&tmp);
    let report = render(&header, &o, &results);
    print!("{report}");
    let path = out_dir.join("slowfs.md");
    fs::write(&path, &report).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("bench: wrote {}", path.display());
    Ok(())
}

fn load_secs(l: &crate::machine::ForeignLoad) -> f64 {
    l.elapsed().as_secs_f64().max(1e-3)
}

fn render(header: &str, o: &Options, results: &[(&Workload, Vec<Measured>, u64, f64)]) -> String {
    let mut s = String::new();
    let mut infos = Infos::default();
    let _ = writeln!(s, "# `cargo xtask bench --slowfs {}`\n", o.latency);
    s.push_str(header);
    let _ = writeln!(s, "- peers: {}", peer_versions(results));
    s.push_str(&method(o));
    let _ = writeln!(
        s,
        "| workload | tool | wall s | runs | cpu s | server cpu s | ×GNU | ×floor | requests | per entry | in flight | requests by type | stdout |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    for (w, rows, entries, foreign) in results {
        let gnu = rows.iter().find(|r| r.row.gnu && r.failed.is_none());
        let gnu_wall = gnu.and_then(Measured::median).map(|m| m.wall);
        let gnu_capped = gnu.is_some_and(Measured::capped);
        let floor_wall = rows
            .iter()
            .find(|r| r.row.floor && r.failed.is_none() && !r.capped())
            .and_then(Measured::median)
            .map(|m| m.wall);
        let busy = if *foreign >= crate::machine::BUSY_CORES {
            format!(" ⚠ other processes used {foreign:.1} cores")
        } else {
            String::new()
        };
        for (i, r) in rows.iter().enumerate() {
            let wl = if i == 0 {
                format!("{} ({} entries){busy}", w.title.replace('|', "\\|"), entries)
            } else {
                String::new()
            };
            let label = match prog(&r.row) {
                Some(p) if !r.row.ours => with_version(&r.row.label, infos.get(&p).number()),
                _ => r.row.label.clone(),
            };
            let tool = if r.row.ours && r.row.env.is_empty() {
                format!("**{label}** `{}`", r.row.shown)
            } else if i == 0 || r.row.env.is_empty() {
                format!("{label} `{}`", r.row.shown)
            } else {
                r.row.label.clone()
            };
            let Some(m) = r.median() else {
                let why = r.failed.clone().unwrap_or_else(|| "no samples".into());
                let _ = writeln!(s, "| {wl} | {tool} | {why} | | | | | | | | | | |");
                continue;
            };
            let wall =
                if r.capped() { format!("> {:.0}", o.cap.as_secs_f64()) } else { secs(m.wall) };
            let ratio = match gnu_wall {
                _ if r.row.gnu => String::new(),
                Some(g) if !r.capped() => {
                    let x = g.as_secs_f64() / m.wall.as_secs_f64();
                    format!("{}{x:.1}×", if gnu_capped { "> " } else { "" })
                }
                _ => String::new(),
            };
            let to_floor = match floor_wall {
                Some(f) if !r.row.floor && !r.capped() => {
                    format!("{:.2}×", m.wall.as_secs_f64() / f.as_secs_f64())
                }
                _ => String::new(),
            };
            let gnu_done = gnu.filter(|g| !g.capped()).and_then(Measured::median);
            let out = bench::stdout_cell(m.out, r.row.ours, gnu_done.map(|g| g.out));
            let per = if *entries > 0 {
                format!("{:.2}", m.counters.requests as f64 / *entries as f64)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "| {wl} | {tool} | {wall} | {} | {} | {} | {ratio} | {to_floor} | {} | {per} | {} | {} | {out} |",
                r.samples.len(),
                secs(m.cpu),
                secs(m.server_cpu),
                m.counters.requests,
                m.counters.max_in_flight,
                m.counters.by_type_text(),
            );
        }
    }
    let _ = writeln!(s, "\n- load average at end: {}", crate::machine::loadavg());
    let progs: Vec<(&Row, PathBuf)> = results
        .iter()
        .flat_map(|(_, rows, _, _)| rows)
        // Floor rows run xtask, which is no tool to compare sizes with.
        .filter(|m| m.row.env.is_empty() && !m.row.floor)
        .filter_map(|m| Some((&m.row, prog(&m.row)?)))
        .collect();
    let ran: Vec<Ran> = progs
        .iter()
        .map(|(r, p)| Ran { label: &r.label, prog: p, ours: r.ours, gnu: r.gnu })
        .collect();
    s.push_str(&sizes_section(&ran, &mut infos));
    s
}

/// The program a row runs (None for a `sh -c` pipeline): its version and
/// size are the row's.
fn prog(row: &Row) -> Option<PathBuf> {
    (row.argv[0] != "sh").then(|| PathBuf::from(&row.argv[0]))
}

/// The versions of the other tools measured.
fn peer_versions(results: &[(&Workload, Vec<Measured>, u64, f64)]) -> String {
    let mut progs: Vec<OsString> = Vec::new();
    for (_, rows, _, _) in results {
        for r in rows.iter().filter(|r| !r.row.ours && !r.samples.is_empty()) {
            if r.row.argv[0] != "sh" && !progs.contains(&r.row.argv[0]) {
                progs.push(r.row.argv[0].clone());
            }
        }
    }
    progs.iter().filter_map(bench::version).collect::<Vec<_>>().join("; ")
}

/// The method paragraph: what each column means and how it was measured.
fn method(o: &Options) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "- slow file system: the fixtures through `cargo xtask slowfs` (FUSE, every metadata \
         request delayed {lat}, entry/attribute caching off, like NFS with actimeo=0); commands \
         run with the mount as working directory, so `flat-10000/x` is a two-component path\n\
         - method: rows run in turn, up to {runs} rounds; a row whose first run took over {slow} s \
         runs once; each run is killed at {cap} s (\"> cap\"); wall = spawn to exit with `Instant`, \
         median; cpu = user + sys of the command, server cpu = of the slowfs process, both in the \
         median run; counters zeroed before each run (SIGUSR2) and read after it (SIGUSR1)\n\
         - requests = FUSE requests the server received; per entry = requests / entries below the \
         operand; in flight = the most delayed requests waiting at once (achieved concurrency); \
         ×GNU = GNU's wall / this row's wall; ×floor = this row's wall / the `floor` row's \
         (xtask's reference walkers: only the requests any tool with this output must make, \
         64 threads so 64 in flight, as our default depth)\n\
         - `[threads]` / `[uring]` rows force `RINGIO_BACKEND`, `depth N` sets `RINGIO_DEPTH` \
         (in-flight depth on high-latency file systems, default 64); the unlabelled row is the \
         default choice\n\
         - stdout = bytes printed; on our rows `=` means byte-identical to GNU, `~` same size in \
         another order, `⚠` different\n",
        lat = o.latency,
        runs = o.sel.runs,
        slow = SLOW_ROW.as_secs(),
        cap = o.cap.as_secs_f64(),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_file_parses() {
        let ws = bench::read("slowfs.txt").unwrap();
        for g in ["ls", "find", "du"] {
            assert!(ws.iter().any(|w| w.group == g), "no {g} workload");
        }
        for w in &ws {
            assert_eq!(
                w.stdout,
                bench::Stdout::Pipe,
                "{}: output is compared through a pipe",
                w.title
            );
            assert!(w.cmds.iter().any(|(l, _)| l.starts_with("GNU")), "{}: no GNU row", w.title);
            assert!(w.cmds.iter().any(|(_, c)| c.contains("{OURS:")), "{}", w.title);
            for (_, c) in &w.cmds {
                bench::expand(c, Path::new("/x"), bench::needs_shell(c)).unwrap();
            }
        }
    }

    #[test]
    fn arguments() {
        let a = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let o = parse_args(&a("--slowfs 1ms ls --runs 1 --cap 60 --depths 8,32 --ours")).unwrap();
        assert!(o.ours_only);
        assert_eq!(o.latency, "1ms");
        assert_eq!(o.sel.groups, ["ls"]);
        assert_eq!((o.sel.runs, o.cap, o.depths), (1, Duration::from_secs(60), vec![8, 32]));
        assert!(parse_args(&a("--slowfs")).is_err());
        assert!(parse_args(&a("--slowfs 1ms cat")).is_err());
    }

    #[test]
    fn counters_from_stats_file() {
        let text = "latency_ns 1000000\nrequests 7\nmax_in_flight 3\nresets 2\nlookup 4\ngetxattr 2\nopendir 1\n";
        let map = text.lines().filter_map(|l| l.split_once(' ')).map(|(k, v)| (k.into(), v.into()));
        let c = Counters::from_map(&map.collect());
        assert_eq!((c.requests, c.max_in_flight), (7, 3));
        assert_eq!(c.by_type_text(), "lookup 4, getxattr 2, opendir 1");
    }
}

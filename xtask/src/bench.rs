//! `cargo xtask bench`: our tools side by side with GNU and the peers
//! installed here, on the workloads in `benches/workloads.txt`.
//!
//! Method, per workload: every command runs once to warm up (and to check it
//! works), then `runs` rounds run each command once in turn (A B C A B C …),
//! so slow drifts of the machine hit every command alike. A sample is the
//! wall time of spawn + (draining stdout, in pipe mode) + wait, taken with
//! `Instant`; nothing is subtracted. The CPU column is user + system time of
//! the child tree from `wait4`. Syscalls are counted once per command by a
//! separate `strace -f` run, counted from its whole trace (see strace.rs;
//! io_uring_enter counts as one syscall, whatever it carried).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixtures::{self, Set};
use crate::machine::{ForeignLoad, BUSY_CORES};
use crate::peers::{sizes_section, which, with_version, Infos, Ran, OUR_BINS};
pub(crate) use crate::peers::{version, which_peer};

pub const GROUPS: [&str; 4] = ["ls", "find", "du", "cat"];
/// Rounds per command with `--quick`, which also skips strace and the
/// forced-backend rows (unless `--strace` / `--backends`) and the timed
/// rounds of peers slower than [`QUICK_SLOW_PEER`]: about a minute per
/// group on a 2-core machine, where `ls -alR tree` and the 100k-file
/// listings are most of it.
const QUICK_RUNS: usize = 3;
/// In `--quick`, a peer (not ours, not GNU, not a floor) whose warm-up run
/// took longer than this is not timed: its rounds would dominate the run.
const QUICK_SLOW_PEER: Duration = Duration::from_secs(1);
const BACKENDS: [&str; 3] = ["uring", "threads", "sync"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdout {
    DevNull,
    Pipe,
}

#[derive(Debug)]
pub struct Workload {
    pub group: String,
    pub title: String,
    pub stdout: Stdout,
    /// `LC_ALL` for every command of the workload ("C" unless the header
    /// names another locale).
    pub locale: String,
    /// (label, command template)
    pub cmds: Vec<(String, String)>,
    /// (label, text): the file's `! LABEL | TEXT` notes, printed under a
    /// table that has a row of that label.
    pub notes: Vec<(String, String)>,
}

/// Parses the workload file (format documented at its top).
pub fn parse(text: &str) -> Result<Vec<Workload>, String> {
    let mut out: Vec<Workload> = Vec::new();
    let mut notes = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("benches/workloads.txt:{}: {why}: {raw}", n + 1);
        if let Some(note) = line.strip_prefix('!') {
            let Some((label, text)) = note.split_once('|') else {
                return Err(bad("a note is `! LABEL | TEXT`"));
            };
            notes.push((label.trim().to_string(), text.trim().to_string()));
        } else if let Some(h) = line.strip_prefix('=') {
            // An optional last field sets the locale; the title may itself
            // contain `|`, so fields are taken from both ends.
            let (h, locale) = match h.rsplit_once('|') {
                Some((rest, l)) if l.trim().starts_with("LC_ALL=") => {
                    (rest, l.trim()["LC_ALL=".len()..].to_string())
                }
                _ => (h, "C".to_string()),
            };
            if locale.is_empty() || locale.contains(char::is_whitespace) {
                return Err(bad("the locale field is `LC_ALL=NAME`"));
            }
            let split = h.split_once('|').and_then(|(g, r)| Some((g, r.rsplit_once('|')?)));
            let Some((group, (title, stdout))) = split else {
                return Err(bad("a header is `= GROUP | TITLE | devnull|pipe [| LC_ALL=NAME]`"));
            };
            let (group, title, stdout) = (group.trim(), title.trim(), stdout.trim());
            let stdout = match stdout {
                "devnull" => Stdout::DevNull,
                "pipe" => Stdout::Pipe,
                _ => return Err(bad("stdout mode must be devnull or pipe")),
            };
            if !GROUPS.contains(&group) {
                return Err(bad("unknown group"));
            }
            out.push(Workload {
                group: group.into(),
                title: title.into(),
                stdout,
                locale,
                cmds: Vec::new(),
                notes: Vec::new(),
            });
        } else {
            let Some((label, cmd)) = line.split_once('|') else {
                return Err(bad("a command line is `LABEL | COMMAND`"));
            };
            let w = out.last_mut().ok_or_else(|| bad("command before the first `=` header"))?;
            w.cmds.push((label.trim().into(), cmd.trim().into()));
        }
    }
    for w in &mut out {
        w.notes = notes.clone();
    }
    Ok(out)
}

/// Splits a command on whitespace, honouring single quotes (no escapes).
pub(crate) fn words(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut cur: Option<String> = None;
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                cur.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => v.extend(cur.take()),
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    v.extend(cur);
    v
}

pub(crate) fn needs_shell(cmd: &str) -> bool {
    cmd.contains(['|', '>', '<', ';', '&'])
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+,=:".contains(&b)) {
        s.into()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Every `{NAME}` in `s`.
fn placeholders(s: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        match rest[i..].find('}') {
            Some(j) => {
                v.push(&rest[i + 1..i + j]);
                rest = &rest[i + j + 1..];
            }
            None => break,
        }
    }
    v
}

/// Replaces the placeholders in `s`: fixture sets by their names (commands
/// run in the fixtures directory), `{OURS:bin}` by our release binary.
pub(crate) fn expand(s: &str, ours_dir: &Path, quote: bool) -> Result<String, String> {
    let mut out = s.to_string();
    for p in placeholders(s) {
        let val = if let Some(bin) = p.strip_prefix("OURS:") {
            if !OUR_BINS.contains(&bin) {
                return Err(format!("{{OURS:{bin}}}: not one of our binaries {OUR_BINS:?}"));
            }
            ours_dir.join(bin).display().to_string()
        } else if p == "XTASK" {
            ours_dir.join("xtask").display().to_string()
        } else {
            Set::from_placeholder(p)
                .ok_or_else(|| format!("unknown placeholder {{{p}}} in `{s}`"))?
                .name()
        };
        let val = if quote { shell_quote(&val) } else { val };
        out = out.replace(&format!("{{{p}}}"), &val);
    }
    Ok(out)
}

/// The fixture sets a command template needs.
pub(crate) fn sets_needed(template: &str) -> Vec<Set> {
    placeholders(template).into_iter().filter_map(Set::from_placeholder).collect()
}

/// One row of a workload table: a command resolved on this machine.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) label: String,
    /// The command as shown in the report.
    pub(crate) shown: String,
    pub(crate) argv: Vec<OsString>,
    /// The program of the command's first stage (not `sh`): its version and
    /// size are the row's.
    pub(crate) prog: PathBuf,
    /// `RINGIO_BACKEND` for our rows; None = unset.
    pub(crate) backend: Option<&'static str>,
    /// `LC_ALL` (the workload's locale).
    pub(crate) locale: String,
    pub(crate) ours: bool,
    pub(crate) gnu: bool,
    /// A reference point rather than a peer (`floor …` rows): shown with
    /// its ratios, never the "best peer".
    pub(crate) reference: bool,
}

impl Row {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.argv[0]);
        c.args(&self.argv[1..]);
        c.env("LC_ALL", &self.locale);
        match self.backend {
            Some(b) => c.env("RINGIO_BACKEND", b),
            None => c.env_remove("RINGIO_BACKEND"),
        };
        c
    }
}

/// Resolves a workload's command lines into rows: missing programs are
/// skipped quietly, the first available line of each label wins, and each
/// of our rows is followed by one row per forced backend.
pub(crate) fn resolve(
    w: &Workload,
    ours_dir: &Path,
    cache: &mut HashMap<String, Option<PathBuf>>,
) -> Result<Vec<Row>, String> {
    let mut rows: Vec<Row> = Vec::new();
    for (label, template) in &w.cmds {
        if rows.iter().any(|r| &r.label == label) {
            continue;
        }
        let ours = template.contains("{OURS:");
        let shell = needs_shell(template);
        // Check every pipeline stage's program.
        let Some(progs) = programs(template, ours_dir, cache)? else { continue };
        let argv: Vec<OsString> = if shell {
            vec!["sh".into(), "-c".into(), shell_command(template, ours_dir, cache)?.into()]
        } else {
            let mut v = vec![progs[0].clone().into_os_string()];
            for word in words(template).iter().skip(1) {
                v.push(expand(word, ours_dir, false)?.into());
            }
            v
        };
        // `fd` may be Debian's `fdfind` under another name: one row each.
        let same = |r: &Row| {
            let canon = |p: &Path| fs::canonicalize(p).ok();
            !ours && r.argv[1..] == argv[1..] && canon(&r.prog) == canon(&progs[0])
        };
        if rows.iter().any(same) {
            continue;
        }
        let shown = placeholders(template).iter().fold(template.clone(), |s, p| {
            let val = match p.strip_prefix("OURS:") {
                Some(bin) => bin.to_string(),
                None if *p == "XTASK" => "xtask".to_string(),
                None => Set::from_placeholder(p).map(|s| s.name()).unwrap_or_default(),
            };
            s.replace(&format!("{{{p}}}"), &val)
        });
        let gnu = label.starts_with("GNU");
        let reference = is_floor(label);
        rows.push(Row {
            label: label.clone(),
            shown: shown.clone(),
            argv: argv.clone(),
            prog: progs[0].clone(),
            backend: None,
            locale: w.locale.clone(),
            ours,
            gnu,
            reference,
        });
        if ours {
            for b in BACKENDS {
                rows.push(Row {
                    label: format!("{label} [{b}]"),
                    shown: shown.clone(),
                    argv: argv.clone(),
                    prog: progs[0].clone(),
                    backend: Some(b),
                    locale: w.locale.clone(),
                    ours,
                    gnu,
                    reference,
                });
            }
        }
    }
    Ok(rows)
}

/// The program of each pipeline stage of `template`, found (see
/// [`which_peer`]); None when one is not installed.
fn programs(
    template: &str,
    ours_dir: &Path,
    cache: &mut HashMap<String, Option<PathBuf>>,
) -> Result<Option<Vec<PathBuf>>, String> {
    let mut found = Vec::new();
    for stage in template.split('|') {
        let Some(prog) = words(stage).into_iter().next() else { continue };
        let prog = expand(&prog, ours_dir, false)?;
        match cache.entry(prog.clone()).or_insert_with(|| which_peer(&prog)) {
            Some(p) => found.push(p.clone()),
            None => return Ok(None),
        }
    }
    Ok((!found.is_empty()).then_some(found))
}

/// The `sh -c` text of a pipeline: each stage's program by the path
/// [`which_peer`] found, since the shell would look on PATH only and miss
/// the peers directory's builds.
fn shell_command(
    template: &str,
    ours_dir: &Path,
    cache: &HashMap<String, Option<PathBuf>>,
) -> Result<String, String> {
    let mut stages = Vec::new();
    for stage in template.split('|') {
        let rest = stage.trim_start();
        let lead = &stage[..stage.len() - rest.len()];
        let prog = words(stage).into_iter().next().unwrap_or_default();
        match cache.get(&prog) {
            Some(Some(p)) if !prog.contains('{') && rest.starts_with(&prog) => {
                let path = shell_quote(&p.display().to_string());
                stages.push(format!("{lead}{path}{}", &rest[prog.len()..]));
            }
            _ => stages.push(stage.to_string()),
        }
    }
    expand(&stages.join("|"), ours_dir, true)
}

/// The labels of `w` that have no row here, each with the programs its
/// lines named, e.g. `dust (dust)`: the report lists them.
pub(crate) fn not_installed(
    w: &Workload,
    ours_dir: &Path,
    cache: &mut HashMap<String, Option<PathBuf>>,
) -> Result<Vec<String>, String> {
    let mut labels: Vec<(&str, Vec<String>, bool)> = Vec::new();
    for (label, template) in &w.cmds {
        let ok = programs(template, ours_dir, cache)?.is_some();
        let prog = words(template).into_iter().next().unwrap_or_default();
        match labels.iter_mut().find(|(l, _, _)| l == label) {
            Some((_, progs, found)) => {
                *found |= ok;
                progs.push(prog);
            }
            None => labels.push((label, vec![prog], ok)),
        }
    }
    Ok(labels
        .into_iter()
        .filter(|(_, _, found)| !found)
        .map(|(l, progs, _)| format!("{l} ({})", progs.join(", ")))
        .collect())
}

pub(crate) struct Sample {
    pub(crate) wall: Duration,
    pub(crate) cpu: Duration,
    /// Exit code, or 128 + signal.
    pub(crate) code: i32,
    /// In pipe mode: bytes written to stdout and their FNV-1a hash.
    pub(crate) out: (u64, u64),
}

/// Spawns, drains stdout in pipe mode, and reaps with wait4 (for the CPU
/// time), all inside the timed span.
pub(crate) fn run_once(
    row: &Row,
    cwd: &Path,
    mode: Stdout,
    stderr: Stdio,
    hash: bool,
) -> Result<Sample, String> {
    let mut cmd = row.command();
    cmd.current_dir(cwd).stdin(Stdio::null()).stderr(stderr);
    cmd.stdout(match mode {
        Stdout::DevNull => Stdio::null(),
        Stdout::Pipe => Stdio::piped(),
    });
    let t = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {:?}: {e}", row.argv[0]))?;
    let mut out = (0u64, 0xcbf2_9ce4_8422_2325u64);
    if let Some(mut pipe) = child.stdout.take() {
        let mut buf = vec![0u8; 256 * 1024];
        while let Ok(n @ 1..) = pipe.read(&mut buf) {
            out.0 += n as u64;
            if hash {
                out.1 = buf[..n]
                    .iter()
                    .fold(out.1, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
            }
        }
    }
    let (status, cpu) = crate::slowfs::sys::wait_child(child.id() as libc::pid_t)
        .map_err(|e| format!("wait4: {e}"))?;
    let wall = t.elapsed();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Ok(Sample { wall, cpu, code, out })
}

/// The warm-up run: stdout summed by GNU `cksum` (CRC and length) where it
/// is installed, else hashed here. xtask runs as a debug build, where
/// hashing byte by byte costs ~14 s per GiB: with `cat big.bin` rows that
/// was most of the cat group's time; cksum takes under a second.
fn checked_run(row: &Row, cwd: &Path, stderr: Stdio) -> Result<Sample, String> {
    let Ok(mut sum) = Command::new("cksum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return run_once(row, cwd, Stdout::Pipe, stderr, true);
    };
    let Some(sum_in) = sum.stdin.take() else {
        return Err("cksum: no stdin".into());
    };
    let mut cmd = row.command();
    cmd.current_dir(cwd).stdin(Stdio::null()).stderr(stderr).stdout(Stdio::from(sum_in));
    let t = Instant::now();
    let status = cmd.status().map_err(|e| format!("cannot run {:?}: {e}", row.argv[0]));
    // Dropping `cmd` closed our copy of cksum's stdin: it sees the end now.
    drop(cmd);
    let wall = t.elapsed();
    let out = sum.wait_with_output().map_err(|e| format!("cksum: {e}"))?;
    let status = status?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut f = text.split_whitespace().map(|x| x.parse::<u64>().ok());
    let (Some(Some(crc)), Some(Some(len))) = (f.next(), f.next()) else {
        return Err(format!("cksum printed {text:?}"));
    };
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    Ok(Sample { wall, cpu: Duration::ZERO, code, out: (len, crc) })
}

/// One traced run of the row (see `strace`); None if strace is missing or failed.
fn count_syscalls(row: &Row, cwd: &Path, mode: Stdout, tmp: &Path) -> Option<u64> {
    let mut cmd = Command::new("strace");
    cmd.args(crate::strace::TRACE_ARGS).arg("-o").arg(tmp).arg("--").args(&row.argv);
    cmd.env("LC_ALL", &row.locale);
    match row.backend {
        Some(b) => cmd.env("RINGIO_BACKEND", b),
        None => cmd.env_remove("RINGIO_BACKEND"),
    };
    cmd.current_dir(cwd).stdin(Stdio::null()).stderr(Stdio::null());
    let ok = match mode {
        Stdout::DevNull => cmd.stdout(Stdio::null()).status().is_ok(),
        Stdout::Pipe => cmd.stdout(Stdio::piped()).spawn().is_ok_and(|mut c| {
            let mut sink = std::io::sink();
            let _ = std::io::copy(c.stdout.as_mut().unwrap(), &mut sink);
            c.wait().is_ok()
        }),
    };
    let text = fs::read_to_string(tmp).ok().filter(|_| ok)?;
    let _ = fs::remove_file(tmp);
    crate::strace::count_trace(&text).map(|(total, _)| total)
}

struct Result_ {
    row: Row,
    /// Error text when the warm-up run failed; then there are no samples.
    failed: Option<String>,
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    syscalls: Option<u64>,
    /// Stdout of the warm-up run: bytes and hash.
    out: (u64, u64),
}

pub(crate) fn median(v: &[Duration]) -> Duration {
    let mut s = v.to_vec();
    s.sort();
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2
    }
}

pub(crate) fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1.0 {
        format!("{ms:.3}")
    } else if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 100.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// What every bench mode (warm, cold, slowfs) is asked to measure: the
/// groups of workloads, how many runs, where the fixtures are, and a
/// filter on the workloads' titles.
pub struct Selection {
    pub groups: Vec<String>,
    pub runs: usize,
    pub dir: PathBuf,
    pub only: Option<String>,
}

impl Selection {
    pub fn new(runs: usize) -> Selection {
        Selection { groups: Vec::new(), runs, dir: fixtures::default_dir(), only: None }
    }

    /// Takes `flag` if it is one the modes share (`--dir D`, `--only S`, a
    /// group of `known` or `all`), reading its value through `value`;
    /// false for any other word.
    pub fn take(
        &mut self,
        flag: &str,
        known: &[&str],
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        match flag {
            "--dir" => self.dir = PathBuf::from(value()?),
            "--only" => self.only = Some(value()?),
            g => return Ok(crate::take_group(&mut self.groups, known, g)),
        }
        Ok(true)
    }

    /// The workloads of `benches/FILE` selected (see [`load`]).
    pub fn load(&self, file: &str) -> Result<Vec<Workload>, String> {
        load(file, &self.groups, self.only.as_deref())
    }
}

pub struct Options {
    pub sel: Selection,
    pub strace: bool,
    pub quick: bool,
    /// Also run our rows once per forced `RINGIO_BACKEND`.
    pub backends: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options { sel: Selection::new(10), strace: true, quick: false, backends: true };
    let mut backends = None;
    let mut runs = None;
    let mut quick = false;
    // Tracing every command is most of a full run's time: on by default in
    // the full mode only.
    let mut strace = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if o.sel.take(a, &GROUPS, || it.next().cloned().ok_or(format!("{a} needs a value")))? {
            continue;
        }
        match a.as_str() {
            "--quick" => quick = true,
            "--runs" => runs = Some(crate::parse_runs(it.next())?),
            "--no-strace" => strace = Some(false),
            "--strace" => strace = Some(true),
            "--backends" => backends = Some(true),
            other => {
                return Err(format!(
                    "bench: unknown argument '{other}' (groups: {GROUPS:?} or all)"
                ))
            }
        }
    }
    crate::settle_groups(&mut o.sel.groups, &GROUPS);
    o.sel.runs = runs.unwrap_or(if quick { QUICK_RUNS } else { 10 });
    o.strace = strace.unwrap_or(!quick);
    o.quick = quick;
    o.backends = backends.unwrap_or(!quick);
    Ok(o)
}

/// Every workload of `benches/FILE`.
pub fn read(file: &str) -> Result<Vec<Workload>, String> {
    let file = crate::workspace_root().join("benches").join(file);
    let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    parse(&text)
}

/// The workloads of `benches/FILE` in `groups` whose title contains
/// `only`; an error if none is left.
pub fn load(file: &str, groups: &[String], only: Option<&str>) -> Result<Vec<Workload>, String> {
    let workloads: Vec<Workload> = read(file)?
        .into_iter()
        .filter(|w| groups.contains(&w.group))
        .filter(|w| only.is_none_or(|s| w.title.contains(s)))
        .collect();
    if workloads.is_empty() {
        return Err("no workload selected".into());
    }
    Ok(workloads)
}

pub fn main(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--slowfs" || a.starts_with("--slowfs=")) {
        return crate::bench_slowfs::main(args);
    }
    if args.iter().any(|a| a == "--sizes") {
        return crate::sizes::main(args);
    }
    if args.iter().any(|a| a == "--cold") {
        return crate::cold::main(args);
    }
    let o = parse_args(args)?;
    let workloads = o.sel.load("workloads.txt")?;
    if o.strace {
        crate::setup::ensure_packages(&[("strace", "strace")])?;
    }
    let strace = o.strace && which("strace").is_some();
    // Fixtures first: they are slow to build the first time, and the build
    // must not overlap with timing.
    let sets: BTreeSet<Set> =
        workloads.iter().flat_map(|w| w.cmds.iter().flat_map(|(_, c)| sets_needed(c))).collect();
    for s in &sets {
        fixtures::ensure(&o.sel.dir, *s)?;
    }
    let (ours_dir, out_dir) = build_for(&workloads)?;
    let tmp = out_dir.join(format!(".strace-{}", std::process::id()));
    let header = crate::machine::header(&o.sel.dir);
    let mut cache = HashMap::new();
    let mut infos = Infos::default();
    for group in &o.sel.groups {
        let mut run = GroupRun {
            name: group,
            results: Vec::new(),
            load: 0.0,
            took: Duration::ZERO,
            missing: Vec::new(),
        };
        let group_load = ForeignLoad::start();
        for w in workloads.iter().filter(|w| &w.group == group) {
            let mut rows = resolve(w, &ours_dir, &mut cache)?;
            if !o.backends {
                rows.retain(|r| r.backend.is_none());
            }
            eprintln!(
                "bench: {group}: {} ({} commands × {} runs)",
                w.title,
                rows.len(),
                o.sel.runs
            );
            for m in not_installed(w, &ours_dir, &mut cache)? {
                eprintln!("bench:   skipped, not installed: {m}");
                if !run.missing.contains(&m) {
                    run.missing.push(m);
                }
            }
            let load = ForeignLoad::start();
            let slow_peer = o.quick.then_some(QUICK_SLOW_PEER);
            let tmp = strace.then_some(tmp.as_path());
            let res = measure(rows, &o.sel.dir, w.stdout, o.sel.runs, tmp, slow_peer);
            run.results.push((w, res, load.cores()));
        }
        (run.took, run.load) = (group_load.elapsed(), group_load.cores());
        let report = render(&run, &header, &o, strace, &mut infos);
        eprintln!("bench: {group} took {:.0} s", run.took.as_secs_f64());
        print!("{report}");
        let path = out_dir.join(format!("{group}.md"));
        fs::write(&path, &report).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("bench: wrote {}", path.display());
    }
    Ok(())
}

/// One group's measurements, for its report.
struct GroupRun<'a> {
    name: &'a str,
    /// Per workload: its rows and the CPU other processes used meanwhile.
    results: Vec<(&'a Workload, Vec<Result_>, f64)>,
    /// Cores other processes used during the whole group.
    load: f64,
    took: Duration,
    /// The peers not installed here, e.g. `dust (dust)`.
    missing: Vec<String>,
}

fn measure(
    rows: Vec<Row>,
    cwd: &Path,
    mode: Stdout,
    runs: usize,
    strace_tmp: Option<&Path>,
    slow_peer: Option<Duration>,
) -> Vec<Result_> {
    let mut res: Vec<Result_> = rows
        .into_iter()
        .map(|row| Result_ {
            row,
            failed: None,
            wall: Vec::new(),
            cpu: Vec::new(),
            syscalls: None,
            out: (0, 0),
        })
        .collect();
    // Warm-up, also the check that the command works (its stderr is kept)
    // and what it prints (stdout always goes to a pipe here, hashed, so our
    // output can be compared with GNU's).
    for r in &mut res {
        let err_path =
            std::env::temp_dir().join(format!("xtask-bench-stderr-{}", std::process::id()));
        let stderr = fs::File::create(&err_path).map(Stdio::from).unwrap_or_else(|_| Stdio::null());
        match checked_run(&r.row, cwd, stderr) {
            Ok(s) if s.code == 0 => {
                r.out = s.out;
                let peer = !r.row.ours && !r.row.gnu && !r.row.reference;
                if peer && slow_peer.is_some_and(|t| s.wall > t) {
                    r.failed = Some(format!("not timed (--quick; warm-up {} ms)", ms(s.wall)));
                }
            }
            Ok(s) => {
                let msg = fs::read_to_string(&err_path).unwrap_or_default();
                let first = msg.lines().next().unwrap_or("").chars().take(100).collect::<String>();
                eprintln!("bench:   {} failed (exit {}): {first}", r.row.label, s.code);
                r.failed = Some(format!("exit {}", s.code));
            }
            Err(e) => r.failed = Some(e),
        }
        let _ = fs::remove_file(&err_path);
    }
    for _ in 0..runs {
        for r in res.iter_mut().filter(|r| r.failed.is_none()) {
            match run_once(&r.row, cwd, mode, Stdio::null(), false) {
                Ok(s) if s.code == 0 => {
                    r.wall.push(s.wall);
                    r.cpu.push(s.cpu);
                }
                Ok(s) => r.failed = Some(format!("exit {} (flaky)", s.code)),
                Err(e) => r.failed = Some(e),
            }
        }
    }
    if let Some(tmp) = strace_tmp {
        for r in res.iter_mut().filter(|r| r.failed.is_none()) {
            r.syscalls = count_syscalls(&r.row, cwd, mode, tmp);
        }
    }
    res
}

/// The versions of the peers in this group.
fn versions(results: &[(&Workload, Vec<Result_>, f64)], infos: &mut Infos) -> String {
    let mut progs: Vec<&Path> = Vec::new();
    for (_, rows, _) in results {
        // Failed and untimed rows too: their version is part of what the row says.
        for r in rows.iter().filter(|r| !r.row.ours && !r.row.reference) {
            if !progs.contains(&r.row.prog.as_path()) {
                progs.push(&r.row.prog);
            }
        }
    }
    progs.iter().filter_map(|p| infos.get(p).version.clone()).collect::<Vec<_>>().join("; ")
}

fn render(run: &GroupRun, header: &str, o: &Options, strace: bool, infos: &mut Infos) -> String {
    let (group, results, load) = (run.name, &run.results, run.load);
    let mut s = String::new();
    let _ = writeln!(s, "# `cargo xtask bench {group}`\n");
    s.push_str(header);
    let _ = writeln!(s, "- peers: {}", versions(results, infos));
    if !run.missing.is_empty() {
        let _ = writeln!(s, "- not installed, rows skipped: {}", run.missing.join("; "));
    }
    s.push_str(&method(o, strace));
    let _ = writeln!(
        s,
        "| workload | tool | size | command | median ms | min | max | cpu ms | ×GNU | ×best | syscalls | stdout |"
    );
    let _ = writeln!(s, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (w, rows, load) in results {
        workload_rows(&mut s, w, rows, *load, infos);
    }
    let mut noted = Vec::new();
    for (w, rows, _) in results {
        for (label, text) in &w.notes {
            let shown = rows.iter().any(|r| &r.row.label == label);
            if shown && !noted.contains(&label) {
                let _ = write!(s, "{}- {label}: {text}", if noted.is_empty() { "\n" } else { "" });
                s.push('\n');
                noted.push(label);
            }
        }
    }
    let _ = writeln!(
        s,
        "\n- CPU used by other processes during this group: {load:.2} cores on average{}\n- load average at end: {}\n- the group took {:.0} s{}",
        if load >= BUSY_CORES { " (⚠ a busy machine: medians are inflated; compare rows within a workload only)" } else { "" },
        crate::machine::loadavg(),
        run.took.as_secs_f64(),
        if o.quick { " (--quick)" } else { "" },
    );
    let ran = binaries_run(results.iter().flat_map(|(_, rows, _)| rows).map(|r| &r.row));
    s.push_str(&sizes_section(&ran, infos));
    s
}

/// Whether a row is a reference walker (`floor …`), not a tool: it gets
/// ratios but is never the best peer, and its binary is xtask's.
pub(crate) fn is_floor(label: &str) -> bool {
    label.starts_with("floor")
}

/// Builds what `workloads` run (our release binaries, and xtask itself
/// where a `floor` row runs it) and makes the reports' directory; returns
/// (the binaries' directory, the reports' directory).
pub(crate) fn build_for(workloads: &[Workload]) -> Result<(PathBuf, PathBuf), String> {
    crate::cargo(&["build", "--release", "--bins"])?;
    if workloads.iter().any(|w| w.cmds.iter().any(|(_, c)| c.contains("{XTASK}"))) {
        crate::cargo(&["build", "--release", "-p", "xtask"])?;
    }
    let out_dir = crate::target_dir().join("bench");
    fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    Ok((crate::target_dir().join("release"), out_dir))
}

/// The binaries `rows` timed, for the sizes section: forced-backend and
/// reference (floor) rows run a binary another row names already.
pub(crate) fn binaries_run<'a>(rows: impl Iterator<Item = &'a Row>) -> Vec<Ran<'a>> {
    rows.filter(|r| r.backend.is_none() && !r.reference)
        .map(|r| Ran { label: &r.label, prog: &r.prog, ours: r.ours, gnu: r.gnu })
        .collect()
}

/// The method paragraph: how every column was measured.
fn method(o: &Options, strace: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "- method: per workload, 1 warm-up run, then {} rounds running every command once in turn; \
         wall = spawn + wait (+ draining stdout for `pipe`) with `Instant`, nothing subtracted; \
         cpu = user + sys of the child from `wait4` (median); syscalls = one `strace -f` run, counted from its trace{}; \
         `LC_ALL=C` unless the workload names a locale; commands run in the fixtures directory\n- ×GNU and ×best = median / median of the GNU row, \
         and of the fastest row that is not ours; `[backend]` rows force `RINGIO_BACKEND`\n\
         - stdout = bytes the warm-up run printed; on our rows `=` means byte-identical to GNU, \
         `~` same size in another order, `⚠` different\n",
        o.sel.runs,
        if strace { "" } else { " (skipped)" }
    );
    if o.quick {
        let _ = writeln!(
            s,
            "- `--quick`: {}peers whose warm-up run took over {} s are not timed\n",
            if o.backends { "" } else { "no forced-backend rows; " },
            QUICK_SLOW_PEER.as_secs()
        );
    }
    s
}

/// One workload's rows of the table.
fn workload_rows(s: &mut String, w: &Workload, rows: &[Result_], load: f64, infos: &mut Infos) {
    let med = |r: &Result_| (r.failed.is_none() && !r.wall.is_empty()).then(|| median(&r.wall));
    let gnu_row = rows.iter().find(|r| r.row.gnu && r.failed.is_none());
    let gnu = gnu_row.and_then(med);
    let best = rows.iter().filter(|r| !r.row.ours && !r.row.reference).filter_map(med).min();
    let busy = if load >= BUSY_CORES {
        format!(" ⚠ other processes used {load:.1} cores")
    } else {
        String::new()
    };
    let title = format!(
        "{} ({}){}{busy}",
        w.title.replace('|', "\\|"),
        match w.stdout {
            Stdout::DevNull => "> /dev/null",
            Stdout::Pipe => "→ pipe",
        },
        if w.locale == "C" { String::new() } else { format!(" `LC_ALL={}`", w.locale) }
    );
    for (i, r) in rows.iter().enumerate() {
        let wl = if i == 0 { title.as_str() } else { "" };
        let info = infos.get(&r.row.prog).clone();
        let tool = if r.row.ours && r.row.backend.is_none() {
            format!("**{}**", r.row.label)
        } else {
            tool_name(&r.row, info.number())
        };
        let size = match info.bytes {
            Some(b) if !r.row.reference && r.row.backend.is_none() => crate::peers::human(b),
            _ => String::new(),
        };
        let cmd = format!("{size} | `{}`", r.row.shown.replace('|', "\\|"));
        let out = stdout_cell(r.out, r.row.ours, gnu_row.map(|g| g.out));
        let Some(m) = med(r) else {
            let why = r.failed.clone().unwrap_or_else(|| "no samples".into());
            let _ = writeln!(s, "| {wl} | {tool} | {cmd} | {why} | | | | | | | |");
            continue;
        };
        let ratio = |base: Option<Duration>| {
            base.map_or(String::new(), |b| format!("{:.2}×", m.as_secs_f64() / b.as_secs_f64()))
        };
        let _ = writeln!(
            s,
            "| {wl} | {tool} | {cmd} | {} | {} | {} | {} | {} | {} | {} | {out} |",
            ms(m),
            ms(*r.wall.iter().min().unwrap()),
            ms(*r.wall.iter().max().unwrap()),
            ms(median(&r.cpu)),
            ratio(gnu),
            ratio(best),
            r.syscalls.map_or_else(|| "–".into(), |n| n.to_string()),
        );
    }
}

/// A row's name in the table: its label with the program's version
/// number (see [`with_version`]) unless the row is ours or a floor.
fn tool_name(row: &Row, number: Option<&str>) -> String {
    if row.ours || row.reference {
        return row.label.clone();
    }
    with_version(&row.label, number)
}

/// The stdout column: the bytes printed; on our rows, whether they are
/// GNU's (`=`), GNU's size in another order (`~`) or different (`⚠`).
pub fn stdout_cell(out: (u64, u64), ours: bool, gnu: Option<(u64, u64)>) -> String {
    match gnu {
        Some(g) if ours && out == g => format!("{} =", out.0),
        Some(g) if ours && out.0 == g.0 => format!("{} ~", out.0),
        Some(_) if ours => format!("{} ⚠", out.0),
        _ => out.0.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_file_parses_and_uses_known_placeholders() {
        let ws = read("workloads.txt").unwrap();
        for g in GROUPS {
            assert!(ws.iter().any(|w| w.group == g), "no {g} workload");
        }
        for w in &ws {
            assert!(w.cmds.iter().any(|(l, _)| l.starts_with("GNU")), "{}: no GNU row", w.title);
            assert!(
                w.cmds.iter().any(|(_, c)| c.contains("{OURS:")),
                "{}: no row of ours",
                w.title
            );
            for (_, c) in &w.cmds {
                expand(c, Path::new("/x"), needs_shell(c)).unwrap();
            }
        }
    }

    #[test]
    fn a_workload_may_name_its_locale() {
        let ws = parse(
            "= ls | a | b | devnull | LC_ALL=en_US.UTF-8\nx | {OURS:lsr}\n= ls | t | pipe\nx | ls\n",
        )
        .unwrap();
        assert_eq!((ws[0].title.as_str(), ws[0].locale.as_str()), ("a | b", "en_US.UTF-8"));
        assert_eq!((ws[1].title.as_str(), ws[1].locale.as_str()), ("t", "C"));
        assert_eq!(ws[1].stdout, Stdout::Pipe);
        assert!(parse("= ls | t | pipe | LC_ALL=\n").is_err());
    }

    #[test]
    fn the_version_goes_after_the_name() {
        let (w, dir) =
            (parse("= find | t | pipe\nfd -g | sh -x\nGNU find | sh\n").unwrap(), Path::new("/x"));
        let rows = resolve(&w[0], dir, &mut HashMap::new()).unwrap();
        assert_eq!(tool_name(&rows[0], Some("10.5.0")), "fd 10.5.0 -g");
        assert_eq!(tool_name(&rows[1], Some("9.1")), "GNU find 9.1");
        assert_eq!(tool_name(&rows[1], None), "GNU find");
    }

    #[test]
    fn a_program_under_two_names_gets_one_row() {
        let text = "= find | t | pipe\nsh | sh -c true\nsh2 | /bin/../bin/sh -c true\n\
                    gone | no-such-program-here x\ngone | nor-this-one x\n";
        let w = parse(text).unwrap();
        let mut cache = HashMap::new();
        let rows = resolve(&w[0], Path::new("/x"), &mut cache).unwrap();
        assert_eq!(rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["sh"]);
        let missing = not_installed(&w[0], Path::new("/x"), &mut cache).unwrap();
        assert_eq!(missing, ["gone (no-such-program-here, nor-this-one)"]);
    }

    #[test]
    fn notes_are_kept_for_every_workload() {
        let ws =
            parse("! x | says why\n= ls | a | pipe\nx | ls\n= du | b | pipe\ny | du\n").unwrap();
        assert_eq!(ws[1].notes, [("x".to_string(), "says why".to_string())]);
        assert!(parse("! no bar\n").is_err());
    }

    #[test]
    fn words_and_quotes() {
        assert_eq!(words("find {TREE} -name '*.c'  -x"), ["find", "{TREE}", "-name", "*.c", "-x"]);
        assert_eq!(words("a '' b"), ["a", "", "b"]);
        assert_eq!(shell_quote("tree"), "tree");
        assert_eq!(shell_quote("a b"), "'a b'");
    }
}

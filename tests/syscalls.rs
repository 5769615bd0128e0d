//! Syscall budgets, counted with strace: upper bounds on how many times the
//! tools (and the engine under them) cross into the kernel. Counts, not
//! times, so they hold on any machine; speed itself is measured by
//! `cargo xtask bench`, never by a test.
//!
//! Every test skips with a message when strace cannot trace here (no
//! ptrace in some containers); a missing strace fails under `CI=true`
//! (`cargo xtask test` installs it). A tool's output is checked against
//! GNU's before its syscalls are counted: wrong output fails the test.
//! The budgets are deliberately loose starting points: the tools' owners
//! tighten them as the tools get there.
//!
//! A count taken from `strace -f` covers every thread of the process;
//! an io_uring_enter counts once however many operations it carried, and
//! io-wq kernel workers are not seen.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;

use crate::strace::{count_trace, TRACE_ARGS};
use crate::util::{self, TempDir, BACKENDS};

/// `lsr -al` on 10,000 files with the io_uring backend: every syscall of
/// the process (lsr in Zig does ~850, GNU ls ~30,000), in each locale, by
/// LC_ALL and by LANG. Beyond C, what the locale's start-up adds: glibc's
/// locale-archive, or a directory locale's files (C.UTF-8: only LC_CTYPE,
/// see libcw's `set_from_env`), and the catalogs: one listing of
/// /usr/share/locale says which of glibc's six spellings of the name
/// exist, and only those are opened (cli's catalog.rs). Target ≤ 100 in
/// every locale. Measured: C 78, en_US 90, de_DE and ja_JP 94 (their
/// coreutils catalogs are found and mapped), C.UTF-8 100; a run may make a
/// few more (one more ring wait, by timing), which the budgets allow.
const LSR_AL_10K_LOCALE_BUDGETS: &[(&str, u64)] =
    &[("C", 84), ("C.UTF-8", 106), ("en_US.UTF-8", 96), ("de_DE.UTF-8", 100), ("ja_JP.UTF-8", 100)];
/// The engine alone on io_uring, beyond what the same process does on an
/// empty directory: open + getdents + 10,000 statx + close, the stats pushed
/// all at once and waited for all at once. Measured: 125 in all (16
/// io_uring_enter, ~100 allocator calls) since `wait(min)` passes `min` on
/// as min_complete (it was ~310 enters when each enter waited for one).
const ENGINE_STAT_10K_URING_BATCHED_BUDGET: u64 = 200;
/// The same with the stats pushed as each getdents buffer arrives and
/// completions handled as they come (`Engine::run`, one wait per batch of
/// ready completions): at least 4 operations per io_uring_enter on average.
/// Measured: 165 in all (59 enters) since a "wait for some" enter asks for
/// a quarter of what is in flight (it was ~900 enters at one per enter).
const ENGINE_STAT_10K_URING_PIPELINED_BUDGET: u64 = 300;
/// getdents64 calls to read 10,000 short names (~32 bytes of record each,
/// 64 KiB buffers: ~5 buffers, plus the call that sees the end).
const GETDENTS_10K_BUDGET: u64 = 12;

/// What one traced run did.
pub struct Syscalls {
    pub status: ExitStatus,
    /// The summary's total: every syscall of every traced thread.
    pub total: u64,
    pub calls: BTreeMap<String, u64>,
}

impl Syscalls {
    pub fn get(&self, name: &str) -> u64 {
        self.calls.get(name).copied().unwrap_or(0)
    }
}

fn command(program: &Path, args: &[&OsStr], env: &[(&str, &str)], strace: &[&OsStr]) -> Command {
    let mut c = Command::new("strace");
    c.args(strace).arg("--").arg(program).args(args);
    // cargo test sets LD_LIBRARY_PATH; the dynamic loader would then probe
    // every directory in it (~100 failing openat/stat) and count against
    // the tool.
    c.env("LC_ALL", "C").env_remove("RINGIO_BACKEND").env_remove("LD_LIBRARY_PATH");
    c.envs(env.iter().copied());
    c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    c
}

/// Whether strace works here; prints why not, once.
pub fn strace_usable() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        if !util::have("strace") {
            util::prerequisite_missing("syscall budgets", "strace");
            return false;
        }
        let t = TempDir::new("strace-probe");
        let out = t.join("trace");
        let ok = command(Path::new("true"), &[], &[], &trace_args(&out))
            .status()
            .is_ok_and(|s| s.success())
            && std::fs::read_to_string(&out).is_ok_and(|s| count_trace(&s).is_some());
        if !ok {
            util::skipped("syscall budgets", "strace cannot trace here (ptrace not permitted?)");
        }
        ok
    })
}

/// strace's arguments to write a countable trace to `out`.
fn trace_args(out: &Path) -> Vec<&OsStr> {
    let mut v: Vec<&OsStr> = TRACE_ARGS.iter().map(OsStr::new).collect();
    v.push(OsStr::new("-o"));
    v.push(out.as_os_str());
    v
}

/// Runs `program args` (stdout to /dev/null) under `strace -f` and
/// returns its counts; None when strace is unusable here.
pub fn count_syscalls(program: &Path, args: &[&OsStr], env: &[(&str, &str)]) -> Option<Syscalls> {
    if !strace_usable() {
        return None;
    }
    // Not while the fault suite has io_uring disabled machine-wide.
    let _kernel = util::kernel_state_shared();
    let t = TempDir::new("strace");
    let out = t.join("trace");
    let status = command(program, args, env, &trace_args(&out)).status().expect("run strace");
    let text = std::fs::read_to_string(&out).expect("strace trace");
    let (total, calls) = count_trace(&text).unwrap_or_else(|| panic!("empty strace trace"));
    Some(Syscalls { status, total, calls })
}

/// Runs `program args` under `strace -f -e trace=FILTER` and returns the
/// trace lines (one per call, with arguments); None when strace is unusable.
pub fn trace(
    program: &Path,
    args: &[&OsStr],
    env: &[(&str, &str)],
    filter: &str,
) -> Option<Vec<String>> {
    if !strace_usable() {
        return None;
    }
    let _kernel = util::kernel_state_shared();
    let t = TempDir::new("strace");
    let out = t.join("trace");
    let expr = format!("trace={filter}");
    command(
        program,
        args,
        env,
        &["-f".as_ref(), "-e".as_ref(), expr.as_ref(), "-o".as_ref(), out.as_os_str()],
    )
    .status()
    .expect("run strace");
    let text = std::fs::read_to_string(&out).expect("strace output");
    Some(
        text.lines()
            .filter(|l| !l.contains("+++") && !l.contains("---"))
            .map(String::from)
            .collect(),
    )
}

/// A directory of `n` empty files named `entry-NNNNN`.
fn flat_dir(tag: &str, n: usize) -> TempDir {
    let t = TempDir::new(tag);
    for i in 0..n {
        std::fs::write(t.join(format!("entry-{i:05}")), b"").unwrap();
    }
    t
}

/// A small source-like tree: 3 levels of 6 directories, 10 files in each
/// (~2,800 entries), plus a symlink and a hard link.
fn small_tree(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    let mut dirs = vec![t.path().to_path_buf()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for d in &dirs {
            for i in 0..6 {
                let sub = d.join(format!("d{i}"));
                std::fs::create_dir(&sub).unwrap();
                for f in 0..10 {
                    std::fs::write(sub.join(format!("f{f}.c")), vec![b'x'; f * 500]).unwrap();
                }
                next.push(sub);
            }
        }
        dirs = next;
    }
    std::os::unix::fs::symlink("f1.c", t.join("d0/link")).unwrap();
    std::fs::hard_link(t.join("d0/f2.c"), t.join("d1/hard")).unwrap();
    t
}

fn run(program: &Path, args: &[&OsStr], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .env_remove("RINGIO_BACKEND")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.display()))
}

/// Checks that `tool ARGS` prints what GNU's tool prints (as sorted lines
/// for the parallel walkers) before its syscalls are counted: a budget met
/// by wrong output means nothing, so that fails the test.
fn assert_same_as_gnu(tool: &str, args: &[&OsStr], sorted: bool) {
    let ours = run(&util::ours(tool), args, &[]);
    let gnu = run(Path::new(util::gnu(tool)), args, &[]);
    let lines = |b: &[u8]| {
        let mut v: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
        if sorted {
            v.sort();
        }
        v
    };
    assert!(
        ours.status.success() && gnu.status.success() && lines(&ours.stdout) == lines(&gnu.stdout),
        "{tool} {args:?} ({:?}) differs from GNU's ({:?}), so its syscall count means nothing:\n--- ours\n{}\n--- GNU\n{}",
        ours.status,
        gnu.status,
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&gnu.stdout)
    );
}

// ---------------------------------------------------------------------------
// The engine, on its own: no tool needed.

/// Set to a directory: `engine_child_workload` then lists it and statx's
/// every entry through ringio; this is the workload `engine_statx_budget`
/// traces.
const CHILD_DIR: &str = "RINGUTILS_TEST_SYSCALLS_CHILD_DIR";
/// How the child pushes its stats: `pipelined` or `batched`.
const CHILD_MODE: &str = "RINGUTILS_TEST_SYSCALLS_CHILD_MODE";
/// How many entries the child must see.
const CHILD_N: &str = "RINGUTILS_TEST_SYSCALLS_CHILD_N";

/// Not a check by itself: the process that `engine_statx_budget` traces
/// (this test binary re-executed with only this test selected).
#[test]
fn engine_child_workload() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
    use std::os::unix::ffi::OsStrExt;
    const DENTS: u64 = u64::MAX;
    let mask = libc::STATX_BASIC_STATS;
    let nofollow = libc::AT_SYMLINK_NOFOLLOW;
    let mut eng = ringio::Engine::new();
    let mut done = Vec::new();
    eng.openat(0, libc::AT_FDCWD, dir.as_bytes(), libc::O_RDONLY | libc::O_DIRECTORY, 0);
    let fd = eng.wait_for(0, &mut done).unwrap().fd().expect("open dir");
    let (mut entries, mut stats) = (0u64, 0u64);
    if std::env::var(CHILD_MODE).unwrap() == "batched" {
        // Every name first, then every stat pushed and waited for at once.
        // Names go into one buffer, so the count is the engine's, not the
        // allocator's.
        let (mut names, mut ends) = (Vec::with_capacity(1 << 20), Vec::with_capacity(1 << 15));
        let mut buf = Vec::new();
        loop {
            eng.getdents(DENTS, fd, buf);
            let mut c = eng.wait_for(DENTS, &mut done).unwrap();
            c.result.expect("getdents");
            for d in ringio::DirentIter::new(c.buf()).filter(|d| !d.is_dot_or_dotdot()) {
                names.extend_from_slice(d.name);
                ends.push(names.len());
            }
            if c.eof {
                break;
            }
            buf = c.take_buf();
        }
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            eng.statx(i as u64 + 1, fd, &names[start..end], nofollow, mask);
            start = end;
        }
        entries = ends.len() as u64;
        done.reserve(ends.len());
        while eng.outstanding() > 0 {
            done.clear();
            eng.wait(eng.outstanding(), &mut done);
            for c in &done {
                c.stat().expect("statx");
                stats += 1;
            }
        }
    } else {
        // Stats pushed as each buffer of names arrives, completions
        // handled as they come.
        eng.getdents(DENTS, fd, Vec::new());
        eng.run(|eng, mut c| {
            if c.token != DENTS {
                c.stat().expect("statx");
                stats += 1;
                return;
            }
            c.result.expect("getdents");
            for d in ringio::DirentIter::new(c.buf()).filter(|d| !d.is_dot_or_dotdot()) {
                entries += 1;
                eng.statx(entries, fd, d.name, nofollow, mask);
            }
            if !c.eof {
                let buf = c.take_buf();
                eng.getdents(DENTS, fd, buf);
            }
        });
    }
    done.clear();
    eng.close(0, fd);
    eng.wait_for(0, &mut done).unwrap().result.expect("close");
    assert_eq!(stats, entries);
    let want: u64 = std::env::var(CHILD_N).unwrap().parse().unwrap();
    assert_eq!(entries, want);
}

fn engine_counts(dir: &Path, n: usize, backend: &str, mode: &str) -> Syscalls {
    let me = std::env::current_exe().unwrap();
    let n = n.to_string();
    let args: [&OsStr; 4] = [
        "syscalls::engine_child_workload".as_ref(),
        "--exact".as_ref(),
        "--test-threads=1".as_ref(),
        "-q".as_ref(),
    ];
    let env = [
        (CHILD_DIR, dir.to_str().unwrap()),
        (CHILD_MODE, mode),
        (CHILD_N, n.as_str()),
        ("RINGIO_BACKEND", backend),
    ];
    let s = count_syscalls(&me, &args, &env).expect("strace usable");
    assert!(
        s.status.success(),
        "engine workload failed ({backend}, {mode}); rerun it: {CHILD_DIR}={} {CHILD_MODE}={mode} \
         {CHILD_N}={n} RINGIO_BACKEND={backend} {} {}",
        dir.display(),
        me.display(),
        args.map(|a| a.to_string_lossy().into_owned()).join(" ")
    );
    s
}

/// 10,000 stats through the engine: on io_uring they cost no statx syscall
/// and a bounded number of ring entries; on the other backends exactly one
/// statx each (no retries, no duplicates). Counted as the difference from
/// the same process on an empty directory, so the test harness's own
/// syscalls cancel out.
#[test]
fn engine_statx_budget() {
    if !strace_usable() {
        return;
    }
    let empty = TempDir::new("sys-empty");
    let full = flat_dir("sys-engine", 10_000);
    for backend in BACKENDS {
        if backend == "uring" && !ringio::uring_available() {
            util::skipped("engine_statx_budget [uring]", &ringio::uring_description());
            continue;
        }
        for mode in ["batched", "pipelined"] {
            let base = engine_counts(empty.path(), 0, backend, mode);
            let s = engine_counts(full.path(), 10_000, backend, mode);
            let delta = |name: &str| s.get(name).saturating_sub(base.get(name));
            let total = s.total.saturating_sub(base.total);
            eprintln!(
                "{backend} {mode}: total +{total} (statx +{}, getdents64 +{}, io_uring_enter +{}, futex +{})",
                delta("statx"),
                delta("getdents64"),
                delta("io_uring_enter"),
                delta("futex"),
            );
            let what = format!("{backend} {mode}");
            let changed: Vec<String> = s
                .calls
                .iter()
                .filter(|(k, &v)| v != base.get(k))
                .map(|(k, &v)| format!("{k} {:+}", v as i64 - base.get(k) as i64))
                .collect();
            eprintln!("  changed: {}", changed.join(", "));
            assert!(
                delta("getdents64") <= GETDENTS_10K_BUDGET,
                "{what}: {} getdents64",
                delta("getdents64")
            );
            if backend != "uring" {
                assert_eq!(delta("statx"), 10_000, "{what}: not one statx per entry");
                continue;
            }
            assert_eq!(delta("statx"), 0, "{what}: statx went around the ring");
            let budget = match mode {
                "batched" => ENGINE_STAT_10K_URING_BATCHED_BUDGET,
                _ => ENGINE_STAT_10K_URING_PIPELINED_BUDGET,
            };
            assert!(total <= budget, "{what}: {total} syscalls for 10,000 stats > {budget}");
        }
    }
}

// ---------------------------------------------------------------------------
// The tools. Budgets to be tightened by their owners.

#[test]
fn lsr_long_listing_10k_uring_budget() {
    if !strace_usable() {
        return;
    }
    if !ringio::uring_available() {
        util::skipped("lsr_long_listing_10k_uring_budget", &ringio::uring_description());
        return;
    }
    let t = flat_dir("sys-lsr-al-loc", 10_000);
    let dir = t.path().as_os_str();
    let installed = util::locales("lsr_long_listing_10k_uring_budget");
    let mut over = Vec::new();
    for &(loc, budget) in LSR_AL_10K_LOCALE_BUDGETS {
        if loc != "C" && !installed.contains(&loc) {
            continue;
        }
        for var in ["LC_ALL", "LANG"] {
            // LANG counts only without LC_ALL, which `command` sets to C.
            let env: &[(&str, &str)] =
                if var == "LC_ALL" { &[("LC_ALL", loc)] } else { &[("LC_ALL", ""), ("LANG", loc)] };
            let args: [&OsStr; 2] = ["-l".as_ref(), dir];
            let ours = run(&util::ours("lsr"), &args, env);
            let gnu = run(Path::new(util::gnu("lsr")), &args, env);
            assert!(
                ours.status.success() && ours.stdout == gnu.stdout,
                "lsr -l ({var}={loc}) differs from GNU's, so its syscall count means nothing"
            );
            let mut env = env.to_vec();
            env.push(("RINGIO_BACKEND", "uring"));
            let s = count_syscalls(&util::ours("lsr"), &["-al".as_ref(), dir], &env).unwrap();
            assert!(s.status.success());
            if s.total > budget {
                over.push(format!("{var}={loc}: {} > {budget}: {:?}", s.total, s.calls));
            }
        }
    }
    assert!(over.is_empty(), "lsr -al on 10,000 files (uring):\n{}", over.join("\n"));
}

/// `ls -1` needs no stat of any entry: d_type says enough. Checked from the
/// full trace of every stat-like call, so a stat of the operand itself is
/// allowed but a single one of an entry is not.
#[test]
fn lsr_one_per_line_stats_no_entry() {
    if !strace_usable() {
        return;
    }
    let t = flat_dir("sys-lsr-1", 10_000);
    let dir = t.path().as_os_str();
    assert_same_as_gnu("lsr", &["-1".as_ref(), dir], false);
    for backend in BACKENDS {
        let calls = trace(
            &util::ours("lsr"),
            &["-1".as_ref(), dir],
            &[("RINGIO_BACKEND", backend)],
            "%stat",
        )
        .unwrap();
        let per_entry: Vec<&String> = calls.iter().filter(|l| l.contains("\"entry-")).collect();
        assert!(
            per_entry.is_empty(),
            "lsr -1 ({backend}) stat'ed {} entries, e.g. {}",
            per_entry.len(),
            per_entry[0]
        );
    }
}

/// Our tool's syscalls against GNU's on the same tree, under every backend.
fn at_most_gnu(tool: &str, args: &[&OsStr]) {
    let gnu = count_syscalls(Path::new(util::gnu(tool)), args, &[]).unwrap();
    assert!(gnu.status.success());
    for backend in BACKENDS {
        let ours = count_syscalls(&util::ours(tool), args, &[("RINGIO_BACKEND", backend)]).unwrap();
        assert!(ours.status.success(), "{tool} ({backend}) failed");
        eprintln!("{tool} {args:?} ({backend}): {} syscalls, GNU {}", ours.total, gnu.total);
        assert!(
            ours.total <= gnu.total,
            "{tool} ({backend}): {} syscalls > GNU's {}: {:?}",
            ours.total,
            gnu.total,
            ours.calls
        );
    }
}

/// `tool OPTS TREE` on a small tree gives GNU's output (`sorted`: in any
/// order) with at most GNU's syscalls.
fn small_tree_at_most_gnu(tag: &str, tool: &str, opts: &[&str], sorted: bool) {
    if !strace_usable() {
        return;
    }
    let t = small_tree(tag);
    let mut args: Vec<&OsStr> = opts.iter().map(OsStr::new).collect();
    args.push(t.path().as_os_str());
    assert_same_as_gnu(tool, &args, sorted);
    at_most_gnu(tool, &args);
}

#[test]
fn lfind_tree_at_most_gnu_find() {
    small_tree_at_most_gnu("sys-lfind", "lfind", &[], true);
}

#[test]
fn ldu_summary_at_most_gnu_du() {
    small_tree_at_most_gnu("sys-ldu", "ldu", &["-s"], false);
}

/// lcat of 1,000 small files reads them ahead (crates/cat/src/ahead.rs):
/// exactly statx, openat, a read and the read that sees the end, and close
/// per file (GNU: 7, lcat before: 7), and the output in a few large writes.
/// The same on the ring while the cache is warm: its engine runs the stat
/// and the read as syscalls on the caller's thread (ringio's whole.rs).
/// Under strace every syscall is slow enough to look like a cold device
/// to ringio's detector, which may then send the ring's parts through
/// io_uring (fewer syscalls) or start the pool's workers, whose hand-offs
/// then depend on timing (290 to 6,900 futex calls seen): the pool's total
/// is not asserted, its per-file calls are.
#[test]
fn lcat_small_files_read_ahead() {
    if !strace_usable() {
        return;
    }
    const N: u64 = 1000;
    let t = TempDir::new("sys-lcat");
    let names: Vec<std::path::PathBuf> = (0..N)
        .map(|i| {
            let p = t.join(format!("f{i:04}"));
            std::fs::write(&p, format!("line {i}\n").repeat(1 + i as usize % 20)).unwrap();
            p
        })
        .collect();
    let args: Vec<&OsStr> = names.iter().map(|p| p.as_os_str()).collect();
    assert_same_as_gnu("lcat", &args, false);
    let mut backends = vec!["sync", "threads"];
    if ringio::uring_available() {
        backends.push("uring");
    }
    for backend in backends {
        let run = count_syscalls(&util::ours("lcat"), &args, &[("RINGIO_BACKEND", backend)]);
        let run = run.unwrap();
        assert!(run.status.success());
        eprintln!("lcat {N} files ({backend}): {} syscalls: {:?}", run.total, run.calls);
        // 1,000 files of 7–200 bytes: well under one 256 KiB write.
        assert!(run.get("write") <= 2, "{backend}: {:?}", run.calls);
        if backend == "uring" && run.get("io_uring_enter") > 0 {
            // In parts through the ring: a fraction of a syscall per file.
            assert!(run.get("io_uring_enter") <= N / 4, "{backend}: {:?}", run.calls);
            assert!(run.total <= 5 * N + 150, "{backend}: {:?}", run.calls);
            continue;
        }
        assert_eq!(run.get("statx"), N, "{backend}: {:?}", run.calls);
        // The loader's reads, opens and closes besides the files'.
        assert!((2 * N..2 * N + 10).contains(&run.get("read")), "{backend}: {:?}", run.calls);
        assert!((N..N + 20).contains(&run.get("openat")), "{backend}: {:?}", run.calls);
        assert!((N..N + 20).contains(&run.get("close")), "{backend}: {:?}", run.calls);
        if backend != "threads" {
            assert!(run.total <= 5 * N + 150, "{backend}: {:?}", run.calls);
        }
    }
}

/// Checks that `tool`, with each of `variants` of options and a small
/// tree's `d0` as operand (first when `operand_first`, as find takes it,
/// else last), prints GNU's output (`sorted` for a parallel walk) and, on
/// ext4, makes exactly one getdents64 call per directory: under the default
/// backend and each forced one. Elsewhere the count is printed, not
/// asserted: other file systems mark no end the engine knows.
fn one_getdents_per_directory(
    tag: &str,
    tool: &str,
    variants: &[&[&str]],
    operand_first: bool,
    sorted: bool,
) {
    if !strace_usable() {
        return;
    }
    let t = small_tree(tag);
    // One level down: `-a` shows `..`, which for the temporary directory
    // itself is /tmp, whose link count other tests change as they run.
    let top = t.path().join("d0");
    // d0, and 6 and 36 directories below it.
    let dirs = 1 + 6 + 36;
    let ext4 = util::on_ext4(&top);
    for opts in variants {
        let mut args: Vec<&OsStr> = opts.iter().map(OsStr::new).collect();
        args.insert(if operand_first { 0 } else { args.len() }, top.as_os_str());
        assert_same_as_gnu(tool, &args, sorted);
        for backend in std::iter::once("default").chain(BACKENDS) {
            let env: &[(&str, &str)] =
                if backend == "default" { &[] } else { &[("RINGIO_BACKEND", backend)] };
            let s = count_syscalls(&util::ours(tool), &args, env).unwrap();
            assert!(s.status.success(), "{tool} {args:?} ({backend}) failed");
            let n = s.get("getdents64");
            eprintln!("{tool} {args:?} ({backend}): {n} getdents64 for {dirs} directories");
            if ext4 {
                assert_eq!(n, dirs, "{tool} {args:?} ({backend}): {:?}", s.calls);
            }
        }
    }
}

/// `lsr -R` reads each small directory with one getdents64 where the file
/// system marks a directory's end (ext4: the engine learns the type from
/// the `fstatfs` it makes anyway as it opens the directory), not two (the
/// second returning 0, as GNU's ls reads).
#[test]
fn lsr_recursive_one_getdents_per_small_directory() {
    one_getdents_per_directory("sys-lsr-r", "lsr", &[&["-alR"], &["-R"]], false, false);
}

/// A walk that stats nothing (`find DIR`, `-name`, `-type`) still reads
/// each directory once: a directory's device is its parent's when the
/// mount table puts no mount point between them, and on ext4 the hashed
/// directories' end mark then ends the read without the empty
/// getdents64 (it was two per directory), on every backend.
#[test]
fn lfind_names_only_one_getdents_per_directory() {
    let variants: &[&[&str]] = &[&[], &["-name", "f1*"], &["-type", "d"]];
    one_getdents_per_directory("sys-lfind-names", "lfind", variants, true, true);
}

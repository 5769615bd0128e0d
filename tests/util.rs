//! Shared machinery for the end-to-end tests: temp trees, running our
//! binaries and GNU's on the same input under every engine backend, and
//! running as an unprivileged user (tests run as root, which bypasses
//! permission checks).

#![allow(dead_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The engine backends every end-to-end comparison runs under.
pub const BACKENDS: [&str; 3] = ["uring", "threads", "sync"];

/// Unprivileged uid/gid used for permission tests (Debian's `nobody`).
pub const NOBODY: u32 = 65534;

pub use scratch::Scratch as TempDir;

pub fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Path of one of our binaries.
pub fn ours(tool: &str) -> PathBuf {
    match tool {
        "lsr" => PathBuf::from(env!("CARGO_BIN_EXE_lsr")),
        "lfind" => PathBuf::from(env!("CARGO_BIN_EXE_lfind")),
        "ldu" => PathBuf::from(env!("CARGO_BIN_EXE_ldu")),
        "lcat" => PathBuf::from(env!("CARGO_BIN_EXE_lcat")),
        other => panic!("unknown tool {other}"),
    }
}

/// The GNU tool our binary replaces.
pub fn gnu(tool: &str) -> &'static str {
    match tool {
        "lsr" => "/usr/bin/ls",
        "lfind" => "/usr/bin/find",
        "ldu" => "/usr/bin/du",
        "lcat" => "/usr/bin/cat",
        other => panic!("unknown tool {other}"),
    }
}

pub fn os(s: &[u8]) -> &OsStr {
    OsStr::from_bytes(s)
}

/// How to run one command.
#[derive(Clone, Default)]
pub struct Run {
    pub args: Vec<Vec<u8>>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
    /// Run as uid/gid `nobody` (setpriv from util-linux).
    pub unprivileged: bool,
    /// Variables taken out of the environment after `env` is applied
    /// (`env -u LC_ALL …`: locale categories set one by one).
    pub unset: Vec<String>,
}

impl Run {
    pub fn new<I, A>(args: I) -> Run
    where
        I: IntoIterator<Item = A>,
        A: AsRef<[u8]>,
    {
        Run { args: args.into_iter().map(|a| a.as_ref().to_vec()).collect(), ..Run::default() }
    }

    pub fn cwd(mut self, p: &Path) -> Run {
        self.cwd = Some(p.to_path_buf());
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Run {
        self.env.push((k.into(), v.into()));
        self
    }

    /// The locale of the whole run (`LC_ALL`, which [`Run::exec`] would
    /// otherwise set to C).
    pub fn locale(self, l: &str) -> Run {
        self.env("LC_ALL", l)
    }

    /// Removes `k` from the run's environment (after every `env`).
    pub fn unset(mut self, k: &str) -> Run {
        self.unset.push(k.into());
        self
    }

    pub fn stdin(mut self, data: &[u8]) -> Run {
        self.stdin = Some(data.to_vec());
        self
    }

    pub fn unprivileged(mut self) -> Run {
        self.unprivileged = true;
        self
    }

    /// Gives `cmd` this run's variables (set and unset) and working
    /// directory, over the ones it has.
    fn place(&self, cmd: &mut Command) {
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        for k in &self.unset {
            cmd.env_remove(k);
        }
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
    }

    /// Runs `program` (with `argv0` as the name it sees, so messages say
    /// e.g. `ls:` for both tools when compared) in the C locale.
    pub fn exec(&self, program: &Path, argv0: &str, backend: Option<&str>) -> Output {
        let mut cmd = if self.unprivileged {
            let mut c = as_nobody();
            c.arg(program);
            c
        } else {
            let mut c = Command::new(program);
            use std::os::unix::process::CommandExt;
            c.arg0(argv0);
            c
        };
        cmd.args(self.args.iter().map(|a| os(a)));
        test_env(&mut cmd, "", backend);
        self.place(&mut cmd);
        cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
        if let Some(data) = &self.stdin {
            use std::io::Write;
            let mut si = child.stdin.take().unwrap();
            let data = data.clone();
            std::thread::spawn(move || {
                let _ = si.write_all(&data);
            });
        }
        child.wait_with_output().unwrap()
    }
}

/// `setpriv` set up to run what follows as uid/gid `nobody`.
fn as_nobody() -> Command {
    let mut c = Command::new("setpriv");
    c.args(["--reuid", &NOBODY.to_string(), "--regid", &NOBODY.to_string(), "--clear-groups"]);
    c.arg("--");
    c
}

/// The environment every run gets, ours and GNU's alike: nothing inherited
/// but `path_first` (if any) before the system PATH, the C locale (or the
/// one [`in_locale`] set for this thread), UTC, and the engine backend
/// when one is forced.
fn test_env(cmd: &mut Command, path_first: &str, backend: Option<&str>) {
    cmd.env_clear();
    cmd.env("PATH", format!("{path_first}/usr/local/bin:/usr/bin:/bin"));
    cmd.env("LC_ALL", current_locale());
    cmd.env("TZ", "UTC");
    cmd.env("HOME", "/tmp");
    if let Some(b) = backend {
        cmd.env("RINGIO_BACKEND", b);
    }
}

/// Replaces the program-name prefix of each stderr line so ours and GNU's
/// can be compared (`lsr: x` vs `ls: x`).
pub fn normalize_stderr(err: &[u8], ours: &str, gnu: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in err.split_inclusive(|&b| b == b'\n') {
        if let Some(rest) = line.strip_prefix(format!("{ours}:").as_bytes()) {
            out.extend_from_slice(gnu.as_bytes());
            out.push(b':');
            out.extend_from_slice(rest);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// Runs every case even when some fail, then reports all failures (and the
/// pass count) at once, so one run shows every deviation.
pub struct Cases {
    name: &'static str,
    passed: usize,
    failed: Vec<String>,
}

impl Cases {
    pub fn new(name: &'static str) -> Cases {
        Cases { name, passed: 0, failed: Vec::new() }
    }

    pub fn run<F: FnOnce() + std::panic::UnwindSafe>(&mut self, f: F) {
        match std::panic::catch_unwind(f) {
            Ok(()) => self.passed += 1,
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                self.failed.push(msg.chars().take(3000).collect());
            }
        }
    }

    /// Cases run so far.
    pub fn count(&self) -> usize {
        self.passed + self.failed.len()
    }

    pub fn finish(self) {
        eprintln!("{}: {} passed, {} failed", self.name, self.passed, self.failed.len());
        if !self.failed.is_empty() {
            panic!(
                "{}: {} of {} cases differ from GNU:\n\n{}",
                self.name,
                self.failed.len(),
                self.count(),
                self.failed.join("\n==========\n")
            );
        }
    }
}

/// What a comparison checks beyond stdout and the exit code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Stderr {
    /// Both empty or both non-empty.
    Presence,
    /// Byte-identical after the program name is normalized.
    Exact,
}

/// Runs our `tool` under every backend and GNU's once, and asserts equal
/// stdout, equal exit status and matching stderr. Our binary is run with
/// argv[0] = the GNU name so messages are comparable byte for byte.
/// Returns GNU's output for further checks.
pub fn compare(tool: &str, run: &Run, stderr: Stderr) -> Output {
    compare_as(tool, run, stderr, Order::Exact, &|_| Ok(()))
}

/// How two outputs are lined up before they are compared.
#[derive(Clone, Copy)]
pub enum Order {
    /// Byte for byte.
    Exact,
    /// As sorted records split at `\n` or `\0` ([`sorted_records`]).
    Records,
    /// stdout as sorted records ended by the byte, stderr as sorted lines
    /// ([`sorted_records_by`]).
    Unordered(u8),
}

impl Order {
    fn stdout(self, b: &[u8]) -> Vec<Vec<u8>> {
        match self {
            Order::Exact => vec![b.to_vec()],
            Order::Records => sorted_records(b),
            Order::Unordered(sep) => sorted_records_by(b, sep),
        }
    }

    fn stderr(self, b: &[u8]) -> Vec<Vec<u8>> {
        match self {
            Order::Exact => vec![b.to_vec()],
            Order::Records => sorted_records(b),
            Order::Unordered(_) => sorted_records_by(b, b'\n'),
        }
    }

    /// What the failure messages say about stdout and stderr.
    fn words(self) -> (&'static str, &'static str) {
        match self {
            Order::Exact => ("stdout differs", "stderr differs"),
            Order::Records => ("stdout records differ", "stderr differs"),
            Order::Unordered(_) => {
                ("stdout differs (ignoring order)", "stderr differs (ignoring line order)")
            }
        }
    }
}

/// Asserts that `got` matches `want` (stderr already normalised): stdout
/// and stderr lined up as `order` says, exit status and signal equal.
pub fn assert_same(
    got: &Output,
    want: &Output,
    stderr: Stderr,
    order: Order,
    ctx: &dyn Fn() -> String,
) {
    let (out_differs, err_differs) = order.words();
    assert!(order.stdout(&got.stdout) == order.stdout(&want.stdout), "{out_differs}: {}", ctx());
    assert_eq!(got.status.code(), want.status.code(), "exit status differs: {}", ctx());
    assert_eq!(got.status.signal_code(), want.status.signal_code(), "signal differs: {}", ctx());
    match stderr {
        Stderr::Presence => assert_eq!(
            got.stderr.is_empty(),
            want.stderr.is_empty(),
            "stderr presence differs: {}",
            ctx()
        ),
        Stderr::Exact => assert!(
            order.stderr(&got.stderr) == order.stderr(&want.stderr),
            "{err_differs}: {}",
            ctx()
        ),
    }
}

/// What a failed comparison shows: the command and both sides' output.
pub fn context(what: &str, want: &Output, got: &Output) -> String {
    format!(
        "{what}\n--- gnu stdout ---\n{}\n--- ours ---\n{}\n--- gnu stderr ---\n{}\n--- ours ---\n{}",
        String::from_utf8_lossy(&want.stdout),
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stderr),
        String::from_utf8_lossy(&got.stderr)
    )
}

/// [`compare`], [`compare_sorted`] and [`compare_unordered`]: GNU's run,
/// then ours under every backend, stderr's program names normalised (under
/// setpriv GNU's argv[0], and so its message prefix, is the full path),
/// `check` run on each of our stdouts.
fn compare_as(
    tool: &str,
    run: &Run,
    stderr: Stderr,
    order: Order,
    check: &dyn Fn(&[u8]) -> Result<(), String>,
) -> Output {
    let gnu_path = Path::new(gnu(tool));
    let gnu_name = gnu_path.file_name().unwrap().to_str().unwrap();
    let mut want = run.exec(gnu_path, gnu_name, None);
    want.stderr = normalize_stderr(&want.stderr, &gnu_path.to_string_lossy(), gnu_name);
    for b in BACKENDS {
        let mut got = run.exec(&ours(tool), gnu_name, Some(b));
        got.stderr = normalize_stderr(&got.stderr, tool, gnu_name);
        let ctx = || {
            let args: Vec<_> = run.args.iter().map(|a| String::from_utf8_lossy(a)).collect();
            let env: String = run.env.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
            let l = current_locale();
            let what = format!("{tool} [{b}] LC_ALL={l} {env}args {args:?} cwd {:?}", run.cwd);
            context(&what, &want, &got)
        };
        assert_same(&got, &want, stderr, order, &ctx);
        if let Err(e) = check(&got.stdout) {
            panic!("{e}: {}", ctx());
        }
    }
    want
}

trait SignalCode {
    fn signal_code(&self) -> Option<i32>;
}

impl SignalCode for std::process::ExitStatus {
    fn signal_code(&self) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        self.signal()
    }
}

/// Whether a command exists on PATH.
pub fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Builds a tree from a compact spec, relative to `root`:
/// `d:path` directory, `f:path:content` file, `l:path:target` symlink,
/// `h:path:existing` hard link, `p:path` FIFO, `m:path:octal` chmod.
pub fn build_tree(root: &Path, spec: &[&str]) {
    for line in spec {
        let mut parts = line.splitn(3, ':');
        let kind = parts.next().unwrap();
        let rel = parts.next().unwrap();
        let arg = parts.next().unwrap_or("");
        let p = root.join(rel);
        match kind {
            "d" => std::fs::create_dir_all(&p).unwrap(),
            "f" => std::fs::write(&p, arg.as_bytes()).unwrap(),
            "l" => std::os::unix::fs::symlink(arg, &p).unwrap(),
            "h" => std::fs::hard_link(root.join(arg), &p).unwrap(),
            "p" => {
                let st = Command::new("mkfifo").arg(&p).status().unwrap();
                assert!(st.success());
            }
            "m" => chmod(&p, u32::from_str_radix(arg, 8).unwrap()),
            other => panic!("bad tree spec kind {other}"),
        }
    }
}

/// A file name from raw bytes (for newlines and invalid UTF-8).
pub fn raw_name(root: &Path, name: &[u8]) -> PathBuf {
    root.join(os(name))
}

/// Names and shell patterns at the corners of fnmatch (malformed brackets,
/// unknown classes, `[=c=]`, a trailing backslash, leading dots, case), for
/// the -I/--hide, -name/-path and --exclude cases of each tool.
pub const GLOB_NAMES: &[&str] =
    &["f:a\\:", "f:x:", "f:X:", "f:[x:", "f:[[:", "f:.h:", "f:=:", "f:b]:", "f:-:"];
pub const GLOB_PATTERNS: &[&str] = &[
    "a\\",
    "[[:foo:]x]",
    "[x[:foo:]]",
    "[![:foo:]]",
    "[[=x=]]",
    "[[.x.]]",
    "[[:foo:]",
    "[!x]*",
    "[^x]*",
    "?",
    "*",
    "[.]h",
    "\\.h",
    ".*",
    "[",
    "[[",
    "[x",
    "[]]",
    "b]",
    "[a-]",
    "[[:upper:]]",
    "[a-Z]",
    "[Z-a]",
    "[X-x]",
    "\\[*",
    "*\\",
    "[\\]]",
    "[!]]*",
];

/// Splits output into records on `\n` and `\0` and sorts them, for tools
/// whose parallel output order may legitimately differ from GNU's.
pub fn sorted_records(out: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = out.split(|&b| b == b'\n' || b == 0).map(<[u8]>::to_vec).collect();
    v.sort();
    v
}

/// Like [`compare`], but stdout (and, with [`Stderr::Exact`], stderr) are
/// compared as sorted record sets: for `lfind`'s parallel walk, where the
/// order of records between subtrees is unspecified.
pub fn compare_sorted(tool: &str, run: &Run, stderr: Stderr) -> Output {
    compare_as(tool, run, stderr, Order::Records, &|_| Ok(()))
}

/// Splits output into records ended by `sep` (a last unterminated record
/// counts too) and sorts them, for order-insensitive comparison.
pub fn sorted_records_by(b: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = b.split_inclusive(|&c| c == sep).map(|r| r.to_vec()).collect();
    v.sort();
    v
}

/// Like [`compare`], for tools whose parallel output may come in another
/// order (du's sibling subtrees, messages from several threads): stdout
/// records (ended by `sep`) and stderr lines are compared as multisets,
/// the exit status exactly. `check` runs on each of our stdouts (e.g.
/// [`post_order`]) and returns what is wrong with it. Returns GNU's output.
pub fn compare_unordered(
    tool: &str,
    run: &Run,
    stderr: Stderr,
    sep: u8,
    check: &dyn Fn(&[u8]) -> Result<(), String>,
) -> Output {
    compare_as(tool, run, stderr, Order::Unordered(sep), check)
}

/// For du-style output of ONE operand (records ended by `sep`, the name
/// after `fields` tab-separated fields): checks that no directory's record
/// comes before the record of anything inside it.
pub fn post_order(out: &[u8], sep: u8, fields: usize) -> Result<(), String> {
    let mut printed: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    for rec in out.split(|&c| c == sep).filter(|r| !r.is_empty()) {
        let mut name = rec;
        for _ in 0..fields {
            let Some(t) = name.iter().position(|&c| c == b'\t') else { break };
            name = &name[t + 1..];
        }
        if name == b"total" {
            continue;
        }
        // Every ancestor: each prefix ending before (or at) a '/'.
        for (i, &c) in name.iter().enumerate() {
            if c == b'/' && i > 0 {
                for anc in [&name[..i], &name[..=i]] {
                    if printed.contains(anc) {
                        return Err(format!(
                            "{:?} printed before its descendant {:?}",
                            String::from_utf8_lossy(anc),
                            String::from_utf8_lossy(name)
                        ));
                    }
                }
            }
        }
        printed.insert(name.to_vec());
    }
    Ok(())
}

/// Where [`run_script`] runs: `bin/` holds the shim, `work/` is the cwd.
pub struct ScriptDir {
    pub dir: TempDir,
}

impl ScriptDir {
    pub fn work(&self) -> PathBuf {
        self.dir.join("work")
    }
}

/// Runs `sh -c script` in a fresh directory, with the GNU name of `tool`
/// (e.g. `cat`) first on PATH as a symlink to ours (`ours = true`) or to
/// GNU's, so both are invoked identically and name themselves alike in
/// messages. `setup` fills `work/` (the cwd) first, so scripts that modify
/// files start from the same state every run. Runs as `nobody` when
/// `unprivileged`. Tests that need redirections (`>> f`, `> /dev/full`,
/// `| head`, closed descriptors) use this instead of [`Run`].
pub fn run_script(
    tool: &str,
    script: &str,
    setup: &dyn Fn(&Path),
    ours_: bool,
    backend: Option<&str>,
    unprivileged: bool,
) -> (Output, ScriptDir) {
    let sd = ScriptDir { dir: TempDir::new("script") };
    let bin = sd.dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::create_dir(sd.work()).unwrap();
    chmod(&sd.work(), 0o755);
    let gnu_path = Path::new(gnu(tool));
    let name = gnu_path.file_name().unwrap();
    let target = if ours_ { ours(tool) } else { gnu_path.to_path_buf() };
    std::os::unix::fs::symlink(target, bin.join(name)).unwrap();
    setup(&sd.work());
    let mut cmd = if unprivileged { as_nobody() } else { Command::new("sh") };
    if unprivileged {
        cmd.arg("sh");
    }
    cmd.args(["-c", script]);
    test_env(&mut cmd, &format!("{}:", bin.display()), backend);
    cmd.current_dir(sd.work());
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = cmd.output().unwrap_or_else(|e| panic!("spawn sh: {e}"));
    (out, sd)
}

/// [`run_script`] with GNU's tool, then ours under every backend: equal
/// stdout, exit status, and stderr (exactly, or just present/absent).
/// Returns GNU's output for further checks.
pub fn compare_script(
    tool: &str,
    script: &str,
    setup: &dyn Fn(&Path),
    stderr: Stderr,
    unprivileged: bool,
) -> Output {
    let (want, _d) = run_script(tool, script, setup, false, None, unprivileged);
    for b in BACKENDS {
        let (got, _d) = run_script(tool, script, setup, true, Some(b), unprivileged);
        let l = current_locale();
        let ctx = || context(&format!("{tool} [{b}] LC_ALL={l} script {script:?}"), &want, &got);
        assert_same(&got, &want, stderr, Order::Exact, &ctx);
    }
    want
}

/// Tests that change kernel-wide state other tests could observe (the
/// fault suite sets `kernel.io_uring_disabled` for a moment) hold this
/// exclusively; tests that count syscalls, which would take a silent
/// io_uring fallback for a regression, hold it shared.
pub static KERNEL_STATE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Shared hold of [`KERNEL_STATE`] (a poisoned lock still serialises).
pub fn kernel_state_shared() -> std::sync::RwLockReadGuard<'static, ()> {
    ringio::sync::read(&KERNEL_STATE)
}

/// Exclusive hold of [`KERNEL_STATE`].
pub fn kernel_state_exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    ringio::sync::write(&KERNEL_STATE)
}

/// The xtask binary next to ours, built if it is not there yet (a plain
/// `cargo test --test integration` does not build other packages).
pub fn xtask_bin() -> Option<PathBuf> {
    let bin_dir = ours("lsr").parent()?.to_path_buf();
    let exe = bin_dir.join("xtask");
    if !exe.exists() {
        let profile = match bin_dir.file_name()?.to_str()? {
            "debug" => "dev".to_string(),
            p => p.to_string(),
        };
        let st = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "xtask", "--bin", "xtask", "--profile", &profile])
            .status()
            .ok()?;
        if !st.success() {
            return None;
        }
    }
    exe.exists().then_some(exe)
}

/// The locales the differential suites run in: the two glibc builds in and
/// three that `cargo xtask test` generates (GNU's output differs in each:
/// collation, dates, numbers, messages, quote marks).
pub const LOCALES: [&str; 5] = ["C", "C.UTF-8", "en_US.UTF-8", "de_DE.UTF-8", "ja_JP.UTF-8"];

/// A prerequisite is missing: under `CI=true` (where `cargo xtask test` was
/// meant to install it) that fails the test; elsewhere the skip is printed
/// and logged (see [`skipped`]).
pub fn prerequisite_missing(test: &str, what: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {what} (cargo xtask test installs it; CI=true makes a skip a failure)");
    }
    skipped(test, what);
}

/// Whether command `cmd` is installed; when it is not, test `test` is
/// reported as unable to run without it ([`prerequisite_missing`]).
pub fn require(cmd: &str, test: &str) -> bool {
    if have(cmd) {
        return true;
    }
    prerequisite_missing(test, cmd);
    false
}

/// `test` (or a part of it) did not run, for a reason no installation
/// cures (not root, no SELinux, no io_uring in this kernel…). A passing
/// test's stderr is hidden, so besides printing it the skip is appended to
/// the file `RINGUTILS_TEST_SKIP_LOG` names: `cargo xtask test` sets it and
/// lists the skips after the run.
pub fn skipped(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: {why}");
    if let Some(path) = std::env::var_os("RINGUTILS_TEST_SKIP_LOG") {
        use std::io::Write;
        let f = std::fs::OpenOptions::new().create(true).append(true).open(path);
        if let Ok(mut f) = f {
            // One write per line: lines of parallel tests don't interleave.
            let _ = f.write_all(format!("{test}: {why}\n").as_bytes());
        }
    }
}

/// Whether glibc has `name` (C and POSIX always; C.UTF-8 is built in).
pub fn locale_installed(name: &str) -> bool {
    use std::sync::OnceLock;
    static LIST: OnceLock<Vec<String>> = OnceLock::new();
    let norm = |s: &str| s.to_ascii_lowercase().replace("utf-8", "utf8");
    let list = LIST.get_or_init(|| {
        Command::new("locale")
            .arg("-a")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().map(norm).collect())
            .unwrap_or_default()
    });
    name == "C" || name == "POSIX" || list.contains(&norm(name))
}

/// The [`LOCALES`] installed here; each missing one is reported through
/// [`prerequisite_missing`] (a failure under CI).
pub fn locales(test: &str) -> Vec<&'static str> {
    LOCALES
        .iter()
        .copied()
        .filter(|l| {
            let ok = locale_installed(l);
            if !ok {
                prerequisite_missing(test, &format!("locale {l} is not installed"));
            }
            ok
        })
        .collect()
}

/// Runs `program` (seeing `argv0` as its name) with `run`'s arguments,
/// environment and cwd under a pseudo-terminal (util-linux `script`), and
/// returns what the terminal received (`\n` shown as `\r\n`): for what
/// depends on stdout being a terminal. The command line goes through
/// bash, not /bin/sh: dash's `exec` has no `-a`, and an `exec -a` that
/// fails prints the same error for GNU's tool and ours, which would
/// compare equal. `stdin` and `unprivileged` are not supported here.
pub fn exec_on_tty(run: &Run, program: &Path, argv0: &str, backend: Option<&str>) -> Output {
    assert!(
        run.stdin.is_none() && !run.unprivileged,
        "exec_on_tty: stdin/unprivileged unsupported"
    );
    let quote = |out: &mut Vec<u8>, s: &[u8]| {
        out.push(b'\'');
        for &b in s {
            if b == b'\'' {
                out.extend_from_slice(b"'\\''");
            } else {
                out.push(b);
            }
        }
        out.push(b'\'');
    };
    let mut line = b"exec -a ".to_vec();
    quote(&mut line, argv0.as_bytes());
    line.push(b' ');
    quote(&mut line, program.as_os_str().as_bytes());
    for a in &run.args {
        line.push(b' ');
        quote(&mut line, a);
    }
    let mut cmd = Command::new("script");
    cmd.arg("-qec").arg(os(&line)).arg("/dev/null");
    test_env(&mut cmd, "", backend);
    cmd.env("SHELL", "/bin/bash");
    cmd.env("TERM", "xterm");
    run.place(&mut cmd);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.output().unwrap_or_else(|e| panic!("spawn script: {e}"))
}

/// Fails, showing both (escaped), unless ours printed what GNU printed.
#[track_caller]
pub fn same_bytes(what: &str, want: &[u8], got: &[u8]) {
    assert!(
        got == want,
        "{what}\n--- gnu ---\n{:?}\n--- ours ---\n{:?}",
        String::from_utf8_lossy(want),
        String::from_utf8_lossy(got)
    );
}

/// A line diff of `want` (GNU) against `got` (ours) for failure messages:
/// ` ` common, `-` GNU only, `+` ours only, long runs of common lines cut
/// to the three either side of a change. Bytes that are not UTF-8 are
/// shown escaped, so invisible differences stay visible.
pub fn line_diff(want: &[u8], got: &[u8]) -> String {
    let show = |l: &[u8]| -> String {
        let mut s = String::new();
        for chunk in l.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\n' => {}
                    c if c.is_control() && c != '\t' => s.push_str(&c.escape_default().to_string()),
                    // Marks, format characters and noncharacters that
                    // would be invisible or reorder the terminal line.
                    c if matches!(c as u32, 0x300..=0x36f | 0x200b..=0x200f | 0x202a..=0x202e
                        | 0x2060..=0x206f | 0xfe00..=0xfe0f | 0xfeff | 0xfff0..=0xffff) =>
                    {
                        s.push_str(&c.escape_unicode().to_string())
                    }
                    c => s.push(c),
                }
            }
            for b in chunk.invalid() {
                s.push_str(&format!("\\x{b:02x}"));
            }
        }
        s
    };
    let a: Vec<&[u8]> = want.split_inclusive(|&b| b == b'\n').collect();
    let b: Vec<&[u8]> = got.split_inclusive(|&b| b == b'\n').collect();
    // Longest common subsequence table, from the ends (outputs are small).
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] =
                if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut ops: Vec<(char, &[u8])> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', b[j]));
            j += 1;
        } else {
            ops.push(('-', a[i]));
            i += 1;
        }
    }
    let near = |k: usize| {
        ops[k.saturating_sub(3)..(k + 4).min(ops.len())].iter().any(|(op, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, l)) in ops.iter().enumerate() {
        if *op == ' ' && !near(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  ...\n");
            skipped = false;
        }
        let end = if l.ends_with(b"\n") { "" } else { "   (no newline)" };
        out.push_str(&format!("{op} {}{end}\n", show(l)));
    }
    if skipped {
        out.push_str("  ...\n");
    }
    out
}

thread_local! {
    /// The locale [`test_env`] gives this thread's runs (C when unset):
    /// set by [`in_locale`] for the length of one test.
    static LOCALE: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
    /// Where [`soft`] records failed comparisons during [`in_locale`].
    static SOFT: std::cell::RefCell<Option<Cases>> = const { std::cell::RefCell::new(None) };
}

/// The locale this thread's runs get (`LC_ALL`): C, or [`in_locale`]'s.
pub fn current_locale() -> &'static str {
    LOCALE.get().unwrap_or("C")
}

/// The text of a caught panic.
fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs `body`, a differential test written for the C locale, with every
/// run the harness starts on this thread ([`Run::exec`], [`run_script`],
/// [`exec_on_tty`]) in locale `l` instead: GNU's and ours alike, so the
/// same cases check that what GNU prints in `l` is what we print. Runs
/// that set `LC_ALL` themselves keep theirs. Comparisons wrapped in
/// [`soft`] are all run and reported together; every failure names `l`.
/// A locale not installed is a [`prerequisite_missing`].
pub fn in_locale(test: &str, l: &'static str, body: fn()) {
    if !locale_installed(l) {
        prerequisite_missing(test, &format!("locale {l} is not installed"));
        return;
    }
    // Leaves the thread as it was even when `body` panics.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LOCALE.set(None);
            SOFT.take();
        }
    }
    let _reset = Reset;
    LOCALE.set(Some(l));
    let name: &'static str = Box::leak(format!("{test} in {l}").into_boxed_str());
    SOFT.set(Some(Cases::new(name)));
    let r = std::panic::catch_unwind(body);
    let soft = SOFT.take().expect("in_locale: soft cases gone");
    match r {
        Ok(()) => soft.finish(),
        Err(e) => {
            let mut msg = format!("[LC_ALL={l}] {}", panic_text(e.as_ref()));
            if !soft.failed.is_empty() {
                msg.push_str(&format!(
                    "\n\n(and {} earlier comparisons failed:)\n\n{}",
                    soft.failed.len(),
                    soft.failed.join("\n==========\n")
                ));
            }
            panic!("{msg}");
        }
    }
}

/// One comparison of a test that otherwise stops at its first failure:
/// under [`in_locale`] a failure is recorded and the test goes on (so one
/// run shows every case that differs in that locale); elsewhere `f` runs
/// as it is.
pub fn soft<F: FnOnce() + std::panic::UnwindSafe>(f: F) {
    match SOFT.take() {
        Some(mut c) => {
            c.run(f);
            SOFT.set(Some(c));
        }
        None => f(),
    }
}

/// For each named `#[test] fn` of the calling module (written for C), a
/// module of the same name with one test per other locale of [`LOCALES`]
/// that runs it through [`in_locale`]: `ls::listings_match_gnu::de_de`
/// is `ls::listings_match_gnu` with `LC_ALL=de_DE.UTF-8`, and the filter
/// `ls::listings_match_gnu` selects all five.
macro_rules! in_locales {
    (@each $test:ident: $($name:ident $locale:literal),*) => {$(
        #[test]
        fn $name() {
            $crate::util::in_locale(stringify!($test), $locale, super::$test);
        }
    )*};
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            $crate::util::in_locales!(@each $test:
                c_utf8 "C.UTF-8", en_us "en_US.UTF-8", de_de "de_DE.UTF-8", ja_jp "ja_JP.UTF-8");
        }
    )*};
}
pub(crate) use in_locales;

// ---------------------------------------------------------------------
// Hostile conditions (the fault suite, `tests/faults/`): a [`Run`] plus
// shell set-up and redirections, run with a deadline so a hang fails its
// case instead of blocking the suite.

/// The four tools, as (our binary, GNU's name).
pub const TOOLS: [(&str, &str); 4] =
    [("lsr", "ls"), ("lfind", "find"), ("ldu", "du"), ("lcat", "cat")];

/// The name of the GNU tool our `tool` replaces (`ls` for `lsr`).
pub fn gnu_name(tool: &str) -> &'static str {
    TOOLS.iter().find(|t| t.0 == tool).map(|t| t.1).unwrap_or_else(|| panic!("unknown {tool}"))
}

/// Commands run by [`Case::run`] (each command of each case counts once),
/// for the report.
pub static CASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The default deadline of one command: far beyond what any case needs on
/// a loaded machine; only a hang reaches it.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Which program a case runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prog {
    Gnu,
    /// Ours under a backend (`None`: the default choice).
    Ours(Option<&'static str>),
}

/// How a command ended, with what it wrote.
#[derive(Clone, Debug)]
pub struct Res {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: std::process::ExitStatus,
    pub elapsed: std::time::Duration,
}

impl Res {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.signal_code()
    }

    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// As [`assert_same`] takes it.
    pub fn output(&self) -> Output {
        Output { status: self.status, stdout: self.stdout.clone(), stderr: self.stderr.clone() }
    }

    /// Exited normally (not by a signal) and printed no panic or abort text.
    pub fn clean(&self) -> Result<(), String> {
        if let Some(s) = self.signal() {
            return Err(format!("killed by signal {s}"));
        }
        let e = self.err();
        for bad in ["panicked", "RUST_BACKTRACE", "memory allocation of", "fatal runtime error"] {
            if e.contains(bad) {
                return Err(format!("stderr has {bad:?}: {e}"));
            }
        }
        Ok(())
    }
}

/// One command line of one tool ([`Run`]: arguments, cwd, environment,
/// unprivileged), and the conditions it runs under.
#[derive(Clone)]
pub struct Case {
    /// Our binary's name (lsr, lfind, ldu, lcat).
    pub tool: &'static str,
    pub run: Run,
    /// Shell commands run (by bash) before the tool is exec'ed, e.g.
    /// `ulimit -n 16`.
    pub pre: String,
    /// Shell redirections of the exec, e.g. `>&-` or `>/dev/full`.
    pub redirect: String,
    /// stdout is a pipe whose reading end is already closed: every write
    /// fails with EPIPE (or raises SIGPIPE), with no race.
    pub stdout_broken_pipe: bool,
    /// A whole bash script instead of `PRE; exec TOOL REDIRECT`: `TOOL`
    /// in it stands for `exec -a NAME "$@"` (in a subshell in pipelines).
    pub script: Option<String>,
    pub deadline: std::time::Duration,
    /// A seccomp filter for the tool: (syscalls, errno).
    pub seccomp: Option<(Vec<u32>, i32)>,
}

impl Case {
    pub fn new<I, A>(tool: &'static str, args: I) -> Case
    where
        I: IntoIterator<Item = A>,
        A: AsRef<[u8]>,
    {
        Case {
            tool,
            run: Run::new(args),
            pre: String::new(),
            redirect: String::new(),
            stdout_broken_pipe: false,
            script: None,
            deadline: DEADLINE,
            seccomp: None,
        }
    }

    pub fn cwd(mut self, p: &Path) -> Case {
        self.run = self.run.cwd(p);
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Case {
        self.run = self.run.env(k, v);
        self
    }

    pub fn unprivileged(mut self) -> Case {
        self.run = self.run.unprivileged();
        self
    }

    pub fn pre(mut self, sh: &str) -> Case {
        if !self.pre.is_empty() {
            self.pre.push_str("; ");
        }
        self.pre.push_str(sh);
        self
    }

    pub fn redirect(mut self, r: &str) -> Case {
        self.redirect = r.into();
        self
    }

    pub fn script(mut self, s: &str) -> Case {
        self.script = Some(s.into());
        self
    }

    pub fn broken_pipe(mut self) -> Case {
        self.stdout_broken_pipe = true;
        self
    }

    pub fn seccomp(mut self, nrs: &[u32], errno: i32) -> Case {
        self.seccomp = Some((nrs.to_vec(), errno));
        self
    }

    pub fn gnu_name(&self) -> &'static str {
        gnu_name(self.tool)
    }

    /// The command, not yet spawned: `bash -c 'PRE; exec -a NAME "$@" REDIR'`
    /// (as `nobody` when unprivileged), in the environment [`Run::exec`]
    /// gives (C locale unless the run sets one).
    pub fn command(&self, prog: Prog) -> Command {
        use std::os::unix::process::CommandExt;
        let (path, backend) = match prog {
            Prog::Gnu => (PathBuf::from(gnu(self.tool)), None),
            Prog::Ours(b) => (ours(self.tool), b),
        };
        let name = self.gnu_name();
        // A broken pipe is made by bash itself: standard output into a
        // process substitution whose reader has exited (`wait` for it), so
        // no other process can hold the read end. A pipe made here would
        // be copied into children other test threads fork meanwhile, and a
        // write while one of them still held it succeeded (GNU exited 0).
        let broken = if self.stdout_broken_pipe { "exec 1> >(exec true); wait $!; " } else { "" };
        let script = match &self.script {
            Some(s) => format!("{broken}{}", s.replace("TOOL", &format!("exec -a {name} \"$@\""))),
            None => format!(
                "{broken}{}{}exec -a {name} \"$@\" {}",
                self.pre,
                if self.pre.is_empty() { "" } else { "; " },
                self.redirect
            ),
        };
        let mut cmd = if self.run.unprivileged {
            let mut c = as_nobody();
            c.arg("bash");
            c
        } else {
            Command::new("bash")
        };
        cmd.arg("-c").arg(script).arg("bash").arg(&path);
        cmd.args(self.run.args.iter().map(|a| os(a)));
        test_env(&mut cmd, "", backend);
        for (k, v) in &self.run.env {
            cmd.env(k, v);
        }
        for k in &self.run.unset {
            cmd.env_remove(k);
        }
        if let Some(d) = &self.run.cwd {
            cmd.current_dir(d);
        }
        if let Some((nrs, errno)) = &self.seccomp {
            // The filter is inherited through bash's exec by the tool.
            assert!(libcw::seccomp::deny_in_child(&mut cmd, nrs, *errno));
        }
        assert!(self.run.stdin.is_none(), "Case: stdin unsupported");
        cmd.stdin(Stdio::null());
        if self.stdout_broken_pipe {
            // Replaced by the script's own broken pipe (above).
            cmd.stdout(Stdio::null());
        } else {
            cmd.stdout(Stdio::piped());
        }
        cmd.stderr(Stdio::piped());
        // Its own process group, so a hang can be ended with everything it
        // started, and signals can be sent as a terminal would.
        cmd.process_group(0);
        cmd
    }

    /// Runs the case and waits, at most `deadline`.
    pub fn run(&self, prog: Prog) -> Res {
        CASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let child = self.command(prog).spawn().expect("spawn bash");
        let what = format!("{} {:?} ({prog:?})", self.tool, self.printable_args());
        wait_bounded(child, self.deadline, &what)
    }

    pub fn printable_args(&self) -> Vec<String> {
        self.run.args.iter().map(|a| String::from_utf8_lossy(a).into_owned()).collect()
    }
}

/// Collects a spawned child's output and waits for it, killing its process
/// group and failing the test if it outlives `deadline`.
pub fn wait_bounded(
    mut child: std::process::Child,
    deadline: std::time::Duration,
    what: &str,
) -> Res {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let start = Instant::now();
    let pgid = child.id();
    let reader = |s: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut s) = s {
                let _ = s.read_to_end(&mut v);
            }
            v
        })
    };
    let out = reader(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let err = reader(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > deadline {
            kill_group(pgid, "KILL");
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {deadline:?} (a hang); killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    // Something left in the group may hold the pipes open: end it too.
    kill_group(pgid, "KILL");
    Res { stdout: out.join().unwrap(), stderr: err.join().unwrap(), status, elapsed }
}

/// `kill -SIG -- -PGID` (quietly; the group may be gone).
pub fn kill_group(pgid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{sig}"), "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// `kill -SIG PID`.
pub fn kill_pid(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// Whether this runs as root (conditions that need it skip otherwise).
pub fn root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("Uid:")).map(|l| {
                l.split_whitespace().nth(1) == Some("0") && l.split_whitespace().nth(2) == Some("0")
            })
        })
        .unwrap_or(false)
}

/// A condition this machine can't set up (not root, no tmpfs, no
/// sysctl): a visible skip. Prerequisites that `cargo xtask test`
/// installs go through [`prerequisite_missing`] instead.
pub fn skip(case: &str, why: &str) {
    skipped(case, why);
}

/// Records as multisets of lines: for the parallel walkers, whose order
/// between subtrees is unspecified.
pub fn lines_sorted(b: &[u8]) -> Vec<Vec<u8>> {
    sorted_records_by(b, b'\n')
}

/// How `tool`'s output lines up with GNU's: byte for byte for lsr and
/// lcat, as multisets of records (NUL-ended when there are NULs,
/// newline-ended otherwise) for the parallel walkers.
pub fn tool_order(tool: &str, a: &[u8], b: &[u8]) -> Order {
    if tool == "lsr" || tool == "lcat" {
        Order::Exact
    } else if a.contains(&0) || b.contains(&0) {
        Order::Unordered(0)
    } else {
        Order::Unordered(b'\n')
    }
}

/// Whether two outputs of `tool` are the same, as [`tool_order`] lines
/// them up.
pub fn same_output(tool: &str, a: &[u8], b: &[u8]) -> bool {
    let o = tool_order(tool, a, b);
    o.stdout(a) == o.stdout(b)
}

/// Runs `case` under GNU and under ours with every backend; checks that
/// ours exit like GNU's (status or signal), print the same output (as a
/// multiset of lines for the walkers), and have stderr exactly when GNU
/// has (or exactly GNU's, with `exact_stderr`). Returns GNU's result.
pub fn compare_case(case: &Case, exact_stderr: bool) -> Res {
    let want = case.run(Prog::Gnu);
    for b in BACKENDS {
        let got = case.run(Prog::Ours(Some(b)));
        check_like(case, &want, &got, exact_stderr, b);
    }
    want
}

/// [`compare_case`]'s check of one of our runs against GNU's: no panic or
/// abort (unless GNU died the same way), then [`assert_same`] lined up by
/// [`tool_order`].
pub fn check_like(case: &Case, want: &Res, got: &Res, exact_stderr: bool, backend: &str) {
    let ctx = || {
        format!(
            "{} [{backend}] {:?} pre {:?} redirect {:?}\n--- gnu: {:?}\n{}\n--- stderr\n{}\n--- ours: {:?}\n{}\n--- stderr\n{}",
            case.tool,
            case.printable_args(),
            case.pre,
            case.redirect,
            want.status,
            clip(&want.out()),
            want.err(),
            got.status,
            clip(&got.out()),
            got.err()
        )
    };
    if let Err(e) = got.clean() {
        if want.clean().is_ok() || want.signal() != got.signal() {
            panic!("{e}: {}", ctx());
        }
    }
    let order = tool_order(case.tool, &got.stdout, &want.stdout);
    let stderr = if exact_stderr { Stderr::Exact } else { Stderr::Presence };
    assert_same(&got.output(), &want.output(), stderr, order, &ctx);
}

/// The first 3,000 bytes of a long output, for failure messages.
fn clip(s: &str) -> String {
    if s.len() > 3000 {
        let mut end = 3000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    } else {
        s.to_string()
    }
}

/// A small deterministic generator (xorshift), so generated fixtures are the
/// same every run without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `v`, uniformly.
    pub fn pick<'a, T: ?Sized>(&mut self, v: &[&'a T]) -> &'a T {
        v[(self.next() % v.len() as u64) as usize]
    }
}

/// A bind mount (`mount --bind src dst`) for one test, inside its own
/// scratch directory; unmounted on drop, panics included (declare it
/// after the directory's `TempDir`, so it drops first). `None`, after a
/// visible skip, where mounting is not possible (not root).
pub struct BindMount(PathBuf);

impl BindMount {
    pub fn new(test: &str, src: &Path, dst: &Path) -> Option<BindMount> {
        if !root() {
            skip(test, "bind mounts need root");
            return None;
        }
        let ok = Command::new("mount")
            .arg("--bind")
            .arg(src)
            .arg(dst)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            skip(test, "mount --bind failed here");
            return None;
        }
        Some(BindMount(dst.to_path_buf()))
    }
}

impl Drop for BindMount {
    fn drop(&mut self) {
        let ok = Command::new("umount").arg(&self.0).status().is_ok_and(|s| s.success());
        if !ok {
            // Still busy (a tool killed mid-walk): detach it anyway.
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

/// GNU's tests/du/long-sloop.sh fixture: directories `1` to `45`, each
/// holding a link `s` to the next, `46` a file; and `l1`, a link to `1`, a
/// starting point that puts one more link in every path.
pub fn symlink_chain(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    let n = 45;
    for i in 1..=n {
        std::fs::create_dir(t.join(i.to_string())).unwrap();
        std::os::unix::fs::symlink(format!("../{}", i + 1), t.join(format!("{i}/s"))).unwrap();
    }
    std::fs::write(t.join((n + 1).to_string()), b"foo\n").unwrap();
    std::os::unix::fs::symlink("1", t.join("l1")).unwrap();
    t
}

/// The tree of GNU's tests/du/move-dir-while-traversing.sh: `T/U/3/a/b`
/// holds 50 chains of 23 directories, and `d2` is a second operand.
fn moving_tree(d: &Path) {
    std::fs::create_dir(d.join("d2")).unwrap();
    let long = "d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z";
    for i in 1..=50 {
        std::fs::create_dir_all(d.join(format!("T/U/3/a/b/c/{i}/{long}"))).unwrap();
    }
}

/// The directories of [`moving_tree`] whose own lines (or records) are
/// compared: the operands and what lies between them and the moved one.
pub const MOVING_TOPS: [&str; 5] = ["T/U", "T/U/3", "T/U/3/a", "T/U/3/a/b", "d2"];

/// GNU's tests/du/move-dir-while-traversing.sh, for one program: a fresh
/// [`moving_tree`] under a new scratch directory, `T/U/3/a/b` renamed to
/// `T/U/3/b` the moment anything opens it, then `program` (seeing `argv0`
/// as its name) run there with `args` under `backend`. Returns its output.
pub fn run_while_moving(
    program: &Path,
    argv0: &str,
    args: &[&str],
    backend: Option<&str>,
) -> Output {
    let (watched, dest) = ("T/U/3/a/b", "T/U/3/b");
    let t = TempDir::new("moving");
    moving_tree(t.path());
    let watch = libcw::inotify::OpenWatch::new(&t.join(watched)).expect("inotify watch");
    let run = Run::new(args).cwd(t.path());
    let (from, to) = (t.join(watched), t.join(dest));
    std::thread::scope(|s| {
        let mover = s.spawn(|| {
            // Bounded: a program that never opens it must not hang the test.
            if watch.wait(20_000).unwrap_or(false) {
                std::fs::rename(&from, &to).expect("rename the watched directory");
            }
        });
        let out = run.exec(program, argv0, backend);
        let _ = mover.join();
        out
    })
}

/// Runs our `tool` with `args` (a walk of /proc) a few times under every
/// backend and fails if its stderr names anything of its own process
/// (`/proc/PID/…` with its own PID) more often than GNU's does (4 lines:
/// the descriptor its fts closes before stat'ing, under `fd`/`fdinfo`
/// and each again under `task/`; ours are rare races, a close that
/// started just before a listing).
pub fn proc_walk_quiet_about_itself(tool: &str, args: &[&str]) {
    for b in BACKENDS {
        for _ in 0..3 {
            let mut cmd = Command::new(ours(tool));
            cmd.args(args);
            test_env(&mut cmd, "", Some(b));
            cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
            let child = cmd.spawn().expect("spawn");
            let own = format!("/proc/{}/", child.id());
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let mine: Vec<&str> = err.lines().filter(|l| l.contains(&own)).collect();
            assert!(mine.len() <= 4, "{tool} [{b}] {args:?}: about itself:\n{}", mine.join("\n"));
        }
    }
}

/// Whether `p` is on ext2/3/4, whose end-of-directory marks the engine
/// knows: one getdents64 a small directory there, where elsewhere a test
/// can only print its count.
pub fn on_ext4(p: &Path) -> bool {
    let fs = Command::new("stat").args(["-f", "-c", "%T"]).arg(p).output().unwrap();
    String::from_utf8_lossy(&fs.stdout).trim() == "ext2/ext3"
}

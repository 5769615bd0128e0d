//! `cargo xtask gnu-tests`: GNU's own test suites, run against GNU's
//! binaries and then against ours.
//!
//! The reference every reviewer of a coreutils replacement runs first is
//! GNU's test suite, so it is run here with only the tool under test
//! swapped: coreutils' tests/ls, tests/du, misc/ls-*, misc/cat-* and
//! findutils' tests/find and DejaGnu suite (find/testsuite), each first
//! with GNU's binary (what passes on this machine) and then with ours
//! copied over `src/ls`, `src/du`, `src/cat` or `find/find`, every other
//! helper program GNU's. A test that GNU's binary passes and ours fails
//! or skips fails the task.
//!
//! The suites come from the Debian source packages of the installed
//! coreutils and findutils (`apt-get source`, the same versions and
//! patches as the binaries the other tests compare against), configured
//! and built once into a cache outside the clone, keyed by version
//! ([`cache_root`]), so a second run only runs tests. Normal tests run as
//! an unprivileged user made for the purpose ([`USER`]), the root-only
//! ones as root; `RUN_EXPENSIVE_TESTS` and `RUN_VERY_EXPENSIVE_TESTS` are
//! on. make is told (`-o FILE`) never to relink the swapped program or
//! regenerate what depends on it, such as its man page.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::setup;

/// The unprivileged user the normal tests run as: tests/du/inacc-dir.sh
/// and the like check what an unreadable directory does, which root
/// can't see.
const USER: &str = "ringtest";

/// What the suites need beyond the project's test packages: the Debian
/// source tools, DejaGnu for find/testsuite, pyinotify for
/// du/move-dir-while-traversing.sh, `python` for the DejaGnu list check.
const PACKAGES: &[(&str, &str)] = &[
    ("dpkg-dev", "dpkg-source"),
    ("dejagnu", "runtest"),
    ("python3-pyinotify", "/usr/lib/python3/dist-packages/pyinotify.py"),
    ("python-is-python3", "/usr/bin/python"),
    ("libcap2-bin", "setcap"),
];

/// A clean PATH for building and testing: a developer's PATH may put
/// pyenv's or cargo's programs first, and configure records what it finds.
const PATH: &str = "/usr/sbin:/usr/bin:/sbin:/bin";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pkg {
    Coreutils,
    Findutils,
}

impl Pkg {
    fn name(self) -> &'static str {
        match self {
            Pkg::Coreutils => "coreutils",
            Pkg::Findutils => "findutils",
        }
    }
}

/// One row of the report: a set of tests of one package with one of our
/// binaries in place of GNU's.
struct Group {
    /// `ls`, `du`, `cat`, `find`, `find-dejagnu`: what the command line names.
    key: &'static str,
    pkg: Pkg,
    /// Our binary, and the build-tree path of GNU's it replaces.
    ours: &'static str,
    swap: &'static str,
    /// What the build makes from the swapped program.
    man: &'static [&'static str],
    /// Which entries of the package's test list belong to the group.
    selects: fn(&str) -> bool,
    /// The DejaGnu suite instead of the automake harness.
    dejagnu: bool,
}

const GROUPS: &[Group] = &[
    Group {
        key: "ls",
        pkg: Pkg::Coreutils,
        ours: "lsr",
        swap: "src/ls",
        man: &["man/ls.1", "man/dir.1", "man/vdir.1"],
        selects: |t| {
            t.starts_with("tests/ls/")
                || t == "tests/misc/ls-misc.pl"
                || t == "tests/misc/ls-time.sh"
        },
        dejagnu: false,
    },
    Group {
        key: "du",
        pkg: Pkg::Coreutils,
        ours: "ldu",
        swap: "src/du",
        man: &["man/du.1"],
        selects: |t| t.starts_with("tests/du/"),
        dejagnu: false,
    },
    Group {
        key: "cat",
        pkg: Pkg::Coreutils,
        ours: "lcat",
        swap: "src/cat",
        man: &["man/cat.1"],
        selects: |t| t.starts_with("tests/misc/cat-"),
        dejagnu: false,
    },
    Group {
        key: "find",
        pkg: Pkg::Findutils,
        ours: "lfind",
        swap: "find/find",
        man: &[],
        selects: |t| t.starts_with("tests/find/"),
        dejagnu: false,
    },
    Group {
        key: "find-dejagnu",
        pkg: Pkg::Findutils,
        ours: "lfind",
        swap: "find/find",
        man: &[],
        selects: |_| false,
        dejagnu: true,
    },
];

/// How one test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    Fail,
    /// With the reason the test gave (`skipped test: …`).
    Skip(String),
    /// XFAIL, XPASS, ERROR, UNRESOLVED …: anything else the harness says.
    Other(String),
}

impl Outcome {
    fn word(&self) -> &str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip(_) => "skip",
            Outcome::Other(w) => w,
        }
    }
}

/// Results of one group with one binary. For the automake harness a test
/// name maps to one outcome; DejaGnu names an assertion once per
/// optimisation level (-O0..-O3), so it keeps every outcome of a name.
type Results = BTreeMap<String, Vec<Outcome>>;

struct Options {
    groups: Vec<&'static Group>,
    cache: PathBuf,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut groups = Vec::new();
    let mut cache = cache_root();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cache" => cache = PathBuf::from(it.next().ok_or("--cache needs a directory")?),
            "all" => groups.extend(GROUPS.iter()),
            g => {
                let found: Vec<&Group> = GROUPS
                    .iter()
                    .filter(|x| x.key == g || x.key.starts_with(&format!("{g}-")))
                    .collect();
                if found.is_empty() {
                    return Err(format!(
                        "unknown gnu-tests group '{g}' (ls, du, cat, find, find-dejagnu, all)"
                    ));
                }
                groups.extend(found);
            }
        }
    }
    if groups.is_empty() {
        groups.extend(GROUPS.iter());
    }
    groups.dedup_by_key(|g| g.key);
    Ok(Options { groups, cache })
}

/// Where the built suites live: `RINGUTILS_GNU_CACHE`, else
/// /var/cache/ringutils/gnu-tests (not under root's home, which the test
/// user can't enter).
fn cache_root() -> PathBuf {
    match std::env::var_os("RINGUTILS_GNU_CACHE") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from("/var/cache/ringutils/gnu-tests"),
    }
}

pub fn main(args: &[String]) -> Result<(), String> {
    let opts = parse_args(args)?;
    let start = Instant::now();
    if !is_root() {
        return unavailable("GNU's test suites need root (apt-get, a test user, bind mounts)");
    }
    setup::ensure_test_packages()?;
    setup::ensure_packages(PACKAGES)?;
    ensure_user()?;

    let mut pkgs: Vec<Pkg> = opts.groups.iter().map(|g| g.pkg).collect();
    pkgs.dedup();
    let mut trees = BTreeMap::new();
    for pkg in pkgs {
        let t = Instant::now();
        let tree = prepare(pkg, &opts.cache)?;
        eprintln!("xtask: {} suite ready in {:.0} s: {}", pkg.name(), secs(t), tree.display());
        trees.insert(pkg.name(), tree);
    }

    crate::cargo(&["build", "--release", "--bins"])?;
    let bin_dir = crate::target_dir().join("release");

    let mut report = Vec::new();
    for g in &opts.groups {
        let tree = &trees[g.pkg.name()];
        let t = Instant::now();
        let swap = Swap::new(tree, g.swap)?;
        let gnu = run_group(g, tree)?;
        let man: Vec<PathBuf> = g.man.iter().map(|m| tree.join(m)).collect();
        swap.put(&bin_dir.join(g.ours), &man)?;
        let ours = run_group(g, tree);
        // A relinked GNU binary would pass GNU's tests in our name.
        let still = swap.holds(&bin_dir.join(g.ours));
        swap.restore()?;
        let ours = ours?;
        if !still {
            return Err(format!(
                "make replaced our {} in {} during the run",
                g.ours,
                tree.display()
            ));
        }
        eprintln!("xtask: gnu-tests {}: {:.0} s", g.key, secs(t));
        report.push((*g, gnu, ours));
    }

    let (text, bad) = render(&report);
    println!("{text}");
    let out = crate::target_dir().join("gnu-tests.md");
    let _ = std::fs::write(&out, &text);
    eprintln!("xtask: gnu-tests took {:.0} s in all (table in {})", secs(start), out.display());
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "ours fails or skips {} test(s) GNU's binary passes: {}",
            bad.len(),
            bad.join(", ")
        ))
    }
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// A prerequisite is missing: a visible skip, or a failure under CI=true.
fn unavailable(why: &str) -> Result<(), String> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(why.to_string());
    }
    eprintln!("xtask: SKIPPED gnu-tests: {why}");
    Ok(())
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Creates [`USER`] when it doesn't exist (a home directory, for the tests
/// that look at $HOME).
fn ensure_user() -> Result<(), String> {
    let exists = Command::new("id").arg(USER).stdout(Stdio::null()).stderr(Stdio::null()).status();
    if exists.is_ok_and(|s| s.success()) {
        return Ok(());
    }
    run(Command::new("useradd").args(["-m", "-s", "/bin/sh", USER]), "useradd")
}

/// The installed version of a Debian package (`9.1-1`).
fn installed_version(pkg: &str) -> Result<String, String> {
    let o = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", pkg])
        .output()
        .map_err(|e| format!("dpkg-query: {e}"))?;
    let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
    if v.is_empty() {
        return Err(format!("{pkg} is not installed"));
    }
    Ok(v)
}

/// The built source tree of `pkg` at the installed version: from the cache
/// when a build there finished, else fetched, configured and built anew.
fn prepare(pkg: Pkg, cache: &Path) -> Result<PathBuf, String> {
    let version = installed_version(pkg.name())?;
    let home = cache.join(format!("{}-{version}", pkg.name()));
    let stamp = home.join("built.stamp");
    if stamp.exists() {
        if let Some(tree) = source_dir(&home, pkg) {
            return Ok(tree);
        }
    }
    eprintln!("xtask: building GNU {} {version}'s test suite in {}", pkg.name(), home.display());
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).map_err(|e| format!("{}: {e}", home.display()))?;
    ensure_deb_src()?;
    let env = [("DEBIAN_FRONTEND", "noninteractive")];
    run(
        Command::new("apt-get").args(["build-dep", "-y", "-q", pkg.name()]).envs(env),
        "apt-get build-dep",
    )?;
    // `pkg=version`: the source of exactly the binary installed.
    run(
        Command::new("apt-get")
            .args(["source", "-q", &format!("{}={version}", pkg.name())])
            .current_dir(&home)
            .envs(env),
        "apt-get source",
    )?;
    let tree = source_dir(&home, pkg).ok_or("apt-get source left no source directory")?;
    if pkg == Pkg::Findutils {
        // Debian's patch touches configure.ac only; with its old timestamp
        // back, make doesn't want to rerun aclocal-1.16 and autoconf.
        let ac = tree.join("configure.ac");
        run(Command::new("touch").arg("-r").arg(tree.join("aclocal.m4")).arg(&ac), "touch")?;
    }
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get()).to_string();
    run(
        Command::new("./configure")
            .arg("-q")
            .current_dir(&tree)
            .env("PATH", PATH)
            // coreutils' configure refuses root without it.
            .env("FORCE_UNSAFE_CONFIGURE", "1"),
        &format!("{} configure", pkg.name()),
    )?;
    run(
        Command::new("make").args(["-s", "-j", &jobs]).current_dir(&tree).env("PATH", PATH),
        &format!("{} make", pkg.name()),
    )?;
    // The unprivileged test runs write their logs and scratch dirs here.
    run(Command::new("chown").args(["-R", &format!("{USER}:{USER}")]).arg(&home), "chown")?;
    std::fs::write(&stamp, b"").map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(tree)
}

/// The directory `apt-get source` unpacked (`coreutils-9.1`).
fn source_dir(home: &Path, pkg: Pkg) -> Option<PathBuf> {
    std::fs::read_dir(home).ok()?.flatten().map(|e| e.path()).find(|p| {
        p.is_dir()
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{}-", pkg.name())))
    })
}

/// Adds a `deb-src` entry for every configured `deb` one when apt knows no
/// source packages (Debian's images ship without them).
fn ensure_deb_src() -> Result<(), String> {
    let knows = Command::new("apt-get")
        .args(["source", "--print-uris", "-q", "coreutils"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if knows {
        return Ok(());
    }
    let mut out = String::new();
    let dir = Path::new("/etc/apt/sources.list.d");
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(rd) = std::fs::read_dir(dir) {
        files.extend(rd.flatten().map(|e| e.path()));
    }
    files.sort();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        match f.extension().and_then(|e| e.to_str()) {
            Some("sources") => out.push_str(&deb822_sources(&text)),
            _ if f.ends_with("sources.list") || f.extension().is_some_and(|e| e == "list") => {
                for l in text.lines() {
                    if let Some(rest) = l.trim_start().strip_prefix("deb ") {
                        let _ = writeln!(out, "deb-src {rest}");
                    }
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        return Err("no deb entries in /etc/apt to mirror as deb-src".into());
    }
    let target = dir.join("ringutils-deb-src.list");
    eprintln!("xtask: adding source entries: {}", target.display());
    // One-line form for both inputs: deb822's fields become options.
    std::fs::write(&target, out).map_err(|e| format!("{}: {e}", target.display()))?;
    run(
        Command::new("apt-get").args(["update", "-q"]).env("DEBIAN_FRONTEND", "noninteractive"),
        "apt-get update",
    )
}

/// `deb-src` lines for the `Types: deb` stanzas of a deb822 file.
fn deb822_sources(text: &str) -> String {
    let mut out = String::new();
    for stanza in text.split("\n\n") {
        let field = |name: &str| {
            stanza.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim().eq_ignore_ascii_case(name)).then(|| v.trim().to_string())
            })
        };
        let types = field("Types").unwrap_or_default();
        if !types.split_whitespace().any(|t| t == "deb")
            || types.split_whitespace().any(|t| t == "deb-src")
            || field("Enabled").is_some_and(|v| v == "no")
        {
            continue;
        }
        let (Some(uris), Some(suites)) = (field("URIs"), field("Suites")) else { continue };
        let comps = field("Components").unwrap_or_default();
        let opts = field("Signed-By").map(|k| format!("[signed-by={k}] ")).unwrap_or_default();
        for uri in uris.split_whitespace() {
            for suite in suites.split_whitespace() {
                let _ = writeln!(out, "deb-src {opts}{uri} {suite} {comps}");
            }
        }
    }
    out
}

/// GNU's binary kept aside while ours is in its place. A run that was
/// interrupted left the copy behind: it is put back before anything runs.
struct Swap {
    target: PathBuf,
    saved: PathBuf,
}

impl Swap {
    fn new(tree: &Path, rel: &str) -> Result<Swap, String> {
        let target = tree.join(rel);
        let saved = tree.join(format!("{rel}.gnu"));
        let s = Swap { target, saved };
        if s.saved.exists() {
            s.restore()?;
        }
        copy(&s.target, &s.saved)?;
        Ok(s)
    }

    /// Puts `ours` in GNU's place, newer than everything it is linked from
    /// (make's `-o` doesn't reach the sub-makes `make check` starts, so the
    /// times must keep make from relinking GNU's over it), and the man
    /// pages made from it newer still (coreutils regenerates `man/ls.1`
    /// from `src/ls --help` when the binary is newer).
    fn put(&self, ours: &Path, man: &[PathBuf]) -> Result<(), String> {
        run(Command::new("cp").arg(ours).arg(&self.target), "cp")?;
        run(Command::new("chown").arg(format!("{USER}:{USER}")).arg(&self.target), "chown")?;
        let pages: Vec<&PathBuf> = man.iter().filter(|p| p.exists()).collect();
        if !pages.is_empty() {
            run(Command::new("touch").args(pages), "touch")?;
        }
        Ok(())
    }

    /// Whether the swapped-in file is still `ours`, byte for byte.
    fn holds(&self, ours: &Path) -> bool {
        match (std::fs::read(&self.target), std::fs::read(ours)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    fn restore(&self) -> Result<(), String> {
        std::fs::rename(&self.saved, &self.target)
            .map_err(|e| format!("restoring {}: {e}", self.target.display()))
    }
}

/// Copies with mode and times (`cp -p`), so GNU's binary comes back as
/// it was built.
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    run(Command::new("cp").arg("-p").arg(from).arg(to), "cp")
}

/// The tests of a package's automake list that the group selects, split
/// into the ones run as the test user and the root-only ones.
fn group_tests(g: &Group, tree: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let mk = tree.join("tests/local.mk");
    let text = std::fs::read_to_string(&mk).map_err(|e| format!("{}: {e}", mk.display()))?;
    let root: Vec<String> = make_list(&text, "all_root_tests");
    let mut all: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == '\\')
        .filter(|t| (g.selects)(t))
        .map(str::to_string)
        .collect();
    all.sort();
    all.dedup();
    if all.is_empty() {
        return Err(format!("no {} tests found in {}", g.key, mk.display()));
    }
    let (r, u): (Vec<String>, Vec<String>) = all.into_iter().partition(|t| root.contains(t));
    Ok((u, r))
}

/// The words of a `NAME = a \ b \ …` assignment in a makefile.
fn make_list(text: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix(name) else { continue };
        let Some(rest) = rest.trim_start().strip_prefix('=') else { continue };
        let mut cur = rest.to_string();
        loop {
            let cont = cur.trim_end().ends_with('\\');
            out.extend(cur.split_whitespace().filter(|w| *w != "\\").map(str::to_string));
            if !cont {
                break;
            }
            match lines.next() {
                Some(n) => cur = n.to_string(),
                None => break,
            }
        }
    }
    out
}

/// make, with the environment the suites expect and nothing of ours.
fn make(tree: &Path, g: &Group, as_user: bool) -> Command {
    let mut c = if as_user {
        let mut c = Command::new("setpriv");
        c.args(["--reuid", USER, "--regid", USER, "--init-groups", "make"]);
        c
    } else {
        Command::new("make")
    };
    let home = if as_user { format!("/home/{USER}") } else { "/root".to_string() };
    c.current_dir(tree)
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", home)
        .env("USER", if as_user { USER } else { "root" })
        .env("LOGNAME", if as_user { USER } else { "root" })
        .env("SHELL", "/bin/sh")
        .env("RUN_EXPENSIVE_TESTS", "yes")
        .env("RUN_VERY_EXPENSIVE_TESTS", "yes")
        // What the root-only tests drop to where they need a user.
        .env("NON_ROOT_USERNAME", USER)
        .env("NON_ROOT_GROUP", USER)
        // The swapped program is never rebuilt, nor anything made from it.
        .arg("-o")
        .arg(g.swap)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

fn run_group(g: &Group, tree: &Path) -> Result<Results, String> {
    if g.dejagnu {
        return run_dejagnu(g, tree);
    }
    let (user, root) = group_tests(g, tree)?;
    let mut results = Results::new();
    for (tests, as_user) in [(&user, true), (&root, false)] {
        if tests.is_empty() {
            continue;
        }
        // Make's exit status says only that something failed: the
        // outcomes are read from each test's .trs file.
        let _ = make(tree, g, as_user)
            .args(["check", "SUBDIRS=."])
            .arg(format!("TESTS={}", tests.join(" ")))
            .status();
        for t in tests.iter() {
            results.insert(t.clone(), vec![outcome(tree, t)]);
        }
    }
    Ok(results)
}

/// A test's outcome from the harness's `.trs` file, with the reason of a
/// skip from its `.log`.
fn outcome(tree: &Path, test: &str) -> Outcome {
    let stem = test.rsplit_once('.').map_or(test, |(s, _)| s);
    let trs = std::fs::read_to_string(tree.join(format!("{stem}.trs"))).unwrap_or_default();
    let word = trs
        .lines()
        .find_map(|l| l.strip_prefix(":test-result: "))
        .unwrap_or("NOT RUN")
        .trim()
        .to_string();
    match word.as_str() {
        "PASS" => Outcome::Pass,
        "FAIL" => Outcome::Fail,
        "SKIP" => {
            let log = std::fs::read_to_string(tree.join(format!("{stem}.log"))).unwrap_or_default();
            Outcome::Skip(skip_reason(&log))
        }
        _ => Outcome::Other(word.to_ascii_lowercase()),
    }
}

/// "skipped test: REASON" as the test printed it (the log shows it traced
/// through `printf '%s\n' '…'` too; the untraced line is the one without
/// the shell's quoting).
fn skip_reason(log: &str) -> String {
    let mut reason = None;
    for l in log.lines() {
        if let Some((_, r)) = l.split_once("skipped test: ") {
            let r = r.trim_end_matches('\'').replace("'\\''", "'");
            if !l.starts_with('+') || reason.is_none() {
                reason = Some(r);
            }
        }
    }
    reason.unwrap_or_else(|| "no reason given".into())
}

/// find/testsuite: DejaGnu's summary in find.sum, one line per assertion.
fn run_dejagnu(g: &Group, tree: &Path) -> Result<Results, String> {
    let dir = tree.join("find/testsuite");
    let sum = dir.join("find.sum");
    let _ = std::fs::remove_file(&sum);
    let _ = make(tree, g, true).args(["-C", "find/testsuite", "check"]).status();
    let text = std::fs::read_to_string(&sum).map_err(|e| format!("{}: {e}", sum.display()))?;
    let mut results = Results::new();
    for l in text.lines() {
        let Some((word, name)) = l.split_once(": ") else { continue };
        let o = match word {
            "PASS" => Outcome::Pass,
            "FAIL" => Outcome::Fail,
            "UNSUPPORTED" | "UNTESTED" => Outcome::Skip(word.to_ascii_lowercase()),
            "XFAIL" | "XPASS" | "KFAIL" | "KPASS" | "UNRESOLVED" | "ERROR" => {
                Outcome::Other(word.to_ascii_lowercase())
            }
            _ => continue,
        };
        results.entry(name.trim().to_string()).or_default().push(o);
    }
    if results.is_empty() {
        return Err(format!("{}: no results (did runtest run?)", sum.display()));
    }
    Ok(results)
}

/// "45 pass, 3 skip".
fn tally(r: &Results) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for o in r.values().flatten() {
        *counts.entry(o.word()).or_default() += 1;
    }
    let order = ["pass", "fail", "skip"];
    let mut parts: Vec<String> =
        order.iter().filter_map(|w| counts.get(w).map(|n| format!("{n} {w}"))).collect();
    parts
        .extend(counts.iter().filter(|(w, _)| !order.contains(w)).map(|(w, n)| format!("{n} {w}")));
    parts.join(", ")
}

fn label(g: &Group, r: &Results) -> String {
    let n = r.len();
    match g.key {
        "ls" => format!(
            "coreutils tests/ls ({}) + misc/ls-misc.pl, misc/ls-time.sh",
            n.saturating_sub(2)
        ),
        "du" => format!("coreutils tests/du ({n})"),
        "cat" => format!("coreutils misc/cat-* ({n})"),
        "find" => format!("findutils tests/find/*.sh ({n})"),
        _ => format!(
            "findutils find/testsuite (DejaGnu, {} assertions, -O0..-O3)",
            r.values().map(Vec::len).sum::<usize>()
        ),
    }
}

/// The table, the tests where ours differs and every skip with its reason;
/// and the tests GNU's binary passes that ours doesn't.
fn render(report: &[(&Group, Results, Results)]) -> (String, Vec<String>) {
    let mut s = String::from("| suite | GNU's own binary | ours |\n|---|---|---|\n");
    let mut bad = Vec::new();
    let mut notes = String::new();
    for (g, gnu, ours) in report {
        let _ = writeln!(s, "| {} | {} | {} |", label(g, gnu), tally(gnu), tally(ours));
        for (name, want) in gnu {
            let got = ours.get(name).cloned().unwrap_or_default();
            let passes = |v: &[Outcome]| v.iter().filter(|o| **o == Outcome::Pass).count();
            if passes(&got) < passes(want) {
                bad.push(format!("{}:{name}", g.key));
                let words: Vec<&str> = got.iter().map(Outcome::word).collect();
                let _ = writeln!(
                    notes,
                    "- {} `{name}`: GNU's passes, ours: {}",
                    g.key,
                    words.join(" ")
                );
            }
        }
        for (who, r) in [("GNU's", gnu), ("ours", ours)] {
            for (name, os) in r {
                for o in os {
                    if let Outcome::Skip(why) = o {
                        let _ = writeln!(notes, "- {} `{name}` skips with {who}: {why}", g.key);
                    }
                }
            }
        }
    }
    if !notes.is_empty() {
        s.push('\n');
        s.push_str(&notes);
    }
    (s, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_makefile_list() {
        let mk = "x = 1\nall_root_tests =\t\t\\\n  tests/a/b.sh\t\\\n  tests/ls/c.sh\n\nall_tests = \\\n  tests/z.sh\n";
        assert_eq!(make_list(mk, "all_root_tests"), ["tests/a/b.sh", "tests/ls/c.sh"]);
        assert_eq!(make_list(mk, "all_tests"), ["tests/z.sh"]);
        assert!(make_list(mk, "none").is_empty());
    }

    #[test]
    fn skip_reason_is_the_untraced_line() {
        let log = "+ printf '%s\\n' 'no-cap.sh: skipped test: your ls doesn'\\''t call capget'\n\
                   no-cap.sh: skipped test: your ls doesn't call capget\nSKIP tests/ls/no-cap.sh\n";
        assert_eq!(skip_reason(log), "your ls doesn't call capget");
        assert_eq!(skip_reason("nothing"), "no reason given");
    }

    #[test]
    fn mirrors_deb822_stanzas_as_deb_src() {
        let text =
            "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n\
                    Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n\n\
                    Types: deb deb-src\nURIs: http://x\nSuites: s\nComponents: main\n";
        assert_eq!(
            deb822_sources(text),
            "deb-src [signed-by=/usr/share/keyrings/k.gpg] http://deb.debian.org/debian bookworm main\n\
             deb-src [signed-by=/usr/share/keyrings/k.gpg] http://deb.debian.org/debian bookworm-updates main\n"
        );
    }

    #[test]
    fn a_test_gnu_passes_and_ours_does_not_is_reported() {
        let g = &GROUPS[0];
        let mut gnu = Results::new();
        let mut ours = Results::new();
        gnu.insert("tests/ls/a.sh".into(), vec![Outcome::Pass]);
        ours.insert("tests/ls/a.sh".into(), vec![Outcome::Skip("why".into())]);
        gnu.insert("tests/ls/b.sh".into(), vec![Outcome::Skip("no libcap".into())]);
        ours.insert("tests/ls/b.sh".into(), vec![Outcome::Skip("no libcap".into())]);
        let (text, bad) = render(&[(g, gnu, ours)]);
        assert_eq!(bad, ["ls:tests/ls/a.sh"]);
        assert!(text.contains("| 1 pass, 1 skip | 2 skip |"), "{text}");
        assert!(text.contains("skips with ours: why"), "{text}");
    }

    #[test]
    fn dejagnu_counts_every_level() {
        let g = &GROUPS[4];
        let mut gnu = Results::new();
        let mut ours = Results::new();
        gnu.insert("x.new".into(), vec![Outcome::Pass; 4]);
        ours.insert(
            "x.new".into(),
            vec![Outcome::Pass, Outcome::Fail, Outcome::Pass, Outcome::Pass],
        );
        let (text, bad) = render(&[(g, gnu, ours)]);
        assert_eq!(bad, ["find-dejagnu:x.new"]);
        assert!(text.contains("DejaGnu, 4 assertions"), "{text}");
        assert!(text.contains("| 4 pass | 3 pass, 1 fail |"), "{text}");
    }
}

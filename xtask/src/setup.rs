//! Installing what tests and benches need on a fresh Debian machine.

use std::process::Command;

/// Debian packages the test suite uses, with a command that proves each is
/// present. strace: syscall-budget tests; acl: `setfacl` for ls's `+` marker;
/// attr: `setfattr`; coreutils/findutils: the GNU tools compared against;
/// util-linux: `setpriv` (tests as `nobody`) and `script` (a pty);
/// man-db: `man -l` renders the generated man pages (xtask dist's test);
/// perl-base: ldu's 1,500-level tree; time: GNU `time` for peak memory in
/// the fault suite; libcap2-bin: `setcap` for ls's `ca` colour; jq: the
/// tools' JSON output is parsed by it; zsh, fish and bash-completion: the
/// installed completions load in each shell (`cargo xtask install`'s
/// test). Under `CI=true` a test whose prerequisite is missing fails
/// instead of skipping.
///
/// The FUSE tests (tests/slowfs.rs, the fault suite's misbehaving file
/// systems) need no package: `cargo xtask slowfs` speaks the protocol over
/// /dev/fuse itself and mounts with mount(2), so they need root and the
/// `fuse` kernel module (see [`ensure_fuse`]), not libfuse or fusermount.
const TEST_PACKAGES: &[(&str, &str)] = &[
    ("strace", "strace"),
    ("acl", "setfacl"),
    ("attr", "setfattr"),
    ("coreutils", "ls"),
    ("findutils", "find"),
    ("util-linux", "setpriv"),
    ("bsdutils", "script"),
    ("man-db", "man"),
    ("locales", "locale-gen"),
    ("perl-base", "perl"),
    ("time", "/usr/bin/time"),
    ("libcap2-bin", "setcap"),
    // ldu --browse's tests: a real terminal, and the peers whose export
    // format ldu writes and reads.
    ("tmux", "tmux"),
    ("ncdu", "ncdu"),
    ("gdu", "gdu"),
    ("jq", "jq"),
    ("zsh", "zsh"),
    ("fish", "fish"),
    ("bash-completion", "/usr/share/bash-completion/bash_completion"),
];

/// What the MPI build and tests need (`--features mpi`, tests/mpi.rs):
/// Open MPI's `mpirun` and headers, and libclang for `mpi-sys`'s bindgen.
/// Checked with dpkg: libclang-dev has no command to look for.
pub const MPI_PACKAGES: &[&str] = &["openmpi-bin", "libopenmpi-dev", "libclang-dev"];

fn installed(pkg: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
}

/// Installs [`MPI_PACKAGES`] where missing (about 13 s and 465 MB from a
/// fresh Debian 12); true when they are all there afterwards.
pub fn ensure_mpi() -> bool {
    let missing: Vec<&str> = MPI_PACKAGES.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return true;
    }
    if !have("apt-get") {
        eprintln!("xtask: apt-get not found; cannot install {missing:?}");
        return false;
    }
    eprintln!("xtask: installing {}", missing.join(" "));
    let env = [("DEBIAN_FRONTEND", "noninteractive")];
    let _ = Command::new("apt-get").args(["update", "-q"]).envs(env).status();
    let _ = Command::new("apt-get").args(["install", "-y", "-q"]).args(&missing).envs(env).status();
    MPI_PACKAGES.iter().all(|p| installed(p))
}

/// Loads the `fuse` module when /dev/fuse is missing (best effort: the
/// FUSE tests say what is missing, and fail under CI=true).
pub fn ensure_fuse() {
    if std::path::Path::new("/dev/fuse").exists() {
        return;
    }
    eprintln!("xtask: /dev/fuse is missing; loading the fuse module");
    let ok = Command::new("modprobe").arg("fuse").status().is_ok_and(|s| s.success());
    if !ok || !std::path::Path::new("/dev/fuse").exists() {
        eprintln!("xtask: no /dev/fuse; the FUSE tests will say so");
    }
}

/// The locales the differential suites run in besides C and C.UTF-8 (which
/// glibc builds in): GNU's output differs in each (collation, dates,
/// numbers, messages), see tests/locales.rs.
pub const TEST_LOCALES: &[&str] = &["en_US.UTF-8", "de_DE.UTF-8", "ja_JP.UTF-8"];

/// Whether `locale -a` lists `name` (glibc normalises "UTF-8" to "utf8").
fn locale_installed(name: &str) -> bool {
    let norm = |s: &str| s.to_ascii_lowercase().replace("utf-8", "utf8");
    Command::new("locale")
        .arg("-a")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| norm(l) == norm(name)))
        .unwrap_or(false)
}

/// Generates the test locales that are missing, with `localedef` (the
/// `locales` package's data; about a second each). Reports, but does not
/// fail: the locale tests say what is missing, and fail under CI=true.
pub fn ensure_locales() {
    for name in TEST_LOCALES {
        if locale_installed(name) {
            continue;
        }
        let (lang, charmap) = name.split_once('.').unwrap_or((name, "UTF-8"));
        eprintln!("xtask: generating locale {name}");
        let ok = Command::new("localedef")
            .args(["-i", lang, "-f", charmap, name])
            .status()
            .is_ok_and(|s| s.success() || locale_installed(name));
        if !ok {
            eprintln!("xtask: could not generate locale {name}; the locale tests will say so");
        }
    }
}

/// Whether `cmd` is on PATH; a path (a package's data file, not a
/// command) is looked for as a file.
fn have(cmd: &str) -> bool {
    if cmd.starts_with('/') {
        return std::path::Path::new(cmd).exists();
    }
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Installs the missing packages with apt-get (the tests run as root on the
/// CI machine); reports, but does not fail, when apt is unavailable: the
/// tests that need a missing tool skip with a message.
pub fn ensure_packages(list: &[(&str, &str)]) -> Result<(), String> {
    let missing: Vec<&str> = list.iter().filter(|(_, cmd)| !have(cmd)).map(|(p, _)| *p).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !have("apt-get") {
        eprintln!("xtask: apt-get not found; tests needing {missing:?} will be skipped");
        return Ok(());
    }
    eprintln!("xtask: installing {}", missing.join(" "));
    let ok = |c: &mut Command| c.status().is_ok_and(|s| s.success());
    let env = [("DEBIAN_FRONTEND", "noninteractive")];
    let mut install = Command::new("apt-get");
    install.args(["install", "-y", "-q", "--no-install-recommends"]).args(&missing).envs(env);
    if !ok(&mut install) {
        let _ = Command::new("apt-get").args(["update", "-q"]).envs(env).status();
        let mut again = Command::new("apt-get");
        again.args(["install", "-y", "-q", "--no-install-recommends"]).args(&missing).envs(env);
        if !ok(&mut again) {
            eprintln!("xtask: could not install {missing:?}; tests needing them will be skipped");
        }
    }
    Ok(())
}

pub fn ensure_test_packages() -> Result<(), String> {
    ensure_packages(TEST_PACKAGES)?;
    ensure_locales();
    ensure_fuse();
    Ok(())
}

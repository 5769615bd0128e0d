//! The small build (`cargo xtask install --small`, and a row of its own in
//! `cargo xtask bench --sizes`): the release profile with the standard
//! library rebuilt beside our code and every panic an immediate abort.
//!
//! Why it is a separate build and not the release profile: on stable
//! Rust, std arrives precompiled with its panic machinery, so every
//! binary carries the default panic hook's backtrace printer (gimli,
//! addr2line, rustc-demangle, miniz_oxide: ~100 KB of lsr's 1.07 MB)
//! whether or not anything can panic. Leaving it out takes std built from
//! source (`-Z build-std`) with the `immediate-abort` panic strategy,
//! which only a nightly toolchain with its `rust-src` component offers.
//! The code that walks, sorts and prints is generated as in the release
//! profile (opt-level 3, fat LTO), so the tools run as fast (callgrind,
//! 2026-12-03: user instructions within 0.5% of the release build's, fewer
//! on 10 of 11 bench rows; docs/extras.md): lsr 984 → 595 KB, lfind 881 →
//! 508 KB, lcat 549 → 218 KB.
//!
//! What is given up: a panic (a bug: I/O errors never panic) ends the
//! process with SIGABRT and no message, where the release build prints
//! the panic's location first.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The toolchain the build needs.
const TOOLCHAIN: &str = "nightly";

/// What to run when it is missing.
const GET_IT: &str = "rustup toolchain install nightly --component rust-src";

/// Where the small build's target directory goes, under ours.
const DIR: &str = "small";

/// The nightly toolchain's host triple, if a nightly with `rust-src` is
/// installed; why not otherwise.
pub fn host() -> Result<String, String> {
    let nightly = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("rustup")
            .args(["run", TOOLCHAIN, "rustc"])
            .args(args)
            .env_remove("RUSTUP_TOOLCHAIN")
            .output()
            .map_err(|e| format!("cannot run rustup ({e}): the small build needs `{GET_IT}`"))?;
        if !out.status.success() {
            return Err(format!("no {TOOLCHAIN} toolchain: the small build needs `{GET_IT}`"));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
    };
    let sysroot = nightly(&["--print", "sysroot"])?;
    if !Path::new(&sysroot).join("lib/rustlib/src/rust/library/std").is_dir() {
        return Err(format!("the {TOOLCHAIN} toolchain has no rust-src: `{GET_IT}`"));
    }
    let about = nightly(&["-vV"])?;
    about
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| format!("rustc -vV of {TOOLCHAIN} named no host"))
}

/// The small build's compiler flags.
/// - `-Cpanic=immediate-abort`: no panic machinery (see above).
/// - `-Cforce-unwind-tables=no`: with nothing to unwind, `.eh_frame` is
///   dead weight (lsr 742 → 698 KB). Debuggers and `perf --call-graph
///   dwarf` lose their unwinder on this build: profile the release one.
/// - `--cfg ringutils_small`: the crates mark their start-up code (option
///   parsing, locale and format set-up, run once per process)
///   `optimize(size)`, a nightly attribute the stable build can't see.
const RUSTFLAGS: &str = "-Zunstable-options -Cpanic=immediate-abort -Cforce-unwind-tables=no \
                         --cfg ringutils_small";

/// The cargo command line of the small build for `host`, binaries `bins`.
fn command(host: &str, target_dir: &Path, bins: &[&str]) -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", TOOLCHAIN, "cargo", "build", "--release", "--locked", "-p", "ringutils"])
        .args(["-Z", "build-std=std,panic_abort", "--target", host])
        .arg("--target-dir")
        .arg(target_dir);
    for b in bins {
        c.args(["--bin", b]);
    }
    // RUSTFLAGS rather than the profile's `panic`: the strategy is
    // unstable, and Cargo.toml must stay readable by stable cargo. With
    // --target, the flags reach the target's crates only, not build
    // scripts or proc macros.
    c.env("RUSTFLAGS", RUSTFLAGS)
        // The outer cargo's choice of toolchain must not win over ours.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("CARGO")
        .current_dir(crate::workspace_root());
    c
}

/// Builds the four tools small; returns the directory that holds them.
pub fn build() -> Result<PathBuf, String> {
    let host = host()?;
    let target_dir = crate::target_dir().join(DIR);
    let status = command(&host, &target_dir, &["lsr", "lfind", "ldu", "lcat"])
        .status()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    if !status.success() {
        return Err("the small build failed".into());
    }
    Ok(target_dir.join(host).join("release"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_rebuilds_std_and_aborts_on_panic() {
        let c = command("x86_64-unknown-linux-gnu", Path::new("/t"), &["lsr"]);
        let args: Vec<String> = c.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let line = args.join(" ");
        assert!(line.starts_with("run nightly cargo build --release --locked"), "{line}");
        assert!(line.contains("-Z build-std=std,panic_abort"), "{line}");
        assert!(line.contains("--target x86_64-unknown-linux-gnu --target-dir /t --bin lsr"));
        let flags = c
            .get_envs()
            .find(|(k, _)| *k == "RUSTFLAGS")
            .and_then(|(_, v)| v)
            .map(|v| v.to_string_lossy().into_owned());
        let flags = flags.expect("RUSTFLAGS set");
        let flags: Vec<&str> = flags.split_whitespace().collect();
        for f in ["-Cpanic=immediate-abort", "-Cforce-unwind-tables=no", "ringutils_small"] {
            assert!(flags.contains(&f), "{flags:?}");
        }
    }
}

//! `cargo xtask <task>`: the project's developer tasks.
//!
//! - `test`: installs what the tests need (Debian packages) and runs the
//!   whole test suite; this is the command README.md and `.ci/run` give.

use std::process::{Command, ExitCode};

mod setup;
mod slowfs;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let r = match task.as_str() {
        "test" => test(&rest),
        "slowfs" => slowfs::main(&rest),
        "" | "help" | "--help" | "-h" => {
            println!("usage: cargo xtask <task>\n\ntasks:\n  test [ARGS…]   install test prerequisites, then run every test (ARGS go to cargo test)");
            Ok(())
        }
        other => Err(format!("unknown task '{other}' (try: cargo xtask help)")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every test, on every engine backend: the ringio suite loops over the
/// backends itself, and the end-to-end tests run each binary once per
/// `RINGIO_BACKEND` value.
fn test(extra: &[String]) -> Result<(), String> {
    setup::ensure_test_packages()?;
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--all-targets"])
        .args(extra)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("tests failed".into());
    }
    // Doc tests are not part of --all-targets.
    let status = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--doc"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("doc tests failed".into())
    }
}

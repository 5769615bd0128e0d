//! What the tools do beyond GNU (README's "beyond GNU" rows,
//! docs/extras.md), end to end and on every engine backend, checked
//! against GNU's tools wherever they can say what is right: `lsr --tree`
//! row by row against `ls -ld` and each directory's order against `ls`,
//! the JSON of the three tools (parsed by jq) field by field against
//! `stat`, `du` and `find -printf`, ldu's progress line on a terminal,
//! the options' messages and abbreviations, and what `cargo xtask
//! install` puts where man and the shells look.

mod install;
mod json;
mod options;
mod progress;
mod tree;

use std::path::Path;
use std::process::Output;

use crate::util::{self, Run};

/// Runs our `tool` with `args` in `dir` (C locale, TZ=UTC, the test
/// environment of `util::Run`) on `backend`, with `env` added.
pub fn run(tool: &str, dir: &Path, args: &[&str], backend: &str, env: &[(&str, &str)]) -> Output {
    let mut r = Run::new(args).cwd(dir);
    for (k, v) in env {
        r = r.env(k, v);
    }
    r.exec(&util::ours(tool), tool, Some(backend))
}

/// GNU's `tool` (ls, du, find, stat…) with `args` in `dir`, in the same
/// environment.
pub fn gnu(tool: &str, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut r = Run::new(args).cwd(dir);
    for (k, v) in env {
        r = r.env(k, v);
    }
    r.exec(Path::new(&format!("/usr/bin/{tool}")), tool, None)
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether jq is here; a missing one is reported (a failure under CI).
pub fn have_jq(test: &str) -> bool {
    let ok = util::have("jq");
    if !ok {
        util::prerequisite_missing(test, "jq (Debian's jq) is not installed");
    }
    ok
}

/// `jq -r FILTER` over `input`: its lines. Fails the test on a parse
/// error, so output that is not JSON can't pass.
pub fn jq(filter: &str, input: &[u8]) -> Vec<String> {
    use std::io::Write;
    let mut c = std::process::Command::new("jq")
        .args(["-r", filter])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run jq");
    let mut si = c.stdin.take().unwrap();
    let data = input.to_vec();
    let w = std::thread::spawn(move || {
        let _ = si.write_all(&data);
    });
    let o = c.wait_with_output().unwrap();
    w.join().unwrap();
    assert!(
        o.status.success(),
        "jq {filter} failed: {}\non:\n{}",
        text(&o.stderr),
        text(&input[..input.len().min(4000)])
    );
    text(&o.stdout).lines().map(str::to_string).collect()
}

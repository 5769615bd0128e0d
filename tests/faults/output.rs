//! Output failures: stdout full, closed, read-only, a pipe whose reader
//! went away (SIGPIPE default or ignored), `| head -n1` on a huge listing.
//! GNU's messages and exit statuses are the reference, byte for byte.

use std::time::Duration;

use super::{every_tool_args, small_tree, Scratch};
use crate::command_lines;
use crate::util::{self, check_like, compare_case, Case, Prog, TOOLS};

/// Every tool on the small tree with stdout redirected by `redirect`.
fn every_tool(redirect: &str) {
    let t = small_tree();
    std::fs::write(t.join("ro"), b"read-only stdout\n").unwrap();
    for (tool, _) in TOOLS {
        let case = Case::new(tool, every_tool_args(tool)).cwd(t.path()).redirect(redirect);
        compare_case(&case, true);
    }
}

/// `> /dev/full`: ENOSPC on the first write.
#[test]
fn stdout_full() {
    every_tool(">/dev/full");
}

/// `>&-`: stdout closed from the start (nothing the tool opens may land
/// on descriptor 1).
#[test]
fn stdout_closed() {
    every_tool(">&-");
}

/// `1<file`: stdout open for reading only (EBADF on write).
#[test]
fn stdout_read_only() {
    every_tool("1<ro");
}

/// A pipe nobody reads any more, SIGPIPE at its default: every tool dies
/// of the signal silently, as GNU's do.
#[test]
fn broken_pipe_sigpipe_default() {
    let t = small_tree();
    for (tool, _) in TOOLS {
        let case = Case::new(tool, every_tool_args(tool)).cwd(t.path()).broken_pipe();
        let want = compare_case(&case, true);
        assert_eq!(want.signal(), Some(libc::SIGPIPE), "{tool}: GNU dies of SIGPIPE");
    }
}

/// The same with SIGPIPE ignored by the parent (`trap '' PIPE`, inherited
/// through exec): the write error is reported, with GNU's status.
#[test]
fn broken_pipe_sigpipe_ignored() {
    let t = small_tree();
    for (tool, _) in TOOLS {
        let case =
            Case::new(tool, every_tool_args(tool)).cwd(t.path()).pre("trap '' PIPE").broken_pipe();
        let want = compare_case(&case, true);
        assert_ne!(want.code(), Some(0), "{tool}: GNU reports the error");
    }
}

/// `| head -n1` on listings far bigger than a pipe holds: like GNU, each
/// tool ends by SIGPIPE as soon as head is gone, with no panic text. The
/// 20-second bound is generous (a loaded 2-core machine); the point is
/// that lcat of an endless input ends at all.
#[test]
fn head_n1_on_huge_listing() {
    let s = Scratch::new("head", "256m");
    s.dir_of_files("a-rather-long-file-name-", 100_000);
    let cases: &[(&str, &[&str])] = &command_lines::tools("faults/head_n1_on_huge_listing", 6);
    for (tool, args) in cases {
        let script = if *tool == "lcat" {
            "TOOL | head -c1 >/dev/null; exit ${PIPESTATUS[0]}"
        } else {
            "TOOL | head -n1 >/dev/null; exit ${PIPESTATUS[0]}"
        };
        let case = Case::new(tool, *args).cwd(s.path()).script(script);
        let want = case.run(Prog::Gnu);
        assert_eq!(want.code(), Some(128 + libc::SIGPIPE), "{tool} {args:?}: GNU");
        for b in util::BACKENDS {
            let got = case.run(Prog::Ours(Some(b)));
            check_like(&case, &want, &got, true, b);
            assert!(
                got.elapsed < Duration::from_secs(20),
                "{tool} {args:?} [{b}]: took {:?}",
                got.elapsed
            );
        }
    }
}

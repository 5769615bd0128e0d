//! Scale: a directory of 1,000,000 entries — lsr -1, lsr -l, lfind, ldu -s
//! print what GNU prints with a peak RSS no worse than GNU's (GNU's
//! measured in the same run, by /usr/bin/time) — and a tree 3,000 levels
//! deep (paths far beyond PATH_MAX) handled as GNU handles it.
//!
//! Each runs once, with the default backend (the backends share the
//! memory-relevant code; the differential suites cover them one by one).
//! The million files live on a tmpfs (a few seconds to create, gone at
//! unmount); without root they go to the system temp directory.

use std::path::Path;
use std::process::Stdio;

use super::{deep_chain, Scratch};
use crate::util::{self, compare_case, skip, Case, Prog};

/// Peak RSS (KiB) and status of `case` under `/usr/bin/time -f %M`, its
/// output thrown away (only the memory matters here; the output is
/// compared separately).
fn peak_rss(case: &Case, prog: Prog) -> (u64, Option<i32>) {
    let report = std::env::temp_dir().join(format!(
        "ringutils-rss-{}-{}",
        std::process::id(),
        util::CASES.load(std::sync::atomic::Ordering::Relaxed)
    ));
    // "$@" is the program and its arguments (argv[0] doesn't matter here).
    let c = case
        .clone()
        .script(&format!("exec /usr/bin/time -f %M -o {} \"$@\" >/dev/null", report.display()));
    let child = c.command(prog).stdout(Stdio::null()).spawn().expect("spawn time");
    let r = util::wait_bounded(child, util::DEADLINE, &format!("{} under time", case.tool));
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let kib = text.lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or_else(|| {
        panic!("no peak RSS from /usr/bin/time for {}: {text:?} {}", case.tool, r.err())
    });
    (kib, r.code())
}

fn make_million(dir: &Path) {
    std::fs::create_dir(dir).unwrap();
    // Names of 14 bytes, like a mail spool or cache.
    for i in 0..1_000_000u32 {
        let p = dir.join(format!("entry-{i:08}"));
        std::fs::File::create(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
    }
}

#[test]
fn million_entries_memory_no_worse_than_gnu() {
    if !Path::new("/usr/bin/time").exists() {
        util::prerequisite_missing("1M entries", "/usr/bin/time (GNU time)");
        return;
    }
    let s = Scratch::new("million", "1500m");
    if !s.is_tmpfs() {
        skip("1M entries", "no tmpfs (needs root); a million files on disk take minutes");
        return;
    }
    let d = s.join("m");
    make_million(&d);
    for (tool, args) in
        [("lsr", &["-1", "m"][..]), ("lsr", &["-l", "m"]), ("lfind", &["m"]), ("ldu", &["-s", "m"])]
    {
        let case = Case::new(tool, args).cwd(s.path());
        let (gnu, gnu_code) = peak_rss(&case, Prog::Gnu);
        let (ours, code) = peak_rss(&case, Prog::Ours(None));
        assert_eq!(gnu_code, Some(0), "GNU {tool} {args:?}");
        assert_eq!(code, Some(0), "{tool} {args:?}");
        eprintln!("{tool} {args:?}: peak RSS {ours} KiB, GNU {gnu} KiB");
        assert!(ours <= gnu, "{tool} {args:?}: peak RSS {ours} KiB > GNU's {gnu} KiB");
    }
    // The outputs themselves (order-insensitive for the walkers), once.
    for (tool, args) in [("lfind", &["m", "-name", "entry-0000099*"][..]), ("ldu", &["-s", "m"])] {
        compare_once(&Case::new(tool, args).cwd(s.path()));
    }
    let ls = Case::new("lsr", ["-1", "m"]).cwd(s.path());
    let (want, got) = (ls.run(Prog::Gnu), ls.run(Prog::Ours(None)));
    assert!(want.stdout == got.stdout, "lsr -1 of a million entries differs from GNU's");
}

/// GNU and ours (default backend) once: same status, output, messages.
fn compare_once(case: &Case) {
    let want = case.run(Prog::Gnu);
    let got = case.run(Prog::Ours(None));
    util::check_like(case, &want, &got, true, "default");
}

/// 3,000 levels (a path of ~18,000 bytes at the bottom): lfind and ldu walk
/// it all as GNU's fts does (in any walk mode); lsr -R stops where GNU ls
/// stops (opening by path: "File name too long") with GNU's messages.
/// With -L, where GNU gives up, ours goes on to the bottom.
#[test]
fn three_thousand_levels() {
    let s = Scratch::new("deep3000", "64m");
    let root_dir = deep_chain(s.path(), 3000);
    assert!(root_dir.exists());
    for (tool, args) in [
        ("lfind", &["deep", "-name", "f", "-size", "-1k"][..]),
        ("lfind", &["deep", "-depth", "-printf", "%d %f\n"]),
        ("ldu", &["-a", "deep"]),
        ("lsr", &["-R", "deep"]),
    ] {
        // Under the usual soft limit of 1024 descriptors (fewer than the
        // levels), and with the hard limit the machine gives.
        compare_case(&Case::new(tool, args).cwd(s.path()).pre("ulimit -Sn 1024"), true);
    }
    // Following symlinks (-L), GNU's fts opens directories by whole path
    // and stops with "File name too long" about 500 levels down; ours
    // keeps opening relative to an open ancestor and walks all 3,000.
    for (tool, args, lines) in
        [("lfind", &["-L", "deep"][..], 6001), ("ldu", &["-a", "-L", "deep"], 6001)]
    {
        let case = Case::new(tool, args).cwd(s.path()).pre("ulimit -Sn 1024");
        for b in util::BACKENDS {
            let got = case.run(Prog::Ours(Some(b)));
            assert_eq!(got.code(), Some(0), "{tool} {args:?} [{b}]: {}", got.err());
            assert_eq!(got.out().lines().count(), lines, "{tool} {args:?} [{b}]");
        }
    }
    if !s.is_tmpfs() {
        super::remove_tree(&root_dir);
    }
}

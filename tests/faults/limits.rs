//! Resource exhaustion: descriptors (`ulimit -n`), processes/threads
//! (`ulimit -u`), address space (`ulimit -v`).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{deep_chain, many_dirs, Scratch};
use crate::command_lines;
use crate::util::{self, compare_case, root, skip, Case, Prog, Res, TempDir};

/// 2,000 directories side by side (each with a file) and a chain 60
/// levels deep: the walkers must keep going with 16 descriptors.
fn deep_and_wide(t: &Path) {
    let wide = t.join("t/wide");
    std::fs::create_dir_all(&wide).unwrap();
    for i in 0..2000 {
        let d = wide.join(format!("w{i:04}"));
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("f"), b"x").unwrap();
    }
    deep_chain(&t.join("t"), 60);
}

/// `ulimit -n 16` (soft and hard, so nothing can raise it back): every
/// tool as GNU, in every walk mode (parallel, ordered by -depth / -L,
/// -execdir's own descriptors), stderr exactly GNU's.
#[test]
fn sixteen_descriptors_deep_and_wide() {
    let t = TempDir::new("nofile");
    deep_and_wide(t.path());
    let cases: &[(&str, &[&str])] =
        &command_lines::tools("faults/sixteen_descriptors_deep_and_wide", 8);
    for (tool, args) in cases {
        let case = Case::new(tool, *args).cwd(t.path()).pre("ulimit -n 16");
        compare_case(&case, true);
    }
    // lcat: 2,000 operands, one descriptor at a time.
    let files: Vec<String> = (0..2000).map(|i| format!("t/wide/w{i:04}/f")).collect();
    compare_case(&Case::new("lcat", &files).cwd(t.path()).pre("ulimit -n 16"), true);
}

/// A chain deeper than any descriptor limit one would set, with paths far
/// beyond PATH_MAX, under 16 descriptors: the walkers close and reopen.
#[test]
fn sixteen_descriptors_three_thousand_levels() {
    let s = Scratch::new("nofile-deep", "64m");
    deep_chain(s.path(), 3000);
    for (tool, args) in [
        ("lfind", &["deep"][..]),
        ("lfind", &["deep", "-depth", "-name", "f", "-printf", "%d\n"]),
        ("ldu", &["deep"]),
    ] {
        compare_case(&Case::new(tool, args).cwd(s.path()).pre("ulimit -n 16"), true);
    }
    if !s.is_tmpfs() {
        super::remove_tree(&s.join("deep"));
    }
}

/// Thread creation refused: `ulimit -u 1` as an unprivileged user (root
/// is exempt from RLIMIT_NPROC). The engine's pool, the walker's threads
/// and io_uring's kernel workers (io-wq, which then cancels what it was
/// given) all fail to start; every tool still does the whole job, alone.
#[test]
fn no_threads() {
    if !root() {
        skip("ulimit -u", "needs root to run the tools as an unprivileged user");
        return;
    }
    let t = Scratch::new("nproc", "128m");
    let root_dir = t.join("t");
    std::fs::create_dir(&root_dir).unwrap();
    // Big enough for the pool and the walker's stat sharing to want help.
    many_dirs(&root_dir, "d", 20, 1500);
    std::fs::write(root_dir.join("data"), vec![b'z'; 300_000]).unwrap();
    for (tool, args) in command_lines::tools("faults/no_threads", 5) {
        let case = Case::new(tool, args).cwd(t.path()).unprivileged().pre("ulimit -u 1");
        compare_case(&case, true);
    }
    // On a terminal ldu would also start its progress-line thread.
    if util::have("script") {
        let cmd = format!(
            "setpriv --reuid {id} --regid {id} --clear-groups -- bash -c 'ulimit -u 1; exec {} -s t'",
            util::ours("ldu").display(),
            id = util::NOBODY
        );
        let mut c = Command::new("script");
        c.arg("-qec").arg(cmd).arg("/dev/null").current_dir(t.path());
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let r = util::wait_bounded(c.spawn().unwrap(), util::DEADLINE, "ldu on a pty, ulimit -u 1");
        assert!(r.out().ends_with("\tt\r\n"), "ldu on a pty under ulimit -u 1: {}", r.out());
        assert!(!r.out().contains("panicked"), "{}", r.out());
    } else {
        util::prerequisite_missing("ulimit -u on a terminal", "script(1)");
    }
}

/// The smallest `ulimit -v` (KiB, to within 6%) under which `case` runs
/// GNU's tool successfully.
fn gnu_need_kib(case: &Case) -> u64 {
    let ok =
        |kib: u64| case.clone().pre(&format!("ulimit -v {kib}")).run(Prog::Gnu).code() == Some(0);
    let (mut lo, mut hi) = (1024u64, 512 << 10);
    assert!(ok(hi), "GNU fails even with 512 MiB");
    while hi - lo > hi / 16 {
        let mid = (lo + hi) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Under `ulimit -v` a few times what GNU needs (3×) on a 200,000-entry
/// directory, every tool succeeds with GNU's output; below that, down to
/// a quarter of GNU's need, each either succeeds or says "memory exhausted"
/// and exits with its failure status — never a signal (Rust's allocation
/// failure would abort).
#[test]
fn address_space_limit_200k_entries() {
    let s = Scratch::new("as-limit", "512m");
    s.dir_of_files("entry-", 200_000);
    std::fs::write(s.join("data"), vec![b'q'; 1 << 20]).unwrap();
    for (tool, args) in
        [("lsr", &["-l", "d"][..]), ("lfind", &["d"]), ("ldu", &["-a", "d"]), ("lcat", &["data"])]
    {
        let case = Case::new(tool, args).cwd(s.path());
        let need = gnu_need_kib(&case);
        let want = case.run(Prog::Gnu);
        for (num, den) in [(1, 2), (1, 1), (2, 1), (3, 1)] {
            let kib = need * num / den;
            let limited = case.clone().pre(&format!("ulimit -v {kib}"));
            // Below what the dynamic loader needs to map the program and
            // its libraries, nothing of ours runs (ld.so dies of SIGSEGV):
            // not a case.
            let start = Case::new(tool, ["--version"]).pre(&format!("ulimit -v {kib}"));
            if start.run(Prog::Ours(None)).code() != Some(0) {
                continue;
            }
            // Every backend at 3x; the default choice below it (each run
            // lists 200,000 entries).
            let backends: &[Option<&str>] = if num >= 3 * den {
                &[Some("uring"), Some("threads"), Some("sync")]
            } else {
                &[None]
            };
            for &b in backends {
                let b = b.unwrap_or("default");
                let prog = if b == "default" { Prog::Ours(None) } else { Prog::Ours(Some(b)) };
                let got = limited.run(prog);
                let ctx = format!(
                    "{tool} {args:?} [{b}] ulimit -v {kib} ({num}/{den} of GNU's {need} KiB): {:?}\n{}",
                    got.status,
                    got.err()
                );
                check_clean_or_exhausted(&got, &want, tool, &ctx);
                if num >= 3 * den {
                    assert_eq!(got.code(), Some(0), "fails at 3x GNU's need: {ctx}");
                }
            }
        }
    }
}

fn check_clean_or_exhausted(got: &Res, want: &Res, tool: &str, ctx: &str) {
    if let Err(e) = got.clean() {
        panic!("{e}: {ctx}");
    }
    if got.code() == Some(0) {
        assert!(got.stderr.is_empty(), "{ctx}");
        assert!(util::same_output(tool, &got.stdout, &want.stdout), "output differs: {ctx}");
    } else {
        let failure = if tool == "lsr" { 2 } else { 1 };
        assert_eq!(got.code(), Some(failure), "{ctx}");
        assert!(got.err().ends_with(": memory exhausted\n"), "no clear message: {ctx}");
    }
}

/// `ulimit -n 16` on a high-latency file system (slowfs, 1 ms a request),
/// where the tools otherwise keep many requests in flight: more walker
/// threads, lsr's read-ahead threads and O_PATH descriptors. They scale
/// down to what the limit allows instead of failing with EMFILE.
#[test]
fn sixteen_descriptors_on_a_slow_fs() {
    let t = TempDir::new("nofile-slow");
    let src = t.join("src");
    many_dirs(&src, "w", 20, 3);
    deep_chain(&src, 20);
    let mp = t.join("mnt");
    let Some(_m) = super::misfs::Mount::start(&src, &mp, &[], "1ms") else { return };
    for (tool, args) in
        [("lsr", &["-lR", "."][..]), ("lfind", &[".", "-size", "-1k"]), ("ldu", &["-a", "."])]
    {
        compare_case(&Case::new(tool, args).cwd(&mp).pre("ulimit -n 16"), true);
    }
}

//! lfind and ldu as MPI jobs (`--features mpi`; README "MPI"): run by
//! `mpirun -n 1, 2, 4` on differential trees and compared with GNU's tools
//! (byte for byte from 2 ranks on: rank 0 replays the walk in GNU's order;
//! one rank is the single-process tool, so as record sets, as that tool
//! is compared) and with our single-process run (as record sets: its
//! parallel walk orders subtrees freely), exit status included. Then what
//! MPI adds: hard links met by several ranks, an unreadable directory (run
//! as `nobody`), a rank that dies, the direct file outputs, one rank
//! without MPI. Compiled only with the feature; `cargo xtask test` runs it
//! after installing Open MPI where it is missing.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::command_lines;
use crate::util::{self, build_tree, sorted_records, Cases, TempDir, NOBODY};

const RANKS: [usize; 3] = [1, 2, 4];

/// Runs `mpirun -n N` of our `tool` (or the tool alone with `n == 0`), in
/// `cwd`, optionally as `nobody`, with `env` added; stdin is `stdin`.
fn run(tool: &str, n: usize, args: &[&str], cwd: &Path, opts: &RunOpts) -> Output {
    let mut cmd = if opts.unprivileged {
        let mut c = Command::new("setpriv");
        c.args(["--reuid", &NOBODY.to_string(), "--regid", &NOBODY.to_string(), "--clear-groups"]);
        c.arg("--");
        c.arg("timeout");
        c
    } else {
        Command::new("timeout")
    };
    // A hung mpirun ignores SIGTERM (docs/mpi.md, `| head`): -k.
    cmd.args(["-k", "5", "300"]);
    if n > 0 {
        cmd.args(["mpirun", "-q", "--oversubscribe", "-n", &n.to_string()]);
        if !opts.unprivileged {
            cmd.arg("--allow-run-as-root");
        }
        cmd.arg(util::ours(tool));
    } else {
        cmd.arg(util::gnu(tool));
    }
    cmd.args(args);
    cmd.env_clear();
    cmd.env("PATH", "/usr/local/bin:/usr/bin:/bin");
    cmd.env("LC_ALL", "C");
    cmd.env("TZ", "UTC");
    cmd.env("HOME", "/tmp");
    if !opts.unprivileged {
        // mpirun's session directory goes under TMPDIR: one per test
        // directory, so concurrent jobs of the same user can't clash
        // (seen: "ORTE_ERROR_LOG: Error in file …/session_dir.c").
        cmd.env("TMPDIR", cwd);
    }
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
    cmd.current_dir(cwd);
    cmd.stdin(if opts.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn mpirun");
    if let Some(data) = &opts.stdin {
        use std::io::Write;
        let mut si = child.stdin.take().unwrap();
        let data = data.clone();
        std::thread::spawn(move || {
            let _ = si.write_all(&data);
        });
    }
    let mut out = child.wait_with_output().unwrap();
    if n == 0 {
        // GNU's messages start with the path it was run by.
        out.stderr = util::normalize_stderr(&out.stderr, util::gnu(tool), gnu_name(tool));
    }
    out
}

#[derive(Default)]
struct RunOpts {
    unprivileged: bool,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
}

/// Our single-process run, for the set comparison.
fn single(tool: &str, args: &[&str], cwd: &Path, unprivileged: bool) -> Output {
    let mut r = util::Run::new(args).cwd(cwd);
    if unprivileged {
        r = r.unprivileged();
    }
    r.exec(&util::ours(tool), util::gnu(tool), None)
}

fn gnu_name(tool: &str) -> &'static str {
    util::gnu(tool).rsplit('/').next().unwrap()
}

/// Checks `mpirun -n N tool args` for every N against GNU (exactly) and
/// our single-process run (as sets), counting the cases in `cases`.
fn differential(cases: &mut Cases, tool: &'static str, args: &[&str], dir: &Path, nobody: bool) {
    differential_env(cases, tool, args, dir, nobody, &[]);
}

/// [`differential`] with `env` added to the MPI jobs' environment.
fn differential_env(
    cases: &mut Cases,
    tool: &'static str,
    args: &[&str],
    dir: &Path,
    nobody: bool,
    env: &[(&str, &str)],
) {
    let opts = RunOpts { unprivileged: nobody, ..RunOpts::default() };
    let gnu = run(tool, 0, args, dir, &opts);
    let alone = single(tool, args, dir, nobody);
    let env: Vec<(String, String)> =
        env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    for n in RANKS {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (gnu, alone, dir) = (gnu.clone(), alone.clone(), dir.to_path_buf());
        let env = env.clone();
        cases.run(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let opts = RunOpts { unprivileged: nobody, env, ..RunOpts::default() };
            let got = run(tool, n, &a, &dir, &opts);
            let what = format!("mpirun -n {n} {tool} {args:?}");
            let err = util::normalize_stderr(&got.stderr, tool, gnu_name(tool));
            if n == 1 {
                // The single-process tool: GNU's lines, in GNU's order
                // only where that tool keeps it.
                assert_eq!(
                    sorted_records(&got.stdout),
                    sorted_records(&gnu.stdout),
                    "{what}: records differ from GNU's"
                );
            } else if let Some(d) = first_difference(&got.stdout, &gnu.stdout) {
                panic!("{what}: stdout differs from GNU's: {d}");
            }
            assert_eq!(
                String::from_utf8_lossy(&err),
                String::from_utf8_lossy(&gnu.stderr),
                "{what}: stderr differs from GNU's"
            );
            assert_eq!(got.status.code(), gnu.status.code(), "{what}: exit status");
            assert_eq!(
                sorted_records(&got.stdout),
                sorted_records(&alone.stdout),
                "{what}: records differ from the single-process run's"
            );
            assert_eq!(got.status.code(), alone.status.code(), "{what}: single-process status");
        });
    }
}

/// Where two outputs part (line numbers from 1), or `None` if equal.
fn first_difference(got: &[u8], want: &[u8]) -> Option<String> {
    if got == want {
        return None;
    }
    let g: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
    let w: Vec<&[u8]> = want.split(|&b| b == b'\n').collect();
    let i = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
    let show = |v: &[&[u8]]| v.get(i).map(|l| String::from_utf8_lossy(l).into_owned());
    Some(format!(
        "line {}: ours {:?}, GNU's {:?} ({} vs {} lines)",
        i + 1,
        show(&g),
        show(&w),
        g.len(),
        w.len()
    ))
}

/// A tree with what distribution can get wrong: subtrees for several
/// ranks, one wide directory (handed out in parts of the queue), hard
/// links to one file from many directories, a file linked twice in one
/// directory, symlinks (one to a directory, one a loop under -L), odd
/// names, sizes that differ in blocks and bytes, an empty directory.
fn tree(root: &Path) {
    let mut spec: Vec<String> = vec![
        "d:t/empty".into(),
        "d:t/wide".into(),
        "f:t/shared:0123456789".into(),
        "f:t/nl\nname:x".into(),
        "d:t/sub".into(),
        "l:t/sub/up:..".into(),
        "l:t/todir:sub".into(),
        "l:t/dangling:nowhere".into(),
        "h:t/sub/twin1:t/shared".into(),
        "h:t/sub/twin2:t/shared".into(),
    ];
    for i in 0..24 {
        for j in 0..3 {
            spec.push(format!("d:t/d{i:02}/e{j}/f"));
            spec.push(format!("f:t/d{i:02}/e{j}/f/small{i}:{}", "x".repeat(i * 300 + j)));
            spec.push(format!("h:t/d{i:02}/e{j}/link:t/shared"));
        }
        spec.push(format!("f:t/d{i:02}/big:{}", "y".repeat(5000 + i * 97)));
    }
    for k in 0..600 {
        spec.push(format!("f:t/wide/w{k:04}:{}", "z".repeat(k % 7)));
    }
    let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
    build_tree(root, &spec);
}

/// `tool` with each command line of its section of command_lines/mpi.txt
/// (named after the test) on the differential tree, against GNU's tool.
fn matches_gnu(test: &'static str, tool: &'static str, count: usize) {
    let tmp = TempDir::new(test);
    tree(tmp.path());
    let mut cases = Cases::new(test);
    for args in command_lines::section(&format!("mpi/{test}"), count) {
        differential(&mut cases, tool, args, tmp.path(), false);
    }
    cases.finish();
}

#[test]
fn mpi_lfind_matches_gnu() {
    matches_gnu("mpi_lfind_matches_gnu", "lfind", 19);
}

#[test]
fn mpi_ldu_matches_gnu() {
    matches_gnu("mpi_ldu_matches_gnu", "ldu", 19);
}

/// Rank 0 holding almost no records in memory (`RINGUTILS_MPI_MEMORY`):
/// nearly every record goes to its temporary file and is read back when
/// the replay needs it, and the output is the same.
#[test]
fn mpi_records_spilled_to_a_file() {
    let tmp = TempDir::new("mpi-spill");
    tree(tmp.path());
    let mut cases = Cases::new("mpi_records_spilled_to_a_file");
    let tiny = [("RINGUTILS_MPI_MEMORY", "300")];
    let find: &[&[&str]] =
        &[&["t"], &["t", "-ls"], &["t", "-depth"], &["-L", "t"], &["t", "t/sub"]];
    for e in find {
        differential_env(&mut cases, "lfind", e, tmp.path(), false, &tiny);
    }
    let du: &[&[&str]] = &[&["-a", "t"], &["-c", "t", "t/sub"], &["-L", "-a", "t"]];
    for o in du {
        differential_env(&mut cases, "ldu", o, tmp.path(), false, &tiny);
    }
    cases.finish();
}

/// Run as `nobody`: a directory it can't read is reported as GNU does,
/// with exit status 1, and the rest is still counted and listed.
#[test]
fn mpi_unreadable_directory() {
    let tmp = TempDir::new("mpi-perm");
    build_tree(
        tmp.path(),
        &["d:t/a/b", "f:t/a/b/f:x", "d:t/c", "f:t/c/g:yy", "d:t/d/e", "m:t/a:000", "m:t/d/e:311"],
    );
    let mut cases = Cases::new("mpi_unreadable_directory");
    differential(&mut cases, "ldu", &["-a", "t"], tmp.path(), true);
    differential(&mut cases, "ldu", &["-s", "t"], tmp.path(), true);
    differential(&mut cases, "lfind", &["t"], tmp.path(), true);
    differential(&mut cases, "lfind", &["t", "-type", "d"], tmp.path(), true);
    cases.finish();
}

/// A rank that dies mid-walk fails the job: rank 0 says so, the exit
/// status is not 0, and no total is printed as if the count were complete.
#[test]
fn mpi_killed_rank_fails_loudly() {
    let tmp = TempDir::new("mpi-kill");
    tree(tmp.path());
    for n in [2, 4] {
        for (tool, args) in [("ldu", &["-c", "t"][..]), ("lfind", &["t"][..])] {
            let env = vec![("RINGUTILS_TEST_MPI_FAULT".to_string(), "die:1".to_string())];
            let got = run(tool, n, args, tmp.path(), &RunOpts { env, ..RunOpts::default() });
            let err = String::from_utf8_lossy(&got.stderr);
            assert_ne!(got.status.code(), Some(0), "{tool} -n {n}: a dead rank must fail the job");
            assert!(err.contains("the output is incomplete"), "{tool} -n {n}: stderr {err:?}");
            let out = String::from_utf8_lossy(&got.stdout);
            assert!(!out.contains("total"), "{tool} -n {n}: printed a total: {out:?}");
        }
    }
}

/// The outputs rank 0 opens itself: lfind's -fprint and ldu's
/// --output-file hold the same bytes as GNU's stdout, and a full disk is
/// an error (through mpirun's forwarding `> /dev/full` exits 0).
#[test]
fn mpi_direct_file_outputs() {
    let tmp = TempDir::new("mpi-out");
    tree(tmp.path());
    let dir = tmp.path();
    let none = RunOpts::default();
    let want = run("ldu", 0, &["-a", "t"], dir, &none);
    let want_find = run("lfind", 0, &["t"], dir, &none);
    for n in RANKS {
        let got = run("ldu", n, &["-a", "--output-file=du.out", "t"], dir, &none);
        assert_eq!(got.status.code(), Some(0), "{}", String::from_utf8_lossy(&got.stderr));
        assert!(got.stdout.is_empty());
        // One rank is the single-process tool: GNU's lines, its own order.
        let same = |got: &[u8], want: &[u8]| {
            if n == 1 {
                sorted_records(got) == sorted_records(want)
            } else {
                got == want
            }
        };
        let du_out = std::fs::read(dir.join("du.out")).unwrap();
        assert!(same(&du_out, &want.stdout), "ldu -n {n}");
        let got = run("lfind", n, &["t", "-fprint", "find.out"], dir, &none);
        assert_eq!(got.status.code(), Some(0));
        let find_out = std::fs::read(dir.join("find.out")).unwrap();
        assert!(same(&find_out, &want_find.stdout), "-fprint -n {n}");
        let full = run("ldu", n, &["--output-file=/dev/full", "t"], dir, &none);
        assert_eq!(full.status.code(), Some(1), "ldu --output-file=/dev/full -n {n}");
        assert_eq!(
            String::from_utf8_lossy(&full.stderr),
            "ldu: /dev/full: No space left on device\n"
        );
        let full = run("lfind", n, &["t", "-fprint", "/dev/full"], dir, &none);
        assert_eq!(full.status.code(), Some(1), "lfind -fprint /dev/full -n {n}");
    }
}

/// What runs on rank 0 in GNU's order: -ok reads its answers from rank
/// 0's stdin (mpirun forwards stdin there), -delete removes what GNU's
/// would, -exec runs each command in sequence.
#[test]
fn mpi_actions_run_on_rank_zero_in_order() {
    for n in RANKS {
        let tmp = TempDir::new("mpi-act");
        tree(tmp.path());
        let dir = tmp.path();
        let answers = b"y\nn\ny\n".repeat(20);
        let args = ["t/d01", "-type", "f", "-ok", "echo", "ok", "{}", ";"];
        let want = run(
            "lfind",
            0,
            &args,
            dir,
            &RunOpts { stdin: Some(answers.clone()), ..RunOpts::default() },
        );
        let got =
            run("lfind", n, &args, dir, &RunOpts { stdin: Some(answers), ..RunOpts::default() });
        assert_eq!(got.stdout, want.stdout, "-ok -n {n}");
        assert_eq!(util::normalize_stderr(&got.stderr, "lfind", "find"), want.stderr, "-ok -n {n}");
        let args = ["t", "-name", "w0*", "-exec", "echo", "{}", ";"];
        let want = run("lfind", 0, &args, dir, &RunOpts::default());
        let got = run("lfind", n, &args, dir, &RunOpts::default());
        assert_eq!(got.stdout, want.stdout, "-exec -n {n}");
        let got = run(
            "lfind",
            n,
            &["t", "-name", "small1*", "-delete", "-print"],
            dir,
            &RunOpts::default(),
        );
        assert_eq!(got.status.code(), Some(0));
        let left = run("lfind", 0, &["t", "-name", "small1*"], dir, &RunOpts::default());
        assert!(
            left.stdout.is_empty(),
            "-delete -n {n} left {:?}",
            String::from_utf8_lossy(&left.stdout)
        );
        assert!(!got.stdout.is_empty());
    }
}

/// One rank is the single-process tool: MPI is not initialised (an Open MPI
/// set up to fail `MPI_Init` doesn't matter), but for the walks that tool
/// makes ordered, which run as a job of one rank (a parallel walk replayed
/// in GNU's order) and so print GNU's bytes.
#[test]
fn mpi_one_rank() {
    let tmp = TempDir::new("mpi-one");
    tree(tmp.path());
    let dir = tmp.path();
    let broken = vec![("OMPI_MCA_pml".to_string(), "no-such-pml".to_string())];
    for (tool, args) in [("lfind", &["t"][..]), ("ldu", &["-a", "t"][..])] {
        let want = run(tool, 0, args, dir, &RunOpts::default());
        let got = run(tool, 1, args, dir, &RunOpts { env: broken.clone(), ..RunOpts::default() });
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(0), "{tool} -n 1 without MPI_Init: {err}");
        assert_eq!(sorted_records(&got.stdout), sorted_records(&want.stdout), "{tool} -n 1");
    }
    // The control: the same setting does break a job that initialises MPI.
    let got = run("lfind", 2, &["t"], dir, &RunOpts { env: broken, ..RunOpts::default() });
    assert_ne!(got.status.code(), Some(0), "lfind -n 2 with a broken MPI_Init");
    let ordered: &[(&str, &[&str])] = &[
        ("lfind", &["t", "-ls"]),
        ("lfind", &["t", "-depth", "-print"]),
        ("lfind", &["t", "-name", "small5", "-print", "-quit"]),
        ("ldu", &["-L", "-a", "t"]),
    ];
    for (tool, args) in ordered {
        let want = run(tool, 0, args, dir, &RunOpts::default());
        let got = run(tool, 1, args, dir, &RunOpts::default());
        if let Some(d) = first_difference(&got.stdout, &want.stdout) {
            panic!("mpirun -n 1 {tool} {args:?}: stdout differs from GNU's: {d}");
        }
        assert_eq!(got.status.code(), want.status.code(), "{tool} {args:?}");
    }
}

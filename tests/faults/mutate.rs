//! A tree changing during the walk: while another thread deletes,
//! recreates and renames files and directories (and swaps a directory for
//! a symlink or a file) under `t/churn`, every tool runs over `t` again and
//! again. No crash, no hang; messages only about entries that vanished;
//! every entry of the untouched `t/stable` reported; nothing printed that
//! never existed.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::command_lines;
use crate::util::{self, Case, Prog, TempDir};

/// The untouched part: its paths, as the walkers print them.
fn stable(t: &Path) -> Vec<String> {
    let mut paths = vec!["t/stable".to_string()];
    for d in 0..20 {
        let dir = format!("t/stable/s{d:02}");
        std::fs::create_dir_all(t.join(&dir)).unwrap();
        paths.push(dir.clone());
        for f in 0..25 {
            let p = format!("{dir}/keep{f:02}");
            std::fs::write(t.join(&p), b"k").unwrap();
            paths.push(p);
        }
    }
    paths
}

/// Whether `p` is a path the churn thread can ever have made.
fn churn_name(p: &str) -> bool {
    let Some(rest) = p.strip_prefix("t/churn") else { return false };
    if rest.is_empty() {
        return true;
    }
    let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let top = |s: &str| {
        let (kind, n) = s.split_at(1);
        matches!(kind, "d" | "r" | "l" | "x") && n.parse::<u32>().is_ok_and(|n| n < 8)
    };
    let leaf = |s: &str| {
        s.strip_prefix('f').is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n < 12))
            || s.strip_prefix("sub").is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n < 3))
    };
    match parts.as_slice() {
        [a] => top(a),
        [a, b] => top(a) && leaf(b),
        [a, b, c] => top(a) && b.starts_with("sub") && leaf(c),
        _ => false,
    }
}

/// Keeps changing `t/churn` until `stop`; returns how many rounds it made.
fn churn(root: &Path, stop: &AtomicBool) -> u64 {
    let c = root.join("t/churn");
    let mut i: u64 = 0;
    while !stop.load(Ordering::Relaxed) {
        let k = (i % 8) as u32;
        let d = c.join(format!("d{k}"));
        let r = c.join(format!("r{k}"));
        let l = c.join(format!("l{k}"));
        let x = c.join(format!("x{k}"));
        let _ = std::fs::create_dir(&d);
        for f in 0..12 {
            let _ = std::fs::write(d.join(format!("f{f}")), b"churn");
        }
        for s in 0..3 {
            let sub = d.join(format!("sub{s}"));
            let _ = std::fs::create_dir(&sub);
            let _ = std::fs::write(sub.join("f0"), b"");
        }
        match i % 5 {
            0 => {
                let _ = std::fs::rename(&d, &r);
            }
            1 => {
                let _ = std::fs::remove_dir_all(&r);
                let _ = std::fs::remove_dir_all(&d);
            }
            2 => {
                // A directory swapped for a symlink mid-walk: dangling, so
                // nothing written through it lands outside the churn.
                let _ = std::fs::remove_dir_all(&d);
                let _ = std::os::unix::fs::symlink("gone", &d);
                let _ = std::os::unix::fs::symlink(format!("r{k}"), &l);
            }
            3 => {
                // ... and for a plain file.
                let _ = std::fs::remove_file(&d);
                let _ = std::fs::remove_dir_all(&d);
                let _ = std::fs::write(&x, b"file now");
                let _ = std::fs::remove_file(&l);
            }
            _ => {
                let _ = std::fs::remove_file(&x);
                let _ = std::fs::remove_file(&d);
                for f in 0..12 {
                    let _ = std::fs::remove_file(r.join(format!("f{f}")));
                }
            }
        }
        i += 1;
    }
    i
}

/// The message's path (between the first pair of quotes), if any.
fn message_path(line: &str) -> Option<String> {
    let a = line.find('\'')?;
    let b = line[a + 1..].find('\'')?;
    Some(line[a + 1..a + 1 + b].to_string())
}

#[test]
fn tree_changing_during_the_walk() {
    let t = TempDir::new("mutate");
    let stable = stable(t.path());
    std::fs::create_dir_all(t.join("t/churn")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let root = t.path().to_path_buf();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || churn(&root, &stop))
    };
    let runs: &[(&str, &[&str])] = &command_lines::tools("faults/tree_changing_during_the_walk", 7);
    let expected_errors =
        ["No such file or directory", "Not a directory", "Too many levels of symbolic links"];
    let result = std::panic::catch_unwind(|| {
        for round in 0..6 {
            for (tool, args) in runs {
                for b in util::BACKENDS {
                    let case = Case::new(tool, *args).cwd(t.path());
                    let got = case.run(Prog::Ours(Some(b)));
                    let what = format!("{tool} {args:?} [{b}] round {round}");
                    if let Err(e) = got.clean() {
                        panic!("{what}: {e}");
                    }
                    assert!(matches!(got.code(), Some(0..=2)), "{what}: {:?}", got.status);
                    for line in got.err().lines() {
                        // GNU du -L words a dangling link without an errno.
                        let dangling =
                            line.starts_with("du: cannot access '") && line.ends_with('\'');
                        assert!(
                            dangling || expected_errors.iter().any(|e| line.ends_with(e)),
                            "{what}: unexpected message: {line}\n{}",
                            got.err()
                        );
                        if let Some(p) = message_path(line) {
                            assert!(
                                p.starts_with("t/churn"),
                                "{what}: message about an untouched entry: {line}"
                            );
                        }
                    }
                    let out = got.out();
                    if *tool == "lsr" {
                        // Stable directories' headers and names all appear.
                        for p in &stable {
                            let name = p.rsplit('/').next().unwrap();
                            assert!(out.contains(name), "{what}: {p} missing");
                        }
                        continue;
                    }
                    let printed: HashSet<String> = out
                        .lines()
                        .map(|l| {
                            if *tool == "ldu" {
                                l.split('\t').nth(1).unwrap_or("").to_string()
                            } else {
                                l.to_string()
                            }
                        })
                        .collect();
                    for p in &stable {
                        assert!(printed.contains(p), "{what}: {p} not reported");
                    }
                    for p in &printed {
                        let ok = p == "t" || stable.contains(p) || churn_name(p);
                        assert!(ok, "{what}: printed {p:?}, which never existed");
                    }
                }
            }
        }
    });
    stop.store(true, Ordering::Relaxed);
    let rounds = worker.join().unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
    // The tree did change under the walks (each round creates, renames,
    // swaps and deletes a directory).
    assert!(rounds > 20, "only {rounds} rounds of changes during the walks");
    eprintln!("tree_changing_during_the_walk: {rounds} rounds of changes");
}

/// A deleted working directory (`mkdir d; cd d; rmdir ../d`): getdents64
/// says ENOENT there, which POSIX and glibc's readdir (so GNU ls, find and
/// du) take as the end of the directory. GNU `ls -la` prints `total 0`,
/// `find .` prints `.`, `du` prints the directory's own blocks, all with
/// status 0: each tool must match, for every option family, on every
/// backend.
#[test]
fn deleted_working_directory() {
    let t = TempDir::new("deleted-cwd");
    let cases: &[(&'static str, &[&str])] =
        &command_lines::tools("faults/deleted_working_directory", 31);
    for (tool, args) in cases {
        // bash creates and removes `d` afresh for each run.
        let c =
            Case::new(tool, *args).cwd(t.path()).script("mkdir d && cd d && rmdir ../d && TOOL");
        let want = util::compare_case(&c, true);
        assert_eq!(want.code(), Some(0), "GNU {tool} {args:?}: {}", want.err());
    }
}

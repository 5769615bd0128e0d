//! The walker against GNU find (record sets) and du (sums), in both modes
//! and under every backend.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ringio::{Backend, Config};
use scratch::Scratch;
use walk::{dtype, Entry, Options, StatNeed, Visit, Visitor, WalkError};

fn make_tree(root: &Path) {
    for a in 0..6 {
        for b in 0..5 {
            let d = root.join(format!("a{a}/b{b}/c"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..9 {
                std::fs::write(d.join(format!("f{f}")), vec![b'x'; f * 1000]).unwrap();
                std::fs::write(root.join(format!("a{a}/b{b}/g{f}")), b"y").unwrap();
            }
        }
    }
    std::os::unix::fs::symlink("a0", root.join("link-to-a0")).unwrap();
    std::os::unix::fs::symlink("..", root.join("a1/up")).unwrap();
    std::os::unix::fs::symlink("nowhere", root.join("dangling")).unwrap();
    std::fs::create_dir(root.join("empty")).unwrap();
}

/// Collects paths; sums apparent sizes up the tree like du --apparent-size
/// -b would (files + directories' own sizes).
struct Collect {
    follow: bool,
    paths: Mutex<Vec<(Vec<u8>, usize)>>,
    left: Mutex<Vec<(Vec<u8>, u64)>>,
    errors: Mutex<Vec<WalkError>>,
    order_ok: Mutex<bool>,
}

#[derive(Default)]
struct Acc {
    bytes: AtomicU64,
}

impl Visitor for Collect {
    type Local = ();
    type Acc = Acc;
    fn local(&self) {}
    fn need_stat(&self, _: &[u8], _: u8, _: usize) -> StatNeed {
        if self.follow {
            StatNeed::Follow
        } else {
            StatNeed::Lstat
        }
    }
    fn visit(&self, _: &mut (), e: &Entry, parent: Option<&Acc>) -> Visit {
        self.paths.lock().unwrap().push((e.path.to_vec(), e.depth));
        if e.d_type != dtype::DIR {
            if let (Some(p), Some(st)) = (parent, e.stat) {
                p.bytes.fetch_add(st.stx_size, Ordering::Relaxed);
            }
        }
        Visit::Descend
    }
    fn leave(&self, _: &mut (), dir: &Entry, acc: &Acc, parent: Option<&Acc>) {
        let total = acc.bytes.load(Ordering::Relaxed) + dir.stat.map_or(0, |s| s.stx_size);
        if let Some(p) = parent {
            p.bytes.fetch_add(total, Ordering::Relaxed);
        }
        let mut left = self.left.lock().unwrap();
        // Post-order: nothing below this directory may leave after it.
        let mut prefix = dir.path.to_vec();
        prefix.push(b'/');
        if left.iter().any(|(p, _)| p == dir.path) {
            *self.order_ok.lock().unwrap() = false;
        }
        left.push((dir.path.to_vec(), total));
        let _ = prefix;
    }
    fn error(&self, _: &mut (), err: &WalkError, _: Option<&Acc>) {
        self.errors.lock().unwrap().push(err.clone());
    }
}

/// Asserts set equality, printing only the differences.
fn same(got: &BTreeSet<Vec<u8>>, want: &BTreeSet<Vec<u8>>, label: &str) {
    let show = |s: Vec<&Vec<u8>>| {
        s.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect::<Vec<_>>()
    };
    let extra = show(got.difference(want).collect());
    let missing = show(want.difference(got).collect());
    assert!(extra.is_empty() && missing.is_empty(), "{label}: extra {extra:?} missing {missing:?}");
}

fn gnu_find(args: &[&str]) -> BTreeSet<Vec<u8>> {
    let out = Command::new("find").args(args).env("LC_ALL", "C").output().unwrap();
    out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec()).collect()
}

fn run(root: &Path, follow: bool, opts: &Options) -> Collect {
    let c = Collect {
        follow,
        paths: Mutex::new(Vec::new()),
        left: Mutex::new(Vec::new()),
        errors: Mutex::new(Vec::new()),
        order_ok: Mutex::new(true),
    };
    let roots = vec![root.as_os_str().as_encoded_bytes().to_vec()];
    walk::walk(&roots, opts, &c);
    c
}

fn modes() -> Vec<(String, Options)> {
    let mut v = Vec::new();
    for b in Backend::ALL {
        for ordered in [false, true] {
            v.push((
                format!("{b:?} ordered={ordered}"),
                Options {
                    engine: Config { backend: Some(b), ..Config::default() },
                    ordered,
                    threads: 3,
                    ..Options::default()
                },
            ));
        }
    }
    v
}

#[test]
fn same_records_as_find_in_every_mode() {
    let t = Scratch::new("find");
    make_tree(&t.0);
    let root = t.0.to_str().unwrap();
    let want = gnu_find(&[root]);
    for (label, opts) in modes() {
        let c = run(&t.0, false, &opts);
        let got: BTreeSet<Vec<u8>> =
            c.paths.lock().unwrap().iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(got.len(), c.paths.lock().unwrap().len(), "{label}: duplicates");
        same(&got, &want, &label);
        assert!(c.errors.lock().unwrap().is_empty(), "{label}: {:?}", c.errors.lock().unwrap());
        assert!(*c.order_ok.lock().unwrap(), "{label}: a directory left twice");
        // Every directory left exactly once, the root last, with the same total.
        let left = c.left.lock().unwrap();
        let dirs = gnu_find(&[root, "-type", "d"]);
        assert_eq!(left.len(), dirs.len(), "{label}");
        assert_eq!(left.last().unwrap().0, root.as_bytes(), "{label}: root must leave last");
    }
}

#[test]
fn ordered_mode_matches_find_order() {
    let t = Scratch::new("order");
    make_tree(&t.0);
    let root = t.0.to_str().unwrap();
    let out = Command::new("find").arg(root).output().unwrap();
    let want: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    for b in Backend::ALL {
        let c = run(
            &t.0,
            false,
            &Options {
                engine: Config { backend: Some(b), ..Config::default() },
                ordered: true,
                ..Options::default()
            },
        );
        let got: Vec<Vec<u8>> = c.paths.lock().unwrap().iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(got, want, "{b:?}");
    }
}

#[test]
fn follow_detects_loops_and_keeps_dangling_links() {
    let t = Scratch::new("follow");
    make_tree(&t.0);
    let root = t.0.to_str().unwrap();
    let want = gnu_find(&["-L", root]);
    for (label, opts) in modes() {
        let c = run(&t.0, true, &opts);
        let got: BTreeSet<Vec<u8>> =
            c.paths.lock().unwrap().iter().map(|(p, _)| p.clone()).collect();
        same(&got, &want, &label);
        let errs = c.errors.lock().unwrap();
        assert_eq!(errs.len(), 1, "{label}: {errs:?}");
        assert!(
            matches!(&errs[0], WalkError::Loop { ancestor, .. } if ancestor == root.as_bytes()),
            "{label}"
        );
    }
}

#[test]
fn unreadable_directory_is_reported_and_still_left() {
    // SAFETY: geteuid has no preconditions.
    if libcw::euid() == 0 {
        // As root, permissions don't stop us: check the open error through a
        // directory that vanishes instead.
        eprintln!("running as root: permission case covered by the end-to-end tests as nobody");
    }
    let t = Scratch::new("missing");
    let roots = vec![t.0.join("nope").as_os_str().as_encoded_bytes().to_vec()];
    let c = Collect {
        follow: false,
        paths: Mutex::new(Vec::new()),
        left: Mutex::new(Vec::new()),
        errors: Mutex::new(Vec::new()),
        order_ok: Mutex::new(true),
    };
    walk::walk(&roots, &Options::default(), &c);
    let errs = c.errors.lock().unwrap();
    assert!(matches!(&errs[..], [WalkError::Root { errno, .. }] if *errno == walk::Errno::ENOENT));
}

#[test]
fn quit_stops_the_walk() {
    struct Q(AtomicU64);
    impl Visitor for Q {
        type Local = ();
        type Acc = ();
        fn local(&self) {}
        fn need_stat(&self, _: &[u8], _: u8, _: usize) -> StatNeed {
            StatNeed::None
        }
        fn visit(&self, _: &mut (), _: &Entry, _: Option<&()>) -> Visit {
            if self.0.fetch_add(1, Ordering::Relaxed) == 10 {
                Visit::Quit
            } else {
                Visit::Descend
            }
        }
        fn error(&self, _: &mut (), _: &WalkError, _: Option<&()>) {}
    }
    let t = Scratch::new("quit");
    make_tree(&t.0);
    let roots = vec![t.0.as_os_str().as_encoded_bytes().to_vec()];
    let q = Q(AtomicU64::new(0));
    walk::walk(&roots, &Options { ordered: true, ..Options::default() }, &q);
    assert_eq!(q.0.load(Ordering::Relaxed), 11);
    let q = Q(AtomicU64::new(0));
    walk::walk(&roots, &Options::default(), &q);
    // Parallel: other threads may finish the directory they are in.
    assert!(q.0.load(Ordering::Relaxed) < 200, "{}", q.0.load(Ordering::Relaxed));
}

/// A visitor that moves directory `from` to `to` when it visits
/// `trigger`, and keeps the directories left and the errors.
struct Mover {
    stat: StatNeed,
    trigger: Vec<u8>,
    from: PathBuf,
    to: PathBuf,
    left: Mutex<Vec<Vec<u8>>>,
    errors: Mutex<Vec<WalkError>>,
}

impl Visitor for Mover {
    type Local = ();
    type Acc = ();
    fn local(&self) {}
    fn need_stat(&self, _: &[u8], _: u8, _: usize) -> StatNeed {
        self.stat
    }
    fn visit(&self, _: &mut (), e: &Entry, _: Option<&()>) -> Visit {
        if e.path == self.trigger.as_slice() {
            std::fs::rename(&self.from, &self.to).unwrap();
        }
        Visit::Descend
    }
    fn leave(&self, _: &mut (), dir: &Entry, _: &(), _: Option<&()>) {
        self.left.lock().unwrap().push(dir.path.to_vec());
    }
    fn error(&self, _: &mut (), err: &WalkError, _: Option<&()>) {
        self.errors.lock().unwrap().push(err.clone());
    }
}

impl Mover {
    fn new(stat: StatNeed, trigger: Vec<u8>, from: PathBuf, to: PathBuf) -> Mover {
        let (left, errors) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
        Mover { stat, trigger, from, to, left, errors }
    }
}

/// A directory moved out of its parent while its subtree is walked (the
/// visitor moves it when it sees something inside): when the walk comes
/// back up from it, the walk of that root ends there, as GNU's fts_read
/// fails (`WalkError::Moved`, ENOENT): no `leave` for it or its
/// ancestors; the next root is walked as usual. Whether or not the
/// directories are stat'ed, in every mode.
#[test]
fn a_directory_moved_during_its_walk_ends_that_root() {
    for stat in [StatNeed::None, StatNeed::Lstat] {
        for (label, opts) in modes() {
            let t = Scratch::new("moved");
            let p = |r: &str| t.0.join(r).as_os_str().as_encoded_bytes().to_vec();
            std::fs::create_dir_all(t.0.join("r/3/a/b/c/d/e/f/g")).unwrap();
            std::fs::create_dir_all(t.0.join("r/3/a/b/x")).unwrap();
            std::fs::create_dir_all(t.0.join("other/y")).unwrap();
            let m = Mover::new(stat, p("r/3/a/b/c/d"), t.0.join("r/3/a/b"), t.0.join("r/3/b"));
            walk::walk(&[p("r"), p("other")], &opts, &m);
            let label = format!("{label} {stat:?}");
            let errs = m.errors.lock().unwrap();
            assert!(
                matches!(&errs[..], [WalkError::Moved { path, errno }]
                    if *path == p("r/3/a/b") && *errno == walk::Errno::ENOENT),
                "{label}: {errs:?}"
            );
            let left = m.left.lock().unwrap();
            for gone in ["r/3/a/b", "r/3/a", "r/3", "r"] {
                assert!(!left.contains(&p(gone)), "{label}: {gone} left: {left:?}");
            }
            for done in ["r/3/a/b/c", "other/y", "other"] {
                assert!(left.contains(&p(done)), "{label}: {done} not left: {left:?}");
            }
        }
    }
}

/// Only where GNU's fts checks: a directory whose subtree is less than
/// four levels deep goes back up through a descriptor fts kept, so moving
/// it is not noticed (and the walker doesn't look either).
#[test]
fn a_shallow_directory_moved_is_not_noticed() {
    for (label, opts) in modes() {
        let t = Scratch::new("moved-shallow");
        let p = |r: &str| t.0.join(r).as_os_str().as_encoded_bytes().to_vec();
        std::fs::create_dir_all(t.0.join("r/3/a/b/c/d/e")).unwrap();
        let m =
            Mover::new(StatNeed::Lstat, p("r/3/a/b/c/d"), t.0.join("r/3/a/b"), t.0.join("r/3/b"));
        walk::walk(&[p("r")], &opts, &m);
        assert!(m.errors.lock().unwrap().is_empty(), "{label}: {:?}", m.errors.lock().unwrap());
    }
}

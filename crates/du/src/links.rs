//! Counting each file once: hard links, and (with several operands or
//! `-L`) anything reached twice.
//!
//! GNU du walks depth-first in directory order and counts the first link it
//! meets. A parallel walk meets links in another order, so within one
//! operand a multiply-linked file is only a *candidate* until the operand
//! is done: each candidate keeps the smallest position at which it was seen
//! (its directory's index path from the operand plus its index in that
//! directory, which orders entries as a sequential walk would). Directories
//! whose totals depend on candidates are "dirty": their lines wait, with
//! their partial totals, until the operand is done; then every candidate is
//! credited to the directories above its winning position and the waiting
//! lines are printed, children before parents. Trees without multiply-linked
//! files never wait.
//!
//! Memory goes with the multiply-linked files, compactly: a candidate is
//! its (dev, ino), a directory number, an index and a size (about 40 bytes
//! in the table; GNU's own table of such files takes about 25). With `-a`
//! each candidate's line also waits: its name in its directory's arena and
//! some 60 bytes.

use ringio::sync::lock;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Mutex;

use hashbrown::{HashMap, HashSet};

use cli::timefmt::Timestamp;

use crate::tally::{Dui, NO_TIME};

/// The key of hard-link counting.
pub type Id = ringio::DevIno;

/// A position in the walk: the listing index at each level below the operand.
pub type Key = Box<[u32]>;

/// A directory holding candidates, numbered in [`Links`].
pub type DirNo = u32;

#[derive(Clone, Copy)]
struct Candidate {
    dir: DirNo,
    idx: u32,
    bytes: u64,
}

/// A directory that holds candidates.
struct DirInfo {
    key: Key,
    /// The directory's path with a trailing `/` (names of waiting lines follow).
    path: Box<[u8]>,
}

/// A candidate file's own line (`-a`), printed if its link wins (its
/// size and times are the inode's, kept with the candidate).
pub struct FileWait {
    pub idx: u32,
    pub depth: u32,
    /// Where its name is in the directory's [`DirWaits::names`].
    pub name: (u32, u32),
    pub id: Id,
}

/// The `-a` lines of one directory's candidates, collected by the thread
/// visiting it and handed over when the directory is left.
#[derive(Default)]
pub struct DirWaits {
    pub names: Vec<u8>,
    pub files: Vec<FileWait>,
}

/// A line waiting for the operand's candidates to be decided.
enum Wait {
    Dir {
        key: Key,
        depth: usize,
        /// Empty when the line is not printed (below `--max-depth`), only summed.
        path: Box<[u8]>,
        dui: Dui,
    },
    Files {
        dir: DirNo,
        waits: DirWaits,
    },
}

/// A decided line.
pub struct Resolved<'a> {
    pub depth: usize,
    pub path: &'a [u8],
    pub dui: Dui,
}

const SHARDS: usize = 16;

pub struct Links {
    /// Counted in earlier operands (or, in sequential mode, already).
    seen: Mutex<HashSet<Id>>,
    /// Whether `seen` has anything, so the first operand's multiply-linked
    /// files don't all queue on its lock.
    any_seen: AtomicBool,
    /// The current operand's candidates, sharded so threads rarely meet.
    shards: Vec<Mutex<HashMap<Id, Candidate>>>,
    /// Candidates' times and other byte counts (`Dui::alt`), kept only
    /// with `--time` or `--json`.
    extras: Mutex<HashMap<Id, (Timestamp, u64)>>,
    dirs: Mutex<Vec<DirInfo>>,
    waiting: Mutex<Vec<Wait>>,
}

impl Default for Links {
    fn default() -> Self {
        Links {
            seen: Mutex::default(),
            any_seen: AtomicBool::new(false),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            extras: Mutex::default(),
            dirs: Mutex::default(),
            waiting: Mutex::default(),
        }
    }
}

fn shard_of(id: Id) -> usize {
    (id.ino ^ id.dev.rotate_left(17)) as usize % SHARDS
}

/// Compares positions `ak ++ [ai]` and `bk ++ [bi]` in walk order.
fn cmp_pos(ak: &[u32], ai: u32, bk: &[u32], bi: u32) -> Ordering {
    ak.iter().copied().chain([ai]).cmp(bk.iter().copied().chain([bi]))
}

impl Links {
    /// Marks `id` counted; false if it already was.
    pub fn first_time(&self, id: Id) -> bool {
        self.any_seen.store(true, AtomicOrdering::Relaxed);
        lock(&self.seen).insert(id)
    }

    pub fn seen_before(&self, id: Id) -> bool {
        self.any_seen.load(AtomicOrdering::Relaxed) && lock(&self.seen).contains(&id)
    }

    /// Numbers a directory that holds candidates (once per directory).
    pub fn register_dir(&self, key: &[u32], path_with_slash: &[u8]) -> DirNo {
        let mut d = lock(&self.dirs);
        d.push(DirInfo { key: key.into(), path: path_with_slash.into() });
        (d.len() - 1) as DirNo
    }

    /// Records a multiply-linked file met at index `idx` of directory `dir`;
    /// `extras`: its time and other byte count are wanted.
    pub fn candidate(&self, id: Id, dir: DirNo, idx: u32, dui: &Dui, extras: bool) {
        let mut s = lock(&self.shards[shard_of(id)]);
        match s.get_mut(&id) {
            None => {
                s.insert(id, Candidate { dir, idx, bytes: dui.bytes });
                drop(s);
                if extras {
                    lock(&self.extras).insert(id, (dui.time, dui.alt));
                }
            }
            Some(old) => {
                let earlier = if old.dir == dir {
                    idx < old.idx
                } else {
                    let d = lock(&self.dirs);
                    cmp_pos(&d[dir as usize].key, idx, &d[old.dir as usize].key, old.idx)
                        == Ordering::Less
                };
                if earlier {
                    old.dir = dir;
                    old.idx = idx;
                }
            }
        }
    }

    /// A dirty directory's line (`path` empty if not printed) and its total
    /// so far.
    pub fn wait_dir(&self, key: Key, depth: usize, path: Box<[u8]>, dui: Dui) {
        lock(&self.waiting).push(Wait::Dir { key, depth, path, dui });
    }

    /// The `-a` lines of directory `dir`'s candidates.
    pub fn wait_files(&self, dir: DirNo, waits: DirWaits) {
        if !waits.files.is_empty() {
            lock(&self.waiting).push(Wait::Files { dir, waits });
        }
    }

    /// The current operand is done: decides its candidates, calls `emit`
    /// for every waiting line that is printed (descendants before
    /// ancestors), and returns the candidates' sum for the grand total.
    /// `separate` is `-S`: a directory's total then excludes subdirectories.
    /// `more_operands`: later operands must skip these files too.
    pub fn resolve(
        &self,
        separate: bool,
        more_operands: bool,
        mut emit: impl FnMut(Resolved),
    ) -> Dui {
        let waiting = std::mem::take(&mut *lock(&self.waiting));
        let dirs = std::mem::take(&mut *lock(&self.dirs));
        let extras = std::mem::take(&mut *lock(&self.extras));
        let mut grand = Dui::default();
        if waiting.is_empty() && dirs.is_empty() {
            return grand;
        }
        let dui_of = |id: &Id, c: &Candidate| {
            let (time, alt) = extras.get(id).copied().unwrap_or((NO_TIME, 0));
            Dui { bytes: c.bytes, alt, inodes: 1, time }
        };
        // The candidates' own lines first (a file has no descendants; its
        // line only has to precede its directories'), then the directories
        // in post-order.
        let mut path = Vec::new();
        let mut dir_waits = Vec::new();
        for w in waiting {
            match w {
                Wait::Files { dir, waits } => {
                    for f in &waits.files {
                        let shard = lock(&self.shards[shard_of(f.id)]);
                        let Some(c) = shard.get(&f.id) else { continue };
                        if (c.dir, c.idx) == (dir, f.idx) {
                            let dui = dui_of(&f.id, c);
                            drop(shard);
                            path.clear();
                            path.extend_from_slice(&dirs[dir as usize].path);
                            let (o, l) = f.name;
                            path.extend_from_slice(&waits.names[o as usize..(o + l) as usize]);
                            emit(Resolved { depth: f.depth as usize, path: &path, dui });
                        }
                    }
                }
                Wait::Dir { key, depth, path, dui } => dir_waits.push((key, depth, path, dui)),
            }
        }
        // Winners, summed per directory.
        let mut per_dir = vec![Dui::default(); dirs.len()];
        {
            let mut seen = lock(&self.seen);
            for shard in &self.shards {
                let mut s = lock(shard);
                for (id, c) in s.drain() {
                    let d = dui_of(&id, &c);
                    grand.add(&d);
                    per_dir[c.dir as usize].add(&d);
                    if more_operands {
                        seen.insert(id);
                        self.any_seen.store(true, AtomicOrdering::Relaxed);
                    }
                }
                s.shrink_to_fit();
            }
        }
        let mut extra: HashMap<Box<[u32]>, Dui> = HashMap::new();
        for (d, sum) in dirs.iter().zip(&per_dir) {
            if sum.inodes > 0 {
                extra.entry(d.key.clone()).or_default().add(sum);
            }
        }
        drop(per_dir);
        dir_waits.sort_unstable_by(|a, b| post_order(&a.0, &b.0));
        for (key, depth, p, dui) in dir_waits {
            let more = extra.remove(&key).unwrap_or_default();
            if !separate && !key.is_empty() {
                extra.entry(key[..key.len() - 1].into()).or_default().add(&more);
            }
            if !p.is_empty() {
                emit(Resolved { depth, path: &p, dui: dui.plus(&more) });
            }
        }
        grand
    }
}

/// Depth-first post-order on index paths: a directory after everything
/// below it, siblings in listing order.
pub fn post_order(a: &[u32], b: &[u32]) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => b.len().cmp(&a.len()),
        o => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(bytes: u64) -> Dui {
        Dui { bytes, inodes: 1, ..Dui::default() }
    }

    const ID: Id = Id { dev: 1, ino: 9 };

    #[test]
    fn order() {
        let mut v: Vec<Vec<u32>> = vec![vec![], vec![0], vec![0, 1], vec![1], vec![0, 0, 5]];
        v.sort_by(|a, b| post_order(a, b));
        assert_eq!(v, vec![vec![0, 0, 5], vec![0, 1], vec![0], vec![1], vec![]]);
    }

    #[test]
    fn earliest_link_wins_and_sums_climb() {
        // root/[0]=a/[3]=f  and root/[1]=b/[0]=g are links of one inode;
        // met in the "wrong" order (b first), a must still get it.
        let l = Links::default();
        let b = l.register_dir(&[1], b"r/b/");
        let a = l.register_dir(&[0], b"r/a/");
        l.candidate(ID, b, 0, &d(100), false);
        l.candidate(ID, a, 3, &d(100), false);
        let mut wb = DirWaits::default();
        wb.names.extend_from_slice(b"g");
        wb.files.push(FileWait { idx: 0, depth: 2, name: (0, 1), id: ID });
        l.wait_files(b, wb);
        let mut wa = DirWaits::default();
        wa.names.extend_from_slice(b"f");
        wa.files.push(FileWait { idx: 3, depth: 2, name: (0, 1), id: ID });
        l.wait_files(a, wa);
        l.wait_dir([1].into(), 1, b"r/b".as_slice().into(), d(4));
        l.wait_dir([0].into(), 1, b"r/a".as_slice().into(), d(4));
        l.wait_dir([].into(), 0, b"r".as_slice().into(), d(12));
        let mut got = Vec::new();
        let grand = l.resolve(false, true, |r| {
            got.push((String::from_utf8_lossy(r.path).into_owned(), r.dui.bytes))
        });
        assert_eq!(
            got,
            vec![("r/a/f".into(), 100), ("r/a".into(), 104), ("r/b".into(), 4), ("r".into(), 112)]
        );
        assert_eq!(grand.bytes, 100);
        assert!(!l.first_time(ID));
    }
}

//! Counting each file once: hard links, and (with several operands or
//! `-L`) anything reached twice.
//!
//! GNU du walks depth-first in directory order and counts the first link it
//! meets. A parallel walk meets links in another order, so within one
//! operand a multiply-linked file is only a *candidate* until the operand
//! is done: each candidate keeps the smallest position (its index path from
//! the operand, which orders entries as a sequential walk would) at which
//! it was seen. Directories whose totals depend on candidates are "dirty":
//! their lines wait, with their partial totals, until the operand is done;
//! then every candidate is credited to the directories above its winning
//! position and the waiting lines are printed, children before parents.
//! Trees without multiply-linked files never wait. Memory stays with the
//! multiply-linked files and the dirty directories.

use std::cmp::Ordering;
use std::sync::Mutex;

use hashbrown::{HashMap, HashSet};

use crate::tally::Dui;

/// (st_dev, st_ino)
pub type Id = (u64, u64);

/// A position in the walk: the listing index at each level below the operand.
pub type Key = Box<[u32]>;

struct Candidate {
    key: Key,
    dui: Dui,
}

/// A line waiting for the operand's candidates to be decided.
pub struct Waiting {
    pub key: Key,
    pub depth: usize,
    /// Empty when the line is not printed (below `--max-depth`), only summed.
    pub path: Box<[u8]>,
    pub what: WaitKind,
}

pub enum WaitKind {
    /// A directory and its total so far (without candidates).
    Dir(Dui),
    /// A candidate file's own line (`-a`): printed if it is the winner.
    File(Id, Dui),
}

/// A decided line.
pub struct Resolved<'a> {
    pub depth: usize,
    pub path: &'a [u8],
    pub dui: Dui,
}

#[derive(Default)]
pub struct Links {
    /// Counted in earlier operands (or, in sequential mode, already).
    seen: Mutex<HashSet<Id>>,
    candidates: Mutex<HashMap<Id, Candidate>>,
    waiting: Mutex<Vec<Waiting>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Links {
    /// Marks `id` counted; false if it already was.
    pub fn first_time(&self, id: Id) -> bool {
        lock(&self.seen).insert(id)
    }

    pub fn seen_before(&self, id: Id) -> bool {
        lock(&self.seen).contains(&id)
    }

    /// Records a multiply-linked file met at `key` in the current operand.
    pub fn candidate(&self, id: Id, key: &[u32], dui: Dui) {
        let mut c = lock(&self.candidates);
        match c.get_mut(&id) {
            Some(old) if key < &old.key[..] => old.key = key.into(),
            Some(_) => {}
            None => {
                c.insert(id, Candidate { key: key.into(), dui });
            }
        }
    }

    pub fn wait(&self, w: Waiting) {
        lock(&self.waiting).push(w);
    }

    /// The current operand is done: decides its candidates, calls `emit`
    /// for every waiting line that is printed (descendants before
    /// ancestors), and returns the candidates' sum for the grand total.
    /// `separate` is `-S`: a directory's total then excludes subdirectories.
    pub fn resolve(&self, separate: bool, mut emit: impl FnMut(Resolved)) -> Dui {
        let cands = std::mem::take(&mut *lock(&self.candidates));
        let mut waiting = std::mem::take(&mut *lock(&self.waiting));
        let mut grand = Dui::default();
        if cands.is_empty() && waiting.is_empty() {
            return grand;
        }
        // Winners, credited to the directory that holds them.
        let mut extra: HashMap<Box<[u32]>, Dui> = HashMap::new();
        let mut winner: HashMap<Id, Key> = HashMap::with_capacity(cands.len());
        {
            let mut seen = lock(&self.seen);
            for (id, c) in cands {
                grand.add(&c.dui);
                let parent: Box<[u32]> = c.key[..c.key.len().saturating_sub(1)].into();
                extra.entry(parent).or_default().add(&c.dui);
                seen.insert(id);
                winner.insert(id, c.key);
            }
        }
        waiting.sort_unstable_by(|a, b| post_order(&a.key, &b.key));
        for w in waiting {
            match w.what {
                WaitKind::File(id, dui) => {
                    if winner.get(&id).is_some_and(|k| **k == *w.key) {
                        emit(Resolved { depth: w.depth, path: &w.path, dui });
                    }
                }
                WaitKind::Dir(base) => {
                    let more = extra.remove(&w.key).unwrap_or_default();
                    if !separate && !w.key.is_empty() {
                        let parent: Box<[u32]> = w.key[..w.key.len() - 1].into();
                        extra.entry(parent).or_default().add(&more);
                    }
                    if !w.path.is_empty() {
                        emit(Resolved { depth: w.depth, path: &w.path, dui: base.plus(&more) });
                    }
                }
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
        l.candidate((1, 9), &[1, 0], d(100));
        l.candidate((1, 9), &[0, 3], d(100));
        let w = |key: &[u32], path: &str, base: u64| Waiting {
            key: key.into(),
            depth: key.len(),
            path: path.as_bytes().into(),
            what: WaitKind::Dir(d(base)),
        };
        l.wait(w(&[1], "r/b", 4));
        l.wait(w(&[0], "r/a", 4));
        l.wait(w(&[], "r", 12));
        let mut got = Vec::new();
        let grand = l.resolve(false, |r| {
            got.push((String::from_utf8_lossy(r.path).into_owned(), r.dui.bytes))
        });
        assert_eq!(got, vec![("r/a".into(), 104), ("r/b".into(), 4), ("r".into(), 112)]);
        assert_eq!(grand.bytes, 100);
        assert!(!l.first_time((1, 9)));
    }
}

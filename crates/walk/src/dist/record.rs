//! A rank's side of the walk: walks its items with the ordinary walker
//! and turns each directory into a record for rank 0, handing subdirectories
//! to the shared queue instead of descending them while that queue runs low
//! (so idle ranks have something to steal).
//!
//! Nothing here evaluates the tool's expression: the tool's visitor only
//! says which stat an entry needs. Which directories to descend is guessed
//! from [`Hints`] (depth, device, exclusions, loops); a wrong guess costs
//! work, never correctness, since rank 0's replay decides and asks for a
//! directory nobody walked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ringio::{DevIno, Errno};

use super::wire::{self, Item, Put};
use super::{Hints, Shared};
use crate::{dtype, Entry, StatNeed, Visit, Visitor, WalkError};

pub(crate) struct Recorder<'a, V> {
    pub inner: &'a V,
    pub item: &'a Item,
    pub hints: &'a Hints<'a>,
    pub sh: &'a Shared,
    /// Where finished records go (rank 0's store, or the outbox).
    pub emit: &'a (dyn Fn(Vec<u8>) + Sync),
    /// The operand's device, once its root is stat'ed.
    pub root_dev: AtomicU64,
    /// Subdirectories are handed out while fewer items than this wait.
    pub hungry: usize,
}

/// A directory's record while its entries are being visited.
pub(crate) struct DirRec {
    buf: Mutex<DirBuf>,
    /// (dev, ino) of it and its ancestors (only when following links).
    chain: Vec<(u64, u64)>,
}

#[derive(Default)]
struct DirBuf {
    ents: Vec<u8>,
    n: u64,
    read_error: Option<Errno>,
}

impl Default for DirRec {
    fn default() -> Self {
        DirRec { buf: Mutex::new(DirBuf::default()), chain: Vec::new() }
    }
}

fn id_of(e: &Entry) -> Option<(u64, u64)> {
    e.stat.map(|st| {
        let d = DevIno::of(st);
        (d.dev, d.ino)
    })
}

impl<V: Visitor> Recorder<'_, V> {
    fn stale(&self) -> bool {
        self.item.gen <= self.sh.dead.load(Ordering::Relaxed)
    }

    fn list_error(&self, path: &[u8], errno: Errno) {
        let mut p = Put(Vec::with_capacity(path.len() + 40));
        wire::header(&mut p, self.item.gen, wire::LIST, path);
        p.errno(Some(errno));
        p.errno(None);
        p.u64(0);
        (self.emit)(p.0);
    }

    /// Whether the walk should go below `e` (a guess; see the module docs).
    fn worth_descending(&self, e: &Entry, abs: usize, parent: &DirRec) -> bool {
        if !e.is_dir() || e.stat_error.is_some() || abs >= self.hints.max_depth {
            return false;
        }
        if let Some(skip) = self.hints.skip {
            if skip(e.path) {
                return false;
            }
        }
        if let Some(id) = id_of(e) {
            if self.hints.xdev && id.0 != self.root_dev.load(Ordering::Relaxed) {
                return false;
            }
            if self.hints.follow_all && parent.chain.contains(&id) {
                return false;
            }
        }
        true
    }
}

impl<V: Visitor> Visitor for Recorder<'_, V> {
    type Local = ();
    type Acc = DirRec;
    const DIRFD_AFTER_VISIT: bool = false;

    fn local(&self) {}

    fn need_stat(&self, name: &[u8], d_type: u8, depth: usize) -> StatNeed {
        let need = self.inner.need_stat(name, d_type, depth + self.item.depth);
        // -xdev needs the directories' devices to stop at a mount.
        if need == StatNeed::None && self.hints.xdev && d_type == dtype::DIR {
            return StatNeed::Lstat;
        }
        need
    }

    fn visit(&self, _: &mut (), e: &Entry, parent: Option<&DirRec>) -> Visit {
        if self.stale() {
            return Visit::Quit;
        }
        let Some(parent) = parent else {
            // The item's own directory.
            if self.item.operand {
                if let Some(id) = id_of(e) {
                    self.root_dev.store(id.0, Ordering::Relaxed);
                }
                let mut p = Put(Vec::with_capacity(e.path.len() + 200));
                wire::header(&mut p, self.item.gen, wire::ROOT, e.path);
                p.u8(1);
                p.entry(e);
                (self.emit)(p.0);
                let go = e.is_dir() && e.stat_error.is_none() && self.hints.max_depth > 0;
                return if go { Visit::Descend } else { Visit::Skip };
            }
            if !e.is_dir() {
                // Replaced since its parent was read.
                self.list_error(e.path, Errno(libc::ENOTDIR));
                return Visit::Skip;
            }
            return Visit::Descend;
        };
        let abs = e.depth + self.item.depth;
        let descend = self.worth_descending(e, abs, parent);
        let export = descend && self.hungry > 0 && {
            let q = ringio::sync::lock(&self.sh.pending);
            q.len() < self.hungry
        };
        {
            let mut b = ringio::sync::lock(&parent.buf);
            let mut p = Put(std::mem::take(&mut b.ents));
            p.u8(wire::ENT);
            p.bytes(e.name);
            p.entry(e);
            p.u8(descend as u8);
            b.ents = p.0;
            b.n += 1;
        }
        if export {
            let item = Item {
                gen: self.item.gen,
                path: e.path.to_vec(),
                depth: abs,
                operand: false,
                root_dev: self.root_dev.load(Ordering::Relaxed),
                chain: parent.chain.clone(),
            };
            ringio::sync::lock(&self.sh.pending).push_back(item);
            self.sh.cv.notify_one();
            return Visit::Skip;
        }
        if descend {
            Visit::Descend
        } else {
            Visit::Skip
        }
    }

    fn make_acc(&self, dir: &Entry, parent: Option<&DirRec>) -> DirRec {
        let mut acc = DirRec::default();
        if self.hints.follow_all {
            acc.chain = parent.map_or_else(|| self.item.chain.clone(), |p| p.chain.clone());
            acc.chain.extend(id_of(dir));
        }
        acc
    }

    fn after_entries(&self, _: &mut (), dir: &Entry, acc: &DirRec) {
        if self.stale() {
            return;
        }
        let b = std::mem::take(&mut *ringio::sync::lock(&acc.buf));
        let mut p = Put(Vec::with_capacity(b.ents.len() + dir.path.len() + 40));
        wire::header(&mut p, self.item.gen, wire::LIST, dir.path);
        p.errno(None);
        p.errno(b.read_error);
        p.u64(b.n);
        p.0.extend_from_slice(&b.ents);
        (self.emit)(p.0);
    }

    fn error(&self, _: &mut (), err: &WalkError, acc: Option<&DirRec>) {
        if self.stale() {
            return;
        }
        match err {
            WalkError::Root { path, errno } => {
                if self.item.operand {
                    let mut p = Put(Vec::with_capacity(path.len() + 40));
                    wire::header(&mut p, self.item.gen, wire::ROOT, path);
                    p.u8(0);
                    p.errno(Some(*errno));
                    (self.emit)(p.0);
                } else {
                    self.list_error(path, *errno);
                }
            }
            WalkError::Open { path, errno } => self.list_error(path, *errno),
            WalkError::Read { errno, .. } => {
                if let Some(acc) = acc {
                    ringio::sync::lock(&acc.buf).read_error.get_or_insert(*errno);
                }
            }
            WalkError::Loop { path, ancestor } => {
                if let Some(acc) = acc {
                    let name = path.rsplit(|&c| c == b'/').next().unwrap_or(path);
                    let mut b = ringio::sync::lock(&acc.buf);
                    let mut p = Put(std::mem::take(&mut b.ents));
                    p.u8(wire::LOOP);
                    p.bytes(name);
                    p.bytes(ancestor);
                    b.ents = p.0;
                    b.n += 1;
                }
            }
        }
    }
}

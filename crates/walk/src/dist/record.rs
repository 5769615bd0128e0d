//! A rank's side of the walk: the visitor of its walk, which turns each
//! directory into a record for rank 0. Depths are the operand's (a stolen
//! directory's walk starts at its depth), and each directory's
//! accumulator carries the item it was reached from ([`Ctx`]).
//!
//! Nothing here evaluates the tool's expression: the tool's visitor only
//! says which stat an entry needs. Which directories to descend is guessed
//! from [`Hints`] (depth, device, exclusions, loops); a wrong guess costs
//! work, never correctness, since rank 0's replay decides and asks for a
//! directory nobody walked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ringio::{DevIno, Errno};

use super::wire::{self, Put};
use super::Shared;
use crate::Hints;
use crate::{dtype, Entry, StatNeed, Visit, Visitor, WalkError};

pub(crate) struct Recorder<'a, V> {
    pub inner: &'a V,
    pub hints: &'a Hints<'a>,
    pub sh: &'a Shared,
    /// Where finished records go (rank 0's store, or the outbox).
    pub emit: &'a (dyn Fn(Vec<u8>) + Sync),
}

/// What the directories of one item share: its operand walk and device.
#[derive(Default)]
pub(crate) struct Ctx {
    pub gen: u64,
    /// The operand's device, once its root is stat'ed.
    pub root_dev: AtomicU64,
}

/// A directory's record while its entries are being visited.
#[derive(Default)]
pub(crate) struct DirRec {
    pub buf: Mutex<DirBuf>,
    /// The item it was reached from (a default one, of generation 0,
    /// is always stale).
    pub ctx: Arc<Ctx>,
    /// (dev, ino) of it and its ancestors (only when following links).
    pub chain: Vec<(u64, u64)>,
}

#[derive(Default)]
pub(crate) struct DirBuf {
    ents: Vec<u8>,
    n: u64,
    read_error: Option<Errno>,
}

pub(crate) fn id_of(e: &Entry) -> Option<(u64, u64)> {
    e.stat.map(|st| {
        let d = DevIno::of(st);
        (d.dev, d.ino)
    })
}

impl<V: Visitor> Recorder<'_, V> {
    fn stale(&self, gen: u64) -> bool {
        gen <= self.sh.dead.load(Ordering::Relaxed)
    }

    pub fn list_error(&self, gen: u64, path: &[u8], errno: Errno) {
        let mut p = Put(Vec::with_capacity(path.len() + 40));
        wire::header(&mut p, gen, wire::LIST, path);
        p.errno(Some(errno));
        p.errno(None);
        p.u64(0);
        (self.emit)(p.0);
    }

    /// The root entry of an operand (`None`: it could not be stat'ed).
    pub fn root_record(&self, gen: u64, path: &[u8], e: Result<&Entry, Errno>) {
        let mut p = Put(Vec::with_capacity(path.len() + 200));
        wire::header(&mut p, gen, wire::ROOT, path);
        match e {
            Ok(e) => {
                p.u8(1);
                p.entry(e);
            }
            Err(errno) => {
                p.u8(0);
                p.errno(Some(errno));
            }
        }
        (self.emit)(p.0);
    }

    /// Whether the walk should go below `e` (a guess; see the module docs).
    fn worth_descending(&self, e: &Entry, parent: &DirRec) -> bool {
        if !e.is_dir() || e.stat_error.is_some() || e.depth >= self.hints.max_depth {
            return false;
        }
        if let Some(skip) = self.hints.skip {
            if skip(e.path) {
                return false;
            }
        }
        if let Some(id) = id_of(e) {
            if self.hints.xdev && id.0 != parent.ctx.root_dev.load(Ordering::Relaxed) {
                return false;
            }
            if self.hints.follow_all && parent.chain.contains(&id) {
                return false;
            }
        }
        true
    }
}

// Depths are the operand's: a fed root starts at its item's depth.
impl<V: Visitor> Visitor for Recorder<'_, V> {
    type Local = ();
    type Acc = DirRec;
    fn dirfd_after_visit(&self) -> bool {
        false
    }

    fn local(&self) {}

    fn need_stat(&self, name: &[u8], d_type: u8, depth: usize) -> StatNeed {
        let need = self.inner.need_stat(name, d_type, depth);
        // -xdev needs the directories' devices to stop at a mount.
        if need == StatNeed::None && self.hints.xdev && d_type == dtype::DIR {
            return StatNeed::Lstat;
        }
        need
    }

    fn visit(&self, _: &mut (), e: &Entry, parent: Option<&DirRec>) -> Visit {
        // Roots are the feed's (`dist::walker`), never visited here.
        let Some(parent) = parent else { return Visit::Skip };
        // Never Quit: that would end the rank's whole walk, not the item's.
        if self.stale(parent.ctx.gen) {
            return Visit::Skip;
        }
        let descend = self.worth_descending(e, parent);
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
        if descend {
            Visit::Descend
        } else {
            Visit::Skip
        }
    }

    fn make_acc(&self, dir: &Entry, parent: Option<&DirRec>) -> DirRec {
        let mut acc = DirRec::default();
        if let Some(p) = parent {
            acc.ctx = Arc::clone(&p.ctx);
            if self.hints.follow_all {
                acc.chain = p.chain.clone();
                acc.chain.extend(id_of(dir));
            }
        }
        acc
    }

    fn after_entries(&self, _: &mut (), dir: &Entry, acc: &DirRec) {
        if self.stale(acc.ctx.gen) {
            return;
        }
        let b = std::mem::take(&mut *ringio::sync::lock(&acc.buf));
        let mut p = Put(Vec::with_capacity(b.ents.len() + dir.path.len() + 40));
        wire::header(&mut p, acc.ctx.gen, wire::LIST, dir.path);
        p.errno(None);
        p.errno(b.read_error);
        p.u64(b.n);
        p.0.extend_from_slice(&b.ents);
        (self.emit)(p.0);
    }

    fn leave(&self, _: &mut (), _: &Entry, _: &DirRec, parent: Option<&DirRec>) {
        if parent.is_none() {
            // A fed root's subtree is done.
            self.sh.roots.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn error(&self, _: &mut (), err: &WalkError, acc: Option<&DirRec>) {
        let Some(acc) = acc else { return };
        if self.stale(acc.ctx.gen) {
            return;
        }
        match err {
            // Roots are stat'ed by the feed, which reports their errors.
            WalkError::Root { .. } => {}
            WalkError::Open { path, errno } => self.list_error(acc.ctx.gen, path, *errno),
            WalkError::Read { errno, .. } => {
                ringio::sync::lock(&acc.buf).read_error.get_or_insert(*errno);
            }
            // Fed walks don't check where directories went (`Stop::ascent`).
            WalkError::Moved { .. } => {}
            WalkError::Loop { path, ancestor } => {
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

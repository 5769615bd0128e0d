//! Rank 0's side: the tool's own visitor, run single-threaded over the
//! records in the order the sequential walker (`ordered`) would have met
//! the entries, with the same callbacks in the same order — so the output,
//! the messages, du's first-met hard links and find's `-quit`, `-ok` or
//! `-ls` widths are what one process walking in GNU's order gives.

use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};

use std::io::Write;

use ringio::{dtype, DevIno, Errno};

use super::spill::{self, Spill};
use super::wire::{self, Get, Item};
use super::Shared;
use crate::node::Facts;
use crate::{Entry, Visit, Visitor, WalkError};

/// Records received for the operand being replayed, by (kind, path):
/// in memory up to a budget, past it in a temporary file ([`Spill`]).
pub(crate) struct Store {
    m: Mutex<StoreIn>,
    cv: Condvar,
    progname: String,
}

struct StoreIn {
    gen: u64,
    recs: Spill,
    /// The replay can't go on (a record the file lost): waits return
    /// nothing, and the job ends saying this.
    aborted: Option<String>,
}

impl Store {
    pub fn new(progname: &str, budget: usize) -> Store {
        Store {
            m: Mutex::new(StoreIn {
                gen: 0,
                recs: Spill::new(budget, spill::temp_dir()),
                aborted: None,
            }),
            cv: Condvar::new(),
            progname: progname.to_string(),
        }
    }

    /// Keeps a record of the current operand (older ones are dropped: what
    /// the replay skipped, still arriving).
    pub fn insert(&self, rec: Vec<u8>) {
        let mut g = Get::new(&rec);
        let gen = g.u64();
        let kind = g.u8();
        let path = g.bytes().to_vec();
        let at = g.at;
        let mut m = ringio::sync::lock(&self.m);
        if gen == m.gen {
            if let Err(e) = m.recs.put((kind, path), rec, at) {
                // Nothing is lost, but the memory bound is: said once.
                let line = format!(
                    "{}: warning: records are held in memory: cannot write {e}\n",
                    self.progname
                );
                let _ = std::io::stderr().write_all(line.as_bytes());
            }
            drop(m);
            self.cv.notify_all();
        }
    }

    /// Starts operand `gen`: what is held of the previous one goes.
    fn begin(&self, gen: u64) {
        let mut m = ringio::sync::lock(&self.m);
        m.gen = gen;
        m.recs.clear();
    }

    /// Waits for a record; `None` once the replay can't go on.
    fn wait(&self, kind: u8, path: &[u8]) -> Option<(Vec<u8>, usize)> {
        let key = (kind, path.to_vec());
        let mut m = ringio::sync::lock(&self.m);
        loop {
            if m.aborted.is_some() {
                return None;
            }
            match m.recs.take(&key) {
                Some(Ok(r)) => return Some(r),
                Some(Err(e)) => {
                    m.aborted = Some(format!("cannot read back {e}: the output is incomplete"));
                    drop(m);
                    self.cv.notify_all();
                    return None;
                }
                None => {}
            }
            m = ringio::sync::wait(&self.cv, m);
        }
    }

    /// Why the replay stopped short, if it did: the job must end saying so.
    pub fn failure(&self) -> Option<String> {
        ringio::sync::lock(&self.m).aborted.clone()
    }
}

/// A directory being replayed.
struct Dir {
    path: Vec<u8>,
    name_start: usize,
    depth: usize,
    w: Facts,
}

impl Dir {
    fn entry(&self) -> Entry<'_> {
        let name = &self.path[self.name_start..];
        self.w.entry(&self.path, name, self.depth, libc::AT_FDCWD, &self.path)
    }
    fn id(&self) -> Option<DevIno> {
        self.w.stat.as_ref().map(DevIno::of)
    }
}

struct Frame<A> {
    dir: Dir,
    acc: A,
    rec: Vec<u8>,
    at: usize,
    left: u64,
}

/// The path of the directory of `frames` that `w`, a followed link to a
/// directory, leads back to, if it does.
fn looped_to<A>(frames: &[Frame<A>], w: &Facts) -> Option<Vec<u8>> {
    if !(w.followed && w.d_type == dtype::DIR) {
        return None;
    }
    let id = w.stat.as_ref().map(DevIno::of)?;
    let a = frames.iter().rev().find(|f| f.dir.id() == Some(id))?;
    Some(a.dir.path.clone())
}

pub(crate) struct Replay<'a> {
    pub store: &'a Store,
    pub sh: &'a Shared,
    pub follow_all: bool,
}

impl Replay<'_> {
    /// Replays `roots` one after another, each as generation `next_gen()`;
    /// stops early on a quit.
    pub fn run<V: Visitor>(&self, v: &V, roots: &[Vec<u8>], mut next_gen: impl FnMut() -> u64) {
        let mut local = v.local();
        for root in roots {
            let gen = next_gen();
            self.store.begin(gen);
            self.request(Item {
                gen,
                path: root.clone(),
                depth: 0,
                operand: true,
                root_dev: 0,
                chain: Vec::new(),
            });
            let go = self.operand(v, &mut local, gen, root);
            // Whatever is still walked or queued for it is now useless.
            self.sh.dead.fetch_max(gen, Ordering::Relaxed);
            if !go {
                break;
            }
        }
        v.finish(local);
    }

    fn request(&self, item: Item) {
        ringio::sync::lock(&self.sh.pending).push_back(item);
        self.sh.cv.notify_all();
    }

    /// Replays one operand; false to stop (a quit, or the job aborting).
    fn operand<V: Visitor>(&self, v: &V, local: &mut V::Local, gen: u64, root: &[u8]) -> bool {
        let Some((rec, at)) = self.store.wait(wire::ROOT, root) else { return false };
        let mut g = Get { b: &rec, at };
        if g.u8() == 0 {
            let errno = g.errno().unwrap_or(Errno(libc::EIO));
            v.error(local, &WalkError::Root { path: root.to_vec(), errno }, None);
            return true;
        }
        let w = g.entry();
        let dir = Dir { path: root.to_vec(), name_start: 0, depth: 0, w };
        let visit = v.visit(local, &dir.entry(), None);
        match visit {
            Visit::Quit => false,
            Visit::Descend if dir.w.d_type == dtype::DIR => {
                let acc = v.make_acc(&dir.entry(), None);
                self.walk(v, local, gen, dir, acc)
            }
            _ => true,
        }
    }

    /// Opens a directory's record: a frame, or `None` after reporting it
    /// could not be read (then `leave` has run).
    fn open<V: Visitor>(
        &self,
        v: &V,
        local: &mut V::Local,
        dir: Dir,
        acc: V::Acc,
        parent: Option<&V::Acc>,
    ) -> Result<Option<Frame<V::Acc>>, ()> {
        let Some((rec, at)) = self.store.wait(wire::LIST, &dir.path) else { return Err(()) };
        let mut g = Get { b: &rec, at };
        let open_error = g.errno();
        let read_error = g.errno();
        let left = g.u64();
        let at = g.at;
        if let Some(errno) = open_error {
            v.error(local, &WalkError::Open { path: dir.path.clone(), errno }, Some(&acc));
            v.leave(local, &dir.entry(), &acc, parent);
            return Ok(None);
        }
        if let Some(errno) = read_error {
            v.error(local, &WalkError::Read { path: dir.path.clone(), errno }, Some(&acc));
        }
        Ok(Some(Frame { dir, acc, rec, at, left }))
    }

    /// Asks for directory `path` to be walked, below the directories of
    /// `frames` (the chain of their identities goes along under `-L`).
    fn ask_for<A>(&self, frames: &[Frame<A>], gen: u64, path: &[u8], depth: usize) {
        let chain = if self.follow_all {
            frames.iter().filter_map(|f| f.dir.id()).map(|d| (d.dev, d.ino)).collect()
        } else {
            Vec::new()
        };
        let root_dev = frames[0].dir.id().map_or(0, |d| d.dev);
        self.request(Item { gen, path: path.to_vec(), depth, operand: false, root_dev, chain });
    }

    fn walk<V: Visitor>(
        &self,
        v: &V,
        local: &mut V::Local,
        gen: u64,
        root: Dir,
        acc: V::Acc,
    ) -> bool {
        let mut frames: Vec<Frame<V::Acc>> = Vec::new();
        match self.open(v, local, root, acc, None) {
            Err(()) => return false,
            Ok(None) => return true,
            Ok(Some(f)) => frames.push(f),
        }
        while let Some(top) = frames.last_mut() {
            if top.left == 0 {
                let f = frames.pop().expect("a frame");
                let e = f.dir.entry();
                v.after_entries(local, &e, &f.acc);
                v.leave(local, &e, &f.acc, frames.last().map(|p| &p.acc));
                continue;
            }
            top.left -= 1;
            let mut g = Get { b: &top.rec, at: top.at };
            let kind = g.u8();
            let name = g.bytes();
            let mut path = top.dir.path.clone();
            if path.last() != Some(&b'/') {
                path.push(b'/');
            }
            let name_start = path.len();
            path.extend_from_slice(name);
            if kind == wire::LOOP {
                let ancestor = g.bytes().to_vec();
                top.at = g.at;
                v.error(local, &WalkError::Loop { path, ancestor }, Some(&top.acc));
                continue;
            }
            let w = g.entry();
            let walked = g.u8() != 0;
            top.at = g.at;
            let depth = top.dir.depth + 1;
            // A followed link back to an ancestor is reported instead of
            // visited, as the walker does.
            if let Some(ancestor) = looped_to(&frames, &w) {
                let top = frames.last().expect("a frame");
                v.error(local, &WalkError::Loop { path, ancestor }, Some(&top.acc));
                continue;
            }
            let top = frames.last().expect("a frame");
            let e = w.entry(&path, &path[name_start..], depth, libc::AT_FDCWD, &path);
            match v.visit(local, &e, Some(&top.acc)) {
                Visit::Quit => return false,
                Visit::Descend if w.d_type == dtype::DIR => {
                    let acc = v.make_acc(&e, Some(&top.acc));
                    if !walked {
                        // Nobody walked it (a guess said no): ask for it.
                        self.ask_for(&frames, gen, &path, depth);
                    }
                    let dir = Dir { path, name_start, depth, w };
                    match self.open(v, local, dir, acc, Some(&top.acc)) {
                        Err(()) => return false,
                        Ok(None) => {}
                        Ok(Some(f)) => frames.push(f),
                    }
                }
                _ => {}
            }
        }
        true
    }
}

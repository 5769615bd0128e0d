//! One thread, depth-first, each directory's entries in directory order
//! (or sorted): the order GNU find and du print in.
//!
//! A directory's descriptor is pinned while its own entries are visited
//! and unpinned while the walk is inside one of its subdirectories, so
//! that on a tree deeper than the descriptor budget the ancestors' can be
//! closed, and reopened when the walk comes back (see `fds`).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::dirs::{self, Pinned};
use crate::fds::Fds;
use crate::reader::{Listing, Reader};
use crate::step::{self, Env, Node};
use crate::{Options, Visitor};

struct Frame<V: Visitor> {
    node: Node<V>,
    list: Listing,
    next: usize,
    pin: Option<Pinned>,
    /// Unpinned while the walk was in a subdirectory: pin again on return.
    resume: bool,
}

pub(crate) fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &Options, remote: bool, v: &V) {
    let stop = AtomicBool::new(false);
    let fds = Fds::new(1);
    let mut rd = Reader::new(opts.thread_engine(remote, true));
    let mut local = v.local();
    let mut path = Vec::new();
    // Listings are kept per depth and reused, so a deep walk allocates once per level.
    let mut spare: Vec<Listing> = Vec::new();
    let mut stack: Vec<Frame<V>> = Vec::new();
    let mut w = Walk { rd: &mut rd, fds: &fds, spare: &mut spare, opts, v, stop: &stop };
    for r in roots {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(node) = step::root(w.rd, r, opts, v, &mut local, &stop) else { continue };
        w.descend(node, &mut stack, &mut local);
        while let Some(top) = stack.last_mut() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if top.next < top.list.len() {
                let i = top.next;
                top.next += 1;
                if top.resume {
                    // Back from a subdirectory: its descriptor may have been
                    // closed meanwhile; a directory that can't be reopened
                    // (removed or replaced) has its entries named by path.
                    top.resume = false;
                    top.pin = dirs::pin(&fds, None, &top.node).ok();
                }
                let dirfd = top.pin.as_ref().map_or(libc::AT_FDCWD, |p| p.fd);
                let env = Env { v, fds: &fds, stop: &stop };
                let child = step::entry(env, &top.node, dirfd, &top.list, i, &mut path, &mut local);
                if let Some(child) = child {
                    top.pin = None;
                    top.resume = true;
                    w.descend(child, &mut stack, &mut local);
                }
            } else if let Some(f) = stack.pop() {
                drop(f.pin);
                step::after_entries(&fds, &f.node, v, &mut local);
                w.spare.push(f.list);
                step::finish(&fds, f.node, v, &mut local, &stop);
            }
        }
        // After a quit, release what is still open.
        for f in stack.drain(..).rev() {
            drop(f.pin);
            w.spare.push(f.list);
            step::finish(&fds, f.node, v, &mut local, &stop);
        }
    }
    v.finish(local);
}

struct Walk<'a, V: Visitor> {
    rd: &'a mut Reader,
    fds: &'a Fds,
    spare: &'a mut Vec<Listing>,
    opts: &'a Options,
    v: &'a V,
    stop: &'a AtomicBool,
}

impl<V: Visitor> Walk<'_, V> {
    fn descend(&mut self, node: Node<V>, stack: &mut Vec<Frame<V>>, local: &mut V::Local) {
        let mut list = self.spare.pop().unwrap_or_default();
        let env = Env { v: self.v, fds: self.fds, stop: self.stop };
        match step::open_read(env, self.rd, &node, &mut list, self.opts, local) {
            Some(pin) => stack.push(Frame { node, list, next: 0, pin: Some(pin), resume: false }),
            None => {
                self.spare.push(list);
                step::finish(self.fds, node, self.v, local, self.stop);
            }
        }
    }
}

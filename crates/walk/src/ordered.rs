//! One thread, depth-first, each directory's entries in directory order
//! (or sorted): the order GNU find and du print in.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::reader::{Listing, Reader};
use crate::step::{self, Node};
use crate::{Options, Visitor};

struct Frame<V: Visitor> {
    node: Node<V>,
    list: Listing,
    next: usize,
}

pub(crate) fn walk<V: Visitor>(roots: &[Vec<u8>], opts: &Options, remote: bool, v: &V) {
    let stop = AtomicBool::new(false);
    let mut rd = Reader::new(opts.thread_engine(remote, true));
    let mut local = v.local();
    let mut path = Vec::new();
    // Listings are kept per depth and reused, so a deep walk allocates once per level.
    let mut spare: Vec<Listing> = Vec::new();
    let mut stack: Vec<Frame<V>> = Vec::new();
    for r in roots {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(node) = step::root(&mut rd, r, opts, v, &mut local, &stop) else { continue };
        descend(&mut rd, node, &mut stack, &mut spare, opts, v, &mut local, &stop);
        while let Some(top) = stack.last_mut() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if top.next < top.list.len() {
                let i = top.next;
                top.next += 1;
                let child = step::entry(&top.node, &top.list, i, &mut path, v, &mut local, &stop);
                if let Some(child) = child {
                    descend(&mut rd, child, &mut stack, &mut spare, opts, v, &mut local, &stop);
                }
            } else if let Some(f) = stack.pop() {
                step::after_entries(&f.node, v, &mut local);
                spare.push(f.list);
                step::finish(f.node, v, &mut local, &stop);
            }
        }
        // After a quit, release what is still open.
        for f in stack.drain(..).rev() {
            spare.push(f.list);
            step::finish(f.node, v, &mut local, &stop);
        }
    }
    v.finish(local);
}

#[allow(clippy::too_many_arguments)]
fn descend<V: Visitor>(
    rd: &mut Reader,
    node: Node<V>,
    stack: &mut Vec<Frame<V>>,
    spare: &mut Vec<Listing>,
    opts: &Options,
    v: &V,
    local: &mut V::Local,
    stop: &AtomicBool,
) {
    let mut list = spare.pop().unwrap_or_default();
    if step::open_read(rd, &node, &mut list, opts, v, local) {
        stack.push(Frame { node, list, next: 0 });
    } else {
        spare.push(list);
        step::finish(node, v, local, stop);
    }
}

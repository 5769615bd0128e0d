//! The steps both walk modes share: a root, a directory's listing, one
//! entry, and finishing a subtree.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ringio::{dtype, DevIno};

use crate::dirs::{self, Pinned};
use crate::fds::Fds;
use crate::node::{dtype_of, DirNode};
use crate::reader::{Listing, Reader, StatRef, StatSlot};
use crate::{Entry, Options, Visit, Visitor, WalkError};

pub(crate) type Node<V> = Arc<DirNode<<V as Visitor>::Acc>>;

/// What every step of one walk shares: the visitor, the descriptor budget
/// and the flag a `Visit::Quit` raises.
pub(crate) struct Env<'a, V> {
    pub v: &'a V,
    pub fds: &'a Fds,
    pub stop: &'a AtomicBool,
}

impl<V> Clone for Env<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Env<'_, V> {}

/// Stats and visits a root operand; returns its node if the walk descends.
pub(crate) fn root<V: Visitor>(
    rd: &mut Reader,
    path: &[u8],
    opts: &Options,
    v: &V,
    local: &mut V::Local,
    stop: &AtomicBool,
) -> Option<Node<V>> {
    let (st, err, followed) = match rd.stat_path(path, opts.follow_roots) {
        StatSlot::Ok { st, followed } => (Some(st), None, followed),
        StatSlot::Err(e) => {
            v.error(local, &WalkError::Root { path: path.to_vec(), errno: e }, None);
            return None;
        }
    };
    let d_type = st.as_ref().map_or(dtype::UNKNOWN, dtype_of);
    let ino = st.as_ref().map_or(0, |s| s.stx_ino);
    let entry = Entry {
        path,
        name: path,
        depth: 0,
        d_type,
        ino,
        stat: st.as_ref(),
        stat_error: err,
        followed,
        dirfd: libc::AT_FDCWD,
        rel_name: path,
        index: 0,
    };
    match v.visit(local, &entry, None) {
        Visit::Quit => {
            stop.store(true, Ordering::Relaxed);
            None
        }
        Visit::Descend if d_type == dtype::DIR => {
            let acc = v.make_acc(&entry, None);
            Some(DirNode::from_entry(&entry, st, None, acc))
        }
        _ => None,
    }
}

/// Opens, reads and stats `node` into `list` (the whole listing). Returns
/// its pinned descriptor, or `None` (after reporting) when it could not be
/// opened.
pub(crate) fn open_read<V: Visitor>(
    env: Env<'_, V>,
    rd: &mut Reader,
    node: &Node<V>,
    list: &mut Listing,
    opts: &Options,
    local: &mut V::Local,
) -> Option<Pinned> {
    let v = env.v;
    let pin = open(rd, env.fds, node, list, v, local)?;
    if let Err(e) = rd.read(pin.fd, dev_size(node), list, opts.sort) {
        v.error(local, &WalkError::Read { path: node.path.clone(), errno: e }, Some(&node.acc));
    }
    let depth = node.depth + 1;
    rd.stat(pin.fd, list, |name, d_type| v.need_stat(name, d_type, depth));
    Some(pin)
}

/// Opens `node` (pinned), or reports why not (clearing `list`).
pub(crate) fn open<V: Visitor>(
    rd: &mut Reader,
    fds: &Fds,
    node: &Node<V>,
    list: &mut Listing,
    v: &V,
    local: &mut V::Local,
) -> Option<Pinned> {
    match dirs::pin(fds, Some(rd), node) {
        Ok(p) => Some(p),
        Err(e) => {
            list.clear();
            v.error(local, &WalkError::Open { path: node.path.clone(), errno: e }, Some(&node.acc));
            None
        }
    }
}

/// The directory's device and size, for the end-of-directory hint.
pub(crate) fn dev_size<A>(node: &DirNode<A>) -> Option<(u64, u64)> {
    node.stat.as_ref().map(|st| (DevIno::of(st).dev, st.stx_size))
}

/// Visits entry `i` of `node`'s listing, `dirfd` being `node`'s pinned
/// descriptor (or `AT_FDCWD` when it can't be had: the entry is then named
/// by its whole path); returns the child to descend into.
pub(crate) fn entry<V: Visitor>(
    env: Env<'_, V>,
    node: &Node<V>,
    dirfd: RawFd,
    list: &Listing,
    i: usize,
    path: &mut Vec<u8>,
    local: &mut V::Local,
) -> Option<Node<V>> {
    let Env { v, stop, .. } = env;
    let name = list.name(i);
    path.clear();
    path.extend_from_slice(&node.path);
    if path.last() != Some(&b'/') {
        path.push(b'/');
    }
    let name_start = path.len();
    path.extend_from_slice(name);
    let raw = list.ents[i];
    // Borrowed: a statx is 256 bytes, and only directories keep a copy.
    let (st, stat_error, followed) = match list.stat(i) {
        StatRef::None => (None, None, false),
        StatRef::Ok { st, followed } => (Some(st), None, followed),
        StatRef::Err(e) => (None, Some(e), false),
    };
    let d_type = st.map_or(raw.d_type, dtype_of);
    // A followed link back to an ancestor is reported instead of visited,
    // as find -L and du -L do.
    if followed && d_type == dtype::DIR {
        if let Some(anc) = st.and_then(|s| loop_ancestor(node, DevIno::of(s))) {
            let err = WalkError::Loop { path: path.clone(), ancestor: anc };
            v.error(local, &err, Some(&node.acc));
            return None;
        }
    }
    let rel_name = if dirfd == libc::AT_FDCWD { &path[..] } else { name };
    let e = Entry {
        path,
        name: &path[name_start..],
        depth: node.depth + 1,
        d_type,
        ino: raw.ino,
        stat: st,
        stat_error,
        followed,
        dirfd,
        rel_name,
        index: list.base + i,
    };
    match v.visit(local, &e, Some(&node.acc)) {
        Visit::Quit => {
            stop.store(true, Ordering::Relaxed);
            None
        }
        Visit::Descend if d_type == dtype::DIR => {
            let acc = v.make_acc(&e, Some(&node.acc));
            Some(DirNode::from_entry(&e, st.copied(), Some(Arc::clone(node)), acc))
        }
        _ => None,
    }
}

/// The path of the ancestor (or `node` itself) that is the same directory.
fn loop_ancestor<A>(node: &Arc<DirNode<A>>, id: DevIno) -> Option<Vec<u8>> {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if n.dev_ino() == Some(id) {
            return Some(n.path.clone());
        }
        cur = n.parent.as_ref();
    }
    None
}

/// Tells the visitor every entry of `node`'s listing has been visited.
pub(crate) fn after_entries<V: Visitor>(fds: &Fds, node: &Node<V>, v: &V, local: &mut V::Local) {
    if V::DIRFD_AFTER_VISIT {
        dirs::with_parent(fds, node, |dirfd, rel| {
            v.after_entries(local, &node.entry(dirfd, rel), &node.acc)
        });
    } else {
        v.after_entries(local, &node.entry(libc::AT_FDCWD, &node.path), &node.acc);
    }
}

/// One unit of `node`'s subtree is done; runs `leave` for every directory
/// this completes, innermost first, and closes their descriptors.
pub(crate) fn finish<V: Visitor>(
    fds: &Fds,
    node: Node<V>,
    v: &V,
    local: &mut V::Local,
    stop: &AtomicBool,
) {
    let mut cur = node;
    loop {
        if !cur.finish_one() {
            return;
        }
        if !stop.load(Ordering::Relaxed) {
            let parent_acc = cur.parent.as_ref().map(|p| &p.acc);
            if V::DIRFD_AFTER_VISIT {
                dirs::with_parent(fds, &cur, |dirfd, rel| {
                    v.leave(local, &cur.entry(dirfd, rel), &cur.acc, parent_acc)
                });
            } else {
                v.leave(local, &cur.entry(libc::AT_FDCWD, &cur.path), &cur.acc, parent_acc);
            }
        }
        fds.finish(&cur.slot);
        match cur.parent.clone() {
            Some(p) => cur = p,
            None => return,
        }
    }
}
